"""Transition rules of core.audit (previous -> current state): a failing and a passing pair for
every rule id, plus a hypothesis property test that no input makes the audit raise."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.audit import audit_state, audit_transition
from phasewatch.core.findings import Severity
from phasewatch.core.models import parse_state

from tests import factories as F
from tests.factories import delpath, setpath
from tests.helpers.audit_transition_cases import SRC, TRANSITION_CASES, Case, Doc, ids, run_pair


@pytest.mark.parametrize("case", TRANSITION_CASES, ids=lambda c: f"{c.rule_id}: {c.name}")
def test_transition_rule_fires(case: Case) -> None:
    prev, cur = case.bad()
    found = [f for f in run_pair(prev, cur) if f.rule_id == case.rule_id]
    assert found, f"{case.rule_id} did not fire"
    if case.path is not None:
        assert case.path in {f.path for f in found}
    if case.severity is not None:
        assert case.severity in {f.severity for f in found}
    for f in found:
        assert f.message and f.hint and f.source == SRC
        json.dumps(f.to_json())


@pytest.mark.parametrize("case", TRANSITION_CASES, ids=lambda c: f"{c.rule_id}: {c.name}")
def test_transition_rule_quiet_on_near_miss(case: Case) -> None:
    prev, cur = case.good()
    assert case.rule_id not in ids(run_pair(prev, cur))


# ----------------------------------------------------------------------------- specific behaviour


def test_version_down_message_names_both_versions() -> None:
    prev = F.feature_state()
    cur = setpath(F.complete(prev), "state_version", prev["state_version"] - 2)
    f = next(f for f in run_pair(prev, cur) if f.rule_id == "TR-VERSION-DOWN")
    assert str(prev["state_version"]) in f.message and str(cur["state_version"]) in f.message
    assert f.actual == cur["state_version"]


def test_bug_0011_stale_subagent_write_is_caught_three_ways() -> None:
    """Seed 000 steps 5-7: the subagent's launch-time snapshot lands after STEP 3e."""
    launch = F.run_until("feature", "3c-prime 02-impact-analysis")
    controller = F.complete(launch)  # 3e: 02 completed, index 3
    stale = setpath(launch, "state_version", controller["state_version"])  # same version!
    found = ids(run_pair(controller, stale))
    assert {"TR-INDEX-DOWN", "TR-STATUS-DOWN", "TR-VERSION-SAME"} <= found


def test_no_transition_checks_across_workflows() -> None:
    """A new workflow resets phases to pending: not a status regression."""
    prev = F.finalized_state()
    cur = F.init(prev, "feature")
    found = run_pair(prev, cur)
    assert "TR-STATUS-DOWN" not in ids(found)
    assert not [f for f in found if f.severity == Severity.ERROR]


def test_identical_documents_yield_nothing() -> None:
    s = F.feature_state()
    assert run_pair(s, s) == []


