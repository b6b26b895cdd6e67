"""Guided repair of ``state.json``: a plan's write through the one writer, and its undo.

The plans (what to write, and why) are :mod:`.plans`'s, reading only; nothing here runs by
itself:

* :func:`apply_repair` ``(path, plan, ...)``: the write, through :mod:`.writer`:
  compare-and-swap on every field the plan changes (each change's ``current``) and reads (the
  workflow's identity, and :func:`.plans.reads`: every location, the gate and the recovery
  marker), not on ``state_version``: beside a live workflow whose hooks write every second, a
  write that touched none of those does not refuse the repair; only the
  planned values are replaced (the codec keeps every other byte); ``state_version`` = disk + 1;
  journalled with the plan; its claim (:func:`.claims.holds`, ``repair``) lets the confirm
  watch tell ``held`` from ``reverted``;
* :func:`undo_repair` ``(path, ...)``: puts back the values the newest repair replaced, only
  while the file is still byte for byte what that repair wrote (the journal's ``sha256``) and
  nothing else phasewatch wrote came after it; refused, saying why, otherwise.
  :func:`last_repair` is that repair's journal line (None: nothing to undo);
* :func:`in_flight` ``(path)``: why a repair must wait (another phasewatch write to the file is
  under way), or None; ``apply_repair`` and ``undo_repair`` refuse then.

Results are :class:`.outcomes.DecisionResult` with the decisions' outcomes and exit codes; an
applied result's ``footprint`` is what :func:`core.decide.journal.confirm` (the confirm watch)
judges, by the ``repair`` claim. The caller (console or command line) shows the plan, asks, and
never calls :func:`apply_repair` without the human's confirmation.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..files.lock import lock_held
from ..files.read import ReadRefused, read_regular
from ..text import clean
from .claims import Claim
from .codec import plain
from .files import _project_root, _rel
from .journal import JournalUnreadable, journal_path, read_journal
from .outcomes import (
    APPLIED,
    CONFLICT,
    INVALID,
    SETTLE_SECONDS,
    DecisionResult,
    Outcome,
    _Refusal,
)
from .plans import (
    _MISSING,
    ABSENT,
    LOCATION,
    STALE_WRITE,
    FieldChange,
    Path_,
    RepairPlan,
    get,
    label,
    reads,
)
from .summary import _identity, _obj, _version_of
from .writer import Change, apply_update

# ----------------------------------------------------------------------------- the claim


def repair_claim(plan: RepairPlan) -> Claim:
    """What the file must hold for the repair to be in it (:func:`.claims.holds`)."""
    claim: Claim = plain(
        {
            "decision": "repair",
            "kind": plan.kind,
            "workflow": plan.workflow,
            "changes": [
                {k: v for k, v in c.to_json().items() if k not in ("label", "reason")}
                for c in plan.changes
            ],
        }
    )
    return claim


# ----------------------------------------------------------------------------- writing


def _mutation(plan: RepairPlan, restore: bool = False) -> Any:
    """Set every planned path (``restore``: back to its ``current`` value), after checking
    that the document still holds what the plan read."""

    def mutate(doc: dict[str, Any]) -> Change:
        if plan.workflow is not None and plain(_identity(doc)) != plain(plan.workflow):
            raise _Refusal(CONFLICT, "the active workflow changed since the plan was made")
        if plan.reads and not restore and reads(doc) != plan.reads:
            raise _Refusal(
                CONFLICT,
                "the workflow's locations changed since the plan was made (state_version "
                f"{_version_of(doc.get('state_version'))}). Nothing written; plan again.",
            )
        moved = []
        for c in plan.changes:
            expect = c.proposed if restore else c.current
            now = get(doc, c.path)
            if expect is ABSENT:
                if now is not _MISSING:
                    moved.append(c.label)
            elif (now is _MISSING and expect is not None) or (
                now is not _MISSING and plain(now) != plain(expect)
            ):
                moved.append(c.label)
        if moved:
            raise _Refusal(
                CONFLICT,
                f"changed since the plan was made: {', '.join(moved)}. Nothing written; "
                "plan again.",
            )
        for c in plan.changes:
            _set(doc, c.path, c.current if restore else c.proposed)
        n = len(plan.changes)
        if restore:
            return Change(f"{n} field(s) put back to their values before the repair")
        source = f" from state_version {plan.from_version}" if plan.from_version is not None else ""
        return Change(f"{n} field(s) set{source}", repair_claim(plan))

    return mutate


def _set(doc: dict[str, Any], path: Path_, value: Any) -> None:
    node: Any = doc
    for key in path[:-1]:
        if not isinstance(node, dict):
            raise _Refusal(INVALID, f"{label(path)}: not an object on the way; not touched")
        node = node.setdefault(key, {}) if key not in node else node[key]
    if not isinstance(node, dict):
        raise _Refusal(INVALID, f"{label(path)}: not an object on the way; not touched")
    if value is ABSENT:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = value


def apply_repair(
    path: str | os.PathLike[str],
    plan: RepairPlan,
    *,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
    settle: float = SETTLE_SECONDS,
) -> DecisionResult:
    """Write ``plan`` into the state file at ``path`` through the one writer (compare-and-swap
    on ``plan.base_version`` and every value the plan read). Refused: a plan with no changes,
    and any repair while another phasewatch write to the file is in flight (:func:`in_flight`)."""
    busy = in_flight(path, journal)
    if not plan.changes or busy:
        return apply_update(
            path,
            _refuse(busy, CONFLICT)
            if busy
            else _refuse("the plan changes nothing (see what it could not know)"),
            action=plan.action,
            params={"plan": plan.to_json()},
            who=who,
            via=via,
            journal=journal,
            settle=settle,
        )
    return apply_update(  # compare-and-swap on what the plan planned and read, not the version
        path,
        _mutation(plan),
        action=plan.action,
        params={"plan": plan.to_json()},
        who=who,
        via=via,
        journal=journal,
        settle=settle,
    )


#: An ``intent`` line older than this with no outcome after it is a writer that died mid-write,
#: not one in flight (its fate is the file's to tell: plan again).
IN_FLIGHT_SECONDS = 60.0


def _lines(
    path: str | os.PathLike[str], journal: str | os.PathLike[str] | None
) -> tuple[Path, list[dict[str, Any]]]:
    """The project root of ``path`` and the journal's lines about it, intents included (raises
    :class:`.journal.JournalUnreadable`)."""
    p = Path(os.path.abspath(path))
    root = _project_root(p)
    target = _rel(root, p)
    lines = read_journal(Path(journal) if journal is not None else journal_path(root), intents=True)
    return root, [e for e in lines if e.get("target") == target]


def _orphans(mine: list[dict[str, Any]]) -> list[int]:
    """The indexes of ``intent`` lines no outcome line of the same attempt followed (its
    action, and its process when the intent names one): writes under way, or whose writer was
    killed between its intent and its outcome."""
    out: list[int] = []
    answered: set[tuple[str, str]] = set()  # (action, pid) of the outcome lines after
    for i in range(len(mine) - 1, -1, -1):  # one pass from the end: linear in the journal
        key = (str(mine[i].get("action")), str(mine[i].get("pid")))  # (before pids: "None")
        if mine[i].get("outcome") != "intent":
            answered.add(key)
        elif key not in answered:
            out.append(i)
    return out[::-1]


def _writer_gone(root: Path, intent: Mapping[str, Any]) -> bool:
    """The writer of an unanswered ``intent`` cannot still be writing: nobody holds the writer
    lock (every phasewatch writer holds it from before its intent line until after its
    outcome line, and the kernel releases it when the process dies), or the intent is older
    than :data:`IN_FLIGHT_SECONDS`."""
    try:
        at = datetime.fromisoformat(str(intent.get("ts")).replace("Z", "+00:00"))
        age = (datetime.now(UTC) - at).total_seconds()
    except (TypeError, ValueError):
        return True
    return not 0 <= age <= IN_FLIGHT_SECONDS or not lock_held(root)


def in_flight(
    path: str | os.PathLike[str], journal: str | os.PathLike[str] | None = None
) -> str | None:
    """Why a repair must wait, or None: the journal's newest ``intent`` line for ``path`` has
    no outcome line after it and its writer may still be writing (:func:`_writer_gone`):
    another phasewatch process is writing a decision or a repair into the file now. A writer
    killed mid-write blocks nothing once its process is gone. A journal that cannot be read
    is a reason too: whether a write is under way is then unknown."""
    try:
        root, mine = _lines(path, journal)
    except JournalUnreadable as exc:
        return f"{exc.reason}; nothing written"
    orphans = _orphans(mine)
    if not orphans or _writer_gone(root, mine[orphans[-1]]):
        return None
    return (
        f"another phasewatch write ({clean(str(mine[orphans[-1]].get('action')))}) to this file "
        "is in flight; nothing written. Look again when it is done."
    )


def _refuse(message: str, outcome: Outcome = INVALID) -> Any:
    def mutate(_doc: dict[str, Any]) -> Change:
        raise _Refusal(outcome, message)

    return mutate


def last_repair(
    path: str | os.PathLike[str], journal: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """The newest phasewatch write to ``path`` when it is a repair (None when it is not:
    another phasewatch write came after the repair, or there is none): its ``applied`` line,
    or the ``intent`` line of a repair whose writer was killed before its outcome line (marked
    ``"killed": True``; whether it landed is the file's to tell: its ``sha256``). Raises
    :class:`.journal.JournalUnreadable`."""
    root, mine = _lines(path, journal)
    orphans = set(_orphans(mine))
    newest = next(
        (
            e
            for i, e in reversed(list(enumerate(mine)))
            if (e.get("outcome") == APPLIED and not (e.get("params") or {}).get("already_applied"))
            or (i in orphans and _writer_gone(root, e))
        ),
        None,
    )
    action = newest.get("action") if newest is not None else None
    if newest is None or not (isinstance(action, str) and action.startswith("repair ")):
        return None
    if action == "repair undo":
        return None
    return {**newest, "killed": True} if newest.get("outcome") == "intent" else newest


def _plan_of(entry: Mapping[str, Any]) -> RepairPlan:
    data = _obj(_obj(entry.get("params")).get("plan"))
    claim = _obj(entry.get("claim"))
    kind = data.get("kind")
    return RepairPlan(
        kind if kind in (STALE_WRITE, LOCATION) else STALE_WRITE,
        tuple(FieldChange.from_json(c) for c in data.get("changes") or ()),
        base_version=_version_of(entry.get("version_after")),
        workflow=claim.get("workflow"),
    )


def undo_repair(
    path: str | os.PathLike[str],
    *,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
    settle: float = SETTLE_SECONDS,
) -> DecisionResult:
    """Put back the values the newest repair of ``path`` replaced, only while the file is
    still exactly what it wrote; otherwise refused (nothing written), saying why."""
    why, outcome = in_flight(path, journal), CONFLICT
    try:
        entry = last_repair(path, journal)
    except JournalUnreadable as exc:
        entry, why, outcome = None, why or f"{exc.reason}: nothing to undo from", INVALID
    if why is not None:
        pass
    elif entry is None:
        why = "nothing to undo: the newest phasewatch write to this file is not a repair"
        outcome = INVALID
    elif not isinstance(entry.get("sha256"), str) or not isinstance(entry.get("claim"), dict):
        why = "the journal does not say what the repair wrote; undo refused"
        outcome = INVALID
    else:
        try:
            raw = read_regular(Path(os.path.abspath(path)), follow_symlinks=False)[0]
        except (OSError, ReadRefused) as exc:
            why = f"cannot read the file: {exc}"
        else:
            if hashlib.sha256(raw).hexdigest() != entry["sha256"] and entry.get("killed"):
                why = (
                    "the newest repair's writer was stopped before it recorded the outcome, and "
                    "the file is not what that repair wrote (it never landed, or someone wrote "
                    "after it): nothing to undo; nothing written"
                )
            elif hashlib.sha256(raw).hexdigest() != entry["sha256"]:
                why = (
                    "the file changed since the repair (someone wrote after it): undoing now "
                    "would overwrite that write; nothing written"
                )
    if why is not None or entry is None:
        return apply_update(
            path,
            _refuse(why or "", outcome),
            action="repair undo",
            who=who,
            via=via,
            journal=journal,
            settle=settle,
        )
    plan = _plan_of(entry)
    return apply_update(
        path,
        _mutation(plan, restore=True),
        action="repair undo",
        params={"undoes": entry.get("ts"), "plan": plan.to_json()},
        expect_version=plan.base_version,
        who=who,
        via=via,
        journal=journal,
        settle=settle,
    )
