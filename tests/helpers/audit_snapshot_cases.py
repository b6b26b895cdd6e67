"""The snapshot rules' case table (a failing state and a near miss for every rule id) and the
correct workflows (WALKS) that must stay free of errors: test_audit_snapshot.py runs them,
test_rules_registry.py checks every rule has a case."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from phasewatch.core.audit import audit_state
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.models import parse_state

from tests import factories as F
from tests.factories import delpath, get, setpath

SRC = ".isdlc/state.json"


def run(doc: dict[str, Any]) -> list[Finding]:
    state, schema = parse_state(doc, SRC)
    return schema + audit_state(state, doc, SRC)


def ids(findings: list[Finding]) -> set[str]:
    return {f.rule_id for f in findings}


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == Severity.ERROR]


# ----------------------------------------------------------------------------- building blocks


def between_05() -> dict[str, Any]:
    """After STEP 3e of 05-test-strategy (index 6, current_phase still 05)."""
    return F.run_until("feature", "3e 05-test-strategy")


def last_3e() -> dict[str, Any]:
    return F.run_until("feature", "3e 08-code-review")


def upgrade(phases: list[str]) -> dict[str, Any]:
    return F.init(F.project_state(), "upgrade", phases=phases)


def redo_running() -> dict[str, Any]:
    return F.run_until(
        "build",
        "3c-prime redo 06-implementation",
        supervised=True,
        review_phases=["06", "16"],
        redo_at="06-implementation",
    )


def escalations(n: int, *, gap_s: int = 61, **kw: Any) -> dict[str, Any]:
    s = F.feature_state()
    entries = []
    for i in range(n):
        t = F.ts(s["state_version"], seconds=gap_s * i)
        entries.append(
            {
                "type": "gate_blocked",
                "hook": "gate-blocker",
                "phase": "05-test-strategy",
                "detail": "GATE BLOCKED",
                "timestamp": t,
                **kw,
            }
        )
    return setpath(s, "pending_escalations", entries)


def with_history(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return setpath(F.project_state(), "workflow_history", entries)


def finalized_entry() -> dict[str, Any]:
    return copy.deepcopy(F.finalized_state()["workflow_history"][-1])


def cancelled_state() -> dict[str, Any]:
    return F.cancel(F.escalate(F.build_state()))


def feature_aw(path: str, value: Any) -> dict[str, Any]:
    return setpath(F.feature_state(), f"active_workflow.{path}", value)


def feature_ph(path: str, value: Any) -> dict[str, Any]:
    return setpath(F.feature_state(), f"phases.{path}", value)


def both_status(doc: dict[str, Any], key: str, value: str) -> dict[str, Any]:
    doc = setpath(doc, f"phases.{key}.status", value)
    return setpath(doc, f"active_workflow.phase_status.{key}", value)


# ----------------------------------------------------------------------------- the case table


@dataclass(frozen=True)
class Case:
    rule_id: str
    name: str
    bad: Callable[[], dict[str, Any]]  # the rule must fire
    good: Callable[[], dict[str, Any]]  # a near miss: the rule must stay quiet
    path: str | None = None  # expected path of the finding on `bad`
    severity: Severity | None = None  # expected severity on `bad` (default: the rule's)


C = Case
SNAPSHOT_CASES: list[Case] = [
    # SYNC: the three locations (seed 003 IR-001)
    C(
        "SYNC-STATUS",
        "detail completed, summary in_progress",
        lambda: feature_aw("phase_status.04-design", "in_progress"),
        F.feature_state,
        "phases.04-design.status",
    ),
    C(
        "SYNC-STATUS",
        "summary skipped, detail pending (the framework's V9-A warns)",
        lambda: feature_aw("phase_status.08-code-review", "skipped"),
        F.feature_state,
        "phases.08-code-review.status",
    ),
    C(
        "SYNC-STATUS",
        "3e half-applied: summary completed, detail in_progress",
        lambda: feature_aw("phase_status.05-test-strategy", "completed"),
        F.feature_state,
        "phases.05-test-strategy.status",
    ),
    C(
        "SYNC-INIT-WINDOW",
        "initialised, first phase in_progress in phase_status only (V9-A notes it)",
        lambda: setpath(
            F.fresh_state(), "active_workflow.phase_status.00-quick-scan", "in_progress"
        ),
        lambda: F.run_until("feature", "3c-prime 00-quick-scan"),
        "phases.00-quick-scan.status",
        Severity.INFO,
    ),
    C(
        "SYNC-DETAIL-MISSING",
        "phases[04] missing although phase_status says it completed",
        lambda: delpath(F.feature_state(), "phases.04-design"),
        F.feature_state,
        "phases.04-design",
    ),
    C(
        "SYNC-SUMMARY-MISSING",
        "phase_status[06] missing",
        lambda: delpath(F.feature_state(), "active_workflow.phase_status.06-implementation"),
        F.feature_state,
        "active_workflow.phase_status.06-implementation",
    ),
    C(
        "SYNC-CURRENT",
        "stale top-level current_phase (TS-006)",
        lambda: setpath(F.feature_state(), "current_phase", "03-architecture"),
        between_05,  # current_phase still the completed phase: legal
        "current_phase",
    ),
    C(
        "SYNC-CURRENT",
        "top-level current_phase names another phase",
        lambda: setpath(F.feature_state(), "current_phase", "01-requirements"),
        lambda: setpath(F.feature_state(), "current_phase", None),  # null: not compared (V9-B)
        "current_phase",
    ),
    C(
        "SYNC-INDEX",
        "index points at another phase",
        lambda: feature_aw("current_phase_index", 3),
        between_05,  # index one past current_phase right after 3e: legal
        "active_workflow.current_phase_index",
    ),
    C(
        "SYNC-INDEX",
        "index two past current_phase",
        lambda: feature_aw("current_phase_index", 7),
        redo_running,  # redo: index stays one past, phase back in_progress: legal
        "active_workflow.current_phase_index",
    ),
    C(
        "SYNC-PENDING-CURRENT",
        "BUG-0006 window: current_phase moved, next phase still pending",
        lambda: setpath(
            setpath(between_05(), "active_workflow.current_phase", "06-implementation"),
            "current_phase",
            "06-implementation",
        ),
        F.fresh_state,  # init: phase 0 in_progress in the summary only, not activated yet
        "active_workflow.current_phase",
    ),
    C(
        "LOOP-INDEX-PAST",
        "the index one past the phase in progress, no redo",
        lambda: setpath(F.feature_state(), "active_workflow.current_phase_index", 6),
        redo_running,  # a redo re-runs a completed phase with the index one past it
        "active_workflow.current_phase_index",
    ),
    C(
        "LOOP-POINTER-BEHIND",
        "the next phase started, the pointer left on the one before",
        lambda: setpath(
            setpath(between_05(), "active_workflow.phase_status.06-implementation", "in_progress"),
            "phases.06-implementation.status",
            "in_progress",
        ),
        lambda: F.activate(between_05()),
        "active_workflow.current_phase",
    ),
    C(
        "LOOP-COMPLETED-AHEAD",
        "a phase the workflow has not reached called completed",
        lambda: setpath(
            F.feature_state(), "active_workflow.phase_status.08-code-review", "completed"
        ),
        between_05,  # the phase just completed, the index one past it
        "active_workflow.phase_status.08-code-review",
    ),
    C(
        "SYNC-AGENT",
        "wrong agent",
        lambda: setpath(F.feature_state(), "active_agent", "software-developer"),
        lambda: setpath(F.run_until("fix", "3c-prime 02-tracing"), "active_agent", "trace-analyst"),
        "active_agent",
        Severity.INFO,  # the framework's validators never check active_agent
    ),
    C(
        "SYNC-AGENT",
        "stale agent before the first activation is only info",
        lambda: setpath(F.fresh_state(), "active_agent", "qa-engineer"),
        lambda: setpath(F.fresh_state(), "active_agent", "quick-scan-agent"),
        "active_agent",
        Severity.INFO,
    ),
    # ACT: 3c-prime fields (IR-002)
    C(
        "ACT-STARTED",
        "in_progress without started",
        lambda: feature_ph("05-test-strategy.started", None),
        F.feature_state,
        "phases.05-test-strategy.started",
    ),
    C(
        "ACT-TIMING",
        "in_progress without timing",
        lambda: delpath(F.feature_state(), "phases.05-test-strategy.timing"),
        F.feature_state,
        "phases.05-test-strategy.timing.started_at",
    ),
    # INIT (IR-008)
    C(
        "INIT-INDEX",
        "init with index 2",
        lambda: setpath(F.fresh_state(), "active_workflow.current_phase_index", 2),
        F.fresh_state,
        "active_workflow.current_phase_index",
    ),
    C(
        "INIT-CURRENT",
        "init pointing at the second phase",
        lambda: setpath(F.fresh_state(), "active_workflow.current_phase", "01-requirements"),
        F.fresh_state,
        "active_workflow.current_phase",
    ),
    C(
        "INIT-STATUS",
        "init with a later phase in_progress",
        lambda: setpath(
            F.fresh_state(), "active_workflow.phase_status.03-architecture", "in_progress"
        ),
        F.fresh_state,
        "active_workflow.phase_status.03-architecture",
    ),
    C(
        "INIT-SKELETON",
        "leftover summary and artifacts",
        lambda: setpath(
            setpath(F.fresh_state(), "phases.03-architecture.summary", "old run"),
            "phases.03-architecture.artifacts",
            ["docs/old.md"],
        ),
        F.fresh_state,
        "phases.03-architecture",
    ),
    C(
        "INIT-PHASES",
        "feature running a fix-only phase",
        lambda: F.init(
            F.project_state(),
            "feature",
            phases=["01-requirements", "02-tracing", "06-implementation"],
        ),
        lambda: F.fresh_state("feature", light=True),  # sizing drops 03/04: still a subset
        "active_workflow.phases",
    ),
    C(
        "INIT-PHASES",
        "phases out of order",
        lambda: F.init(
            F.project_state(), "build", phases=["06-implementation", "05-test-strategy"]
        ),
        lambda: F.init(F.project_state(), "fix", phases=["02-tracing", "06-implementation"]),
        "active_workflow.phases",
    ),
    # BOUNDS (IR-009)
    C(
        "BOUNDS-INDEX",
        "index past the end",
        lambda: feature_aw("current_phase_index", 12),
        last_3e,  # index == len right before finalize
        "active_workflow.current_phase_index",
    ),
    C(
        "BOUNDS-INDEX",
        "negative index",
        lambda: feature_aw("current_phase_index", -1),
        F.feature_state,
        "active_workflow.current_phase_index",
    ),
    C(
        "BOUNDS-INDEX-BEHIND",
        "3e completed 05 but left the index at 5",
        lambda: setpath(between_05(), "active_workflow.current_phase_index", 5),
        between_05,
        "active_workflow.current_phase_index",
    ),
    C(
        "BOUNDS-CURRENT",
        "current_phase not in the workflow",
        lambda: feature_aw("current_phase", "09-operations"),
        F.feature_state,
        "active_workflow.current_phase",
    ),
    C(
        "BOUNDS-STALE-PHASE",
        "phases entry from an earlier fix workflow",
        lambda: setpath(F.feature_state(), "phases.02-tracing", F.skeleton()),
        F.feature_state,
        "phases.02-tracing",
    ),
    C(
        "BOUNDS-STALE-PHASE",
        "phase_status entry not in the workflow",
        lambda: feature_aw("phase_status.02-tracing", "pending"),
        F.feature_state,
        "active_workflow.phase_status.02-tracing",
    ),
    C(
        "BOUNDS-EMPTY",
        "no phases",
        lambda: feature_aw("phases", []),
        F.feature_state,
        "active_workflow.phases",
    ),
    C(
        "BOUNDS-DUPLICATE",
        "05 twice",
        lambda: feature_aw("phases", [*F.WORKFLOWS["feature"], "05-test-strategy"]),
        F.feature_state,
        "active_workflow.phases[9]",
    ),
    C(
        "BOUNDS-DUPLICATE",
        "legacy and canonical key of one phase",
        lambda: upgrade(["15-upgrade-plan", "16-upgrade-plan", "08-code-review"]),
        lambda: upgrade(["15-upgrade-plan", "15-upgrade-execute", "08-code-review"]),
        "active_workflow.phases[1]",
    ),
    # FINAL (IR-010)
    C(
        "FINAL-PENDING",
        "every phase done, index == len",
        last_3e,
        F.feature_state,
        "active_workflow.current_phase_index",
    ),
    C(
        "FINAL-INCOMPLETE",
        "index == len with 06 unfinished",
        lambda: both_status(last_3e(), "06-implementation", "in_progress"),
        last_3e,
        "active_workflow.current_phase_index",
    ),
    C(
        "FINAL-INCOMPLETE",
        "a supervised redo of the last phase runs at index == len",
        lambda: setpath(
            F.run_until(
                "build", "3c-prime redo 08-code-review", supervised=True, redo_at="08-code-review"
            ),
            "active_workflow.supervised_review",
            None,
        ),
        lambda: F.run_until(
            "build", "3c-prime redo 08-code-review", supervised=True, redo_at="08-code-review"
        ),
        "active_workflow.current_phase_index",
    ),
    C(
        "FINAL-HISTORY",
        "newest entry without phase_snapshots / metrics (the enforcer adds them): info",
        lambda: delpath(
            delpath(F.finalized_state(), "workflow_history[0].phase_snapshots"),
            "workflow_history[0].metrics",
        ),
        F.finalized_state,
        "workflow_history[0]",
        Severity.INFO,
    ),
    C(
        "FINAL-HISTORY",
        "older entry without completed_at is info",
        lambda: with_history(
            [{k: v for k, v in finalized_entry().items() if k != "completed_at"}, finalized_entry()]
        ),
        lambda: with_history([finalized_entry(), finalized_entry()]),
        "workflow_history[0]",
        Severity.INFO,
    ),
    C(
        "FINAL-CANCELLED",
        "cancelled without a reason",
        lambda: delpath(cancelled_state(), "workflow_history[0].cancellation_reason"),
        cancelled_state,
        "workflow_history[0]",
    ),
    C(
        "FINAL-SNAPSHOTS",
        "fewer snapshots than phases",
        lambda: setpath(
            F.finalized_state(),
            "workflow_history[0].phase_snapshots",
            get(F.finalized_state(), "workflow_history[0].phase_snapshots")[:3],
        ),
        F.finalized_state,
        "workflow_history[0].phase_snapshots",
    ),
    C(
        "FINAL-STATUS",
        "history status 'done'",
        lambda: setpath(F.finalized_state(), "workflow_history[0].status", "done"),
        cancelled_state,
        "workflow_history[0].status",
    ),
    # FIELD (IR-011/012)
    C(
        "FIELD-VERSION",
        "state_version 0",
        lambda: setpath(F.feature_state(), "state_version", 0),
        lambda: setpath(F.feature_state(), "state_version", 1),
        "state_version",
        Severity.INFO,  # a number: validate-state.cjs accepts it
    ),
    C(
        "FIELD-VERSION",
        "legacy file without state_version (info)",
        lambda: delpath(F.feature_state(), "state_version"),
        F.feature_state,
        "state_version",
        Severity.INFO,
    ),
    C(
        "FIELD-SHAPE",
        "current_phase_index a string (validate-state INVALID)",
        lambda: setpath(F.feature_state(), "active_workflow.current_phase_index", "5"),
        F.feature_state,
        "active_workflow.current_phase_index",
        Severity.ERROR,
    ),
    C(
        "FIELD-SHAPE",
        "current_phase_index null (typeof null is 'object')",
        lambda: setpath(F.feature_state(), "active_workflow.current_phase_index", None),
        F.feature_state,
        "active_workflow.current_phase_index",
        Severity.ERROR,
    ),
    C(
        "FIELD-SHAPE",
        "a suspended workflow's phases not an array",
        lambda: setpath(
            setpath(F.feature_state(), "suspended_workflow", {"phases": {"a": 1}}),
            "suspended_workflow.current_phase_index",
            0,
        ),
        lambda: setpath(
            F.feature_state(), "suspended_workflow", {"phases": [], "current_phase_index": 0}
        ),
        "suspended_workflow.phases",
        Severity.ERROR,
    ),
    C(
        "FIELD-STATUS",
        "phases[k].status 'done'",
        lambda: feature_ph("04-design.status", "done"),
        F.feature_state,
        "phases.04-design.status",
        Severity.INFO,  # validate-state.cjs checks phase_status values only
    ),
    C(
        "FIELD-STATUS",
        "phases[k].status 'skipped' (only the summary map allows it)",
        lambda: feature_ph("08-code-review.status", "skipped"),
        lambda: feature_aw("phase_status.08-code-review", "skipped"),
        "phases.08-code-review.status",
    ),
    C(
        "FIELD-STATUS",
        "phase_status 'blocked'",
        lambda: feature_aw("phase_status.06-implementation", "blocked"),
        F.feature_state,
        "active_workflow.phase_status.06-implementation",
    ),
    C(
        "FIELD-STATUS",
        "record without status yet (info)",
        lambda: delpath(F.feature_state(), "phases.08-code-review.status"),
        F.feature_state,
        "phases.08-code-review.status",
        Severity.INFO,
    ),
    C(
        "FIELD-WORKFLOW-TYPE",
        "unknown type",
        lambda: feature_aw("type", "spike"),
        lambda: feature_aw("type", "test-generate"),
        "active_workflow.type",
    ),
    C(
        "FIELD-REQUIRED",
        "no started_at",
        lambda: delpath(F.feature_state(), "active_workflow.started_at"),
        F.feature_state,
        "active_workflow.started_at",
    ),
    C(
        "FIELD-REQUIRED",
        "current_phase_index null",
        lambda: feature_aw("current_phase_index", None),
        F.feature_state,
        "active_workflow.current_phase_index",
    ),
    C(
        "FIELD-SUMMARY",
        "completed without summary",
        lambda: delpath(F.feature_state(), "phases.03-architecture.summary"),
        F.feature_state,
        "phases.03-architecture.summary",
    ),
    C(
        "FIELD-SUMMARY",
        "summary over 150 characters",
        lambda: feature_ph("03-architecture.summary", "x" * 151),
        lambda: feature_ph("03-architecture.summary", "x" * 150),
        "phases.03-architecture.summary",
    ),
    C(
        "FIELD-ENUM",
        "budget_status 'over'",
        lambda: feature_aw("budget_status", "over"),
        lambda: feature_aw("budget_status", "exceeded"),
        "active_workflow.budget_status",
    ),
    C(
        "FIELD-ENUM",
        "constitutional status 'in_progress' (TS-005 spelling)",
        lambda: feature_ph("05-test-strategy.constitutional_validation.status", "in_progress"),
        lambda: feature_ph("05-test-strategy.constitutional_validation.status", "escalated"),
        "phases.05-test-strategy.constitutional_validation.status",
    ),
    # EVID (AC-004g)
    C(
        "EVID-CONST-ZERO",
        "compliant with zero iterations",
        lambda: feature_ph("04-design.constitutional_validation.iterations_used", 0),
        lambda: feature_ph("05-test-strategy.constitutional_validation.iterations_used", 0),
        "phases.04-design.constitutional_validation.iterations_used",
    ),
    C(
        "EVID-CONST-ZERO",
        "one iteration is enough (V1 ignores `required`: zero warns even when not required)",
        lambda: setpath(
            feature_ph("04-design.constitutional_validation.iterations_used", 0),
            "phases.04-design.constitutional_validation.required",
            False,
        ),
        lambda: feature_ph("04-design.constitutional_validation.iterations_used", 1),
    ),
    C(
        "EVID-TEST-ZERO",
        "tests completed with zero iterations",
        lambda: setpath(
            F.finalized_state(),
            "phases.06-implementation.iteration_requirements.test_iteration.current_iteration",
            0,
        ),
        F.fix_state,  # iterating, not completed
        "phases.06-implementation.iteration_requirements.test_iteration.current_iteration",
    ),
    C(
        "EVID-ELICIT-ZERO",
        "elicitation completed with no menu interaction",
        lambda: feature_ph(
            "01-requirements.iteration_requirements.interactive_elicitation.menu_interactions", 0
        ),
        lambda: F.run_until("feature", "3c-prime 01-requirements"),  # 0 while not completed
        "phases.01-requirements.iteration_requirements.interactive_elicitation.menu_interactions",
    ),
    # ESC
    C(
        "ESC-PENDING",
        "one pending",
        lambda: F.escalate(F.feature_state()),
        F.feature_state,
        "pending_escalations",
    ),
    C(
        "ESC-CAP",
        "21 pending",
        lambda: escalations(21),
        lambda: escalations(20),
        "pending_escalations",
    ),
    C(
        "ESC-DUPLICATE",
        "same hook+phase+type 30 s apart",
        lambda: escalations(2, gap_s=30),
        lambda: escalations(2, gap_s=61),
        "pending_escalations[1]",
    ),
    C(
        "ESC-TYPE",
        "unknown type",
        lambda: setpath(
            F.escalate(F.feature_state()), "pending_escalations[0].type", "budget_blocked"
        ),
        lambda: F.escalate(F.feature_state(), "constitution_blocked"),
        "pending_escalations[0].type",
    ),
    C(
        "ESC-HOOK",
        "gate_blocked from iteration-corridor",
        lambda: setpath(
            F.escalate(F.feature_state()), "pending_escalations[0].hook", "iteration-corridor"
        ),
        lambda: F.escalate(F.feature_state(), "corridor_blocked"),
        "pending_escalations[0].hook",
    ),
    C(
        "ESC-PHASE",
        "phase not in the workflow",
        lambda: F.escalate(F.feature_state(), phase="02-tracing"),
        lambda: F.escalate(F.feature_state(), phase="04-design"),
        "pending_escalations[0].phase",
    ),
    C(
        "ESC-PHASE",
        "no active workflow",
        lambda: setpath(
            F.finalized_state(),
            "pending_escalations",
            get(F.escalate(F.feature_state()), "pending_escalations"),
        ),
        F.finalized_state,
        "pending_escalations[0].phase",
    ),
    # REV
    C(
        "REV-REDO-LIMIT",
        "redo_count 4",
        lambda: setpath(F.build_state(), "active_workflow.supervised_review.redo_count", 4),
        lambda: setpath(F.build_state(), "active_workflow.supervised_review.redo_count", 3),
        "active_workflow.supervised_review.redo_count",
    ),
    C(
        "REV-NOT-COMPLETED",
        "gate presented on an in_progress phase",
        lambda: both_status(F.build_state(), "06-implementation", "in_progress"),
        redo_running,  # redo_pending with the phase back in progress: legal
        "phases.06-implementation.status",
    ),
    C(
        "REV-NOT-COMPLETED",
        "reviewing a pending phase",
        lambda: setpath(
            setpath(F.build_state(), "active_workflow.supervised_review.phase", "16-quality-loop"),
            "active_workflow.supervised_review.status",
            "reviewing",
        ),
        lambda: setpath(F.build_state(), "active_workflow.supervised_review.status", "reviewing"),
        "phases.16-quality-loop.status",
    ),
    C(
        "REV-NOT-SELECTED",
        "gate on 06 while only 16 is reviewed",
        lambda: setpath(F.build_state(), "supervised_mode.review_phases", ["16"]),
        lambda: setpath(F.build_state(), "supervised_mode.review_phases", []),  # [] means all
        "active_workflow.supervised_review.phase",
    ),
    C(
        "REV-MODE-OFF",
        "enabled is the string 'true'",
        lambda: setpath(F.build_state(), "supervised_mode.enabled", "true"),
        F.build_state,
        "active_workflow.supervised_review",
    ),
    C(
        "REV-STATUS",
        "status 'waiting'",
        lambda: setpath(F.build_state(), "active_workflow.supervised_review.status", "waiting"),
        lambda: F.gate_review(F.build_state()),
        "active_workflow.supervised_review.status",
    ),
    C(
        "REV-PHASE",
        "review of a phase the build does not run",
        lambda: setpath(
            F.build_state(), "active_workflow.supervised_review.phase", "03-architecture"
        ),
        F.build_state,
        "active_workflow.supervised_review.phase",
    ),
    C(
        "REV-BYPASSED",
        "next phase activated with the gate still open",
        lambda: F.activate(F.build_state()),
        lambda: F.activate(F.gate_continue(F.build_state())),
        "active_workflow.current_phase",
    ),
    # TIME
    C(
        "TIME-ORDER",
        "completed before started",
        lambda: feature_ph("03-architecture.timing.completed_at", "2026-03-01T00:00:00.000Z"),
        F.feature_state,
        "phases.03-architecture.timing.completed_at",
    ),
    C(
        "TIME-ORDER",
        "history completed before started",
        lambda: setpath(
            F.finalized_state(), "workflow_history[0].completed_at", "2026-01-01T00:00:00Z"
        ),
        F.finalized_state,
        "workflow_history[0].completed_at",
    ),
    C(
        "TIME-NEGATIVE",
        "negative wall clock",
        lambda: feature_ph("03-architecture.timing.wall_clock_minutes", -3),
        lambda: feature_ph("03-architecture.timing.wall_clock_minutes", 0),
        "phases.03-architecture.timing.wall_clock_minutes",
    ),
    C(
        "TIME-COMPLETED-MISSING",
        "completed without any completion time",
        lambda: delpath(F.feature_state(), "phases.03-architecture.timing.completed_at"),
        lambda: feature_ph(  # the writer that uses `completed_at` instead
            "03-architecture.completed_at", "2026-03-04T10:00:00.000Z"
        ),
        "phases.03-architecture.timing.completed_at",
    ),
    C(
        "TIME-UNPARSEABLE",
        "started 'yesterday'",
        lambda: feature_ph("05-test-strategy.started", "yesterday"),
        lambda: feature_ph("05-test-strategy.started", "2026-03-04"),  # date-only is accepted
        "phases.05-test-strategy.started",
    ),
    C(
        "TIME-UNPARSEABLE",
        "escalation timestamp garbage",
        lambda: setpath(
            F.escalate(F.feature_state()), "pending_escalations[0].timestamp", "3/4/2026"
        ),
        lambda: F.escalate(F.feature_state()),
        "pending_escalations[0].timestamp",
    ),
    # ALIAS
    C(
        "ALIAS-LEGACY",
        "legacy upgrade keys",
        lambda: upgrade(["16-upgrade-plan", "16-upgrade-execute", "08-code-review"]),
        lambda: upgrade(["15-upgrade-plan", "15-upgrade-execute", "08-code-review"]),
        "active_workflow.phases[0]",
    ),
    C(
        "ALIAS-LEGACY",
        "legacy top-level current_phase with no workflow",
        lambda: setpath(F.project_state(), "current_phase", "13-test-deploy"),
        lambda: setpath(F.project_state(), "current_phase", "12-test-deploy"),
        "current_phase",
    ),
    C(
        "ALIAS-DUPLICATE",
        "both 16-upgrade-plan and 15-upgrade-plan records",
        lambda: setpath(
            upgrade(["15-upgrade-plan", "15-upgrade-execute", "08-code-review"]),
            "phases.16-upgrade-plan",
            F.skeleton(),
        ),
        lambda: upgrade(["15-upgrade-plan", "15-upgrade-execute", "08-code-review"]),
        "phases.15-upgrade-plan",
    ),
    C(
        "ALIAS-UNKNOWN",
        "old key 02-architecture",
        lambda: setpath(F.project_state(), "phases.02-architecture", F.skeleton()),
        lambda: setpath(F.project_state(), "phases.02-impact-analysis", F.skeleton()),
        "phases.02-architecture",
        Severity.INFO,
    ),
    C(
        "ALIAS-UNKNOWN",
        "not a phase key at all",
        lambda: setpath(F.project_state(), "phases.requirements", F.skeleton()),
        F.project_state,
        "phases.requirements",
        Severity.INFO,
    ),
]


WALKS: dict[str, Callable[[], list[tuple[str, dict[str, Any]]]]] = {
    "feature supervised (review 03, redo 06, escalation 16)": lambda: F.walk(
        "feature",
        supervised=True,
        review_phases=["03", "06"],
        review_at="03-architecture",
        redo_at="06-implementation",
        escalate_at="16-quality-loop",
    ),
    "feature light": lambda: F.walk("feature", light=True),
    "fix unsupervised with escalation": lambda: F.walk("fix", escalate_at="06-implementation"),
    "build supervised all, redo 05, escalation 06": lambda: F.walk(
        "build",
        supervised=True,
        review_phases="all",
        redo_at="05-test-strategy",
        escalate_at="06-implementation",
    ),
    "build redo of the last phase": lambda: F.walk(
        "build", supervised=True, redo_at="08-code-review"
    ),
    "second workflow after a finished one": lambda: F.walk("fix", start=F.finalized_state()),
    "upgrade": lambda: F.walk("upgrade"),
    "test-run": lambda: F.walk("test-run", supervised=True),
}


def _cancel_walk() -> list[tuple[str, dict[str, Any]]]:
    s = F.run_until("build", "3c-prime 06-implementation")
    esc = F.escalate(s)
    return [("running", s), ("escalate", esc), ("cancel", F.cancel(esc))]


def _skip_walk() -> list[tuple[str, dict[str, Any]]]:
    s = F.run_until("fix", "3c-prime 06-implementation")
    steps = [("running", s)]
    for label, step in (("escalate", F.escalate), ("skip", F.answer_skip), ("3e", F.complete)):
        s = step(s)
        steps.append((label, s))
    s = F.activate(s)
    steps.append(("3c-prime next", s))
    return steps


WALKS["cancel at an escalation"] = _cancel_walk
WALKS["skip at an escalation"] = _skip_walk
