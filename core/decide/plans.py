"""Guided repair's plans: what a stale write undid, or how the three locations disagree, and the
values that would put it right (docs/formats.md#repair). Reading only: nothing here writes, so
the review console plans a repair without loading the writer; :mod:`.repair` writes a plan.

* **stale-write** (:func:`plan_stale_write`): the transition audit names a write over a
  version phasewatch saw (or ``--against``) as a stale copy written back
  (``core.audit.stale_write``). Everything under :data:`ORCHESTRATION_KEYS` goes back to that
  version (``from_version``): what the write moved back, deleted, or brought back; what it
  added after that version and every other top-level field are kept (``kept``). Where nothing
  safe exists the plan changes nothing and ``unknown`` says why.
* **location** (:func:`plan_locations`): the three locations disagree the way the framework's
  V9-A/B/C warn about. The phase statuses decide where the workflow is, and the pointer, the
  top-level mirror and the index are set to it (the index only raised). A disagreement whose
  right value cannot be known, or whose fix would lower a field the framework's V8 guards, is
  listed in ``unknown`` with why, and nothing is proposed for it.

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

import msgspec
from msgspec import Struct

from ..audit._util import entry_key
from ..audit.framework import completed_ahead, unfinished_outside_redo, v9a
from ..diff import changed_paths, join_key
from ..protocol import STATUS_RANK
from ..text import one_line
from .codec import plain
from .summary import _identity, _obj, _version_of, fingerprint

Kind = Literal["stale-write", "location"]
STALE_WRITE: Kind = "stale-write"
LOCATION: Kind = "location"
Path_ = tuple[str, ...]

_AW = "active_workflow"


class _Absent:
    """A key the document does not hold (a change's ``current`` or ``proposed``)."""

    def __repr__(self) -> str:
        return "(absent)"


ABSENT: Any = _Absent()


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
        """``current``/``proposed`` as JSON; a key that is (or is to be) absent is ``null``
        with ``current_absent``/``proposed_absent`` true."""
        out = {
            "path": list(self.path),
            "label": self.label,
            "current": None if self.current is ABSENT else plain(self.current),
            "proposed": None if self.proposed is ABSENT else plain(self.proposed),
            "reason": self.reason,
        }
        for name, value in (("current", self.current), ("proposed", self.proposed)):
            if value is ABSENT:
                out[f"{name}_absent"] = True
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FieldChange:
        """The change :meth:`to_json` wrote (a journal line's plan)."""
        current = ABSENT if data.get("current_absent") else data.get("current")
        proposed = ABSENT if data.get("proposed_absent") else data.get("proposed")
        return cls(tuple(data["path"]), current, proposed, str(data.get("reason", "")))


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
    #: (stale-write) False when nothing says the file is a stale write of the copy seen (it
    #: only moved on): the command says so and exits 2, the dashboard offers nothing
    stale: bool = True

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
        if self.changes:
            lines.append(
                f"{self.action}: {len(self.changes)} field(s) to write over state_version "
                f"{self.base_version}{source}"
            )
        else:
            lines.append(
                f"{self.action}: no safe repair of state_version {self.base_version}{source}"
            )
        for c in self.changes:
            lines.append(f"  {c.label}: {show(c.current)} -> {show(c.proposed)}  ({c.reason})")
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


def show(value: Any) -> str:
    """A planned value as the previews show it (:data:`ABSENT`: ``(absent)``); raw, to be
    cleaned by the caller (``describe`` does)."""
    from ..diff import format_value

    return "(absent)" if value is ABSENT else format_value(plain(value))


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


# ----------------------------------------------------------------------------- stale write

#: Top-level keys whose every value the framework's next step reads (phase-advance.cjs, the
#: gate checks on ``phases[k]``, the delegation guards, the review gate, the escalations): a
#: stale write's change to any of them is put back (docs/formats.md#repair).
ORCHESTRATION_KEYS = (
    "active_workflow",
    "phases",
    "current_phase",
    "active_agent",
    "pending_escalations",
    "suspended_workflow",
    "skill_usage_log",  # phase-advance's agent_delegation check reads it
)
#: Lists whose entries the framework removes when they are answered: an entry of the write
#: that the copy seen does not hold is an old one brought back, unless it is newer.
QUEUES: frozenset[Path_] = frozenset({("pending_escalations",)})
#: The fields the framework's V8 guards: putting one back lowers it (both eras block that).
_V8_MAPS = ((_AW, "phase_status"), ("phases",))
_STAMP_KEYS = ("timestamp", "_at", "started", "completed")


def _guarded(path: Path_) -> bool:
    if path == (_AW, "current_phase_index"):
        return True
    return (len(path) == 3 and path[:2] == _V8_MAPS[0]) or (
        len(path) == 3 and path[0] == "phases" and path[2] == "status"
    )


def _stamps(value: Any, key: str = "") -> Iterator[str]:
    """Every timestamp-like string in ``value`` (under a key that names a time)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _stamps(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _stamps(v, key)
    elif isinstance(value, str) and any(s in key for s in _STAMP_KEYS):
        yield value


def _newest(doc: Any) -> str:
    from ..protocol import parse_iso

    best = ""
    best_t = None
    for text in _stamps(doc):
        t = parse_iso(text)
        if t is not None and (best_t is None or t > best_t):
            best, best_t = text, t
    return best


def _newer_than(value: Any, stamp: str) -> bool:
    """``value`` holds a time later than ``stamp``: written after the copy seen (new work)."""
    from ..protocol import parse_iso

    limit = parse_iso(stamp)
    if limit is None:
        return False
    return any((t := parse_iso(x)) is not None and t > limit for x in _stamps(value))


def stale_signs(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Why ``after`` is a stale write over ``before`` (a sub-agent's old copy written back):
    the messages of the transition audit's stale-write findings (``core.audit.stale_write``),
    the same the dashboard offers a repair for; empty when it finds none."""
    from ..audit import audit_transition, stale_write
    from ..models import parse_state

    prev, cur = parse_state(dict(before))[0], parse_state(dict(after))[0]
    found = audit_transition(prev, dict(before), cur, dict(after), "state.json")
    return [f.message for f in stale_write(found)]


def _differs(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The top-level keys the framework reads that differ between the two documents."""
    return [k for k in ORCHESTRATION_KEYS if get(before, (k,)) != get(after, (k,))]


class _Restore:
    """Walks the copy seen (``before``) against the file (``after``) and collects what a
    repair of a stale write sets: everything the framework reads put back, the write's own
    additions kept, and what cannot go back (a V8-guarded field the write moved forward)."""

    def __init__(self, before: Mapping[str, Any], after: Mapping[str, Any]) -> None:
        from ..audit.framework import marker_clears, marker_set_by_write
        from ..audit.transition import EVIDENCE_PATHS

        self.changes: list[FieldChange] = []
        self.unsafe: list[Unknown] = []
        self.kept: list[str] = []
        self.newest = _newest(before)
        # the sub-agent's own evidence: on the phase its copy was at, unless a retry or
        # rollback since the copy cleared that phase's evidence (then it is the old one back)
        phase = _obj(after.get(_AW)).get("current_phase")
        recovered = isinstance(phase, str) and (
            marker_set_by_write(after, before) and marker_clears(before, phase)
        )
        self.own: frozenset[Path_] = frozenset(
            () if recovered or not isinstance(phase, str) else
            {("phases", phase, *p) for p in EVIDENCE_PATHS}
        )  # fmt: skip

    def walk(self, b: Any, a: Any, path: Path_) -> None:
        if b is _MISSING and a is _MISSING:
            return
        if b is not _MISSING and a is not _MISSING and b == a:
            return
        if path in self.own and a is not _MISSING:
            self.kept.append(label(path))  # the sub-agent's work on its own phase
            return
        if b is _MISSING and isinstance(a, list):
            b = []  # a list the copy seen did not hold: what of it is new
        if isinstance(b, list) and isinstance(a, list):
            # lists accumulate (logs, artifacts, guidance): the entries the copy seen held go
            # back, the write's own are kept; a queue (escalations, answered and removed)
            # keeps only entries written after the copy seen
            queue = path in QUEUES
            seen = {entry_key(x) for x in b}
            added = [
                x
                for x in a
                if entry_key(x) not in seen and (not queue or _newer_than(x, self.newest))
            ]
            merged = list(b) + added
            if merged != a:
                why = "entries the stale write dropped are put back"
                if queue:
                    why = "entries answered since the copy seen stay answered"
                self._set(path, a, merged, why)
            if added:
                self.kept.append(label(path))
            return
        if isinstance(b, Mapping) and isinstance(a, Mapping):
            for k in list(b) + [k for k in a if k not in b]:
                self.walk(b.get(k, _MISSING), a.get(k, _MISSING), (*path, str(k)))
            return
        if b is _MISSING:
            if self.newest and _newer_than(a, self.newest):
                self.kept.append(label(path))  # written after the copy seen: the sub-agent's
                return
            self._set(path, a, ABSENT, "not in the state seen: the stale copy brought it back")
            return
        if a is _MISSING:
            self._set(path, ABSENT, b, "deleted by the stale write")
            return
        if _guarded(path):
            rb = _index(b) if path[-1] == "current_phase_index" else _rank(b)
            ra = _index(a) if path[-1] == "current_phase_index" else _rank(a)
            if rb is not None and ra is not None and ra > rb:
                self.unsafe.append(
                    Unknown(
                        path,
                        f"the write moved it forward from {show(b)} to {show(a)} (a copy from "
                        "before a rollback or retry?); putting it back would lower it, which the "
                        "framework's V8 blocks",
                    )
                )
                return
        self._set(path, a, b, "the stale write changed it from the state seen")

    def _set(self, path: Path_, current: Any, proposed: Any, reason: str) -> None:
        self.changes.append(FieldChange(path, current, proposed, reason))


def plan_stale_write(before: Mapping[str, Any], after: Mapping[str, Any]) -> RepairPlan | None:
    """The repair of a stale write: ``before`` is the copy seen (the controller's last state
    phasewatch saw, or ``--against``), ``after`` the file now.

    * None: nothing the framework reads differs between the two ("nothing to repair").
    * A plan with changes: ``after`` is a stale write of the same workflow; every field the
      framework reads (:data:`ORCHESTRATION_KEYS`) goes back to the copy seen: what the write
      moved back, deleted or emptied, and what it brought back that the state seen no longer
      held; what the write added after the copy seen (newer timestamps, new log entries) and
      every other top-level field are kept (``kept`` names them).
    * A plan without changes, ``unknown`` saying why (the command exits 2): the workflow was
      replaced, its phase list changed, the write moved a V8-guarded field forward (putting it
      back would lower it), or nothing says the write is stale (the state only moved on)."""
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return None
    differs = _differs(before, after)
    if not differs:
        return None
    plan = RepairPlan(
        STALE_WRITE,
        (),
        base_version=_version_of(after.get("state_version")),
        from_version=_version_of(before.get("state_version")),
        workflow=plain(_identity(after)),
        reads=reads(after),
    )
    refusal = _refusal(before, after, differs)
    if refusal is not None:
        path, why, stale = refusal
        return msgspec.structs.replace(plan, unknown=(Unknown(path, why),), stale=stale)
    walk = _Restore(before, after)
    for key in ORCHESTRATION_KEYS:
        walk.walk(get(before, (key,)), get(after, (key,)), (key,))
    for key in before:
        if key not in after:  # a deleted top-level key, whatever it held
            walk.walk(before[key], _MISSING, (str(key),))
    if walk.unsafe:
        return msgspec.structs.replace(plan, unknown=tuple(walk.unsafe))
    planned = {c.label for c in walk.changes}
    kept = list(dict.fromkeys(walk.kept))
    if not walk.changes:  # all that differs is the write's own additions, which stay
        why = (
            f"what differs from the copy seen is the write's own additions ({', '.join(kept[:5])}"
            f"{', ...' if len(kept) > 5 else ''}), which a repair keeps: nothing to put back"
        )
        return msgspec.structs.replace(
            plan, unknown=(Unknown((differs[0],), why),), kept=tuple(kept), stale=False
        )
    kept += [
        p
        for p in changed_paths(
            plain({k: v for k, v in before.items() if k not in ORCHESTRATION_KEYS}),
            plain({k: v for k, v in after.items() if k not in ORCHESTRATION_KEYS}),
        )
        if p not in planned and p != "state_version"
    ]
    return msgspec.structs.replace(plan, changes=tuple(walk.changes), kept=tuple(kept))


def _refusal(
    before: Mapping[str, Any], after: Mapping[str, Any], differs: list[str]
) -> tuple[Path_, str, bool] | None:
    """Why nothing can be put back field by field, as ``(path, why, stale)``, or None."""
    identity, seen = _identity(after), _identity(before)
    if identity is None and seen is None:
        why = "no workflow is active in the file or in the copy seen: nothing to put back"
        return (_AW,), why, False
    if plain(identity) != plain(seen):
        stale = _workflow_switch_stale(before, after)
        why = (
            f"the workflow is not the one seen ({_describe(before)} at state_version "
            f"{_version_of(before.get('state_version'))}, now {_describe(after)})"
        )
        if stale:
            why += (
                ": a whole workflow cannot be put back field by field. Compare the two with "
                "`phasewatch check --against`, then restore the copy by hand if it is the "
                "right one"
            )
        else:
            why += (
                ": the workflow seen ended (archived or suspended) and another started, not a "
                "stale write of that copy"
            )
        return (_AW,), why, stale
    if _phases(before) != _phases(after):
        why = "the workflow's phase list changed; which list is right cannot be known"
        return (_AW, "phases"), why, True
    if not stale_signs(before, after):
        moved = changed_paths(
            plain({k: get(before, (k,)) for k in differs}),
            plain({k: get(after, (k,)) for k in differs}),
        )
        more = f" (+{len(moved) - 5} more)" if len(moved) > 5 else ""
        why = (
            f"{', '.join(moved[:5])}{more} moved on from the copy seen and nothing went back: "
            "a later state of the workflow, not a stale write of that copy; nothing to put back"
        )
        return (differs[0],), why, False
    return None


def _workflow_switch_stale(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Another workflow is active than the one seen: a stale write (a copy from before the
    seen one started, or one that brings back a finished one), or the framework's own step
    (the seen one archived in ``workflow_history`` or suspended, a new one started)."""
    from ..audit._util import identity, same_identity
    from ..audit.framework import v7

    if v7(before, after) is not None:
        return True
    now = _obj(after.get(_AW))
    if now and any(
        same_identity(identity(h), identity(now)) is True
        for h in _list(before.get("workflow_history"))
    ):
        return True  # a workflow that had ended is active again
    seen = identity(_obj(before.get(_AW)))
    if not seen:
        return False  # a workflow started where none was active
    ends = [*_list(after.get("workflow_history")), after.get("suspended_workflow")]
    return not any(same_identity(identity(_obj(h)), seen) is True for h in ends)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _describe(doc: Mapping[str, Any]) -> str:
    aw = _obj(doc.get(_AW))
    if not aw:
        return "no active workflow"
    name = aw.get("slug") or aw.get("artifact_folder") or aw.get("id") or "?"
    return f"{aw.get('type') or '?'} {name}"


# ----------------------------------------------------------------------------- locations


def plan_locations(state: Mapping[str, Any]) -> RepairPlan | None:
    """The repair of the location disagreements the framework's V9-A/B/C warn about, and of the
    places its own steps never leave the pointer, the index or a later status in
    (docs/formats.md#phase-loop). None when there is none; a plan with no changes (only
    ``unknown``) when no right value can be known or writing it is what V8 blocks.

    Where the pointer, the index and the top-level mirror disagree, the phase statuses decide
    (:func:`_by_status`: the first phase both status maps do not call done): the one that
    names that phase is right and the others are set to it, never the other way round. Only
    raising the index is safe (V8 blocks lowering it), so an index past that phase is named,
    not touched; a mirror that already names it is left as it is."""
    if not isinstance(state, Mapping) or not isinstance(state.get(_AW), Mapping):
        return None
    doc = plain(state)
    changes: list[FieldChange] = []
    unknown: list[Unknown] = []
    phases = _phases(doc)
    truth = _by_status(doc, phases)
    # V9-B/C, and the places the framework's own steps never leave the pointers in
    _pointers_fix(doc, phases, truth, changes, unknown)
    current = phases[truth] if truth is not None else _obj(doc[_AW]).get("current_phase")
    for key in v9a(doc):
        _status_fix(doc, phases, str(key), current, changes, unknown)
    for key in completed_ahead(doc):
        unknown.append(
            Unknown(
                (_AW, "phase_status", str(key)),
                f"{key} is called completed before the workflow reached it (phase-advance "
                "would take it as done); lowering a status is what V8 blocks",
            )
        )
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


_DONE = ("completed", "skipped")


def _by_status(doc: Mapping[str, Any], phases: list[Any]) -> int | None:
    """The position of the phase the statuses say the workflow is at, or None when they do
    not say (or every phase is done).

    Strictly it is the first phase that ``phase_status`` and ``phases[k].status`` do not both
    call done; loosely, the first that neither calls done. The two differ only where the maps
    disagree (V9-A), and then any place between them fits the statuses: the pointer's, the
    index's or the mirror's, in that order, if one lies there."""

    def first(both: bool) -> int | None:
        for i, key in enumerate(phases):
            if not isinstance(key, str):
                return None
            summary, detail = _summary(doc, key) in _DONE, _detail(doc, key)
            record = summary if detail is None else detail in _DONE  # no record: the summary
            if not ((summary and record) if both else (summary or record)):
                return i
        return None

    strict, loose = first(both=True), first(both=False)
    if strict is None or strict == loose:
        return strict
    top = len(phases) - 1 if loose is None else loose
    aw = _obj(doc.get(_AW))
    for place in (
        _position(phases, aw.get("current_phase")),
        _index(aw.get("current_phase_index")),
        _position(phases, doc.get("current_phase")),
    ):
        if place is not None and strict <= place <= top:
            return place
    return None


def _pointers_fix(
    doc: Mapping[str, Any],
    phases: list[Any],
    truth: int | None,
    changes: list[FieldChange],
    unknown: list[Unknown],
) -> None:
    """V9-B/V9-C: the pointer, the top-level mirror and the index disagree. The pointer is
    right where the statuses put it (``truth``, the first phase not done) or on the phase just
    completed before it (the state between STEP 3e and the next start, index one past it);
    then the mirror follows it. Otherwise the pointer and the mirror are set to ``truth``. The
    index is raised to the pointer's place where it is behind, named where it is past."""
    aw = _obj(doc.get(_AW))
    pointer, top = aw.get("current_phase"), doc.get("current_phase")
    index = aw.get("current_phase_index")
    pos, idx = _position(phases, pointer), _index(index)
    if truth is None and pos is None:
        unknown.append(
            Unknown(
                (_AW, "current_phase"),
                f"current_phase is {pointer!r}, the top-level copy {top!r}, the index "
                f"{index!r}, and the phase statuses do not say which is right",
            )
        )
        return
    if truth is not None and truth > 0 and _untouched(doc, phases[truth]):
        # the first phase not done has not been started: the state between STEP 3e and the
        # next start, whose pointer stays on the phase just completed
        truth -= 1
    if pos is not None and (truth is None or pos == truth):
        target, why = pos, "the phase statuses agree with active_workflow.current_phase"
    else:
        assert truth is not None
        target = truth
        why = (
            f"{phases[truth]} is where the phase statuses put the workflow (the first phase "
            "not completed, or the one just completed before an unstarted one)"
        )
        changes.append(
            FieldChange((_AW, "current_phase"), pointer, phases[truth], f"{why}; hooks read it")
        )
    right = phases[target]
    if top is not None and top != "" and top != right:
        changes.append(
            FieldChange(
                ("current_phase",), top, right, f"{why}; the mirror of it that hooks read (V9-B)"
            )
        )
    if idx is None or idx == target:
        return
    if idx == target + 1:
        if unfinished_outside_redo(doc, right):  # (LOOP-INDEX-PAST's fact)
            unknown.append(
                Unknown(
                    (_AW, "current_phase_index"),
                    f"current_phase_index {idx} is one past {right}, which is not completed "
                    "and no redo runs (the next phase-advance would skip it); lowering the "
                    "index is what V8 blocks",
                )
            )
        return
    if idx < target:
        changes.append(
            FieldChange(
                (_AW, "current_phase_index"),
                index,
                target,
                f"the position of {right}; phase-advance advances from the index (V9-C)",
            )
        )
    else:
        unknown.append(
            Unknown(
                (_AW, "current_phase_index"),
                f"current_phase_index {idx} is past {right} (the next phase-advance would skip "
                "it); lowering the index is what V8 blocks",
            )
        )


def _started(doc: Mapping[str, Any], key: str) -> bool:
    return "in_progress" in (_summary(doc, key), _detail(doc, key))


def _untouched(doc: Mapping[str, Any], key: str) -> bool:
    """Neither status map calls ``key`` started or done (a map that does is one V9-A names)."""
    return not _started(doc, key) and not {_summary(doc, key), _detail(doc, key)} & set(_DONE)


def _summary(doc: Mapping[str, Any], key: str) -> Any:
    return _obj(_obj(doc.get(_AW)).get("phase_status")).get(key)


def _detail(doc: Mapping[str, Any], key: str) -> Any:
    return _obj(_obj(doc.get("phases")).get(key)).get("status")


def _status_fix(
    doc: Mapping[str, Any],
    phases: list[Any],
    key: str,
    current: Any,
    changes: list[FieldChange],
    unknown: list[Unknown],
) -> None:
    """V9-A: ``phases[key].status`` and ``phase_status[key]`` differ. The lower is raised to
    the higher where the workflow's position (``current``, as the statuses decide it) says
    which is right: a phase before the current one is completed; the current phase's
    activation (pending/in_progress) was half-written. Nothing is ever lowered (V8 blocks
    that)."""
    detail, summary = _detail(doc, key), _summary(doc, key)
    where = ("phases", key, "status")
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
