"""The one way phasewatch reads a file: :func:`read_regular`.

* Opened ``O_NONBLOCK``, so a FIFO planted at ``state.json`` cannot hang the reader (nothing is
  ever read from it: only regular files are, checked with ``fstat`` on the open descriptor).
* Size-capped: a file over ``cap`` is refused (or, with ``truncate``, cut), never read whole, so
  ``/dev/zero`` or a 100 MB state cannot exhaust memory (a device is not regular anyway).
* Verified: the owner writes non-atomically (truncate, then write). A read that overlapped a
  write could join the start of one version to the end of the next and still parse, so the
  descriptor's size, mtime, ctime and inode are compared before and after, and the path must
  still name the same file; a file modified within a timestamp tick of the read (where a
  same-size rewrite can leave the stamp as it was) is read twice and both must agree. A read
  that saw a change is retried, then refused as "changed".
* ``follow_symlinks=False`` (for files phasewatch is about to replace) adds ``O_NOFOLLOW``;
  ``dir_fd`` reads the entry ``path`` of an open directory (the writer's, see
  :func:`core.files.write.open_dir`) instead of walking the path again.

Every refusal is a :class:`ReadRefused` (an ``OSError``) with a short, plain ``reason``.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path
from typing import Literal

MAX_BYTES = 32 * 1024 * 1024
ATTEMPTS = 4
RETRY_DELAY = 0.01
# A file modified this recently may have been rewritten during the read without its stamp
# changing (timestamps come from a coarse clock, a few ms a tick; a network filesystem uses the
# server's clock), so its read is confirmed by a second one that must give the same bytes.
RECENT_NS = 1_000_000_000

Kind = Literal["missing", "not_regular", "symlink", "too_large", "changed", "unreadable"]


class ReadRefused(OSError):
    """A file phasewatch will not (or cannot) read; ``reason`` says why in plain words."""

    def __init__(self, reason: str, kind: Kind) -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


def _open(path: Path, follow_symlinks: bool, dir_fd: int | None) -> int:
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    try:
        return os.open(path, flags) if dir_fd is None else os.open(path, flags, dir_fd=dir_fd)
    except FileNotFoundError:
        raise ReadRefused("file not found", "missing") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise ReadRefused("is a symbolic link (not followed)", "symlink") from None
        if exc.errno in (errno.EACCES, errno.EPERM):
            raise ReadRefused("permission denied", "unreadable") from None
        raise ReadRefused(f"cannot open it: {exc.strerror or exc}", "unreadable") from None


def read_fd(fd: int, limit: int, offset: int | None = None) -> bytes:
    """At most ``limit`` bytes from the current position (or from ``offset``, with pread)."""
    parts: list[bytes] = []
    got = 0
    while got < limit:
        want = min(limit - got, 1 << 20)
        chunk = os.read(fd, want) if offset is None else os.pread(fd, want, offset + got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    """Same file, same size, not modified in between (mtime and ctime: a truncate-then-write
    moves both, and ctime cannot be set back by ``utime``)."""
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns, a.st_ctime_ns) == (
        b.st_dev,
        b.st_ino,
        b.st_size,
        b.st_mtime_ns,
        b.st_ctime_ns,
    )


def _confirmed(fd: int, data: bytes, st: os.stat_result) -> bool:
    """False when a file modified within a timestamp tick of the read reads differently now."""
    if time.time_ns() - st.st_mtime_ns >= RECENT_NS:
        return True
    return read_fd(fd, len(data) + 1, offset=0) == data


def _read_once(
    path: Path, cap: int, follow_symlinks: bool, truncate: bool, dir_fd: int | None
) -> tuple[bytes, os.stat_result, bool]:
    fd = _open(path, follow_symlinks, dir_fd)
    try:
        before = os.fstat(fd)
        if not stat.S_ISREG(before.st_mode):
            raise ReadRefused(
                "not a regular file (a FIFO, device, socket or directory): not read",
                "not_regular",
            )
        if before.st_size > cap and not truncate:
            raise ReadRefused(f"larger than {cap:,} bytes: not read", "too_large")
        data = read_fd(fd, cap if truncate else cap + 1)
        after = os.fstat(fd)
        confirmed = truncate or _confirmed(fd, data, after)
    except OSError as exc:
        if isinstance(exc, ReadRefused):
            raise
        raise ReadRefused(f"cannot read it: {exc.strerror or exc}", "unreadable") from None
    finally:
        os.close(fd)
    if len(data) > cap:  # grew past the cap while being read
        raise ReadRefused(f"larger than {cap:,} bytes: not read", "too_large")
    try:
        where = {} if dir_fd is None else {"dir_fd": dir_fd}
        now = os.stat(path, follow_symlinks=follow_symlinks, **where)
    except OSError:
        now = None  # vanished (or replaced by something unreadable) right after the read
    unchanged = confirmed and _same(before, after) and now is not None and _same(after, now)
    if not truncate and unchanged and len(data) != after.st_size:
        unchanged = False  # e.g. cut by a truncate after its size was taken
    return data, after, unchanged


def read_regular(
    path: Path,
    *,
    cap: int = MAX_BYTES,
    follow_symlinks: bool = True,
    truncate: bool = False,
    attempts: int = ATTEMPTS,
    dir_fd: int | None = None,
) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file ``path`` and its ``fstat`` (see the module docstring).

    ``truncate``: a file over ``cap`` gives its first ``cap`` bytes instead of a refusal (for
    text shown to a human, never for a file to be parsed or rewritten).
    """
    for attempt in range(max(1, attempts)):
        data, st, unchanged = _read_once(Path(path), cap, follow_symlinks, truncate, dir_fd)
        if unchanged:
            return data, st
        if attempt + 1 < attempts:
            time.sleep(RETRY_DELAY * (attempt + 1))
    raise ReadRefused("it changed while being read (its owner is writing it)", "changed")


