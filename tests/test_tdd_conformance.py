"""The stop-hook model equals the TDD plugin's real hook on every recorded fixture.

``tests/conformance/tdd/verdicts.json`` holds what ``hooks/check-tdd-progress.sh`` (the commit
named there) decided on each file in ``cases/``: real progress files from the plugin's tests,
history and planning archive, and mutations of them (see that folder's README and generate.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
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
