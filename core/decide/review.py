"""The supervised review gate's answers: continue, review, resume, redo."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from .. import protocol
from ..protocol import MAX_REDOS
from .escalation import _refuse_early
from .outcomes import REVIEW_ACTIONS, DecisionResult
from .summary import _obj, review_view
from .writer import Change, Mutation, _invalid, _label, apply_update


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


def _aw_list(doc: Mapping[str, Any], key: str) -> list[Any]:
    value = _obj(doc.get("active_workflow")).get(key)
    return value if isinstance(value, list) else []


def _sr(doc: Mapping[str, Any]) -> dict[str, Any]:
    return _obj(_obj(doc.get("active_workflow")).get("supervised_review"))


def _appended(key: str, index: int, entry: dict[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """Receipt: ``active_workflow.<key>[index]`` is still our entry (the list only grows)."""
    return lambda d: _aw_list(d, key)[index : index + 1] == [entry]


def _review_mutation(action: str, guidance: str | None) -> Mutation:
    def mutate(doc: dict[str, Any]) -> Change:
        aw, sr, phase = _gate(doc)
        status = sr.get("status")
        now = protocol.now_iso()
        label = _label(phase)
        if action == "continue":
            if status != "gate_presented":
                hint = " (use resume to end a review)" if status == "reviewing" else ""
                raise _invalid(f"continue needs a presented gate; {label} is {status!r}{hint}")
            history = _history(aw, "review_history")
            entry = {"phase": phase, "action": "continue", "timestamp": now}
            history.append(entry)
            del aw["supervised_review"]
            return Change(
                f"continue: {label} accepted; the workflow proceeds",
                _appended("review_history", len(history) - 1, entry),
            )
        if action == "review":
            if status != "gate_presented":
                raise _invalid(f"review needs a presented gate; {label} is {status!r}")
            sr["status"] = "reviewing"
            sr["paused_at"] = now
            return Change(
                f"review: {label} paused for review (the gate stays blocked)",
                lambda d: (
                    _sr(d).get("paused_at") == now
                    or any(_obj(e).get("paused_at") == now for e in _aw_list(d, "review_history"))
                ),
            )
        if action == "resume":
            if status != "reviewing":
                raise _invalid(f"resume needs a gate under review; {label} is {status!r}")
            history = _history(aw, "review_history")
            entry = {  # recordReviewAction's key order: phase, action, timestamp, then details
                "phase": phase,
                "action": "review",
                "timestamp": now,
                "paused_at": sr.get("paused_at"),
                "resumed_at": now,
            }
            history.append(entry)
            del aw["supervised_review"]
            return Change(
                f"resume: review of {label} recorded; the workflow proceeds",
                _appended("review_history", len(history) - 1, entry),
            )
        if action == "redo":
            if status not in ("gate_presented", "reviewing"):
                raise _invalid(f"redo needs a presented gate; {label} is {status!r}")
            text = (guidance or "").strip()
            if not text:
                raise _invalid("redo needs guidance text (what should change)")
            count = sr.get("redo_count", 0)
            if count is None:
                count = 0
            if not isinstance(count, int) or isinstance(count, bool):
                raise _invalid("supervised_review.redo_count is not an integer; not touched")
            if count >= MAX_REDOS:
                raise _invalid(f"redo limit reached for {label} ({count}/{MAX_REDOS})")
            guidance_list = sr.get("redo_guidance_history")
            if guidance_list is None:
                guidance_list = sr["redo_guidance_history"] = []
            if not isinstance(guidance_list, list):
                raise _invalid("supervised_review.redo_guidance_history is not a list")
            sr["redo_count"] = count + 1
            guidance_list.append(text)
            sr["status"] = "redo_pending"
            touched = []
            record = _obj(doc.get("phases")).get(phase)
            if isinstance(record, dict):
                record["status"] = "in_progress"
                touched.append(f"phases.{label}.status")
            summary = aw.get("phase_status")
            if isinstance(summary, dict):
                summary[phase] = "in_progress"
                touched.append(f"phase_status.{label}")
            if not touched:
                raise _invalid(f"{label} has neither a phases record nor a phase_status entry")

            def receipt(d: Mapping[str, Any]) -> bool:
                kept = _sr(d).get("redo_guidance_history")
                if isinstance(kept, list) and kept[count : count + 1] == [text]:
                    return True
                return any(  # the phase re-ran and the controller recorded the redo
                    _obj(e).get("action") == "redo" and _obj(e).get("guidance") == text
                    for e in _aw_list(d, "review_history")
                )

            return Change(
                f"redo {count + 1}/{MAX_REDOS}: {label} goes back to in_progress "
                f"({', '.join(touched)}; index unchanged)",
                receipt,
            )
        raise _invalid(f"unknown review action {action!r}")

    return mutate


def decide_review(
    path: str | os.PathLike[str],
    action: str,
    *,
    guidance: str | None = None,
    expect_version: int | None = None,
    seen: Mapping[str, Any] | None = None,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
) -> DecisionResult:
    """Answer the supervised review gate: ``continue`` | ``review`` | ``resume`` | ``redo``."""
    params: dict[str, Any] = {}
    if guidance is not None:
        params["guidance"] = guidance
    if action not in REVIEW_ACTIONS:
        return _refuse_early(
            path, f"review {action}", f"unknown review action {action!r}", who, via, journal
        )
    return apply_update(
        path,
        _review_mutation(action, guidance),
        action=f"review {action}",
        params=params,
        expect_version=expect_version,
        seen=seen,
        depends=review_view,
        who=who,
        via=via,
        journal=journal,
    )
