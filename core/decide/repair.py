"""Guided repair of ``state.json``: plans, and their write through the one writer.

Two kinds of plan (docs/formats.md#repair), both explicit, previewed and confirmed by a human;
nothing here runs by itself:

* **stale-write** (:func:`plan_stale_write`): a write regressed the orchestration fields
  (:data:`ORCHESTRATION`) against a version phasewatch saw before it. The plan restores exactly
  the fields that went backwards, from that version (``from_version``), and keeps everything
  else the newer write changed (``kept``).
* **location** (:func:`plan_locations`): the three locations disagree the way the framework's
  V9-A/B/C warn about. The plan proposes the values the framework's next step expects, taking
  ``active_workflow.current_phase`` as the authority (every hook and ``phase-advance.cjs`` read
  it: docs/framework-facts.md#which-location-the-framework-trusts). A disagreement whose right
  value cannot be known, or whose fix would lower a field the framework's V8 guards, is listed
  in ``unknown`` with why, and nothing is proposed for it.

The API (names are stable; the dashboard builds on them):

* :class:`FieldChange` ``(path, current, proposed, reason)``: one field; ``path`` is the tuple of
  keys from the document's root, ``label`` its dotted form;
* :class:`Unknown` ``(path, why)``: a disagreement left alone, and why;
* :class:`RepairPlan` ``(kind, changes, base_version, from_version, kept, unknown)``; ``to_json``
  is what ``phasewatch repair --dry-run --json`` prints and what the journal records;
  ``describe()`` the preview as cleaned plain-text lines (the fields themselves hold the file's
  values uncleaned: show them through ``core.text.clean``);
* :func:`plan_stale_write` ``(before, after)`` and :func:`plan_locations` ``(state)``: a plan or
  None (nothing to repair, or nothing that can be known: then ``unknown`` only, see
  :func:`plan_locations`);
* :func:`apply_repair` ``(path, plan, ...)``: the write, through :mod:`.writer`:
  compare-and-swap on ``state_version`` (``base_version``) and on every field the plan reads
  (each change's ``current``, the workflow's identity, and :func:`reads`: every location, the
  gate and the recovery marker, so an edit that kept the version is caught); only the planned
  values are
  replaced (the codec keeps every other byte); ``state_version`` = disk + 1; journalled with the
  plan; its claim (:func:`.claims.holds`, ``repair``) lets the confirm watch tell ``held`` from
  ``reverted``;
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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from ..audit.framework import marker_set_by_write, v9a, v9b, v9c
from ..diff import changed_paths, join_key
from ..files.read import ReadRefused, read_regular
from ..protocol import STATUS_RANK
from ..text import clean, one_line
from .claims import Claim
from .codec import plain
from .files import _project_root, _rel
from .journal import journal_path, read_journal
from .outcomes import (
    APPLIED,
    CONFLICT,
    INVALID,
    SETTLE_SECONDS,
    DecisionResult,
    Outcome,
    _Refusal,
)
from .summary import _identity, _obj, _version_of, fingerprint
from .writer import Change, apply_update

Kind = Literal["stale-write", "location"]
STALE_WRITE: Kind = "stale-write"
LOCATION: Kind = "location"
Path_ = tuple[str, ...]

#: The orchestration fields a stale write can regress (docs/formats.md#three-locations).
ORCHESTRATION = (
    "active_workflow.current_phase",
    "active_workflow.current_phase_index",
    "active_workflow.phase_status[k]",
    "phases[k].status",
    "current_phase",
    "active_agent",
)

_AW = "active_workflow"


@dataclass(frozen=True, slots=True)
class FieldChange:
    """One field a plan changes: its value now, the value proposed, and why."""

    path: Path_
    current: Any
    proposed: Any
    reason: str

    @property
    def label(self) -> str:
        return label(self.path)

    def to_json(self) -> dict[str, Any]:
        return {
            "path": list(self.path),
            "label": self.label,
            "current": plain(self.current),
            "proposed": plain(self.proposed),
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Unknown:
    """A disagreement the plan leaves alone: where, and why its right value cannot be known."""

    path: Path_
    why: str

    @property
    def label(self) -> str:
        return label(self.path)

    def to_json(self) -> dict[str, Any]:
        return {"path": list(self.path), "label": self.label, "why": self.why}


@dataclass(frozen=True, slots=True)
class RepairPlan:
    """What a repair would write. ``base_version``: the disk's ``state_version`` the plan
    applies to; ``from_version``: (stale-write) the version the values are restored from;
    ``kept``: (stale-write) paths the newer write changed that stay as it wrote them."""

    kind: Kind
    changes: tuple[FieldChange, ...]
    base_version: int | None
    from_version: int | None = None
    kept: tuple[str, ...] = ()
    unknown: tuple[Unknown, ...] = ()
    workflow: Any = field(default=None, compare=False)  # the active workflow's identity
    #: the fingerprint of every orchestration field the plan was made from (:func:`reads`);
    #: the write is refused when the file's differ, whatever its state_version says
    reads: str = field(default="", compare=False)

    @property
    def action(self) -> str:
        return f"repair {self.kind}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "base_version": self.base_version,
            "from_version": self.from_version,
            "changes": [c.to_json() for c in self.changes],
            "kept": list(self.kept),
            "unknown": [u.to_json() for u in self.unknown],
        }

    def describe(self) -> list[str]:
        """The preview, one line each, cleaned (:func:`core.text.one_line`): plain text, never
        markup. The plan's own fields hold the file's values as they are (uncleaned, so the
        compare-and-swap compares like with like); show those through ``core.text.clean``."""
        return [one_line(line) for line in self._describe()]

    def _describe(self) -> list[str]:
        lines = []
        source = f" from state_version {self.from_version}" if self.from_version is not None else ""
        lines.append(
            f"{self.action}: {len(self.changes)} field(s) to write over state_version "
            f"{self.base_version}{source}"
        )
        for c in self.changes:
            lines.append(f"  {c.label}: {_show(c.current)} -> {_show(c.proposed)}  ({c.reason})")
        if self.kept:
            lines.append(f"  kept from the newer write: {len(self.kept)} path(s)")
            lines.extend(f"    {p}" for p in self.kept[:20])
            if len(self.kept) > 20:
                lines.append(f"    ... and {len(self.kept) - 20} more")
        for u in self.unknown:
            lines.append(f"  not repaired: {u.label}: {u.why}")
        return lines


def label(path: Path_) -> str:
    """A path's dotted form (the differ's spelling: docs/design.md#one-definition-per-fact)."""
    out = "$"
    for key in path:
        out = join_key(out, key)
    return out


