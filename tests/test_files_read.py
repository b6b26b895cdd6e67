"""core.files.read: the one safe whole-file read (issue 13 items 6 and 9)."""

import errno
import os
import socket
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from phasewatch.core.files import read as read_mod
from phasewatch.core.files.read import MAX_BYTES, ReadRefused, read_regular


def refused(path: Path, **kwargs) -> ReadRefused:
    with pytest.raises(ReadRefused) as info:
        read_regular(path, **kwargs)
    return info.value


def run_bounded(fn, seconds: float = 10.0):
    """Run ``fn`` in a thread: a hang fails the test instead of hanging the suite."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the read hung"
    if "error" in box:
        raise box["error"]
    return box["value"]


def test_reads_a_regular_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(b'{"a": 1}\n')
    data, st = read_regular(path)
    assert data == b'{"a": 1}\n'
    assert st.st_size == len(data)
    assert st.st_ino == path.stat().st_ino


def test_empty_file_is_empty_bytes(tmp_path):
    path = tmp_path / "empty"
    path.write_bytes(b"")
    assert read_regular(path)[0] == b""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    with pytest.raises(ReadRefused) as info:
        run_bounded(lambda: read_regular(fifo))
    assert info.value.reason == "not a regular file (a FIFO)"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused_not_read():
    with pytest.raises(ReadRefused) as info:
        run_bounded(lambda: read_regular(Path("/dev/zero")))
    assert "character device" in info.value.reason


def test_symlink_refused_when_not_following(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_bytes(b"secret")
    link = tmp_path / "state.json"
    link.symlink_to(target)
    assert refused(link, follow_symlinks=False).reason == "is a symbolic link"
    assert read_regular(link)[0] == b"secret"  # followed by default


def test_symlink_loop(tmp_path):
    link = tmp_path / "loop"
    link.symlink_to(link)
    assert refused(link).reason == "too many symbolic links"


def test_directory_is_refused(tmp_path):
    exc = refused(tmp_path)
    assert exc.reason in {"not a regular file (a directory)", "is a directory"}


def test_socket_is_refused(tmp_path):
    path = tmp_path / "s"
    if len(str(path)) > 100:
        pytest.skip("socket path too long")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        exc = run_bounded(lambda: refused(path))
    finally:
        sock.close()
    assert "not a regular file" in exc.reason


def test_too_large_by_size_is_refused_unread(tmp_path, monkeypatch):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 101)
    reads = []
    real_read = os.read
    monkeypatch.setattr(read_mod.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    exc = refused(path, cap=100)
    assert exc.reason == "too large (101 bytes; the limit is 100 bytes)"
    assert reads == []
    assert read_regular(path, cap=101)[0] == b"x" * 101


def test_sparse_file_over_default_cap_is_refused(tmp_path):
    path = tmp_path / "huge"
    with open(path, "wb") as fh:
        fh.truncate(MAX_BYTES + 1)
    assert refused(path).reason == "too large (32 MiB; the limit is 32 MiB)"


def test_reads_at_most_cap_plus_one(tmp_path, monkeypatch):
    """A file that grows past the cap after the size check is cut at cap + 1 and refused."""
    path = tmp_path / "growing"
    path.write_bytes(b"x" * 10)
    real_fstat = os.fstat
    monkeypatch.setattr(
        read_mod.os,
        "fstat",
        lambda fd: os.stat_result((*real_fstat(fd)[:6], 1, *real_fstat(fd)[7:])),
    )
    asked = []
    real_read = os.read
    monkeypatch.setattr(read_mod.os, "read", lambda fd, n: asked.append(n) or real_read(fd, n))
    assert refused(path, cap=4).reason == "too large (over 4 bytes)"
    assert sum(asked) <= 5


def test_missing_file(tmp_path):
    exc = refused(tmp_path / "nope")
    assert exc.reason == "file not found"
    assert exc.missing and exc.errno == errno.ENOENT
    assert isinstance(exc, OSError)


def test_parent_not_a_directory(tmp_path):
    (tmp_path / "file").write_bytes(b"")
    assert refused(tmp_path / "file" / "x").reason == "a parent is not a directory"


def test_file_vanishing_after_open_is_read_again(tmp_path, monkeypatch):
    """The path no longer names what was read: read again, and report what is there now."""
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    real_open = os.open

    def open_then_unlink(p, flags, *args):
        fd = real_open(p, flags, *args)
        if Path(p) == path and path.exists():
            path.unlink()
        return fd

    monkeypatch.setattr(read_mod.os, "open", open_then_unlink)
    assert refused(path).missing


def test_file_replaced_after_open_reads_the_new_one(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_bytes(b"old")
    real_open = os.open
    calls = []

    def open_then_replace(p, flags, *args):
        fd = real_open(p, flags, *args)
        calls.append(p)
        if len(calls) == 1:
            tmp = tmp_path / "tmp"
            tmp.write_bytes(b"new!")
            os.replace(tmp, path)
        return fd

    monkeypatch.setattr(read_mod.os, "open", open_then_replace)
    assert read_regular(path)[0] == b"new!"
    assert len(calls) == 2


def test_change_during_read_is_retried_then_refused(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_bytes(b"0123456789")
    real_read = os.read
    n = iter(range(1000))

    def read_then_write(fd, size):
        chunk = real_read(fd, size)
        if chunk:  # the owner rewrites it (same size) after every read
            path.write_bytes(b"%010d" % next(n))
        return chunk

    monkeypatch.setattr(read_mod.os, "read", read_then_write)
    monkeypatch.setattr(read_mod, "RETRY_DELAY_S", 0)
    assert refused(path).reason == "changed while reading"


def test_one_change_during_read_returns_the_new_content(tmp_path, monkeypatch):
    path = tmp_path / "state.json"
    path.write_bytes(b"first")
    real_read = os.read
    done = []

    def read_then_write_once(fd, size):
        chunk = real_read(fd, size)
        if not done:
            done.append(1)
            path.write_bytes(b"second")
        return chunk

    monkeypatch.setattr(read_mod.os, "read", read_then_write_once)
    assert read_regular(path)[0] == b"second"


def test_same_stamp_rewrite_of_recent_file_is_caught(tmp_path, monkeypatch):
    """A rewrite in the same timestamp tick (stamp unchanged) is caught by the confirming read."""
    path = tmp_path / "state.json"
    path.write_bytes(b"AAAA")
    st = path.stat()
    real_read = os.read
    done = []

    def read_then_rewrite_same_stamp(fd, size):
        chunk = real_read(fd, size)
        if not done:
            done.append(1)
            path.write_bytes(b"BBBB")
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        return chunk

    monkeypatch.setattr(read_mod.os, "read", read_then_rewrite_same_stamp)
    monkeypatch.setattr(
        read_mod, "_stamp", lambda s: (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns)
    )
    assert read_regular(path)[0] == b"BBBB"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads anything")
def test_permission_denied(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(b"{}")
    path.chmod(0)
    try:
        exc = refused(path)
    finally:
        path.chmod(0o644)
    assert exc.reason == "permission denied" and exc.errno == errno.EACCES


def test_permission_denied_reason(tmp_path, monkeypatch):
    """The same refusal, simulated (the suite may run as root, which reads anything)."""

    def denied(*_args, **_kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(read_mod.os, "open", denied)
    exc = refused(tmp_path / "state.json")
    assert exc.reason == "permission denied" and exc.errno == errno.EACCES


def test_unknown_os_error_reason_is_plain(tmp_path, monkeypatch):
    def io_error(*_args, **_kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(read_mod.os, "open", io_error)
    assert refused(tmp_path / "x").reason == "input/output error"


def test_reason_never_names_the_path(tmp_path):
    hostile = tmp_path / "\x1b]52;c;aGk=\x07[bold]x"
    exc = refused(hostile)
    assert exc.reason == "file not found"
    assert str(exc) == "file not found"


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=5000), cap=st.integers(min_value=0, max_value=6000))
def test_property_whole_content_or_too_large(tmp_path, data, cap):
    path = tmp_path / "f"
    path.write_bytes(data)
    if len(data) > cap:
        assert refused(path, cap=cap).reason.startswith("too large")
    else:
        got, st = read_regular(path, cap=cap)
        assert got == data and st.st_size == len(data)