# ----------------------------------------------------------------------------- property test

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "pending",
            "in_progress",
            "completed",
            "skipped",
            "06-implementation",
            "13-test-deploy",
            "gate_blocked",
            "gate-blocker",
            "redo_pending",
            "gate_presented",
            "rollback",
            "retry",
            "2026-03-04T09:12:03.418Z",
            "2026-03-04",
            "yesterday",
            "",
        ]
    ),
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)
KNOWN_PATHS = sorted(
    {
        "state_version",
        "current_phase",
        "active_agent",
        "phases",
        "active_workflow",
        "workflow_history",
        "pending_escalations",
        "supervised_mode",
        "supervised_mode.enabled",
        "supervised_mode.review_phases",
        "phases.05-test-strategy",
        "phases.05-test-strategy.status",
        "phases.05-test-strategy.started",
        "phases.05-test-strategy.timing",
        "phases.05-test-strategy.timing.wall_clock_minutes",
        "phases.04-design.constitutional_validation",
        "phases.04-design.iteration_requirements",
        "phases.06-implementation.iteration_requirements.test_iteration.history",
        "active_workflow.phases",
        "active_workflow.current_phase",
        "active_workflow.current_phase_index",
        "active_workflow.phase_status",
        "active_workflow.phase_status.05-test-strategy",
        "active_workflow.supervised_review",
        "active_workflow.supervised_review.redo_count",
        "active_workflow.supervised_review.phase",
        "active_workflow.recovery_action",
        "active_workflow.review_history",
        "active_workflow.type",
        "active_workflow.slug",
        "active_workflow.started_at",
        "active_workflow.sizing",
        "pending_escalations[0]",
        "pending_escalations[0].timestamp",
        "workflow_history[0]",
        "workflow_history[0].phase_snapshots",
        "workflow_history[0].status",
    }
)
TOP_KEYS = [
    "state_version",
    "schema_version",
    "current_phase",
    "active_agent",
    "phases",
    "active_workflow",
    "workflow_history",
    "pending_escalations",
    "supervised_mode",
    "project",
    "x",
]
BASES: list[Callable[[], Doc]] = [
    F.feature_state,
    F.fix_state,
    F.build_state,
    F.fresh_state,
    F.finalized_state,
    lambda: F.escalate(F.feature_state()),
]


@st.composite
def mutated_states(draw: st.DrawFn) -> tuple[Doc, Doc]:
    base = draw(st.sampled_from(BASES))()
    doc = base
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        path = draw(st.sampled_from(KNOWN_PATHS))
        value = draw(json_values)
        doc = setpath(doc, path, value) if draw(st.booleans()) else delpath(doc, path)
    return base, doc


def _audit_everything(prev: Any, cur: Any) -> None:
    prev = prev if isinstance(prev, dict) else {"value": prev}
    cur = cur if isinstance(cur, dict) else {"value": cur}
    ps, schema_p = parse_state(prev, SRC)
    cs, schema_c = parse_state(cur, SRC)
    found = schema_p + schema_c
    found += audit_state(ps, prev, SRC) + audit_state(cs, cur, SRC)
    found += audit_transition(ps, prev, cs, cur, SRC) + audit_transition(cs, cur, ps, prev, SRC)
    internal = [f for f in found if f.rule_id == "AUDIT-INTERNAL"]
    assert not internal, internal[0].message
    for f in found:
        json.dumps(f.to_json(), allow_nan=True)


@settings(max_examples=300)
@given(mutated_states())
def test_mutated_real_states_never_break_the_audit(pair: tuple[Doc, Doc]) -> None:
    _audit_everything(*pair)


@settings(max_examples=300)
@given(
    st.dictionaries(st.sampled_from(TOP_KEYS), json_values, max_size=6),
    st.dictionaries(st.sampled_from(TOP_KEYS), json_values, max_size=6),
)
def test_arbitrary_documents_never_break_the_audit(prev: Doc, cur: Doc) -> None:
    _audit_everything(prev, cur)


@settings(max_examples=200)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "state_version": json_values,
            "phases": st.dictionaries(
                st.sampled_from(["05-test-strategy", "13-test-deploy", "x"]),
                st.fixed_dictionaries(
                    {},
                    optional={
                        "status": json_scalars,
                        "started": json_scalars,
                        "timing": json_values,
                        "constitutional_validation": json_values,
                    },
                ),
                max_size=3,
            ),
            "active_workflow": st.fixed_dictionaries(
                {},
                optional={
                    "phases": st.lists(json_scalars, max_size=4),
                    "current_phase": json_scalars,
                    "current_phase_index": json_scalars,
                    "phase_status": st.dictionaries(
                        json_scalars.filter(lambda v: isinstance(v, str)), json_scalars, max_size=3
                    ),
                    "supervised_review": json_values,
                    "recovery_action": json_values,
                },
            ),
            "pending_escalations": st.lists(json_values, max_size=3),
            "workflow_history": st.lists(json_values, max_size=3),
        },
    )
)
def test_state_shaped_documents_never_break_the_audit(doc: Doc) -> None:
    _audit_everything(F.feature_state(), doc)
