"""The write-side primitives: every file phasewatch writes goes through these.

An attacker who can create files in a project (a cloned repository, a shared checkout) must not
be able to turn a decision into a write elsewhere. So, for every file phasewatch writes
(``state.json``, ``.tdd-progress.md``, the journal, temp files, the lock):

* its directory is opened once, from the project root, one component at a time with
  ``O_DIRECTORY | O_NOFOLLOW`` (:func:`open_dir`): a linked ``.isdlc`` (or project directory) is
  refused, and one swapped for a link *after* that open changes nothing, because every later
  stat, open, rename, unlink and fsync is made relative to the directory's descriptor
  (:class:`Dir`), never through the path again;
* the last component is opened with ``O_NOFOLLOW`` and must be a regular file (``fstat``), so a
  symlink, FIFO, device or directory planted there is refused, never followed or blocked on
  (``O_NONBLOCK``);
* new files are created with ``O_CREAT | O_EXCL | O_NOFOLLOW``;
* a file is replaced only by a user who may write it (:func:`may_write`), and only when the
  replacement has the file's owner, group and mode (:meth:`Dir.create` checks them).

Every refusal is a :class:`WriteRefused` (an ``OSError``) with a plain ``reason``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from ..text import clean

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class WriteRefused(OSError):
    """A path phasewatch will not write; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _shown(name: str | Path) -> str:
    return clean(str(name))


def _refuse_open(name: str | Path, exc: OSError) -> OSError:
    """The refusal an ``open(O_NOFOLLOW | O_NONBLOCK)`` error means, or the error itself."""
    if exc.errno == errno.ELOOP:
        return WriteRefused(f"{_shown(name)} is a symbolic link; not followed, not written")
    if exc.errno == errno.ENXIO:  # a FIFO with no reader, opened for writing
        return WriteRefused(f"{_shown(name)} is not a regular file; not written")
    if exc.errno == errno.EISDIR:
        return WriteRefused(f"{_shown(name)} is not a regular file (a directory); not written")
    return exc


def _named(exc: OSError, path: Path) -> OSError:
    """``exc`` naming ``path`` in full (an error from a ``dir_fd`` call names only the entry)."""
    if isinstance(exc, WriteRefused) or exc.errno is None:
        return exc
    return type(exc)(exc.errno, exc.strerror, str(path))


def _regular(fd: int, name: str | Path) -> int:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise WriteRefused(f"{_shown(name)} is not a regular file; not written")
    return fd


def mode_allows_write(mode: int, owner: int, group: int, uid: int, gids: Iterable[int]) -> bool:
    """Whether a file's permission bits let ``uid`` (in groups ``gids``) write it: the owner's
    bits for its owner, else the group's for a member, else the others'; root may always."""
    if uid == 0:
        return True
    if uid == owner:
        return bool(mode & stat.S_IWUSR)
    if group in set(gids):
        return bool(mode & stat.S_IWGRP)
    return bool(mode & stat.S_IWOTH)


def may_write(directory: Dir, name: str, st: os.stat_result) -> bool:
    """Whether this process (its effective ids) may write the file ``name`` of ``directory``
    (``st``, its stat): the kernel's answer (``faccessat`` with ``AT_EACCESS``, ACLs counted)
    where it can give one, else :func:`mode_allows_write`."""
    if {os.access} <= os.supports_effective_ids & os.supports_dir_fd:
        try:
            return os.access(name, os.W_OK, dir_fd=directory.fd, effective_ids=True)
        except (NotImplementedError, OSError):
            pass
    gids = {os.getegid(), *os.getgroups()}
    return mode_allows_write(st.st_mode, st.st_uid, st.st_gid, os.geteuid(), gids)


