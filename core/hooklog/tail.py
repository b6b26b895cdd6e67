"""Follow ``.isdlc/hook-activity.log`` safely: :class:`HookLogTailer` and the line index.

After an append, the owner rewrites the file *in place* with its newest 500 lines once it is over
1 MiB: no backup, no lock. :class:`HookLogTailer` follows the file by byte offset and survives
that rotation (and truncation, replacement, deletion) without losing or duplicating a line: it
remembers the last few lines it consumed and, when the file shrinks or changes under it, finds
where those lines now end in the new content and continues right after them.

Nothing here raises on bad input: a bad line is a record flagged invalid, an unreadable file is an
``error`` string in the poll result.
"""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct, field

from ..log import internal_failure
from .batch import Batch, parse
from .columns import PLAIN, Col, vector
from .parse import KEEP_BYTES, MAX_LINE, HookRecord, _overlong
from .threads import THREADS, map_parts

MAX_READ = 8 * 1024 * 1024  # bytes consumed per poll at most; the rest waits for the next poll
# lines consumed per poll at most: a line parsed one by one costs ~450 bytes as a record, so
# 8 MiB of junk two-byte lines (4M records, 2 GB) would otherwise be held at once
# (docs/performance.md#junk-lines)
MAX_ROWS = 100_000
MEMORY = 16  # lines remembered to re-find our position after a rotation
_CHUNK = 2 * 1024 * 1024
_RESYNC_PATIENCE = 3  # polls to wait for a half-written rewrite before giving up on the overlap
RESYNC_SCAN = 64 * 1024 * 1024  # bytes searched (backwards) for our position after a rotation
_LONG_SENTINEL = b"\x00phasewatch-overlong-line\x00"
INDEX_CHUNK = 256 * 1024  # bytes scanned per read when indexing line starts (cache-sized)
_Job = Batch | tuple[bytes, int, int, int]  # a parsed batch, or parse_block's arguments


def _parse_all(jobs: list[_Job], large: bool) -> list[Batch]:
    """The batches of a poll in file order: ``jobs`` are ready batches or the ``parse_block``
    arguments of a block (several blocks are parsed at once, see :mod:`.threads`); ``large``:
    the log outgrew :data:`.parse.KEEP_BYTES` (its blocks are parsed with numpy)."""
    todo = [job for job in jobs if not isinstance(job, Batch)]
    parsed = map_parts(lambda args: parse(*args, large=large), todo)
    return [job if isinstance(job, Batch) else next(parsed) for job in jobs]


class TailResult(Struct, frozen=True):
    batches: list[Batch] = field(default_factory=list)  # the lines read, in file order
    rotated: bool = (
        False  # position re-found after a shrink/rewrite/replace: nothing lost or repeated
    )
    truncated: bool = False  # the file shrank or was rewritten in place since the last poll
    reset: bool = False  # position NOT re-found: the whole new file was emitted as new
    missing: bool = False  # the file does not exist (now)
    error: str | None = None  # unreadable (permissions, a directory, I/O error)
    replaced: bool = False  # a different file (new inode) sits at the path
    pending: bool = False  # more complete data is waiting (the per-poll cap was hit)

    # A result is also its records: ``len(res)``, ``for r in res``, ``res.records``.
    def __len__(self) -> int:
        return sum(map(len, self.batches))

    def __iter__(self) -> Iterator[HookRecord]:
        for batch in self.batches:
            yield from batch.records()

    def then(self, later: TailResult) -> TailResult:
        """This poll and a ``later`` one as one: both batches, either's events, the later's
        state (pending, missing, error)."""
        return TailResult(
            batches=self.batches + later.batches,
            rotated=self.rotated or later.rotated,
            truncated=self.truncated or later.truncated,
            reset=self.reset or later.reset,
            missing=later.missing,
            error=later.error,
            replaced=self.replaced or later.replaced,
            pending=later.pending,
        )

    @property
    def records(self) -> list[HookRecord]:
        """Every line read as a record (built on demand: the batches are the cheap form)."""
        return list(self)


