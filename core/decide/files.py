"""The file plumbing of a decision: temp files, the atomic replace and its look-again, and where a write may go."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal

from msgspec import Struct

from ..files.read import MAX_BYTES, read_fd, read_regular
from ..files.write import Dir, WriteRefused, fsync_dir, may_write, open_dir
from ..log import internal_failure
from ..sources import project_id_problem
from ..text import clean
from .codec import reread
from .outcomes import (
    ERROR,
    INVALID,
    SETTLE_SECONDS,
    STALE_TEMP_SECONDS,
    UNSETTLED_SECONDS,
    Outcome,
)
from .summary import _version_of

_WRITE_LOCK = threading.RLock()  # one decision at a time per process (the temp name is per pid)


def temp_path(path: Path, pid: int | None = None) -> Path:
    return path.with_name(f".{path.name}.phasewatch-{os.getpid() if pid is None else pid}.tmp")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_stale_temps(directory: Dir, name: str) -> list[str]:
    """Remove the temps of the file ``name`` left by processes that are gone (or older than
    ten minutes); the names removed."""
    removed: list[str] = []
    prefix, suffix = f".{name}.phasewatch-", ".tmp"
    try:
        entries = directory.names()
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not (entry.startswith(prefix) and entry.endswith(suffix)):
            continue
        pid_text = entry[len(prefix) : -len(suffix)]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        try:
            old = now - directory.lstat(entry).st_mtime > STALE_TEMP_SECONDS
        except OSError:
            continue
        if pid == os.getpid() or not _pid_alive(pid) or old:
            with contextlib.suppress(OSError):
                directory.unlink(entry)
                removed.append(entry)
    return removed


_fsync_dir = fsync_dir  # a module global, so tests can interpose on the directory fsync


def _read_whole(fd: int) -> bytes:
    """The whole file behind ``fd`` (a regular file) from its start, at most the cap + 1 bytes."""
    return read_fd(fd, MAX_BYTES + 1, offset=0)


def _read_bytes(directory: Dir, name: str) -> tuple[bytes, os.stat_result]:
    """A file the writer is about to replace: never through a link, never a FIFO or device."""
    return read_regular(Path(name), follow_symlinks=False, dir_fd=directory.fd)


def _write_temp(directory: Dir, name: str, data: bytes, st: os.stat_result | None) -> str:
    """``data`` in a new temp file next to ``name``, with the owner and mode of ``st`` (the
    file it replaces: refused when they cannot be kept); its name."""
    tmp = temp_path(Path(name)).name
    with contextlib.suppress(FileNotFoundError):
        directory.unlink(tmp)  # a link planted at the temp name is removed, never followed
    try:
        directory.create(tmp, data, st)
    except WriteRefused as exc:
        raise WriteRefused(f"{clean(name)}: {exc.reason}") from None
    return tmp


class _Replace(Struct):
    """How a replace went. ``ok``: the file holds our bytes. ``changed``: nothing written (the
    file moved before the rename). ``overwritten``: another writer replaced our bytes after the
    rename. ``withdrawn`` / ``lost``: another writer's write landed on the inode we replaced;
    its bytes were put back (our decision withdrawn) or could not be (it wrote again).
    ``current`` is what the file held once things settled (None if unreadable)."""

    status: Literal["ok", "changed", "overwritten", "withdrawn", "lost"]
    detail: str = ""
    current: bytes | None = None


def _atomic_replace(
    directory: Dir,
    name: str,
    original: bytes,
    original_stat: os.stat_result,
    new: bytes,
    valid: Callable[[bytes], bool],
    settle: float = SETTLE_SECONDS,
    intent: Callable[[], None] | None = None,
) -> _Replace:
    """Steps 4 and 5: temp + fsync, last look, ``os.replace``, dir fsync, look again, all in
    ``directory`` (opened once: a link swapped in on the way since cannot redirect them).

    ``intent`` (the journal line) runs first: when it raises, nothing is written. The last look
    (same inode, same bytes) shrinks the window in which an owner's non-atomic write could be
    lost to microseconds. An owner write that still lands on the inode we replaced is seen
    right after the rename (its content moved; stamps are too coarse), and the owner's bytes
    are put back at once when the file still holds ours. Then, ``settle`` seconds after the
    rename, the file is read again: a writer that read the file before our rename and wrote
    after it shows up here (``overwritten``) and the caller decides, from the content, whether
    the decision survived.
    """
    if intent is not None:  # journaled before the temp: the last look and the rename stay adjacent
        intent()
    tmp = _write_temp(directory, name, new, original_stat)
    try:
        old_fd = directory.open(name, os.O_RDONLY)
    except OSError:
        directory.unlink(tmp)
        return _Replace("changed", "the file disappeared or is no longer a regular file")
    try:
        if os.fstat(old_fd).st_ino != original_stat.st_ino or _read_whole(old_fd) != original:
            directory.unlink(tmp)
            return _Replace("changed", "the file changed while the decision was being written")
        directory.replace(tmp, name)
        replaced_at = time.monotonic()
        orphan = None
        if _read_whole(old_fd) != original:  # an owner write is landing on the replaced inode
            orphan = _restore_orphan(directory, name, old_fd, new, valid)
        _fsync_dir(directory)
    finally:
        os.close(old_fd)
    time.sleep(max(0.0, settle - (time.monotonic() - replaced_at)))
    current = _settled_bytes(directory, name, valid)
    if orphan is not None:
        orphan.current = current
        return orphan
    if current != new:
        return _Replace("overwritten", "another writer replaced the file after our write", current)
    return _Replace("ok", current=current)


def _pauses(wait: float | None = None) -> Iterator[None]:
    """Paces looks at a file another writer may be in the middle of writing (truncated, not
    yet whole): the first at once, the next after growing pauses (2 ms, doubling to 50 ms),
    the last ``wait`` seconds on (:data:`UNSETTLED_SECONDS`). A writer descheduled between its
    truncate and its write on a busy machine takes far longer than the write itself."""
    deadline = time.monotonic() + (UNSETTLED_SECONDS if wait is None else wait)
    pause = 0.002
    yield
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)
        yield


def _settled_bytes(
    directory: Dir, name: str, valid: Callable[[bytes], bool], wait: float | None = None
) -> bytes | None:
    """The file's bytes once its writer has finished, else (after ``wait``) whatever it holds:
    the caller then finds it unreadable and calls the decision's fate uncertain."""
    data = None
    for _ in _pauses(wait):
        data = _read_bytes_or_none(directory, name)
        if data is None or valid(data):
            break
    return data