class Dir:
    """A directory opened once (:func:`open_dir`); every operation is relative to its
    descriptor, so the path it was opened by can change (a component swapped for a link)
    without redirecting anything. ``path`` is for messages only. A context manager."""

    __slots__ = ("fd", "path")

    def __init__(self, fd: int, path: Path) -> None:
        self.fd = fd
        self.path = path

    def __enter__(self) -> Dir:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def open(self, name: str, flags: int, mode: int = 0o644) -> int:
        """:func:`open_regular` for the entry ``name``."""
        try:
            fd = os.open(
                name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC, mode, dir_fd=self.fd
            )
        except OSError as exc:
            raise _named(_refuse_open(name, exc), self.path / name) from None
        return _regular(fd, name)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(name, dir_fd=self.fd, follow_symlinks=False)

    def unlink(self, name: str) -> None:
        os.unlink(name, dir_fd=self.fd)

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def names(self) -> list[str]:
        return os.listdir(self.fd)

    def fsync(self) -> None:
        """Make a rename durable (a failure is not an error)."""
        with contextlib.suppress(OSError):
            os.fsync(self.fd)

    def create(self, name: str, data: bytes, like: os.stat_result | None = None) -> None:
        """Create ``name`` (which must not exist, links included), write, fsync; with ``like``
        (the stat of the file it is to replace) give it that file's owner, group and mode, and
        refuse (nothing left behind) when they cannot all be given: a replace must never
        change who owns the file or who may read and write it."""
        fd = self.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            write_all(fd, data)
            if like is not None:
                with contextlib.suppress(OSError):  # not allowed: the check below says so
                    os.fchown(fd, like.st_uid, like.st_gid)
                os.fchmod(fd, stat.S_IMODE(like.st_mode))
                got = os.fstat(fd)
                if (got.st_uid, got.st_gid, stat.S_IMODE(got.st_mode)) != (
                    like.st_uid,
                    like.st_gid,
                    stat.S_IMODE(like.st_mode),
                ):
                    raise WriteRefused(
                        f"this user cannot give a new copy the owner (uid {like.st_uid}, gid "
                        f"{like.st_gid}) and mode ({stat.S_IMODE(like.st_mode):04o}) of the file "
                        "it replaces; nothing written"
                    )
            else:
                os.fchmod(fd, 0o644)
            os.fsync(fd)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                self.unlink(name)
            raise
        os.close(fd)


def open_dir(root: Path, directory: Path) -> Dir:
    """``directory`` (``root`` or below it), opened from ``root`` (taken as named) one component
    at a time with ``O_DIRECTORY | O_NOFOLLOW``: a component that is a link, or not a
    directory, or a ``..``, is refused."""
    root, directory = Path(root), Path(directory)
    try:
        parts = directory.relative_to(root).parts
    except ValueError:
        raise WriteRefused(f"{_shown(directory)}: outside the project; not written") from None
    if any(part in (".", "..") for part in parts):
        raise WriteRefused(f"{_shown(directory)}: a '..' in the path; not written")
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _CLOEXEC
    fd = os.open(root, flags)
    try:
        for part in parts:
            try:
                child = os.open(part, flags | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise WriteRefused(
                        f"{_shown(part)} is a symbolic link or not a directory (it could lead "
                        "outside the project); not followed, nothing written"
                    ) from None
                raise _named(exc, root.joinpath(*parts[: parts.index(part) + 1])) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return Dir(fd, directory)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_whole(fd: int, line: bytes, *, sync: bool = True) -> None:
    """Append ``line`` (ending in a newline) to the file behind ``fd`` (``O_APPEND``, opened
    for reading too) whole or not at all: one ``write``; a short one (a full disk, a file size
    limit) is cut off again (``ftruncate``) and raised as ``OSError(ENOSPC)``. A file whose last
    byte is not a newline (a line cut by a crash, or by a write this could not cut back) gets
    one first, so the new line is never glued onto the cut one."""
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
    except OSError:  # not readable: the line as it is
        pass
    written = os.write(fd, line)
    if written != len(line):
        with contextlib.suppress(OSError):  # (another appender between: the heal above)
            os.ftruncate(fd, os.fstat(fd).st_size - written)
        raise OSError(errno.ENOSPC, f"a short write ({written} of {len(line)} bytes), cut back")
    if sync:
        os.fsync(fd)


def append_line(root: Path, path: Path, line: bytes, *, sync: bool = True) -> None:
    """:func:`append_whole` of ``line`` on an ``O_APPEND`` descriptor of a regular file in
    ``root`` (its directory opened with :func:`open_dir`); ``sync=False`` skips the fsync (the
    line survives a killed process, not a power cut)."""
    with open_dir(root, Path(path).parent) as directory:
        fd = directory.open(Path(path).name, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    try:
        append_whole(fd, line, sync=sync)
    finally:
        os.close(fd)


def fsync_dir(directory: Path | Dir) -> None:
    """Make a rename durable; a directory that cannot be opened is not an error."""
    if isinstance(directory, Dir):
        directory.fsync()
        return
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
