"""The write-side primitives: every file phasewatch writes goes through these.

An attacker who can create files in a project (a cloned repository, a shared checkout) must not
be able to turn a decision into a write elsewhere. So, for every file phasewatch writes
(``state.json``, ``.tdd-progress.md``, the journal, temp files, the lock):

* the path must lie inside the project root once every directory in it is resolved
  (:func:`check_target`): a symlinked ``.isdlc`` pointing outside is refused;
* the last component is opened with ``O_NOFOLLOW`` and must be a regular file (``fstat``), so a
  symlink, FIFO, device or directory planted there is refused, never followed or blocked on
  (``O_NONBLOCK``);
* new files are created with ``O_CREAT | O_EXCL | O_NOFOLLOW``.

Every refusal is a :class:`WriteRefused` (an ``OSError``) with a plain ``reason``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class WriteRefused(OSError):
    """A path phasewatch will not write; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def inside(root: Path, path: Path) -> bool:
    """Whether ``path``'s directory, every symlink in it resolved, lies within ``root``."""
    real_root = os.path.realpath(root)
    real_dir = os.path.realpath(Path(path).parent)
    return real_dir == real_root or real_dir.startswith(real_root.rstrip(os.sep) + os.sep)


def check_target(root: Path, path: Path, *, may_be_missing: bool = False) -> None:
    """Refuse ``path`` unless it is inside ``root`` and (if present) a regular, non-link file."""
    if not inside(root, path):
        raise WriteRefused(f"{Path(path).name}: resolves outside the project; not written")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        if may_be_missing:
            return
        raise WriteRefused(f"{Path(path).name} does not exist") from None
    if stat.S_ISLNK(st.st_mode):
        raise WriteRefused(f"{Path(path).name} is a symbolic link; not followed, not written")
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused(f"{Path(path).name} is not a regular file; not written")


def open_regular(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` with ``O_NOFOLLOW | O_NONBLOCK``; the descriptor must name a regular file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise WriteRefused(f"{Path(path).name} is a symbolic link; not followed") from None
        if exc.errno == errno.ENXIO:  # a FIFO with no reader, opened for writing
            raise WriteRefused(f"{Path(path).name} is not a regular file; not written") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise WriteRefused(f"{Path(path).name} is not a regular file; not written")
    return fd


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def create_exclusive(path: Path, data: bytes, mode: int, owner: tuple[int, int] | None) -> None:
    """Create ``path`` (which must not exist, links included), write, chmod, fsync."""
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        write_all(fd, data)
        if owner is not None:
            with contextlib.suppress(OSError):
                os.fchown(fd, *owner)
        os.fchmod(fd, mode)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)


def append_line(root: Path, path: Path, line: bytes, *, sync: bool = True) -> None:
    """One ``write`` of ``line`` on an ``O_APPEND`` descriptor of a regular file in ``root``;
    ``sync=False`` skips the fsync (the line survives a killed process, not a power cut)."""
    if not inside(root, path):
        raise WriteRefused(f"{Path(path).name}: resolves outside the project; not written")
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        os.write(fd, line)
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(directory: Path) -> None:
    """Make a rename durable; a directory that cannot be opened is not an error."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
