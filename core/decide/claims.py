"""What a decision claims about its file, and the one test of whether a file still holds it.

Every applied decision leaves a *claim*: a small plain dict naming the decision and the
values that identify it (the phase, the timestamp it wrote, the guidance, the escalations it
answered). :func:`holds` is the only definition of "the file holds this decision", per kind;
the writer's look-again after a race, the confirm watch (:mod:`core.confirm`), "already
applied" on a second press, the dashboard's repeat guard and the reliability suite's judge all
ask it. A claim is journalled with the decision, so it can be asked again later.

The test looks at the decision's own fields only, whatever else a later write changed (a
controller that rewrites ``active_workflow`` whole from a copy read before the decision, and
bumps ``state_version``, still undid it):

* ``review continue``: our ``review_history`` entry is there and no gate for that phase is
  presented (``supervised_review`` absent or about another phase);
* ``review review``: the gate is paused by us (our ``paused_at``, ``status`` reviewing, or
  redo_pending after a redo from the pause), or its pause was recorded in ``review_history``
  (resumed), or a later entry for the phase was recorded there (the gate was decided since);
* ``review resume``: our ``review_history`` entry is there and the gate is not still
  ``reviewing``;
* ``review redo``: the controller re-ran the phase and recorded our redo in ``review_history``,
  or the gate is still ``redo_pending`` with our guidance at our count and each phase status we
  set still ``in_progress``;
* ``escalation retry``: none of the answered escalations pending, and ``recovery_action`` ours
  (or a newer one: it is only ever replaced by a later recovery), or the workflow it answered
  no longer the active one (it ended since, completed or cancelled: a stale copy would bring it
  back, escalation and all);
* ``escalation skip``: none of the answered escalations pending;
* ``escalation cancel``: our ``workflow_history`` entry is there, the cancelled workflow is no
  longer the active one and none of the answered escalations pending;
* ``repair`` (:mod:`.repair`): no repaired field is behind the value the repair wrote (a
  pointer earlier in the phase list, a lower index or status, ``active_agent`` back to the
  stale value), or the repaired workflow is no longer the active one;
* ``approve``: the stop hook's approval test finds our ``**Approved:**`` marker.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from msgspec import Struct

from ..protocol import STATUS_RANK
from .codec import plain
from .summary import _identity, _obj, fingerprint

Claim = dict[str, Any]


class Footprint(Struct, frozen=True):
    """What one applied decision left in its file: our bytes as renamed into place (or the
    content that held it when we last looked) and the decision's claim. ``core.confirm``
    watches the file with it (and imports nothing of the writer)."""

    kind: Literal["state", "approval"]
    written: bytes
    claim: Claim

    def holds(self, raw: bytes) -> bool | None:
        """:func:`holds_bytes` of the claim on ``raw``."""
        return holds_bytes(self.claim, raw)


def review_claim(action: str, phase: str, at: str, **more: Any) -> Claim:
    """The claim of a review-gate answer on ``phase``, written at ``at``."""
    claim: Claim = plain({"decision": f"review {action}", "phase": phase, "at": at, **more})
    return claim


def escalation_claim(action: str, answered: list[Any], **more: Any) -> Claim:
    """The claim of an escalation answer; ``answered``: the escalations it cleared."""
    claim: Claim = plain(
        {"decision": f"escalation {action}", "answered": [fingerprint(e) for e in answered], **more}
    )
    return claim


def approval_claim(marker: bytes) -> Claim:
    """The claim of a plan approval: the bytes after ``Approved:`` on our marker line."""
    return {"decision": "approve", "marker": marker.decode("utf-8", "surrogateescape")}


def state_footprint(written: bytes, claim: Claim) -> Footprint:
    return Footprint("state", written, claim)


def approval_footprint(written: bytes) -> Footprint | None:
    from ..tdd.approval import find_approval

    found = find_approval(written)
    return None if found is None else Footprint("approval", written, approval_claim(found[1]))


def _workflow(doc: Mapping[str, Any]) -> dict[str, Any]:
    return _obj(doc.get("active_workflow"))


def _gate(doc: Mapping[str, Any]) -> dict[str, Any]:
    return _obj(_workflow(doc).get("supervised_review"))


def _entries(doc: Mapping[str, Any], key: str, where: Mapping[str, Any] | None = None) -> list[Any]:
    value = (_workflow(doc) if where is None else where).get(key)
    return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []


def _recorded(doc: Mapping[str, Any], claim: Claim, **fields: Any) -> bool:
    """A ``review_history`` entry for the claim's phase with these fields."""
    return any(
        e.get("phase") == claim["phase"] and all(e.get(k) == v for k, v in fields.items())
        for e in _entries(doc, "review_history")
    )


def _gate_on(doc: Mapping[str, Any], claim: Claim) -> dict[str, Any] | None:
    gate = _gate(doc)
    return gate if gate and gate.get("phase") == claim["phase"] else None


def _answered_gone(doc: Mapping[str, Any], claim: Claim) -> bool:
    pending = doc.get("pending_escalations")
    if not isinstance(pending, list):
        return True
    answered = set(claim.get("answered") or ())
    return not any(fingerprint(e) in answered for e in pending)


def _continue(doc: Mapping[str, Any], claim: Claim) -> bool:
    return (
        _recorded(doc, claim, action="continue", timestamp=claim["at"])
        and _gate_on(doc, claim) is None
    )


