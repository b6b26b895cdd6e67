"""The answers a human gives at a review gate or an escalation, as edits of a state document
(docs/formats.md#supervised-review-gate, #escalations). Pure functions: the caller reads the
file, applies one, bumps ``state_version`` and writes. The simulator's ``--auto-decide`` uses
them; tests and the demo may too."""

from __future__ import annotations

from typing import Any

ESCALATION_ACTIONS = ("retry", "skip", "cancel")


class DecisionError(ValueError):
    """The document is not in a state where this decision can be taken."""


def _workflow(doc: dict[str, Any]) -> dict[str, Any]:
    aw = doc.get("active_workflow")
    if not isinstance(aw, dict):
        raise DecisionError("no active workflow")
    return aw


def _review(doc: dict[str, Any], phase: str | None = None) -> dict[str, Any]:
    review = _workflow(doc).get("supervised_review")
    if not isinstance(review, dict) or (phase is not None and review.get("phase") != phase):
        raise DecisionError("no review gate is presented")
    return review


def gate_continue(doc: dict[str, Any], ts: str) -> dict[str, Any]:
    aw = _workflow(doc)
    review = _review(doc)
    aw.setdefault("review_history", []).append(
        {"phase": review.get("phase"), "action": "continue", "timestamp": ts}
    )
    del aw["supervised_review"]
    return doc


def gate_review(doc: dict[str, Any], ts: str) -> dict[str, Any]:
    review = _review(doc)
    review["status"] = "reviewing"
    review["paused_at"] = ts
    return doc


def gate_resume(doc: dict[str, Any], ts: str) -> dict[str, Any]:
    aw = _workflow(doc)
    review = _review(doc)
    aw.setdefault("review_history", []).append(
        {
            "phase": review.get("phase"),
            "action": "review",
            "paused_at": review.get("paused_at"),
            "resumed_at": ts,
            "timestamp": ts,
        }
    )
    del aw["supervised_review"]
    return doc


def gate_redo(doc: dict[str, Any], guidance: str, ts: str) -> dict[str, Any]:
    aw = _workflow(doc)
    review = _review(doc)
    phase = review.get("phase")
    review["redo_count"] = int(review.get("redo_count") or 0) + 1
    review.setdefault("redo_guidance_history", []).append(guidance)
    review["status"] = "redo_pending"
    record = doc.get("phases", {}).get(phase)
    if isinstance(record, dict):
        record["status"] = "in_progress"
    aw.setdefault("phase_status", {})[phase] = "in_progress"
    return doc


def escalation_retry(doc: dict[str, Any], phase: str, ts: str) -> dict[str, Any]:
    aw = _workflow(doc)
    aw["recovery_action"] = {"type": "retry", "phase": phase, "timestamp": ts}
    record = doc.get("phases", {}).get(phase)
    if isinstance(record, dict):
        record["retry_count"] = int(record.get("retry_count") or 0) + 1
    doc["pending_escalations"] = []
    return doc


def escalation_skip(doc: dict[str, Any], ts: str) -> dict[str, Any]:
    _workflow(doc)
    doc["pending_escalations"] = []
    return doc


def cancel_workflow(doc: dict[str, Any], reason: str, ts: str) -> dict[str, Any]:
    aw = _workflow(doc)
    entry: dict[str, Any] = {
        k: aw.get(k) for k in ("type", "description", "slug", "artifact_folder") if k in aw
    }
    entry.update(
        {
            "status": "cancelled",
            "started_at": aw.get("started_at"),
            "cancelled_at": ts,
            "cancellation_reason": reason,
            "phases": list(aw.get("phases") or []),
            "phase_status": dict(aw.get("phase_status") or {}),
        }
    )
    doc.setdefault("workflow_history", []).append(entry)
    doc["active_workflow"] = None
    doc["pending_escalations"] = []
    return doc
