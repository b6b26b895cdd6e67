"""The one way phasewatch reads a whole file: safely, or not at all.

Every file phasewatch reads is written by someone else, often non-atomically (truncate, then
write), and may be hostile: a FIFO that never gives EOF, ``/dev/zero``, a symlink to somewhere
else, a huge file, a file that vanishes or changes mid-read. :func:`read_regular` therefore

* opens without blocking (``O_NONBLOCK``: a FIFO's open returns at once) and without taking a
  controlling terminal (``O_NOCTTY``), optionally refusing a symlink (``O_NOFOLLOW``);
* checks with ``fstat`` on the open descriptor (no race with a rename) that it is a regular
  file: anything else is refused before a single byte is read;
* refuses a file over the cap and never reads more than ``cap + 1`` bytes;
* verifies the file did not change during the read: size, ``mtime_ns``, ``ctime_ns`` and inode
  before and after, the bytes read match the size, and the path still names the same inode. A
  file modified shortly before the read (within a coarse timestamp tick of it, where a rewrite
  can leave the stamp unchanged) is read a second time and the two reads must agree. So a
  truncate-then-write cycle during the read is never returned as the start of write N plus the
  end of write N+1: it is read again, and refused as "changed while reading" if it keeps
  changing.

Every failure is a :class:`ReadRefused` whose ``reason`` is a short plain-words message without
the path (the caller names the file, cleaned, in its own message).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

__all__ = ["MAX_BYTES", "ReadRefused", "read_regular"]

MAX_BYTES = 32 * 1024 * 1024  # a real state.json is KBs; 32 MiB is far past any honest file
ATTEMPTS = 4  # reads of a file that keeps changing before it is refused
RETRY_DELAY_S = 0.005
# A file modified this recently may be rewritten without its stamp changing (timestamps are
# taken from a coarse clock, a few ms per tick; network filesystems use the server's clock), so
# its read is confirmed by a second one.
RECENT_NS = 1_000_000_000

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_CHUNK = 1024 * 1024

_ERRNO_REASONS = {
    errno.ENOENT: "file not found",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory",
    errno.ENOTDIR: "a parent is not a directory",
    errno.ENXIO: "not a regular file (a socket or device)",
    errno.ENAMETOOLONG: "name too long",
}

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISLNK, "a symbolic link"),
)


class ReadRefused(OSError):
    """A file was not read. ``reason`` says why in plain words, ready to show (no path, no
    control characters); ``errno`` is set when the OS refused (e.g. ``ENOENT`` when missing)."""

    def __init__(self, reason: str, err: int | None = None) -> None:
        if err is None:
            super().__init__(reason)
        else:
            super().__init__(err, reason)
        self.reason = reason

    @property
    def missing(self) -> bool:
        """The file (or a directory on its way) does not exist."""
        return self.errno == errno.ENOENT

    def __str__(self) -> str:
        return self.reason


def read_regular(
    path: Path, *, cap: int = MAX_BYTES, follow_symlinks: bool = True
) -> tuple[bytes, os.stat_result]:
    """Return the whole content of the regular file ``path`` and its ``fstat`` result.

    Raises :class:`ReadRefused` (never blocks, never reads more than ``cap + 1`` bytes)."""
    flags = _OPEN_FLAGS | (0 if follow_symlinks else getattr(os, "O_NOFOLLOW", 0))
    for attempt in range(ATTEMPTS):
        if attempt:
            time.sleep(RETRY_DELAY_S * attempt)
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            raise _refused(exc, follow_symlinks) from None
        try:
            result = _read_once(fd, path, cap, follow_symlinks)
        except OSError as exc:
            raise _refused(exc, follow_symlinks) from None
        finally:
            os.close(fd)
        if result is not None:
            return result
    raise ReadRefused("changed while reading")


def _read_once(
    fd: int, path: Path, cap: int, follow_symlinks: bool
) -> tuple[bytes, os.stat_result] | None:
    """One verified read of the open ``fd``; None when the file changed meanwhile."""
    before = os.fstat(fd)
    _require_regular(before, cap)
    data = _read_all(fd, before.st_size, cap)
    after = os.fstat(fd)
    if _stamp(before) != _stamp(after) or len(data) != after.st_size:
        return None
    if time.time_ns() - after.st_mtime_ns < RECENT_NS and _read_all(fd, len(data), cap, 0) != data:
        return None
    try:
        named = os.stat(path, follow_symlinks=follow_symlinks)
    except FileNotFoundError:
        return None  # replaced or removed since the open: read what the path names now
    if (named.st_dev, named.st_ino) != (after.st_dev, after.st_ino):
        return None
    return data, after


def _require_regular(st: os.stat_result, cap: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "a special file")
        raise ReadRefused(f"not a regular file ({kind})")
    if st.st_size > cap:
        raise ReadRefused(f"too large ({_size(st.st_size)}; the limit is {_size(cap)})")


def _read_all(fd: int, size_hint: int, cap: int, offset: int | None = None) -> bytes:
    """Read until EOF or ``cap + 1`` bytes (from ``offset`` with pread, else from the current
    position); a file that grew past the cap is refused."""
    chunks: list[bytes] = []
    got = 0
    limit = cap + 1
    while got < limit:
        want = min(limit - got, max(size_hint + 1 - got, _CHUNK))
        chunk = os.read(fd, want) if offset is None else os.pread(fd, want, offset + got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    if got > cap:
        raise ReadRefused(f"too large (over {_size(cap)})")
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _stamp(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _refused(exc: OSError, follow_symlinks: bool) -> ReadRefused:
    if isinstance(exc, ReadRefused):
        return exc
    code = exc.errno
    if code == errno.ELOOP:
        reason = "too many symbolic links" if follow_symlinks else "is a symbolic link"
    elif code in _ERRNO_REASONS:
        reason = _ERRNO_REASONS[code]
    else:
        reason = (os.strerror(code) if code else type(exc).__name__).lower()
    return ReadRefused(reason, code)


def _size(n: int) -> str:
    if n >= 1024 * 1024:
        return f"{n / (1024 * 1024):.0f} MiB"
    if n >= 1024:
        return f"{n / 1024:.0f} KiB"
    return f"{n} bytes"
