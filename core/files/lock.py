"""The cross-process lock among phasewatch writers (the dashboard and any number of CLIs).

Without it two phasewatch writers can interleave read-check-rename: both report ``applied`` and
the second rename destroys the first decision. The owner (the iSDLC hooks, the TDD plugin) does
not take this lock; it only orders phasewatch against itself.

The lock file is ``<root>/.isdlc/phasewatch.lock`` (``<root>/.phasewatch.lock`` without
``.isdlc``), opened with the write-side checks (its directory opened from the root without
following a link, the file ``O_NOFOLLOW`` and regular), and
held with ``flock(LOCK_EX)``; the kernel releases it when the process dies, so a ``kill -9`` never
leaves a stale lock. Waiting is bounded: a lock not obtained within ``timeout`` seconds raises
:class:`LockBusy`.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .write import open_dir

LOCK_NAME = "phasewatch.lock"
TIMEOUT = 10.0


class LockBusy(OSError):
    """Another phasewatch writer held the lock for longer than the timeout."""


def lock_path(root: Path) -> Path:
    isdlc = root / ".isdlc"
    return isdlc / LOCK_NAME if os.path.lexists(isdlc) else root / f".{LOCK_NAME}"


@contextmanager
def writer_lock(root: Path, timeout: float = TIMEOUT) -> Iterator[Path]:
    """Hold the project's writer lock (exclusive ``flock``) for the duration of the block."""
    path = lock_path(Path(root))
    with open_dir(Path(root), path.parent) as directory:  # no link followed on the way
        fd = directory.open(path.name, os.O_RDWR | os.O_CREAT)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LockBusy(f"another phasewatch writer holds {path.name}") from None
                time.sleep(0.005)
        yield path
    finally:
        os.close(fd)


def lock_held(root: Path) -> bool:
    """Whether another phasewatch writer holds the project's lock now (an open file description
    of this process holding it counts too); never waits. A lock file that does not exist or
    cannot be opened: False (nobody can hold it)."""
    path = lock_path(Path(root))
    try:
        with open_dir(Path(root), path.parent) as directory:
            fd = directory.open(path.name, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # (closing releases a lock just taken)
    return False
