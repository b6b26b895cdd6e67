"""The human decisions recorded in the state: pending escalations (``ESC-*``) and the
supervised review gate (``REV-*``).

Checks take ``(em, state, raw)`` (see :mod:`core.audit.state`).
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from itertools import pairwise
from typing import Any

from ..checks import Emitter
from ..models import ActiveWorkflow, State, SupervisedReview
from ..protocol import (
    ESCALATION_DEDUP_SECONDS,
    ESCALATION_TYPES,
    MAX_ESCALATIONS,
    MAX_REDOS,
    REVIEW_STATUSES,
    parse_iso,
    phase_prefix,
    review_selected,
)
from . import rules as R
from ._util import awpath, canon, phase_status_any, position, ppath, q, same_key

OPEN_REVIEW = frozenset({"gate_presented", "reviewing"})


def check_escalations(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    escs = state.pending_escalations
    if not escs:
        return
    first = escs[0]
    em.add(
        R.ESC_PENDING,
        "pending_escalations",
        f"{len(escs)} escalation{'s' if len(escs) != 1 else ''} pending (first: {q(first.type)} "
        f"from {q(first.hook)} on {q(first.phase)}).",
        expected=[],
        actual=len(escs),
    )
    if len(escs) > MAX_ESCALATIONS:
        em.add(
            R.ESC_CAP,
            "pending_escalations",
            f"{len(escs)} pending escalations; the framework keeps at most {MAX_ESCALATIONS}.",
            expected=f"<= {MAX_ESCALATIONS}",
            actual=len(escs),
        )


def check_escalation_entries(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Each escalation's type, hook and phase."""
    escs = state.pending_escalations
    aw = state.active_workflow
    for i, e in enumerate(escs):
        path = f"pending_escalations[{i}]"
        expected_hook = ESCALATION_TYPES.get(e.type) if e.type is not None else None
        if expected_hook is None:
            em.add(
                R.ESC_TYPE,
                f"{path}.type",
                f"escalation {i} has type {q(e.type)}; known: {', '.join(ESCALATION_TYPES)}.",
                expected=sorted(ESCALATION_TYPES),
                actual=e.type,
            )
        elif e.hook != expected_hook:
            em.add(
                R.ESC_HOOK,
                f"{path}.hook",
                f"escalation {i} of type {q(e.type)} comes from {q(e.hook)}; that type is "
                f"raised by {q(expected_hook)}.",
                expected=expected_hook,
                actual=e.hook,
            )
        if aw is None:
            em.add(
                R.ESC_PHASE,
                f"{path}.phase",
                f"escalation {i} ({q(e.type)} on {q(e.phase)}) is pending but no workflow is "
                "active.",
                expected=None,
                actual=e.phase,
            )
        elif position(aw, e.phase) is None:
            em.add(
                R.ESC_PHASE,
                f"{path}.phase",
                f"escalation {i} names phase {q(e.phase)}, which the workflow does not run.",
                expected=aw.phases,
                actual=e.phase,
            )


