"""The hook log's two paths cannot drift: a log within ``KEEP_BYTES`` (what the owner's rotation
leaves) is parsed, counted, audited, stored, filtered and searched with plain Python, and numpy
is never imported for it; past that bound the same work is numpy's. Each behaviour runs both
ways on generated logs and the results are compared (the column operations themselves too)."""

from __future__ import annotations

import json
import subprocess
import sys
from array import array
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.hooklog import HookAudit, HookCounts, HookLogTailer, line_starts
from phasewatch.core.hooklog import store as store_module
from phasewatch.core.hooklog import tail as tail_module
from phasewatch.core.hooklog.batch import Batch, parse_block, parse_lines
from phasewatch.core.hooklog.columns import PLAIN, vector
from phasewatch.core.hooklog.parse import KEEP_BYTES, KEYS
from phasewatch.core.hooklog.store import HookFilter, HookStore

VEC = vector()
MAX_LINE = 400


@contextmanager
def numpy_path() -> Iterator[None]:
    """As if every log had outgrown the bound: the tailer parses with numpy, and a store's
    column work (filters, text search) is numpy's."""
    with patch.object(tail_module, "KEEP_BYTES", -1), patch.object(store_module, "KEEP_BYTES", -1):
        yield


# ---------------------------------------------------------------------------- generated logs

_HOOKS = ["gate-blocker", "delegation-gate", "Iteration-Corridor", "h" * 60, "caf\u00e9"]
_EVENTS = ["allow", "block", "error", "warn", "skip", "teleport", ""]
_PHASES = [None, "05-test-strategy", "06-implementation"]
_REASONS = [
    None,
    "V7: state_version 1 < disk 3",
    "V7: incoming no version, disk 43",
    "V8: phase_index 1 < disk 2",
    "V8: supervised redo phase_status '06-x' completed -> in_progress",
    "ok } done",
    'x " y',
    "caf\u00e9 Z",
    "tab\there",
    "note 7: nothing",
    "r" * 120,
]
_TS = st.one_of(
    st.none(),
    st.builds(
        lambda m, s, ms: f"2026-03-04T09:{m:02d}:{s:02d}.{ms:03d}Z",
        st.integers(0, 59),
        st.integers(0, 59),
        st.integers(0, 999),
    ),
    st.sampled_from(["2026-02-30T00:00:00.000Z", "2026-03-04T09:00:00Z", "yesterday", ""]),
)
_owner = st.fixed_dictionaries(
    {
        "ts": _TS,
        "hook": st.sampled_from([*_HOOKS, None]),
        "event": st.sampled_from(_EVENTS),
        "phase": st.sampled_from(_PHASES),
        "agent": st.sampled_from(["software-developer", None]),
        "reason": st.sampled_from(_REASONS),
    }
).map(lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False))
_line = st.one_of(
    _owner,
    _owner,
    _owner,
    _owner.map(lambda s: s[:-1] + ',"x":1}'),  # an extra key
    _owner.map(lambda s: s.replace('"ts":', '"ts" :', 1)),  # another spacing
    st.sampled_from(["", "not json", "{}", "[1]", '{"event":"allow"}', '{"ts":1,"event":"block"}']),
    st.integers(MAX_LINE - 5, MAX_LINE + 50).map(lambda n: "y" * n),  # over max_line or near
)
_lines = st.lists(_line, max_size=60)


def _data(lines: list[str]) -> bytes:
    return "".join(x + "\n" for x in lines).encode()


def _write(tmp: Path, lines: list[str]) -> Path:
    path = tmp / "hook-activity.log"
    path.write_bytes(_data(lines))
    return path


def _read(path: Path, max_read: int) -> list[Batch]:
    tailer = HookLogTailer(path, max_read=max_read, max_line=MAX_LINE)
    return tailer.read_all().batches


def _columns(batch: Batch) -> dict[str, Any]:
    """What a batch says of each row, as plain lists."""
    rows = range(len(batch))
    xp = batch.ops
    out = {name: xp.ints(getattr(batch, name)) for name in ("length", "line_no", "offset", "plain")}
    out["valid"] = [bool(v) for v in batch.valid]
    out["has_ts"] = [bool(v) for v in batch.has_ts]
    out["ts_us"] = xp.ints(batch.timestamps())
    out["records"] = batch.records()
    out["ts"] = [batch.ts(i) for i in rows]
    out["reason"] = [batch.reason(i) for i in rows]
    for name in ("hook", "event", "phase", "agent"):
        values, codes = batch.field(name)
        out[name] = [values[c] for c in codes]
    return out


