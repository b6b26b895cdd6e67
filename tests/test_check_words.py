"""Every message ``check`` gives reads as words (issue 42: "at at line 3"): no word twice in a
row in any finding's text, in ``check``'s report, its GitHub annotations or its SARIF, over bad
state files of every kind the reader meets and the conformance corpora of the three systems."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from phasewatch.core.export import github_commands, to_sarif
from phasewatch.core.report import audit_project
from phasewatch.core.rules import all_rules
from phasewatch.core.sources import parse_document
from phasewatch.tui.check_output import print_report

TESTS = Path(__file__).parent
DOUBLED = re.compile(r"\b([A-Za-z]{2,})\s+\1\b", re.IGNORECASE)

#: State files as a reader meets them: plain text, cut while written, broken, not an object.
BAD_STATES = (
    b"this is not JSON\n",
    b"hello\nworld\n",
    b'{\n  "a": 1,\n',
    b'{\n  "a": x\n}\n',
    b'{\n  "phases": {\n    "x": {\n      "status": "in_prog',  # cut inside a string
    b'{\n  "a": "no end\n}\n',
    b"[]",
    b"null",
    b"\xef\xbb\xbf{}",
    b'{"a": NaN}',
    b"",
    b"\x00\xff\xfe junk",
    b"[" * 2000,
    b'{"a": 1}garbage',
    b'{"a": "\\ud800"}',
)


def _bad_states(root: Path) -> list[Path]:
    out = []
    for i, raw in enumerate(BAD_STATES):
        (root / f"s{i}" / ".isdlc").mkdir(parents=True)
        (root / f"s{i}" / ".isdlc" / "state.json").write_bytes(raw)
        out.append(root / f"s{i}")
    return out


def _isdlc_corpus(root: Path) -> list[Path]:
    out = []
    for f in sorted((TESTS / "conformance" / "isdlc" / "corpus").glob("*.json")):
        for j, step in enumerate(json.loads(f.read_text()).get("steps", [])):
            if isinstance(step.get("state"), dict):
                p = root / f"{f.stem}-{j}" / ".isdlc"
                p.mkdir(parents=True)
                (p / "state.json").write_text(json.dumps(step["state"], indent=2))
                out.append(p.parent)
    return out


def _tdd_cases(root: Path) -> list[Path]:
    out = []
    cases = sorted((TESTS / "conformance" / "tdd" / "cases").glob("*.md"))
    for f in cases[::5]:  # every fifth of the 1,235: every named mutation's family appears
        (root / f.stem).mkdir()
        shutil.copy(f, root / f.stem / ".tdd-progress.md")
        out.append(root / f.stem)
    return out


def _registries(root: Path) -> list[Path]:
    out = []
    for d in sorted((TESTS / "conformance" / "plugins").iterdir()):
        if (d / "PLUGINS.md").exists():
            shutil.copytree(d, root / d.name)
            out.append(root / d.name)
    return out


def _hook_log(root: Path) -> list[Path]:
    (root / ".isdlc").mkdir()
    log = root / ".isdlc" / "hook-activity.log"
    shutil.copy(TESTS / "fixtures" / "hooklog" / "validator-v7-v8.log", log)
    with log.open("a") as out:
        out.write("junk line\n{not json}\n\x00\x01\n")
    return [root]


@pytest.mark.parametrize(
    "make",
    [_bad_states, _isdlc_corpus, _tdd_cases, _registries, _hook_log],
    ids=lambda m: m.__name__,
)
def test_no_check_message_says_a_word_twice(tmp_path: Path, make: Callable[[Path], list[Path]]):
    rules = all_rules()
    projects = make(tmp_path)
    assert projects
    found = 0
    for project in projects:
        report = audit_project(project, retries=0)
        found += len(report.findings)
        texts = [t for f in report.findings for t in (f.message, f.hint, str(f.actual))]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            print_report(report, colour=False)
        texts += [printed.getvalue(), *github_commands(report)]
        texts.append(json.dumps(to_sarif(report, rules, "0"), ensure_ascii=False))
        for text in texts:
            match = DOUBLED.search(text or "")
            assert match is None, (project.name, text[max(0, match.start() - 80) : match.end()])
    assert found  # the scan saw messages


def test_an_unterminated_string_is_said_once_at_its_place():
    """json's own message ends in "at" ("Unterminated string starting at"): it was followed
    by " at line 4", so check said "starting at at line 4"."""
    result = parse_document(Path("s.json"), b'{\n  "a": 1,\n  "b": {\n    "c": "cut')
    assert result.status == "torn"
    assert result.error == "Unterminated string starting at line 4 column 10"


def test_plain_text_is_not_called_torn():
    """The owner writes an object: text that does not open one is not a write caught halfway
    (it was "torn", with a hint to wait for the owner's next write)."""
    for raw in (b"this is not JSON\n", b"t", b"[1, 2"):
        assert parse_document(Path("s.json"), raw).status == "invalid", raw
    for raw in (b"", b"  \n", b"{", b'{\n  "a": 1,\n  "b'):
        assert parse_document(Path("s.json"), raw).status == "torn", raw
