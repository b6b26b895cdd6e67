"""A virtual view of ``.isdlc/hook-activity.log`` records (line API: only visible lines render).

Records are kept in compact columns, never as objects:

* ``hook``, ``event``, ``phase``, ``agent`` and ``reason`` are interned per column (a table of
  distinct values plus one id per record in a ``bytearray`` while a column has at most 256
  distinct values, an ``array('I')`` after that);
* ``ts`` is a list of references, ``line_no``/``offset`` are ``array('q')``, the record kind
  (invalid, valid, rotation marker) is a ``bytearray``; the error and raw text of invalid lines
  sit in a sparse dict.

A filter is a byte mask per column built with ``bytes.translate`` (or a C-level ``map`` over the
ids), combined with big-integer ``&``/``|`` and turned into an ``array('I')`` of visible record
indices with ``itertools.compress``: no Python-level loop over the records. Text search scans
the (few) distinct values of each column once and then masks the ids. Rendered lines are cached
as Strips in an LRU keyed by (record index, layout), so scrolling only renders new rows.

Every string reaches the terminal as a ``Segment`` (never parsed as markup). The widget does no
file I/O: the owner feeds it records with :meth:`HookLogView.append`.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import chain, compress, islice
from operator import attrgetter
from typing import Any, ClassVar, NamedTuple

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Select, Static

KIND_INVALID = 0
KIND_VALID = 1
KIND_MARKER = 2

BLOCK_EVENTS = frozenset({"block", "error"})
WARN_EVENTS = frozenset({"warn", "timeout_warning", "format-validation-warning"})
MAX_REASON_CELLS = 1000  # longer reasons are cut (the horizontal scroll stops there)


def _and(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    n = len(a)
    return (int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(n, "little")


def _or(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    n = len(a)
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(n, "little")


class _Frozen:
    """Append-only sequence kept in tuples of atomic values, which the cyclic GC untracks: a
    list of a million strings costs ~35 ms on every full collection, these cost nothing."""

    __slots__ = ("_chunks", "_len", "_starts")
    MERGE = 4096  # small appends are merged into the last chunk up to this size

    def __init__(self) -> None:
        self._chunks: list[tuple[Any, ...]] = []
        self._starts: list[int] = []
        self._len = 0

    def __len__(self) -> int:
        return self._len

    def extend(self, values: Iterable[Any]) -> None:
        new = tuple(values)
        if not new:
            return
        if self._chunks and len(self._chunks[-1]) < self.MERGE:
            new = self._chunks.pop() + new
            start = self._starts.pop()
        else:
            start = self._len
        self._chunks.append(new)
        self._starts.append(start)
        self._len = start + len(new)

    def prepend(self, values: Iterable[Any]) -> None:
        new = tuple(values)
        if new:
            k = len(new)
            self._chunks.insert(0, new)
            self._starts = [0, *(start + k for start in self._starts)]
            self._len += k

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        k = bisect_right(self._starts, index) - 1
        return self._chunks[k][index - self._starts[k]]

    def __iter__(self) -> Iterator[Any]:
        return chain.from_iterable(self._chunks)


class _Column:
    """Interned values of one field: ``values[id]`` plus one id per record."""

    __slots__ = ("_lower", "data", "ids", "max_len", "tally", "values")

    def __init__(self) -> None:
        self.values = _Frozen()  # id -> value
        self.ids: dict[str | None, int] = {}  # value -> id (str/int only: GC-untracked)
        self.data: bytearray | array = bytearray()
        self.tally: list[int] = []  # id -> records holding it (counts without a scan)
        self._lower = _Frozen()
        self.max_len = 0

    def __len__(self) -> int:
        return len(self.data)

    def extend(self, values: list[str | None], *, front: bool = False) -> None:
        """Add one id per value, after the records held (``front``: before them)."""
        ids = self.ids
        counted = Counter(values)
        new = counted.keys() - ids.keys()
        if new:
            ordered = sorted(new, key=lambda v: (v is not None, v or ""))
            first = len(self.values)
            ids.update(zip(ordered, range(first, first + len(ordered)), strict=True))
            self.values.extend(ordered)
            longest = max((cell_len(v) for v in ordered if v is not None), default=0)
            self.max_len = max(self.max_len, longest)
            if isinstance(self.data, bytearray) and len(self.values) > 256:
                self.data = array("I", list(self.data))  # ids, not raw bytes
            self.tally.extend([0] * len(ordered))
        tally = self.tally
        for value, n in counted.items():
            tally[ids[value]] += n
        data = self.data
        new_ids = map(ids.__getitem__, values)
        at = 0 if front else len(data)
        data[at:at] = bytes(new_ids) if isinstance(data, bytearray) else array("I", new_ids)

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def value(self, index: int) -> str | None:
        return self.values[self.data[index]]

    def lower_values(self) -> _Frozen:
        lower = self._lower
        if len(lower) < len(self.values):
            new = islice(self.values, len(lower), None)
            lower.extend("" if v is None else v.lower() for v in new)
        return lower

    def mask(self, allowed: set[int], start: int = 0, stop: int | None = None) -> bytes:
        """One byte per record of ``[start:stop]``: 1 when its id is in ``allowed``."""
        data = self.data
        if isinstance(data, bytearray):
            table = bytearray(256)
            for i in allowed:
                table[i] = 1
            part = data[start:stop] if start or stop is not None else data
            return bytes(part.translate(table))
        # ids wider than a byte: a vectorised table lookup (a Python map took ~65 ms at 1M)
        import numpy as np

        lookup = np.zeros(len(self.values), dtype=np.uint8)
        if allowed:
            lookup[np.fromiter(allowed, dtype=np.intp, count=len(allowed))] = 1
        # the buffer view lives only in this expression: the array must stay resizable
        return lookup[np.frombuffer(data, dtype=f"u{data.itemsize}")[start:stop]].tobytes()

    def ids_of(self, allowed: Iterable[str | None]) -> set[int]:
        return {self.ids[v] for v in allowed if v in self.ids}

    def ids_matching(self, needle: str) -> set[int]:
        return {i for i, v in enumerate(self.lower_values()) if needle in v}

    def counts(self, index: Iterable[int] | None = None) -> dict[str | None, int]:
        """Records per value, most frequent first (``index``: only those records)."""
        values = self.values
        if index is None:
            ranked = sorted(((n, i) for i, n in enumerate(self.tally) if n), key=lambda t: -t[0])
            return {values[i]: n for n, i in ranked}
        data = self.data
        counter = Counter(map(data.__getitem__, index))
        return {values[i]: n for i, n in counter.most_common()}


class _Visible:
    """The records passing a filter: one byte per record plus cumulative counts per block of
    records, so the k-th visible record (select) and a record's row (rank) cost a few C calls
    instead of a materialised index."""

    BLOCK = 1024
    __slots__ = ("_last", "cum", "mask")

    def __init__(self) -> None:
        self.mask = bytearray()
        self.cum = array("q")  # cum[b]: visible records in blocks 0..b
        self._last = (-1, -1)  # last (row, record) selected: sequential rows are one find()

    def __len__(self) -> int:
        return self.cum[-1] if self.cum else 0

    def set_from(self, start: int, part: bytes) -> None:
        """Replace the mask from record ``start`` on with ``part``."""
        mask = self.mask
        del mask[start:]
        mask += part
        block = self.BLOCK
        first = start // block
        del self.cum[first:]
        seen = self.cum[-1] if self.cum else 0
        for b in range(first, (len(mask) + block - 1) // block):
            seen += mask.count(1, b * block, (b + 1) * block)
            self.cum.append(seen)
        self._last = (-1, -1)

    def append(self, visible: bool) -> None:
        self.set_from(len(self.mask), b"\x01" if visible else b"\x00")

    def prepend(self, part: bytes) -> None:
        self.set_from(0, part + self.mask)

    def select(self, row: int) -> int:
        """The record shown at ``row`` (0 <= row < len(self))."""
        mask = self.mask
        last_row, last_record = self._last
        if row == last_row + 1 and last_record >= 0:
            record = mask.find(1, last_record + 1)
        elif row == last_row:
            return last_record
        else:
            b = bisect_right(self.cum, row)
            before = self.cum[b - 1] if b else 0
            record = b * self.BLOCK - 1
            for _ in range(row - before + 1):
                record = mask.find(1, record + 1)
        self._last = (row, record)
        return record

    def rank(self, record: int) -> int:
        """Visible records before ``record``."""
        b = record // self.BLOCK
        return (self.cum[b - 1] if b else 0) + self.mask.count(1, b * self.BLOCK, record)

    def records(self) -> Iterable[int]:
        return compress(range(len(self.mask)), self.mask)


class HookFilter(NamedTuple):
    hooks: frozenset[str | None] | None = None
    events: frozenset[str | None] | None = None
    phases: frozenset[str | None] | None = None
    text: str | None = None

    @property
    def active(self) -> bool:
        return any(x is not None for x in (self.hooks, self.events, self.phases)) or bool(self.text)


class _Layout(NamedTuple):
    ts_long: bool
    hook: int
    event: int
    phase: int
    agent: int  # 0: agent column hidden

    @property
    def prefix(self) -> int:
        widths = [18 if self.ts_long else 8, self.hook, self.event, self.phase]
        if self.agent:
            widths.append(self.agent)
        return sum(widths) + len(widths)


def _fit(text: str, width: int) -> str:
    """Pad or cut ``text`` to exactly ``width`` cells (an ellipsis marks a cut)."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, max(0, width - 1)) + "…"


