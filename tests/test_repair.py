"""Guided repair (core/decide/plans.py, core/decide/repair.py): stale-write and location plans, their write through
the one writer, the claim the confirm watch asks, and undo."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core import decide
from phasewatch.core.audit.framework import v9a, v9b, v9c
from phasewatch.core.confirm import judge
from phasewatch.core.decide import claims
from phasewatch.core.decide.plans import LOCATION, STALE_WRITE
from phasewatch.core.decide.repair import repair_claim

from tests.helpers.repair import AGENTS, PHASES, orchestration, project, stale, state, stringify

# ----------------------------------------------------------------------------- stale write


def test_stale_write_plan_restores_what_went_back_and_keeps_the_rest() -> None:
    before = state(2, version=9)
    after = stale(before, state(0))
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and plan.kind == STALE_WRITE
    assert (plan.base_version, plan.from_version) == (10, 9)
    labels = {c.label for c in plan.changes}
    assert labels == {
        "active_workflow.current_phase",
        "current_phase",
        "active_workflow.current_phase_index",
        "active_agent",
        "active_workflow.phase_status.05-test-strategy",
        "active_workflow.phase_status.06-implementation",
        "active_workflow.phase_status.16-quality-loop",
        "phases.05-test-strategy.status",
        "phases.06-implementation.status",
        "phases.16-quality-loop.status",
    }
    for c in plan.changes:
        assert c.proposed == decide.plans.get(before, c.path)
        assert c.current == decide.plans.get(after, c.path)
    assert plan.kept == ("phases.05-test-strategy.artifacts",)  # the sub-agent's own work
    assert json.loads(json.dumps(plan.to_json()))["changes"][0]["path"]


def test_nothing_to_repair_only_where_nothing_the_framework_reads_differs() -> None:
    before = state(2)
    after = copy.deepcopy(before)
    after["state_version"] += 1
    after["project"]["ratio"] = 0.7  # a field no step of the framework reads
    assert decide.plan_stale_write(before, after) is None


@pytest.mark.parametrize(
    ("change", "field", "says"),
    [
        ("other-workflow", "active_workflow", "not the one seen"),
        ("rollback", "active_workflow", "not a stale write"),  # a legitimate rollback
        ("phases-changed", "active_workflow.phases", "phase list changed"),
        ("forward", "active_workflow", "not a stale write"),
    ],
)
def test_no_safe_repair_names_the_field_and_why(change: str, field: str, says: str) -> None:
    """Where something the framework reads differs but nothing can safely be put back, the
    plan changes nothing and says why (the command exits 2), never "nothing to repair"."""
    before = state(2)
    after = stale(before, state(0))
    if change == "other-workflow":
        after["active_workflow"]["slug"] = "another"
    elif change == "rollback":
        after["active_workflow"]["recovery_action"] = {"type": "rollback", "phase": PHASES[0]}
    elif change == "phases-changed":
        after["active_workflow"]["phases"] = PHASES[:3]
    else:
        after = state(3, version=8)
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.changes
    assert plan.unknown[0].label == field and says in plan.unknown[0].why
    assert "no safe repair" in plan.describe()[0]


def test_a_supervised_redo_from_the_gate_is_not_a_stale_write() -> None:
    before = state(2)
    before["active_workflow"]["supervised_review"] = {
        "phase": PHASES[1], "status": "gate_presented", "redo_count": 0
    }  # fmt: skip
    after = copy.deepcopy(before)
    after["state_version"] += 1
    review = after["active_workflow"]["supervised_review"]
    review.update(status="redo_pending", redo_count=1)
    after["active_workflow"]["phase_status"][PHASES[1]] = "in_progress"
    after["phases"][PHASES[1]]["status"] = "in_progress"
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.changes and "not a stale write" in plan.unknown[0].why


def test_a_copy_taken_during_a_redo_is_put_back_once_the_gate_came_back() -> None:
    during = state(2)
    during["active_workflow"]["supervised_review"] = {
        "phase": PHASES[1], "status": "redo_pending", "redo_count": 1
    }  # fmt: skip
    during["active_workflow"]["phase_status"][PHASES[1]] = "in_progress"
    during["phases"][PHASES[1]]["status"] = "in_progress"
    gate_again = state(2, version=9)
    gate_again["active_workflow"]["supervised_review"] = {
        "phase": PHASES[1], "status": "gate_presented", "redo_count": 1
    }  # fmt: skip
    after = copy.deepcopy(during)
    after["state_version"] = 10
    plan = decide.plan_stale_write(gate_again, after)
    assert plan is not None
    changed = {c.label: c.proposed for c in plan.changes}
    assert changed["active_workflow.supervised_review.status"] == "gate_presented"
    assert changed[f"phases.{PHASES[1]}.status"] == "completed"


def test_what_the_stale_write_deleted_is_put_back_and_what_it_added_is_kept() -> None:
    before = state(2, version=9)
    before["active_workflow"]["review_history"] = [
        {"phase": PHASES[0], "action": "continue", "timestamp": "2026-11-01T10:05:00.000Z"}
    ]
    before["phases"][PHASES[1]]["constitutional_validation"] = {"status": "compliant"}
    after = stale(before, state(1))
    del after["phases"][PHASES[1]]["constitutional_validation"]  # the copy predates it
    after["active_workflow"]["review_history"] = []
    after["skill_usage_log"] = [{"timestamp": "2026-11-01T11:00:00.000Z", "skill_id": "X"}]
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.unknown
    changed = {c.label: c for c in plan.changes}
    assert changed[f"phases.{PHASES[1]}.constitutional_validation"].proposed == {
        "status": "compliant"
    }
    assert (
        changed["active_workflow.review_history"].proposed
        == (before["active_workflow"]["review_history"])
    )
    assert "skill_usage_log" in plan.kept  # the sub-agent's own log entry


def test_an_answered_escalation_brought_back_is_removed_a_new_one_kept() -> None:
    old = {"type": "gate_blocked", "phase": PHASES[1], "timestamp": "2026-11-01T09:00:00.000Z"}
    new = {"type": "gate_blocked", "phase": PHASES[2], "timestamp": "2026-11-02T09:00:00.000Z"}
    before = state(2, version=9)
    before["active_workflow"]["recovery_action"] = {
        "type": "retry", "phase": PHASES[1], "timestamp": "2026-11-01T10:00:00.000Z"
    }  # fmt: skip
    after = stale(before, state(1))
    del after["active_workflow"]["recovery_action"]
    after["pending_escalations"] = [old, new]
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.unknown
    changed = {c.label: c for c in plan.changes}
    assert changed["pending_escalations"].proposed == [new]
    assert (
        changed["active_workflow.recovery_action"].proposed
        == (before["active_workflow"]["recovery_action"])
    )


@pytest.mark.parametrize("bad", [None, [], "x"])
def test_bad_input_plans_nothing(bad: Any) -> None:
    assert decide.plan_stale_write(state(1), bad) is None
    assert decide.plan_stale_write(bad, state(1)) is None
    assert decide.plan_locations(bad) is None


@pytest.mark.parametrize("bad", [{"active_workflow": 3}, {}])
def test_a_state_with_no_workflow_is_not_put_back_field_by_field(bad: Any) -> None:
    plan = decide.plan_stale_write(state(1), bad)
    assert plan is not None and not plan.changes and plan.unknown
    assert decide.plan_locations(bad) is None


# ----------------------------------------------------------------------------- locations


def test_locations_in_step_plan_nothing() -> None:
    for at in range(len(PHASES)):
        assert decide.plan_locations(state(at)) is None


def test_location_plan_top_level_pointer() -> None:
    doc = state(2)
    doc["current_phase"] = PHASES[1]
    plan = decide.plan_locations(doc)
    assert plan is not None and plan.kind == LOCATION and not plan.unknown
    assert [(c.label, c.current, c.proposed) for c in plan.changes] == [
        ("current_phase", PHASES[1], PHASES[2])
    ]


def test_location_plan_statuses_before_and_at_the_current_phase() -> None:
    doc = state(2)
    doc["phases"][PHASES[0]]["status"] = "in_progress"  # before the current: completed
    doc["active_workflow"]["phase_status"][PHASES[2]] = "pending"  # half an activation
    plan = decide.plan_locations(doc)
    assert plan is not None and not plan.unknown
    assert {(c.label, c.proposed) for c in plan.changes} == {
        ("phases.05-test-strategy.status", "completed"),
        ("active_workflow.phase_status.16-quality-loop", "in_progress"),
    }


def test_location_plan_index_behind_the_pointer() -> None:
    doc = state(2)
    doc["active_workflow"]["current_phase_index"] = 0
    plan = decide.plan_locations(doc)
    assert plan is not None
    assert [(c.label, c.proposed) for c in plan.changes] == [
        ("active_workflow.current_phase_index", 2)
    ]


def test_location_plan_pointer_left_behind() -> None:
    doc = state(2)
    doc["active_workflow"]["current_phase"] = PHASES[0]  # index 2: not even one past it
    doc["current_phase"] = PHASES[0]
    plan = decide.plan_locations(doc)
    assert plan is not None
    assert {(c.label, c.proposed) for c in plan.changes} == {
        ("active_workflow.current_phase", PHASES[2]),
        ("current_phase", PHASES[2]),
    }


def test_location_plan_says_what_it_cannot_know() -> None:
    doc = state(1)
    doc["phases"][PHASES[3]]["status"] = "in_progress"  # after the current: lowering is V8's
    doc["active_workflow"]["current_phase_index"] = 3  # ahead: lowering is V8's
    plan = decide.plan_locations(doc)
    assert plan is not None and plan.changes == ()
    assert {u.label for u in plan.unknown} == {
        "phases.08-code-review.status",
        "active_workflow.current_phase_index",
    }
    result = decide.apply_repair(project(doc), plan)
    assert result.outcome == decide.INVALID


# ----------------------------------------------------------------------------- apply


def applied(path: Path, plan: decide.RepairPlan) -> decide.DecisionResult:
    result = decide.apply_repair(path, plan, settle=0)
    assert result.outcome == decide.APPLIED, result.message
    return result


def test_apply_stale_write_repair_restores_and_journals() -> None:
    before = state(2, version=9)
    after = stale(before, state(0))
    path = project(after)
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    result = applied(path, plan)
    now = json.loads(path.read_text())
    assert now["state_version"] == 11 == result.version_after
    assert orchestration(now) == orchestration(before)
    assert now["phases"][PHASES[0]]["artifacts"] == ["docs/test-strategy.md"]
    line = decide.read_journal(path.parent / decide.JOURNAL_NAME)[-1]
    assert line["action"] == "repair stale-write" and line["outcome"] == "applied"
    assert line["params"]["plan"] == json.loads(json.dumps(plan.to_json()))
    assert claims.holds(line["claim"], now)
    assert not (v9a(now) or v9b(now) or v9c(now))


def test_apply_location_repair_silences_v9() -> None:
    doc = state(2)
    doc["current_phase"] = PHASES[1]
    doc["phases"][PHASES[0]]["status"] = "in_progress"
    path = project(doc)
    plan = decide.plan_locations(doc)
    assert plan is not None
    applied(path, plan)
    now = json.loads(path.read_text())
    assert not (v9a(now) or v9b(now) or v9c(now))
    assert decide.plan_locations(now) is None


@pytest.mark.parametrize("move", ["planned", "read"])
def test_apply_refuses_when_a_field_it_planned_or_read_moved(move: str) -> None:
    before = state(2)
    after = stale(before, state(0))
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    disk = copy.deepcopy(after)
    if move == "planned":
        disk["active_workflow"]["current_phase_index"] = 1
    else:  # not planned (unchanged by the stale write), but read: the review gate
        disk["active_workflow"]["supervised_review"] = {"phase": PHASES[0], "status": "reviewing"}
    path = project(disk)
    text = path.read_bytes()
    result = decide.apply_repair(path, plan, settle=0)
    assert result.outcome == decide.CONFLICT
    assert path.read_bytes() == text


def test_a_write_beside_that_touched_nothing_planned_or_read_does_not_refuse() -> None:
    """A live workflow's hooks write every second: a later version whose planned and read
    fields are those of the plan is repaired, not refused as a conflict."""
    before = state(2)
    after = stale(before, state(0))
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    disk = copy.deepcopy(after)
    disk["state_version"] += 3
    disk["project"]["ratio"] = 0.9  # a hook's own field
    path = project(disk)
    result = decide.apply_repair(path, plan, settle=0)
    assert result.outcome == decide.APPLIED, result.message
    now = json.loads(path.read_text())
    assert orchestration(now) == orchestration(before)
    assert now["state_version"] == disk["state_version"] + 1 and now["project"]["ratio"] == 0.9


def test_claim_held_by_progress_and_reverted_by_a_stale_copy() -> None:
    before = state(1)
    after = stale(before, state(0))
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    claim = repair_claim(plan)
    assert claims.holds(claim, before)
    assert claims.holds(claim, state(3))  # the workflow moved on
    assert not claims.holds(claim, after)  # the stale copy written back again
    ended = state(1)
    del ended["active_workflow"]
    assert claims.holds(claim, ended)  # the repaired workflow ended since
    written = stringify(before).encode()
    footprint = decide.claims.state_footprint(written, claim)
    assert judge(footprint, stringify(after).encode())[0] == "reverted"
    assert judge(footprint, stringify(state(3, version=30)).encode())[0] == "held"


# ----------------------------------------------------------------------------- undo


def test_undo_puts_back_exactly_the_bytes_before() -> None:
    before = state(2)
    after = stale(before, state(0))
    path = project(after)
    original = json.loads(path.read_text())
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    applied(path, plan)
    undone = decide.undo_repair(path, settle=0)
    assert undone.outcome == decide.APPLIED, undone.message
    now = json.loads(path.read_text())
    assert now["state_version"] == original["state_version"] + 2
    now["state_version"] = original["state_version"]
    assert now == original
    again = decide.undo_repair(path, settle=0)
    assert again.outcome == decide.INVALID and "not a repair" in again.message


def test_undo_refused_after_another_write() -> None:
    before = state(2)
    after = stale(before, state(0))
    path = project(after)
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    applied(path, plan)
    doc = json.loads(path.read_text())
    doc["phases"][PHASES[2]]["summary"] = "the agent wrote"  # same version: an agent's Edit
    path.write_text(stringify(doc))
    text = path.read_bytes()
    result = decide.undo_repair(path, settle=0)
    assert result.outcome == decide.CONFLICT and "changed since the repair" in result.message
    assert path.read_bytes() == text


def test_undo_with_nothing_to_undo() -> None:
    path = project(state(1))
    assert decide.undo_repair(path, settle=0).outcome == decide.INVALID


# ----------------------------------------------------------------------------- the property

_status = st.sampled_from(["pending", "in_progress", "completed"])


@st.composite
def stale_pairs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    at_before = draw(st.integers(0, len(PHASES) - 1))
    before = state(at_before, version=draw(st.integers(1, 500)))
    after = copy.deepcopy(before)
    after["state_version"] += draw(st.integers(1, 3))
    aw = after["active_workflow"]
    at = draw(st.integers(0, len(PHASES) - 1))
    if draw(st.booleans()):
        aw["current_phase"] = PHASES[at]
    if draw(st.booleans()):
        after["current_phase"] = PHASES[draw(st.integers(0, len(PHASES) - 1))]
    if draw(st.booleans()):
        aw["current_phase_index"] = draw(st.integers(0, len(PHASES)))
    if draw(st.booleans()):
        after["active_agent"] = draw(st.sampled_from(AGENTS))
    for key in PHASES:
        if draw(st.booleans()):
            aw["phase_status"][key] = draw(_status)
        if draw(st.booleans()):
            after["phases"][key]["status"] = draw(_status)
    after["project"]["note"] = draw(st.text(max_size=8))
    return before, after


def _odd_text(doc: dict[str, Any]) -> str:
    """The owner's layout with literals ``JSON.stringify`` would spell otherwise: they must
    survive byte for byte."""
    doc = copy.deepcopy(doc)
    doc["project"]["ratio"] = 7777.25
    doc["project"]["accent"] = "MARK"
    text = stringify(doc)
    return text.replace("7777.25", "7.77725e3").replace('"MARK"', '"\\u00e9t\\u00e9"')


@settings(max_examples=150)
@given(stale_pairs())
def test_a_repair_changes_only_the_planned_values(
    pair: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    before, after = pair
    for plan in (decide.plan_stale_write(before, after), decide.plan_locations(after)):
        if plan is None or not plan.changes:
            continue
        text = _odd_text(after)
        path = project(after, text)
        result = decide.apply_repair(path, plan, settle=0)
        assert result.outcome == decide.APPLIED, result.message
        new = path.read_text(encoding="utf-8")
        old_doc, new_doc = json.loads(text), json.loads(new)
        # parsed: exactly the planned paths and state_version changed
        for c in plan.changes:
            assert decide.plans.get(new_doc, c.path) == c.proposed
            decide.repair._set(new_doc, c.path, c.current)
        assert new_doc.pop("state_version") == old_doc.pop("state_version") + 1
        assert new_doc == old_doc
        # raw: every line that differs holds a planned value or state_version
        old_lines, new_lines = text.splitlines(), new.splitlines()
        assert len(old_lines) == len(new_lines)
        keys = {f'"{c.path[-1]}":' for c in plan.changes} | {'"state_version":'}
        for a, b in zip(old_lines, new_lines, strict=True):
            if a != b:
                assert b.strip().split(" ")[0] in keys, (a, b)
        assert "7.77725e3" in new and '"\\u00e9t\\u00e9"' in new


# ----------------------------------------------------------------------------- the mirror


@pytest.mark.parametrize("seen", [PHASES[2], None, "absent"])
def test_the_top_level_mirror_written_to_a_stale_or_foreign_phase(seen: Any) -> None:
    before = state(2)
    if seen == "absent":
        del before["current_phase"]
    else:
        before["current_phase"] = seen
    after = copy.deepcopy(before)
    after["state_version"] += 1
    after["current_phase"] = PHASES[0]  # behind the phase seen
    plan = decide.plan_stale_write(before, after)
    assert plan is not None
    assert [(c.label, c.proposed) for c in plan.changes] == [
        ("current_phase", decide.plans.ABSENT if seen == "absent" else seen)
    ]
    after["current_phase"] = "01-requirements"  # not in this workflow: V9-B's, not a step back
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.changes and not plan.stale
    assert decide.plan_locations(after) is not None  # the location repair sets it


def test_the_mirror_moved_forward_is_not_a_stale_write() -> None:
    before = state(2)
    after = copy.deepcopy(before)
    after["state_version"] += 1
    after["current_phase"] = PHASES[3]
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.changes
    assert "not a stale write" in plan.unknown[0].why


def test_a_v8_field_the_stale_write_moved_forward_refuses_the_whole_repair() -> None:
    """Putting the index back would lower it (V8 blocks that in both eras); a partial repair
    would leave the framework acting on a mix, so nothing is written and the field is named."""
    before = state(1)
    after = copy.deepcopy(before)
    after["state_version"] += 1
    after["current_phase"] = PHASES[0]  # back
    after["active_workflow"]["current_phase_index"] = 2  # forward
    plan = decide.plan_stale_write(before, after)
    assert plan is not None and not plan.changes
    assert [u.label for u in plan.unknown] == ["active_workflow.current_phase_index"]
    assert "V8 blocks" in plan.unknown[0].why


# ----------------------------------------------------------------------------- any input

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
_keys = st.sampled_from([*PHASES, "current_phase", "phases", "status", "phase_status", "x"])


@st.composite
def damaged_states(draw: st.DrawFn) -> dict[str, Any]:
    """A real-looking state with any value put anywhere along the orchestration paths."""
    doc = state(draw(st.integers(0, len(PHASES) - 1)))
    for _ in range(draw(st.integers(0, 4))):
        path = draw(st.lists(_keys, min_size=1, max_size=3))
        node: Any = draw(st.sampled_from([doc, doc["active_workflow"], doc["phases"]]))
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node[path[-1]] = draw(_json)
    return doc


@settings(max_examples=300)
@given(damaged_states(), damaged_states(), _json)
def test_planning_never_raises(a: dict[str, Any], b: dict[str, Any], junk: Any) -> None:
    for before, after in ((a, b), (b, a), (a, junk), (junk, a)):
        plan = decide.plan_stale_write(before, after)
        if plan is not None:
            json.dumps(plan.to_json())
            assert (plan.changes or plan.unknown) and plan.describe()
    for doc in (a, b, junk):
        plan = decide.plan_locations(doc)
        if plan is not None:
            json.dumps(plan.to_json())
            assert plan.changes or plan.unknown


@pytest.mark.parametrize(
    ("age", "held", "refused"), [(0, True, True), (0, False, False), (3600, True, False)]
)
def test_never_while_another_write_is_in_flight(
    age: int, held: bool, refused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An intent with no outcome blocks a repair while its writer may still be writing: it
    holds the writer lock (``held``: another process does) and it is recent; a writer gone
    (the lock free: killed) or an hour old blocks nothing."""
    from datetime import UTC, datetime, timedelta

    from phasewatch.core.decide import repair as repair_module

    monkeypatch.setattr(repair_module, "lock_held", lambda _root: held)

    doc = state(2)
    doc["current_phase"] = PHASES[1]
    path = project(doc)
    at = datetime.now(UTC) - timedelta(seconds=age)
    intent = {"ts": at.strftime("%Y-%m-%dT%H:%M:%S.000Z"), "action": "review continue",
              "target": ".isdlc/state.json", "outcome": "intent"}  # fmt: skip
    (path.parent / decide.JOURNAL_NAME).write_text(json.dumps(intent) + "\n")
    plan = decide.plan_locations(doc)
    assert plan is not None
    text = path.read_bytes()
    result = decide.apply_repair(path, plan, settle=0)
    if refused:
        assert result.outcome == decide.CONFLICT and "in flight" in result.message
        assert path.read_bytes() == text
        assert decide.undo_repair(path, settle=0).outcome == decide.CONFLICT
    else:  # a writer that died (now, or an hour ago): its fate is the file's to tell
        assert result.outcome == decide.APPLIED, result.message


