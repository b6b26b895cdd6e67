"""Where the workflow is, said three ways: the location disagreements (``SYNC-*``) and the
fields STEP 3c-prime writes when it activates a phase (``ACT-*``).

Checks take ``(em, state, raw)`` (see :mod:`core.audit.state`).
"""

from __future__ import annotations

from typing import Any

from ..checks import Emitter
from ..locations import (
    AGENT,
    DETAIL,
    POINTERS,
    SUMMARY,
    PhaseLocations,
    init_window,
    location_rows,
    no_phase_started,
)
from ..models import State
from ..protocol import agents_for
from ..text import plural
from . import rules as R
from ._util import awpath, position, ppath, q, raw_dict, workflow_records
from .framework import completed_ahead, index_past_unfinished, pointer_behind_started


def _both(key: str, row: PhaseLocations) -> str:
    return f"phases: {q(row.detail)}, phase_status: {q(row.summary)}"


def _status_finding(em: Emitter, row: PhaseLocations, column: str) -> None:
    """One disagreement between the detailed record and the summary map of one phase."""
    key = row.key
    if column == DETAIL and not row.has_record:
        em.add(
            R.SYNC_DETAIL_MISSING,
            ppath(key),
            f"phase_status says {q(key)} completed but phases[{key}] has no record: the "
            "framework writes it as it completes the phase, so a later write dropped it.",
            expected="a phases[k] record once the phase completed",
            actual="no record",
        )
    elif column == SUMMARY and row.summary is None:
        em.add(
            R.SYNC_SUMMARY_MISSING,
            awpath("phase_status", key),
            f"The workflow runs {q(key)} but active_workflow.phase_status has no entry for it "
            f"(phases[{key}].status is {q(row.detail)}).",
            expected=f"an entry equal to phases[{key}].status",
            actual="no entry",
        )
    else:
        em.add(
            R.SYNC_STATUS,
            ppath(key, "status"),
            f"The two status maps disagree on {q(key)}: phases[{key}].status says "
            f"{q(row.detail)}, active_workflow.phase_status[{key}] says {q(row.summary)} (the "
            "framework's V9-A compares the keys exactly and does not warn here).",
            expected="both maps equal",
            actual=_both(key, row),
            severity=R.I,
        )


def _pending_current(em: Emitter, row: PhaseLocations) -> None:
    pending = [
        name
        for name, value in (("phases[k]", row.detail), ("phase_status[k]", row.summary))
        if value == "pending"
    ]
    em.add(
        R.SYNC_PENDING_CURRENT,
        awpath("current_phase"),
        f"active_workflow.current_phase names {q(row.key)}, but {' and '.join(pending)} still "
        f"say pending ({_both(row.key, row)}): its start was written only in "
        "part, and hooks will block the phase agent.",
        expected=f"{row.key} activated (in_progress in both maps) or current_phase unchanged",
        actual=_both(row.key, row),
    )


def _agent_finding(em: Emitter, state: State, row: PhaseLocations) -> None:
    """A wrong agent is a warning once the phase is activated; before (no workflow, or the init
    window, where 3c-prime has not written active_agent yet) it is a leftover: info."""
    names = " or ".join(sorted(agents_for(row.key)))
    leftover = state.active_workflow is None or bool(init_window(state))
    em.add(
        R.SYNC_AGENT,
        "active_agent",
        f"active_agent is {q(row.agent)}, but the current phase {q(row.key)} is run by {names}"
        + (" (left from before: the phase has not been started yet)" if leftover else "")
        + ".",
        expected=names,
        actual=row.agent,
        severity=R.I if leftover else None,
    )