def _show(value: Any) -> str:
    from ..diff import format_value

    return format_value(plain(value))


# ----------------------------------------------------------------------------- reading


_MISSING = object()


def get(doc: Any, path: Path_) -> Any:
    """The value at ``path`` (``_MISSING`` when a step is not an object or the key is absent)."""
    node = doc
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _rank(value: Any) -> int | None:
    return STATUS_RANK.get(value) if isinstance(value, str) else None


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _phases(doc: Mapping[str, Any]) -> list[Any]:
    value = _obj(doc.get(_AW)).get("phases")
    return list(value) if isinstance(value, list) else []


def _position(phases: list[Any], key: Any) -> int | None:
    if not isinstance(key, str):
        return None
    return next((i for i, k in enumerate(phases) if k == key), None)


def _status_paths(doc: Mapping[str, Any]) -> Iterator[Path_]:
    """Every phase status of both maps that the document holds."""
    summary = _obj(doc.get(_AW)).get("phase_status")
    if isinstance(summary, Mapping):
        for key in summary:
            yield (_AW, "phase_status", str(key))
    records = doc.get("phases")
    if isinstance(records, Mapping):
        for key, rec in records.items():
            if isinstance(rec, Mapping) and "status" in rec:
                yield ("phases", str(key), "status")


def reads(doc: Mapping[str, Any]) -> str:
    """The fingerprint of what a plan reads: the workflow's identity and phase list, both
    pointers and their mirrors, the index, both status maps, the review gate and the recovery
    marker (what decides a redo or a rollback)."""
    aw = _obj(doc.get(_AW))
    records = _obj(doc.get("phases"))
    return fingerprint(
        {
            "workflow": _identity(doc),
            "aw": {k: aw.get(k) for k in ("phases", "current_phase", "current_phase_index",
                                          "phase_status", "supervised_review", "recovery_action")},
            "top": [doc.get("current_phase"), doc.get("active_agent")],
            "records": {str(k): _obj(r).get("status") for k, r in records.items()},
        }
    )  # fmt: skip


def _redo_excused(doc: Mapping[str, Any], path: Path_, old: Any, new: Any) -> bool:
    """A supervised redo moves the redone phase from completed back to in_progress
    (docs/formats.md#write-guards)."""
    review = _obj(_obj(doc.get(_AW)).get("supervised_review"))
    redo = review.get("status") == "redo_pending" or ((_index(review.get("redo_count")) or 0) > 0)
    key = path[2] if path[0] == _AW else path[1]
    return redo and old == "completed" and new == "in_progress" and review.get("phase") == key


# ----------------------------------------------------------------------------- stale write


