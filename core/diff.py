"""Structured diff of two JSON documents (two versions of state.json).

``diff_json(a, b)`` walks dicts by key and lists by index and returns one :class:`Change` per
differing leaf or sub-tree (a sub-tree that appears or disappears is one change, not one per
leaf). Lists get two cheap special cases: a pure append (``b`` starts with ``a``) and a prune
from the front plus append (``workflow_history`` is pruned to 50 entries). Paths look like
``active_workflow.phase_status.06-implementation`` and ``workflow_history[3].status``; keys
that are not plain words are quoted (``phases["a.b"]``).

Values are compared by JSON type: ``1``, ``1.0`` and ``true`` differ. Nothing here raises: too
deep nesting is compared as a whole below ``max_depth`` and the number of changes is capped.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from msgspec import Struct

Kind = Literal["added", "removed", "changed"]
ROOT = "$"
MAX_DEPTH = 64
MAX_CHANGES = 10_000
MAX_SHIFT = 8  # list prunes from the front detected up to this many entries

_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_\-]+$")


class Change(Struct, frozen=True):
    path: str
    kind: Kind
    old: Any = None  # meaningless for "added"
    new: Any = None  # meaningless for "removed"


def join_key(path: str, key: Any) -> str:
    """``path`` + dict key, quoting keys that are not plain words."""
    text = key if isinstance(key, str) else str(key)
    part = text if _PLAIN_KEY.match(text) else "[" + json.dumps(text, ensure_ascii=False) + "]"
    if path == ROOT:
        return part if not part.startswith("[") else ROOT + part
    return f"{path}{part}" if part.startswith("[") else f"{path}.{part}"


def join_index(path: str, index: int) -> str:
    return f"{path}[{index}]"


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (bool is not int, int is not float)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (a != a and b != b)  # NaN (Python's json reads it) equals itself here
    try:
        return bool(a == b)
    except RecursionError:
        return False


class _Differ:
    def __init__(self, max_depth: int, max_changes: int) -> None:
        self.max_depth = max_depth
        self.max_changes = max_changes
        self.out: list[Change] = []
        self.truncated = False

    def add(self, change: Change) -> None:
        if len(self.out) >= self.max_changes:
            self.truncated = True
            return
        self.out.append(change)

    def walk(self, a: Any, b: Any, path: str, depth: int) -> None:
        if self.truncated or a is b:
            return
        if type(a) is not type(b) or depth >= self.max_depth:
            if not _same(a, b):
                self.add(Change(path, "changed", a, b))
            return
        if isinstance(a, dict):
            self._dict(a, b, path, depth)
        elif isinstance(a, list):
            self._list(a, b, path, depth)
        elif not _same(a, b):
            self.add(Change(path, "changed", a, b))

    def _dict(self, a: dict[Any, Any], b: dict[Any, Any], path: str, depth: int) -> None:
        for key, old in a.items():
            sub = join_key(path, key)
            if key in b:
                self.walk(old, b[key], sub, depth + 1)
            else:
                self.add(Change(sub, "removed", old, None))
        for key, new in b.items():
            if key not in a:
                self.add(Change(join_key(path, key), "added", None, new))

    def _list(self, a: list[Any], b: list[Any], path: str, depth: int) -> None:
        na, nb = len(a), len(b)
        if nb >= na and _same(a, b[:na]):  # pure append (or equal)
            for i in range(na, nb):
                self.add(Change(join_index(path, i), "added", None, b[i]))
            return
        for shift in range(1, min(MAX_SHIFT, na - 1) + 1):  # pruned from the front (+ appended)
            kept = na - shift
            if nb >= kept and _same(a[shift:], b[:kept]):
                for i in range(shift):
                    self.add(Change(join_index(path, i), "removed", a[i], None))
                for i in range(kept, nb):
                    self.add(Change(join_index(path, i), "added", None, b[i]))
                return
        for i in range(min(na, nb)):
            self.walk(a[i], b[i], join_index(path, i), depth + 1)
        for i in range(nb, na):
            self.add(Change(join_index(path, i), "removed", a[i], None))
        for i in range(na, nb):
            self.add(Change(join_index(path, i), "added", None, b[i]))


def diff_json(
    a: Any, b: Any, *, max_depth: int = MAX_DEPTH, max_changes: int = MAX_CHANGES
) -> list[Change]:
    """Every difference between ``a`` (old) and ``b`` (new), in document order. Never raises."""
    differ = _Differ(max_depth, max_changes)
    try:
        differ.walk(a, b, ROOT, 0)
    except RecursionError:
        differ.add(Change(ROOT, "changed", a, b))
    return differ.out


def changed_paths(a: Any, b: Any, *, max_changes: int = MAX_CHANGES) -> list[str]:
    """Paths of every change between ``a`` and ``b`` (document order, no duplicates)."""
    return capped_paths(a, b, max_changes=max_changes)[0]


def capped_paths(a: Any, b: Any, *, max_changes: int = MAX_CHANGES) -> tuple[list[str], bool]:
    """:func:`changed_paths` and whether ``max_changes`` cut the list short (a timeline row
    records at most that many; the diff pane, from :func:`diff_json`, names them alike)."""
    changes = diff_json(a, b, max_changes=max_changes + 1)
    paths = list(dict.fromkeys(c.path for c in changes))
    return paths[:max_changes], len(paths) > max_changes


def summarize_paths(
    paths: list[str], limit: int = 3, *, ignore: frozenset[str] | set[str] = frozenset()
) -> str:
    """One short line for a timeline row: ``"a.b, c[2] +3 more"``; ``""`` when nothing changed.

    Paths in ``ignore`` (e.g. ``state_version``, bumped by every write) are left out unless
    nothing else changed.
    """
    shown = [p for p in paths if p not in ignore] or list(paths)
    if not shown:
        return ""
    head = ", ".join(shown[:limit])
    rest = len(shown) - limit
    return f"{head} +{rest} more" if rest > 0 else head


def format_value(value: Any, width: int = 60) -> str:
    """A JSON value as one short line (strings quoted, containers compact)."""
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"
