"""Lines of the hook log as columns: :class:`Batch`; :func:`parse_block` makes one from the raw
bytes of many lines without a Python object per line (numpy: a log past
:data:`.parse.KEEP_BYTES`), :func:`parse_lines` from a record per line (lists: a log the owner's
rotation keeps, no numpy).

The owner writes each line in one exact shape: ``{"ts":V,"hook":V,"event":V,"phase":V,
"agent":V,"reason":V}``, every ``V`` ``null`` or a string. When a line is printable ASCII with no
backslash, its quotes are all structural, so that shape can be checked for a whole block at once
with numpy: from each line's start, a value is ``null`` or runs to the next quote, the next key's
token must follow it, and ``}`` must end the line. Such a line's values are its bytes. Every line
that is not exactly that (another shape, an escape, non-ASCII text, a non-canonical ``ts``, an
unknown event, an over-long line) is parsed one by one by :func:`.parse.parse_fast`, the
reference: a block's records are always exactly :func:`.parse.parse_line`'s (a property test
holds the two together).

What a row keeps: its line number, offset and length; for ``hook``, ``event``, ``phase`` and
``agent`` a code into the block's few distinct values; for ``ts`` and ``reason`` where their
text lies in the block (decoded only when asked); ``ts`` also as microseconds since the epoch
for the order rule. No textual here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from ..protocol import HOOK_EVENTS, parse_iso
from .columns import Col, Ops, ops_of
from .parse import _TS_FAST, KEYS, MAX_LINE, HookRecord, _overlong, parse_fast

if TYPE_CHECKING:
    import numpy as np

FIELDS = ("hook", "event", "phase", "agent")  # few distinct values: one code per row
TS_NONE = -(2**62)  # ts_us of a row with no timestamp (or an unusable one)
_TS_LATER = TS_NONE + 1  # ts_us still to be worked out from the record's text
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_PREFIX = b'{"ts":'
_TOKENS = (b',"hook":', b',"event":', b',"phase":', b',"agent":', b',"reason":')
_PAD = bytes(64)
_WIDE = 48  # a few-valued value longer than this is rare: its row is parsed alone
_SHORTEST = len(_PREFIX) + sum(map(len, _TOKENS)) + 6 * 4 + 1 - 4 + 2  # event is a string
# bytes whose lines are not plain: controls, backslash, DEL and everything past ASCII
_PLAIN_BYTES = bytes(b for b in range(0x20, 0x7F) if b != 0x5C) + b"\n"
_SPECIAL = bytes(b not in _PLAIN_BYTES for b in range(256))  # a table: 1 for a special byte


def is_plain(line: bytes) -> bool:
    """The line is printable ASCII without a backslash: its text is its bytes."""
    return not line.translate(None, _PLAIN_BYTES)


def ts_us(ts: str | None) -> int:
    """A timestamp as microseconds since the epoch (the order rule's key); TS_NONE when absent
    or not a timestamp :func:`~core.protocol.parse_iso` understands."""
    t = parse_iso(ts)
    return TS_NONE if t is None else (t - EPOCH) // _US


def us_time(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def codes_of(values: Iterable[Any]) -> tuple[list[Any], list[int]]:
    """Distinct values (first seen first) and each value's index among them."""
    values = list(values)
    index: dict[Any, int] = {}
    for v in values:
        index.setdefault(v, len(index))
    return list(index), list(map(index.__getitem__, values))


class Batch(Struct, eq=False):
    """Consecutive rows of the log (see the module docstring).

    ``extra`` holds the whole record of each row parsed one by one (and of every row of a batch
    built from records); the other rows are read from ``data`` (their spans say where). Its
    columns are lists when it was built from records (a log the owner's rotation keeps, or a
    few odd lines), numpy arrays when :func:`parse_block` made it: :attr:`ops` handles either
    (:mod:`.columns`)."""

    base: int  # file offset of data[0]
    data: bytes | None  # the rows' lines joined by newlines (None: records without bytes)
    extra: dict[int, HookRecord]
    fields: dict[str, tuple[list[Any], Col]]  # FIELDS -> (distinct values, codes)
    has_ts: Col  # bool per row
    length: Col  # bytes per line, without its newline
    line_no: Col
    offset: Col  # file offset per row
    plain: Col  # bool: the line is printable ASCII without a backslash
    # (start, end) in data per row; (-1, -1): null or from the record. None: every row's
    # record is in ``extra`` (a batch built from records)
    reason_span: np.ndarray | None
    ts_span: np.ndarray | None
    ts_us: Col  # the order rule's key (TS_NONE, _TS_LATER: from the record's text)
    valid: Col  # bool per row

    def __len__(self) -> int:
        return len(self.offset)

    @property
    def ops(self) -> Ops:
        """The column operations that fit this batch's columns."""
        return ops_of(self.valid)

    # ------------------------------------------------------------------ building
    @classmethod
    def of(
        cls,
        records: Sequence[HookRecord],
        length: Col | None = None,
        plain: Col | None = None,
        *,
        data: bytes | None = None,
        base: int = 0,
    ) -> Batch:
        """A batch of records parsed elsewhere (each row's record is kept whole), in lists;
        ``data``: their lines' bytes (joined by newlines), if they have any, the first at
        offset ``base``."""
        n = len(records)
        fields = {}
        for k, name in enumerate(KEYS[1:5], start=1):
            fields[name] = codes_of(r[k] for r in records)
        return cls(
            base=base,
            data=data,
            extra=dict(enumerate(records)),
            fields=fields,
            has_ts=[r.ts is not None for r in records],
            length=[0] * n if length is None else length,
            line_no=[r.line_no for r in records],
            offset=[r.offset for r in records],
            plain=[False] * n if plain is None else plain,
            reason_span=None,
            ts_span=None,
            ts_us=[_TS_LATER] * n,
            valid=[r.valid for r in records],
        )

    # ------------------------------------------------------------------ reading
    def field(self, name: str) -> tuple[list[Any], Col]:
        """(distinct values, one code per row) of a few-valued field."""
        return self.fields[name]

    def text(self, span: np.ndarray | None, row: int) -> str | None:
        if span is None:
            return None
        start, end = span[row]
        if start < 0:
            return None
        assert self.data is not None  # (a span into the bytes: the batch has them)
        return self.data[start:end].decode("ascii")

    def ts(self, row: int) -> str | None:
        r = self.extra.get(row)
        return r.ts if r is not None else self.text(self.ts_span, row)

    def reason(self, row: int) -> str | None:
        r = self.extra.get(row)
        return r.reason if r is not None else self.text(self.reason_span, row)

    def record(self, row: int) -> HookRecord:
        r = self.extra.get(row)
        if r is not None:
            return r
        hook, event, phase, agent = [
            values[codes[row]] for values, codes in map(self.fields.__getitem__, FIELDS)
        ]
        ts, reason = self.text(self.ts_span, row), self.text(self.reason_span, row)
        return HookRecord(
            ts, hook, event, phase, agent, reason, int(self.line_no[row]), int(self.offset[row])
        )

    def records(self) -> list[HookRecord]:
        return [self.record(i) for i in range(len(self))]

    def timestamps(self) -> Col:
        """``ts_us`` with every row's key worked out (TS_NONE: no usable timestamp)."""
        for i in self.ops.ints(self.ops.rows_eq(self.ts_us, _TS_LATER)):
            self.ts_us[i] = ts_us(self.ts(i)) if self.valid[i] else TS_NONE
        return self.ts_us


# ---------------------------------------------------------------------------- parse_lines


def parse_lines(data: bytes, base: int, first_line: int, max_line: int = MAX_LINE) -> Batch:
    """:func:`parse_block`'s rows, parsed line by line with :func:`.parse.parse_fast` into a
    batch of lists: no numpy (a block of a log the owner's rotation keeps is a few thousand
    lines, cheap enough one by one: docs/performance.md#the-hook-log)."""
    records = []
    lengths = []
    plain = []
    at = 0
    for line_no, line in enumerate(data.split(b"\n"), first_line):
        size = len(line)
        if size >= max_line:
            records.append(_overlong(line[:max_line], max_line, line_no, base + at))
        else:
            records.append(parse_fast(line, line_no, base + at))
        lengths.append(size)
        plain.append(is_plain(line))
        at += size + 1
    return Batch.of(records, lengths, plain, data=data, base=base)


def parse(
    data: bytes, base: int, first_line: int, max_line: int = MAX_LINE, *, large: bool
) -> Batch:
    """The rows of ``data`` (see :func:`parse_block`): vectorised when the log is ``large``
    (past :data:`.parse.KEEP_BYTES`), else line by line (:func:`parse_lines`)."""
    if large:
        return parse_block(data, base, first_line, max_line)
    return parse_lines(data, base, first_line, max_line)


# ---------------------------------------------------------------------------- parse_block


def parse_block(data: bytes, base: int, first_line: int, max_line: int = MAX_LINE) -> Batch:
    """The rows of ``data`` (complete lines joined by newlines, the last newline left out) read
    at file offset ``base``, numbered from ``first_line``; a line of ``max_line`` bytes or more
    is reported invalid (skipped), as :func:`.parse._overlong` says."""
    import numpy as np

    arr = np.frombuffer(data, np.uint8)
    nl = np.flatnonzero(arr == 10)
    starts = np.concatenate(([0], nl + 1)).astype(np.int64)
    ends = np.concatenate((nl, [len(data)])).astype(np.int64)
    n = len(starts)
    length = ends - starts
    plain = np.ones(n, np.bool_)
    if not is_plain(data):  # some line holds a special byte: which ones
        special = np.flatnonzero(np.frombuffer(_SPECIAL, np.bool_)[arr])
        plain[np.searchsorted(starts, special, "right") - 1] = False
    buf = np.frombuffer(data + _PAD, np.uint8)
    fast = plain & (length >= _SHORTEST) & (length < max_line)
    walk = _Walk(data, buf, starts, ends, fast)
    fast = walk.ok
    ts_span, reason_span = walk.spans[0], walk.spans[5]
    ts_key, fast = _timestamps(buf, ts_span, fast, data)
    values, all_codes, fast = _few(buf, walk.spans[1:5], fast, data)
    fields = {name: (values, codes) for name, codes in zip(FIELDS, all_codes, strict=True)}
    values, codes = fields["event"]
    known = np.array([v in HOOK_EVENTS for v in values] or [False])
    fast &= known[codes] if len(values) else fast
    extra: dict[int, HookRecord] = {}
    for i in np.flatnonzero(~fast).tolist():
        s, e = int(starts[i]), int(ends[i])
        if e - s >= max_line:
            extra[i] = _overlong(data[s : s + max_line], max_line, first_line + i, base + s)
        else:
            extra[i] = parse_fast(data[s:e], first_line + i, base + s)
    valid = fast.copy()
    has_ts = fast & (ts_span[:, 0] >= 0)
    if extra:
        _merge(extra, fields, valid, has_ts, ts_key, ts_span, reason_span)
    return Batch(
        base=base,
        data=data,
        extra=extra,
        fields=fields,
        has_ts=has_ts,
        length=length,
        line_no=np.arange(first_line, first_line + n, dtype=np.int64),
        offset=starts + base,
        plain=plain,
        reason_span=reason_span,
        ts_span=ts_span,
        ts_us=ts_key,
        valid=valid,
    )


def _merge(
    extra: dict[int, HookRecord],
    fields: dict[str, tuple[list[Any], np.ndarray]],
    valid: np.ndarray,
    has_ts: np.ndarray,
    ts_key: np.ndarray,
    ts_span: np.ndarray,
    reason_span: np.ndarray,
) -> None:
    """Put the rows parsed one by one into the columns (their spans say: from the record)."""
    import numpy as np

    rows = np.fromiter(extra, np.int64, len(extra))
    ts_span[rows] = -1
    reason_span[rows] = -1
    ts_key[rows] = _TS_LATER
    for k, name in enumerate(FIELDS, start=1):
        values, codes = fields[name]
        index = {v: c for c, v in enumerate(values)}
        for i, r in extra.items():
            v = r[k]
            c = index.get(v)
            if c is None:
                c = index[v] = len(values)
                values.append(v)
            codes[i] = c
    for i, r in extra.items():
        valid[i] = r.valid
        has_ts[i] = r.ts is not None


class _Walk:
    """The structural check, all rows at once: ``ok`` says which candidate rows are exactly
    the owner's shape, ``spans[k]`` where the k-th value's text lies ((-1, -1): null).

    In such a row every quote is structural, so the walk counts them: each key takes two, a
    string value two, null none; the k-th value starts at the quote the count points at."""

    def __init__(
        self, data: bytes, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, ok: np.ndarray
    ) -> None:
        import numpy as np

        n = len(starts)
        limit = len(data)
        words = np.ndarray((len(buf) - 7,), "<u8", buf.data, 0, (1,))  # 8 bytes at any offset
        quotes = np.append(np.flatnonzero(buf[:limit] == 34), [limit, limit])
        last = len(quotes) - 2
        ok = ok & (words[starts] & 0xFFFFFFFFFFFF == _word(_PREFIX))
        ok &= buf[np.maximum(ends - 1, 0)] == ord("}")
        at = starts + len(_PREFIX)
        q = np.searchsorted(quotes, at)  # the first quote at or after the value
        self.spans: list[np.ndarray] = []
        null = _word(b"null")
        for token in (*_TOKENS, b""):
            np.minimum(at, limit, out=at)
            np.minimum(q, last, out=q)
            is_str = quotes[q] == at
            ok &= is_str | ((words[at] & 0xFFFFFFFF) == null)
            close = quotes[q + 1]
            span = np.empty((n, 2), np.int64)
            span[:, 0] = np.where(is_str, at + 1, -1)
            span[:, 1] = np.where(is_str, close, -1)
            self.spans.append(span)
            after = np.where(is_str, close + 1, at + 4)
            if token:
                np.minimum(after, limit, out=after)
                ok &= _token_at(words, after, token)
                at = after + len(token)
                q += 2 + 2 * is_str  # the value's quotes, then the key's
            else:
                ok &= after == ends - 1
        self.ok = ok


def _word(b: bytes) -> int:
    return int.from_bytes(b.ljust(8, b"\0")[:8], "little")


def _token_at(words: np.ndarray, at: np.ndarray, token: bytes) -> np.ndarray:
    """Rows whose bytes at ``at`` are ``token`` (8 to 16 bytes long)."""
    ok = words[at] == _word(token)
    if len(token) > 8:
        ok &= words[at + len(token) - 8] == _word(token[-8:])
    return ok


def _timestamps(
    buf: np.ndarray, span: np.ndarray, fast: np.ndarray, data: bytes
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ts key (µs since the epoch) and the rows still fast: a ts must match the
    canonical pattern :data:`.parse._TS_FAST` (checked here for the usual 24 characters, one by
    one for other lengths), else the row is parsed alone."""
    import numpy as np

    n = len(fast)
    key = np.full(n, TS_NONE, np.int64)
    size = span[:, 1] - span[:, 0]
    usual = fast & (span[:, 0] >= 0) & (size == 24)
    rows = np.flatnonzero(usual)
    if len(rows):
        text = buf[span[rows, 0][:, None] + np.arange(24)]
        good = ((text[:, _DIGITS] - 48) <= 9).all(1)  # uint8: below "0" wraps round
        good &= (text[:, _MARKS] == np.frombuffer(_MARK_BYTES, np.uint8)).all(1)
        num = text.astype(np.int64) - 48
        year = num[:, 0] * 1000 + num[:, 1] * 100 + num[:, 2] * 10 + num[:, 3]
        month, day = num[:, 5] * 10 + num[:, 6], num[:, 8] * 10 + num[:, 9]
        hour, minute = num[:, 11] * 10 + num[:, 12], num[:, 14] * 10 + num[:, 15]
        second = num[:, 17] * 10 + num[:, 18]
        milli = num[:, 20] * 100 + num[:, 21] * 10 + num[:, 22]
        good &= (month >= 1) & (month <= 12) & (day >= 1) & (day <= 31) & (hour <= 23)
        good &= (num[:, 14] <= 5) & (num[:, 17] <= 5)
        fast[rows[~good]] = False
        # the calendar's own days (Feb 30 matches the pattern, parse_iso refuses it: later)
        leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
        days_in = np.array([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])[
            np.clip(month - 1, 0, 11)
        ]
        days_in = days_in + ((month == 2) & leap)
        real = good & (year >= 1) & (day <= days_in)
        key[rows] = np.where(
            real, _epoch_us(year, month, day, hour, minute, second, milli), _TS_LATER
        )
    other = np.flatnonzero(fast & (span[:, 0] >= 0) & (size != 24))
    for i in other.tolist():
        if _TS_FAST.match(data[span[i, 0] : span[i, 1]].decode("ascii")):
            key[i] = _TS_LATER
        else:
            fast[i] = False
    return key, fast


_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22]
_MARKS = [4, 7, 10, 13, 16, 19, 23]
_MARK_BYTES = b"--T::.Z"


def _epoch_us(year, month, day, hour, minute, second, milli):
    """Microseconds since 1970 of proleptic Gregorian dates (arrays; days from civil)."""
    import numpy as np

    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    days = era * 146097 + doe - 719468
    return ((days * 86400 + hour * 3600 + minute * 60 + second) * 1000 + milli) * 1000


def _few(
    buf: np.ndarray, spans: list[np.ndarray], fast: np.ndarray, data: bytes
) -> tuple[list[Any], list[np.ndarray], np.ndarray]:
    """The few-valued fields: (their distinct values, one table for all, first seen first; a
    code per row for each field; the rows still fast). Rows are grouped by a hash of the
    value's bytes (up to :data:`_WIDE`; a longer one: the row is parsed alone), every row is
    then compared whole with its group's first, and each distinct value is decoded once."""
    import numpy as np

    n = len(fast)
    values: list[Any] = [None]
    codes = [np.zeros(n, np.int32) for _ in spans]
    sizes = [span[:, 1] - span[:, 0] for span in spans]
    for size in sizes:
        fast = fast & (size <= _WIDE)
    picks = [np.flatnonzero(fast & (span[:, 0] >= 0)) for span in spans]
    rows = np.concatenate(picks)
    if not len(rows):
        return values, codes, fast
    at = np.concatenate([span[p, 0] for span, p in zip(spans, picks, strict=True)])
    lengths = np.concatenate([size[p] for size, p in zip(sizes, picks, strict=True)])
    width = max(8, -(-int(lengths.max()) // 8) * 8)
    words = np.ndarray((len(buf) - 7,), "<u8", buf.data, 0, (1,))
    parts = []
    for k in range(0, width, 8):
        keep = np.clip(lengths - k, 0, 8)  # bytes of this word inside the value
        parts.append(words[at + k] & np.array(_LOW_BYTES, np.uint64)[keep])
    mixed = lengths.astype(np.uint64)
    for k, part in enumerate(parts):
        mixed = (mixed ^ part) * np.uint64(_MIX[k])
    _distinct, first, inverse = np.unique(mixed, return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    same = lengths == lengths[first][inverse]
    for part in parts:
        same &= part == part[first][inverse]
    if not same.all():  # two values with one hash: those rows are parsed alone
        fast[rows[~same]] = False
    order = np.argsort(first, kind="stable")  # codes in the order the values first appear
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first, inverse = first[order], rank[inverse] + 1
    values.extend(
        data[s : s + int(z)].decode("ascii")
        for s, z in zip(at[first].tolist(), lengths[first].tolist(), strict=True)
    )
    cut = 0
    for field_codes, p in zip(codes, picks, strict=True):
        field_codes[p] = inverse[cut : cut + len(p)]
        cut += len(p)
    return values, codes, fast


def distinct_texts(data: bytes, span: np.ndarray) -> tuple[list[Any], np.ndarray, np.ndarray]:
    """The texts at ``span`` (rows of (start, end) in ``data``, ASCII, none null) grouped as
    :func:`_few` groups a field: (the distinct texts, ``values[0]`` unused; a code per row into
    them; the rows grouped). A row not grouped (longer than :data:`_WIDE`, or its hash shared
    with another text) is to be read alone."""
    import numpy as np

    values, (codes,), grouped = _few(
        np.frombuffer(data + _PAD, np.uint8), [span], np.ones(len(span), np.bool_), data
    )
    return values, codes, grouped


_LOW_BYTES = [(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1]
_MIX = [
    0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9, 0xD6E8FEB86659FD93,
    0xFF51AFD7ED558CCD, 0xC4CEB9FE1A85EC53,
]  # fmt: skip