def plan_stale_write(before: Mapping[str, Any], after: Mapping[str, Any]) -> RepairPlan | None:
    """The repair of a write that regressed the orchestration fields: ``before`` is a version
    phasewatch saw, ``after`` the file now. None when nothing regressed, when the workflow is
    not the same one (started, ended or replaced: not a stale write of it), when its phase list
    changed, or when the write itself records a retry or rollback (a legitimate regression)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return None
    identity = _identity(after)
    if identity is None or plain(identity) != plain(_identity(before)):
        return None
    phases = _phases(after)
    if not phases or phases != _phases(before):
        return None
    if marker_set_by_write(before, after):
        return None
    changes: list[FieldChange] = []
    pointers: tuple[Path_, ...] = ((_AW, "current_phase"), ("current_phase",))
    path: Path_
    aw_pointer, mirror = pointers
    old, new = get(before, aw_pointer), get(after, aw_pointer)
    po, pn = _position(phases, old), _position(phases, new)
    if po is not None and pn is not None and pn < po:
        changes.append(FieldChange(aw_pointer, new, old, f"moved back from {old} to {new}"))
    # the top-level mirror: written away from the value seen, to a phase behind the one seen
    # (or, when none was set, behind the workflow's pointer) or to one the workflow does not run
    old, new = get(before, mirror), get(after, mirror)
    seen = _position(phases, old)
    seen = _position(phases, get(before, aw_pointer)) if seen is None else seen
    pn = _position(phases, new)
    if (
        new != old
        and isinstance(new, str)
        and new
        and seen is not None
        and (pn is None or pn < seen)
    ):
        old = None if old is _MISSING else old
        reason = f"moved back from {old} to {new}"
        pointer = next(
            (c.proposed for c in changes if c.path == aw_pointer), get(after, aw_pointer)
        )
        if old == get(before, aw_pointer) and isinstance(pointer, str) and pointer != old:
            old, reason = pointer, f"{reason}; the mirror of active_workflow.current_phase"
        changes.append(FieldChange(mirror, new, old, reason))
    path = (_AW, "current_phase_index")
    old_i, new_i = _index(get(before, path)), _index(get(after, path))
    if old_i is not None and new_i is not None and new_i < old_i:
        changes.append(FieldChange(path, new_i, old_i, f"moved back from {old_i} to {new_i}"))
    for path in _status_paths(after):
        old, new = get(before, path), get(after, path)
        ro, rn = _rank(old), _rank(new)
        if ro is None or rn is None or rn >= ro or _redo_excused(after, path, old, new):
            continue
        changes.append(FieldChange(path, new, old, f"went back from {old} to {new}"))
    if not changes:
        return None
    restored = any(
        c.path == aw_pointer or (c.path == mirror and c.proposed == get(before, mirror))
        for c in changes
    )
    agent_old, agent_new = get(before, ("active_agent",)), get(after, ("active_agent",))
    if restored and isinstance(agent_old, str) and agent_old and agent_new != agent_old:
        changes.append(
            FieldChange(
                ("active_agent",),
                None if agent_new is _MISSING else agent_new,
                agent_old,
                "the agent of the restored phase",
            )
        )
    planned = {c.label for c in changes}
    forward = _moved_forward(before, after, phases)
    kept = tuple(
        p
        for p in changed_paths(plain(before), plain(after))
        if p not in planned and p != "state_version"
    )
    return RepairPlan(
        STALE_WRITE,
        tuple(changes),
        base_version=_version_of(after.get("state_version")),
        from_version=_version_of(before.get("state_version")),
        kept=kept,
        unknown=forward,
        workflow=plain(identity),
        reads=reads(after),
    )


def _moved_forward(
    before: Mapping[str, Any], after: Mapping[str, Any], phases: list[Any]
) -> tuple[Unknown, ...]:
    """Orchestration fields the same write moved forward: a legitimate step, or a stale copy
    from before a rollback or retry; which one cannot be known, so they stay as written."""
    why = (
        "moved forward from {} to {} by the same write: a step of the workflow, or a copy from "
        "before a rollback or retry; which one cannot be known, so it stays"
    )
    out = []
    path: Path_ = (_AW, "current_phase")
    old, new = get(before, path), get(after, path)
    po, pn = _position(phases, old), _position(phases, new)
    if po is not None and pn is not None and pn > po:
        out.append(Unknown(path, why.format(old, new)))
    path = (_AW, "current_phase_index")
    old_i, new_i = _index(get(before, path)), _index(get(after, path))
    if old_i is not None and new_i is not None and new_i > old_i:
        out.append(Unknown(path, why.format(old_i, new_i)))
    for path in _status_paths(after):
        old, new = get(before, path), get(after, path)
        ro, rn = _rank(old), _rank(new)
        if ro is not None and rn is not None and rn > ro:
            out.append(Unknown(path, why.format(old, new)))
    return tuple(out)


# ----------------------------------------------------------------------------- locations


def plan_locations(state: Mapping[str, Any]) -> RepairPlan | None:
    """The repair of the location disagreements the framework's V9-A/B/C warn about. None when
    the framework would not warn; a plan with no changes (only ``unknown``) when it would but
    no right value can be known."""
    if not isinstance(state, Mapping) or not isinstance(state.get(_AW), Mapping):
        return None
    doc = plain(state)
    changes: list[FieldChange] = []
    unknown: list[Unknown] = []
    aw = doc[_AW]
    phases = _phases(doc)
    current = aw.get("current_phase")
    pos = _position(phases, current)
    if v9c(doc):
        _index_fix(doc, phases, pos, changes, unknown)
        moved = [c.proposed for c in changes if c.path == (_AW, "current_phase")]
        current = moved[0] if moved else current  # a fixed pointer, for V9-B below
    if v9b(doc) or any(c.path == (_AW, "current_phase") for c in changes):
        top = doc.get("current_phase")
        if isinstance(current, str) and current and top != current:
            changes.append(
                FieldChange(
                    ("current_phase",),
                    top,
                    current,
                    "the mirror of active_workflow.current_phase, which every hook reads (V9-B)",
                )
            )
    for key in v9a(doc):
        _status_fix(doc, phases, str(key), changes, unknown)
    if not changes and not unknown:
        return None
    return RepairPlan(
        LOCATION,
        tuple(changes),
        base_version=_version_of(state.get("state_version")),
        unknown=tuple(unknown),
        workflow=_identity(doc),
        reads=reads(state),
    )


def _summary(doc: Mapping[str, Any], key: str) -> Any:
    return _obj(_obj(doc.get(_AW)).get("phase_status")).get(key)


def _detail(doc: Mapping[str, Any], key: str) -> Any:
    return _obj(_obj(doc.get("phases")).get(key)).get("status")


def _index_fix(
    doc: Mapping[str, Any],
    phases: list[Any],
    pos: int | None,
    changes: list[FieldChange],
    unknown: list[Unknown],
) -> None:
    """V9-C: ``phases[current_phase_index]`` is not the current phase (nor one past it)."""
    aw = _obj(doc.get(_AW))
    index = aw.get("current_phase_index")
    path = (_AW, "current_phase_index")
    at = phases[index] if isinstance(index, int) and 0 <= index < len(phases) else None
    if pos is not None and isinstance(index, int) and index < pos:
        changes.append(
            FieldChange(
                path,
                index,
                pos,
                f"the position of active_workflow.current_phase ({phases[pos]}); phase-advance "
                "advances from the index (V9-C)",
            )
        )
        return
    if (
        isinstance(at, str)
        and _summary(doc, at) == "in_progress"
        and _detail(doc, at) in ("in_progress", None)
        and pos is not None
        and _summary(doc, phases[pos]) == "completed"
    ):
        changes.append(
            FieldChange(
                (_AW, "current_phase"),
                aw.get("current_phase"),
                at,
                f"{phases[pos]} is completed and {at}, where the index points, is in progress: "
                "the pointer was left behind (V9-C)",
            )
        )
        return
    unknown.append(
        Unknown(
            path,
            f"current_phase_index {index} points at {at} but current_phase is "
            f"{aw.get('current_phase')}; lowering the index is what V8 blocks, and the "
            "statuses do not say which one is right",
        )
    )


def _status_fix(
    doc: Mapping[str, Any],
    phases: list[Any],
    key: str,
    changes: list[FieldChange],
    unknown: list[Unknown],
) -> None:
    """V9-A: ``phases[key].status`` and ``phase_status[key]`` differ. The lower is raised to
    the higher where the workflow's position says which is right: a phase before the current
    one is completed; the current phase's activation (pending/in_progress) was half-written.
    Nothing is ever lowered (V8 blocks that)."""
    detail, summary = _detail(doc, key), _summary(doc, key)
    where = ("phases", key, "status")
    current = _obj(doc.get(_AW)).get("current_phase")
    pos, cur = _position(phases, key), _position(phases, current)
    rd, rs = _rank(detail), _rank(summary)
    target: str | None = None
    why = ""
    if rd is None or rs is None:
        why = f"phases[{key}].status is {detail!r} and phase_status says {summary!r}"
    elif pos is None or cur is None:
        why = f"{key} is not in the workflow's phases, or the current phase is not"
    elif pos < cur and "completed" in (detail, summary):
        target, why = "completed", f"{key} comes before the current phase {current} (V9-A)"
    elif pos == cur and {detail, summary} == {"pending", "in_progress"}:
        target = "in_progress"
        why = f"{key} is the current phase and was activated in one map only (V9-A)"
    else:
        why = (
            f"phases[{key}].status is {detail} and phase_status says {summary}; the workflow's "
            "position does not say which is right, and lowering one is what V8 blocks"
        )
    if target is None:
        unknown.append(Unknown(where, why))
        return
    for path, value in ((where, detail), ((_AW, "phase_status", key), summary)):
        if value != target:
            changes.append(FieldChange(path, value, target, why))


# ----------------------------------------------------------------------------- the claim


def repair_claim(plan: RepairPlan) -> Claim:
    """What the file must hold for the repair to be in it (:func:`.claims.holds`)."""
    claim: Claim = plain(
        {
            "decision": "repair",
            "kind": plan.kind,
            "workflow": plan.workflow,
            "changes": [
                {"path": list(c.path), "current": c.current, "proposed": c.proposed}
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
            if (now is _MISSING and expect is not None) or (
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
    return apply_update(
        path,
        _mutation(plan),
        action=plan.action,
        params={"plan": plan.to_json()},
        expect_version=plan.base_version,
        who=who,
        via=via,
        journal=journal,
        settle=settle,
    )


#: An ``intent`` line older than this with no outcome after it is a writer that died mid-write,
#: not one in flight (its fate is the file's to tell: plan again).
IN_FLIGHT_SECONDS = 60.0


def in_flight(
    path: str | os.PathLike[str], journal: str | os.PathLike[str] | None = None
) -> str | None:
    """Why a repair must wait, or None: the journal's newest ``intent`` line for ``path`` is
    recent and no outcome line of its action came after it (another phasewatch process is
    writing a decision or a repair into the file now)."""
    p = Path(os.path.abspath(path))
    root = _project_root(p)
    target = _rel(root, p)
    lines = read_journal(Path(journal) if journal is not None else journal_path(root), intents=True)
    mine = [e for e in lines if e.get("target") == target]
    at_intent = next(
        (i for i in range(len(mine) - 1, -1, -1) if mine[i].get("outcome") == "intent"), None
    )
    if at_intent is None:
        return None
    newest = mine[at_intent]
    if any(e.get("action") == newest.get("action") for e in mine[at_intent + 1 :]):
        return None  # its outcome line came
    try:
        at = datetime.fromisoformat(str(newest.get("ts")).replace("Z", "+00:00"))
        age = (datetime.now(UTC) - at).total_seconds()
    except (TypeError, ValueError):
        return None
    if not 0 <= age <= IN_FLIGHT_SECONDS:
        return None
    return (
        f"another phasewatch write ({clean(str(newest.get('action')))}) to this file is in "
        "flight; nothing written. Look again when it is done."
    )


def _refuse(message: str, outcome: Outcome = INVALID) -> Any:
    def mutate(_doc: dict[str, Any]) -> Change:
        raise _Refusal(outcome, message)

    return mutate


def last_repair(
    path: str | os.PathLike[str], journal: str | os.PathLike[str] | None = None
) -> dict[str, Any] | None:
    """The journal's newest ``applied`` line for ``path`` when it is a repair (None when it is
    not: another phasewatch write came after the repair, or there is none)."""
    p = Path(os.path.abspath(path))
    root = _project_root(p)
    target = _rel(root, p)
    lines = read_journal(Path(journal) if journal is not None else journal_path(root))
    newest = next(
        (
            e
            for e in reversed(lines)
            if e.get("target") == target
            and e.get("outcome") == APPLIED
            and not (e.get("params") or {}).get("already_applied")
        ),
        None,
    )
    action = newest.get("action") if newest is not None else None
    if newest is None or not (isinstance(action, str) and action.startswith("repair ")):
        return None
    return newest if action != "repair undo" else None


def _plan_of(entry: Mapping[str, Any]) -> RepairPlan:
    data = _obj(_obj(entry.get("params")).get("plan"))
    claim = _obj(entry.get("claim"))
    kind = data.get("kind")
    return RepairPlan(
        kind if kind in (STALE_WRITE, LOCATION) else STALE_WRITE,
        tuple(
            FieldChange(tuple(c["path"]), c["current"], c["proposed"], str(c.get("reason", "")))
            for c in data.get("changes") or ()
        ),
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
    entry = last_repair(path, journal)
    why, outcome = in_flight(path, journal), CONFLICT
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
            if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
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
