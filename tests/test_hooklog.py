"""phasewatch.core.hooklog: line parsing, the rotation-safe tailer, stats and rules."""

from __future__ import annotations

import ast
import json
import os
import shutil
from datetime import timedelta
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.findings import get_rule
from phasewatch.core.hooklog import (
    KEYS,
    MAX_ROWS,
    HookAudit,
    HookCounts,
    HookLogTailer,
    HookRecord,
    audit_hook_log,
    hook_stats,
    iter_batches,
    iter_hook_log,
    line_starts,
    parse_fast,
    parse_line,
    read_hook_log,
)
from phasewatch.core.hooklog.batch import Batch, parse_block
from phasewatch.core.hooklog.parse import _overlong
from phasewatch.core.hooklog.store import HookStore
from phasewatch.core.text import clean

from tests import unprivileged

ROTATE_AT = 1024 * 1024
KEEP = 500


def line(
    i: int,
    *,
    event: str = "allow",
    hook: str = "gate-blocker",
    phase: str | None = "06-implementation",
    reason: str | None = None,
    ts: str | None = None,
    pad: int = 0,
) -> str:
    """One log line exactly as the owner writes it (compact JSON, fixed key order)."""
    ts = ts or f"2026-03-04T09:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z"
    rec = {
        "ts": ts,
        "hook": hook,
        "event": event,
        "phase": phase,
        "agent": "software-developer",
        "reason": reason if reason is not None else (f"n={i}" + "x" * pad),
    }
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)  # like JSON.stringify


class Owner:
    """Writes the log the way iSDLC does: append, then in-place rotation past 1 MiB."""

    def __init__(self, path: Path, rotate_at: int = ROTATE_AT, keep: int = KEEP) -> None:
        self.path = path
        self.rotate_at = rotate_at
        self.keep = keep
        self.written: list[str] = []
        self.rotations = 0

    def append(self, *lines: str, rotate: bool = True) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            for text in lines:
                fh.write(text + "\n")
        self.written.extend(lines)
        if rotate:
            self.maybe_rotate()

    def maybe_rotate(self) -> None:
        if self.path.stat().st_size > self.rotate_at:
            self.rotate()

    def rotate(self) -> None:
        kept = self.path.read_text(encoding="utf-8").splitlines()[-self.keep :]
        with open(self.path, "w", encoding="utf-8") as fh:  # truncate + rewrite, same inode
            fh.write("\n".join(kept) + "\n")
        self.rotations += 1


def texts(records: list[HookRecord]) -> list[str]:
    """Re-serialise valid records to compare with what was written."""
    out = []
    for r in records:
        assert r.valid, r
        out.append(
            json.dumps({k: getattr(r, k) for k in KEYS}, separators=(",", ":"), ensure_ascii=False)
        )
    return out


# ---------------------------------------------------------------------------- parse_line


def test_parse_valid_line():
    r = parse_line(line(7, event="block", reason="V7: state_version 41 < disk 43"), 3, 100)
    assert r.valid and r.error is None and r.notes == ()
    assert (r.hook, r.event, r.phase, r.agent) == (
        "gate-blocker",
        "block",
        "06-implementation",
        "software-developer",
    )
    assert r.reason == "V7: state_version 41 < disk 43"
    assert (r.line_no, r.offset) == (3, 100)
    assert r.time is not None and r.time.microsecond == 7000
    assert r.raw is None


def test_parse_nulls_and_bytes_and_crlf():
    raw = b'{"ts":null,"hook":"h","event":"warn","phase":null,"agent":null,"reason":null}\r\n'
    r = parse_line(raw)
    assert r.valid and r.notes == ()
    assert r.ts is None and r.time is None and r.phase is None


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ("not json at all", "not JSON"),
        ('{"ts":"2026-03-04T09:12:03.418Z","hook":"h"', "not JSON"),  # cut mid-write
        ("[1, 2, 3]", "not a JSON object"),
        ('"just a string"', "not a JSON object"),
        ("", "empty line"),
        ("   ", "empty line"),
        ('{"ts":null,"hook":"h","phase":null,"agent":null,"reason":null}', "event is missing"),
        (
            '{"ts":null,"hook":"h","event":5,"phase":null,"agent":null,"reason":null}',
            "event is int",
        ),
        (
            '{"ts":null,"hook":"h","event":"","phase":null,"agent":null,"reason":null}',
            "event is empty",
        ),
        ('{"event":"allow"} trailing', "extra data"),
        ("[" * 100_000, "not JSON"),  # recursion bomb
        ("\xff\xfe binary", "not JSON"),
    ],
)
def test_parse_invalid_lines(raw, error):
    r = parse_line(raw, 9)
    assert not r.valid
    assert error in (r.error or "")
    assert r.line_no == 9
    assert r.raw is not None and len(r.raw) <= 501


@pytest.mark.parametrize(
    ("obj", "note"),
    [
        (
            {
                "ts": None,
                "hook": "h",
                "event": "teleport",
                "phase": None,
                "agent": None,
                "reason": None,
            },
            "unknown event: teleport",
        ),
        (
            {
                "ts": None,
                "hook": "h",
                "event": "allow",
                "phase": None,
                "agent": None,
                "reason": None,
                "pid": 4,
            },
            "extra keys: pid",
        ),
        ({"ts": None, "hook": "h", "event": "allow"}, "missing keys: phase, agent, reason"),
        (
            {
                "hook": "h",
                "ts": None,
                "event": "allow",
                "phase": None,
                "agent": None,
                "reason": None,
            },
            "key order",
        ),
        (
            {"ts": None, "hook": "h", "event": "allow", "phase": 6, "agent": None, "reason": None},
            "wrong type: phase is int",
        ),
        (
            {
                "ts": "yesterday",
                "hook": "h",
                "event": "allow",
                "phase": None,
                "agent": None,
                "reason": None,
            },
            "bad ts",
        ),
    ],
)
def test_parse_odd_but_usable_lines(obj, note):
    r = parse_line(json.dumps(obj))
    assert r.valid
    assert any(n.startswith(note) for n in r.notes), r.notes


