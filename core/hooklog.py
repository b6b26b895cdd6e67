"""``.isdlc/hook-activity.log``: parse lines, tail the file safely, audit what the hooks said.

FORMATS.md section 1: JSON Lines, each line compact JSON with exactly the keys
``ts, hook, event, phase, agent, reason`` in that order (missing values ``null``). After an append,
the owner rewrites the file *in place* with its newest 500 lines once it is over 1 MiB: no backup,
no lock. :class:`HookLogTailer` follows the file by byte offset and survives that rotation (and
truncation, replacement, deletion) without losing or duplicating a line: it remembers the last
few lines it consumed and, when the file shrinks or changes under it, finds where those lines
now end in the new content and continues right after them.

Nothing here raises on bad input: a bad line is a record flagged invalid, an unreadable file is an
``error`` string in the poll result.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .findings import Finding, Severity, make, rule
from .protocol import HOOK_EVENTS, parse_iso
from .text import clean, shorten

KEYS = ("ts", "hook", "event", "phase", "agent", "reason")
_KEYS_LIST = list(KEYS)
_KEY_SET = frozenset(KEYS)

MAX_READ = 8 * 1024 * 1024  # bytes consumed per poll at most; the rest waits for the next poll
MAX_LINE = 1024 * 1024  # a longer "line" is reported invalid and skipped up to its newline
RAW_KEEP = 500  # characters of an invalid line kept in ``raw``
MEMORY = 16  # lines remembered to re-find our position after a rotation
_CHUNK = 1024 * 1024
_RESYNC_PATIENCE = 3  # polls to wait for a half-written rewrite before giving up on the overlap
RESYNC_SCAN = 64 * 1024 * 1024  # bytes searched (backwards) for our position after a rotation
_LONG_SENTINEL = b"\x00phasewatch-overlong-line\x00"

_JSON = json.JSONDecoder(strict=False)
_TS_FAST = re.compile(
    r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,6})?Z\Z"
)
_intern = sys.intern


# ---------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class HookRecord:
    ts: str | None
    hook: str | None
    event: str | None
    phase: str | None
    agent: str | None
    reason: str | None
    line_no: int = 0  # 1-based physical line number within the tailer's stream
    offset: int = 0  # byte offset of the line in the file when it was read
    valid: bool = True
    error: str | None = None  # why the line is invalid
    raw: str | None = None  # cleaned original line (invalid lines only), cut to RAW_KEEP
    notes: tuple[str, ...] = ()  # oddities of a usable line (unknown event, extra key, ...)

    @property
    def time(self) -> datetime | None:
        return parse_iso(self.ts)

    @property
    def known_event(self) -> bool:
        return self.event in HOOK_EVENTS


def _invalid(text: str, error: str, line_no: int, offset: int) -> HookRecord:
    raw = clean(text)
    if len(raw) > RAW_KEEP:
        raw = raw[:RAW_KEEP] + "…"
    return HookRecord(None, None, None, None, None, None, line_no, offset, False, error, raw)


def _field(value: Any, key: str, notes: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = clean(value)
        # the few-valued fields are interned: a million records share a handful of strings
        return _intern(value) if key != "reason" and key != "ts" and len(value) < 80 else value
    notes.append(f"wrong type: {key} is {type(value).__name__}, not a string (ignored)")
    return None


def parse_line(line: bytes | str, line_no: int = 0, offset: int = 0) -> HookRecord:
    """Parse one log line (without or with its newline). Never raises.

    Invalid (``valid=False``): not JSON, not an object, no string ``event``. Usable but odd lines
    stay valid and carry ``notes``: unknown event, missing/extra keys, keys out of order, a value of
    the wrong type (dropped), a ``ts`` that is not ISO.
    """
    try:
        if isinstance(line, bytes | bytearray | memoryview):
            text = bytes(line).decode("utf-8", errors="replace")
        elif isinstance(line, str):
            text = line
        else:
            return _invalid(repr(line), f"not a line: {type(line).__name__}", line_no, offset)
        text = text.rstrip("\r\n")
        stripped = text.strip()
        if not stripped:
            return _invalid(text, "empty line", line_no, offset)
        try:
            obj, end = _JSON.raw_decode(stripped)
        except (ValueError, RecursionError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            return _invalid(text, f"not JSON: {msg}", line_no, offset)
        if end != len(stripped):
            return _invalid(text, "not JSON: extra data after the value", line_no, offset)
        if not isinstance(obj, dict):
            return _invalid(text, f"not a JSON object: {type(obj).__name__}", line_no, offset)
        event = obj.get("event")
        if not isinstance(event, str) or not event.strip():
            why = "missing" if event is None else f"{type(event).__name__}, not a string"
            if isinstance(event, str):
                why = "empty"
            return _invalid(text, f"event is {why}", line_no, offset)
        notes: list[str] = []
        if list(obj) == _KEYS_LIST:  # fast path: the owner's exact shape, plain strings
            ts, hook, _event, phase, agent, reason = obj.values()
            if (
                (ts is None or (type(ts) is str and _TS_FAST.match(ts)))
                and (hook is None or (type(hook) is str and hook.isprintable()))
                and event.isprintable()
                and (phase is None or (type(phase) is str and phase.isprintable()))
                and (agent is None or (type(agent) is str and agent.isprintable()))
                and (reason is None or (type(reason) is str and reason.isprintable()))
                and event in HOOK_EVENTS
            ):
                return HookRecord(
                    ts,
                    hook if hook is None else _intern(hook),
                    _intern(event),
                    phase if phase is None else _intern(phase),
                    agent if agent is None else _intern(agent),
                    reason,
                    line_no,
                    offset,
                )
        else:
            missing = [k for k in KEYS if k not in obj]
            extra = [clean(str(k)) for k in obj if k not in _KEY_SET]
            if missing:
                notes.append("missing keys: " + ", ".join(missing))
            if extra:
                notes.append("extra keys: " + ", ".join(extra[:5]))
            if not missing and not extra:
                notes.append("key order: keys out of order")
        values = [_field(obj.get(k), k, notes) for k in KEYS]
        if values[2] not in HOOK_EVENTS:
            notes.append(f"unknown event: {shorten(values[2] or '', 40)}")
        if values[0] is not None and parse_iso(values[0]) is None:
            notes.append(f"bad ts: not an ISO timestamp: {shorten(values[0], 40)}")
        return HookRecord(*values, line_no, offset, True, None, None, tuple(notes))
    except Exception as exc:  # defensive: a parser of untrusted bytes must never raise
        return _invalid(str(line)[:RAW_KEEP], f"unparseable: {type(exc).__name__}", line_no, offset)


# ---------------------------------------------------------------------------- tailing


@dataclass(frozen=True, slots=True)
class TailResult:
    records: list[HookRecord] = field(default_factory=list)
    rotated: bool = (
        False  # position re-found after a shrink/rewrite/replace: nothing lost or repeated
    )
    truncated: bool = False  # the file shrank or was rewritten in place since the last poll
    reset: bool = False  # position NOT re-found: the whole new file was emitted as new
    missing: bool = False  # the file does not exist (now)
    error: str | None = None  # unreadable (permissions, a directory, I/O error)
    replaced: bool = False  # a different file (new inode) sits at the path
    pending: bool = False  # more complete data is waiting (the per-poll cap was hit)

    # A result is also its batch of records: ``len(res)``, ``for r in res``.
    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[HookRecord]:
        return iter(self.records)


class HookLogTailer:
    """Incremental, rotation-safe reader of a JSON Lines file. ``poll()`` never raises.

    Only complete lines are consumed (a partial last line waits for its newline). At most
    ``max_read`` bytes are consumed per poll (``pending`` says more is waiting); ``read_all()``
    polls until caught up. To survive the owner's in-place rotation the tailer remembers its last
    ``memory`` physical lines; whenever the file shrinks, is replaced, re-created, or the bytes just
    before our offset no longer are the lines we consumed there (the whole remembered run, not
    only the last line: a rotation that shifts the file by one line can put an identical line
    there), it searches the new content for that run of lines and continues right after its last
    occurrence (``rotated``). If the run is
    not found the new content is unrelated: everything in it is emitted (``reset``).

    Known limit: a log whose last ``memory`` lines repeat periodically (e.g. all identical) is
    ambiguous after a rotation; the last occurrence is taken (no duplicates, possible loss).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        max_read: int = MAX_READ,
        max_line: int = MAX_LINE,
        memory: int = MEMORY,
    ) -> None:
        self.path = Path(path)
        self.max_read = max(1, max_read)
        self.max_line = max(1, min(max_line, self.max_read))
        self._recent: deque[bytes] = deque(maxlen=max(1, memory))
        # how many of the newest remembered lines lie, consecutively, right before _offset in
        # the current file (after a reset or a partial re-find the older ones do not)
        self._contig = 0
        self._offset = 0  # first byte not yet consumed
        self._ident: tuple[int, int] | None = None
        self._resync = False  # position lost: look for the remembered run before emitting
        self._resync_waits = 0
        self._skipping = False  # discarding the rest of an over-long line
        self._line_no = 0
        self.size = 0  # the file's size at the last poll

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def lines_consumed(self) -> int:
        return self._line_no

    # -- public -------------------------------------------------------------------------------

    def poll(self) -> TailResult:
        try:
            return self._poll()
        except Exception as exc:  # defensive: never let the dashboard die on a log read
            return TailResult(error=f"{type(exc).__name__}: {exc}")

    def read_all(self) -> TailResult:
        """Poll until caught up with the file as it is now (no per-call cap)."""
        records: list[HookRecord] = []
        flags = dict.fromkeys(("rotated", "truncated", "reset", "missing", "replaced"), False)
        error = None
        for _ in range(1_000_000):
            res = self.poll()
            records.extend(res.records)
            for key in flags:
                flags[key] = flags[key] or getattr(res, key)
            error = res.error
            if not res.pending or res.error or res.missing:
                break
        return TailResult(records=records, error=error, pending=False, **flags)

    # -- internals ----------------------------------------------------------------------------

    def _lost(self) -> None:
        """Forget the position but keep the remembered lines to re-find it."""
        self._offset = 0
        self._skipping = False
        self._resync = bool(self._recent)
        self._resync_waits = 0

    def _poll(self) -> TailResult:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            if self._ident is not None or self._offset:
                self._ident = None
                self._lost()
            return TailResult(missing=True)
        except OSError as exc:
            return TailResult(error=_os_error(exc))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
                return TailResult(error=f"{self.path.name} is {kind}")
            return self._read(fd, st)
        except OSError as exc:
            return TailResult(error=_os_error(exc))
        finally:
            os.close(fd)

    def _read(self, fd: int, st: os.stat_result) -> TailResult:
        size = self.size = st.st_size
        ident = (st.st_dev, st.st_ino)
        replaced = truncated = rotated = reset = False
        if self._ident is not None and ident != self._ident:
            replaced = True
            old_offset = self._offset
            self._lost()
            # an atomic copy of the old content plus more: our run still ends at the old offset
            if self._resync and self._anchored_at(fd, old_offset, size):
                self._offset, self._resync = old_offset, False
                rotated = True
        elif size < self._offset or (
            self._offset and not self._anchored_at(fd, self._offset, size)
        ):
            truncated = True
            self._lost()
        self._ident = ident

        if self._resync:
            found, decided = self._find_overlap(fd, size)
            if not decided:
                return TailResult(truncated=truncated, replaced=replaced)
            self._resync = False
            if found is None:
                reset = True
                self._offset = self._contig = 0
            else:
                rotated = True
                self._offset, self._contig = found

        records, pending = self._consume(fd, size)
        return TailResult(
            records=records,
            rotated=rotated,
            truncated=truncated,
            reset=reset,
            replaced=replaced,
            pending=pending,
        )

    def _anchored_at(self, fd: int, offset: int, size: int) -> bool:
        """Do the bytes just before ``offset`` still hold the lines we consumed there?"""
        if offset <= 0:
            return True
        if offset > size:
            return False
        run = list(self._recent)[len(self._recent) - self._contig :] if self._contig else []
        if _LONG_SENTINEL in run:  # an over-long line cannot be verified: check what follows it
            run = run[len(run) - run[::-1].index(_LONG_SENTINEL) :]
        if not run:
            return True  # nothing verifiable (only an over-long line): trust the size
        anchor = b"\n".join(run) + b"\n"
        start = offset - len(anchor)
        return start >= 0 and os.pread(fd, len(anchor), start) == anchor

    def _find_overlap(self, fd: int, size: int) -> tuple[tuple[int, int] | None, bool]:
        """Where the remembered run of lines ends in the (new) file, and how many of its lines
        were matched there: ((byte offset, lines), decided).

        Searched backwards from the end in ``max_read`` windows (a rotation leaves the run near
        the end), at most ``RESYNC_SCAN`` bytes; the last occurrence wins.
        """
        run = list(self._recent)
        run_bytes = sum(len(line) + 1 for line in run)
        window = max(self.max_read, 2 * run_bytes + 2)  # a run always fits whole in a window
        end = size
        scanned = 0
        ends_with_newline = size > 0 and os.pread(fd, 1, size - 1) == b"\n"
        while end > 0 and scanned < RESYNC_SCAN:
            start = max(0, end - window)
            data = os.pread(fd, end - start, start)
            scanned += len(data)
            base = start
            if start > 0:  # begin at a line boundary
                cut = data.find(b"\n")
                base = start + cut + 1 if cut >= 0 else end
                data = data[cut + 1 :] if cut >= 0 else b""
            complete = data[: data.rfind(b"\n") + 1]
            hit = _find_run(complete, run, allow_partial=base == 0)
            if hit is not None:
                return (base + hit[0], hit[1]), True
            # an occurrence cut by this window's start ends before base + run_bytes
            nxt = base + run_bytes
            end = nxt if start < nxt < end else start
        # Not found. A rewrite caught half-way (empty, or cut mid-line) may still complete:
        # wait a few polls before calling the content unrelated.
        if size == 0:
            return None, False  # nothing to emit anyway; keep looking when content arrives
        if not ends_with_newline and self._resync_waits < _RESYNC_PATIENCE:
            self._resync_waits += 1
            return None, False
        return None, True

    def _consume(self, fd: int, size: int) -> tuple[list[HookRecord], bool]:
        records: list[HookRecord] = []
        pos = self._offset
        stop = min(size, pos + self.max_read)
        buf = b""
        buf_start = pos
        while pos < stop:
            chunk = os.pread(fd, min(_CHUNK, stop - pos), pos)
            if not chunk:
                break
            pos += len(chunk)
            buf = buf + chunk if buf else chunk
            if self._skipping:
                nl = buf.find(b"\n")
                if nl < 0:
                    buf_start += len(buf)
                    buf = b""
                    continue
                self._skipping = False
                buf_start += nl + 1
                buf = buf[nl + 1 :]
            last_nl = buf.rfind(b"\n")
            if last_nl >= 0:
                block = buf[:last_nl]
                self._emit(block, buf_start, records)
                buf_start += last_nl + 1
                buf = buf[last_nl + 1 :]
            if len(buf) >= self.max_line:
                self._line_no += 1
                records.append(_overlong(buf, self.max_line, self._line_no, buf_start))
                self._recent.append(_LONG_SENTINEL)
                self._contig = min(self._contig + 1, self._recent.maxlen or 1)
                self._skipping = True
                buf_start += len(buf)
                buf = b""
        self._offset = buf_start
        return records, stop < size and self._has_newline_after(fd, buf_start, size)

    def _has_newline_after(self, fd: int, start: int, size: int) -> bool:
        """Whether a complete line waits beyond ``start`` (cheap peek, bounded)."""
        peek = os.pread(fd, min(size - start, self.max_line + 1), start)
        return b"\n" in peek or len(peek) >= self.max_line

    def _emit(self, block: bytes, start: int, out: list[HookRecord]) -> None:
        """Parse ``block`` (complete lines joined by newlines, last newline excluded)."""
        lines = block.split(b"\n")
        _parse_lines(lines, self._line_no + 1, start, self.max_line, out)
        self._line_no += len(lines)
        keep = self._recent.maxlen or 1
        self._recent.extend(lines[-keep:])
        self._contig = min(self._contig + len(lines), keep)

    # -- starting at the end ------------------------------------------------------------------

    def start_at_end(
        self, min_skip: int = 0, first_part: int | None = None
    ) -> HookLogBackfill | None:
        """Before the first poll: skip the complete lines the file holds now, so polls read only
        what gets appended, and return a reader of the skipped lines (newest part first, with
        their true line numbers). A viewer of a huge log shows its newest lines at once.

        Returns None and leaves the tailer as it was when the file is missing, unreadable, holds
        at most ``min_skip`` bytes, or its last line boundary is not within ``max_line`` bytes
        of the end. Costs one pass counting the newlines of the skipped part (~1 ms per MB).
        ``first_part``: bytes of the back-fill's first part (the newest lines, wanted soonest),
        if smaller than its usual ``max_read``.
        """
        if self._ident is not None or self._offset or self._line_no:
            return None  # already reading: too late to skip
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            size = st.st_size
            if not stat.S_ISREG(st.st_mode) or size <= max(0, min_skip):
                os.close(fd)
                return None
            tail = os.pread(fd, min(size, self.max_line + 1), size - min(size, self.max_line + 1))
            cut = tail.rfind(b"\n")
            if cut < 0:
                os.close(fd)
                return None
            end = size - len(tail) + cut + 1  # just after the last complete line
            lines = _count_newlines(fd, end)
            self._seed_recent(fd, end)
        except OSError:
            os.close(fd)
            return None
        self._offset = end
        self._line_no = lines
        self._ident = (st.st_dev, st.st_ino)
        self.size = size
        return HookLogBackfill(
            fd, end, lines, part=self.max_read, max_line=self.max_line, first_part=first_part
        )

    def _seed_recent(self, fd: int, end: int) -> None:
        """Remember the lines just before ``end`` (the anchor that detects a rewrite)."""
        window = min(end, 64 * 1024)
        data = os.pread(fd, window, end - window)
        lines = data[:-1].split(b"\n")
        if window < end:
            lines = lines[1:]  # the first one may be cut
        keep = self._recent.maxlen or 1
        self._recent.extend(lines[-keep:])
        self._contig = min(len(lines), keep)


