"""What a session has seen of each workflow: its newest recovery marker, and how far it got
under that marker.

One write judged against the file before it cannot tell two stale copies in a row from the
framework's own steps: the second copy, over the first, can have the shape of an interrupt (a
workflow suspended, another active) or of a fresh rollback (a marker the first copy lacked). The
framework's V7/V8 still block it, judging only the index or the statuses. A session that has
seen the controller's newer state knows better: a workflow that comes back at an earlier phase
than it was seen at, with no marker newer than the one it was seen under, is a stale copy, and
a marker older than one already seen for the same workflow excuses nothing
(docs/framework-facts.md#recovery-markers).

The memory is bounded: :data:`LIMIT` workflows, the most recently seen kept.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from .framework import is_number, marker_set_by_write, prop, truthy

#: Workflows remembered per session (one entry each; a session sees a handful a day).
LIMIT = 32


class Epoch(Struct, frozen=True):
    """One workflow (``type``, ``started_at``) as last seen: its newest marker and the highest
    ``current_phase_index`` seen under it."""

    key: tuple[str, str]
    marker: Any = None  # active_workflow.recovery_action, as written
    rollback_count: Any = None
    furthest: int | float | None = None

    def document(self) -> dict[str, Any]:
        """A document holding what :func:`marker_set_by_write` reads of this epoch."""
        aw: dict[str, Any] = {"type": self.key[0], "started_at": self.key[1]}
        if self.marker is not None:
            aw["recovery_action"] = self.marker
        if self.rollback_count is not None:
            aw["rollback_count"] = self.rollback_count
        return {"active_workflow": aw}


Seen = tuple[Epoch, ...]  # oldest first


def _key(doc: Any) -> tuple[str, str] | None:
    aw = prop(doc, "active_workflow")
    kind, started = prop(aw, "type"), prop(aw, "started_at")
    if isinstance(kind, str) and kind and isinstance(started, str) and started:
        return (kind, started)
    return None


def _find(seen: Seen, key: tuple[str, str] | None) -> Epoch | None:
    return next((e for e in reversed(seen) if e.key == key), None) if key else None


def _index(doc: Any) -> int | float | None:
    i = prop(prop(doc, "active_workflow"), "current_phase_index")
    return i if is_number(i) else None


def remember(seen: Seen, doc: Any) -> Seen:
    """``seen`` after observing ``doc``: its workflow's marker, if newer than the one seen, starts
    a new epoch; under the same marker the furthest index grows; an older marker changes
    nothing (the copy that carries it is stale)."""
    key = _key(doc)
    if key is None:
        return seen
    aw = prop(doc, "active_workflow")
    marker = prop(aw, "recovery_action")
    marker = marker if truthy(marker) else None
    index = _index(doc)
    old = _find(seen, key)
    if old is None or (marker is not None and marker_set_by_write(old.document(), doc)):
        new = Epoch(key, marker, prop(aw, "rollback_count"), index)
    elif marker == old.marker:
        furthest = old.furthest
        if index is not None and (furthest is None or index > furthest):
            furthest = index
        if furthest == old.furthest:
            return seen
        new = Epoch(key, old.marker, old.rollback_count, furthest)
    else:
        return seen  # an older marker, or none where one was seen: a stale copy
    rest = tuple(e for e in seen if e.key != key)
    return (*rest, new)[-LIMIT:]


def marker_fresh(seen: Seen, incoming: Any) -> bool:
    """``incoming``'s marker is newer than every marker seen for its workflow (True when its
    workflow was never seen)."""
    epoch = _find(seen, _key(incoming))
    return epoch is None or marker_set_by_write(epoch.document(), incoming)


def replayed(seen: Seen, incoming: Any) -> bool:
    """``incoming`` brings its workflow back at an earlier phase than it was seen at, under no
    newer marker: a copy from before the controller's later steps."""
    epoch = _find(seen, _key(incoming))
    if epoch is None or epoch.furthest is None:
        return False
    index = _index(incoming)
    return index is not None and index < epoch.furthest and not marker_fresh(seen, incoming)
