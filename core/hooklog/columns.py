"""The column operations of the hook log, each in two forms side by side behind one interface:
:data:`PLAIN` (Python lists, ``array``, ``bytes``) and :func:`vector` (numpy, imported on first
use).

A log the owner's rotation keeps (at most :data:`.parse.KEEP_BYTES`: it rotates at 1 MiB) is
a few thousand lines: it is parsed line by line into a :class:`.batch.Batch` of lists, counted,
audited and stored with :data:`PLAIN`, and numpy is never imported. A log that outgrew it is
parsed by the vectorised :func:`.batch.parse_block` into numpy columns, which :func:`vector`
handles. The code that uses a column asks :func:`ops_of` for the form that fits it, so what it
computes is written once.

A column is a sequence of ints or bools (one per row); ``rows`` are ascending row indexes.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Collection, Sequence
from functools import cache
from itertools import chain, compress, pairwise
from typing import Any, Protocol

Col = Any  # a list (plain) or a numpy array (vector): what an Ops takes and gives


class Ops(Protocol):
    """What the hook log's code does with a column; :data:`PLAIN` and :func:`vector` do it."""

    def rows(self, mask: Col) -> Col:
        """The rows where ``mask`` is true."""

    def rows_eq(self, col: Col, value: int) -> Col:
        """The rows where ``col`` equals ``value``."""

    def rows_ne(self, col: Col, value: int) -> Col:
        """The rows where ``col`` does not equal ``value``."""

    def rows_in(self, col: Col, values: Collection[int]) -> Col:
        """The rows where ``col`` holds one of ``values``."""

    def take(self, col: Col, rows: Col) -> Col:
        """``col`` at ``rows``."""

    def lookup(self, table: Sequence[int], codes: Col) -> Col:
        """``table[code]`` for each code (a bool is the code 0 or 1)."""

    def unless(self, col: Col, mask: Col, value: int) -> Col:
        """``col`` where ``mask`` is true, ``value`` elsewhere."""

    def shift(self, col: Col, delta: int) -> Col:
        """``col + delta`` (ints)."""

    def ints(self, col: Col) -> list[int]:
        """The column as a list of ints."""

    def to_array(self, col: Col, typecode: str, cap: int | None = None) -> array[Any]:
        """The column as an ``array`` of ``typecode``, each value at most ``cap``."""

    def tally(self, codes: Col) -> list[tuple[int, int]]:
        """(code, rows) for each code present, in the order the codes first appear."""

    def tally_pairs(self, first: Col, second: Col, seconds: int) -> list[tuple[int, int, int]]:
        """(first code, second code, rows) for each pair present, in the order the pairs first
        appear; ``seconds``: how many distinct second codes there are."""

    def last_at(self, codes: Col) -> list[tuple[int, int]]:
        """(code, position of its last occurrence) for each code present."""

    def backwards(self, values: Col, latest: int, tolerance: int) -> tuple[Col, list[int], int]:
        """The positions whose value is more than ``tolerance`` below the largest before it
        (``latest``: the largest of earlier columns), those largest values, and the new largest."""

    def isin(self, col: Col, values: Collection[int]) -> Col:
        """Per row: ``col`` holds one of ``values`` (bools)."""

    def top(self, col: Col) -> int:
        """The largest value (``col`` not empty)."""

    def distinct(self, col: Col) -> list[int]:
        """The values present, ascending (small ints)."""

    def column(self, buf: array[Any] | bytearray, start: int, stop: int) -> Col:
        """A copy of ``buf[start:stop]`` (the store's rows) as a column."""

    def counting(self, first: int, n: int, typecode: str) -> array[Any]:
        """``first, first + 1, ...``: ``n`` values as an ``array`` of ``typecode``."""

    def line_lengths(self, starts: Col, end: int) -> Col:
        """The length of each line starting at ``starts`` (the last one's newline is at
        ``end - 1``), without its newline."""

    def breaks(self, col: Col, size: int) -> list[int]:
        """The positions ``k > 0`` where ``col[k] // size`` differs from the value before."""

    def table(self, table: bytes, ids: array[Any], start: int, stop: int | None) -> bytes:
        """``table[id]`` for each of ``ids[start:stop]``, as bytes."""

    def reason_hits(
        self, data: bytes, starts: Col, lengths: Col, shape: Col, needle: bytes, others: bool
    ) -> tuple[Col, Col]:
        """Where the lower-cased ``data`` (rows at ``starts`` of ``lengths``) holds ``needle``
        (lower case, no quote in it): the rows of the owner's exact shape (``shape`` 2) whose
        reason holds it, confirmed from the bytes (the next quote after the hit closes the
        reason, which ends the line), and the rows to confirm by parsing: the others with a hit
        (with ``others``, also a shaped one with a hit elsewhere) and those without plain bytes
        (``shape`` 0). Both ascending."""

    def newlines(self, data: bytes | memoryview, offset: int) -> Col:
        """``offset`` plus the position just after each newline in ``data``."""

    def concat(self, parts: Sequence[Col]) -> Col:
        """The columns one after the other."""


