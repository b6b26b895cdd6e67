"""Text that cannot impersonate: no format of ``check`` lets file content start a line of its
own (a CI log runs a line starting ``::``), and the cleaning function drops what reorders or
hides text (bidi controls, zero-width and tag characters), in names as in contents. SARIF URIs
are percent-encoded (RFC 3986)."""

from __future__ import annotations

import contextlib
import io
import json
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.export import github_commands, to_sarif
from phasewatch.core.report import audit_project
from phasewatch.core.rules import all_rules
from phasewatch.core.text import clean, json_is_clean
from phasewatch.tui.cli import main

from tests import factories

INJECTED = "\n::error file=x::owned\r::warning::also\u2028::notice::sep\u2029::debug::p"
HIDDEN = (
    [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
    + ["\U000e0000", "\U000e0001", "\U000e0041", "\U000e007f"]
)


@pytest.mark.parametrize("char", HIDDEN, ids=lambda c: f"U+{ord(c):04X}")
def test_clean_drops_bidi_zero_width_and_tag_characters(char):
    assert clean(f"a{char}b") == "ab"
    raw = json.dumps({"k": f"a{char}b"}, ensure_ascii=False).encode()
    assert not json_is_clean(raw)  # the parsed document gets its cleaning pass


@given(st.text(alphabet=st.sampled_from([*HIDDEN, "a", "\n", "é"])))
def test_nothing_hidden_survives_cleaning(text):
    assert not any(c in HIDDEN or unicodedata.category(c) == "Cf" for c in clean(text))


def hostile_project(root: Path) -> Path:
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["active_workflow"]["current_phase"] = f"{key}{INJECTED}\u202eevil"
    state["phases"][f"99-x{INJECTED}"] = {"status": f"odd{INJECTED}"}
    root.mkdir(parents=True, exist_ok=True)
    (root / ".isdlc").mkdir()
    (root / ".isdlc" / "state.json").write_text(json.dumps(state, indent=2), encoding="utf-8")
    return root


def run_check(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["check", *args])
    return out.getvalue()


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_no_format_of_check_lets_file_content_start_a_line(tmp_path, fmt, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    root = hostile_project(tmp_path / "p\u202e1")
    out = run_check(str(root), "--format", fmt)
    assert "owned" in out  # the hostile text is shown ...
    lines = out.splitlines()  # (splits at \r, \u2028, \u2029 and the rest too)
    own = {"text": "", "json": "{", "sarif": "{", "github": "::"}[fmt]
    for line in lines:
        assert "::error file=x" not in line or not line.lstrip().startswith("::error file=x")
        assert not line.startswith("::") or fmt == "github", line  # ... never as a command
        assert "\u202e" not in line
    if fmt == "github":
        assert all(line.startswith(own) for line in lines)
        assert len(lines) == len(audit_project(root).findings)
    if fmt in ("json", "sarif"):
        json.loads(out)


@pytest.mark.parametrize(
    "name", ["with space", "per%cent", "hash#tag", "café", "q?x", "日本"], ids=str
)
def test_sarif_uris_are_percent_encoded(tmp_path, name):
    state = factories.feature_state()
    state["phases"][state["current_phase"]]["status"] = "pending"  # a finding in the file
    isdlc = tmp_path / ".isdlc"
    (isdlc / "projects" / name).mkdir(parents=True)
    (isdlc / "monorepo.json").write_text('{"version": 1, "projects": {}}')
    (isdlc / "projects" / name / "state.json").write_text(json.dumps(state, indent=2))
    report = audit_project(tmp_path)
    sarif = to_sarif(report, all_rules(), "0")
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    ]
    ours = [u for u in uris if unquote(u) == f".isdlc/projects/{name}/state.json"]
    assert ours, uris
    for uri in uris:  # RFC 3986: unreserved characters, "/" and %XX only
        assert all(c.isascii() and (c.isalnum() or c in "-._~/%") for c in uri), uri


def test_github_commands_are_one_line_each(tmp_path):
    root = hostile_project(tmp_path / "p")
    commands = github_commands(audit_project(root))
    assert commands and all("\n" not in c and "\r" not in c for c in commands)
    assert all(len(c.splitlines()) == 1 for c in commands)
