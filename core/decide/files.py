"""The file plumbing of a decision: temp files, the atomic replace and its look-again, and where a write may go."""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..files.read import MAX_BYTES, read_fd, read_regular
from ..files.write import (
    WriteRefused,
    check_target,
    create_exclusive,
    fsync_dir,
    inside,
    open_regular,
)
from ..sources import project_id_problem
from ..text import clean
from .codec import reread
from .outcomes import ERROR, INVALID, SETTLE_SECONDS, STALE_TEMP_SECONDS, Outcome
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


def clean_stale_temps(path: Path) -> list[Path]:
    """Remove this file's temps left by processes that are gone (or older than ten minutes)."""
    removed = []
    prefix, suffix = f".{path.name}.phasewatch-", ".tmp"
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        pid_text = name[len(prefix) : -len(suffix)]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
        except OSError:
            continue
        if pid == os.getpid() or not _pid_alive(pid) or old:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


_fsync_dir = fsync_dir  # a module global, so tests can interpose on the directory fsync


def _read_whole(fd: int) -> bytes:
    """The whole file behind ``fd`` (a regular file) from its start, at most the cap + 1 bytes."""
    return read_fd(fd, MAX_BYTES + 1, offset=0)


def _read_bytes(path: Path) -> bytes:
    """A file the writer is about to replace: never through a link, never a FIFO or device."""
    return read_regular(path, follow_symlinks=False)[0]


def _write_temp(path: Path, data: bytes, st: os.stat_result | None) -> Path:
    tmp = temp_path(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # a link planted at the temp name is removed, never followed
    mode = stat.S_IMODE(st.st_mode) if st else 0o644
    owner = (st.st_uid, st.st_gid) if st is not None else None
    create_exclusive(tmp, data, mode, owner)
    return tmp


@dataclass(slots=True)
class _Replace:
    """How a replace went. ``ok``: the file holds our bytes. ``changed``: nothing written (the
    file moved before the rename). ``overwritten``: another writer replaced our bytes after the
    rename. ``withdrawn`` / ``lost``: another writer's write landed on the inode we replaced;
    its bytes were put back (our decision withdrawn) or could not be (it wrote again).
    ``current`` is what the file held once things settled (None if unreadable)."""

    status: Literal["ok", "changed", "overwritten", "withdrawn", "lost"]
    detail: str = ""
    current: bytes | None = None


def _atomic_replace(
    path: Path,
    original: bytes,
    original_stat: os.stat_result,
    new: bytes,
    valid: Callable[[bytes], bool],
    settle: float = SETTLE_SECONDS,
    intent: Callable[[], None] | None = None,
) -> _Replace:
    """Steps 4 and 5: temp + fsync, last look, ``os.replace``, dir fsync, look again.

    The last look (same inode, same bytes) shrinks the window in which an owner's non-atomic
    write could be lost to microseconds. An owner write that still lands on the inode we
    replaced is seen right after the rename (its content moved; stamps are too coarse), and the
    owner's bytes are put back at once when the file still holds ours. Then, ``settle`` seconds
    after the rename, the file is read again: a writer that read the file before our rename and
    wrote after it shows up here (``overwritten``) and the caller decides, from the content,
    whether the decision survived.
    """
    if intent is not None:  # journaled before the temp: the last look and the rename stay adjacent
        intent()
    tmp = _write_temp(path, new, original_stat)
    try:
        old_fd = open_regular(path, os.O_RDONLY)
    except OSError:
        os.unlink(tmp)
        return _Replace("changed", "the file disappeared or is no longer a regular file")
    try:
        if os.fstat(old_fd).st_ino != original_stat.st_ino or _read_whole(old_fd) != original:
            os.unlink(tmp)
            return _Replace("changed", "the file changed while the decision was being written")
        os.replace(tmp, path)
        replaced_at = time.monotonic()
        orphan = None
        if _read_whole(old_fd) != original:  # an owner write is landing on the replaced inode
            orphan = _restore_orphan(path, old_fd, new, valid)
        _fsync_dir(path.parent)
    finally:
        os.close(old_fd)
    time.sleep(max(0.0, settle - (time.monotonic() - replaced_at)))
    current = _settled_bytes(path, valid)
    if orphan is not None:
        orphan.current = current
        return orphan
    if current != new:
        return _Replace("overwritten", "another writer replaced the file after our write", current)
    return _Replace("ok", current=current)


def _settled_bytes(path: Path, valid: Callable[[bytes], bool], attempts: int = 20) -> bytes | None:
    """The file's bytes once its writer has finished (incomplete reads retried for ~40 ms)."""
    data = None
    for _ in range(attempts):
        data = _read_bytes_or_none(path)
        if data is None or valid(data):
            return data
        time.sleep(0.002)
    return data


def _read_bytes_or_none(path: Path) -> bytes | None:
    try:
        return _read_bytes(path)
    except OSError:
        return None


def _restore_orphan(
    path: Path, old_fd: int, new: bytes, valid: Callable[[bytes], bool]
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
    tmp = _write_temp(path, theirs, os.fstat(old_fd))  # before the look: look and rename adjacent
    if _bytes_now(path) != new:
        os.unlink(tmp)
        return _Replace(
            "lost",
            f"another writer wrote during the replace ({_name_write(theirs)}) and again after "
            "it; that write may be lost",
        )
    os.replace(tmp, path)
    return _Replace(
        "withdrawn",
        f"another writer wrote during the replace ({_name_write(theirs)}); its write was put "
        "back and the decision withdrawn",
    )


def _bytes_now(path: Path) -> bytes | None:
    """One immediate read (no retry, no pause), for a last look right before a rename."""
    try:
        fd = open_regular(path, os.O_RDONLY)
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
    """The nearest ancestor of ``path`` (as given, no link resolved) holding a ``.isdlc`` entry;
    else its directory. Unlike ``find_root`` nothing is resolved first, so a ``.isdlc`` that
    links outside the project cannot move the root there (and is then refused as outside)."""
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


def _check_writable(root: Path, path: Path, journal: Path) -> None:
    """Refuse a target (or journal) that is a link, not a regular file, or outside the root."""
    _check_project_file(root, path)
    check_target(root, path, may_be_missing=True)
    if not inside(root, journal):
        raise WriteRefused(f"{journal.name}: resolves outside the project; nothing written")




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
    (``refused-invalid``, exit 2, with what to do), anything else an I/O ``error``."""
    if isinstance(exc, PermissionError):
        where = Path(exc.filename) if isinstance(exc.filename, str) else path
        shown = clean(_rel(root, where))
        return INVALID, (
            f"{shown}: permission denied; nothing written. This user must be able to read and "
            f"write it and search its directory (chmod u+rwx {clean(_rel(root, where.parent))})"
        )
    return ERROR, f"{clean(path.name)}: {type(exc).__name__}: {exc}"