def test_parse_wrong_type_value_is_dropped():
    r = parse_line('{"ts":null,"hook":["a"],"event":"allow","phase":6,"agent":null,"reason":{}}')
    assert r.valid and r.hook is None and r.phase is None and r.reason is None
    assert len([n for n in r.notes if n.startswith("wrong type")]) == 3


def test_parse_cleans_escape_sequences():
    evil = {
        "ts": None,
        "hook": "h\x1b]0;pwned\x07",
        "event": "warn",
        "phase": None,
        "agent": "\x9b31m",
        "reason": "[/] \x1b[2Jgone\u202e",
    }
    r = parse_line(json.dumps(evil))
    assert r.valid
    assert r.hook == "h" and r.agent == "" and r.reason == "[/] gone"
    bad = parse_line(b"\x1b[31mnot json\x1b[0m")
    assert not bad.valid and "\x1b" not in (bad.raw or "")


def test_parse_raw_control_chars_inside_strings_are_tolerated_and_cleaned():
    r = parse_line(
        '{"ts":null,"hook":"h\x07","event":"warn","phase":null,"agent":null,"reason":"a\tb"}'
    )
    assert r.valid and r.hook == "h" and r.reason == "a\tb"


@settings(max_examples=300)
@given(st.binary(max_size=400))
def test_parse_line_never_raises_on_bytes(data):
    r = parse_line(data)
    assert isinstance(r, HookRecord)
    assert r.valid == (r.error is None)


@settings(max_examples=200)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=6),
        max_leaves=20,
    )
)
def test_parse_line_never_raises_on_json(value):
    r = parse_line(json.dumps(value))
    assert isinstance(r, HookRecord)
    if r.valid:
        assert isinstance(r.event, str) and r.event


# ---------------------------------------------------------------------------- tailer basics


def test_missing_file_then_created(tmp_path):
    path = tmp_path / "hook-activity.log"
    t = HookLogTailer(path)
    res = t.poll()
    assert res.missing and res.records == [] and res.error is None
    Owner(path).append(line(1), line(2))
    res = t.poll()
    assert not res.missing and not res.reset
    assert [r.line_no for r in res.records] == [1, 2]


def test_append_and_offsets(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(line(1), line(2))
    t = HookLogTailer(path)
    res = t.poll()
    assert texts(res.records) == owner.written
    assert res.records[0].offset == 0
    assert res.records[1].offset == len(line(1)) + 1
    assert t.poll().records == []
    owner.append(line(3))
    res = t.poll()
    assert texts(res.records) == [line(3)]
    assert res.records[0].line_no == 3
    assert res.records[0].offset == path.stat().st_size - len(line(3)) - 1


def test_partial_line_waits_for_newline(tmp_path):
    path = tmp_path / "log"
    full = line(1)
    path.write_text(full[:20])
    t = HookLogTailer(path)
    assert t.poll().records == []
    with open(path, "a") as fh:
        fh.write(full[20:])
    assert t.poll().records == []  # complete JSON but no newline yet
    with open(path, "a") as fh:
        fh.write("\n" + line(2)[:5])
    res = t.poll()
    assert texts(res.records) == [full]
    assert t.offset == len(full) + 1


def test_invalid_lines_are_records_with_line_numbers(tmp_path):
    path = tmp_path / "log"
    path.write_text(line(1) + "\ngarbage\n\n" + line(2) + "\n")
    res = HookLogTailer(path).poll()
    assert [(r.line_no, r.valid) for r in res.records] == [
        (1, True),
        (2, False),
        (3, False),
        (4, True),
    ]
    assert res.records[1].raw == "garbage"


def test_invalid_utf8_is_replaced(tmp_path):
    path = tmp_path / "log"
    good = line(1, reason="caf\u00e9").encode()
    path.write_bytes(good.replace(b"\xc3\xa9", b"\xe9") + b"\n")
    r = HookLogTailer(path).poll().records[0]
    assert r.valid and r.reason == "caf\ufffd"


def test_truncation_to_empty_then_new_lines(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i) for i in range(10)))
    t = HookLogTailer(path)
    assert len(t.poll().records) == 10
    path.write_text("")
    res = t.poll()
    assert res.truncated and res.records == [] and not res.reset
    owner.append(line(100), line(101))
    res = t.poll()
    assert res.reset and not res.rotated
    assert texts(res.records) == [line(100), line(101)]
    owner.append(line(102))
    res = t.poll()
    assert texts(res.records) == [line(102)] and not res.reset and not res.truncated


def test_truncation_and_regrowth_past_offset_between_polls(tmp_path):
    """Shrunk and grown beyond our offset before we looked: the anchor check catches it."""
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i) for i in range(5)))
    t = HookLogTailer(path)
    t.poll()
    path.write_text("")
    fresh = [line(1000 + i, pad=50) for i in range(20)]
    owner.append(*fresh)
    assert path.stat().st_size > t.offset
    res = t.poll()
    assert res.truncated and res.reset
    assert texts(res.records) == fresh


