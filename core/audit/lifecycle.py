"""A workflow's life: initialisation (``INIT-*``), the index and phase keys within it
(``BOUNDS-*``) and its end in ``workflow_history`` (``FINAL-*``).

Checks take ``(em, state, raw)`` (see :mod:`core.audit.state`).
"""

from __future__ import annotations

from typing import Any

from ..checks import Emitter
from ..locations import no_phase_started
from ..models import HistoryEntry, State
from ..protocol import WORKFLOWS, canonical_phase
from . import rules as R
from ._util import awpath, phase_status_any, position, ppath, q, raw_dict, same_key
from .fields import installer_skeleton

HISTORY_STATUSES = frozenset({"completed", "cancelled"})


def check_init(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    aw = state.active_workflow
    if aw is None or not aw.phases:
        return
    _check_definition(em, state)
    if not no_phase_started(state):
        return
    # workflow-init.cjs starts at the first phase a process.json did not skip (its index)
    start = next((i for i, k in enumerate(aw.phases) if aw.phase_status.get(k) != "skipped"), 0)
    first = aw.phases[start]
    idx = aw.current_phase_index
    if isinstance(idx, int) and idx != start:
        em.add(
            R.INIT_INDEX,
            awpath("current_phase_index"),
            f"No phase has started yet but current_phase_index is {idx} (init sets {start}, "
            f"the position of the first phase it runs, {q(first)}).",
            expected=start,
            actual=idx,
        )
    if aw.current_phase is not None and not same_key(aw.current_phase, first):
        em.add(
            R.INIT_CURRENT,
            awpath("current_phase"),
            f"No phase has started yet but active_workflow.current_phase is "
            f"{q(aw.current_phase)}, not the first phase init runs, {q(first)}.",
            expected=first,
            actual=aw.current_phase,
        )
    for i, key in enumerate(aw.phases):
        value = aw.phase_status.get(key)
        if value is None:
            continue  # SYNC-SUMMARY-MISSING
        # the first phase run: in_progress (workflow-init.cjs, full init) or pending (init-only)
        want = ("in_progress", "pending") if i == start else ("pending", "skipped")
        if value not in want:
            em.add(
                R.INIT_STATUS,
                awpath("phase_status", key),
                f"No phase has started yet, but phase_status[{key}] is {q(value)}; init writes "
                f"{' or '.join(want)}.",
                expected=" or ".join(want),
                actual=value,
            )


def check_init_skeleton(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Right after init, phases[k] are skeletons (resetPhasesForWorkflow)."""
    aw = state.active_workflow
    if aw is None or not aw.phases or not no_phase_started(state):
        return
    for key in aw.phases:
        rec = state.phases.get(key)
        if rec is None:
            continue
        leftovers = [
            name
            for name, present in (
                ("completed", rec.completed_time is not None),
                ("gate_passed", rec.gate_passed not in (None, False)),
                ("artifacts", bool(rec.artifacts)),
                ("summary", bool(rec.summary)),
                ("timing.completed_at", rec.timing is not None and rec.timing.completed_at),
            )
            if present
        ]
        if leftovers:
            em.add(
                R.INIT_SKELETON,
                ppath(key),
                f"phases[{key}] was not reset at init: {', '.join(leftovers)} still set from an "
                "earlier run.",
                expected="skeleton",
                actual=leftovers,
            )


def _check_definition(em: Emitter, state: State) -> None:
    aw = state.active_workflow
    if aw is None or aw.type not in WORKFLOWS:
        return
    definition = [canonical_phase(k) for k in WORKFLOWS[aw.type]]
    pos = -1
    ok = True
    for key in aw.phases:
        ck = canonical_phase(key)
        if ck not in definition or definition.index(ck) <= pos:
            ok = False
            break
        pos = definition.index(ck)
    if not ok:
        em.add(
            R.INIT_PHASES,
            awpath("phases"),
            f"active_workflow.phases {q(aw.phases, 120)} is not an ordered subset of the "
            f"{q(aw.type)} definition {q(definition, 120)}.",
            expected=definition,
            actual=list(aw.phases),
        )


def check_bounds(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """The phase list is non-empty and unique, the index within ``0..len``."""
    aw = state.active_workflow
    if aw is None:
        return
    n = len(aw.phases)
    if n == 0:
        if isinstance(raw_dict(raw, "active_workflow").get("phases"), list):
            em.add(
                R.BOUNDS_EMPTY,
                awpath("phases"),
                "active_workflow.phases is empty: the workflow has nothing to run.",
                expected="non-empty list",
                actual=[],
            )
        return
    seen: dict[str, int] = {}
    for i, key in enumerate(aw.phases):
        ck = canonical_phase(key)
        if ck in seen:
            em.add(
                R.BOUNDS_DUPLICATE,
                awpath(f"phases[{i}]"),
                f"{q(key)} at position {i} repeats position {seen[ck]} ({q(aw.phases[seen[ck]])}).",
                expected="unique phase keys",
                actual=key,
            )
        else:
            seen[ck] = i
    idx = aw.current_phase_index
    if isinstance(idx, int) and (idx < 0 or idx > n):
        em.add(
            R.BOUNDS_INDEX,
            awpath("current_phase_index"),
            f"current_phase_index is {idx} but the workflow has {n} phases (0..{n}).",
            expected=f"0..{n}",
            actual=idx,
        )


def check_final(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Index == len(phases): every phase must be done (finalize pending), else it ran past one."""
    aw = state.active_workflow
    if aw is None or not aw.phases or aw.current_phase_index != len(aw.phases):
        return
    n = idx = len(aw.phases)
    rv = aw.supervised_review
    unfinished = [
        k
        for k in aw.phases
        if phase_status_any(state, k) not in ("completed", "skipped")
        and not (  # a supervised redo of the last phase re-runs it at index == len
            rv is not None
            and same_key(rv.phase, k)
            and (rv.status == "redo_pending" or (rv.redo_count or 0) > 0)
            and phase_status_any(state, k) == "in_progress"
        )
    ]
    if unfinished:
        em.add(
            R.FINAL_INCOMPLETE,
            awpath("current_phase_index"),
            f"current_phase_index is {idx} (= len(phases)) but "
            f"{', '.join(unfinished)} {'is' if len(unfinished) == 1 else 'are'} not "
            "completed.",
            expected="all phases completed",
            actual=", ".join(f"{k}: {phase_status_any(state, k)}" for k in unfinished),
        )
    else:
        em.add(
            R.FINAL_PENDING,
            awpath("current_phase_index"),
            f"All {n} phases are completed (index {idx} = len(phases)): finalize is pending.",
            expected=n,
            actual=idx,
        )


def check_index_behind(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """current_phase completed while the index still points at it and a later phase remains
    (idx == n - 1 with the last phase completed is what workflow-finalize.cjs accepts)."""
    aw = state.active_workflow
    idx = aw.current_phase_index if aw is not None else None
    if aw is None or not isinstance(idx, int) or not 0 <= idx < len(aw.phases) - 1:
        return
    if not same_key(aw.current_phase, aw.phases[idx]):
        return
    key = aw.phases[idx]
    rec = state.phases.get(key)
    status = rec.status if rec is not None and rec.status else aw.phase_status.get(key)
    if status == "completed":
        em.add(
            R.BOUNDS_INDEX_BEHIND,
            awpath("current_phase_index"),
            f"{q(key)} is completed but current_phase_index is still {idx} (its own "
            f"position); completing the phase sets it to {idx + 1}.",
            expected=idx + 1,
            actual=idx,
        )


def check_stale_keys(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """current_phase and every phases / phase_status key belong to the workflow."""
    aw = state.active_workflow
    if aw is None or not aw.phases:
        return
    # current_phase not in phases: validate-state INVALID, raised by .mirror
    # the installer's untouched skeleton: one ALIAS-UNKNOWN info says so ("nothing to do")
    skeleton = installer_skeleton(state, known=True)
    for key in state.phases:
        if position(aw, key) is None and key not in skeleton:
            em.add(
                R.BOUNDS_STALE_PHASE,
                ppath(key),
                f"phases[{key}] exists but the {q(aw.type)} workflow does not run {q(key)} "
                "(stale entry from an earlier workflow?).",
                expected=aw.phases,
                actual=key,
            )
    for key in aw.phase_status:
        if position(aw, key) is None:
            em.add(
                R.BOUNDS_STALE_PHASE,
                awpath("phase_status", key),
                f"phase_status[{key}] exists but the workflow does not run {q(key)}.",
                expected=aw.phases,
                actual=key,
            )


def _history_missing(h: HistoryEntry) -> list[str]:
    """The fields finalize writes that the entry lacks."""
    wanted: list[tuple[str, object]] = [("phases", h.phases), ("started_at", h.started_at)]
    if h.status != "cancelled":
        wanted += [
            ("phase_snapshots", h.phase_snapshots is not None),
            ("metrics", h.metrics is not None),
            ("completed_at", h.completed_at),
        ]
    return [name for name, present in wanted if not present]


def check_history(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    history = state.workflow_history
    for i, h in enumerate(history):
        path = f"workflow_history[{i}]"
        newest = i == len(history) - 1
        sev = None if newest else R.I
        name = h.artifact_folder or h.slug or h.type or f"entry {i}"
        if h.status not in HISTORY_STATUSES:
            em.add(
                R.FINAL_STATUS,
                f"{path}.status",
                f"workflow_history entry {q(name)} has status {q(h.status)} "
                "(expected completed or cancelled).",
                expected=sorted(HISTORY_STATUSES),
                actual=h.status,
            )
        missing = _history_missing(h)
        if missing:
            if set(missing) <= {"phase_snapshots", "metrics"}:
                sev = R.I  # finalize leaves them to the completion enforcer
            em.add(
                R.FINAL_HISTORY,
                path,
                f"workflow_history entry {q(name)} lacks {', '.join(missing)}.",
                expected=["phases", "phase_snapshots", "metrics", "started_at", "completed_at"],
                actual="missing: " + ", ".join(missing),
                severity=sev,
            )
        if h.status == "cancelled":
            lacking = [f for f in ("cancelled_at", "cancellation_reason") if not getattr(h, f)]
            if lacking:
                em.add(
                    R.FINAL_CANCELLED,
                    path,
                    f"cancelled workflow {q(name)} lacks {', '.join(lacking)}.",
                    expected=["cancelled_at", "cancellation_reason"],
                    actual="missing: " + ", ".join(lacking),
                    severity=sev,
                )
        snapshots = h.phase_snapshots
        if (
            h.status == "completed"
            and snapshots is not None
            and h.phases
            and len(snapshots) != len(h.phases)
        ):
            em.add(
                R.FINAL_SNAPSHOTS,
                f"{path}.phase_snapshots",
                f"workflow {q(name)} ran {len(h.phases)} phases but has "
                f"{len(snapshots)} phase_snapshots.",
                expected=len(h.phases),
                actual=len(snapshots),
            )
