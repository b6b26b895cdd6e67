"""Findings from the framework's own checks (:mod:`.framework`): the only iSDLC state findings
that are warnings or errors (docs/severity.md).

The decisions are taken on ``exact``, the document as the framework reads it; the values a
message shows come from ``raw``, the cleaned copy (the two differ only where a string held
control, bidirectional or invisible characters).
"""

from __future__ import annotations

from typing import Any

from ..checks import Emitter
from ..locations import init_window
from ..models import State
from . import framework as F
from . import rules as R
from ._util import q

_V9C_NOTE = (
    "The framework's V9-C (state-write-validator.cjs until March 2026) warns about it; "
    "the orchestrator's next phase start reads the index."
)


def _at(doc: Any, path: str) -> Any:
    node = doc
    for part in path.split("."):
        node = F.prop(node, part) if F.is_object(node) else None
    return node


def _invisible(exact: Any, raw: Any, path: str) -> str:
    """A note when the value at ``path`` holds characters phasewatch does not show."""
    return (
        " (the value holds invisible or control characters that are not shown here)"
        if _at(exact, path) != _at(raw, path)
        else ""
    )


def check_framework(em: Emitter, exact: dict[str, Any], raw: dict[str, Any], state: State) -> None:
    """V9-A/B/C and V1-V3 (warnings), validate-state.cjs's INVALID shapes (errors)."""
    window = init_window(state)
    for key in F.v9a(exact):
        detail, summary = f"phases.{key}.status", f"active_workflow.phase_status.{key}"
        em.add(
            R.SYNC_STATUS,
            detail,
            f"The two status maps disagree on {q(key)}: phases[{key}].status says "
            f"{q(_at(raw, detail))}, active_workflow.phase_status[{key}] says "
            f"{q(_at(raw, summary))}{_invisible(exact, raw, detail)}. The framework's V9-A "
            "warns about it; its hooks act on phases[k]."
            + (f" Here it is the {window.removeprefix('legal ')}" if window else ""),
            expected="both maps equal",
            actual=f"phases: {q(_at(raw, detail))}, phase_status: {q(_at(raw, summary))}",
        )
    if F.v9b(exact):
        em.add(
            R.SYNC_CURRENT,
            "current_phase",
            f"The top-level current_phase says {q(raw.get('current_phase'))} while "
            f"active_workflow.current_phase says {q(_at(raw, 'active_workflow.current_phase'))}"
            f"{_invisible(exact, raw, 'current_phase')}: hooks that read the top-level copy act "
            "on the wrong phase (the framework's V9-B warns).",
            expected=_at(raw, "active_workflow.current_phase"),
            actual=raw.get("current_phase"),
        )
    if F.v9c(exact):
        index = _at(raw, "active_workflow.current_phase_index")
        phases = _at(raw, "active_workflow.phases")
        at = phases[int(index)] if isinstance(phases, list) and F.is_number(index) else None
        em.add(
            R.SYNC_INDEX,
            "active_workflow.current_phase_index",
            f"current_phase_index {q(index)} points at {q(at)} while active_workflow."
            f"current_phase names {q(_at(raw, 'active_workflow.current_phase'))}; only its "
            f"position or one past it (after a phase is completed) is consistent. {_V9C_NOTE}",
            expected="the position of current_phase, or one past it",
            actual=index,
        )
    _evidence(em, exact)
    _invalid(em, exact, raw)


_EVIDENCE_RULE = {"V1": R.EVID_CONST_ZERO, "V2": R.EVID_ELICIT_ZERO, "V3": R.EVID_TEST_ZERO}


def _evidence(em: Emitter, exact: dict[str, Any]) -> None:
    for rule, key, where, count in F.evidence(exact):
        block = ".".join(where[:-1])
        em.add(
            _EVIDENCE_RULE[rule],
            ".".join(("phases", key, *where)),
            f"phases[{key}].{block} says completed: true with {where[-1]} {q(count)}: the "
            f"framework's {rule} calls this a suspicious write (it must be at least 1).",
            expected=">= 1",
            actual=count,
        )


_SHAPE_RULE = {
    "current_phase_index": R.FIELD_SHAPE,
    "phases": R.FIELD_SHAPE,
    "current_phase": R.BOUNDS_CURRENT,
    "state_version": R.FIELD_VERSION,
}


def _invalid(em: Emitter, exact: dict[str, Any], raw: dict[str, Any]) -> None:
    for path, what in F.invalid(exact):
        field = path.split(".")[1] if path.count(".") else path
        rule = _SHAPE_RULE.get(field, R.FIELD_STATUS)
        value = _at(raw, path)
        em.add(
            rule,
            path,
            f"{path} is {q(value)}{_invisible(exact, raw, path)}: {what}, so the framework's "
            "validate-state.cjs calls the file INVALID.",
            expected=_EXPECTED[rule.id],
            actual=value,
        )


_EXPECTED = {
    "FIELD-SHAPE": "current_phase_index a number, phases an array",
    "BOUNDS-CURRENT": "one of active_workflow.phases",
    "FIELD-VERSION": "a number",
    "FIELD-STATUS": list(F.VALID_SUMMARY),
}


def check_write(
    em: Emitter,
    disk: dict[str, Any],
    incoming: dict[str, Any],
    regression: bool = True,
    fresh_seen: bool = True,
) -> None:
    """V7 and V8: the write from ``disk`` to ``incoming`` is one the framework blocks.
    ``regression`` False: V7 only (a write that archived or suspended the workflow on disk
    starts a new one, whose index and statuses are not the old one's to regress).
    ``fresh_seen``: see :func:`core.audit.framework.v8`."""
    version = F.v7(disk, incoming)
    old_v, new_v = disk.get("state_version"), incoming.get("state_version")
    if version == "stale":
        em.add(
            R.TR_VERSION_DOWN,
            "state_version",
            f"state_version went down from {q(old_v)} to {q(new_v)}: a snapshot read before "
            "the newer state was written over it (the framework's V7 blocks such a write).",
            expected=f">= {q(old_v)}",
            actual=new_v,
        )
    elif version == "unversioned":
        em.add(
            R.TR_VERSION_LOST,
            "state_version",
            f"state_version was {q(old_v)} and is now missing: the framework's V7 rejects such "
            "a write, so a writer bypassed it.",
            expected=f">= {q(old_v)}",
            actual=None,
        )
    found = F.v8(disk, incoming, fresh_seen) if regression else None
    if found is not None:
        path, what, note = found
        rule = R.TR_INDEX_DOWN if path.endswith("current_phase_index") else R.TR_STATUS_DOWN
        em.add(
            rule,
            path,
            f"{path} went backwards ({what}) with no supervised redo or recovery action of "
            "this write to explain it: a stale snapshot was written. "
            + (note or "The framework's V8 blocks such a write."),
            expected="no regression",
            actual=what,
        )
