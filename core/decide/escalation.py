"""Escalation answers: retry (as ``workflow-retry.cjs``), skip, cancel (the orchestrator's archive entry)."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable, Mapping
from typing import Any, Unpack

from msgspec import Struct

from .. import protocol
from ..archive import archived, js_truthy
from .claims import escalation_claim
from .codec import plain
from .outcomes import ESCALATION_ACTIONS, MAX_WORKFLOW_HISTORY, DecisionResult
from .summary import _identity, _obj, _version_of, escalation_view
from .writer import Change, Mutation, Options, _invalid, _label, decide


def escalation_phase(doc: Mapping[str, Any]) -> str | None:
    """The phase an answer applies to: the newest escalation's, else the workflow's current."""
    esc = doc.get("pending_escalations")
    if isinstance(esc, list):
        for entry in reversed(esc):
            phase = entry.get("phase") if isinstance(entry, dict) else None
            if isinstance(phase, str) and phase:
                return phase
    aw = _obj(doc.get("active_workflow"))
    phase = aw.get("current_phase")
    return phase if isinstance(phase, str) and phase else None


def _workflow_id(aw: Mapping[str, Any]) -> str | None:
    """``artifact_prefix + "-" + zeroPad(counter_used, 4)``, null when either is missing."""
    prefix, counter = aw.get("artifact_prefix"), _version_of(aw.get("counter_used"))
    if not isinstance(prefix, str) or not prefix or counter is None:
        return None
    return f"{prefix}-{counter:04d}"


def _cancelled_entry(
    doc: Mapping[str, Any], aw: Mapping[str, Any], now: str, reason: str
) -> dict[str, Any]:
    """The orchestrator's cancellation entry (00-sdlc-orchestrator.md, "Cancellation Process"),
    its keys in that order; the workflow's other fields follow, so nothing the audit or a
    person reads (``artifact_folder``, ``review_history``) is lost. ``git_branch`` says
    ``status: "abandoned"`` and ``abandoned_at``, as the orchestrator leaves it ("Branch on
    Cancellation"); the git side (commit the work, check out main, keep the branch) is the
    user's to do: phasewatch runs no git command."""
    # what the orchestrator does: set cancelled_at, then collectPhaseSnapshots(state)
    snapshots, metrics = archived(plain({**doc, "active_workflow": aw}), cancelled_at=now)
    entry = {
        "type": aw.get("type"),
        "id": _workflow_id(aw),
        "description": aw.get("description"),
        "started_at": aw.get("started_at"),
        "cancelled_at": now,
        "cancelled_at_phase": aw.get("current_phase"),
        "cancellation_reason": reason,
        "status": "cancelled",
        "merged_commit": None,
        "phases": copy.deepcopy(aw.get("phases")),
        "phase_snapshots": snapshots,
        "metrics": metrics,
    }
    branch = aw.get("git_branch")
    if isinstance(branch, dict):
        entry["git_branch"] = {**branch, "status": "abandoned", "abandoned_at": now}
    elif "git_branch" in aw:
        entry["git_branch"] = branch
    entry.update((k, v) for k, v in aw.items() if k not in entry)
    return entry


#: What ``workflow-retry.cjs`` deletes from the phase record (and from its
#: ``iteration_requirements``) so the phase re-runs from a clean iteration state.
RETRY_CLEARS = ("test_iteration", "constitutional_validation", "interactive_elicitation")


def _reset_for_retry(record: dict[str, Any]) -> list[str]:
    """Delete the iteration state the way ``workflow-retry.cjs`` does; the names cleared."""
    cleared = []
    reqs = record.get("iteration_requirements")
    for key in RETRY_CLEARS:
        hit = False
        nested = key != "constitutional_validation" and isinstance(reqs, dict)
        if nested and isinstance(reqs, dict) and js_truthy(reqs.get(key)):  # (narrows reqs)
            del reqs[key]
            hit = True
        if js_truthy(record.get(key)):
            del record[key]
            hit = True
        if hit:
            cleared.append(key)
    return cleared


class _Pending(Struct, frozen=True):
    """The escalations an answer clears, as read from the document being changed."""

    doc: dict[str, Any]
    cleared: list[Any]  # a copy of what was pending
    phase: str | None
    now: str

    @property
    def label(self) -> str:
        return _label(self.phase)

    @property
    def workflow(self) -> Any:
        return self.doc.get("active_workflow")


def _retry_phase(pending: _Pending) -> str:
    """Reset the phase's record as ``workflow-retry.cjs`` does; the note for the message."""
    phases = _obj(pending.doc.get("phases"))
    record = phases.get(pending.phase) if pending.phase is not None else None
    if not isinstance(record, dict):
        return f" (no phases.{pending.label} record: retry_count not set)"
    retries = record.get("retry_count", 0)
    retries = 0 if retries is None else retries
    if not isinstance(retries, int) or isinstance(retries, bool):
        raise _invalid(f"phases.{pending.label}.retry_count is not an integer; not touched")
    reset = _reset_for_retry(record)
    record["retry_count"] = retries + 1
    return f", retry_count {retries + 1}" + (f", cleared {', '.join(reset)}" if reset else "")


def _retry(pending: _Pending, _reason: str | None) -> Change:
    aw = pending.workflow
    if not isinstance(aw, dict):
        raise _invalid("no active workflow: nothing to retry (skip clears the escalations)")
    if pending.phase is None:
        raise _invalid("no phase to retry (neither the escalation nor the workflow names one)")
    note = _retry_phase(pending)
    recovery = {"type": "retry", "phase": pending.phase, "timestamp": pending.now}
    aw["recovery_action"] = recovery
    pending.doc["pending_escalations"] = []
    return Change(
        f"retry: {pending.label} will re-run ({len(pending.cleared)} escalation(s) cleared{note})",
        escalation_claim(
            "retry",
            pending.cleared,
            phase=pending.phase,
            at=pending.now,
            workflow=_identity(pending.doc),
        ),
    )


def _skip(pending: _Pending, _reason: str | None) -> Change:
    pending.doc["pending_escalations"] = []
    return Change(
        f"skip: {len(pending.cleared)} escalation(s) overridden and cleared; "
        f"{pending.label} continues",
        escalation_claim("skip", pending.cleared),
    )


def _cancel(pending: _Pending, reason: str | None) -> Change:
    doc, aw, now = pending.doc, pending.workflow, pending.now
    text = (reason or "").strip()
    if not text:
        raise _invalid("cancel needs a reason (--reason TEXT)")
    if not isinstance(aw, dict):
        raise _invalid("no active workflow to cancel")
    history = doc.get("workflow_history")
    if history is None:
        history = doc["workflow_history"] = []
    if not isinstance(history, list):
        raise _invalid("workflow_history is not a list; not touched")
    workflow = _identity(doc)
    history.append(_cancelled_entry(doc, aw, now, text))
    if len(history) > MAX_WORKFLOW_HISTORY:
        del history[: len(history) - MAX_WORKFLOW_HISTORY]
    doc["active_workflow"] = None
    doc["pending_escalations"] = []
    return Change(
        f"cancel: workflow cancelled at {pending.label} and archived "
        f"({len(pending.cleared)} escalation(s) cleared)",
        escalation_claim("cancel", pending.cleared, at=now, reason=text, workflow=workflow),
    )


_ANSWERS: dict[str, Callable[[_Pending, str | None], Change]] = {
    "retry": _retry,
    "skip": _skip,
    "cancel": _cancel,
}


def _escalation_mutation(action: str, reason: str | None) -> Mutation:
    answer = _ANSWERS[action]  # decide() refused an unknown action before any read

    def mutate(doc: dict[str, Any]) -> Change:
        esc = doc.get("pending_escalations")
        if not isinstance(esc, list) or not esc:
            raise _invalid("no pending escalations: nothing to decide")
        pending = _Pending(doc, copy.deepcopy(esc), escalation_phase(doc), protocol.now_iso())
        return answer(pending, reason)

    return mutate


def decide_escalation(
    path: str | os.PathLike[str],
    action: str,
    *,
    reason: str | None = None,
    **options: Unpack[Options],
) -> DecisionResult:
    """Answer the pending escalations: ``retry`` | ``skip`` | ``cancel`` (with a reason)."""
    mutation = _escalation_mutation if action in ESCALATION_ACTIONS else None
    return decide(
        path, "escalation", action, mutation, ("reason", reason), escalation_view, options
    )
