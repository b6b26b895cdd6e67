"""The stop-hook model equals the TDD plugin's real hook on every recorded fixture.

``tests/conformance/tdd/verdicts.json`` holds what ``hooks/check-tdd-progress.sh`` (the commit
named there) decided on each file in ``cases/``: real progress files from the plugin's tests,
history and planning archive, and mutations of them (see that folder's README and generate.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.findings import Severity
from phasewatch.core.sources import Project
from phasewatch.core.tdd import TDD_MAX_BYTES, load_tdd, parse_progress
from phasewatch.core.tdd.hook import HookCounter, stop_hook_view

HERE = Path(__file__).parent / "conformance" / "tdd"
DOC = json.loads((HERE / "verdicts.json").read_text(encoding="utf-8"))
CASES = DOC["cases"]
BIG = DOC["big"]


def _big_bytes(recipe: dict) -> bytes:
    """The bytes generate.py's ``big_bytes`` built (head, filler, tail; see there)."""
    head, tail = recipe["head"].encode("latin-1"), recipe["tail"].encode("latin-1")
    width, size = recipe["width"], recipe["size"]
    if width > 0:
        return head + (b"f" * (width - 1) + b"\n") * (size // width + 1) + tail
    return head + (b"x" if width == 0 else b" ") * size + tail


def test_the_corpus_is_large_and_varied():
    assert len(CASES) >= 1200
    assert sum(n.startswith("random-") for n in CASES) >= 300
    assert sum(n.startswith("lock-") for n in CASES) >= 40
    assert len(BIG) >= 6 and {"allow", "block"} == {v["decision"] for v in BIG.values()}
    assert {"allow", "block"} == {v["decision"] for v in CASES.values()}
    assert sum(not v["approved"] for v in CASES.values()) >= 50
    assert any(v.get("total", 0) < v.get("terminal", 0) for v in CASES.values())  # negative
    assert sorted(p.stem for p in (HERE / "cases").glob("*.md")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_equals_the_real_hook(name):
    real = CASES[name]
    raw = (HERE / "cases" / f"{name}.md").read_bytes()
    view = stop_hook_view(raw)
    assert (view.decision, view.approved) == (real["decision"], real["approved"])
    if real["approved"]:  # the hook counts only past its approval test
        assert (view.total, view.terminal) == (real["total"], real["terminal"])
    plan = parse_progress(raw)  # the dashboard's plan carries the same verdict
    assert plan.hook == view and plan.is_approved == real["approved"]


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].get("lock")))
def test_a_leftover_lock_is_no_error_beside_any_plan(name, tmp_path):
    """The hook ran beside a .tdd-plan-locked (it never reads it); so does phasewatch."""
    real = CASES[name]
    (tmp_path / ".tdd-progress.md").write_bytes((HERE / "cases" / f"{name}.md").read_bytes())
    (tmp_path / ".tdd-plan-locked").touch()
    plan, findings = load_tdd(Project(root=tmp_path))
    assert plan is not None and plan.lock_exists
    assert (plan.hook.decision, plan.is_approved) == (real["decision"], real["approved"])
    lock = [f for f in findings if f.rule_id.startswith("TDD-LOCK")]
    if real["approved"]:
        assert [(f.rule_id, f.severity) for f in lock] == [
            ("TDD-LOCK-AFTER-APPROVAL", Severity.INFO)
        ]
        assert "1.11.0" in lock[0].message
    # The hook decided the same with the lock beside: the lock raises nothing above info, and
    # every other finding is what the plan alone gives (no "gate bypassed" error).
    assert all(f.severity == Severity.INFO for f in lock)
    assert all("1.11.0" in f.message for f in lock)
    (tmp_path / ".tdd-plan-locked").unlink()
    _plan, alone = load_tdd(Project(root=tmp_path))
    above_info = [(f.rule_id, f.severity, f.path) for f in findings if f.severity != Severity.INFO]
    assert above_info == [
        (f.rule_id, f.severity, f.path) for f in alone if f.severity != Severity.INFO
    ]


