"""The supervised review gate's answers: continue, review, resume, redo."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, Unpack

from msgspec import Struct

from .. import protocol
from ..protocol import MAX_REDOS
from .claims import review_claim
from .outcomes import REVIEW_ACTIONS, DecisionResult
from .summary import review_view
from .writer import Change, Mutation, Options, _invalid, _label, decide


def _gate(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    aw = doc.get("active_workflow")
    if not isinstance(aw, dict):
        raise _invalid("no active workflow: there is no review gate to decide")
    sr = aw.get("supervised_review")
    if not isinstance(sr, dict):
        raise _invalid("no review gate is presented (active_workflow.supervised_review is absent)")
    phase = sr.get("phase")
    if not isinstance(phase, str) or not phase:
        raise _invalid("the review gate names no phase; not touched")
    return aw, sr, phase


def _history(aw: dict[str, Any], key: str) -> list[Any]:
    hist = aw.get(key)
    if hist is None:
        hist = aw[key] = []
    if not isinstance(hist, list):
        raise _invalid(f"active_workflow.{key} is not a list; not touched")
    return hist


class _Gate(Struct, frozen=True):
    """The gate a review answer is about, as read from the document being changed."""

    doc: dict[str, Any]
    aw: dict[str, Any]
    sr: dict[str, Any]
    phase: str
    now: str

    @property
    def status(self) -> Any:
        return self.sr.get("status")

    @property
    def label(self) -> str:
        return _label(self.phase)

    def require(self, action: str, *statuses: str, hint: str = "") -> None:
        if self.status not in statuses:
            what = "a gate under review" if statuses == ("reviewing",) else "a presented gate"
            raise _invalid(f"{action} needs {what}; {self.label} is {self.status!r}{hint}")


def _continue(gate: _Gate, _guidance: str | None) -> Change:
    hint = " (use resume to end a review)" if gate.status == "reviewing" else ""
    gate.require("continue", "gate_presented", hint=hint)
    history = _history(gate.aw, "review_history")
    entry = {"phase": gate.phase, "action": "continue", "timestamp": gate.now}
    history.append(entry)
    del gate.aw["supervised_review"]
    return Change(
        f"continue: {gate.label} accepted; the workflow proceeds",
        review_claim("continue", gate.phase, gate.now),
    )


def _review(gate: _Gate, _guidance: str | None) -> Change:
    gate.require("review", "gate_presented")
    now = gate.now
    gate.sr["status"] = "reviewing"
    gate.sr["paused_at"] = now
    return Change(
        f"review: {gate.label} paused for review (the gate stays blocked)",
        review_claim("review", gate.phase, now),
    )


def _resume(gate: _Gate, _guidance: str | None) -> Change:
    gate.require("resume", "reviewing")
    history = _history(gate.aw, "review_history")
    entry = {  # recordReviewAction's key order: phase, action, timestamp, then details
        "phase": gate.phase,
        "action": "review",
        "timestamp": gate.now,
        "paused_at": gate.sr.get("paused_at"),
        "resumed_at": gate.now,
    }
    history.append(entry)
    del gate.aw["supervised_review"]
    return Change(
        f"resume: review of {gate.label} recorded; the workflow proceeds",
        review_claim("resume", gate.phase, gate.now),
    )


def _redo_count(sr: Mapping[str, Any], label: str) -> int:
    count = sr.get("redo_count", 0)
    count = 0 if count is None else count
    if not isinstance(count, int) or isinstance(count, bool):
        raise _invalid("supervised_review.redo_count is not an integer; not touched")
    if count >= MAX_REDOS:
        raise _invalid(f"redo limit reached for {label} ({count}/{MAX_REDOS})")
    return count


def _rerun(gate: _Gate) -> list[str]:
    """Both phase status locations back to ``in_progress``; which were set (``phases``,
    ``phase_status``)."""
    touched = []
    phases = gate.doc.get("phases")
    record = phases.get(gate.phase) if isinstance(phases, dict) else None
    if isinstance(record, dict):
        record["status"] = "in_progress"
        touched.append("phases")
    summary = gate.aw.get("phase_status")
    if isinstance(summary, dict):
        summary[gate.phase] = "in_progress"
        touched.append("phase_status")
    if not touched:
        raise _invalid(f"{gate.label} has neither a phases record nor a phase_status entry")
    return touched


def _redo(gate: _Gate, guidance: str | None) -> Change:
    gate.require("redo", "gate_presented", "reviewing")
    text = (guidance or "").strip()
    if not text:
        raise _invalid("redo needs guidance text (what should change)")
    count = _redo_count(gate.sr, gate.label)
    guidance_list = gate.sr.get("redo_guidance_history")
    if guidance_list is None:
        guidance_list = gate.sr["redo_guidance_history"] = []
    if not isinstance(guidance_list, list):
        raise _invalid("supervised_review.redo_guidance_history is not a list")
    gate.sr["redo_count"] = count + 1
    guidance_list.append(text)
    gate.sr["status"] = "redo_pending"
    touched = _rerun(gate)
    where = {"phases": f"phases.{gate.label}.status", "phase_status": f"phase_status.{gate.label}"}
    return Change(
        f"redo {count + 1}/{MAX_REDOS}: {gate.label} goes back to in_progress "
        f"({', '.join(where[t] for t in touched)}; index unchanged)",
        review_claim(
            "redo", gate.phase, gate.now, count=count + 1, guidance=text, statuses=touched
        ),
    )


_ANSWERS: dict[str, Callable[[_Gate, str | None], Change]] = {
    "continue": _continue,
    "review": _review,
    "resume": _resume,
    "redo": _redo,
}


def _review_mutation(action: str, guidance: str | None) -> Mutation:
    answer = _ANSWERS[action]  # decide() refused an unknown action before any read

    def mutate(doc: dict[str, Any]) -> Change:
        aw, sr, phase = _gate(doc)
        return answer(_Gate(doc, aw, sr, phase, protocol.now_iso()), guidance)

    return mutate


def decide_review(
    path: str | os.PathLike[str],
    action: str,
    *,
    guidance: str | None = None,
    **options: Unpack[Options],
) -> DecisionResult:
    """Answer the supervised review gate: ``continue`` | ``review`` | ``resume`` | ``redo``."""
    mutation = _review_mutation if action in REVIEW_ACTIONS else None
    return decide(path, "review", action, mutation, ("guidance", guidance), review_view, options)