def test_apply_refuses_when_any_field_the_plan_read_moved_even_at_the_same_version() -> None:
    doc = state(2)
    doc["current_phase"] = PHASES[1]
    plan = decide.plan_locations(doc)
    assert plan is not None
    disk = copy.deepcopy(doc)
    disk["active_workflow"]["phase_status"][PHASES[3]] = "in_progress"  # an Edit, no version bump
    path = project(disk)
    text = path.read_bytes()
    result = decide.apply_repair(path, plan, settle=0)
    assert result.outcome == decide.CONFLICT and "changed since the plan" in result.message
    assert path.read_bytes() == text


def test_a_pointer_run_ahead_of_an_unfinished_phase_is_put_back_not_followed() -> None:
    """The index and the statuses say phase 1 is in progress; the pointer ran ahead. Raising
    the index to the pointer would skip the unfinished phase: the pointer goes back instead,
    and a mirror that was right stays."""
    doc = state(1)
    doc["active_workflow"]["current_phase"] = PHASES[2]
    plan = decide.plan_locations(doc)
    assert plan is not None and not plan.unknown
    assert [(c.label, c.proposed) for c in plan.changes] == [
        ("active_workflow.current_phase", PHASES[1])
    ]
    doc["current_phase"] = PHASES[2]  # the mirror followed the pointer: both go back
    plan = decide.plan_locations(doc)
    assert plan is not None
    assert {(c.label, c.proposed) for c in plan.changes} == {
        ("active_workflow.current_phase", PHASES[1]),
        ("current_phase", PHASES[1]),
    }


def test_the_state_just_after_a_phase_completed_is_left_as_it_is() -> None:
    """Phase 1 completed, index one past, pointer still on it (before the next start): only
    a wrong mirror is set, to the pointer."""
    doc = state(2)
    doc["active_workflow"]["current_phase"] = PHASES[1]
    doc["active_workflow"]["phase_status"][PHASES[2]] = "pending"
    doc["phases"][PHASES[2]]["status"] = "pending"
    doc["current_phase"] = PHASES[3]
    plan = decide.plan_locations(doc)
    assert plan is not None and not plan.unknown
    assert [(c.label, c.proposed) for c in plan.changes] == [("current_phase", PHASES[1])]


def test_an_index_past_the_unfinished_phase_is_named_never_lowered() -> None:
    doc = state(1)
    doc["active_workflow"]["current_phase_index"] = 3
    plan = decide.plan_locations(doc)
    assert plan is not None and not plan.changes
    assert plan.unknown[0].label == "active_workflow.current_phase_index"
    assert "V8 blocks" in plan.unknown[0].why