def test_owner_rotation_no_loss_no_duplicates(tmp_path):
    path = tmp_path / "hook-activity.log"
    owner = Owner(path)
    t = HookLogTailer(path)
    got: list[HookRecord] = []
    rotated = 0
    i = 0
    while owner.rotations < 3:
        owner.append(*(line(i + k, pad=300) for k in range(7)))
        i += 7
        res = t.poll()
        assert not res.reset and res.error is None
        rotated += res.rotated
        got.extend(res.records)
    owner.append(line(i), line(i + 1))
    got.extend(t.poll().records)
    assert rotated == 3
    assert texts(got) == owner.written
    assert [r.line_no for r in got] == list(range(1, len(got) + 1))


def test_rotation_when_last_lines_are_identical_duplicates(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    t = HookLogTailer(path)
    got: list[HookRecord] = []
    i = 0
    while path.exists() is False or path.stat().st_size < ROTATE_AT - 5000:
        owner.append(*(line(i + k, pad=400) for k in range(10)))
        i += 10
        got.extend(t.poll().records)
    dup = line(999_999, pad=400)
    owner.append(dup, dup, dup, rotate=False)
    got.extend(t.poll().records)
    # the append that triggers rotation is the same duplicate line again, and then one more
    owner.append(*[dup] * 12)
    assert owner.rotations == 1
    res = t.poll()
    assert res.rotated and not res.reset
    got.extend(res.records)
    owner.append(dup)
    got.extend(t.poll().records)
    assert texts(got) == owner.written


def test_rotation_seen_mid_rewrite_empty_file(tmp_path):
    """The reader catches the owner between its truncate and its write."""
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i, pad=400) for i in range(2300)), rotate=False)
    t = HookLogTailer(path)
    got = list(t.read_all().records)
    owner.append(line(5000), rotate=False)  # the append that triggers rotation...
    kept = path.read_text().splitlines()[-KEEP:]
    path.write_text("")  # ...truncate (we poll now)...
    res = t.poll()
    assert res.truncated and res.records == []
    path.write_text("\n".join(kept) + "\n")  # ...then the write
    res = t.poll()
    assert res.rotated and not res.reset
    got.extend(res.records)
    assert texts(got) == owner.written


def test_rotation_seen_half_written(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i, pad=400) for i in range(2300)), rotate=False)
    t = HookLogTailer(path)
    got = list(t.read_all().records)
    owner.append(line(5000), line(5001), rotate=False)
    content = ("\n".join(path.read_text().splitlines()[-KEEP:]) + "\n").encode()
    path.write_bytes(content[: len(content) // 2])  # cut mid-line, mid-rewrite
    res = t.poll()
    assert res.truncated and res.records == []
    path.write_bytes(content)
    res = t.poll()
    assert res.rotated and not res.reset
    got.extend(res.records)
    assert texts(got) == owner.written


def test_replaced_by_unrelated_file(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(line(1), line(2))
    t = HookLogTailer(path)
    t.poll()
    tmp = tmp_path / "new"
    tmp.write_text(line(50) + "\n" + line(51) + "\n" + line(52) + "\n")
    os.replace(tmp, path)
    res = t.poll()
    assert res.replaced and res.reset and not res.rotated
    assert texts(res.records) == [line(50), line(51), line(52)]


def test_replaced_by_rotated_copy_continues(tmp_path):
    """An atomic rotation (temp file + os.replace) keeping our lines: nothing repeated."""
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i) for i in range(40)))
    t = HookLogTailer(path)
    got = list(t.poll().records)
    owner.append(line(40), line(41))
    tmp = tmp_path / "new"
    tmp.write_text("\n".join(path.read_text().splitlines()[-10:]) + "\n")
    os.replace(tmp, path)
    res = t.poll()
    assert res.replaced and res.rotated and not res.reset
    got.extend(res.records)
    assert texts(got) == owner.written