def _one_line(text: str) -> str:
    if "\n" in text or "\t" in text or "\r" in text:
        text = text.replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎")
        text = text.expandtabs(4)
    if len(text) > MAX_REASON_CELLS:
        text = text[: MAX_REASON_CELLS - 1] + "…"
    return text


def _ts_short(ts: str | None, long: bool) -> str:
    if not ts:
        return "?"
    # canonical form: 2026-03-04T09:12:03.418Z
    if len(ts) >= 19 and ts[4] == "-" and ts[10] in "T " and ts[13] == ":":
        return ts[5:10] + " " + ts[11:23] if long else ts[11:19]
    return ts


class HookLogView(ScrollView, can_focus=True):
    """Virtual view of hook-log records, newest at the bottom.

    Feed it with :meth:`append` (one call per watch event), :meth:`prepend` (older records, e.g.
    a large log read from its end), :meth:`note_rotation` and :meth:`clear`; filter with
    :meth:`set_filter`. Records are any objects with the attributes of ``core.hooklog.HookRecord`` (ts, hook, event, phase, agent, reason, line_no, offset,
    valid, error, raw), already sanitised.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_follow", "Follow", tooltip="Follow new records (auto-scroll)"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "hooklog--ts",
        "hooklog--hook",
        "hooklog--event",
        "hooklog--phase",
        "hooklog--agent",
        "hooklog--block",
        "hooklog--warn",
        "hooklog--invalid",
        "hooklog--marker",
    }

    DEFAULT_CSS = """
    HookLogView {
        background: $surface;
        color: $foreground;
        overflow: auto;
        height: 1fr;
        &:focus { background-tint: $foreground 5%; }
        & > .hooklog--ts { color: $text-muted; }
        & > .hooklog--hook { color: $text-accent; }
        & > .hooklog--event { color: $text-secondary; }
        & > .hooklog--phase { color: $text-primary; }
        & > .hooklog--agent { color: $text-muted; }
        & > .hooklog--block { color: $text-error; text-style: bold; }
        & > .hooklog--warn { color: $text-warning; }
        & > .hooklog--invalid { color: $text-disabled; text-style: italic; }
        & > .hooklog--marker { background: $warning-muted; color: $text-warning; text-style: bold; }
    }
    """

    follow: reactive[bool] = reactive(True)
    """Auto-scroll to new records (released when the user scrolls up)."""

    class FollowChanged(Message):
        def __init__(self, view: HookLogView, follow: bool) -> None:
            super().__init__()
            self.view = view
            self.follow = follow

        @property
        def control(self) -> HookLogView:
            return self.view

    class FilterChanged(Message):
        """The set of visible records changed because the filter changed."""

        def __init__(self, view: HookLogView, shown: int, total: int) -> None:
            super().__init__()
            self.view = view
            self.shown = shown
            self.total = total

        @property
        def control(self) -> HookLogView:
            return self.view

    def __init__(
        self,
        *,
        cache_size: int = 4096,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._ts = _Frozen()
        self._hook = _Column()
        self._event = _Column()
        self._phase = _Column()
        self._agent = _Column()
        self._reason = _Column()
        self._line_no = array("q")
        self._offset = array("q")
        self._kind = bytearray()
        # Sparse data is keyed by record index minus ``_base`` (records put before the first
        # ones held): a key never changes when older records are prepended.
        self._base = 0
        self._invalid: dict[int, tuple[str, str]] = {}  # key -> (error, raw)
        self._markers: dict[int, str] = {}  # key -> notice text
        self._filter = HookFilter()
        self._visible: _Visible | None = None  # records passing the filter; None = all
        self._cache: LRUCache[tuple[int, _Layout], Strip] = LRUCache(cache_size)
        self._layout: _Layout | None = None
        self._styles: dict[str, Style] | None = None
        self._programmatic = 0
        self.rotations: list[tuple[datetime, int]] = []
        """Every rotation noted: (when, lines the file kept)."""

    # ------------------------------------------------------------------ data
    @property
    def total(self) -> int:
        """Records held (rotation markers included)."""
        return len(self._kind)

    @property
    def shown(self) -> int:
        """Records passing the current filter."""
        return self.total if self._visible is None else len(self._visible)

    @property
    def filter(self) -> HookFilter:
        return self._filter

    def visible_records(self) -> list[int]:
        """Indices (in arrival order) of the records passing the filter."""
        return list(range(self.total)) if self._visible is None else list(self._visible.records())

    def record_at(self, row: int) -> int:
        """Record index shown at virtual row ``row``."""
        return row if self._visible is None else self._visible.select(row)

    def record_fields(self, record: int) -> dict[str, Any]:
        """The stored fields of one record (for a detail pane or tests)."""
        kind = self._kind[record]
        error, raw = self._invalid.get(record - self._base, (None, None))
        return {
            "ts": self._ts[record],
            "hook": self._hook.value(record),
            "event": self._event.value(record),
            "phase": self._phase.value(record),
            "agent": self._agent.value(record),
            "reason": self._reason.value(record),
            "line_no": self._line_no[record],
            "offset": self._offset[record],
            "valid": kind == KIND_VALID,
            "marker": self._markers.get(record - self._base),
            "error": error,
            "raw": raw,
        }

    def line_text(self, record: int) -> str:
        """The plain text of a rendered record (at the current layout)."""
        return self._render_record(record).text

    def counts(self, *, filtered: bool = False) -> tuple[dict[str, int], dict[str, int]]:
        """Records per hook and per event (``None`` values as ``"(none)"``); markers excluded."""
        visible = self._visible if filtered else None
        markers = len(self._markers)  # markers hold None in every column and always show

        def named(d: dict[str | None, int]) -> dict[str, int]:
            if markers and None in d:
                d[None] -= markers
            return {("(none)" if k is None else k): n for k, n in d.items() if n > 0}

        return (
            named(self._hook.counts(visible and visible.records())),
            named(self._event.counts(visible and visible.records())),
        )

    def distinct(self, field: str) -> list[str | None]:
        """Distinct values seen for ``hook``, ``event``, ``phase`` or ``agent``."""
        column = {"hook": self._hook, "event": self._event, "phase": self._phase}.get(field)
        column = column or self._agent
        return list(column.values)

    def append(self, records: Sequence[Any]) -> None:
        """Add a batch of records (one call per watch event)."""
        if not records:
            return
        start = self.total
        self._ingest(records)
        self._filter_from(start)
        self._content_changed()

    def prepend(self, records: Sequence[Any]) -> None:
        """Put a batch of records older than all held before them (a large log read from its
        end: its older parts arrive newest first). What is on screen stays put: the view keeps
        following the end, or keeps its top line."""
        if not records:
            return
        if not isinstance(records, list):
            records = list(records)
        k = len(records)
        anchor = None if self.follow else self._top_record()
        self._base += k
        self._ingest(records, front=True)
        if self._visible is not None:
            part = self._compute_mask(0, k)
            self._visible.prepend(b"\x01" * k if part is None else part)
        self._content_changed(anchor=None if anchor is None else anchor + k)

    def note_rotation(self, n_lines_kept: int, when: datetime | None = None) -> None:
        """The owner rewrote the file keeping its newest ``n_lines_kept`` lines: show a marker.

        Records already seen stay; the owner's tailer must not feed the kept lines again.
        """
        when = when or datetime.now().astimezone()
        self.rotations.append((when, n_lines_kept))
        notice = (
            f"── log rotated by its owner at {when:%H:%M:%S} — earlier lines kept from this "
            f"session (the file now holds {n_lines_kept} lines) ──"
        )
        record = self.total
        self._ts.extend([when.isoformat()])
        for column in (self._hook, self._event, self._phase, self._agent, self._reason):
            column.extend([None])
        self._line_no.append(0)
        self._offset.append(0)
        self._kind.append(KIND_MARKER)
        self._markers[record - self._base] = notice
        if self._visible is not None:
            self._visible.append(True)
        self._content_changed()

    def clear(self) -> None:
        """Forget every record (and marker)."""
        self._ts = _Frozen()
        for column in (self._hook, self._event, self._phase, self._agent, self._reason):
            column.clear()
        self._line_no = array("q")
        self._offset = array("q")
        self._kind = bytearray()
        self._base = 0
        self._invalid.clear()
        self._markers.clear()
        self.rotations.clear()
        self._visible = _Visible() if self._filter.active else None
        self._cache.clear()
        self._layout = None
        self._content_changed()

    def set_filter(
        self,
        hooks: Iterable[str | None] | None = None,
        events: Iterable[str | None] | None = None,
        phases: Iterable[str | None] | None = None,
        text: str | None = None,
    ) -> None:
        """Show only records whose hook/event/phase is in the given sets (None: any) and whose
        reason, hook, agent or phase contains ``text`` (case-insensitive). Rotation markers
        always show."""
        new = HookFilter(
            None if hooks is None else frozenset(hooks),
            None if events is None else frozenset(events),
            None if phases is None else frozenset(phases),
            text or None,
        )
        if new == self._filter:
            return
        anchor = self._top_record()
        self._filter = new
        self._visible = None
        self._filter_from(0)
        self._cache.clear()
        self._content_changed(anchor=anchor)
        self.post_message(self.FilterChanged(self, self.shown, self.total))

    # -------------------------------------------------------------- ingestion
    def _ingest(self, records: Sequence[Any], *, front: bool = False) -> None:
        """Store ``records`` after the ones held (``front``: before them; ``_base`` already
        counts them)."""
        if not isinstance(records, list):
            records = list(records)

        def col(name: str) -> list[Any]:
            return list(map(attrgetter(name), records))

        start = at = 0 if front else self.total
        (self._ts.prepend if front else self._ts.extend)(col("ts"))
        for column, name in (
            (self._hook, "hook"),
            (self._event, "event"),
            (self._phase, "phase"),
            (self._agent, "agent"),
            (self._reason, "reason"),
        ):
            column.extend(col(name), front=front)
        for target, name in ((self._line_no, "line_no"), (self._offset, "offset")):
            values = col(name)
            try:
                target[at:at] = array("q", values)
            except TypeError:  # not plain ints
                target[at:at] = array("q", [v if isinstance(v, int) else 0 for v in values])
        flags = col("valid")
        try:
            valid = bytes(flags) if set(flags) <= {True, False} else bytes(map(bool, flags))
        except TypeError:
            valid = bytes(map(bool, flags))
        self._kind[at:at] = valid
        if valid.count(0):
            key = start - self._base
            for i in compress(range(len(records)), valid.translate(bytes([1, 0] + [0] * 254))):
                r = records[i]
                self._invalid[key + i] = (str(r.error or "invalid line"), str(r.raw or ""))

    def _compute_mask(self, start: int, stop: int | None = None) -> bytes | None:
        """Mask of the records ``[start:stop]`` passing the filter; None when all pass."""
        f = self._filter
        if not f.active:
            return None
        stop = self.total if stop is None else stop
        mask: bytes | None = None
        for allowed, column in (
            (f.hooks, self._hook),
            (f.events, self._event),
            (f.phases, self._phase),
        ):
            if allowed is not None:
                m = column.mask(column.ids_of(allowed), start, stop)
                mask = m if mask is None else _and(mask, m)
        if f.text:
            needle = f.text.lower()
            hit: bytes | None = None
            matches = [
                (column, column.ids_matching(needle))
                for column in (self._hook, self._agent, self._phase, self._reason)
            ]
            if any(len(ids) == len(column.values) for column, ids in matches):
                hit = b"\x01" * (stop - start)  # every value of a column matches
                matches = []
            for column, ids in matches:
                if ids:
                    m = column.mask(ids, start, stop)
                    hit = m if hit is None else _or(hit, m)
            if hit is None:
                hit = bytes(stop - start)
            first, last = start - self._base, stop - self._base  # as keys
            extra = [
                key - first
                for key, (error, raw) in self._invalid.items()
                if first <= key < last and (needle in error.lower() or needle in raw.lower())
            ]
            if extra:
                hit_arr = bytearray(hit)
                for i in extra:
                    hit_arr[i] = 1
                hit = bytes(hit_arr)
            mask = hit if mask is None else _and(mask, hit)
        assert mask is not None
        if self._markers:
            table = bytearray(256)
            table[KIND_MARKER] = 1
            mask = _or(mask, self._kind[start:stop].translate(table))
        return mask

    def _filter_from(self, start: int) -> None:
        """Apply the filter to the records from ``start`` on."""
        mask = self._compute_mask(start)
        if mask is None:
            self._visible = None
            return
        if self._visible is None:
            self._visible = _Visible()
            if start:  # cannot happen (a filter always keeps _visible), but stay correct
                self._visible.set_from(0, b"\x01" * start)
        self._visible.set_from(start, mask)

    # ------------------------------------------------------------- scrolling
    def _top_record(self) -> int | None:
        if not self.shown:
            return None
        row = min(int(self.scroll_y), self.shown - 1)
        return self.record_at(row)

    def on_mount(self) -> None:
        self._content_changed()  # records fed before the view was mounted

    def _content_changed(self, anchor: int | None = None) -> None:
        if not self.is_mounted:  # fed before mount (a screen not shown yet): laid out on mount
            return
        layout = self._compute_layout()
        width = layout.prefix + max(self._reason.max_len, 60)
        width = min(width, layout.prefix + MAX_REASON_CELLS)
        self.virtual_size = Size(width, self.shown)
        if self.follow:
            self._scroll_to_end()
            # scrollbars appear only at the next layout and take a row: end again after it
            self.call_after_refresh(self._follow_after_layout)
        elif anchor is not None:
            self._programmatic += 1
            try:
                self.scroll_to(y=self._row_of(anchor), animate=False, immediate=True, force=True)
            finally:
                self._programmatic -= 1
        self.refresh()

    def _scroll_to_end(self) -> None:
        self._programmatic += 1
        try:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        finally:
            self._programmatic -= 1

    def _follow_after_layout(self) -> None:
        if self.follow and self.scroll_y != self.max_scroll_y:
            self._scroll_to_end()

    def _row_of(self, record: int) -> int:
        """Row of ``record`` in the current view, or of the next record shown after it."""
        if self._visible is None:
            return min(record, max(0, self.total - 1))
        return min(self._visible.rank(record), max(0, len(self._visible) - 1))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._programmatic:
            return
        if new_value < old_value and new_value < self.max_scroll_y:
            self.follow = False
        elif new_value > old_value and new_value >= self.max_scroll_y:
            self.follow = True

    def watch_follow(self, follow: bool) -> None:
        if follow and self.is_mounted:
            self._scroll_to_end()
        self.post_message(self.FollowChanged(self, follow))

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow

    # Paging is instant (an animated page over a million rows repaints many frames).
    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False, x_axis=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, x_axis=False)

    def on_resize(self) -> None:
        self._content_changed()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._cache.clear()

    # ------------------------------------------------------------- rendering
    def _compute_layout(self) -> _Layout:
        width = self.size.width or 120
        wide = width >= 110
        layout = _Layout(
            ts_long=wide,
            hook=max(4, min(self._hook.max_len, 24 if wide else 16)),
            event=max(5, min(self._event.max_len, 17 if wide else 10)),
            phase=max(5, min(self._phase.max_len, 18 if wide else 8)),
            agent=max(5, min(self._agent.max_len, 20)) if width >= 150 else 0,
        )
        if layout != self._layout:
            self._layout = layout
            self._cache.clear()
        return layout

    def _get_styles(self) -> dict[str, Style]:
        if self._styles is None:
            base = self.rich_style
            self._styles = {
                name.removeprefix("hooklog--"): base + self.get_component_rich_style(name)
                for name in self.COMPONENT_CLASSES
            }
            self._styles["base"] = base
        return self._styles

    def _render_record(self, record: int) -> Strip:
        layout = self._layout or self._compute_layout()
        key = (record - self._base, layout)  # stable when older records are prepended
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        st = self._get_styles()
        base = st["base"]
        kind = self._kind[record]
        ts = _fit(_ts_short(self._ts[record], layout.ts_long), 18 if layout.ts_long else 8)
        segments: list[Segment]
        if kind == KIND_MARKER:
            text = self._markers.get(record - self._base, "── log rotated ──")
            segments = [Segment(text, st["marker"])]
        elif kind == KIND_INVALID:
            error, raw = self._invalid.get(record - self._base, ("invalid line", ""))
            line = f"line {self._line_no[record]}: {error}"
            segments = [
                Segment(ts, st["ts"]),
                Segment(" "),
                Segment(_one_line(line), st["invalid"]),
                Segment("  "),
                Segment(_one_line(raw), st["invalid"]),
            ]
        else:
            event = self._event.value(record)
            emphasis = (
                st["block"]
                if event in BLOCK_EVENTS
                else st["warn"]
                if event in WARN_EVENTS
                else None
            )
            hook = self._hook.value(record) or "-"
            phase = self._phase.value(record) or "-"
            reason = self._reason.value(record) or ""
            segments = [
                Segment(ts, st["ts"]),
                Segment(" ", base),
                Segment(_fit(hook, layout.hook), st["hook"]),
                Segment(" ", base),
                Segment(_fit(event or "-", layout.event), emphasis or st["event"]),
                Segment(" ", base),
                Segment(_fit(phase, layout.phase), st["phase"]),
                Segment(" ", base),
            ]
            if layout.agent:
                agent = self._agent.value(record) or "-"
                segments += [Segment(_fit(agent, layout.agent), st["agent"]), Segment(" ", base)]
            segments.append(Segment(_one_line(reason), emphasis or base))
        strip = Strip(segments)
        self._cache[key] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.size.width
        base = self._get_styles()["base"]
        if row < 0 or row >= self.shown:
            return Strip.blank(width, base)
        strip = self._render_record(self.record_at(row))
        return strip.crop_extend(scroll_x, scroll_x + width, base)


class HookStats(Static):
    """Per-hook and per-event record counts (blocks in the error colour)."""

    DEFAULT_CSS = """
    HookStats {
        height: auto;
        max-height: 6;
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(
        self,
        hooks: dict[str, int] | None = None,
        events: dict[str, int] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, markup=False)
        self.hooks: dict[str, int] = dict(hooks or {})
        self.events: dict[str, int] = dict(events or {})
        self.note: str = ""
        self._refresh_text()

    def update_counts(self, hooks: dict[str, int], events: dict[str, int], note: str = "") -> None:
        """Show new counts (``note``: one extra plain-text line, e.g. the last rotation)."""
        self.hooks, self.events, self.note = dict(hooks), dict(events), note
        self._refresh_text()

    def _refresh_text(self) -> None:
        text = Text(no_wrap=False)
        text.append("events ", style="bold")
        if not self.events:
            text.append("—")
        for i, (event, n) in enumerate(sorted(self.events.items(), key=lambda kv: -kv[1])):
            if i:
                text.append(" · ")
            style = (
                "bold red" if event in BLOCK_EVENTS else "yellow" if event in WARN_EVENTS else ""
            )
            text.append(event, style=style)
            text.append(f" {n}", style=style or "bold")
        text.append("\nhooks  ", style="bold")
        if not self.hooks:
            text.append("—")
        for i, (hook, n) in enumerate(sorted(self.hooks.items(), key=lambda kv: -kv[1])):
            if i:
                text.append(" · ")
            text.append(hook)
            text.append(f" {n}", style="bold")
        if self.note:
            text.append("\n")
            text.append(self.note, style="yellow")
        self.update(text)


_ANY = Select.NULL


class _NullValue:
    """Select value standing for a JSON null (``(none)``)."""

    def __repr__(self) -> str:
        return "(none)"


NULL_VALUE = _NullValue()


class HookLogScreenBody(Vertical):
    """Filter bar + :class:`HookLogView` + :class:`HookStats`: drop it into a Screen.

    Feed it like the view: :meth:`append`, :meth:`note_rotation`, :meth:`clear`.
    """

    DEFAULT_CSS = """
    HookLogScreenBody {
        height: 1fr;
        & > #hooklog-bar { height: auto; }
        & > #hooklog-bar > Input { width: 1fr; min-width: 16; }
        & > #hooklog-bar > Select { width: 22; }
        & > #hooklog-status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", "Search", show=True),
        Binding("b", "blocks_only", "Blocks only", show=True),
        Binding("escape", "clear_filters", "Clear filters", show=False),
    ]

    def __init__(
        self,
        *,
        view: HookLogView | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``view``: a view built (and possibly fed) beforehand, e.g. by a screen that receives
        records before it is first shown."""
        super().__init__(name=name, id=id, classes=classes)
        self._view = view or HookLogView(id="hooklog-view")
        self._known: dict[str, tuple[Any, ...]] = {}
        self._syncing = 0

    def compose(self) -> ComposeResult:
        with Horizontal(id="hooklog-bar"):
            yield Input(placeholder="search reason / hook / agent / phase", id="hooklog-search")
            yield Select[Any]([], prompt="hook: any", id="hooklog-hook")
            yield Select[Any]([], prompt="event: any", id="hooklog-event")
            yield Select[Any]([], prompt="phase: any", id="hooklog-phase")
        yield self._view
        yield Static("", id="hooklog-status", markup=False)
        yield HookStats(id="hooklog-stats")

    @property
    def view(self) -> HookLogView:
        return self._view

    @property
    def stats(self) -> HookStats:
        return self.query_one(HookStats)

    def on_mount(self) -> None:
        self.refresh_side()

    # ------------------------------------------------------------------ feed
    def append(self, records: Sequence[Any]) -> None:
        self.view.append(records)
        self.refresh_side()

    def note_rotation(self, n_lines_kept: int, when: datetime | None = None) -> None:
        self.view.note_rotation(n_lines_kept, when)
        self.refresh_side()

    def clear(self) -> None:
        self.view.clear()
        self.refresh_side()

    # --------------------------------------------------------------- filters
    def _select_value(self, select_id: str) -> frozenset[str | None] | None:
        value = self.query_one(f"#{select_id}", Select).value
        if value is _ANY:
            return None
        return frozenset({None if value is NULL_VALUE else value})

    def _apply_filter(self) -> None:
        if self._syncing:
            return
        self.view.set_filter(
            hooks=self._select_value("hooklog-hook"),
            events=self._select_value("hooklog-event"),
            phases=self._select_value("hooklog-phase"),
            text=self.query_one("#hooklog-search", Input).value or None,
        )
        self.refresh_side()

    @on(Input.Changed, "#hooklog-search")
    def _search_changed(self) -> None:
        self._apply_filter()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._apply_filter()

    @on(HookLogView.FollowChanged)
    def _follow_changed(self) -> None:
        self._refresh_status()

    def action_focus_search(self) -> None:
        self.query_one("#hooklog-search", Input).focus()

    def action_blocks_only(self) -> None:
        select = self.query_one("#hooklog-event", Select)
        if "block" in self.view.distinct("event"):
            select.value = _ANY if select.value == "block" else "block"

    def action_clear_filters(self) -> None:
        self._syncing += 1
        try:
            self.query_one("#hooklog-search", Input).value = ""
            for sid in ("hooklog-hook", "hooklog-event", "hooklog-phase"):
                self.query_one(f"#{sid}", Select).clear()
        finally:
            self._syncing -= 1
        self._apply_filter()

    # ---------------------------------------------------------------- status
    def refresh_side(self) -> None:
        view = self.view
        self._sync_options("hooklog-hook", view.distinct("hook"))
        self._sync_options("hooklog-event", view.distinct("event"))
        self._sync_options("hooklog-phase", view.distinct("phase"))
        hooks, events = view.counts()
        note = ""
        if view.rotations:
            when, kept = view.rotations[-1]
            note = (
                f"log rotated by its owner at {when:%H:%M:%S} (×{len(view.rotations)}; "
                f"file kept {kept} lines) — earlier lines kept from this session"
            )
        self.stats.update_counts(hooks, events, note)
        self._refresh_status()

    def _refresh_status(self) -> None:
        view = self.view
        text = Text()
        markers = len(view._markers)  # always shown, never counted as records
        text.append(f"{view.shown - markers:,} of {view.total - markers:,} records")
        if view.filter.active:
            text.append("  (filtered)", style="bold")
        text.append("  ·  follow ")
        text.append("on" if view.follow else "off (f)", style="bold" if view.follow else "yellow")
        self.query_one("#hooklog-status", Static).update(text)

    def _sync_options(self, select_id: str, values: list[str | None]) -> None:
        key = tuple(values)
        if self._known.get(select_id) == key:
            return
        self._known[select_id] = key
        select = self.query_one(f"#{select_id}", Select)
        current = select.value
        options = [
            (
                Text("(none)", style="italic") if v is None else Text(v),
                NULL_VALUE if v is None else v,
            )
            for v in sorted(values, key=lambda v: (v is None, v or ""))
        ]
        self._syncing += 1
        try:
            select.set_options(options)
            if current is not _ANY and any(value == current for _, value in options):
                select.value = current
        finally:
            self._syncing -= 1
