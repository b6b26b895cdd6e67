"""The transition rules' case table: a failing pair (previous -> current state) and a near miss
for every rule id. test_audit_transition.py runs them, test_rules_registry.py checks every
rule has a case."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from phasewatch.core.audit import audit_transition
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.models import parse_state

from tests import factories as F
from tests.factories import bump, delpath, setpath

SRC = ".isdlc/state.json"
Doc = dict[str, Any]
PairFn = Callable[[], tuple[Doc, Doc]]


def run_pair(prev: Doc, cur: Doc) -> list[Finding]:
    ps, _ = parse_state(prev, SRC)
    cs, _ = parse_state(cur, SRC)
    return audit_transition(ps, prev, cs, cur, SRC)


def ids(findings: list[Finding]) -> set[str]:
    return {f.rule_id for f in findings}


def step(label: str, kind: str = "feature", **kw: Any) -> PairFn:
    """The (previous, current) pair around the step called ``label`` of a correct walk."""

    def pair() -> tuple[Doc, Doc]:
        steps = F.walk(kind, **kw)
        i = next(i for i, (name, _) in enumerate(steps) if name == label)
        return steps[i - 1][1], steps[i][1]

    return pair


def edit(make: Callable[[Doc], Doc], base: Callable[[], Doc] = F.feature_state) -> PairFn:
    """(base, make(base)): ``make`` builds the next write from the previous state."""

    def pair() -> tuple[Doc, Doc]:
        prev = base()
        return prev, make(prev)

    return pair


def rollback(doc: Doc, phase: str = "03-architecture") -> Doc:
    return setpath(
        doc,
        "active_workflow.recovery_action",
        {"type": "rollback", "phase": phase, "timestamp": F.now(doc)},
    )


def combined_3e(prev: Doc) -> Doc:
    """Pre-BUG-0006 STEP 3e: complete 04 AND activate 05 in ONE write (version + 1)."""
    both = F.activate(F.complete(prev))
    return setpath(both, "state_version", prev["state_version"] + 1)


SUPERVISED_BUILD = {
    "supervised": True,
    "review_phases": ["06", "16"],
    "redo_at": "06-implementation",
}


@dataclass(frozen=True)
class Case:
    rule_id: str
    name: str
    bad: PairFn
    good: PairFn
    path: str | None = None
    severity: Severity | None = None


C = Case
at_04 = lambda: F.run_until("feature", "3c-prime 04-design")  # noqa: E731
between_05 = lambda: F.run_until("feature", "3e 05-test-strategy")  # noqa: E731

TRANSITION_CASES: list[Case] = [
    # versions (seed 001, 003 IR-011)
    C(
        "TR-VERSION-DOWN",
        "stale snapshot written back",
        edit(lambda s: setpath(F.complete(s), "state_version", s["state_version"] - 2)),
        edit(F.complete),
        "state_version",
    ),
    C(
        "TR-VERSION-SAME",
        "content changed, version not",
        edit(lambda s: setpath(s, "phases.05-test-strategy.summary", "edited by hand")),
        edit(lambda s: bump(setpath(s, "phases.05-test-strategy.summary", "edited"))),
        "state_version",
    ),
    C(
        "TR-VERSION-JUMP",
        "two writes coalesced",
        edit(lambda s: F.activate(F.complete(s))),
        edit(F.complete),
        "state_version",
        Severity.INFO,
    ),
    C(
        "TR-VERSION-LOST",
        "legacy writer dropped state_version",
        edit(lambda s: delpath(s, "state_version")),
        edit(bump),
        "state_version",
    ),
    # index (seed 000 FR-01, 003 IR-012)
    C(
        "TR-INDEX-DOWN",
        "index 6 -> 5 (V8)",
        edit(lambda s: bump(setpath(s, "active_workflow.current_phase_index", 5)), between_05),
        edit(
            lambda s: bump(rollback(setpath(s, "active_workflow.current_phase_index", 5))),
            between_05,
        ),
        "active_workflow.current_phase_index",
    ),
    # statuses (seed 000 FR-02, 003 IR-012, TS-010)
    C(
        "TR-STATUS-DOWN",
        "phase_status completed -> pending (TS-010)",
        edit(lambda s: bump(setpath(s, "active_workflow.phase_status.01-requirements", "pending"))),
        edit(
            lambda s: bump(
                rollback(setpath(s, "active_workflow.phase_status.01-requirements", "pending"))
            )
        ),
        "active_workflow.phase_status.01-requirements",
    ),
    C(
        "TR-STATUS-DOWN",
        "phases[k] completed -> in_progress without a redo",
        edit(lambda s: bump(setpath(s, "phases.04-design.status", "in_progress"))),
        step("3c-prime redo 06-implementation", "build", **SUPERVISED_BUILD),
        "phases.04-design.status",
    ),
    C(
        "TR-STATUS-DOWN",
        "in_progress -> pending",
        edit(lambda s: bump(setpath(s, "phases.05-test-strategy.status", "pending"))),
        edit(F.complete),
        "phases.05-test-strategy.status",
    ),
    C(
        "TR-STATUS-DOWN",
        "redo of another phase does not excuse this one",
        edit(
            lambda s: bump(setpath(s, "phases.05-test-strategy.status", "in_progress")),
            lambda: F.run_until("build", "redo 06-implementation", **SUPERVISED_BUILD),
        ),
        edit(
            lambda s: F.answer_retry(
                bump(setpath(s, "phases.05-test-strategy.status", "in_progress"))
            ),
            lambda: F.escalate(
                F.run_until("build", "3c-prime 06-implementation"), phase="05-test-strategy"
            ),
        ),
        "phases.05-test-strategy.status",
    ),
    # BUG-0006 (003 IR-003)
    C(
        "TR-NEXT-ACTIVATED",
        "3e also ran 3c-prime in the same write",
        edit(combined_3e, at_04),
        edit(F.complete, at_04),
        "phases.05-test-strategy.status",
    ),
    C(
        "TR-NEXT-ACTIVATED",
        "3e moved only active_workflow.current_phase",
        edit(
            lambda s: setpath(F.complete(s), "active_workflow.current_phase", "05-test-strategy"),
            at_04,
        ),
        edit(lambda s: F.activate(F.complete(s)), at_04),  # version gap: coalesced, not judged
        "phases.05-test-strategy.status",
    ),
    # BUG-0011 (seed 000)
    C(
        "TR-CURRENT-BACK",
        "subagent snapshot moves current_phase back",
        edit(
            lambda s: bump(
                setpath(
                    setpath(s, "active_workflow.current_phase", "03-architecture"),
                    "current_phase",
                    "03-architecture",
                )
            )
        ),
        edit(
            lambda s: bump(
                rollback(
                    setpath(
                        setpath(s, "active_workflow.current_phase", "03-architecture"),
                        "current_phase",
                        "03-architecture",
                    )
                )
            )
        ),
        "active_workflow.current_phase",
    ),
    C(
        "TR-STARTED-CHANGED",
        "re-run overwrote started",
        edit(
            lambda s: setpath(
                F.activate(s, "05-test-strategy"),
                "phases.05-test-strategy.started",
                F.now(F.bump(s)),
            )
        ),
        edit(lambda s: F.activate(F.answer_retry(F.escalate(s)), "05-test-strategy")),
        "phases.05-test-strategy.started",
    ),
    C(
        "TR-STARTED-CHANGED",
        "timing.started_at reset",
        edit(
            lambda s: bump(setpath(s, "phases.03-architecture.timing.started_at", F.now(F.bump(s))))
        ),
        step("3c-prime redo 06-implementation", "build", **SUPERVISED_BUILD),
        "phases.03-architecture.timing.started_at",
    ),
    # workflow identity (seed 001 symptom 1)
    C(
        "TR-WORKFLOW-REPLACED",
        "active_workflow reverted to null without archiving",
        edit(lambda s: bump(setpath(s, "active_workflow", None))),
        step("finalize", "fix"),
        "active_workflow",
    ),
    C(
        "TR-WORKFLOW-REPLACED",
        "replaced by another workflow without archiving",
        lambda: (F.fix_state(), setpath(F.feature_state(), "state_version", 99)),
        lambda: (F.fix_state(), F.cancel(F.fix_state())),
        "active_workflow",
    ),
    C(
        "TR-WORKFLOW-REPLACED",
        "an archived workflow comes back (stale write)",
        lambda: (
            F.run_until("fix", "init", start=F.finalized_state()),
            bump(
                setpath(
                    F.run_until("fix", "init", start=F.finalized_state()),
                    "active_workflow",
                    F.feature_state()["active_workflow"],
                )
            ),
        ),
        step("init", "fix", start=F.finalized_state()),
        "active_workflow",
    ),
    C(
        "TR-WORKFLOW-STARTED",
        "init after an idle project",
        step("init", "build"),
        step("3c-prime 05-test-strategy", "build"),
        "active_workflow",
        Severity.INFO,
    ),
    C(
        "TR-WORKFLOW-STARTED",
        "a workflow suspended for another one is legal",
        edit(
            lambda s: setpath(
                F.init(s, "fix"),
                "suspended_workflow",
                s["active_workflow"],
            )
        ),
        edit(lambda s: bump(setpath(s, "active_workflow.description", "renamed"))),
        "active_workflow",
        Severity.INFO,
    ),
    # phases list (003 IR-009 AC-009d)
    C(
        "TR-PHASES-CHANGED",
        "adaptive sizing drops a pending phase (info)",
        edit(
            lambda s: bump(
                setpath(
                    delpath(
                        delpath(s, "active_workflow.phase_status.16-quality-loop"),
                        "phases.16-quality-loop",
                    ),
                    "active_workflow.phases",
                    [k for k in s["active_workflow"]["phases"] if k != "16-quality-loop"],
                )
            )
        ),
        edit(F.complete),
        "active_workflow.phases",
        Severity.INFO,
    ),
    C(
        "TR-PHASES-CHANGED",
        "a completed phase removed (info: the framework's guards accept it)",
        edit(
            lambda s: bump(
                setpath(
                    s,
                    "active_workflow.phases",
                    [k for k in s["active_workflow"]["phases"] if k != "03-architecture"],
                )
            )
        ),
        edit(F.complete),
        "active_workflow.phases",
        Severity.INFO,
    ),
    # review gate
    C(
        "TR-REVIEW-LOST",
        "open gate deleted without a decision",
        edit(lambda s: bump(delpath(s, "active_workflow.supervised_review")), F.build_state),
        edit(F.gate_continue, F.build_state),
        "active_workflow.supervised_review",
    ),
    C(
        "TR-MARKER-OLD",
        "a copy from before the latest retry written back",
        edit(
            lambda s: bump(delpath(s, "active_workflow.recovery_action")),
            lambda: F.answer_retry(F.escalate(F.feature_state())),
        ),
        edit(lambda s: bump(s), lambda: F.answer_retry(F.escalate(F.feature_state()))),
        "active_workflow.recovery_action",
        Severity.INFO,
    ),
    C(
        "TR-EVIDENCE-LOST",
        "a phase's gate evidence removed by a write that sets no retry",
        edit(lambda s: bump(delpath(s, "phases.05-test-strategy.constitutional_validation"))),
        edit(lambda s: F.answer_retry(F.escalate(s))),
        "phases.05-test-strategy.constitutional_validation",
        Severity.INFO,
    ),
    C(
        "TR-INDEX-SKIP",
        "the index moved past the phase in progress",
        edit(
            lambda s: bump(
                setpath(
                    s,
                    "active_workflow.current_phase_index",
                    s["active_workflow"]["current_phase_index"] + 1,
                )
            )
        ),
        edit(F.complete),
        "active_workflow.current_phase_index",
        Severity.INFO,
    ),
    C(
        "TR-CURRENT-UNSTARTED",
        "the pointer moved onto the next phase, still pending",
        edit(
            lambda s: bump(setpath(s, "active_workflow.current_phase", "06-implementation")),
            lambda: F.complete(F.feature_state()),
        ),
        edit(F.activate, lambda: F.complete(F.feature_state())),
        "active_workflow.current_phase",
        Severity.INFO,
    ),
    C(
        "TR-COMPLETED-ELSEWHERE",
        "a later phase called completed while another runs",
        edit(
            lambda s: bump(setpath(s, "active_workflow.phase_status.16-quality-loop", "completed"))
        ),
        edit(F.complete),
        "active_workflow.phase_status.16-quality-loop",
        Severity.INFO,
    ),
    C(
        "TR-RECOVERY",
        "retry recorded",
        edit(lambda s: F.answer_retry(F.escalate(s))),
        edit(F.escalate),
        "active_workflow.recovery_action",
        Severity.INFO,
    ),
]
