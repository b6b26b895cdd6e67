"""Snapshot rules: what one ``state.json`` says about itself (seed 003, FORMATS 1).

Every check takes ``(em, state, raw)``; ``state`` is the type-cleaned model and ``raw`` the cleaned
document (used only to tell "missing" from "wrong type", which ``parse_state`` already reports).
A correct run of the protocol (init, 3c-prime, 3e, review gate, redo, escalation, finalize)
produces no error findings at any step.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from itertools import pairwise
from typing import Any

from ..locations import (
    AGENT,
    DETAIL,
    POINTERS,
    SUMMARY,
    PhaseLocations,
    init_window,
    location_rows,
)
from ..models import PhaseRecord, State
from ..protocol import (
    ESCALATION_DEDUP_SECONDS,
    ESCALATION_TYPES,
    MAX_ESCALATIONS,
    MAX_REDOS,
    PHASE_ALIASES,
    PHASE_STATUSES,
    REVIEW_STATUSES,
    SUMMARY_STATUSES,
    WORKFLOW_TYPES,
    WORKFLOWS,
    agents_for,
    canonical_phase,
    is_phase_key,
    parse_iso,
    phase_prefix,
    review_selected,
)
from . import rules as R
from ._util import (
    Emitter,
    awpath,
    canon,
    phase_status_any,
    position,
    ppath,
    q,
    raw_dict,
    same_key,
)

KNOWN_PHASE_KEYS = frozenset(
    {k for keys in WORKFLOWS.values() for k in keys}
    | set(PHASE_ALIASES)
    | set(PHASE_ALIASES.values())
)
OPEN_REVIEW = frozenset({"gate_presented", "reviewing"})
HISTORY_STATUSES = frozenset({"completed", "cancelled"})
ENUMS: dict[str, frozenset[str]] = {
    "budget_status": frozenset({"on_track", "approaching", "exceeded"}),
    "intensity": frozenset({"light", "standard", "epic"}),
    "recovery": frozenset({"retry", "rollback", "resumed_from_suspension"}),
    "constitutional": frozenset({"pending", "iterating", "compliant", "escalated"}),
    "test_result": frozenset({"PASSED", "FAILED", "INCONCLUSIVE"}),
}
SUMMARY_MAX = 150


# ----------------------------------------------------------------------------- helpers


def workflow_records(state: State) -> list[tuple[str, PhaseRecord]]:
    """``(key, record)`` for phases the active workflow runs (alias-aware), in workflow order."""
    aw = state.active_workflow
    if aw is None:
        return []
    out = []
    for key in aw.phases:
        rec = state.phases.get(key)
        if rec is None:
            rec_key = next((k for k in state.phases if same_key(k, key)), None)
            if rec_key is not None:
                key, rec = rec_key, state.phases[rec_key]
        if rec is not None:
            out.append((key, rec))
    return out


# ----------------------------------------------------------------------------- SYNC


def _both(key: str, row: PhaseLocations) -> str:
    return (
        f"phases[{key}].status = {q(row.detail)}, "
        f"active_workflow.phase_status[{key}] = {q(row.summary)}"
    )


def _status_finding(em: Emitter, row: PhaseLocations, column: str) -> None:
    """One disagreement between the detailed record and the summary map of one phase."""
    key = row.key
    if column == DETAIL and not row.has_record:
        em.add(
            R.SYNC_DETAIL_MISSING,
            ppath(key),
            f"The workflow runs {q(key)} but phases[{key}] has no record yet (phase_status says "
            f"{q(row.summary)}); the framework creates it when a step first writes the phase.",
            expected="a phases[k] record once the phase is activated",
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
            f"{q(row.detail)}, active_workflow.phase_status[{key}] says {q(row.summary)}.",
            expected=f"phases[{key}].status and active_workflow.phase_status[{key}] equal",
            actual=_both(key, row),
        )


def _pending_current(em: Emitter, row: PhaseLocations) -> None:
    em.add(
        R.SYNC_PENDING_CURRENT,
        awpath("current_phase"),
        f"active_workflow.current_phase names {q(row.key)}, but that phase is still pending "
        f"({_both(row.key, row)}): its activation (STEP 3c-prime) was written only in part, and "
        "hooks will block the phase agent.",
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
        + (" (left from before: STEP 3c-prime has not run yet)" if leftover else "")
        + ".",
        expected=names,
        actual=row.agent,
        severity=R.I if leftover else None,
    )


def check_locations(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Findings from exactly the disagreements the location matrix highlights."""
    current_rows: list[PhaseLocations] = []
    index_rows: list[PhaseLocations] = []
    for row in location_rows(state):
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
            f"active_workflow.current_phase says {q(aw.current_phase)}; hooks that read the "
            "top-level copy act on the wrong phase.",
            expected=f"equal to active_workflow.current_phase ({aw.current_phase})",
            actual=state.current_phase,
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
            "only the position itself or one past it (after STEP 3e) is legal.",
            expected=f"{pos} or {pos + 1}" if isinstance(pos, int) else "a position in phases",
            actual=idx,
        )