def check_locations(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Findings from exactly the disagreements the location matrix highlights. Where the
    framework's own V9 warns about one, :mod:`.mirror` has already raised it (as a warning,
    same rule and path: the emitter keeps the first); what is left is information."""
    current_rows: list[PhaseLocations] = []
    index_rows: list[PhaseLocations] = []
    rows = location_rows(state)
    for row in rows:
        if row.legal:
            em.add(
                R.SYNC_INIT_WINDOW,
                ppath(row.key, "status"),
                f"{_both(row.key, row)}: {row.legal}",
                expected="no action",
                actual=_both(row.key, row),
            )
        for column, text in row.disagree:
            if column == AGENT:
                _agent_finding(em, state, row)
            elif column != POINTERS:
                _status_finding(em, row, column)
            elif not text.startswith("only"):
                _pending_current(em, row)
            else:
                if state.current_phase is not None and row.aw_current != row.top_current:
                    current_rows.append(row)
                if row.aw_current != row.index_current:
                    index_rows.append(row)
    _pointer_findings(em, state, current_rows, index_rows)
    _off_the_phase_loop(em, state, raw)
    _not_recorded_yet(em, rows)


def _off_the_phase_loop(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """The pointer and the index where V9-C is silent but the framework's steps never leave
    them (docs/formats.md#phase-loop). Before any phase started, INIT-INDEX says it."""
    aw = raw_dict(raw, "active_workflow")
    key = None if no_phase_started(state) else index_past_unfinished(raw)
    if key is not None:
        index = aw.get("current_phase_index")
        em.add(
            R.LOOP_INDEX_PAST,
            awpath("current_phase_index"),
            f"current_phase_index {index} is one past {q(key)}, which no status map calls "
            "completed, and no redo runs: the next phase-advance skips it (or, past the last "
            "phase, answers WORKFLOW_COMPLETE).",
            expected=index - 1 if isinstance(index, int) else None,
            actual=index,
        )
    for ahead in completed_ahead(raw):
        em.add(
            R.LOOP_COMPLETED_AHEAD,
            awpath("phase_status", ahead),
            f"phase_status calls {q(ahead)} completed, but the workflow has not reached it "
            f"(current_phase {q(aw.get('current_phase'))}, current_phase_index "
            f"{q(aw.get('current_phase_index'))}).",
            expected="pending",
            actual="completed",
        )
    if (key := pointer_behind_started(raw)) is not None:
        em.add(
            R.LOOP_POINTER_BEHIND,
            awpath("current_phase"),
            f"{q(key)} at current_phase_index is in progress, but active_workflow.current_phase "
            f"is still {q(aw.get('current_phase'))}: the phase start was written only in part.",
            expected=key,
            actual=aw.get("current_phase"),
        )


def _not_recorded_yet(em: Emitter, rows: list[PhaseLocations]) -> None:
    """One finding for every phase the workflow runs that has no record yet and has not
    completed: the framework's own shape (workflow-init.cjs writes no record; each step
    creates a phase's when it first writes it; docs/formats.md#phase-records)."""
    waiting = [
        r.key
        for r in rows
        if r.position is not None and not r.has_record and r.summary != "completed"
    ]
    if not waiting:
        return
    verb = "has" if len(waiting) == 1 else "have"
    em.add(
        R.SYNC_DETAIL_MISSING,
        "phases",
        f"{plural(len(waiting), 'phase')} the workflow runs {verb} no phases[k] record yet "
        f"({', '.join(waiting)}): nothing to do; workflow-init.cjs writes none, and the "
        "framework creates a phase's record when a step first writes it.",
        expected="a record once a step writes the phase",
        actual=waiting,
    )


def _pointer_findings(
    em: Emitter, state: State, current_rows: list[PhaseLocations], index_rows: list[PhaseLocations]
) -> None:
    aw = state.active_workflow
    if aw is None:
        return
    if current_rows:
        em.add(
            R.SYNC_CURRENT,
            "current_phase",
            f"The top-level current_phase says {q(state.current_phase)} while "
            f"active_workflow.current_phase says {q(aw.current_phase)} (the framework's V9-B "
            "warns only when both are set and spelled differently, so it is silent here).",
            expected=f"equal to active_workflow.current_phase ({aw.current_phase})",
            actual=state.current_phase,
            severity=R.I,
        )
    if index_rows:
        idx = aw.current_phase_index
        idx_key = aw.phases[idx] if isinstance(idx, int) and 0 <= idx < len(aw.phases) else None
        pos = position(aw, aw.current_phase)
        em.add(
            R.SYNC_INDEX,
            awpath("current_phase_index"),
            f"current_phase_index {q(idx)} points at {q(idx_key)} while "
            f"active_workflow.current_phase names {q(aw.current_phase)} (position {q(pos)}); "
            "only the position itself or one past it (after a phase is completed) is consistent. The "
            "framework's V9-C does not warn here (it looks only at an index inside the list, "
            "and only until March 2026).",
            expected=f"{pos} or {pos + 1}" if isinstance(pos, int) else "a position in phases",
            actual=idx,
            severity=R.I,
        )


def check_activation(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """STEP 3c-prime's fields on records the orchestrator created (the init skeleton has a
    ``started`` key). Records the antigravity CLIs write (no ``started`` at all) are legal."""
    for key, rec in workflow_records(state):
        if rec.status not in ("in_progress", "completed"):
            continue
        if "started" not in raw_dict(raw, "phases", key):
            continue
        if rec.started is None:
            em.add(
                R.ACT_STARTED,
                ppath(key, "started"),
                f"phases[{key}] is {q(rec.status)} but phases[{key}].started is null "
                "(the orchestrator writes it when it starts the phase).",
                expected="ISO timestamp",
                actual=None,
            )
        if rec.timing is None or rec.timing.started_at is None:
            em.add(
                R.ACT_TIMING,
                ppath(key, "timing", "started_at"),
                f"phases[{key}] is {q(rec.status)} but timing.started_at is missing.",
                expected="ISO timestamp",
                actual=None,
            )
