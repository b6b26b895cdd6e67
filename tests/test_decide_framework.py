"""The writer against output the iSDLC framework's own code produced (tests/fixtures/decide)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from phasewatch.core import decide, protocol

from tests.helpers.decide import NOW, feature_state, load, write_state

FIXTURES = Path(__file__).parent / "fixtures" / "decide"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "now_iso", lambda: NOW)


def test_retry_resets_the_phase_like_workflow_retry(tmp_path: Path) -> None:
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_bytes((FIXTURES / "retry_before.json").read_bytes())
    result = decide.decide_escalation(path, "retry")
    assert result.outcome == "applied", result.message
    want = json.loads((FIXTURES / "retry_after.json").read_text())
    want["active_workflow"]["recovery_action"]["timestamp"] = NOW
    want["pending_escalations"] = []  # answering the escalation is phasewatch's part
    assert path.read_text() == json.dumps(want, indent=2, ensure_ascii=False)
    assert "cleared test_iteration, constitutional_validation, interactive_elicitation" in (
        result.message
    )


def test_resume_entry_has_record_review_actions_key_order(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state(gate="gate_presented"))
    assert decide.decide_review(path, "review").outcome == "applied"
    assert decide.decide_review(path, "resume").outcome == "applied"
    entry = load(path)["active_workflow"]["review_history"][-1]
    framework = json.loads((FIXTURES / "review_resume_entry.json").read_text())
    assert list(entry) == list(framework)


@pytest.mark.parametrize(("disk", "after"), [(None, 1), (0, 1), (-5, 1), (41, 42)])
def test_state_version_follows_write_states_rule(tmp_path: Path, disk, after) -> None:
    state = feature_state()
    if disk is None:
        del state["state_version"]
    else:
        state["state_version"] = disk
    path = write_state(tmp_path, state)
    result = decide.decide_review(path, "continue")
    assert result.outcome == "applied" and load(path)["state_version"] == after


def test_cancel_entry_has_the_orchestrators_keys_first(tmp_path: Path) -> None:
    state = feature_state(escalations=1)
    state["active_workflow"].update(artifact_prefix="REQ", counter_used=7)
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "cancel", reason="scope")
    assert result.outcome == "applied", result.message
    entry = load(path)["workflow_history"][-1]
    assert list(entry)[:12] == [
        "type", "id", "description", "started_at", "cancelled_at", "cancelled_at_phase",
        "cancellation_reason", "status", "merged_commit", "phases", "phase_snapshots", "metrics",
    ]  # fmt: skip
    assert entry["id"] == "REQ-0007" and entry["merged_commit"] is None
    assert entry["cancelled_at_phase"] == state["active_workflow"]["current_phase"]