# ----------------------------------------------------------------------------- ACT


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
                "(3c-prime writes it before delegating).",
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


# ----------------------------------------------------------------------------- INIT


def check_init(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    aw = state.active_workflow
    if aw is None or not aw.phases:
        return
    _check_definition(em, state)
    records = [state.phases.get(k) for k in aw.phases]
    fresh = all(
        rec is None or (rec.status in (None, "pending") and rec.started is None) for rec in records
    ) and not any(v in ("completed", "skipped") for v in aw.phase_status.values())
    if not fresh:
        return
    first = aw.phases[0]
    idx = aw.current_phase_index
    if isinstance(idx, int) and idx != 0:
        em.add(
            R.INIT_INDEX,
            awpath("current_phase_index"),
            f"No phase has started yet but current_phase_index is {idx} (init sets 0).",
            expected=0,
            actual=idx,
        )
    if aw.current_phase is not None and not same_key(aw.current_phase, first):
        em.add(
            R.INIT_CURRENT,
            awpath("current_phase"),
            f"No phase has started yet but active_workflow.current_phase is "
            f"{q(aw.current_phase)}, not the first phase {q(first)}.",
            expected=first,
            actual=aw.current_phase,
        )
    for i, key in enumerate(aw.phases):
        value = aw.phase_status.get(key)
        if value is None:
            continue  # SYNC-SUMMARY-MISSING
        # phase 0: in_progress (full init) or pending (init-only mode)
        want = ("in_progress", "pending") if i == 0 else ("pending", "skipped")
        if value not in want:
            em.add(
                R.INIT_STATUS,
                awpath("phase_status", key),
                f"No phase has started yet, but phase_status[{key}] is {q(value)}; init writes "
                f"{' or '.join(want)}.",
                expected=" or ".join(want),
                actual=value,
            )
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


# ----------------------------------------------------------------------------- BOUNDS / FINAL


def check_bounds(em: Emitter, state: State, raw: dict[str, Any]) -> None:
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
    if isinstance(idx, int):
        if idx < 0 or idx > n:
            em.add(
                R.BOUNDS_INDEX,
                awpath("current_phase_index"),
                f"current_phase_index is {idx} but the workflow has {n} phases (0..{n}).",
                expected=f"0..{n}",
                actual=idx,
            )
        elif idx == n:
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
                    f"All {n} phases are completed (index {idx} = len(phases)): finalize is "
                    "pending.",
                    expected=n,
                    actual=idx,
                )
    # idx == n - 1 with the last phase completed is what workflow-finalize.cjs accepts
    if isinstance(idx, int) and 0 <= idx < n - 1 and same_key(aw.current_phase, aw.phases[idx]):
        key = aw.phases[idx]
        rec = state.phases.get(key)
        status = rec.status if rec is not None and rec.status else aw.phase_status.get(key)
        if status == "completed":
            em.add(
                R.BOUNDS_INDEX_BEHIND,
                awpath("current_phase_index"),
                f"{q(key)} is completed but current_phase_index is still {idx} (its own "
                f"position); STEP 3e sets it to {idx + 1}.",
                expected=idx + 1,
                actual=idx,
            )
    if aw.current_phase is not None and position(aw, aw.current_phase) is None:
        em.add(
            R.BOUNDS_CURRENT,
            awpath("current_phase"),
            f"active_workflow.current_phase {q(aw.current_phase)} is not one of the workflow's "
            f"phases {q(aw.phases, 120)}.",
            expected=list(aw.phases),
            actual=aw.current_phase,
        )
    for key in state.phases:
        if position(aw, key) is None:
            em.add(
                R.BOUNDS_STALE_PHASE,
                ppath(key),
                f"phases[{key}] exists but the {q(aw.type)} workflow does not run {q(key)} "
                "(stale entry from an earlier workflow?).",
                expected=list(aw.phases),
                actual=key,
            )
    for key in aw.phase_status:
        if position(aw, key) is None:
            em.add(
                R.BOUNDS_STALE_PHASE,
                awpath("phase_status", key),
                f"phase_status[{key}] exists but the workflow does not run {q(key)}.",
                expected=list(aw.phases),
                actual=key,
            )


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
        missing = []
        if not h.phases:
            missing.append("phases")
        if not h.started_at:
            missing.append("started_at")
        if h.status != "cancelled":
            if h.phase_snapshots is None:
                missing.append("phase_snapshots")
            if h.metrics is None:
                missing.append("metrics")
            if not h.completed_at:
                missing.append("completed_at")
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