# ---------------------------------------------------------------------------- parse


@settings(max_examples=200)
@given(lines=_lines, base=st.integers(0, 10**9), first=st.integers(1, 10**6))
def test_the_plain_parser_gives_the_vectorised_one_s_rows(lines, base, first) -> None:
    """Every column of every row (records, spans decoded, timestamps as keys, codes) is the
    same whichever parser made the batch."""
    data = "\n".join(lines).encode()
    plain = parse_lines(data, base, first, MAX_LINE)
    vectorised = parse_block(data, base, first, MAX_LINE)
    assert plain.ops is PLAIN and vectorised.ops is VEC
    assert _columns(plain) == _columns(vectorised)


# ---------------------------------------------------------------------------- the whole read


def _filters() -> list[HookFilter]:
    some = frozenset(_HOOKS[:2])
    return [
        HookFilter(hooks=some),
        HookFilter(events=frozenset({"block", "error"})),
        HookFilter(phases=frozenset({None})),
        HookFilter(hooks=some, events=frozenset({"allow"}), phases=frozenset(_PHASES[1:])),
        *(
            HookFilter(text=t)
            for t in ("V7", "done", "disk 3", '" y', "caf\u00e9", "gate", "not json", "yyy", "}")
        ),
    ]


def _session_like(path: Path, max_read: int, copy: bool) -> tuple[dict[str, Any], set[Any]]:
    """The log read as the session reads it: the tailer's batches counted, audited and stored
    (read back from the file, or copied), then every row, count and filter the screen shows."""
    counts, audit = HookCounts(), HookAudit()
    store = HookStore(path, max_line=MAX_LINE)
    st_ = path.stat()
    gen = 0 if copy else store.file_generation((st_.st_dev, st_.st_ino))
    batches = _read(path, max_read)
    for batch in batches:
        counts.add(batch)
        audit.add(batch)
        store.fill(batch, gen=gen)
    rows = range(store.count)
    with patch.object(store_module, "SCAN_CHUNK", 512):  # several parts, on the threads
        masks = [store.mask(f, 0, store.filled) for f in _filters()]
    used = {b.ops for b in batches} | {store._ops()}  # the forms each path took
    return {
        "counts": counts.as_dict(),
        "findings": [audit.findings("log", current_phase=p) for p in _PHASES],
        "rows": [store.record(i) for i in rows],
        "kinds": [store.kind(i) for i in rows],
        "values": [[store.value(k, i) for k in ("hook", "event", "phase", "agent")] for i in rows],
        "store_counts": [store.counts(k) for k in ("hook", "event", "phase", "agent")],
        "masks": masks,
    }, used


@settings(max_examples=60)
@given(lines=_lines, max_read=st.integers(MAX_LINE, 4000), copy=st.booleans())
def test_counts_findings_rows_and_filters_are_the_same_on_both_paths(
    tmp_path_factory, lines, max_read, copy
) -> None:
    path = _write(tmp_path_factory.mktemp("log"), lines)
    plain, plain_ops = _session_like(path, max_read, copy)
    with numpy_path():
        vectorised, vector_ops = _session_like(path, max_read, copy)
    assert plain == vectorised
    assert len(plain["rows"]) == len(lines)
    assert plain_ops == {PLAIN} and VEC in vector_ops  # (each path was the one taken)


# ---------------------------------------------------------------------------- rotation


def _follow(path: Path, steps: list[tuple[str, list[str]]]) -> list[tuple[Any, ...]]:
    """A tailer following the log through appends and the owner's in-place rotations."""
    tailer = HookLogTailer(path, max_read=1500, max_line=MAX_LINE)
    store = HookStore(path, max_line=MAX_LINE)
    seen = []
    for what, lines in steps:
        if what == "append":
            with path.open("ab") as f:
                f.write(_data(lines))
        else:  # rotate: keep the newest lines, rewritten in place, then append
            kept = path.read_bytes().split(b"\n")[:-1][-len(lines) - 1 :]
            with path.open("r+b") as f:
                f.write(b"".join(x + b"\n" for x in kept) + _data(lines))
                f.truncate()
        res = tailer.read_all()
        if res.rotated or res.reset:
            store.retire_file()
            store.add_marker("rotated", datetime(2026, 1, 1), 0)
        for batch in res.batches:
            store.fill(batch, gen=0)
        flags = (res.rotated, res.truncated, res.reset, res.pending)
        seen.append((flags, [r for b in res.batches for r in b.records()]))
    seen.append(tuple(store.record(i) for i in range(store.count)))
    return seen


