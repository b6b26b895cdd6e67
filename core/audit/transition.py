"""Transition rules: what changed between two observations of one ``state.json``.

The framework's own write guards (V7 stale version, V8 index/status regression,
docs/formats.md#write-guards)
fail open and, since March 2026, do not run; these rules judge the writes after the fact. Two
observations may be several writes apart (the watcher coalesces): rules that need "one write"
say so and stay quiet when ``state_version`` shows a gap.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from ..checks import Emitter
from ..models import ActiveWorkflow, State
from ..protocol import STATUS_RANK, agents_for, canonical_phase
from . import rules as R
from ._util import (
    awpath,
    describe_workflow,
    dropped,
    identity,
    position,
    ppath,
    q,
    rank,
    raw_dict,
    same_identity,
    same_key,
)
from .framework import marker_set_by_write, redo_set_by_write
from .seen import Seen, marker_fresh

OPEN_GATE = frozenset({"gate_presented", "reviewing", "redo_pending"})


class Pair(Struct):
    prev: State
    prev_raw: dict[str, Any]
    cur: State
    cur_raw: dict[str, Any]
    seen: Seen = ()  # what the session saw before this write (core.audit.seen)
    same: bool = False  # (set by __post_init__) both have an active workflow, the same one

    def __post_init__(self) -> None:
        pa, ca = self.prev.active_workflow, self.cur.active_workflow
        self.same = (
            pa is not None
            and ca is not None
            and same_identity(identity(pa), identity(ca)) is not False
        )

    @property
    def paw(self) -> ActiveWorkflow:
        assert self.prev.active_workflow is not None
        return self.prev.active_workflow

    @property
    def caw(self) -> ActiveWorkflow:
        assert self.cur.active_workflow is not None
        return self.cur.active_workflow

    def ended(self) -> str | None:
        """How this write legitimately ended the previous workflow: ``"archived"`` (an entry
        of the new ``workflow_history`` is it) or ``"suspended"`` (``suspended_workflow`` is
        it, as ``workflow-init.cjs --interrupt`` writes); None otherwise, and None when the
        workflow now active had already ended (a copy from before it was archived)."""
        pa, ca = self.prev.active_workflow, self.cur.active_workflow
        if pa is None or self.same:
            return None
        if ca is not None and any(
            same_identity(identity(h), identity(ca)) is True for h in self.prev.workflow_history
        ):
            return None  # the new workflow had already ended: a stale copy brought it back
        pid = identity(pa)
        if same_identity(identity(raw_dict(self.cur_raw, "suspended_workflow")), pid) is True:
            return "suspended"
        if not pid:  # nothing to match on: accept any appended entry
            grew = len(self.cur.workflow_history) > len(self.prev.workflow_history)
            return "archived" if grew else None
        hist = self.cur.workflow_history
        return "archived" if any(same_identity(identity(h), pid) is True for h in hist) else None

    @property
    def coalesced(self) -> bool:
        """The versions show more than one write between the two observations."""
        pv, cv = self.prev.state_version, self.cur.state_version
        return isinstance(pv, int) and isinstance(cv, int) and cv - pv > 1

    def versions(self) -> str:
        return f"state_version {q(self.prev.state_version)} -> {q(self.cur.state_version)}"

    def marker_fresh(self) -> bool:
        """This write sets ``recovery_action``: newer than the disk's and than any the session
        saw for this workflow (docs/framework-facts.md#recovery-markers)."""
        return marker_set_by_write(self.prev_raw, self.cur_raw) and marker_fresh(
            self.seen, self.cur_raw
        )

    def rollback(self) -> bool:
        """This write records a rollback. The framework never removes the marker, so one left
        from an earlier write excuses nothing here (docs/framework-facts.md)."""
        ra = self.cur.active_workflow.recovery_action if self.cur.active_workflow else None
        return ra is not None and ra.type == "rollback" and self.marker_fresh()


# ----------------------------------------------------------------------------- versions


def check_version(em: Emitter, p: Pair) -> None:
    pv, cv = p.prev.state_version, p.cur.state_version
    changed = p.prev_raw != p.cur_raw
    if isinstance(pv, int) and isinstance(cv, int):
        # lower, or missing: the framework's V7, raised by .mirror
        if cv == pv and changed:
            em.add(
                R.TR_VERSION_SAME,
                "state_version",
                f"The file changed but state_version stayed {cv}: the writer did not go through "
                "writeState().",
                expected=pv + 1,
                actual=cv,
            )
        elif cv > pv + 1:
            em.add(
                R.TR_VERSION_JUMP,
                "state_version",
                f"state_version jumped from {pv} to {cv} ({cv - pv - 1} write(s) not observed).",
                expected=pv + 1,
                actual=cv,
            )


# ----------------------------------------------------------------------------- workflow identity


def check_workflow(em: Emitter, p: Pair) -> None:
    pa, ca = p.prev.active_workflow, p.cur.active_workflow
    if pa is None and ca is None:
        return
    if ca is not None:
        cid = identity(ca)
        back = next(
            (h for h in p.prev.workflow_history if same_identity(identity(h), cid) is True), None
        )
        if back is not None and (pa is None or same_identity(identity(pa), cid) is False):
            em.add(
                R.TR_WORKFLOW_REPLACED,
                "active_workflow",
                f"active_workflow is again {describe_workflow(cid)}, which was already archived "
                f"in workflow_history ({q(back.status)}): a stale snapshot was written back "
                f"({p.versions()}).",
                expected=describe_workflow(identity(pa)) if pa is not None else None,
                actual=describe_workflow(cid),
            )
            return
    if pa is None:
        assert ca is not None
        em.add(
            R.TR_WORKFLOW_STARTED,
            "active_workflow",
            f"Workflow {describe_workflow(identity(ca))} ({q(ca.type)}) started.",
            expected=None,
            actual=describe_workflow(identity(ca)),
        )
        return
    if p.same:
        return
    pid = identity(pa)
    ended = p.ended()
    if ended is not None:
        if ca is not None:
            em.add(
                R.TR_WORKFLOW_STARTED,
                "active_workflow",
                f"Workflow {describe_workflow(identity(ca))} ({q(ca.type)}) started after "
                f"{describe_workflow(pid)} was {ended}.",
                expected=None,
                actual=describe_workflow(identity(ca)),
            )
        return
    _lost_or_replaced(em, p, pid)


def _lost_or_replaced(em: Emitter, p: Pair, pid: dict[str, str]) -> None:
    """The workflow ``pid`` vanished (null) or was replaced without being archived."""
    ca = p.cur.active_workflow
    if ca is None:
        message = (
            f"active_workflow {describe_workflow(pid)} was set to null without a "
            f"workflow_history entry for it ({p.versions()}): the workflow was lost, not "
            "finalized."
        )
        actual = None
    else:
        message = (
            f"active_workflow {describe_workflow(pid)} was replaced by "
            f"{describe_workflow(identity(ca))} without archiving it ({p.versions()})."
        )
        actual = describe_workflow(identity(ca))
    em.add(
        R.TR_WORKFLOW_REPLACED,
        "active_workflow",
        message,
        expected=describe_workflow(pid),
        actual=actual,
    )


# ----------------------------------------------------------------------------- pointers


def check_current(em: Emitter, p: Pair) -> None:
    if not p.same or p.rollback():
        return
    caw = p.caw
    for path, before, after in (
        (awpath("current_phase"), p.paw.current_phase, caw.current_phase),
        ("current_phase", p.prev.current_phase, p.cur.current_phase),
    ):
        b, a = position(caw, before), position(caw, after)
        if path == "current_phase" and b is None and not before:
            b = position(caw, p.paw.current_phase)  # no mirror was set: the pointer's place
        if path == "current_phase" and same_key(after, caw.current_phase):
            continue  # the mirror put back on the pointer (the framework's own STEP 3c-prime
            # does that after phase-advance.cjs left it ahead): a resync, not a step back
        if b is not None and a is not None and a < b:
            em.add(
                R.TR_CURRENT_BACK,
                path,
                f"{path} moved back from {q(before)} to {q(after)} without a rollback "
                f"({p.versions()}): a subagent's launch-time snapshot overwrote the controller's "
                "advance.",
                expected=before,
                actual=after,
            )


def check_index_skip(em: Emitter, p: Pair) -> None:
    """``current_phase_index`` moved forward past a phase neither status map calls done:
    phase-advance and STEP 3e complete the phase in the same write that moves the index, so
    the next phase-advance would skip an unfinished phase."""
    if not p.same or p.rollback():
        return
    old_i, new_i = p.paw.current_phase_index, p.caw.current_phase_index
    if not (isinstance(old_i, int) and isinstance(new_i, int)) or new_i <= old_i:
        return
    phases = p.caw.phases
    left = [
        k
        for k in phases[old_i : min(new_i, len(phases))]
        if p.caw.phase_status.get(k) not in ("completed", "skipped")
    ]
    if left:
        path = awpath("current_phase_index")
        em.add(
            R.TR_INDEX_SKIP,
            path,
            f"{path} moved from {old_i} to {new_i} ({p.versions()}) past {', '.join(left)}, "
            "which no status map calls completed: the next phase-advance starts after it.",
            expected=f"{old_i}, until {left[0]} is completed",
            actual=new_i,
        )


def check_current_unstarted(em: Emitter, p: Pair) -> None:
    """The pointer moved onto a phase that is still pending. In the framework's walks the
    pointer only ever lands on a phase in progress: STEP 3c-prime activates both in one write
    (docs/formats.md#phase-loop)."""
    if not p.same or p.rollback():
        return
    before, after = p.paw.current_phase, p.caw.current_phase
    if not after or same_key(before, after):
        return
    status = p.caw.phase_status.get(after)
    if status == "pending":
        path = awpath("current_phase")
        em.add(
            R.TR_CURRENT_UNSTARTED,
            path,
            f"{path} moved from {q(before)} to {q(after)} ({p.versions()}), which "
            f"{awpath('phase_status')} still calls pending: no activation wrote it.",
            expected=before,
            actual=after,
        )


def check_completed_elsewhere(em: Emitter, p: Pair) -> None:
    """A phase other than the current one (before or after the write) became completed. The
    controller completes the phase it runs (STEP 3e, phase-advance.cjs), so the next
    phase-advance would read a status nobody earned. Quiet when the versions show writes not
    observed (the phases run between them were current then)."""
    if not p.same or p.rollback() or p.coalesced:
        return
    current = (p.paw.current_phase, p.caw.current_phase)
    before = p.paw.phase_status
    for key, status in p.caw.phase_status.items():
        if status != "completed" or before.get(key) in (None, "completed"):
            continue
        if any(same_key(key, c) for c in current if c):
            continue
        path = f"{awpath('phase_status')}.{key}"
        em.add(
            R.TR_COMPLETED_ELSEWHERE,
            path,
            f'{path} went from {q(before.get(key))} to "completed" ({p.versions()}) while '
            f"{q(current[1])} was the current phase: only the phase that runs is completed.",
            expected=before.get(key),
            actual=status,
        )


# ----------------------------------------------------------------------------- statuses


def _excuse(p: Pair, key: str, old: str, new: str) -> str | None:
    caw = p.caw
    ra = caw.recovery_action
    if p.rollback():
        return "rollback"
    if (
        p.marker_fresh()
        and ra is not None
        and ra.type == "retry"
        and (ra.phase is None or same_key(ra.phase, key))
    ):
        return "retry"
    rv = caw.supervised_review
    if (
        old == "completed"
        and new == "in_progress"
        and rv is not None
        and same_key(rv.phase, key)
        and redo_set_by_write(p.prev_raw, p.cur_raw, rv.phase)
    ):
        return "redo"
    return None


def check_status(em: Emitter, p: Pair) -> None:
    """A detailed record's status going backwards. The framework's V8 guards only
    ``phase_status`` (raised by .mirror); a regression of ``phases[k]`` alone is information
    (it shows as the V9-A disagreement when the summary map did not follow)."""
    if not p.same:
        return
    for key, rec in p.cur.phases.items():
        prev = p.prev.phases.get(key)
        old, new = (prev.status if prev is not None else None), rec.status
        ro, rn = rank(old), rank(new)
        if prev is None or ro is None or rn is None or rn >= ro:
            continue
        assert old is not None and new is not None
        if _excuse(p, key, old, new):
            continue
        path = ppath(key, "status")
        em.add(
            R.TR_STATUS_DOWN,
            path,
            f"{path} went from {q(old)} back to {q(new)} ({p.versions()}) with no supervised "
            "redo or recovery retry/rollback to explain it (the framework's V8 guards only "
            "phase_status, so it lets this through).",
            expected=f"{old} or a later status (statuses only move forward)",
            actual=new,
            severity=R.I,
        )


def _became_completed(p: Pair, key: str) -> bool:
    prec, crec = p.prev.phases.get(key), p.cur.phases.get(key)
    detail = (
        crec is not None
        and crec.status == "completed"
        and (prec is None or prec.status != "completed")
    )
    old_sum, new_sum = p.paw.phase_status.get(key), p.caw.phase_status.get(key)
    return detail or (new_sum == "completed" and old_sum != "completed")


def check_next_activated(em: Emitter, p: Pair) -> None:
    if not p.same or p.coalesced:
        return  # with a version gap the 3e and 3c-prime writes may simply have been coalesced
    phases = p.caw.phases
    for i, key in enumerate(phases[:-1]):
        if not _became_completed(p, key):
            continue
        nxt = phases[i + 1]
        evidence: list[str] = []
        prec, crec = p.prev.phases.get(nxt), p.cur.phases.get(nxt)
        if (
            crec is not None
            and crec.status == "in_progress"
            and (prec is None or (rank(prec.status) or 0) < STATUS_RANK["in_progress"])
        ):
            evidence.append(f"phases[{nxt}].status -> in_progress")
        old_sum, new_sum = p.paw.phase_status.get(nxt), p.caw.phase_status.get(nxt)
        if new_sum == "in_progress" and (rank(old_sum) or 0) < STATUS_RANK["in_progress"]:
            evidence.append(f"phase_status[{nxt}] -> in_progress")
        if same_key(p.caw.current_phase, nxt) and not same_key(p.paw.current_phase, nxt):
            evidence.append(f"active_workflow.current_phase -> {nxt}")
        if same_key(p.cur.current_phase, nxt) and not same_key(p.prev.current_phase, nxt):
            evidence.append(f"current_phase -> {nxt}")
        agent = p.cur.active_agent
        if (
            agent is not None
            and agent != p.prev.active_agent
            and agent in agents_for(nxt)
            and agent not in agents_for(key)
        ):
            evidence.append(f"active_agent -> {agent}")
        if evidence:
            em.add(
                R.TR_NEXT_ACTIVATED,
                ppath(nxt, "status"),
                f"The write that completed {q(key)} ({p.versions()}) also activated the next "
                f"phase: {'; '.join(evidence)}. phase-advance.cjs does this in one write by "
                "design; under the phase loop, STEP 3e only completes the phase and STEP "
                "3c-prime starts the next.",
                expected="untouched until the next phase is started",
                actual=evidence,
            )


def check_started(em: Emitter, p: Pair) -> None:
    if not p.same or p.rollback():
        return
    for key, rec in p.cur.phases.items():
        old = p.prev.phases.get(key)
        if old is None:
            continue
        for path, before, after in (
            (ppath(key, "started"), old.started, rec.started),
            (
                ppath(key, "timing", "started_at"),
                old.timing.started_at if old.timing else None,
                rec.timing.started_at if rec.timing else None,
            ),
        ):
            if before is not None and after != before:
                em.add(
                    R.TR_STARTED_CHANGED,
                    path,
                    f"{path} changed from {q(before)} to {q(after)}; a retry or redo must keep "
                    "the original start.",
                    expected=before,
                    actual=after,
                )


def check_phases_changed(em: Emitter, p: Pair) -> None:
    if not p.same:
        return
    before = [canonical_phase(k) for k in p.paw.phases]
    after = [canonical_phase(k) for k in p.caw.phases]
    if before == after:
        return
    before_set, after_set = set(before), set(after)  # (a list's ``in`` per key: quadratic)
    removed = [k for k in before if k not in after_set]
    added = [k for k in after if k not in before_set]
    common_before = [k for k in before if k in after_set]
    common_after = [k for k in after if k in before_set]
    reordered = common_before != common_after
    touched = [
        k
        for k in removed
        if any(
            s not in (None, "pending", "skipped")
            for s in (
                p.prev.phases[k].status if k in p.prev.phases else None,
                p.paw.phase_status.get(k),
            )
        )
        or same_key(p.paw.current_phase, k)
    ]
    serious = reordered or bool(touched)
    parts = []
    if removed:
        parts.append(f"removed {', '.join(removed)}")
    if added:
        parts.append(f"added {', '.join(added)}")
    if reordered:
        parts.append("reordered")
    em.add(
        R.TR_PHASES_CHANGED,
        awpath("phases"),
        f"active_workflow.phases changed ({'; '.join(parts)})"
        + (
            f": {', '.join(touched)} had already started"
            if touched
            else (": the order of phases changed" if reordered else " (adaptive sizing?)")
        )
        + ".",
        expected=p.paw.phases,
        actual=p.caw.phases,
        severity=None if serious else R.I,
    )


# ----------------------------------------------------------------------------- review / recovery


def check_review_lost(em: Emitter, p: Pair) -> None:
    if not p.same:
        return
    before = p.paw.supervised_review
    if before is None or before.status not in OPEN_GATE or p.caw.supervised_review is not None:
        return
    if len(p.caw.review_history) > len(p.paw.review_history):
        return
    em.add(
        R.TR_REVIEW_LOST,
        awpath("supervised_review"),
        f"The review gate for {q(before.phase)} ({q(before.status)}) disappeared without a "
        f"review_history entry ({p.versions()}).",
        expected="review_history entry for the decision",
        actual=None,
    )


def check_recovery(em: Emitter, p: Pair) -> None:
    ca = p.cur.active_workflow
    if ca is None or ca.recovery_action is None:
        return
    pa = p.prev.active_workflow
    old = pa.recovery_action if pa is not None and p.same else None
    new = ca.recovery_action
    if old is not None and old.model_dump() == new.model_dump():
        return
    em.add(
        R.TR_RECOVERY,
        awpath("recovery_action"),
        f"Recovery action {q(new.type)} recorded for {q(new.phase)} at {q(new.timestamp)}.",
        expected=None,
        actual=f"{q(new.type)} for {q(new.phase)} at {q(new.timestamp)}",
    )


def check_marker_old(em: Emitter, p: Pair) -> None:
    """The write put back an older recovery marker (or removed it): the framework never
    removes one, so this is a copy from before the latest retry or rollback."""
    if not p.same:
        return
    old = raw_dict(raw_dict(p.prev_raw, "active_workflow"), "recovery_action")
    new = raw_dict(raw_dict(p.cur_raw, "active_workflow"), "recovery_action")
    if not old or old.get("type") not in ("retry", "rollback"):
        return
    if new and not marker_set_by_write(p.cur_raw, p.prev_raw):
        return  # the same marker, or a newer one
    em.add(
        R.TR_MARKER_OLD,
        awpath("recovery_action"),
        f"recovery_action was the {q(old.get('type'))} of {q(old.get('phase'))} at "
        f"{q(old.get('timestamp'))} and is now "
        + (
            f"the older {q(new.get('type'))} of {q(new.get('phase'))} at {q(new.get('timestamp'))}"
            if new
            else "gone"
        )
        + f" ({p.versions()}): the framework never removes a marker, so a copy from before the "
        "latest retry or rollback was written back, undoing what it set.",
        expected=old,
        actual=new or None,
    )


#: Gate evidence in a phase record (what phase-advance.cjs's gate checks read).
EVIDENCE_PATHS = (
    ("constitutional_validation",),
    ("iteration_requirements", "test_iteration"),
    ("iteration_requirements", "interactive_elicitation"),
    ("test_iteration",),
    ("interactive_elicitation",),
)


def _dig(value: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def check_evidence_lost(em: Emitter, p: Pair) -> None:
    """Gate evidence or skill_usage_log entries the write removed, where no retry or rollback
    set by this write cleared them (docs/formats.md#repair)."""
    if not p.same or p.marker_fresh():
        return
    before, after = raw_dict(p.prev_raw, "phases"), raw_dict(p.cur_raw, "phases")
    for key, rec in before.items():
        now = after.get(key)
        if not isinstance(rec, dict) or not isinstance(now, dict):
            continue
        for path in EVIDENCE_PATHS:
            if _dig(rec, path) not in (None, {}) and _dig(now, path) is None:
                where = ppath(key, *path)
                em.add(
                    R.TR_EVIDENCE_LOST,
                    where,
                    f"{where} was removed ({p.versions()}) and no retry or rollback of this "
                    "write cleared it: the gate now judges the phase without it.",
                    expected="kept",
                    actual=None,
                )
    for log, old_log, new_log in (
        ("skill_usage_log", p.prev_raw.get("skill_usage_log"), p.cur_raw.get("skill_usage_log")),
        (
            awpath("review_history"),
            raw_dict(p.prev_raw, "active_workflow").get("review_history"),
            raw_dict(p.cur_raw, "active_workflow").get("review_history"),
        ),
    ):
        if not (isinstance(old_log, list) and isinstance(new_log, list)):
            continue
        lost = len(dropped(old_log, new_log))
        if lost:
            em.add(
                R.TR_EVIDENCE_LOST,
                log,
                f"{log} lost {lost} of its {len(old_log)} entries ({p.versions()}): the "
                "framework only appends to it (phase-advance's agent_delegation check reads "
                "skill_usage_log; review_history holds the gate decisions).",
                expected=f"the {len(old_log)} entries kept",
                actual=f"{lost} missing",
            )


TRANSITION_CHECKS = (
    check_version,
    check_workflow,
    check_current,
    check_status,
    check_next_activated,
    check_started,
    check_phases_changed,
    check_review_lost,
    check_recovery,
    check_marker_old,
    check_evidence_lost,
    check_index_skip,
    check_current_unstarted,
    check_completed_elsewhere,
)