class HookLogTailer:
    """Incremental, rotation-safe reader of a JSON Lines file. ``poll()`` never raises.

    Only complete lines are consumed (a partial last line waits for its newline). At most
    ``max_read`` bytes and ``max_rows`` lines are consumed per poll (``pending`` says more is
    waiting); ``read_all()``
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
        max_rows: int = MAX_ROWS,
    ) -> None:
        self.path = Path(path)
        self.max_read = max(1, max_read)
        self.max_rows = max(1, max_rows)
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
        # lines read before the current file's first line (None: not known, the file was
        # re-found past RESYNC_SCAN): line n read is the file's line n - _base
        self._base: int | None = 0
        self.size = 0  # the file's size at the last poll

    @property
    def offset(self) -> int:
        return self._offset

    @property
    def ident(self) -> tuple[int, int] | None:
        """(device, inode) of the file read last."""
        return self._ident

    @property
    def lines_consumed(self) -> int:
        return self._line_no

    @property
    def base(self) -> int | None:
        """Lines read before the current file's first line (None: not known)."""
        return self._base

    def file_line(self, line_no: int) -> int | None:
        """The line of the file as it is now that the ``line_no``-th line read is (lines are
        numbered as read, across rotations); None when a rotation or rewrite took it out."""
        if self._base is None or line_no <= self._base:
            return None
        return line_no - self._base

    # -- public -------------------------------------------------------------------------------

    def poll(self) -> TailResult:
        try:
            return self._poll()
        except Exception as exc:  # defensive: never let the dashboard die on a log read
            internal_failure(__name__, "reading the hook log raised", exc)
            return TailResult(error=f"{type(exc).__name__}: {exc}")

    def read_all(self) -> TailResult:
        """Poll until caught up with the file as it is now (no per-call cap)."""
        res = self.poll()
        for _ in range(1_000_000):
            if not res.pending or res.error or res.missing:
                break
            res = res.then(self.poll())
        return res

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
        if (truncated or replaced) and not rotated and not self._resync:
            self._base = self._line_no  # read again from the start: nothing to re-find

        if self._resync:
            found, decided = self._find_overlap(fd, size)
            if not decided:
                return TailResult(truncated=truncated, replaced=replaced)
            self._resync = False
            if found is None:
                reset = True
                self._offset = self._contig = 0
                self._base = self._line_no
            else:
                rotated = True
                self._offset, self._contig = found
                before = _lines_before(fd, self._offset)
                self._base = None if before is None else self._line_no - before

        batches, pending = self._consume(fd, size)
        return TailResult(
            batches=batches,
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

    def _consume(self, fd: int, size: int) -> tuple[list[Batch], bool]:
        jobs: list[_Job] = []
        pos = self._offset
        stop = min(size, pos + self.max_read)
        part = min(_CHUNK, -(-self.max_read // THREADS))  # a block for each thread
        buf = b""
        buf_start = pos
        rows = 0  # lines queued so far (at most max_rows)
        full = False
        while pos < stop:
            chunk = os.pread(fd, min(part, stop - pos), pos)
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
                room = self.max_rows - rows
                lines = block.count(b"\n") + 1
                if room <= 0:  # (an over-long line took the last row)
                    full = True
                    break
                if lines >= room:  # the poll's rows are full: the rest waits for the next one
                    cut = _nth_newline(block, room) if lines > room else last_nl
                    self._emit(block[:cut], buf_start, jobs)
                    buf_start += cut + 1
                    full = True
                    break
                rows += lines
                self._emit(block, buf_start, jobs)
                buf_start += last_nl + 1
                buf = buf[last_nl + 1 :]
            if len(buf) >= self.max_line:
                rows += 1
                self._line_no += 1
                jobs.append(Batch.of([_overlong(buf, self.max_line, self._line_no, buf_start)]))
                self._recent.append(_LONG_SENTINEL)
                self._contig = min(self._contig + 1, self._recent.maxlen or 1)
                self._skipping = True
                buf_start += len(buf)
                buf = b""
        # (parsed before the offset moves on: a failure reads them again)
        batches = _parse_all(jobs, size > KEEP_BYTES)
        self._offset = buf_start
        return batches, (full or stop < size) and self._has_newline_after(fd, buf_start, size)

    def _has_newline_after(self, fd: int, start: int, size: int) -> bool:
        """Whether a complete line waits beyond ``start`` (cheap peek, bounded)."""
        peek = os.pread(fd, min(size - start, self.max_line + 1), start)
        return b"\n" in peek or len(peek) >= self.max_line

    def _emit(self, block: bytes, start: int, out: list[_Job]) -> None:
        """Queue ``block`` (complete lines joined by newlines, last newline excluded) for
        parsing; its lines are counted (and the last ones remembered) now."""
        lines = block.count(b"\n") + 1  # parse_block gives one row per line, empty ones too
        out.append((block, start, self._line_no + 1, self.max_line))
        self._line_no += lines
        keep = self._recent.maxlen or 1
        cut = len(block)
        for _ in range(keep):  # the last lines, without splitting the whole block
            cut = block.rfind(b"\n", 0, cut)
            if cut < 0:
                break
        self._recent.extend(block[cut + 1 :].split(b"\n"))
        self._contig = min(self._contig + lines, keep)


def _nth_newline(block: bytes, n: int) -> int:
    """Where the ``n``-th newline of ``block`` is (``n`` >= 1; it has at least that many)."""
    pos = -1
    for _ in range(n):
        pos = block.find(b"\n", pos + 1)
    return pos


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
    for batch in iter_batches(path):
        yield from batch.records()


def iter_batches(path: str | os.PathLike[str]) -> Iterator[Batch]:
    """A whole hook log as batches of rows (:func:`iter_hook_log` without a record per line)."""
    tailer = HookLogTailer(path)
    while True:
        res = tailer.poll()
        yield from res.batches
        if not res.pending or res.error or res.missing:
            return


def _lines_before(fd: int, offset: int) -> int | None:
    """Newlines in the first ``offset`` bytes of the file (None: past RESYNC_SCAN, not read)."""
    if offset > RESYNC_SCAN:
        return None
    count = pos = 0
    while pos < offset:
        data = os.pread(fd, min(_CHUNK, offset - pos), pos)
        if not data:
            break
        count += data.count(b"\n")
        pos += len(data)
    return count


def _os_error(exc: OSError) -> str:
    return f"{type(exc).__name__}: {exc.strerror or exc}"


def line_starts(path: str | os.PathLike[str], start: int = 0) -> tuple[Col, int]:
    """Where each complete line from byte ``start`` (a line start) on begins, and the byte
    just after the last one: a newline scan, ``INDEX_CHUNK`` bytes per read (vectorised for a
    log past :data:`.parse.KEEP_BYTES`, docs/performance.md#the-hook-log). Read with ``pread``,
    not mapped:
    the owner rewrites the log in place, and a mapping of a file that shrinks faults. Empty
    when the file is missing or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return [], start
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return [], start
        xp = vector() if st.st_size > KEEP_BYTES else PLAIN
        ends = []
        pos = start
        buf = bytearray(INDEX_CHUNK)  # one buffer read into again and again
        while pos < st.st_size:
            got = os.preadv(fd, [memoryview(buf)[: min(INDEX_CHUNK, st.st_size - pos)]], pos)
            if not got:
                break
            ends.append(xp.newlines(memoryview(buf)[:got], pos))
            pos += got
    except OSError:
        return [], start
    finally:
        os.close(fd)
    after = xp.concat(ends)
    if not len(after):
        return after, start
    return xp.concat([[start], after[:-1]]), int(after[-1])