# ----------------------------------------------------------------------------- FIELD


_REQUIRED_AW = (
    "type",
    "phases",
    "current_phase",
    "current_phase_index",
    "phase_status",
    "started_at",
)


def check_fields(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    version = state.state_version
    if version is None and raw.get("state_version") is None:
        em.add(
            R.FIELD_VERSION,
            "state_version",
            "state_version is missing: writes to this file are not protected against stale "
            "snapshots (legacy file; the next writeState() adds it).",
            expected=">= 1",
            actual=None,
            severity=R.I,
        )
    elif not isinstance(raw.get("state_version"), int | float) or isinstance(
        raw.get("state_version"), bool
    ):
        em.add(
            R.FIELD_VERSION,
            "state_version",
            f"state_version is {q(raw.get('state_version'))}, not a number: validate-state.cjs "
            "rejects the file and the next writeState() restarts the counter at 1, so stale "
            "writes are no longer caught.",
            expected="an integer >= 1",
            actual=raw.get("state_version"),
            severity=R.E,
        )
    elif isinstance(version, int) and version < 1:
        em.add(
            R.FIELD_VERSION,
            "state_version",
            f"state_version is {version}; writeState() starts at 1 and only counts up.",
            expected=">= 1",
            actual=version,
        )

    raw_phases = raw_dict(raw, "phases")
    for key, rec in state.phases.items():
        if rec.status is None:
            if raw_dict(raw_phases, key).get("status") is None:
                em.add(
                    R.FIELD_STATUS,
                    ppath(key, "status"),
                    f"phases[{key}] has no status yet (a step wrote other fields of the phase "
                    "first; the status follows when the phase is activated or completed).",
                    expected=sorted(PHASE_STATUSES),
                    actual=None,
                    severity=R.I,
                )
        elif rec.status not in PHASE_STATUSES:
            em.add(
                R.FIELD_STATUS,
                ppath(key, "status"),
                f"phases[{key}].status is {q(rec.status)}; allowed: pending, in_progress, "
                "completed.",
                expected=sorted(PHASE_STATUSES),
                actual=rec.status,
            )
    aw = state.active_workflow
    if aw is None:
        return
    for key, value in aw.phase_status.items():
        if value not in SUMMARY_STATUSES:
            em.add(
                R.FIELD_STATUS,
                awpath("phase_status", key),
                f"phase_status[{key}] is {q(value)}; allowed: pending, in_progress, completed, "
                "skipped.",
                expected=sorted(SUMMARY_STATUSES),
                actual=value,
            )
    if aw.type is not None and aw.type not in WORKFLOW_TYPES:
        em.add(
            R.FIELD_WORKFLOW_TYPE,
            awpath("type"),
            f"active_workflow.type {q(aw.type)} is not a known workflow type; its phase order "
            "cannot be checked.",
            expected=sorted(WORKFLOW_TYPES),
            actual=aw.type,
        )
    raw_aw = raw_dict(raw, "active_workflow")
    for name in _REQUIRED_AW:
        if raw_aw.get(name) is None:
            em.add(
                R.FIELD_REQUIRED,
                awpath(name),
                f"active_workflow.{name} is missing or null.",
                expected="present",
                actual=None,
            )
    for key, rec in workflow_records(state):
        if rec.status != "completed":
            continue
        if not rec.summary:
            em.add(
                R.FIELD_SUMMARY,
                ppath(key, "summary"),
                f"phases[{key}] is completed but has no summary.",
                expected="1..150 characters",
                actual=rec.summary,
            )
        elif len(rec.summary) > SUMMARY_MAX:
            em.add(
                R.FIELD_SUMMARY,
                ppath(key, "summary"),
                f"phases[{key}].summary is {len(rec.summary)} characters (max {SUMMARY_MAX}).",
                expected=f"<= {SUMMARY_MAX} characters",
                actual=len(rec.summary),
            )
    _check_enums(em, state)


def _enum(em: Emitter, path: str, value: Any, allowed: frozenset[str]) -> None:
    if isinstance(value, str) and value not in allowed:
        em.add(
            R.FIELD_ENUM,
            path,
            f"{path} is {q(value)}; documented values: {', '.join(sorted(allowed))}.",
            expected=sorted(allowed),
            actual=value,
        )


def _check_enums(em: Emitter, state: State) -> None:
    aw = state.active_workflow
    if aw is not None:
        _enum(em, awpath("budget_status"), aw.budget_status, ENUMS["budget_status"])
        _enum(em, awpath("sizing", "intensity"), aw.sizing.get("intensity"), ENUMS["intensity"])
        if aw.recovery_action is not None:
            _enum(em, awpath("recovery_action", "type"), aw.recovery_action.type, ENUMS["recovery"])
    for key, rec in state.phases.items():
        cv = rec.constitutional_validation
        if cv is not None:
            _enum(
                em,
                ppath(key, "constitutional_validation", "status"),
                cv.status,
                ENUMS["constitutional"],
            )
        ti = rec.iteration_requirements.test_iteration if rec.iteration_requirements else None
        if ti is not None:
            for j, entry in enumerate(ti.history):
                _enum(
                    em,
                    ppath(
                        key, "iteration_requirements", "test_iteration", f"history[{j}]", "result"
                    ),
                    entry.result,
                    ENUMS["test_result"],
                )


# ----------------------------------------------------------------------------- EVID


def _claimed(block: Any) -> bool:
    """``completed: true`` on a requirement that is not explicitly optional."""
    return block is not None and block.completed is True and block.required is not False


def check_evidence(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    for key, rec in state.phases.items():
        cv = rec.constitutional_validation
        if _claimed(cv) and cv.iterations_used == 0:
            em.add(
                R.EVID_CONST_ZERO,
                ppath(key, "constitutional_validation", "iterations_used"),
                f"phases[{key}].constitutional_validation says completed: true with "
                "iterations_used 0.",
                expected=">= 1",
                actual=0,
            )
        ir = rec.iteration_requirements
        if ir is None:
            continue
        ti = ir.test_iteration
        if _claimed(ti) and ti.current_iteration == 0:
            em.add(
                R.EVID_TEST_ZERO,
                ppath(key, "iteration_requirements", "test_iteration", "current_iteration"),
                f"phases[{key}].test_iteration says completed: true with current_iteration 0.",
                expected=">= 1",
                actual=0,
            )
        ie = ir.interactive_elicitation
        if _claimed(ie) and ie.menu_interactions == 0:
            em.add(
                R.EVID_ELICIT_ZERO,
                ppath(
                    key,
                    "iteration_requirements",
                    "interactive_elicitation",
                    "menu_interactions",
                ),
                f"phases[{key}].interactive_elicitation says completed: true with "
                "menu_interactions 0.",
                expected=">= 1",
                actual=0,
            )


# ----------------------------------------------------------------------------- ESC


def check_escalations(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    escs = state.pending_escalations
    if not escs:
        return
    aw = state.active_workflow
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
    groups: dict[tuple[Any, Any, Any], list[tuple[datetime, int]]] = defaultdict(list)
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
                expected=list(aw.phases),
                actual=e.phase,
            )
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


# ----------------------------------------------------------------------------- REV


def check_review(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    aw = state.active_workflow
    rv = aw.supervised_review if aw is not None else None
    if aw is None or rv is None:
        return
    base = awpath("supervised_review")
    mode = raw.get("supervised_mode")
    enabled = isinstance(mode, dict) and mode.get("enabled") is True
    if not enabled:
        em.add(
            R.REV_MODE_OFF,
            base,
            f"A review of {q(rv.phase)} is recorded ({q(rv.status)}) but supervised_mode is not "
            f"enabled (enabled={q(mode.get('enabled') if isinstance(mode, dict) else mode)}).",
            expected=True,
            actual=mode.get("enabled") if isinstance(mode, dict) else None,
        )
    if rv.status not in REVIEW_STATUSES:
        em.add(
            R.REV_STATUS,
            f"{base}.status",
            f"supervised_review.status is {q(rv.status)}; known: "
            f"{', '.join(sorted(REVIEW_STATUSES))}.",
            expected=sorted(REVIEW_STATUSES),
            actual=rv.status,
        )
    if isinstance(rv.redo_count, int) and rv.redo_count > MAX_REDOS:
        em.add(
            R.REV_REDO_LIMIT,
            f"{base}.redo_count",
            f"redo_count is {rv.redo_count}; redo is offered only while redo_count < "
            f"{MAX_REDOS}, so it can reach at most {MAX_REDOS}.",
            expected=f"<= {MAX_REDOS}",
            actual=rv.redo_count,
        )
    if rv.phase is None or position(aw, rv.phase) is None:
        em.add(
            R.REV_PHASE,
            f"{base}.phase",
            f"supervised_review.phase is {q(rv.phase)}, not a phase of the workflow.",
            expected=list(aw.phases),
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
            f"{q(status)}; the gate is presented only after STEP 3e completes it.",
            expected=list(allowed),
            actual=status,
        )
    if enabled and not review_selected(mode, rv.phase):
        em.add(
            R.REV_NOT_SELECTED,
            f"{base}.phase",
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


# ----------------------------------------------------------------------------- TIME


def _stamp(em: Emitter, path: str, value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    when = parse_iso(value)
    if when is None:
        em.add(
            R.TIME_UNPARSEABLE,
            path,
            f"{path} is {q(value)}, not an ISO-8601 timestamp.",
            expected="ISO-8601",
            actual=value,
        )
    return when


def _order(em: Emitter, start_path: str, start: Any, end_path: str, end: Any) -> None:
    if start is None or end is None:
        return
    try:
        backwards = end < start
    except TypeError:  # pragma: no cover - parse_iso always returns aware datetimes
        return
    if backwards:
        em.add(
            R.TIME_ORDER,
            end_path,
            f"{end_path} ({end.isoformat()}) is earlier than {start_path} ({start.isoformat()}).",
            expected=f">= {start.isoformat()}",
            actual=end.isoformat(),
        )


def check_times(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    in_workflow = {k for k, _ in workflow_records(state)}
    for key, rec in state.phases.items():
        started = _stamp(em, ppath(key, "started"), rec.started)
        completed = _stamp(em, ppath(key, "completed"), rec.completed)
        completed_at = _stamp(em, ppath(key, "completed_at"), rec.completed_at)
        _order(em, ppath(key, "started"), started, ppath(key, "completed"), completed)
        _order(em, ppath(key, "started"), started, ppath(key, "completed_at"), completed_at)
        _stamp(em, ppath(key, "gate_passed"), rec.gate_passed)
        t = rec.timing
        if t is not None:
            t0 = _stamp(em, ppath(key, "timing", "started_at"), t.started_at)
            t1 = _stamp(em, ppath(key, "timing", "completed_at"), t.completed_at)
            _order(
                em, ppath(key, "timing", "started_at"), t0, ppath(key, "timing", "completed_at"), t1
            )
            if isinstance(t.wall_clock_minutes, int | float) and t.wall_clock_minutes < 0:
                em.add(
                    R.TIME_NEGATIVE,
                    ppath(key, "timing", "wall_clock_minutes"),
                    f"phases[{key}].timing.wall_clock_minutes is {t.wall_clock_minutes}.",
                    expected=">= 0",
                    actual=t.wall_clock_minutes,
                )
        if rec.gate_validation is not None:
            _stamp(em, ppath(key, "gate_validation", "blocked_at"), rec.gate_validation.blocked_at)
        ir = rec.iteration_requirements
        if ir is not None and ir.test_iteration is not None:
            for j, entry in enumerate(ir.test_iteration.history):
                _stamp(
                    em,
                    ppath(
                        key,
                        "iteration_requirements",
                        "test_iteration",
                        f"history[{j}]",
                        "timestamp",
                    ),
                    entry.timestamp,
                )
        if (
            key in in_workflow
            and rec.status == "completed"
            and rec.completed_time is None
            and (t is None or not t.completed_at)
        ):
            em.add(
                R.TIME_COMPLETED_MISSING,
                ppath(key, "timing", "completed_at"),
                f"phases[{key}] is completed but has no completion time (timing.completed_at, "
                "completed).",
                expected="ISO timestamp",
                actual=None,
            )
    aw = state.active_workflow
    if aw is not None:
        _stamp(em, awpath("started_at"), aw.started_at)
        if aw.recovery_action is not None:
            _stamp(em, awpath("recovery_action", "timestamp"), aw.recovery_action.timestamp)
        rv = aw.supervised_review
        if rv is not None:
            p = _stamp(em, awpath("supervised_review", "paused_at"), rv.paused_at)
            r = _stamp(em, awpath("supervised_review", "resumed_at"), rv.resumed_at)
            _order(
                em,
                awpath("supervised_review", "paused_at"),
                p,
                awpath("supervised_review", "resumed_at"),
                r,
            )
        for j, entry in enumerate(aw.review_history):
            _stamp(em, awpath(f"review_history[{j}]", "timestamp"), entry.timestamp)
    for j, e in enumerate(state.pending_escalations):
        _stamp(em, f"pending_escalations[{j}].timestamp", e.timestamp)
    for j, h in enumerate(state.workflow_history):
        path = f"workflow_history[{j}]"
        s = _stamp(em, f"{path}.started_at", h.started_at)
        c = _stamp(em, f"{path}.completed_at", h.completed_at)
        x = _stamp(em, f"{path}.cancelled_at", h.cancelled_at)
        _order(em, f"{path}.started_at", s, f"{path}.completed_at", c)
        _order(em, f"{path}.started_at", s, f"{path}.cancelled_at", x)
    if state.project is not None:
        _stamp(em, "project.created", state.project.created)


# ----------------------------------------------------------------------------- ALIAS


def _unknown_key(em: Emitter, path: str, key: str) -> None:
    if key in KNOWN_PHASE_KEYS:
        return
    if is_phase_key(key):
        siblings = sorted(k for k in KNOWN_PHASE_KEYS if phase_prefix(k) == phase_prefix(key))
        em.add(
            R.ALIAS_UNKNOWN,
            path,
            f"{q(key)} is not a phase key of any known workflow"
            + (f" (known {phase_prefix(key)}-keys: {', '.join(siblings)})" if siblings else "")
            + ".",
            expected=siblings or None,
            actual=key,
        )
    else:
        em.add(
            R.ALIAS_UNKNOWN,
            path,
            f"{q(key)} does not look like a phase key (NN-name).",
            expected="NN-name",
            actual=key,
            severity=R.W,
        )


def _legacy(em: Emitter, path: str, key: str) -> None:
    if key in PHASE_ALIASES:
        em.add(
            R.ALIAS_LEGACY,
            path,
            f"{q(key)} is a legacy phase key; the canonical key is {q(PHASE_ALIASES[key])}.",
            expected=PHASE_ALIASES[key],
            actual=key,
        )


def check_aliases(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    aw = state.active_workflow
    maps: list[tuple[str, list[str]]] = [("phases", list(state.phases))]
    if aw is not None:
        maps.append(("active_workflow.phase_status", list(aw.phase_status)))
    for base, keys in maps:
        by_canon: dict[str, list[str]] = defaultdict(list)
        for key in keys:
            _legacy(em, f"{base}.{key}", key)
            _unknown_key(em, f"{base}.{key}", key)
            by_canon[canonical_phase(key)].append(key)
        for ck, group in by_canon.items():
            if len(group) > 1:
                em.add(
                    R.ALIAS_DUPLICATE,
                    f"{base}.{ck}",
                    f"{base} holds both {', '.join(q(k) for k in group)} for the same phase "
                    f"{q(ck)}; readers may pick either.",
                    expected=ck,
                    actual=group,
                )
    if aw is not None:
        for i, key in enumerate(aw.phases):
            _legacy(em, awpath(f"phases[{i}]"), key)
            _unknown_key(em, awpath(f"phases[{i}]"), key)
        if aw.current_phase is not None:
            _legacy(em, awpath("current_phase"), aw.current_phase)
    if state.current_phase is not None:
        _legacy(em, "current_phase", state.current_phase)


SNAPSHOT_CHECKS = (
    check_locations,
    check_activation,
    check_init,
    check_bounds,
    check_history,
    check_fields,
    check_evidence,
    check_escalations,
    check_review,
    check_times,
    check_aliases,
)