def _review(doc: Mapping[str, Any], claim: Claim) -> bool:
    gate, at = _gate_on(doc, claim), claim["at"]
    paused = gate is not None and gate.get("paused_at") == at
    if (
        paused and gate is not None and gate.get("status") in ("reviewing", "redo_pending")
    ):  # or redone from it
        return True
    return any(  # resumed (the pause recorded), or the gate was decided since
        e.get("phase") == claim["phase"]
        and (e.get("paused_at") == at or _later(e.get("timestamp"), at))
        for e in _entries(doc, "review_history")
    )


def _resume(doc: Mapping[str, Any], claim: Claim) -> bool:
    gate = _gate_on(doc, claim)
    still_paused = gate is not None and gate.get("status") == "reviewing"
    return _recorded(doc, claim, action="review", resumed_at=claim["at"]) and not still_paused


def _redo(doc: Mapping[str, Any], claim: Claim) -> bool:
    if _recorded(doc, claim, action="redo", guidance=claim["guidance"]):
        return True  # the phase re-ran and the controller recorded our redo
    gate = _gate_on(doc, claim)
    if gate is None or gate.get("status") != "redo_pending":
        return False
    count = claim["count"]
    guidance = gate.get("redo_guidance_history")
    if not isinstance(guidance, list) or guidance[count - 1 : count] != [claim["guidance"]]:
        return False
    redo_count = gate.get("redo_count")
    if not isinstance(redo_count, int) or redo_count < count:
        return False
    phase = claim["phase"]
    statuses = {
        "phases": _obj(_obj(doc.get("phases")).get(phase)).get("status"),
        "phase_status": _obj(_workflow(doc).get("phase_status")).get(phase),
    }
    return all(statuses[where] == "in_progress" for where in claim.get("statuses", ()))


def _later(value: Any, than: str) -> bool:
    return isinstance(value, str) and value > than


def _retry(doc: Mapping[str, Any], claim: Claim) -> bool:
    recovery = plain(_workflow(doc).get("recovery_action"))
    ours = {"type": "retry", "phase": claim["phase"], "timestamp": claim["at"]}
    newer = isinstance(recovery, dict) and _later(recovery.get("timestamp"), claim["at"])
    ended = "workflow" in claim and plain(_identity(doc)) != claim["workflow"]
    return (recovery == ours or newer or ended) and _answered_gone(doc, claim)


def _cancel(doc: Mapping[str, Any], claim: Claim) -> bool:
    history = doc.get("workflow_history")
    archived = isinstance(history, list) and any(
        _obj(e).get("cancelled_at") == claim["at"]
        and _obj(e).get("cancellation_reason") == claim["reason"]
        for e in history
    )
    active = plain(_identity(doc))
    return archived and active != claim["workflow"] and _answered_gone(doc, claim)


def _at(doc: Any, path: list[str]) -> Any:
    for key in path:
        if not isinstance(doc, Mapping) or key not in doc:
            return None
        doc = doc[key]
    return plain(doc)


def _repair(doc: Mapping[str, Any], claim: Claim) -> bool:
    """No repaired field is behind what the repair wrote (a later write that moved the workflow
    on keeps it), or the repaired workflow is no longer the active one (it ended since)."""
    if plain(_identity(doc)) != claim.get("workflow"):
        return True
    phases = _workflow(doc).get("phases")
    order = (
        {k: i for i, k in enumerate(phases) if isinstance(k, str)}
        if isinstance(phases, list)
        else {}
    )

    def rank(value: Any, ranks: Mapping[str, int]) -> int:
        return ranks.get(value, -1) if isinstance(value, str) else -1

    for change in claim.get("changes") or ():
        path = change["path"]
        now, proposed = _at(doc, path), change["proposed"]
        if now == proposed:
            continue
        if path[-1] == "current_phase":
            behind = rank(now, order) < rank(proposed, order) or rank(now, order) < 0
        elif path[-1] == "current_phase_index":
            behind = not isinstance(now, int) or isinstance(now, bool) or now < proposed
        elif path == ["active_agent"]:
            behind = now == change["current"]
        else:
            behind = rank(now, STATUS_RANK) < rank(proposed, STATUS_RANK)
        if behind:
            return False
    return True


_STATE_TESTS = {
    "review continue": _continue,
    "review review": _review,
    "review resume": _resume,
    "review redo": _redo,
    "escalation retry": _retry,
    "escalation skip": _answered_gone,
    "escalation cancel": _cancel,
    "repair": _repair,
}


def holds(claim: Claim, doc: Any) -> bool:
    """True when ``doc`` (a parsed state) still holds the decision ``claim`` describes."""
    decision = claim.get("decision")
    test = _STATE_TESTS.get(decision) if isinstance(decision, str) else None
    if test is None:
        raise ValueError(f"not a state decision's claim: {claim.get('decision')!r}")
    return isinstance(doc, Mapping) and test(doc, claim)


def holds_bytes(claim: Claim, raw: bytes) -> bool | None:
    """:func:`holds` on a file's bytes; for ``approve`` the stop hook's test on the plan. None
    when a state's bytes are not JSON (a write in progress: look again)."""
    if claim.get("decision") == "approve":
        from ..tdd.approval import find_approval

        if not raw.strip():
            return None  # between the owner's truncate and its write: look again
        found = find_approval(raw)
        return found is not None and found[1] == claim["marker"].encode("utf-8", "surrogateescape")
    try:
        doc = json.loads(raw)
    except ValueError:
        return None
    return holds(claim, doc)