def test_the_lock_cases_include_progress_on_unapproved_plans(tmp_path):
    """The case the contract is about: a leftover lock beside a progressing unapproved plan,
    which the hook lets stop."""
    seen = 0
    for name in sorted(n for n in CASES if CASES[n].get("lock") and not CASES[n]["approved"]):
        plan = parse_progress((HERE / "cases" / f"{name}.md").read_bytes())
        seen += bool(plan.progressing) and CASES[name]["decision"] == "allow"
    assert seen >= 5


@pytest.mark.parametrize("name", sorted(BIG))
def test_a_file_over_the_read_cap_is_decided_as_the_hook_decides(name, tmp_path):
    real = BIG[name]
    raw = _big_bytes(real)
    assert len(raw) > TDD_MAX_BYTES
    (tmp_path / ".tdd-progress.md").write_bytes(raw)
    plan, _ = load_tdd(Project(root=tmp_path))
    assert plan is not None and plan.cut_at == TDD_MAX_BYTES
    view = plan.hook
    assert (view.decision, view.approved) == (real["decision"], real["approved"])
    if real["approved"]:
        assert (view.total, view.terminal) == (real["total"], real["terminal"])


def test_streamed_in_small_chunks_with_short_lines_kept_short():
    """The streaming counter (files over the read cap) gives the hook's verdict on every case
    fed in random chunks, with every line over 7 bytes kept only by its two ends."""
    rng = random.Random(24)
    for name, real in CASES.items():
        raw = (HERE / "cases" / f"{name}.md").read_bytes()
        counter, pos = HookCounter(long_line=7), 0
        while pos < len(raw):
            step = rng.choice((1, 2, 3, 5, 64, 4096))
            counter.feed(raw[pos : pos + step])
            pos += step
        view = counter.view()
        assert (view.decision, view.approved) == (real["decision"], real["approved"]), name
        assert view == stop_hook_view(raw), name


# ------------------------------------------------------------------ live oracle: GNU grep itself

# The hook's three grep patterns (data, not its code): approval, slice lines, terminal lines.
GREP = (
    ("-qiE", r"^\*{0,2}Approved:\*{0,2}"),
    ("-ciE", r"^\s*##\s*(slice|step)\s+[0-9]"),
    ("-ciE", r"status:\*{0,2}\s*(pass|done|complete|fail|skip)"),
)
_FRAGMENTS = st.sampled_from(
    [
        "## Slice 1: a",
        "##Step 2",
        "### Slice 3",
        "  ## slice 4",
        "\t## SLICE 5",
        "## ſlice 6",
        "## Slice\u00a07",
        "##\u2003Slice 8",
        "**Status:** done",
        "Status: FAIL",
        "status:pass",
        "**Status:**\u00a0done",
        "**Status:** \u2003skip",
        "Status: **done**",
        "**Status**: done",
        "status: Completed",
        "Status: paſſ",
        "Status: \x1b[32mdone",
        "**Approved:** 2026-01-01",
        "- **Approved:** x",
        "approved: y",
        "\ufeff",
        "\r",
        "\x00",
        "\udcff",
        "\u3000",
        "\x0b",
    ]
)


def _grep(raw: bytes) -> tuple[bool, int, int]:
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    out = []
    for flags, pattern in GREP:
        done = subprocess.run(["grep", flags, pattern], input=raw, env=env, capture_output=True)
        assert done.returncode in (0, 1), done.stderr
        out.append(done.returncode == 0 if flags == "-qiE" else int(done.stdout or 0))
    return out[0], out[1], out[2]


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep not available")
@settings(max_examples=120)
@given(st.lists(st.lists(_FRAGMENTS, max_size=3).map("".join), max_size=8))
def test_model_equals_grep_on_generated_lines(lines):
    raw = "\n".join(lines).encode("utf-8", errors="surrogateescape")
    view = stop_hook_view(raw)
    assert (view.approved, view.total, view.terminal) == _grep(raw)