class _Plain:
    """The operations on Python sequences (a few thousand rows: no setup cost)."""

    def rows(self, mask: Col) -> Col:
        return list(compress(range(len(mask)), mask))

    def rows_eq(self, col: Col, value: int) -> Col:
        return [i for i, v in enumerate(col) if v == value]

    def rows_ne(self, col: Col, value: int) -> Col:
        return [i for i, v in enumerate(col) if v != value]

    def rows_in(self, col: Col, values: Collection[int]) -> Col:
        wanted = set(values)
        return [i for i, v in enumerate(col) if v in wanted]

    def take(self, col: Col, rows: Col) -> Col:
        return [col[i] for i in rows]

    def lookup(self, table: Sequence[int], codes: Col) -> Col:
        return [table[c] for c in codes]

    def unless(self, col: Col, mask: Col, value: int) -> Col:
        return [v if m else value for v, m in zip(col, mask, strict=True)]

    def shift(self, col: Col, delta: int) -> Col:
        return [v + delta for v in col]

    def ints(self, col: Col) -> list[int]:
        return [int(v) for v in col]

    def to_array(self, col: Col, typecode: str, cap: int | None = None) -> array[Any]:
        return array(typecode, col if cap is None else [min(v, cap) for v in col])

    def tally(self, codes: Col) -> list[tuple[int, int]]:
        return list(Counter(codes).items())  # (a Counter keeps the order of first insertion)

    def tally_pairs(self, first: Col, second: Col, seconds: int) -> list[tuple[int, int, int]]:
        return [(a, b, n) for (a, b), n in Counter(zip(first, second, strict=True)).items()]

    def last_at(self, codes: Col) -> list[tuple[int, int]]:
        return list({c: k for k, c in enumerate(codes)}.items())

    def backwards(self, values: Col, latest: int, tolerance: int) -> tuple[Col, list[int], int]:
        back: list[int] = []
        before: list[int] = []
        for k, v in enumerate(values):
            if v < latest - tolerance:
                back.append(k)
                before.append(latest)
            elif v > latest:
                latest = v
        return back, before, latest

    def isin(self, col: Col, values: Collection[int]) -> Col:
        wanted = set(values)
        return [v in wanted for v in col]

    def top(self, col: Col) -> int:
        return max(col)

    def distinct(self, col: Col) -> list[int]:
        return sorted(set(col))

    def column(self, buf: array[Any] | bytearray, start: int, stop: int) -> Col:
        return buf[start:stop]

    def counting(self, first: int, n: int, typecode: str) -> array[Any]:
        return array(typecode, range(first, first + n))

    def line_lengths(self, starts: Col, end: int) -> Col:
        return [b - a - 1 for a, b in pairwise([*starts, end])]

    def breaks(self, col: Col, size: int) -> list[int]:
        return [k for k in range(1, len(col)) if col[k] // size != col[k - 1] // size]

    def table(self, table: bytes, ids: array[Any], start: int, stop: int | None) -> bytes:
        return bytes(map(table.__getitem__, ids[start:stop]))

    def reason_hits(
        self, data: bytes, starts: Col, lengths: Col, shape: Col, needle: bytes, others: bool
    ) -> tuple[Col, Col]:
        found: list[int] = []
        check: list[int] = []
        low = data.lower()
        for k, (start, size, kind) in enumerate(zip(starts, lengths, shape, strict=True)):
            end = start + size
            at = low.find(needle, start, end)
            if at < 0 or kind != 2:
                if at >= 0 or kind == 0:
                    check.append(k)
                continue
            closing = data[end - 2 : end] == b'"}'
            any_closes, all_close = False, True
            while at >= 0:
                closes = closing and low.find(b'"', at, end) == end - 2
                any_closes, all_close = any_closes or closes, all_close and closes
                at = low.find(needle, at + 1, end)
            if any_closes:
                found.append(k)
            if others and not all_close:  # a hit in a field is checked
                check.append(k)
        return found, check

    def newlines(self, data: bytes | memoryview, offset: int) -> Col:
        data = bytes(data)
        out = []
        at = data.find(b"\n")
        while at >= 0:
            out.append(offset + at + 1)
            at = data.find(b"\n", at + 1)
        return out

    def concat(self, parts: Sequence[Col]) -> Col:
        return list(chain.from_iterable(parts))


class _Vector:
    """The same operations with numpy (a million rows: each a few C loops)."""

    def __init__(self) -> None:
        import numpy

        self.np = numpy

    def rows(self, mask: Col) -> Col:
        return self.np.flatnonzero(mask)

    def rows_eq(self, col: Col, value: int) -> Col:
        return self.np.flatnonzero(self.np.asarray(col) == value)

    def rows_ne(self, col: Col, value: int) -> Col:
        return self.np.flatnonzero(self.np.asarray(col) != value)

    def rows_in(self, col: Col, values: Collection[int]) -> Col:
        np = self.np
        return np.flatnonzero(np.isin(col, np.fromiter(values, np.int64, len(values))))

    def take(self, col: Col, rows: Col) -> Col:
        np = self.np
        return np.asarray(col)[np.asarray(rows, np.intp)]

    def lookup(self, table: Sequence[int], codes: Col) -> Col:
        np = self.np
        return np.asarray(table, np.int64)[np.asarray(codes, np.intp)]

    def unless(self, col: Col, mask: Col, value: int) -> Col:
        return self.np.where(mask, col, value)

    def shift(self, col: Col, delta: int) -> Col:
        return self.np.asarray(col, self.np.int64) + delta

    def ints(self, col: Col) -> list[int]:
        return self.np.asarray(col).tolist()

    def to_array(self, col: Col, typecode: str, cap: int | None = None) -> array[Any]:
        values = self.np.asarray(col)
        if cap is not None and len(values):
            values = self.np.minimum(values, cap)
        out = array(typecode)
        out.frombytes(values.astype(_DTYPES[typecode]).tobytes())
        return out

    def tally(self, codes: Col) -> list[tuple[int, int]]:
        np = self.np
        if not len(codes):
            return []
        values, first, counts = np.unique(codes, return_index=True, return_counts=True)
        order = np.argsort(first, kind="stable")
        return list(zip(values[order].tolist(), counts[order].tolist(), strict=True))

    def tally_pairs(self, first: Col, second: Col, seconds: int) -> list[tuple[int, int, int]]:
        pairs = self.np.asarray(first, self.np.int64) * seconds + second
        return [(pair // seconds, pair % seconds, n) for pair, n in self.tally(pairs)]

    def last_at(self, codes: Col) -> list[tuple[int, int]]:
        codes = self.np.asarray(codes)
        values, last = self.np.unique(codes[::-1], return_index=True)
        return [
            (c, len(codes) - 1 - k) for c, k in zip(values.tolist(), last.tolist(), strict=True)
        ]

    def backwards(self, values: Col, latest: int, tolerance: int) -> tuple[Col, list[int], int]:
        np = self.np
        values = np.asarray(values, np.int64)
        if not len(values):
            return np.zeros(0, np.int64), [], latest
        before = np.maximum.accumulate(np.concatenate(([latest], values)))[:-1]
        back = np.flatnonzero(values < before - tolerance)
        return back, before[back].tolist(), max(latest, int(values.max()))

    def isin(self, col: Col, values: Collection[int]) -> Col:
        return self.np.isin(col, self.np.fromiter(values, self.np.int64, len(values)))

    def top(self, col: Col) -> int:
        return int(self.np.max(col))

    def distinct(self, col: Col) -> list[int]:
        return self.np.flatnonzero(self.np.bincount(col)).tolist()  # (no sort of a million)

    def column(self, buf: array[Any] | bytearray, start: int, stop: int) -> Col:
        code = buf.typecode if isinstance(buf, array) else "B"
        return self.np.frombuffer(buf, _DTYPES[code])[start:stop].copy()

    def counting(self, first: int, n: int, typecode: str) -> array[Any]:
        return self.to_array(self.np.arange(first, first + n, dtype=self.np.int64), typecode)

    def line_lengths(self, starts: Col, end: int) -> Col:
        np = self.np
        starts = np.asarray(starts, np.int64)
        lengths = np.empty(len(starts), np.int64)
        lengths[:-1] = np.diff(starts) - 1
        lengths[-1:] = end - 1 - starts[-1:]
        return lengths

    def breaks(self, col: Col, size: int) -> list[int]:
        window = self.np.asarray(col) // size
        return (self.np.flatnonzero(window[1:] != window[:-1]) + 1).tolist()

    def table(self, table: bytes, ids: array[Any], start: int, stop: int | None) -> bytes:
        np = self.np
        lookup = np.frombuffer(table, np.uint8)
        # the buffer view lives only in this expression: the array must stay resizable
        return lookup[np.frombuffer(ids, _DTYPES[ids.typecode])[start:stop]].tobytes()

    def reason_hits(
        self, data: bytes, starts: Col, lengths: Col, shape: Col, needle: bytes, others: bool
    ) -> tuple[Col, Col]:
        np = self.np
        at = find_all(data, needle)
        rows = np.searchsorted(starts, at, "right") - 1
        at, rows = at[rows >= 0], rows[rows >= 0]
        if not len(at):
            return at, np.flatnonzero(shape == 0)
        shaped = shape[rows] == 2
        raw = np.frombuffer(data, np.uint8)
        quotes = np.flatnonzero(raw == 34)
        ends = starts[rows] + lengths[rows]
        after = np.searchsorted(quotes, at)  # the first quote at or after each hit
        nxt = np.append(quotes, -1)[after]  # -1: none
        closes = (
            (nxt == ends - 2)
            & (raw[np.maximum(ends - 2, 0)] == 34)
            & (raw[np.maximum(ends - 1, 0)] == 125)
        )
        found = np.unique(rows[shaped & closes])
        unsure = ~(shaped & closes) if others else ~shaped  # others: a hit in a field is checked
        check = np.union1d(rows[unsure], np.flatnonzero(shape == 0))
        return found, check

    def newlines(self, data: bytes | memoryview, offset: int) -> Col:
        np = self.np
        return np.flatnonzero(np.frombuffer(data, np.uint8) == 10) + (offset + 1)

    def concat(self, parts: Sequence[Col]) -> Col:
        np = self.np
        return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


_DTYPES = {"B": "<u1", "H": "<u2", "I": "<u4", "i": "<i4", "q": "<i8"}

PLAIN: Ops = _Plain()


@cache
def vector() -> Ops:
    """The numpy form (numpy is imported here, the first time a log needs it)."""
    return _Vector()


def ops_of(col: Col) -> Ops:
    """The form that handles ``col``: :func:`vector` for a numpy array, else :data:`PLAIN`."""
    return vector() if type(col).__module__ == "numpy" else PLAIN


def find_all(data: bytes, needle: bytes) -> Col:
    """Where the lower-cased ``data`` holds ``needle`` (lower case), overlaps included, as a
    numpy array: the places whose first and last bytes match (compared case-folded, a letter's
    two cases at once), then the whole needle there. numpy compares: no copy of ``data``
    lower-cased, and the GIL is let go (two parts are scanned at once)."""
    import numpy as np

    m = len(needle)
    a = np.frombuffer(data, np.uint8)
    if m == 0 or len(a) < m:
        return np.zeros(0, np.int64)
    at = _folded_eq(a[: len(a) - m + 1], needle[0])
    if m > 1:
        at &= _folded_eq(a[m - 1 :], needle[-1])
    at = np.flatnonzero(at)
    if m > 2 and len(at):
        want = np.frombuffer(needle, np.uint8)
        keep = []
        for k in range(0, len(at), 65536):  # bounded memory for a needle found everywhere
            part = at[k : k + 65536]
            window = a[part[:, None] + np.arange(m)]
            window = window + ((window >= 65) & (window <= 90)).astype(np.uint8) * 32  # lower()
            keep.append(part[(window == want).all(axis=1)])
        at = np.concatenate(keep)
    return at


def _folded_eq(a: Col, byte: int) -> Col:
    """``a.lower() == byte`` for a lower-case ``byte`` (as ``bytes.lower``: ASCII letters)."""
    if 97 <= byte <= 122:  # a letter: either case (they differ by the bit 0x20 only)
        return (a | 0x20) == byte
    return a == byte
