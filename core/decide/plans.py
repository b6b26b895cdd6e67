"""Guided repair's plans: what a stale write undid, or how the three locations disagree, and the
values that would put it right (docs/formats.md#repair). Reading only: nothing here writes, so
the review console plans a repair without loading the writer; :mod:`.repair` writes a plan.

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
* :func:`reads` ``(doc)``: the fingerprint of every field a plan reads (the write is refused
  when the file's differ).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from msgspec import Struct

from ..audit.framework import marker_set_by_write, v9a, v9b, v9c
from ..diff import changed_paths, join_key
from ..protocol import STATUS_RANK
from ..text import one_line
from .codec import plain
from .summary import _identity, _obj, _version_of, fingerprint

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


class FieldChange(Struct, frozen=True):
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


class Unknown(Struct, frozen=True):
    """A disagreement the plan leaves alone: where, and why its right value cannot be known."""

    path: Path_
    why: str

    @property
    def label(self) -> str:
        return label(self.path)

    def to_json(self) -> dict[str, Any]:
        return {"path": list(self.path), "label": self.label, "why": self.why}


class RepairPlan(Struct, frozen=True):
    """What a repair would write. ``base_version``: the disk's ``state_version`` the plan
    applies to; ``from_version``: (stale-write) the version the values are restored from;
    ``kept``: (stale-write) paths the newer write changed that stay as it wrote them."""

    kind: Kind
    changes: tuple[FieldChange, ...]
    base_version: int | None
    from_version: int | None = None
    kept: tuple[str, ...] = ()
    unknown: tuple[Unknown, ...] = ()
    workflow: Any = None  # the active workflow's identity
    #: the fingerprint of every orchestration field the plan was made from (:func:`reads`);
    #: the write is refused when the file's differ, whatever its state_version says
    reads: str = ""

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
