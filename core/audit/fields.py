"""Field sanity (``FIELD-*``), "completed" without evidence (``EVID-*``) and phase keys
(``ALIAS-*``).

Checks take ``(em, state, raw)`` (see :mod:`core.audit.state`).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..checks import Emitter
from ..models import State
from ..protocol import (
    INSTALLER_PHASE_KEYS,
    PHASE_ALIASES,
    PHASE_STATUSES,
    WORKFLOW_TYPES,
    WORKFLOWS,
    canonical_phase,
    is_phase_key,
    phase_prefix,
)
from . import rules as R
from ._util import awpath, ppath, q, raw_dict, workflow_records

KNOWN_PHASE_KEYS = frozenset(
    {k for keys in WORKFLOWS.values() for k in keys}
    | set(PHASE_ALIASES)
    | set(PHASE_ALIASES.values())
)

ENUMS: dict[str, frozenset[str]] = {
    "budget_status": frozenset({"on_track", "approaching", "exceeded"}),
    "intensity": frozenset({"light", "standard", "epic"}),
    "recovery": frozenset({"retry", "rollback", "resumed_from_suspension"}),
    "constitutional": frozenset({"pending", "iterating", "compliant", "escalated"}),
    "test_result": frozenset({"PASSED", "FAILED", "INCONCLUSIVE"}),
}

SUMMARY_MAX = 150


_REQUIRED_AW = (
    "type",
    "phases",
    "current_phase",
    "current_phase_index",
    "phase_status",
    "started_at",
)


def check_version(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """state_version: present, a number (JavaScript's sense), at least 1."""
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
    elif isinstance(version, int) and version < 1:
        em.add(
            R.FIELD_VERSION,
            "state_version",
            f"state_version is {version}; writeState() starts at 1 and only counts up.",
            expected=">= 1",
            actual=version,
            severity=R.I,
        )


def check_statuses(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Every status in both maps is in the protocol's vocabulary."""
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
                f"phases[{key}].status is {q(rec.status)}; the protocol writes pending, "
                "in_progress or completed (the framework's validators accept any value here; "
                "its regression check ignores unknown ones).",
                expected=sorted(PHASE_STATUSES),
                actual=rec.status,
                severity=R.I,
            )
    # phase_status values outside the vocabulary: validate-state INVALID, raised by .mirror


def check_workflow_fields(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """The fields the phase loop reads exist; the type is known."""
    aw = state.active_workflow
    if aw is None:
        return
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


def check_summaries(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """STEP 3e's summary of each completed phase: present, at most 150 characters."""
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


def _enum(em: Emitter, path: str, value: Any, allowed: frozenset[str]) -> None:
    if isinstance(value, str) and value not in allowed:
        em.add(
            R.FIELD_ENUM,
            path,
            f"{path} is {q(value)}; documented values: {', '.join(sorted(allowed))}.",
            expected=sorted(allowed),
            actual=value,
        )


def check_enums(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Documented vocabularies of the smaller fields."""
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


def installer_skeleton(state: State, *, known: bool = False) -> set[str]:
    """The installer's skeleton records still in ``phases`` (pending, never started), when
    most of its own keys are there (a lone old key such as 02-architecture is noted on its
    own). ``known``: also its keys that are today's phase keys too (01-requirements)."""
    pending = {
        key
        for key, rec in state.phases.items()
        if key in INSTALLER_PHASE_KEYS and rec.status in (None, "pending") and rec.started is None
    }
    own = pending - KNOWN_PHASE_KEYS
    if 2 * len(own) <= len(INSTALLER_PHASE_KEYS - KNOWN_PHASE_KEYS):
        return set()
    return pending if known else own


def check_aliases(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    aw = state.active_workflow
    skeleton = installer_skeleton(state)
    if skeleton:
        em.add(
            R.ALIAS_UNKNOWN,
            "phases",
            f"phases holds {len(skeleton)} pending skeleton records under the installer's own "
            f"phase keys ({', '.join(sorted(skeleton))}): the framework's installer writes them "
            "when it sets the project up and no workflow runs them. workflow-init.cjs leaves "
            "them; the orchestrator's init (resetPhasesForWorkflow) or the completion enforcer "
            "clears them. Nothing to do (they are not listed as stale phases).",
            expected=None,
            actual=sorted(skeleton),
        )
    maps: list[tuple[str, list[str]]] = [("phases", [k for k in state.phases if k not in skeleton])]
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