def check_escalation_duplicates(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Repeats the framework's 60 s dedup window should have dropped."""
    groups: dict[tuple[Any, Any, Any], list[tuple[datetime, int]]] = defaultdict(list)
    for i, e in enumerate(state.pending_escalations):
        when = parse_iso(e.timestamp)
        if when is not None:
            groups[(e.hook, canon(e.phase), e.type)].append((when, i))
    for (hook, phase, typ), items in groups.items():
        items.sort()
        for (t0, i0), (t1, i1) in pairwise(items):
            gap = (t1 - t0).total_seconds()
            if gap <= ESCALATION_DEDUP_SECONDS:
                em.add(
                    R.ESC_DUPLICATE,
                    f"pending_escalations[{i1}]",
                    f"escalation {i1} repeats escalation {i0} ({q(typ)} from {q(hook)} on "
                    f"{q(phase)}) {gap:.0f} s later; repeats within "
                    f"{ESCALATION_DEDUP_SECONDS} s are dropped by the framework.",
                    expected=f"> {ESCALATION_DEDUP_SECONDS} s apart",
                    actual=round(gap, 3),
                )


BASE = awpath("supervised_review")


def _open_review(
    state: State, raw: dict[str, Any]
) -> tuple[ActiveWorkflow, SupervisedReview, Any, bool] | None:
    """The workflow, its recorded review, the raw supervised_mode and whether it is enabled."""
    aw = state.active_workflow
    rv = aw.supervised_review if aw is not None else None
    if aw is None or rv is None:
        return None
    mode = raw.get("supervised_mode")
    return aw, rv, mode, isinstance(mode, dict) and mode.get("enabled") is True


def check_review(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """The review record itself: supervised mode on, a known status, the redo limit."""
    gate = _open_review(state, raw)
    if gate is None:
        return
    rv, mode, enabled = gate[1:]
    if not enabled:
        em.add(
            R.REV_MODE_OFF,
            BASE,
            f"A review of {q(rv.phase)} is recorded ({q(rv.status)}) but supervised_mode is not "
            f"enabled (enabled={q(mode.get('enabled') if isinstance(mode, dict) else mode)}).",
            expected=True,
            actual=mode.get("enabled") if isinstance(mode, dict) else None,
        )
    if rv.status not in REVIEW_STATUSES:
        em.add(
            R.REV_STATUS,
            f"{BASE}.status",
            f"supervised_review.status is {q(rv.status)}; known: "
            f"{', '.join(sorted(REVIEW_STATUSES))}.",
            expected=sorted(REVIEW_STATUSES),
            actual=rv.status,
        )
    if isinstance(rv.redo_count, int) and rv.redo_count > MAX_REDOS:
        em.add(
            R.REV_REDO_LIMIT,
            f"{BASE}.redo_count",
            f"redo_count is {rv.redo_count}; redo is offered only while redo_count < "
            f"{MAX_REDOS}, so it can reach at most {MAX_REDOS}.",
            expected=f"<= {MAX_REDOS}",
            actual=rv.redo_count,
        )


def check_review_phase(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """The reviewed phase: in the workflow, completed, selected by review_phases, still current."""
    gate = _open_review(state, raw)
    if gate is None:
        return
    aw, rv, mode, enabled = gate
    if rv.phase is None or position(aw, rv.phase) is None:
        em.add(
            R.REV_PHASE,
            f"{BASE}.phase",
            f"supervised_review.phase is {q(rv.phase)}, not a phase of the workflow.",
            expected=aw.phases,
            actual=rv.phase,
        )
        return
    status = phase_status_any(state, rv.phase)
    if status is None:
        rec_key = next((k for k in state.phases if same_key(k, rv.phase)), None)
        status = state.phases[rec_key].status if rec_key else None
    allowed = ("completed", "in_progress") if rv.status == "redo_pending" else ("completed",)
    if rv.status in OPEN_REVIEW | {"redo_pending"} and status not in allowed:
        em.add(
            R.REV_NOT_COMPLETED,
            ppath(rv.phase, "status"),
            f"The review gate for {q(rv.phase)} is {q(rv.status)} but the phase is "
            f"{q(status)}; the gate is presented only after the phase is completed.",
            expected=list(allowed),
            actual=status,
        )
    if enabled and not review_selected(mode, rv.phase):
        em.add(
            R.REV_NOT_SELECTED,
            f"{BASE}.phase",
            f"A review gate is recorded for {q(rv.phase)} but supervised_mode.review_phases "
            f"{q(mode.get('review_phases') if isinstance(mode, dict) else None)} does not "
            f"select prefix {q(phase_prefix(rv.phase))}.",
            expected=mode.get("review_phases") if isinstance(mode, dict) else None,
            actual=phase_prefix(rv.phase),
        )
    if (
        rv.status in OPEN_REVIEW | {"redo_pending"}
        and aw.current_phase is not None
        and not same_key(aw.current_phase, rv.phase)
    ):
        em.add(
            R.REV_BYPASSED,
            awpath("current_phase"),
            f"The review gate for {q(rv.phase)} is still {q(rv.status)} but the workflow moved "
            f"on to {q(aw.current_phase)}.",
            expected=rv.phase,
            actual=aw.current_phase,
        )