def _parse_lines(
    lines: list[bytes], first_no: int, offset: int, max_line: int, out: list[HookRecord]
) -> None:
    """Parse complete lines (no newlines) numbered from ``first_no`` starting at byte ``offset``;
    a line of ``max_line`` bytes or more is reported invalid (skipped), as the tailer does for
    one it cannot hold."""
    append = out.append
    n = first_no
    if max(map(len, lines), default=0) < max_line:
        for raw in lines:
            append(parse_line(raw, n, offset))
            offset += len(raw) + 1
            n += 1
        return
    for raw in lines:
        if len(raw) >= max_line:
            append(_overlong(raw, max_line, n, offset))
        else:
            append(parse_line(raw, n, offset))
        offset += len(raw) + 1
        n += 1


def _overlong(head: bytes, max_line: int, line_no: int, offset: int) -> HookRecord:
    """The record of a line too long to hold (``head``: its start, at least)."""
    text = head[:RAW_KEEP].decode("utf-8", errors="replace")
    return _invalid(text, f"line longer than {max_line} bytes (skipped)", line_no, offset)


def count_lines(path: str | os.PathLike[str]) -> int | None:
    """Complete lines in the file now (None when unreadable)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        return _count_newlines(fd, os.fstat(fd).st_size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _count_newlines(fd: int, end: int) -> int:
    count = 0
    pos = 0
    while pos < end:
        chunk = os.pread(fd, min(8 * _CHUNK, end - pos), pos)
        if not chunk:
            break
        count += chunk.count(b"\n")
        pos += len(chunk)
    return count


class HookLogBackfill:
    """Reads the lines a tailer skipped (bytes ``[0, end)`` when it started at the end), one
    part of at most ``part`` bytes per :meth:`poll`, the newest part first. Each part's records
    are in file order, with their true line numbers and offsets: a viewer puts each part before
    everything it has. ``poll()`` never raises.

    It holds the file open, so an atomic replace of the log does not disturb it. An in-place
    rewrite (the owner's rotation) is detected before each part (the file is shorter than what
    is left to read, or the line this reader stopped at is no longer there): the reader stops
    with an ``error``; :attr:`remaining` bytes were not read.
    """

    ANCHOR = 4096  # bytes of the last line read that must still be in place

    def __init__(
        self,
        fd: int,
        end: int,
        lines: int,
        *,
        part: int,
        max_line: int,
        first_part: int | None = None,
    ) -> None:
        self._fd: int | None = fd
        self._end = end  # bytes [0, _end) not read yet; _end is a line start
        self._lines = lines  # complete lines in [0, _end)
        self.part = max(1, part)
        self._next = max(1, min(first_part or self.part, self.part))  # bytes of the next part
        self.max_line = max(1, max_line)
        self._anchor = b""  # the start of the line at _end, as read

    @property
    def remaining(self) -> int:
        """Bytes not read (yet, or ever once stopped on an error)."""
        return self._end

    @property
    def done(self) -> bool:
        return self._fd is None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __del__(self) -> None:  # a reader dropped half-way must not leak its descriptor
        try:
            self.close()
        except Exception:
            pass

    def poll(self) -> TailResult:
        """The next older part (``pending``: more remains)."""
        if self._fd is None:
            return TailResult()
        try:
            return self._poll(self._fd)
        except Exception as exc:  # defensive: never let the dashboard die on a log read
            self.close()
            return TailResult(error=f"{type(exc).__name__}: {exc}")

    def _poll(self, fd: int) -> TailResult:
        end = self._end
        lo = max(0, end - self._next)
        self._next = self.part
        data = os.pread(fd, end - lo, lo)
        anchor = self._anchor
        # shorter than before, or the line we stopped at moved: rewritten in place
        if (
            len(data) != end - lo
            or data[-1:] != b"\n"
            or (anchor and os.pread(fd, len(anchor), end) != anchor)
        ):
            self.close()
            return TailResult(
                truncated=True, error="the log was rewritten before its older lines were read"
            )
        records: list[HookRecord] = []
        body = data[:-1]
        if lo > 0:
            cut = body.find(b"\n")
            if cut < 0:  # one line longer than this part: find where it starts
                start = _line_start(fd, lo)
                if end - 1 - start < self.max_line:
                    records.append(
                        parse_line(os.pread(fd, end - 1 - start, start), self._lines, start)
                    )
                else:
                    head = os.pread(fd, RAW_KEEP, start)
                    records.append(_overlong(head, self.max_line, self._lines, start))
                self._advance(fd, start, 1)
                return TailResult(records=records, pending=self._fd is not None)
            lo += cut + 1
            body = body[cut + 1 :]
        lines = body.split(b"\n")
        _parse_lines(lines, self._lines - len(lines) + 1, lo, self.max_line, records)
        self._advance(fd, lo, len(lines))
        return TailResult(records=records, pending=self._fd is not None)

    def _advance(self, fd: int, start: int, n_lines: int) -> None:
        self._end = start
        self._lines -= n_lines
        if start == 0:
            self.close()
        else:
            self._anchor = os.pread(fd, self.ANCHOR, start)


def _line_start(fd: int, pos: int) -> int:
    """Start of the line holding byte ``pos - 1`` (searching backwards)."""
    while pos > 0:
        lo = max(0, pos - _CHUNK)
        cut = os.pread(fd, pos - lo, lo).rfind(b"\n")
        if cut >= 0:
            return lo + cut + 1
        pos = lo
    return 0


def _find_run(data: bytes, run: list[bytes], *, allow_partial: bool) -> tuple[int, int] | None:
    """(byte offset right after, lines matched) for the LAST place in ``data`` (complete lines)
    where the lines of ``run`` appear consecutively; failing that, when ``allow_partial``, right
    after the data's first lines if they are a suffix of ``run`` (a rewrite shorter than our
    memory). Else None.
    """
    if not data or not run:
        return None
    lines = data[:-1].split(b"\n")
    k = len(run)
    last = run[-1]
    best_partial: tuple[int, int] | None = None
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] != last:
            continue
        if i + 1 >= k:
            if lines[i + 1 - k : i + 1] == run:
                return sum(len(line) + 1 for line in lines[: i + 1]), k
        elif allow_partial and best_partial is None and lines[: i + 1] == run[k - i - 1 :]:
            best_partial = sum(len(line) + 1 for line in lines[: i + 1]), i + 1
    return best_partial


def read_hook_log(path: str | os.PathLike[str]) -> TailResult:
    """Read a whole hook log once (for ``phasewatch check``)."""
    return HookLogTailer(path).read_all()


def iter_hook_log(path: str | os.PathLike[str]) -> Iterator[HookRecord]:
    """Stream a whole hook log in bounded batches (constant memory; for ``audit_hook_log``).

    Stops at the end of the file as it is now, or at the first error / missing file.
    """
    tailer = HookLogTailer(path)
    while True:
        res = tailer.poll()
        yield from res.records
        if not res.pending or res.error or res.missing:
            return


def _os_error(exc: OSError) -> str:
    return f"{type(exc).__name__}: {exc.strerror or exc}"


# ---------------------------------------------------------------------------- stats


def hook_stats(records: Iterable[HookRecord]) -> dict[str, Any]:
    """Counts for the dashboard: totals, per hook, per event, per hook and event, blocks by phase."""
    by_hook: Counter[str] = Counter()
    by_event: Counter[str] = Counter()
    by_hook_event: dict[str, Counter[str]] = {}
    blocks_by_phase: Counter[str] = Counter()
    total = invalid = 0
    last_ts = None
    for r in records:
        total += 1
        if not r.valid:
            invalid += 1
            continue
        hook = r.hook or "(none)"
        event = r.event or "(none)"
        by_hook[hook] += 1
        by_event[event] += 1
        by_hook_event.setdefault(hook, Counter())[event] += 1
        if event == "block":
            blocks_by_phase[r.phase or "(none)"] += 1
        if r.ts:
            last_ts = r.ts
    return {
        "total": total,
        "valid": total - invalid,
        "invalid": invalid,
        "by_hook": dict(by_hook.most_common()),
        "by_event": dict(by_event.most_common()),
        "by_hook_event": {h: dict(c.most_common()) for h, c in by_hook_event.items()},
        "blocks_by_phase": dict(blocks_by_phase.most_common()),
        "last_ts": last_ts,
    }


# ---------------------------------------------------------------------------- rules

SEED = "FORMATS 1 hook-activity.log"

R_INVALID_LINE = rule(
    "HOOK-INVALID-LINE",
    Severity.WARNING,
    "Lines of the hook log are not JSON objects with an event (unusable).",
    seed=SEED,
    fix="Something other than the hooks wrote to the log, or a write was cut; inspect those lines.",
    scope="hooklog",
)
R_SCHEMA = rule(
    "HOOK-SCHEMA",
    Severity.INFO,
    "Lines of the hook log deviate from the exact key set/order/types (still read).",
    seed=SEED,
    fix="A hook writes its own log format; align it with ts, hook, event, phase, agent, reason.",
    scope="hooklog",
)
R_UNKNOWN_EVENT = rule(
    "HOOK-UNKNOWN-EVENT",
    Severity.INFO,
    "Hook log lines carry an event name the protocol does not define.",
    seed=SEED,
    fix="A newer or custom hook; add the event to phasewatch if it matters.",
    scope="hooklog",
)
R_BLOCK = rule(
    "HOOK-BLOCK",
    Severity.INFO,
    "Hooks blocked actions (counted per phase and hook).",
    seed=SEED,
    fix="Read the block reasons; repeated blocks in one phase mean the agent is stuck on a gate.",
    scope="hooklog",
)
R_ERROR = rule(
    "HOOK-ERROR",
    Severity.WARNING,
    "Hooks reported an error: the guard they implement may not have run.",
    seed=SEED,
    fix="Run the failing hook by hand with the logged phase; fix its environment or input.",
    scope="hooklog",
)
R_STALE_WRITE = rule(
    "HOOK-STALE-WRITE",
    Severity.WARNING,
    "A hook caught a stale state write (V7: state_version lower than on disk).",
    seed="FORMATS 1 Write guards (V7)",
    fix="Two writers race on state.json; the late one must re-read before writing.",
    scope="hooklog",
)
R_REGRESSION = rule(
    "HOOK-REGRESSION",
    Severity.WARNING,
    "A hook caught a state regression (V8: index or status going backwards).",
    seed="FORMATS 1 Write guards (V8)",
    fix="A writer used an old snapshot of state.json; check which agent wrote it.",
    scope="hooklog",
)
R_TS_ORDER = rule(
    "HOOK-TS-ORDER",
    Severity.INFO,
    "Hook log timestamps go backwards by more than a second.",
    seed=SEED,
    fix="Clock changes or a hand-edited/merged log; entries may be misattributed in time.",
    scope="hooklog",
)

TS_TOLERANCE = timedelta(seconds=1)  # parallel hooks append a few ms out of order: not news
FIRST_LINES = 5
_TS_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
# The real state-write-validator's V7 blocks (isdlc-framework, lib/state-logic.cjs at dc219669 and
# state-write-validator.cjs before it): "V7: state_version 41 < disk 43", an unversioned write
# "V7: incoming no version, disk 43" (current) or "V7: incoming has no state_version, disk has 43"
# (older). Group 1 is the incoming version (None: the write had none), group 2 the disk's.
_V7 = re.compile(
    r"\bV7:\s*(?:state_version\s+(-?\d+)\s*<\s*disk"
    r"|incoming\s+(?:no\s+version|has\s+no\s+state_version),\s*disk(?:\s+has)?)\s+(-?\d+)",
    re.I,
)
_V8 = re.compile(r"\bV8:\s*(.*)", re.I)
# V8 logged with event "allow" is the validator letting a write through: its supervised redo
# exception ("V8: supervised redo phase_status '06-x' completed -> in_progress"), not a regression.
_ALLOWED = "allow"


def _lines(nums: list[int]) -> str:
    shown = ", ".join(str(n) for n in nums[:FIRST_LINES])
    return shown + (", …" if len(nums) > FIRST_LINES else "")


def audit_hook_log(
    records: Iterable[HookRecord], source: str, *, current_phase: str | None = None
) -> list[Finding]:
    """Aggregate findings over ``records``: one finding per rule (count + first line numbers).

    ``current_phase`` narrows HOOK-BLOCK to blocks logged for that phase.
    """
    invalid: list[HookRecord] = []
    odd: list[HookRecord] = []
    unknown: list[HookRecord] = []
    errors: list[HookRecord] = []
    stale: list[tuple[HookRecord, re.Match[str]]] = []
    regress: list[tuple[HookRecord, re.Match[str]]] = []
    backwards: list[tuple[HookRecord, datetime, datetime]] = []
    blocks: Counter[tuple[str, str]] = Counter()
    block_lines: list[int] = []
    latest: datetime | None = None
    latest_s: str | None = None  # the latest ts when in the owner's exact format (fast compare)
    for r in records:
        if not r.valid:
            invalid.append(r)
            continue
        if any(not n.startswith("unknown event") for n in r.notes):
            odd.append(r)
        if r.event not in HOOK_EVENTS:
            unknown.append(r)
        elif r.event == "error":
            errors.append(r)
        elif r.event == "block" and (current_phase is None or r.phase == current_phase):
            blocks[(r.phase or "(none)", r.hook or "(none)")] += 1
            block_lines.append(r.line_no)
        if r.reason and r.event != _ALLOWED and ("7:" in r.reason or "8:" in r.reason):
            if m := _V7.search(r.reason):
                stale.append((r, m))
            elif m := _V8.search(r.reason):
                regress.append((r, m))
        ts = r.ts
        if not ts:
            continue
        # same fixed format: string order is time order (no datetime needed)
        if latest_s is not None and len(ts) == 24 and ts >= latest_s and _TS_MS.match(ts):
            latest_s, latest = ts, None
            continue
        t = parse_iso(ts)
        if t is None:
            continue
        if latest is None and latest_s is not None:
            latest = parse_iso(latest_s)
        if latest is not None and t < latest - TS_TOLERANCE:
            backwards.append((r, t, latest))
        if latest is None or t > latest:
            latest = t
            latest_s = ts if len(ts) == 24 and _TS_MS.match(ts) else None

    out: list[Finding] = []
    if invalid:
        first = invalid[0]
        out.append(
            make(
                R_INVALID_LINE,
                source=source,
                path=f"line {first.line_no}",
                expected="compact JSON object: ts, hook, event, phase, agent, reason",
                actual=first.error,
                message=f"{len(invalid)} unusable line(s) (lines {_lines([r.line_no for r in invalid])}): "
                f"{first.error}; e.g. {shorten(first.raw or '', 60)!r}",
            )
        )
    if odd:
        first = odd[0]
        notes = Counter(
            n.split(":")[0] for r in odd for n in r.notes if not n.startswith("unknown")
        )
        out.append(
            make(
                R_SCHEMA,
                source=source,
                path=f"line {first.line_no}",
                expected=", ".join(KEYS),
                actual="; ".join(n for n in first.notes if not n.startswith("unknown")),
                message=f"{len(odd)} line(s) deviate from the log format "
                f"(lines {_lines([r.line_no for r in odd])}): "
                + ", ".join(f"{k} ×{v}" for k, v in notes.most_common()),
            )
        )
    if unknown:
        names = Counter(r.event or "" for r in unknown)
        out.append(
            make(
                R_UNKNOWN_EVENT,
                source=source,
                path=f"line {unknown[0].line_no}",
                expected="one of " + ", ".join(sorted(HOOK_EVENTS)),
                actual=unknown[0].event,
                message=f"{len(unknown)} line(s) with unknown events: "
                + ", ".join(f"{shorten(k, 30)} ×{v}" for k, v in names.most_common(5)),
            )
        )
    if errors:
        by_hook = Counter(r.hook or "(none)" for r in errors)
        last = errors[-1]
        out.append(
            make(
                R_ERROR,
                source=source,
                path=f"line {last.line_no}",
                expected="hooks run without error",
                actual=last.reason,
                message=f"{len(errors)} hook error(s): "
                + ", ".join(f"{k} ×{v}" for k, v in by_hook.most_common(5))
                + (f"; last: {shorten(last.reason, 60)}" if last.reason else ""),
            )
        )
    if blocks:
        total = sum(blocks.values())
        where = f" in {current_phase}" if current_phase else ""
        out.append(
            make(
                R_BLOCK,
                source=source,
                path=f"line {block_lines[-1]}",
                expected=None,
                actual=total,
                message=f"{total} block(s){where}: "
                + ", ".join(f"{p} / {h} ×{n}" for (p, h), n in blocks.most_common(5)),
            )
        )
    if stale:
        r, m = stale[-1]
        out.append(
            make(
                R_STALE_WRITE,
                source=source,
                path=f"line {r.line_no}",
                expected=f"state_version >= {m.group(2)}",
                actual=None if m.group(1) is None else int(m.group(1)),
                message=f"{len(stale)} stale write(s) caught (lines "
                f"{_lines([x.line_no for x, _ in stale])}); last: {shorten(r.reason or '', 80)}",
            )
        )
    if regress:
        r, m = regress[-1]
        out.append(
            make(
                R_REGRESSION,
                source=source,
                path=f"line {r.line_no}",
                expected="no regression",
                actual=shorten(m.group(1), 80),
                message=f"{len(regress)} regression(s) caught (lines "
                f"{_lines([x.line_no for x, _ in regress])}); last: {shorten(r.reason or '', 80)}",
            )
        )
    if backwards:
        r, t, before = backwards[0]
        out.append(
            make(
                R_TS_ORDER,
                source=source,
                path=f"line {r.line_no}",
                expected=f">= {before.isoformat()}",
                actual=r.ts,
                message=f"{len(backwards)} timestamp(s) go backwards by more than "
                f"{TS_TOLERANCE.total_seconds():g} s (lines {_lines([x.line_no for x, _, _ in backwards])})",
            )
        )
    return out