def read_given(path: str, *, cap: int = MAX_BYTES) -> bytes:
    """The bytes of a file the user named on the command line to be read once: a regular file
    (:func:`read_regular`), a pipe such as ``<(git show HEAD:.isdlc/state.json)``, or ``-`` for
    standard input. Unlike a project file, a pipe is read (blocking: the user asked for it),
    capped at ``cap``; a device, socket or directory is refused."""
    if path == "-":
        return _read_stream(os.dup(0), cap)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ReadRefused("no such file", "missing") from None
    except OSError as exc:
        raise ReadRefused(exc.strerror or "cannot be opened", "unreadable") from None
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        os.close(fd)
        return read_regular(Path(path), cap=cap)[0]
    if not stat.S_ISFIFO(mode):
        os.close(fd)
        raise ReadRefused("not a regular file or a pipe: not read", "not_regular")
    os.set_blocking(fd, True)
    return _read_stream(fd, cap)


def _read_stream(fd: int, cap: int) -> bytes:
    """Read ``fd`` to its end (and close it); refused past ``cap`` bytes."""
    parts: list[bytes] = []
    size = 0
    try:
        while chunk := os.read(fd, 1 << 16):
            size += len(chunk)
            if size > cap:
                raise ReadRefused(f"larger than {cap // (1024 * 1024)} MiB: not read", "too_large")
            parts.append(chunk)
    except ReadRefused:
        raise
    except OSError as exc:
        raise ReadRefused(exc.strerror or "cannot be read", "unreadable") from None
    finally:
        os.close(fd)
    return b"".join(parts)


def read_tail(path: Path, cap: int, *, follow_symlinks: bool = False) -> bytes:
    """The last ``cap`` bytes of the regular file ``path`` (all of it when smaller), from the
    start of a line: for an append-only file of lines (the decision journal), whose newest
    lines are the ones read. :class:`ReadRefused` as :func:`read_regular`."""
    fd = _open(Path(path), follow_symlinks, None)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ReadRefused("not a regular file", "not_regular")
        start = max(0, st.st_size - cap)
        data = read_fd(fd, st.st_size - start, offset=start)
    finally:
        os.close(fd)
    if start:  # cut inside a line: from the next one
        data = data[data.find(b"\n") + 1 :] if b"\n" in data else b""
    return data
