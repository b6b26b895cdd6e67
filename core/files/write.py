"""The checks and primitives every phasewatch write goes through.

* :func:`writable_target`: the file is inside the project (its directory, symlinks resolved,
  is under the project root's real path), is not a symbolic link and is a regular file. A
  planted ``.tdd-progress.md -> ~/.bashrc`` or an ``.isdlc`` that links out of the project is
  refused, never followed.
* :func:`append_line`: one ``O_APPEND`` write that never follows a symlink and never appends to
  anything but a regular file (the journal).
* :func:`writer_lock`: an exclusive ``flock`` on ``.phasewatch.lock`` next to the journal, so
  two phasewatch writers (the dashboard and a command, two terminals) take turns. The owner
  (the agent's controller) does not take it: what that leaves open is in the README's
  Guarantees.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from ..text import clean

LOCK_NAME = ".phasewatch.lock"
LOCK_TIMEOUT = 10.0


class WriteRefused(OSError):
    """A write phasewatch will not make; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _inside(directory: Path, root: Path) -> bool:
    real_dir, real_root = os.path.realpath(directory), os.path.realpath(root)
    return os.path.commonpath([real_dir, real_root]) == real_root


def lexical_root(directory: Path) -> Path:
    """The project root as the user named it: the nearest ancestor holding an ``.isdlc`` entry
    (a directory or a link to one), symlinks NOT resolved (``sources.find_root`` resolves them,
    which would make a linked-out ``.isdlc`` its own project); else ``directory``."""
    directory = Path(os.path.abspath(directory))
    for candidate in (directory, *directory.parents):
        if os.path.lexists(candidate / ".isdlc"):
            return candidate
    return directory


def writable_target(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> Path:
    """``path`` made absolute (never resolved), once it passes the checks above."""
    target = Path(os.path.abspath(path))
    name = clean(target.name)
    if not _inside(target.parent, Path(root)):
        raise WriteRefused(f"{name} is outside the project ({clean(str(root))}): not written")
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        raise WriteRefused(f"{name} does not exist: nothing to decide") from None
    except OSError as exc:
        raise WriteRefused(f"cannot inspect {name}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(st.st_mode):
        raise WriteRefused(f"{name} is a symbolic link: phasewatch never writes through one")
    if not stat.S_ISREG(st.st_mode):
        raise WriteRefused(f"{name} is not a regular file: not written")
    return target


def append_line(path: Path, data: bytes) -> None:
    """Append ``data`` in one write; refuses a symlink or a non-regular file (raises OSError)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WriteRefused(f"{clean(path.name)} is not a regular file: not appended to")
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def writer_lock(directory: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the lock among phasewatch's own writers (waits up to ``timeout`` seconds)."""
    path = directory / LOCK_NAME
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise WriteRefused(f"cannot open the writers' lock {LOCK_NAME}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WriteRefused(f"{LOCK_NAME} is not a regular file: not used")
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise WriteRefused(
                        f"another phasewatch has been writing for {timeout:g} s "
                        f"({LOCK_NAME} is held): nothing written, try again"
                    ) from None
                time.sleep(0.02)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
