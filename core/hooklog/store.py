"""The records of one hook log as the hook screen shows them: the log file is the storage.

Per row the store keeps a few bytes: its kind, line number, where its bytes are (a file
generation or the in-memory copy) and their length, and the ids of its few-valued fields
(``hook``, ``event``, ``phase``, ``agent``: a table of distinct values plus one id per row in a
``bytearray``, an ``array('I')`` past 256 values). ``ts`` and ``reason`` are never held: a row is
parsed again from its bytes when it is shown (:meth:`HookStore.record`, a small cache).

Rows come in two ways, both written by ONE thread (the session's worker):

* :meth:`HookStore.add_pending`: lines found by the line index (a newline scan) but not parsed
  yet: shown at once (parsed when on screen), left out of counts and filters until filled;
* :meth:`HookStore.fill`: records the tailer parsed, in file order: a pending row at the same
  offset is filled in place, anything else is appended.

Where the bytes live: a log small enough to be the owner's rotating one (:data:`KEEP_BYTES`) is
copied into the store as it is read (its rotation rewrites the file in place: the lines would be
gone); a larger log is read back from the file. When such a file is rewritten anyway, its rows say
so instead of showing other lines (:meth:`HookStore.retire_file`).

Readers (the UI thread) see only committed rows (:attr:`HookStore.count`), under a lock that also
keeps the arrays from being resized while a filter holds a buffer view of them. A filter is a byte
mask per column built with ``bytes.translate`` (or a table lookup), combined with big-integer
``&``/``|``; text search scans the few distinct values of each column once, and the reasons as
raw bytes (lower-cased) before confirming each candidate row by parsing it. The column work is
done by :mod:`.columns`: plain Python while the log is within :data:`KEEP_BYTES`, numpy past
it. No textual here.
"""

from __future__ import annotations

import os
import threading
from array import array
from bisect import bisect_right
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from itertools import accumulate, chain, compress, islice, pairwise
from typing import Any, NamedTuple

from rich.cells import cell_len

from .batch import Batch, codes_of, is_plain
from .columns import PLAIN, Col, Ops, find_all, ops_of, vector
from .parse import KEEP_BYTES, KEYS, MAX_LINE, RAW_KEEP, HookRecord, _overlong, parse_fast
from .stats import MAX_NAME, MAX_NAMES, OTHER
from .threads import map_parts

KIND_INVALID = 0
KIND_VALID = 1
KIND_MARKER = 2
KIND_PENDING = 3

SCAN_CHUNK = 1024 * 1024  # bytes read at a time by a text filter (cache-sized)
# What a session keeps of a hook log (README "Bounds"): the lines copied from a rotating log
# (the owner rewrites it at 1 MiB, so a day's lines exist only here) and the rows of any log.
# Past either cap the oldest rows are forgotten, down to three quarters of it, and one row at
# the top says how many (:meth:`HookStore.bound`).
COPY_CAP = 8 * 1024 * 1024
ROW_CAP = 2_000_000
_CACHE = 4096  # parsed rows kept (the screen and a few pages around it)
_GONE = "line no longer in the file: the log was rewritten"


