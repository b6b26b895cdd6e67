"""Escalation Retry resets the phase exactly as the framework's workflow-retry.cjs does
(fixtures recorded by running it: tests/conformance/isdlc/retry/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from phasewatch.core import decide

HERE = Path(__file__).parent / "conformance" / "isdlc" / "retry"
CASES = sorted(p.name.removesuffix(".before.json") for p in HERE.glob("*.before.json"))


@pytest.mark.parametrize("case", CASES)
def test_retry_leaves_the_phase_as_the_framework_does(tmp_path: Path, case: str) -> None:
    before = json.loads((HERE / f"{case}.before.json").read_text())
    real = json.loads((HERE / f"{case}.after.json").read_text())
    phase = before["active_workflow"]["current_phase"]
    before["pending_escalations"] = [{"phase": phase, "type": "test_iteration_exceeded"}]
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_text(json.dumps(before, indent=2))
    result = decide.decide_escalation(path, "retry")
    assert result.outcome == "applied", result.message
    ours = json.loads(path.read_text())
    assert ours["phases"].get(phase) == real["phases"].get(phase)
    for key in ("type", "phase"):
        assert (
            ours["active_workflow"]["recovery_action"][key]
            == real["active_workflow"]["recovery_action"][key]
        )
    assert ours["state_version"] == real["state_version"]


def test_the_corpus_is_there():
    assert len(CASES) >= 5