@settings(max_examples=40)
@given(
    first=st.lists(_owner, min_size=1, max_size=30),
    steps=st.lists(
        st.tuples(st.sampled_from(["append", "rotate"]), st.lists(_line, max_size=12)),
        max_size=5,
    ),
)
def test_rotation_is_followed_alike_on_both_paths(tmp_path_factory, first, steps) -> None:
    tmp = tmp_path_factory.mktemp("rot")
    path = _write(tmp, first)
    plain = _follow(path, [("append", []), *steps])
    path = _write(tmp, first)
    with numpy_path():
        vectorised = _follow(path, [("append", []), *steps])
    assert plain == vectorised


# ---------------------------------------------------------------------------- pending rows


@settings(max_examples=40)
@given(lines=_lines, tail=st.binary(max_size=20).filter(lambda b: b"\n" not in b))
def test_pending_rows_are_indexed_and_filled_alike_on_both_paths(
    tmp_path_factory, lines, tail
) -> None:
    path = tmp_path_factory.mktemp("pending") / "log"
    path.write_bytes(_data(lines) + tail)

    def pending_then_filled() -> tuple[Any, ...]:
        store = HookStore(path, max_line=MAX_LINE)
        st_ = path.stat()
        gen = store.file_generation((st_.st_dev, st_.st_ino))
        starts, end = line_starts(path)
        store.add_pending(starts, end, 1, gen)
        shown = [store.record(i) for i in range(store.count)]
        for batch in _read(path, 700):
            store.fill(batch, gen=gen)
        return (
            list(starts),
            end,
            store.pending,
            shown,
            [store.record(i) for i in range(store.count)],
        )

    plain = pending_then_filled()
    with numpy_path():
        vectorised = pending_then_filled()
    assert plain == vectorised
    assert plain[2] == 0 and plain[3] == plain[4]


# ---------------------------------------------------------------------------- column operations

_codes = st.lists(st.integers(0, 6), max_size=40)


def _same(a: Any, b: Any) -> None:
    """A plain result and a numpy one hold the same values."""
    a = a.tolist() if isinstance(a, np.ndarray) else a
    b = b.tolist() if isinstance(b, np.ndarray) else b
    assert list(a) == list(b)


@settings(max_examples=200)
@given(
    codes=_codes,
    other=_codes,
    mask=st.lists(st.booleans(), max_size=40),
    value=st.integers(0, 6),
    values=st.sets(st.integers(0, 6)),
    delta=st.integers(-50, 50),
)
def test_the_column_operations_agree(codes, other, mask, value, values, delta) -> None:
    n = min(len(codes), len(other), len(mask))
    codes, other, mask = codes[:n], other[:n], mask[:n]
    c, o, m = np.array(codes, np.int32), np.array(other, np.int32), np.array(mask, np.bool_)
    table = [k * 3 for k in range(7)]
    for name, args, vargs in [
        ("rows", (mask,), (m,)),
        ("rows_eq", (codes, value), (c, value)),
        ("rows_ne", (codes, value), (c, value)),
        ("rows_in", (codes, values), (c, values)),
        ("isin", (codes, values), (c, values)),
        ("take", (codes, PLAIN.rows(mask)), (c, VEC.rows(m))),
        ("lookup", (table, codes), (table, c)),
        ("lookup", ((0, 1), mask), ((0, 1), m)),
        ("unless", (codes, mask, 9), (c, m, 9)),
        ("shift", (codes, delta), (c, delta)),
        ("ints", (codes,), (c,)),
        ("tally", (codes,), (c,)),
        ("tally_pairs", (codes, other, 7), (c, o, 7)),
        ("distinct", (codes,), (c,)),
        ("breaks", (sorted(codes), 2), (np.sort(c), 2)),
        ("concat", ([codes, other],), ([c, o],)),
    ]:
        _same(getattr(PLAIN, name)(*args), getattr(VEC, name)(*vargs))
    assert sorted(PLAIN.last_at(codes)) == sorted(VEC.last_at(c))
    for code in "BHIiq":
        _same(PLAIN.to_array(codes, code, 4), VEC.to_array(c, code, 4))
    if n:
        assert PLAIN.top(codes) == VEC.top(c)
    ids = array("I", codes)
    assert PLAIN.table(bytes(table), ids, 1, None) == VEC.table(bytes(table), ids, 1, None)
    assert PLAIN.column(ids, 1, 5) == array("I", VEC.column(ids, 1, 5))
    _same(PLAIN.counting(delta, n, "q"), VEC.counting(delta, n, "q"))