def _and(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    n = len(a)
    return (int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(n, "little")


def _or(a: bytes | bytearray, b: bytes | bytearray) -> bytes:
    n = len(a)
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(n, "little")


class _Frozen:
    """Append-only sequence kept in tuples of atomic values, which the cyclic GC untracks: a
    list of strings is scanned again at every full collection, these never are
    (docs/performance.md#the-hook-log)."""

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
    """Interned values of one field: ``values[id]`` plus one id per record. At most
    :data:`~.stats.MAX_NAMES` values of at most :data:`~.stats.MAX_NAME` characters are held;
    a record of any other value gets the id of :data:`~.stats.OTHER` (its own value is in its
    line, which is parsed again when shown): a log of junk, a new name on every line, costs a
    byte or four a row like any other."""

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

    def extend(self, values: list[Any], codes: Col | None = None) -> None:
        """Add the records coded ``codes`` (indexes into ``values``; None: one record per
        value), after those held."""
        if codes is None:
            values, codes = codes_of(values)
        xp = ops_of(codes)
        ids = self.ids
        counted = {values[c]: n for c, n in xp.tally(codes)}
        new = counted.keys() - ids.keys()
        if new:
            fits = [v for v in new if v is None or (v != OTHER and len(v) <= MAX_NAME)]
            ordered = sorted(fits, key=lambda v: (v is not None, v or ""))
            room = MAX_NAMES - len(self.values)
            if (len(fits) < len(new) or len(fits) > room) and OTHER not in ids:
                ordered = [*ordered[: max(0, room - 1)], OTHER]  # the rest share one id
            else:
                ordered = ordered[: max(0, room)]
            first = len(self.values)
            ids.update(zip(ordered, range(first, first + len(ordered)), strict=True))
            self.values.extend(ordered)
            longest = max((cell_len(v) for v in ordered if v is not None), default=0)
            self.max_len = max(self.max_len, longest)
            if isinstance(self.data, bytearray) and len(self.values) > 256:
                self.data = array("I", list(self.data))  # ids, not raw bytes
            self.tally.extend([0] * len(ordered))
        fallback = ids.get(OTHER, 0)
        for value, n in counted.items():
            self.tally[ids.get(value, fallback)] += n
        lookup = xp.lookup([ids.get(v, fallback) for v in values], codes)
        data = self.data
        if isinstance(data, bytearray):
            data += xp.to_array(lookup, "B")
        else:
            data += xp.to_array(lookup, "I")

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]  # re-init in place: the view keeps this object

    def forget(self, k: int) -> None:
        """The first ``k`` records become one marker's (``None``)."""
        for i, n in Counter(self.data[:k]).items():
            self.tally[i] -= n
        if None not in self.ids and len(self.values) < MAX_NAMES:
            self.ids[None] = len(self.values)
            self.values.extend([None])
            self.tally.append(0)
            if isinstance(self.data, bytearray) and len(self.values) > 256:
                self.data = array("I", list(self.data))
        none = self.ids.get(None, self.ids.get(OTHER, 0))
        self.tally[none] += 1
        if isinstance(self.data, bytearray):
            self.data[:k] = bytes([none])
        else:
            self.data[:k] = array("I", [none])

    def value(self, index: int) -> str | None:
        return self.values[self.data[index]]

    @property
    def overflowed(self) -> bool:
        """Some records' values are not held (their id is :data:`OTHER`'s)."""
        return OTHER in self.ids

    def lower_values(self) -> _Frozen:
        lower = self._lower
        if len(lower) < len(self.values):
            new = islice(self.values, len(lower), None)
            lower.extend("" if v is None else v.lower() for v in new)
        return lower

    def mask(
        self, allowed: set[int], start: int = 0, stop: int | None = None, xp: Ops = PLAIN
    ) -> bytes:
        """One byte per record of ``[start:stop]``: 1 when its id is in ``allowed`` (``xp``:
        the store's column operations, for ids wider than a byte)."""
        data = self.data
        if isinstance(data, bytearray):
            table = bytearray(256)
            for i in allowed:
                table[i] = 1
            part = data[start:stop] if start or stop is not None else data
            return bytes(part.translate(table))
        lookup = bytearray(len(self.values))
        for i in allowed:
            lookup[i] = 1
        return xp.table(bytes(lookup), data, start, stop)

    def ids_of(self, allowed: Iterable[str | None]) -> set[int]:
        return {self.ids[v] for v in allowed if v in self.ids}

    def ids_matching(self, needle: str) -> set[int]:
        other = self.ids.get(OTHER)  # (its rows' own values are checked from their lines)
        return {i for i, v in enumerate(self.lower_values()) if needle in v and i != other}

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


class Moot(Exception):
    """A filter's scan stopped: nobody wants its result any more."""


class Marker(NamedTuple):
    """A row that is a notice, not a line of the log (the owner rotated it)."""

    when: datetime
    text: str
    lines: int  # lines the file kept


def rotation_notice(when: datetime, lines: int) -> str:
    """The marker row shown where the owner rotated the log."""
    return (
        f"── log rotated by its owner at {when:%H:%M:%S} — earlier lines kept from this "
        f"session (the file now holds {lines} lines) ──"
    )


def forgotten_notice(count: int, when: datetime) -> str:
    """The first row once the oldest rows were forgotten (:meth:`HookStore.bound`)."""
    return (
        f"── {count:,} earlier lines of this session no longer kept (at {when:%H:%M:%S}: the "
        f"session keeps the newest {COPY_CAP // (1024 * 1024)} MiB of a rotated log) ──"
    )


class HookStore:
    """The rows of one hook log (see the module docstring). Written by one thread, read by any.

    ``count`` rows are shown: ``filled`` parsed ones (records and markers, in file order), then
    the pending ones the index found after them."""

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, max_line: int = MAX_LINE
    ) -> None:
        self.path = path
        self.max_line = max_line  # a longer line is shown as the tailer reports it: skipped
        self._lock = threading.RLock()
        self._kind = bytearray()
        self._line_no = array("i")  # line numbers fit 31 bits (2 billion lines)
        # byte offset in the row's file generation or in the copy: 4 bytes a row until a
        # file passes 4 GiB (then 8: :meth:`_put_where`)
        self._where = array("I")
        # rows in the copy: (first row, file offset - copy offset) of each batch copied
        self._copied: list[tuple[int, int]] = []
        self._length = array("I")  # bytes of the line, without its newline
        self._gen = array("H")  # 0: the in-memory copy; k: file generation k
        # per filled row: 1 when its bytes are plain printable ASCII, 2 when they are also the
        # owner's exact shape (its reason is the text between the last quotes)
        self._plain = bytearray()
        self._columns = {name: _Column() for name in ("hook", "event", "phase", "agent")}
        self._filled = 0
        self._count = 0
        self._copy = bytearray()
        self._files: list[tuple[int, int] | None] = [None]  # generation -> (dev, ino); None: gone
        self._fd: int | None = None  # open on the newest live generation
        self._fd_gen = 0
        # an invalid row's error: an id per filled row (0: none) into a table of the few
        # distinct errors; its text is parsed again from its bytes when shown (a junk line
        # costs two bytes here, not a copy of it), except for the rows kept whole in _raw:
        # records that came without their line, and over-long lines (one per MAX_LINE bytes)
        self._error = array("H")
        self._errors: dict[str, int] = {"": 0}
        self._error_texts: list[str] = [""]
        self._raw: dict[int, str] = {}
        self._markers: dict[int, Marker] = {}
        self._cache: OrderedDict[int, HookRecord] = OrderedDict()
        self.max_length = 0  # longest line held (bytes): the view's width
        self.generation = 0  # bumps when rows are taken away (pending rows dropped)
        self._log_bytes = 0  # the end of the last line held: how large the log has grown
        self.forgotten = 0  # the oldest rows forgotten to stay within the caps (see bound)

    # ------------------------------------------------------------------ reading
    @property
    def count(self) -> int:
        """Rows shown (filled and pending)."""
        return self._count

    @property
    def filled(self) -> int:
        """Rows parsed (counted, filterable): the first ``filled`` rows."""
        return self._filled

    @property
    def pending(self) -> int:
        return self._count - self._filled

    @property
    def markers(self) -> int:
        return len(self._markers)

    def marker(self, row: int) -> Marker | None:
        return self._markers.get(row)

    def rotations(self) -> list[Marker]:
        return list(self._markers.values())

    def kind(self, row: int) -> int:
        return self._kind[row] if 0 <= row < len(self._kind) else KIND_INVALID

    def line_no(self, row: int) -> int:
        return self._line_no[row] if 0 <= row < len(self._line_no) else 0

    def value(self, field: str, row: int) -> str | None:
        """A few-valued field of a filled row."""
        return self._columns[field].value(row)

    def max_cells(self, field: str) -> int:
        return self._columns[field].max_len

    def distinct(self, field: str) -> list[str | None]:
        return list(self._columns[field].values)

    def counts(self, field: str, rows: Iterable[int] | None = None) -> dict[str | None, int]:
        """Filled rows per value of ``field`` (markers count as ``None``)."""
        return self._columns[field].counts(rows)

    def record(self, row: int) -> HookRecord:
        """Row ``row`` as a record, parsed from its bytes (markers: an empty valid record)."""
        cached = self._cache.get(row)
        if cached is not None:
            self._cache.move_to_end(row)
            return cached
        with self._lock:
            if not 0 <= row < len(self._kind):
                # dropped by a rewrite while a viewer still counted it (the worker shrinks the
                # store; the view learns the new count at its next update): not an error
                return _gone(0, 0)
            record = self._read(row)
        self._cache[row] = record
        if len(self._cache) > _CACHE:
            self._cache.popitem(last=False)
        return record

    def _read(self, row: int) -> HookRecord:
        kind, line_no, where = self._kind[row], self._line_no[row], self._where[row]
        gen = self._gen[row]
        offset = self._file_offset(row, where) if gen == 0 else where
        if kind == KIND_MARKER:
            return HookRecord(None, None, None, None, None, None, 0, 0)
        if kind == KIND_INVALID and row in self._raw:
            error = self._error_texts[self._error[row]] or "invalid line"
            return HookRecord(
                None, None, None, None, None, None, line_no, offset, False, error, self._raw[row]
            )
        length = self._length[row]
        if length >= self.max_line:
            head = self._bytes(gen, where, RAW_KEEP)
            return _overlong(head or b"", self.max_line, line_no, offset)
        data = self._bytes(gen, where, length)
        if data is None:
            return _gone(line_no, offset)
        record = parse_fast(data, line_no, offset)
        if row >= self._filled:
            return record
        if kind == KIND_INVALID:
            if record.valid or record.error != self._error_texts[self._error[row]]:
                return _gone(line_no, offset)  # rewritten before the tailer noticed
            return record
        event = self._columns["event"]
        if record.event != event.value(row) and event.value(row) != OTHER:
            return _gone(line_no, offset)
        return record

    def _file_offset(self, row: int, where: int) -> int:
        """The file offset of a row whose bytes are in the copy."""
        k = bisect_right(self._copied, (row, 2**63)) - 1
        return where + self._copied[k][1] if k >= 0 else where

    def _bytes(self, gen: int, where: int, length: int) -> bytes | None:
        if gen == 0:
            return bytes(self._copy[where : where + length])
        fd = self._open(gen)
        return None if fd is None else _pread_exact(fd, length, where)

    def _open(self, gen: int) -> int | None:
        """A descriptor on file generation ``gen`` (None: gone, or another file is there now)."""
        ident = self._files[gen] if gen < len(self._files) else None
        if ident is None or self.path is None:
            return None
        if self._fd is not None and self._fd_gen == gen:
            return self._fd
        self._close()
        fd = _open_file(self.path, ident)
        if fd is not None:
            self._fd, self._fd_gen = fd, gen
        return fd

    def _close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __del__(self) -> None:  # the descriptor must not leak with the store
        try:
            self._close()
        except Exception:
            pass

    # ------------------------------------------------------------------ writing
    def file_generation(self, ident: tuple[int, int]) -> int:
        """The generation id of the file with ``ident`` (a new one after :meth:`retire_file`)."""
        with self._lock:
            if self._files[-1] == ident and len(self._files) > 1:
                return len(self._files) - 1
            self._files.append(ident)
            return len(self._files) - 1

    def retire_file(self) -> None:
        """The file was rewritten or replaced: rows read from it can no longer be shown, and
        the pending rows are dropped (the tailer reads the new content)."""
        with self._lock:
            if len(self._files) > 1:
                self._files[-1] = None
            self._close()
            self.drop_pending()
            self._cache.clear()

    def add_pending(self, starts: Col, end: int, first_line: int, gen: int) -> None:
        """Rows for complete lines starting at ``starts`` (the last one ends before ``end``)
        numbered from ``first_line``, in file generation ``gen``; not parsed yet."""
        n = len(starts)
        if not n:
            return
        xp = ops_of(starts)
        lengths = xp.line_lengths(starts, end)
        with self._lock:
            self._kind += bytes([KIND_PENDING]) * n
            self._line_no += xp.counting(first_line, n, "i")
            self._put_where(len(self._where), starts)
            self._length += xp.to_array(lengths, "I", 2**32 - 1)
            self._gen += array("H", [gen]) * n
            self.max_length = max(self.max_length, xp.top(lengths))
            self._log_bytes = max(self._log_bytes, end)
            self._count += n

    def _put_where(self, start: int, where: Col) -> None:
        """``where`` for the rows from ``start`` on (the array widens to 8 bytes a row when a
        value needs it)."""
        if not len(where):
            return
        xp = ops_of(where)
        if self._where.typecode == "I" and xp.top(where) >= 2**32:
            self._where = array("q", self._where)
        values = xp.to_array(where, self._where.typecode)
        self._where[start : start + len(values)] = values

    def _ops(self) -> Ops:
        """The column operations for the rows held: numpy only once the log outgrew what the
        owner's rotation keeps (:data:`.parse.KEEP_BYTES`)."""
        return vector() if self._log_bytes > KEEP_BYTES else PLAIN

    def drop_pending(self) -> None:
        with self._lock:
            if self._count == self._filled:
                return
            keep = self._filled
            for arr in (self._kind, self._line_no, self._where, self._length, self._gen):
                del arr[keep:]
            self._count = keep
            self._cache.clear()
            self.generation += 1

    def bound(self, when: datetime, copy_cap: int | None = None, row_cap: int | None = None) -> int:
        """Forget the oldest parsed rows while the copied lines pass ``copy_cap`` bytes or the
        rows ``row_cap``: down to three quarters of the cap, in one move (so a day of a rotating
        log costs one shift per quarter cap of new lines), the first row then a notice of how
        many were forgotten. The rows forgotten (0: within the caps)."""
        copy_cap = COPY_CAP if copy_cap is None else copy_cap
        row_cap = ROW_CAP if row_cap is None else row_cap
        with self._lock:
            if len(self._copy) <= copy_cap and self._count <= row_cap:
                return 0
            keep = self._first_kept(copy_cap * 3 // 4, row_cap * 3 // 4)
            if keep <= 1:
                return 0
            cut = next(
                (
                    self._where[r]
                    for r in range(keep, self._filled)
                    if self._gen[r] == 0 and self._kind[r] != KIND_MARKER
                ),
                len(self._copy),
            )
            self._forget(keep, cut, when)
            return keep

    def _first_kept(self, copy_target: int, row_target: int) -> int:
        """The first row kept: every row from it on fits the targets (parsed rows only go)."""
        keep = max(0, self._count - row_target)
        cut = len(self._copy) - copy_target
        if cut > 0:  # the copied rows' bytes are in row order: the last one wholly before cut
            for r in range(self._filled):
                if self._gen[r] == 0 and self._kind[r] != KIND_MARKER:
                    if self._where[r] >= cut:
                        break
                    keep = max(keep, r + 1)
        return min(keep, self._filled)

    def _forget(self, keep: int, cut: int, when: datetime) -> None:
        """Rows ``[0, keep)`` become one notice row; the copy loses its first ``cut`` bytes."""
        self.forgotten += keep - sum(1 for r in self._markers if r < keep)  # lines, not notices
        head = {"_kind": KIND_MARKER, "_line_no": 0, "_where": 0, "_length": 0, "_gen": 0}
        for name, value in head.items():
            arr = getattr(self, name)
            arr[:keep] = (
                type(arr)(arr.typecode, [value]) if isinstance(arr, array) else bytes([value])
            )
        self._plain[:keep] = b"\x00"
        self._error[:keep] = array("H", [0])
        for column in self._columns.values():
            column.forget(keep)
        del self._copy[:cut]
        shift = keep - 1
        for r in range(1, len(self._where)):
            if self._gen[r] == 0 and self._kind[r] != KIND_MARKER:
                self._where[r] -= cut
        copied = [(max(1, start - shift), delta + cut) for start, delta in self._copied]
        self._copied = [
            c for i, c in enumerate(copied) if i + 1 == len(copied) or copied[i + 1][0] > c[0]
        ]
        self._raw = {r - shift: v for r, v in self._raw.items() if r >= keep}
        self._markers = {r - shift: m for r, m in self._markers.items() if r >= keep}
        self._markers[0] = Marker(when, forgotten_notice(self.forgotten, when), 0)
        self._filled -= shift
        self._count -= shift
        self._cache.clear()
        self.generation += 1

    def fill(
        self,
        batch: Batch,
        *,
        gen: int = 0,
        shaped: Col | None = None,
        lines: bool = True,
    ) -> None:
        """Add the rows of ``batch`` (file order), read from file generation ``gen``, or with
        ``gen`` 0 from bytes copied into the store (``batch.data``). ``shaped``: the rows that
        keep their record but whose bytes are the owner's exact shape all the same. ``lines``:
        each invalid row's bytes are its line (parsing them again gives its record); False for
        records made elsewhere."""
        if not len(batch):
            return
        with self._lock:
            if gen == 0:
                where = batch.ops.shift(batch.offset, len(self._copy) - batch.base)
                if batch.data is not None:  # its lines' bytes (even an empty line's)
                    self._copy += batch.data
                    self._copy += b"\n"
            else:
                where = batch.offset
            start = self._match_pending(batch.offset, gen)
            self._store_rows(start, batch, where, gen, shaped, lines and batch.data is not None)

    def _match_pending(self, offsets: Col, gen: int) -> int:
        """Where the records go: over the pending rows at the same offsets, else after all
        (the pending rows then no longer match the file: dropped)."""
        start, n = self._filled, len(offsets)
        if self.pending:
            if (
                self.pending >= n
                and self._gen[start] == gen != 0
                and self._where[start] == offsets[0]
                and self._where[start + n - 1] == offsets[-1]
            ):
                return start
            self.drop_pending()
        return start

    def _store_rows(
        self,
        start: int,
        batch: Batch,
        where: Col,
        gen: int,
        shaped: Col | None,
        lines: bool,
    ) -> None:
        xp = batch.ops
        n = len(batch)
        stop = start + n
        self._kind[start:stop] = xp.to_array(
            xp.lookup((KIND_INVALID, KIND_VALID), batch.valid), "B"
        )
        self._line_no[start:stop] = xp.to_array(batch.line_no, "i")
        self._length[start:stop] = xp.to_array(batch.length, "I", 2**32 - 1)
        self._gen[start:stop] = array("H", [gen]) * n
        self._put_where(start, where)
        if gen == 0 and n:
            delta = int(batch.offset[0]) - int(where[0])  # the same for every row of a batch
            if not self._copied or self._copied[-1][1] != delta:
                self._copied.append((start, delta))
        if batch.reason_span is not None:  # a row read from the bytes: the owner's shape
            shape = array("B", [2]) * n
            for i in batch.extra:
                shape[i] = 1 if batch.plain[i] else 0
        else:
            shape = xp.to_array(batch.plain, "B")
        if shaped is not None and batch.data:
            for i in ops_of(shaped).rows(shaped):
                if shape[i]:
                    shape[i] = 2
        self._plain[start:stop] = shape
        for name, column in self._columns.items():
            column.extend(*batch.field(name))
        errors = array("H", bytes(2 * n))
        for i, r in batch.extra.items():
            if not r.valid:
                errors[i] = self._error_id(str(r.error or "invalid line"))
                if not lines or batch.length[i] >= self.max_line:
                    self._raw[start + i] = str(r.raw or "")
        self._error[start:stop] = errors
        if n:
            self.max_length = max(self.max_length, min(xp.top(batch.length), 2**32 - 1))
            end = int(batch.offset[-1]) + int(batch.length[-1]) + 1
            self._log_bytes = max(self._log_bytes, end)
        self._filled = stop
        self._count = max(self._count, stop)

    def _error_id(self, error: str) -> int:
        found = self._errors.get(error)
        if found is None:
            if len(self._error_texts) >= 2**16 - 1:  # not seen in practice: they are few
                return self._error_id("invalid line")
            found = self._errors[error] = len(self._error_texts)
            self._error_texts.append(error)
        return found

    def add_marker(self, text: str, when: datetime, lines: int = 0) -> None:
        """A notice row after the filled rows (pending rows are dropped first)."""
        with self._lock:
            self.drop_pending()
            row = self._filled
            self._kind.append(KIND_MARKER)
            for arr in (self._line_no, self._where):
                arr.append(0)
            self._length.append(0)
            self._gen.append(0)
            self._plain.append(0)
            self._error.append(0)
            for column in self._columns.values():
                column.extend([None])
            self._markers[row] = Marker(when, text, lines)
            self._filled = self._count = row + 1

    def append_records(self, records: Sequence[Any]) -> None:
        """Records that came from elsewhere (tests, a demo): their lines are written as the
        owner writes them and copied in (a record that is not a line keeps its fields)."""
        lines = [_owner_line(r) if r.valid else b"" for r in records]
        lengths = list(map(len, lines))
        base = len(self._copy)
        offsets = accumulate((size + 1 for size in lengths[:-1]), initial=base)
        fixed = [_as_record(r, at) for r, at in zip(records, offsets, strict=True)]
        data = b"\n".join(lines)
        plain = list(map(is_plain, lines))
        batch = Batch.of(fixed, lengths, plain, data=data, base=base)
        # a valid record of text fields is written in the owner's exact shape: a text filter
        # confirms a hit in its reason from the bytes (else each candidate row is parsed again)
        shaped = [r.valid and all(isinstance(v, str | None) for v in r[: len(KEYS)]) for r in fixed]
        self.fill(batch, gen=0, shaped=shaped, lines=False)

    # ------------------------------------------------------------------ filters
    def mask(
        self, f: HookFilter, start: int, stop: int, wanted: Callable[[], bool] | None = None
    ) -> bytes | None:
        """One byte per filled row of ``[start:stop]``: 1 when it passes ``f`` (markers always
        do). None when ``f`` lets everything through. ``wanted``: asked between the parts of a
        text scan; when it says no, :class:`Moot` is raised (a newer filter was typed).

        The store's lock is held only while the rows' columns are copied: the scan of the log's
        bytes runs without it (on its own descriptor), so a viewer reading rows meanwhile (the
        screen, from the UI thread) never waits for a scan."""
        if not f.active:
            return None
        if wanted is not None and not wanted():
            raise Moot
        with self._lock:
            xp = self._ops()
            mask: bytes | None = None
            cols = self._columns
            for allowed, column in (
                (f.hooks, cols["hook"]),
                (f.events, cols["event"]),
                (f.phases, cols["phase"]),
            ):
                if allowed is not None:
                    m = column.mask(column.ids_of(allowed), start, stop, xp)
                    mask = m if mask is None else _and(mask, m)
            text = self._text_plan(f.text.lower(), start, stop) if f.text else None
            markers = None
            if self._markers:
                table = bytearray(256)
                table[KIND_MARKER] = 1
                markers = self._kind[start:stop].translate(table)
        if text is not None:
            hit = self._text_scan(text, wanted)
            mask = hit if mask is None else _and(mask, hit)
        assert mask is not None
        return mask if markers is None else _or(mask, markers)

    def _text_plan(self, needle: str, start: int, stop: int) -> _TextPlan:
        """What a text filter needs, copied under the lock: the rows whose hook, agent or phase
        holds ``needle`` (lower case), the invalid lines that do, and per file generation the
        valid rows whose reasons are to be scanned."""
        xp = self._ops()
        cols = self._columns
        matches = [
            (c, c.ids_matching(needle)) for c in (cols["hook"], cols["agent"], cols["phase"])
        ]
        if any(len(ids) == len(c.values) for c, ids in matches):
            return _TextPlan(needle, start, b"\x01" * (stop - start), [], xp)  # every value matches
        hit = bytearray(stop - start)
        for column, ids in matches:
            if ids:
                hit = bytearray(_or(hit, column.mask(ids, start, stop, xp)))
        errors = [i for i, e in enumerate(self._error_texts) if i and needle in e.lower()]
        if errors:
            codes = xp.column(self._error, start, stop)
            hit = bytearray(_or(hit, xp.to_array(xp.isin(codes, errors), "B").tobytes()))
        # the valid rows and the invalid ones shown from their bytes are scanned
        is_valid = xp.isin(xp.column(self._kind, start, stop), (KIND_VALID, KIND_INVALID))
        for row, raw in self._raw.items():
            if start <= row < stop:
                is_valid[row - start] = False
                if needle in raw.lower():
                    hit[row - start] = 1
        others = any(c.overflowed for c, _ids in matches)
        parts = []
        chosen = xp.rows(is_valid)
        if len(chosen):
            # copies (the arrays may grow, and move, once the lock is let go): a slice's copy
            # when every row is valid (the usual case), else the valid rows gathered
            every = len(chosen) == stop - start
            valid = xp.shift(chosen, start)

            def copied(buf: array[Any] | bytearray) -> Col:
                values = xp.column(buf, start, stop)
                return values if every else xp.take(values, chosen)

            gens = copied(self._gen)
            where = copied(self._where)
            lengths = copied(self._length)
            plain = copied(self._plain)
            present = xp.distinct(gens)
            for gen in present:
                ident = self._files[gen] if gen < len(self._files) else None
                if len(present) == 1:  # one file generation (the usual case): no gather
                    parts.append((gen, ident, valid, where, lengths, plain))
                    continue
                sel = xp.rows_eq(gens, gen)
                parts.append(
                    (gen, ident, *(xp.take(c, sel) for c in (valid, where, lengths, plain)))
                )
        return _TextPlan(needle, start, bytes(hit), parts, xp, others)

    def _text_scan(self, plan: _TextPlan, wanted: Callable[[], bool] | None) -> bytes:
        """The plan's rows, with those whose reason (an invalid line: its text) holds the needle:
        the raw bytes are searched first (case-folded, :func:`_reason_hits`), a candidate not
        confirmed from them is parsed."""
        hit = bytearray(plan.hit)
        needle = plan.needle
        raw_needle = needle.encode() if needle.isascii() else None
        for gen, ident, rows, where, lengths, plain in plan.parts:
            with self._reader(gen, ident) as read:
                found = _scan(
                    plan.xp,
                    read,
                    rows,
                    where,
                    lengths,
                    plain,
                    needle,
                    raw_needle,
                    wanted,
                    plan.others,
                )
                for row in found:
                    hit[row - plan.start] = 1
        return bytes(hit)

    @contextmanager
    def _reader(
        self, gen: int, ident: tuple[int, int] | None
    ) -> Iterator[Callable[[int, int], bytes | None]]:
        """``read(offset, size)`` on file generation ``gen`` (its own descriptor) or the copy."""
        if gen == 0:
            yield lambda at, size: bytes(self._copy[at : at + size])
            return
        fd = None if ident is None or self.path is None else _open_file(self.path, ident)

        def read(at: int, size: int) -> bytes | None:
            return None if fd is None else _pread_exact(fd, size, at)

        try:
            yield read
        finally:
            if fd is not None:
                os.close(fd)


def _open_file(path: str | os.PathLike[str], ident: tuple[int, int]) -> int | None:
    """A descriptor on ``path`` if the file there is still ``ident`` (device, inode)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        st = None
    if st is None or (st.st_dev, st.st_ino) != ident:
        os.close(fd)
        return None
    return fd


def _pread_exact(fd: int, size: int, at: int) -> bytes | None:
    """``size`` bytes at ``at``, or None (an error, or the file is shorter now)."""
    try:
        data = os.pread(fd, size, at)
    except OSError:
        return None
    return data if len(data) == size else None


class _TextPlan(NamedTuple):
    needle: str
    start: int
    hit: bytes  # rows already matched (columns, errors, invalid lines kept whole)
    # per file generation: (generation, its identity, rows, where, lengths, shapes)
    parts: list[tuple[int, tuple[int, int] | None, Col, Col, Col, Col]]
    xp: Ops  # the column operations the rows are in
    others: bool = False  # a column holds values as OTHER: a row's hook, agent, phase are read too


def _scan(
    xp: Ops,
    read: Callable[[int, int], bytes | None],
    rows: Col,
    where: Col,
    lengths: Col,
    plain: Col,
    needle: str,
    raw_needle: bytes | None,
    wanted: Callable[[], bool] | None,
    others: bool = False,
) -> Iterator[int]:
    """The ``rows`` whose reason holds ``needle``, read ``SCAN_CHUNK`` bytes at a time (the
    parts scanned at once on the hook log's threads)."""
    if not len(rows):
        return
    # a part: the rows starting in one SCAN_CHUNK of the file
    bounds = list(pairwise([0, *xp.breaks(where, SCAN_CHUNK), len(rows)]))

    def part(bound: tuple[int, int]) -> list[int]:
        i, j = bound
        if wanted is not None and not wanted():
            raise Moot
        lo = int(where[i])
        data = read(lo, max(0, int(where[j - 1]) + int(lengths[j - 1]) - lo))
        if data is None:
            return []
        starts = xp.shift(where[i:j], -lo)
        hits: list[int] = []
        if raw_needle is None or b'"' in raw_needle:
            candidates: Col = range(j - i)
        else:
            found, candidates = _reason_hits(
                xp, data, starts, lengths[i:j], plain[i:j], raw_needle, others
            )
            hits.extend(xp.ints(xp.take(rows, xp.shift(found, i))))
        for k in xp.ints(candidates):
            s = int(starts[k])
            if _holds(parse_fast(data[s : s + int(lengths[i + k])]), needle, others):
                hits.append(int(rows[i + k]))
        return hits

    for hits in map_parts(part, bounds):
        yield from hits


def _holds(record: HookRecord, needle: str, others: bool) -> bool:
    """The text filter on a row parsed again: its reason (an invalid row: its text) holds the
    needle, or with ``others`` its hook, agent or phase (not held in the columns)."""
    text = record.reason if record.valid else record.raw
    if text and needle in text.lower():
        return True
    return (
        others
        and record.valid
        and any(
            v is not None and needle in v.lower() for v in (record.hook, record.agent, record.phase)
        )
    )


def _reason_hits(
    xp: Ops,
    data: bytes,
    starts: Col,
    lengths: Col,
    shape: Col,
    needle: bytes,
    others: bool = False,
) -> tuple[Col, Col]:
    """The rows (of a part) whose reason holds ``needle``, confirmed from the bytes, and those
    to confirm by parsing: ``xp.reason_hits`` (:mod:`.columns`)."""
    return xp.reason_hits(data, starts, lengths, shape, needle, others)


_find_all = find_all  # the vectorised raw search (its own test holds it to bytes.find)


def _gone(line_no: int, where: int) -> HookRecord:
    return HookRecord(None, None, None, None, None, None, line_no, where, False, _GONE, "")


def _owner_line(r: Any) -> bytes:
    import json

    values = {k: getattr(r, k, None) for k in KEYS}
    return json.dumps(values, separators=(",", ":"), ensure_ascii=False).encode()


def _as_record(r: Any, offset: int) -> HookRecord:
    if isinstance(r, HookRecord):
        return HookRecord(
            r.ts,
            r.hook,
            r.event,
            r.phase,
            r.agent,
            r.reason,
            r.line_no,
            offset,
            r.valid,
            r.error,
            r.raw,
            r.notes,
        )
    ts, hook, event, phase, agent, reason = (getattr(r, k, None) for k in KEYS)
    return HookRecord(
        ts,
        hook,
        event,
        phase,
        agent,
        reason,
        int(getattr(r, "line_no", 0) or 0),
        offset,
        bool(getattr(r, "valid", True)),
        getattr(r, "error", None),
        getattr(r, "raw", None),
    )