def _read_bytes_or_none(directory: Dir, name: str) -> bytes | None:
    try:
        return _read_bytes(directory, name)[0]
    except OSError:
        return None


def _restore_orphan(
    directory: Dir, name: str, old_fd: int, new: bytes, valid: Callable[[bytes], bool]
) -> _Replace:
    """An owner write went to the inode we replaced: give the file back its bytes."""
    theirs = b""
    for _ in range(50):  # the owner may still be writing it (truncate, then write)
        theirs = _read_whole(old_fd)
        if valid(theirs):
            break
        time.sleep(0.001)
    else:
        return _Replace(
            "lost",
            "another writer wrote during the replace and never finished; that owner write may "
            "be lost",
        )
    # before the look: look and rename adjacent
    tmp = _write_temp(directory, name, theirs, os.fstat(old_fd))
    if _bytes_now(directory, name) != new:
        directory.unlink(tmp)
        return _Replace(
            "lost",
            f"another writer wrote during the replace ({_name_write(theirs)}) and again after "
            "it; that write may be lost",
        )
    directory.replace(tmp, name)
    return _Replace(
        "withdrawn",
        f"another writer wrote during the replace ({_name_write(theirs)}); its write was put "
        "back and the decision withdrawn",
    )


def _bytes_now(directory: Dir, name: str) -> bytes | None:
    """One immediate read (no retry, no pause), for a last look right before a rename."""
    try:
        fd = directory.open(name, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_whole(fd)
    finally:
        os.close(fd)


def _name_write(data: bytes) -> str:
    """How to recognise an owner write in a message: its ``state_version``, else its digest."""
    doc = reread(data) if data.lstrip().startswith(b"{") else None
    version = _version_of(doc.get("state_version")) if doc is not None else None
    if version is not None:
        return f"its state_version {version}"
    return f"sha256 {hashlib.sha256(data).hexdigest()[:12]}"


def _project_root(path: Path) -> Path:
    """The project root of ``path`` (as given, no link resolved): the directory above the
    nearest ``.isdlc`` component of the path itself (``<root>/.isdlc/state.json``,
    ``<root>/.isdlc/projects/<id>/state.json``), else the nearest ancestor holding a ``.isdlc``
    entry, else its directory. Taken from the names, never from what they point to now: a
    ``.isdlc`` that links outside, or is swapped for one, cannot move the root there (it is
    then refused when opened)."""
    for candidate in path.parents:
        if candidate.name == ".isdlc":
            return candidate.parent
    for candidate in path.parents:
        if os.path.lexists(candidate / ".isdlc"):
            return candidate
    return path.parent


def _check_project_file(root: Path, path: Path) -> None:
    """Under ``.isdlc/projects`` only ``<id>/state.json`` is a decision's target, ``<id>`` one
    directory name (:func:`~core.sources.project_id_problem`)."""
    parts = path.relative_to(root).parts if path.is_relative_to(root) else ()
    if parts[:2] != (".isdlc", "projects"):
        return
    problem = project_id_problem(parts[2]) if len(parts) == 4 else None
    if len(parts) != 4 or parts[3] != "state.json" or problem is not None:
        shown = clean(_rel(root, path))
        raise WriteRefused(
            problem
            or f"{shown} is not a monorepo project's state file "
            "(.isdlc/projects/<id>/state.json); nothing written"
        )


def open_target(root: Path, path: Path) -> Dir:
    """The directory of the file a decision writes, opened from ``root`` without following a
    link (:func:`~core.files.write.open_dir`); the file itself, if present, must be a regular
    file (not a link, FIFO, device or directory)."""
    _check_project_file(root, path)
    directory = open_dir(root, path.parent)
    try:
        st = directory.lstat(path.name)
    except FileNotFoundError:
        return directory
    except BaseException:
        directory.close()
        raise
    if not stat.S_ISREG(st.st_mode):
        directory.close()
        what = "a symbolic link; not followed" if stat.S_ISLNK(st.st_mode) else "not a regular file"
        raise WriteRefused(f"{clean(path.name)} is {what}, not written")
    return directory


def check_may_write(directory: Dir, name: str, st: os.stat_result) -> None:
    """Refuse a file this user may not write itself: replacing it needs only the directory's
    permission, and would hand the file to this user (:func:`~core.files.write.may_write`)."""
    if not may_write(directory, name, st):
        raise WriteRefused(
            f"{clean(name)}: this user may not write it (mode {stat.S_IMODE(st.st_mode):04o}, "
            f"owner uid {st.st_uid}); replacing it would change its owner or override its "
            "mode, so nothing was written. Decide as its owner, or ask them to grant write "
            "access."
        )


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            return str(path)


def failure(root: Path, path: Path, exc: Exception) -> tuple[Outcome, str]:
    """An exception while deciding, as an outcome: permission problems are the user's to fix
    (``refused-invalid``, exit 2, with what to do), anything else an I/O ``error`` (its
    traceback in the log: it may be a bug)."""
    if isinstance(exc, PermissionError):
        where = Path(exc.filename) if isinstance(exc.filename, str) else path
        shown = clean(_rel(root, where))
        fix = where if os.path.isdir(where) else where.parent  # a directory not opened: itself
        return INVALID, (
            f"{shown}: permission denied; nothing written. This user must be able to read and "
            f"write it and search its directory (chmod u+rwx {clean(_rel(root, fix))})"
        )
    internal_failure(__name__, f"deciding on {path.name!r} raised", exc)
    return ERROR, f"{clean(path.name)}: {type(exc).__name__}: {exc}"
