"""phasewatch.core.review: the gate view, the review summary file and the attention queue (pure)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from phasewatch.core.review import attention_items, gate_view, presented_gate, read_review_summary
from phasewatch.core.snapshot import evaluate
from phasewatch.core.sources import discover

from tests import factories as F


def snap_of(state):
    return evaluate(state, ".isdlc/state.json")


def test_gate_view_of_a_presented_gate() -> None:
    view = gate_view(snap_of(F.build_state()))
    assert view is not None and view.phase == "06-implementation"
    assert view.status == "gate_presented" and view.can_continue and view.can_redo
    assert view.completed and view.raw is not None
    assert presented_gate(snap_of(F.build_state())) == view
    reviewing = F.setpath(F.build_state(), "active_workflow.supervised_review.status", "reviewing")
    r = gate_view(snap_of(reviewing))
    assert r is not None and r.can_resume and not r.can_continue
    assert presented_gate(snap_of(reviewing)) is None
    assert r.key == view.key  # same presentation, another status
    limit = F.setpath(F.build_state(), "active_workflow.supervised_review.redo_count", 3)
    at_limit = gate_view(snap_of(limit))
    assert at_limit is not None and not at_limit.can_redo and at_limit.key != view.key
    assert gate_view(snap_of(F.feature_state())) is None


def test_read_review_summary(tmp_path: Path) -> None:
    (tmp_path / ".isdlc" / "reviews").mkdir(parents=True)
    (tmp_path / ".isdlc" / "reviews" / "phase-06-summary.md").write_text("# 06\n\x1b]0;x\x07ok\n")
    project = discover(tmp_path)
    assert read_review_summary(project, "06-implementation") == "# 06\nok\n"
    assert read_review_summary(project, "16-quality-loop") is None
    assert read_review_summary(project, "weird") is None


def test_attention_items_oldest_first_and_undated_last() -> None:
    state = F.build_state()
    state["pending_escalations"] = [
        {
            "type": "gate_blocked",
            "hook": "gate-blocker",
            "phase": "06-implementation",
            "detail": "a\nb",
            "timestamp": "2026-03-04T08:00:00.000Z",
        },
        {
            "type": "corridor_blocked",
            "hook": "iteration-corridor",
            "phase": "06-implementation",
            "detail": "c",
            "timestamp": None,
        },
    ]
    plan = SimpleNamespace(
        is_approved=False,
        created="2026-03-04T08:30:00Z",
        last_updated=None,
        slices=[1, 2],
        lock_exists=True,
        task="T",
    )
    items = attention_items(snap_of(state), plan)
    assert [i.kind for i in items] == ["escalation", "plan", "gate", "escalation"]
    assert items[0].detail == "a" and items[-1].since is None
    approved = SimpleNamespace(is_approved=True)
    assert [i.kind for i in attention_items(snap_of(F.feature_state()), approved)] == []
