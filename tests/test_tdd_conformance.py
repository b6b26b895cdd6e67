"""The stop-hook model equals the TDD plugin's real hook on every recorded fixture.

``tests/conformance/tdd/verdicts.json`` holds what ``hooks/check-tdd-progress.sh`` (the commit
named there) decided on each file in ``cases/``: real progress files from the plugin's tests,
history and planning archive, and mutations of them (see that folder's README and generate.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.tdd import parse_progress
from phasewatch.core.tdd.hook import stop_hook_view

HERE = Path(__file__).parent / "conformance" / "tdd"
DOC = json.loads((HERE / "verdicts.json").read_text(encoding="utf-8"))
CASES = DOC["cases"]


def test_the_corpus_is_large_and_varied():
    assert len(CASES) >= 800
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