@settings(max_examples=200)
@given(
    values=st.lists(st.integers(-(10**7), 10**7), max_size=40),
    latest=st.integers(-(10**7), 10**7),
    tolerance=st.integers(0, 10**6),
)
def test_backwards_agrees(values, latest, tolerance) -> None:
    back, before, top = PLAIN.backwards(values, latest, tolerance)
    vback, vbefore, vtop = VEC.backwards(np.array(values, np.int64), latest, tolerance)
    _same(back, vback)
    assert (before, top) == (vbefore, vtop)


@settings(max_examples=200)
@given(data=st.binary(max_size=200), offset=st.integers(0, 1000))
def test_newline_scans_agree(data, offset) -> None:
    _same(PLAIN.newlines(data, offset), VEC.newlines(data, offset))
    starts = [0, *PLAIN.newlines(data, 0)][:-1] if b"\n" in data else []
    if starts:
        end = data.rfind(b"\n") + 1
        _same(PLAIN.line_lengths(starts, end), VEC.line_lengths(np.array(starts), end))


_BYTES = st.sampled_from(b'aAzZ@`[{-_ 7:\x80\xc3\xa9}" ')


@settings(max_examples=300)
@given(
    rows=st.lists(
        st.tuples(
            st.builds(  # often an owner line's end: the reason closed by '"}'
                lambda head, reason, closed: head + (b'"' + reason + b'"}' if closed else reason),
                st.lists(_BYTES, max_size=12).map(bytes),
                st.lists(_BYTES.filter(lambda b: b != ord('"')), max_size=12).map(bytes),
                st.booleans(),
            ),
            st.sampled_from([0, 1, 2]),
        ),
        max_size=12,
    ),
    needle=st.lists(_BYTES.filter(lambda b: b != ord('"')), min_size=1, max_size=4).map(bytes),
    others=st.booleans(),
)
def test_the_raw_reason_search_agrees(rows, needle, others) -> None:
    """The text filter's first pass: the rows confirmed from the bytes and the rows to parse
    are the same whichever form searched (the needle never holds a quote or a newline)."""
    data = b"\n".join(line for line, _ in rows)
    starts = [0]
    for line, _ in rows[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    starts = starts[: len(rows)]
    lengths = [len(line) for line, _ in rows]
    shape = [s for _, s in rows]
    needle = needle.lower()
    found, check = PLAIN.reason_hits(data, starts, lengths, shape, needle, others)
    vfound, vcheck = VEC.reason_hits(
        data, np.array(starts, np.int64), np.array(lengths), np.array(shape), needle, others
    )
    _same(found, vfound)
    _same(check, vcheck)


# ---------------------------------------------------------------------------- the bound


def _log(lines: int) -> str:
    return "".join(
        json.dumps(
            dict(
                zip(
                    KEYS,
                    (
                        f"2026-03-04T09:{i // 60 % 60:02d}:{i % 60:02d}.418Z",
                        ["gate-blocker", "delegation-gate"][i % 2],
                        ["allow", "block", "error", "warn"][i % 4],
                        "06-implementation",
                        "software-developer",
                        f"V7: state_version {i} < disk {i + 2}" if i % 3 else None,
                    ),
                    strict=True,
                )
            ),
            separators=(",", ":"),
        )
        + "\n"
        for i in range(lines)
    )


@pytest.mark.parametrize("size", ["at the cap", "past the bound"])
def test_numpy_is_imported_only_for_a_log_past_the_bound(tmp_path: Path, size: str) -> None:
    """A log at the owner's rotation cap (1 MiB) is read, counted, filtered and searched by
    the session without numpy; one past KEEP_BYTES imports it."""
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("{}")
    one = len(_log(1))
    lines = (1024 * 1024 if size == "at the cap" else KEEP_BYTES + 4096) // one
    (tmp_path / ".isdlc" / "hook-activity.log").write_text(_log(lines))
    code = (
        "import sys\n"
        "from phasewatch.core.session import ProjectSession\n"
        "from phasewatch.core.hooklog.store import HookFilter\n"
        f"s = ProjectSession({str(tmp_path)!r})\n"
        "for _ in range(20):\n"
        "    u = s.refresh(None)\n"
        "    if not u.hooks.pending: break\n"
        "h = u.hooks.store\n"
        "masks = [h.mask(HookFilter(text=t, events=frozenset({'block'})), 0, h.filled)"
        " for t in ('disk 5', 'gate')]\n"
        "print(h.filled, u.hooks.stats['total'], sum(masks[0]), 'numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    filled, total, hits, imported = out.stdout.split()
    assert int(filled) == int(total) == lines and int(hits) >= 1
    assert imported == ("False" if size == "at the cap" else "True")