def test_replaced_by_superset_copy_continues_at_old_offset(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(*(line(i) for i in range(5)))
    t = HookLogTailer(path)
    got = list(t.poll().records)
    tmp = tmp_path / "new"
    tmp.write_text(path.read_text() + line(5) + "\n")
    os.replace(tmp, path)
    owner.written.append(line(5))
    res = t.poll()
    assert res.replaced and res.rotated
    got.extend(res.records)
    assert texts(got) == owner.written


def test_deleted_and_recreated(tmp_path):
    path = tmp_path / "log"
    owner = Owner(path)
    owner.append(line(1), line(2))
    t = HookLogTailer(path)
    assert len(t.poll().records) == 2
    path.unlink()
    res = t.poll()
    assert res.missing and res.records == []
    Owner(path).append(line(3))
    res = t.poll()
    assert res.reset and not res.missing
    assert texts(res.records) == [line(3)]
    assert res.records[0].line_no == 3  # the stream keeps counting


def test_directory_in_place_of_file_is_an_error(tmp_path):
    path = tmp_path / "log"
    path.mkdir()
    res = HookLogTailer(path).poll()
    assert res.error and "directory" in res.error and res.records == []


UNREADABLE_LOG = """
import sys
from pathlib import Path
from phasewatch.core.hooklog import HookLogTailer
path = Path(sys.argv[1]) / "log"
path.write_text(sys.argv[2] + "\\n")
path.chmod(0)
res = HookLogTailer(path).poll()
path.chmod(0o644)
print(repr((res.error, len(res.records), res.missing)))
"""


def test_permission_denied_is_an_error_string():
    """Run unprivileged (tests/unprivileged.py: root reads a file of mode 000)."""
    work = unprivileged.workdir()
    try:
        proc = unprivileged.run(UNREADABLE_LOG, str(work), line(1))
        assert proc.returncode == 0, proc.stderr
        error, records, missing = ast.literal_eval(proc.stdout.strip())
        assert error and "PermissionError" in error
        assert records == 0 and not missing
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_overlong_line_is_reported_and_skipped(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(line(1).encode() + b"\n" + b"y" * 5000 + b"\n" + line(2).encode() + b"\n")
    t = HookLogTailer(path, max_read=1024, max_line=1024)
    res = t.read_all()
    assert [r.valid for r in res.records] == [True, False, True]
    assert "longer than" in (res.records[1].error or "")
    assert [r.line_no for r in res.records] == [1, 2, 3]


def test_a_poll_holds_at_most_max_rows_lines(tmp_path):
    """Junk lines of two bytes cost a record each: a poll stops at ``max_rows`` lines (the rest
    is pending), so ``check`` on a few MB of them holds a bounded part at a time; every line is
    still read once, in order, with its own number and offset."""
    path = tmp_path / "log"
    body = [b"x", line(1).encode(), b"", b"{}"] * 600 + [b"y" * 3000, line(2).encode()]
    path.write_bytes(b"\n".join(body) + b"\n")
    t = HookLogTailer(path, max_rows=1000, max_line=2048)
    sizes, got = [], []
    while True:
        res = t.poll()
        sizes.append(len(res))
        got += res.records
        if not res.pending:
            break
    assert sizes == [1000, 1000, 402]
    assert [r.line_no for r in got] == list(range(1, len(body) + 1))
    whole = HookLogTailer(path, max_rows=10**9, max_line=2048).read_all().records
    assert got == whole
    assert [r.offset for r in got[:3]] == [0, 2, 2 + len(line(1)) + 1]


def test_check_streams_junk_lines_in_bounded_batches(tmp_path):
    path = tmp_path / "log"
    path.write_bytes(b"x\n" * (MAX_ROWS + 5))
    sizes = [len(b) for b in iter_batches(path)]
    assert sum(sizes) == MAX_ROWS + 5 and max(sizes) <= MAX_ROWS


BIG_LINES = 200_000


@pytest.fixture(scope="module")
def big_log(tmp_path_factory) -> Path:
    """A hook log over 50 MB (read-only: built once per worker, shared by the tests below)."""
    path = tmp_path_factory.mktemp("big") / "big.log"
    with open(path, "w") as fh:
        fh.write("\n".join(line(i, pad=180) for i in range(BIG_LINES)) + "\n")
    assert path.stat().st_size > 50 * 1024 * 1024
    return path


def test_bounded_reads_on_a_50mb_file(big_log: Path) -> None:
    size = big_log.stat().st_size
    cap = 8 * 1024 * 1024
    t = HookLogTailer(big_log, max_read=cap)
    first = t.poll()
    assert first.pending and 0 < t.offset <= cap
    count = len(first.records)
    polls = 1
    while True:
        before = t.offset
        res = t.poll()
        assert t.offset - before <= cap
        count += len(res.records)
        polls += 1
        if not res.pending:
            break
    assert count == BIG_LINES and t.offset == size
    assert polls >= size // cap


def test_a_50mb_file_streams_and_reads_whole(big_log: Path) -> None:
    assert sum(1 for _ in iter_hook_log(big_log)) == BIG_LINES
    whole = read_hook_log(big_log)
    assert len(whole.records) == BIG_LINES and not whole.pending
    assert whole.records[-1].reason == json.loads(line(BIG_LINES - 1, pad=180))["reason"]


def test_rotation_shifting_by_one_identical_line_is_not_mistaken_for_no_change(tmp_path):
    """Found by the property test below: the tailer stops inside a run of identical lines, one
    more line is appended and the rotation drops one line of the same length. The file keeps its
    size and the line just before our offset is again the one we consumed last (a duplicate),
    so only the whole remembered run tells that the content moved."""
    path = tmp_path / "log"
    owner = Owner(path, rotate_at=4096, keep=40)
    t = HookLogTailer(path, max_read=2048, max_line=2048, memory=16)
    owner.append(*[line(i) for i in range(10, 40)])  # same-length lines
    got = list(t.read_all().records)
    owner.append(*[line(40 + k) if k % 3 == 0 else line(40) for k in range(20)])
    res = t.poll()  # stops part-way through the run of duplicates
    assert res.pending
    got.extend(res.records)
    size = path.stat().st_size
    owner.append(line(99))  # the rotation drops exactly one line: same size as before
    assert path.stat().st_size == size and owner.rotations >= 2
    got.extend(t.read_all().records)
    assert texts(got) == owner.written[-len(got) :] and len(got) == len(owner.written)


@settings(max_examples=60)
@given(
    ops=st.lists(
        st.one_of(
            st.tuples(st.just("append"), st.integers(1, 20), st.booleans()),
            st.tuples(st.just("poll"), st.just(0), st.just(False)),
            st.tuples(st.just("rotate"), st.just(0), st.just(False)),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_property_random_appends_and_rotations(tmp_path_factory, ops):
    """Random appends (with runs of identical lines), owner rotations and polls: the tailer's
    output is exactly what was written, provided it polls before a rotation can drop lines it
    has not read or the run of lines it remembers (the model forces such polls; the real owner
    keeps 500 lines, the tailer needs its last 16)."""
    path = tmp_path_factory.mktemp("prop") / "log"
    keep, memory = 40, 16
    owner = Owner(path, rotate_at=4096, keep=keep)
    t = HookLogTailer(path, max_read=2048, max_line=2048, memory=memory)
    got: list[HookRecord] = []
    n = unread = 0

    def poll() -> bool:
        nonlocal unread
        res = t.poll()
        assert not res.reset, "position lost"
        got.extend(res.records)
        if not res.pending:
            unread = 0
        return res.pending

    for op, count, dup in ops:
        if op == "append":
            if unread + count > keep - memory:
                while poll():
                    pass
            new = [line(n + k) if not (dup and k % 3) else line(n) for k in range(count)]
            n += count
            owner.append(*new)
            unread += count
        elif op == "rotate" and path.exists():
            owner.rotate()
        else:
            poll()
    got.extend(t.read_all().records)
    assert texts(got) == owner.written


# ---------------------------------------------------------------------------- stats + rules


# ---------------------------------------------------------------------------- starting at the end


def _eager(data: bytes, max_line: int) -> list[HookRecord]:
    """The reference: every complete line parsed by parse_line (over-long ones reported)."""
    out: list[HookRecord] = []
    offset = 0
    body = data[: data.rfind(b"\n") + 1]
    for n, raw in enumerate(body.split(b"\n")[:-1], start=1):
        if len(raw) >= max_line:
            out.append(_overlong(raw, max_line, n, offset))
        else:
            out.append(parse_line(raw, n, offset))
        offset += len(raw) + 1
    return out


_text = st.text(st.characters(codec="utf-8"), max_size=12)
_value = st.none() | _text | st.sampled_from(["allow", "block", "2026-03-04T09:00:00.000Z"])
_owner_like = st.fixed_dictionaries(
    {
        k: (st.sampled_from(["allow", "block", "teleport", ""]) if k == "event" else _value)
        for k in KEYS
    }
).map(lambda d: json.dumps(d, separators=(",", ":"), ensure_ascii=False))
_any_line = st.one_of(
    st.integers(0, 10**6).map(lambda i: line(i, pad=i % 97)),
    _owner_like,
    _owner_like.map(lambda s: s.replace('"ts":', '"ts" :', 1)),
    _owner_like.map(lambda s: s[:-1] + ',"hook":"dup"}'),
    _owner_like.map(lambda s: s[:-1] + ',"x":1}'),
    st.sampled_from(["", "not json", "{}", "[1]", '{"event":"allow"}', '{"ts":1}']),
    st.integers(200, 700).map(lambda n: "y" * n),  # over max_line below
)


def _fill(store: HookStore, res, gen: int) -> None:
    for batch in res.batches:
        store.fill(batch, gen=gen)


# lines the block parser must not mistake for the owner's shape
_TRICKY = [
    line(1, reason='x,"hook":"y'),  # a key token inside a value
    '{"ts":null,"hook":"a","event":"allow","phase":"p","phase":"q","reason":null}',  # dup, missing
    '{"ts":null,"hook":"a","event":"allow","phase":null,"agent":null,"reason":"abc,"hook":def"}',
    '{"ts":null,"hook":"a","hook":"allow","phase":null,"agent":null,"reason":null}',
    '{"ts":null,"hook":"a","event":"allow","agent":null,"phase":null,"reason":null}',  # order
    '{"ts":null, "hook":"a","event":"allow","phase":null,"agent":null,"reason":null}',  # space
    '{"ts":"2026-02-30T00:00:00.000Z","hook":"a","event":"block","phase":null,"agent":null,"reason":null}',
    '{"ts":"2026-13-01T00:00:00.000Z","hook":"a","event":"block","phase":null,"agent":null,"reason":null}',
    '{"ts":"2026-01-01T00:00:00Z","hook":"a","event":"block","phase":null,"agent":null,"reason":null}',
    '{"ts":"2026-01-01T00:00:00.1234567Z","hook":"a","event":"block","phase":null,"agent":null,"reason":null}',
    '{"ts":"0000-01-01T00:00:00.000Z","hook":"a","event":"block","phase":null,"agent":null,"reason":"V7: state_version 1 < disk 2"}',
    '{"ts":null,"hook":"' + "h" * 60 + '","event":"allow","phase":null,"agent":null,"reason":null}',
    '{"ts":null,"hook":"a","event":"","phase":null,"agent":null,"reason":null}',
    '{"ts":null,"hook":"a","event":"allow","phase":null,"agent":null,"reason":null,"x":1}',
    '{"ts":null,"hook":1,"event":"allow","phase":null,"agent":null,"reason":null}',
    '{"ts":null,"hook":"a","event":"allow","phase":null,"agent":null,"reason":"}',
    '{"ts":null,"hook":"a\\u0007b","event":"allow","phase":null,"agent":null,"reason":null}',
]
# the validator's reasons as the owner logs them: grouped by their bytes (up to 48) or read
# alone (longer), in any case, with and without a word boundary before the V
_GUARD_REASONS = [
    "V7: state_version 1 < disk 2",
    "V7: state_version 12 < disk 14",
    "v7:state_version 3<disk 5",
    "V8: phase_index 1 < disk 2",
    "V7: incoming has no state_version, disk has 12",
    "V8: supervised redo phase_status '06-implementation' completed -> in_progress",
    "V7: state_version 123456789012 < disk 123456789014 (stale subagent write)",
    "xV7: state_version 1 < disk 2",
    "note 7: nothing",
    "8:",
    "V7: state_version x < disk y",
]
_guard_line = st.builds(
    lambda i, event, reason: line(i, event=event, reason=reason),
    st.integers(0, 10**6),
    st.sampled_from(["allow", "block", "error", "warn"]),
    st.sampled_from(_GUARD_REASONS),
)
_block_line = st.one_of(_any_line, st.sampled_from(_TRICKY), _guard_line)


@settings(max_examples=300)
@given(raw=st.one_of(_block_line.map(str.encode), st.binary(max_size=80)))
def test_property_fast_parser_equals_the_reference(raw):
    raw = raw.replace(b"\n", b" ")
    block = parse_block(raw, 7, 3, max_line=512)
    assert len(block) == 1
    if len(raw) >= 512:
        assert block.record(0) == _overlong(raw, 512, 3, 7)
    else:
        assert block.record(0) == parse_fast(raw, 3, 7) == parse_line(raw, 3, 7)


@settings(max_examples=200)
@given(
    lines_=st.lists(_block_line, max_size=80),
    cuts=st.lists(st.integers(0, 80), max_size=4),
    phase=st.sampled_from([None, "05-x", "06-y"]),
)
def test_property_block_parser_counts_and_audits_like_the_reference(lines_, cuts, phase):
    """A block of any lines: its records are parse_line's, and the counts and findings made
    from its columns, in parts of any size, equal those made from parse_line's records."""
    data = "\n".join(lines_).encode()
    eager = _eager(data + b"\n", 512) if lines_ else []
    bounds = sorted({0, len(lines_), *(min(c, len(lines_)) for c in cuts)})
    offsets = [0]
    for text in lines_:
        offsets.append(offsets[-1] + len(text.encode()) + 1)
    blocks = [
        parse_block(data[offsets[a] : offsets[b] - 1], offsets[a], a + 1, 512)
        for a, b in pairwise(bounds)
    ]
    assert [r for b in blocks for r in b.records()] == eager
    audit, counts = HookAudit(), HookCounts()
    for b in blocks:
        audit.add(b)
        counts.add(b)
    assert audit.findings("log", current_phase=phase) == HookAudit().add(Batch.of(eager)).findings(
        "log", current_phase=phase
    )
    assert counts.as_dict() == hook_stats(eager)


@settings(max_examples=60)
@given(
    lines_=st.lists(_any_line, max_size=120),
    part=st.integers(600, 3000),
    tail=st.binary(max_size=30).filter(lambda b: b"\n" not in b),
    copy=st.booleans(),
)
def test_property_lazy_rows_equal_the_eager_parser(tmp_path_factory, lines_, part, tail, copy):
    """Whatever the content (invalid and over-long lines, a cut last line), a row of the store
    shows the record the eager parser gives: indexed and parsed when shown, then filled by the
    tailer in parts (read back from the file, or from the store's copy)."""
    path = tmp_path_factory.mktemp("lazy") / "log"
    data = "".join(x + "\n" for x in lines_).encode() + tail
    path.write_bytes(data)
    max_line = 512
    eager = _eager(data, max_line)
    store = HookStore(path, max_line=max_line)
    tailer = HookLogTailer(path, max_read=part, max_line=max_line)
    ident = (path.stat().st_dev, path.stat().st_ino)
    gen = store.file_generation(ident)
    starts, end = line_starts(path)
    store.add_pending(starts, end, 1, gen)
    assert [store.record(i) for i in range(store.count)] == eager
    for _ in range(10_000):
        res = tailer.poll()
        _fill(store, res, 0 if copy else gen)
        if not res.pending:
            break
    assert store.filled == store.count == len(eager)
    store._cache.clear()
    assert [store.record(i) for i in range(store.count)] == eager


_stamp = st.builds(
    lambda h, m, s, ms: f"2026-03-04T{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z",
    st.integers(9, 10),
    st.integers(0, 1),
    st.integers(0, 2),
    st.integers(0, 999),
)


@settings(max_examples=150)
@given(
    items=st.lists(
        st.tuples(
            _stamp | st.sampled_from([None, "soon", "2026-03-04T09:00:01+00:00"]),
            st.sampled_from(["allow", "block", "error", "teleport"]),
            st.sampled_from(
                [
                    None,
                    "V7: state_version 1 < disk 2",
                    "V8: phase_index 1 < disk 2",
                    "V7: incoming no version, disk 4",
                ]
            ),
            st.sampled_from([None, "05-x", "06-y"]),
        ),
        max_size=60,
    ),
    cuts=st.lists(st.integers(0, 60), max_size=5),
    phase=st.sampled_from([None, "05-x", "06-y"]),
)
def test_property_audit_in_parts_equals_the_whole(items, cuts, phase):
    """Each record seen once, in parts of any size, gives the findings of one pass; the
    string fast path for timestamps finds what parsing every one finds."""
    records = [
        parse_line(
            line(i, ts=ts, event=ev, reason=reason, phase=ph)
            if ts
            else line(i, event=ev, reason=reason, phase=ph).replace(
                f'"ts":"{_ts(i)}"', '"ts":null'
            ),
            i + 1,
        )
        for i, (ts, ev, reason, ph) in enumerate(items)
    ]
    whole = HookAudit().add(records).findings("log", current_phase=phase)
    audit = HookAudit()
    bounds = sorted({0, len(records), *(min(c, len(records)) for c in cuts)})
    for a, b in pairwise(bounds):
        audit.add(records[a:b])
    assert audit.findings("log", current_phase=phase) == whole
    # the same times written so that each one is parsed (no string comparison possible)
    slow = [
        r._replace(ts=r.ts.replace("Z", "+00:00")) if r.ts and r.ts.endswith("Z") else r
        for r in records
    ]
    by = {f.rule_id: f for f in HookAudit().add(slow).findings("log", current_phase=phase)}
    fast = {f.rule_id: f for f in whole}
    assert ("HOOK-TS-ORDER" in by) == ("HOOK-TS-ORDER" in fast)
    if "HOOK-TS-ORDER" in by:
        assert by["HOOK-TS-ORDER"].message == fast["HOOK-TS-ORDER"].message


def _ts(i: int) -> str:
    return f"2026-03-04T09:{(i // 60000) % 60:02d}:{(i // 1000) % 60:02d}.{i % 1000:03d}Z"


def test_store_rows_survive_the_owners_rotation(tmp_path):
    """A small (rotating) log is copied as read: after the owner rewrites it, earlier rows
    still show their lines; a large one read back from the file says its lines are gone."""
    path = tmp_path / "log"
    owner = Owner(path, rotate_at=1 << 30, keep=5)
    store = HookStore(path)
    tailer = HookLogTailer(path)
    owner.append(*[line(i, pad=40) for i in range(40)])
    res = tailer.read_all()
    _fill(store, res, 0)
    owner.append(line(40))
    owner.rotate()
    res = tailer.read_all()
    assert res.rotated
    _fill(store, res, 0)
    got = [
        json.dumps(
            {k: getattr(store.record(i), k) for k in KEYS},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        for i in range(store.count)
    ]
    assert got == owner.written
    big = HookStore(path)
    gen = big.file_generation((path.stat().st_dev, path.stat().st_ino))
    t2 = HookLogTailer(path)
    res = t2.read_all()
    _fill(big, res, gen)
    assert big.record(0).reason == parse_line(owner.written[-5]).reason
    with path.open("r+b") as f:  # rewritten in place with other lines
        f.write(line(999, pad=80).encode() + b"\n")
    big._cache.clear()
    assert not big.record(0).valid and "no longer in the file" in (big.record(0).error or "")


def _recs(*lines_: str) -> list[HookRecord]:
    return [parse_line(text, i + 1) for i, text in enumerate(lines_)]


def test_hook_stats_counts():
    recs = _recs(
        line(1, event="block", hook="gate-blocker"),
        line(2, event="block", hook="gate-blocker", phase="05-test-strategy"),
        line(3, event="allow", hook="iteration-corridor"),
        "garbage",
    )
    stats = hook_stats(recs)
    assert stats["total"] == 4 and stats["invalid"] == 1 and stats["valid"] == 3
    assert stats["by_hook"] == {"gate-blocker": 2, "iteration-corridor": 1}
    assert stats["by_event"] == {"block": 2, "allow": 1}
    assert stats["by_hook_event"]["gate-blocker"] == {"block": 2}
    assert stats["blocks_by_phase"] == {"06-implementation": 1, "05-test-strategy": 1}
    assert stats["last_ts"] == recs[2].ts


def _ids(findings):
    return sorted(f.rule_id for f in findings)


def test_clean_log_has_no_findings():
    recs = _recs(*(line(i, event="allow") for i in range(20)))
    assert audit_hook_log(recs, "hook-activity.log") == []


def test_invalid_lines_aggregate_into_one_finding():
    recs = _recs(line(1), *["garbage"] * 10_000)
    findings = audit_hook_log(recs, "log")
    assert _ids(findings) == ["HOOK-INVALID-LINE"]
    f = findings[0]
    assert f.path == "line 2" and "10000 unusable" in f.message and "2, 3, 4, 5, 6, …" in f.message
    assert f.severity == get_rule("HOOK-INVALID-LINE").severity


def test_schema_and_unknown_event_findings():
    odd = json.dumps(
        {"hook": "h", "ts": None, "event": "allow", "phase": None, "agent": None, "reason": None}
    )
    unk = line(2, event="teleport")
    findings = audit_hook_log(_recs(line(1), odd, unk), "log")
    assert _ids(findings) == ["HOOK-SCHEMA", "HOOK-UNKNOWN-EVENT"]
    by = {f.rule_id: f for f in findings}
    assert by["HOOK-SCHEMA"].path == "line 2"
    assert by["HOOK-UNKNOWN-EVENT"].actual == "teleport"


def test_stale_write_and_regression_findings():
    recs = _recs(
        line(1, event="block", reason="V7: state_version 41 < disk 43"),
        line(2, event="block", reason="V8: phase_index 2 < disk 3"),
        line(3, event="warn", reason="Phase status is 'pending', expected 'in_progress'"),
    )
    by = {f.rule_id: f for f in audit_hook_log(recs, "log")}
    assert (
        by["HOOK-STALE-WRITE"].actual == 41
        and by["HOOK-STALE-WRITE"].expected == "state_version >= 43"
    )
    assert by["HOOK-STALE-WRITE"].path == "line 1"
    assert "phase_index 2 < disk 3" in by["HOOK-REGRESSION"].actual
    assert set(by) == {"HOOK-STALE-WRITE", "HOOK-REGRESSION", "HOOK-BLOCK"}


def test_block_finding_counts_and_current_phase_filter():
    recs = _recs(
        line(1, event="block", phase="05-test-strategy"),
        line(2, event="block"),
        line(3, event="block"),
    )
    (f,) = audit_hook_log(recs, "log")
    assert f.rule_id == "HOOK-BLOCK" and f.actual == 3
    (f,) = audit_hook_log(recs, "log", current_phase="06-implementation")
    assert f.actual == 2 and "in 06-implementation" in f.message
    assert audit_hook_log(recs, "log", current_phase="08-code-review") == []


def test_error_event_finding():
    (f,) = audit_hook_log(_recs(line(1, event="error", reason="jq: not found")), "log")
    assert f.rule_id == "HOOK-ERROR" and "jq: not found" in f.message


def test_timestamps_going_backwards():
    recs = _recs(
        line(1, ts="2026-03-04T09:00:10.000Z"),
        line(2, ts="2026-03-04T09:00:09.500Z"),  # within tolerance: parallel hooks
        line(3, ts="2026-03-04T08:59:00.000Z"),  # a minute back
        line(4, ts="2026-03-04T09:01:00.000Z"),
    )
    (f,) = audit_hook_log(recs, "log")
    assert f.rule_id == "HOOK-TS-ORDER" and f.path == "line 3"
    ordered = _recs(line(1, ts="2026-03-04T09:00:10.000Z"), line(2, ts="2026-03-04T09:00:11.000Z"))
    assert audit_hook_log(ordered, "log") == []


def _naive_backwards(records: list[HookRecord]) -> list[int]:
    out, latest = [], None
    for r in records:
        t = r.time
        if t is None:
            continue
        if latest is not None and t < latest - timedelta(seconds=1):
            out.append(r.line_no)
        latest = t if latest is None or t > latest else latest
    return out


_TS = st.one_of(
    st.builds(
        lambda m, s, ms: f"2026-03-04T09:{m:02d}:{s:02d}.{ms:03d}Z",
        st.integers(0, 3),
        st.integers(0, 59),
        st.integers(0, 999),
    ),
    st.builds(
        lambda m, s: f"2026-03-04T09:{m:02d}:{s:02d}Z", st.integers(0, 3), st.integers(0, 59)
    ),
    st.builds(
        lambda m, s: f"2026-03-04T10:{m:02d}:{s:02d}+01:00", st.integers(0, 3), st.integers(0, 59)
    ),
    st.just("not a time"),
)


@settings(max_examples=300)
@given(st.lists(_TS, max_size=30))
def test_ts_order_matches_a_naive_datetime_scan(stamps):
    recs = _recs(*(line(i, ts=ts) for i, ts in enumerate(stamps)))
    expected = _naive_backwards(recs)
    found = [f for f in audit_hook_log(recs, "log") if f.rule_id == "HOOK-TS-ORDER"]
    if not expected:
        assert found == []
    else:
        (f,) = found
        assert f.path == f"line {expected[0]}"
        assert f.message.startswith(f"{len(expected)} timestamp(s)")


@settings(max_examples=300)
@given(st.lists(st.none() | st.text(max_size=30), min_size=6, max_size=6))
def test_parsed_fields_are_the_cleaned_values(values):
    values[2] = values[2] or "allow"
    rec = dict(zip(KEYS, values, strict=True))
    r = parse_line(json.dumps(rec, ensure_ascii=False))
    if not values[2].strip():
        assert not r.valid
        return
    assert r.valid
    for key, value in rec.items():
        assert getattr(r, key) == (None if value is None else clean(value))


def test_tail_result_is_its_batch_of_records(tmp_path):
    path = tmp_path / "log"
    path.write_text(line(1) + "\n" + line(2) + "\n")
    res = read_hook_log(path)
    assert len(res) == 2 and [r.line_no for r in res] == [1, 2]


def test_real_validator_v7_v8_lines():
    """The real state-write-validator's lines (tests/fixtures/hooklog/README.md): both unversioned
    V7 blocks count as stale writes; V8 supervised-redo allows are not regressions."""
    path = Path(__file__).parent / "fixtures" / "hooklog" / "validator-v7-v8.log"
    by = {f.rule_id: f for f in audit_hook_log(read_hook_log(path).records, "log")}
    stale = by["HOOK-STALE-WRITE"]
    assert stale.message.startswith("3 stale write(s) caught (lines 1, 2, 3)")
    assert (stale.actual, stale.expected) == (41, "state_version >= 43")
    regression = by["HOOK-REGRESSION"]
    assert regression.message.startswith("1 regression(s) caught (line 6)")
    assert regression.actual == "phase_status '05-test-strategy' completed -> in_progress"


@pytest.mark.parametrize(
    ("reason", "actual", "disk"),
    [
        ("V7: incoming no version, disk 43", None, "43"),
        ("V7: incoming has no state_version, disk has 12", None, "12"),
    ],
)
def test_unversioned_v7_block_is_a_stale_write(reason, actual, disk):
    by = {f.rule_id: f for f in audit_hook_log(_recs(line(1, event="block", reason=reason)), "x")}
    assert by["HOOK-STALE-WRITE"].actual is actual
    assert by["HOOK-STALE-WRITE"].expected == f"state_version >= {disk}"


def test_v8_allowed_redo_is_not_a_regression():
    reason = "V8: supervised redo phase_status '06-implementation' completed -> in_progress"
    findings = audit_hook_log(_recs(line(1, event="allow", reason=reason)), "x")
    assert "HOOK-REGRESSION" not in _ids(findings)


def test_block_parser_reads_the_owners_lines_without_a_record_each():
    """The owner's lines are read as columns (no record kept); the others one by one."""
    owner = [line(i, reason="V7: state_version 1 < disk 3" if i % 2 else None) for i in range(50)]
    data = "\n".join(owner + _TRICKY[:6]).encode()
    batch = parse_block(data, 0, 1)
    assert set(batch.extra) == set(range(50, 56))
    assert batch.records() == _eager(data + b"\n", 1 << 20)
    hooks, codes = batch.field("hook")
    assert [hooks[c] for c in codes[:3]] == [parse_line(t).hook for t in owner[:3]]
