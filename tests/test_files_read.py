"""core.files.read.read_regular: regular files only, never blocks, capped, torn-read safe;
and core.sources.read_json parsing like the owner's JSON.parse (BOM, NaN are errors)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.files import read as read_mod
from phasewatch.core.files.read import MAX_BYTES, ReadRefused, read_regular
from phasewatch.core.sources import read_json

from tests import torn_writer, unprivileged


def refused(path: Path, **kwargs) -> ReadRefused:
    with pytest.raises(ReadRefused) as err:
        read_regular(path, **kwargs)
    assert err.value.reason and "\x1b" not in err.value.reason
    return err.value


def test_a_regular_file_is_read_with_its_stat(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"hello")
    data, st = read_regular(p)
    assert data == b"hello" and st.st_size == 5


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(refused(fifo).kind), daemon=True)
    worker.start()
    worker.join(5)
    assert result == ["not_regular"], "reading a FIFO blocked or was not refused"


def test_devices_and_directories_are_refused(tmp_path):
    assert refused(Path("/dev/zero")).kind == "not_regular"
    assert refused(tmp_path).kind == "not_regular"


def test_missing_and_too_large(tmp_path):
    assert refused(tmp_path / "nope").kind == "missing"
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    assert refused(big, cap=100).kind == "too_large"
    assert read_regular(big, cap=100, truncate=True)[0] == b"x" * 100


def test_a_symlink_is_followed_only_when_asked(tmp_path):
    target = tmp_path / "target"
    target.write_bytes(b"data")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert read_regular(link)[0] == b"data"
    assert refused(link, follow_symlinks=False).kind == "symlink"


def test_a_file_that_keeps_changing_is_refused_not_half_read(tmp_path, monkeypatch):
    p = tmp_path / "f"
    p.write_bytes(b"a" * 10)
    real_read = os.read

    def read_then_grow(fd, n):
        chunk = real_read(fd, n)
        if len(chunk) > 1:  # once a pass (not on the 1-byte tail it adds itself)
            with open(p, "ab") as fh:  # the owner appends while we read
                fh.write(b"b")
        return chunk

    monkeypatch.setattr(os, "read", read_then_grow)
    assert refused(p, attempts=3).kind == "changed"


def slow_reads(fd: int, n: int, *, real_read=os.read) -> bytes:
    """``os.read`` as a loaded machine or a large file does it: in parts, with pauses."""
    time.sleep(0.00005)
    return real_read(fd, min(n, 1024))


def test_torn_writes_never_parse_as_a_state(tmp_path, monkeypatch):
    """Another process (no GIL between us) truncates then writes 5,000 times, each document as
    long as the last, while we read slowly, in parts: every ``ok`` read is one whole document,
    never the start of write N with the end of write N+1 (which would parse: a mixed ``pad``).
    A reader without the before/after checks fails this within a few hundred reads."""
    monkeypatch.setattr(os, "read", slow_reads)
    p = tmp_path / "state.json"
    whole = {json.dumps(doc, indent=2) for doc in torn_writer.documents()}
    p.write_bytes(b"{}")
    writer = subprocess.Popen([sys.executable, torn_writer.__file__, str(p), "5000"])
    statuses: dict[str, int] = {}
    try:
        while writer.poll() is None:
            r = read_json(p, retries=0)
            statuses[r.status] = statuses.get(r.status, 0) + 1
            if r.ok and r.data != {}:
                assert json.dumps(r.data, indent=2) in whole, f"torn read parsed ({statuses})"
    finally:
        writer.kill()
        writer.wait()
    assert writer.returncode == 0
    assert set(statuses) <= {"ok", "torn"}, statuses


def test_a_same_size_rewrite_within_one_tick_is_caught(tmp_path, monkeypatch):
    """Where timestamps are coarse a rewrite can keep size and mtime: the confirming second read
    of a recently modified file catches it (ctime cannot be set back, so it is faked here)."""
    p = tmp_path / "state.json"
    p.write_bytes(b"AAAA")
    st0 = p.stat()
    real_read, real_fstat, done = os.read, os.fstat, []

    def read_then_rewrite(fd, n):
        chunk = real_read(fd, n)
        if not done:
            done.append(1)
            p.write_bytes(b"BBBB")
            os.utime(p, ns=(st0.st_atime_ns, st0.st_mtime_ns))
        return chunk

    def fstat_old_ctime(fd):
        st = real_fstat(fd)
        fields = list(st[:10])
        return os.stat_result(fields, {"st_mtime_ns": st.st_mtime_ns, "st_ctime_ns": 0})

    monkeypatch.setattr(os, "read", read_then_rewrite)
    monkeypatch.setattr(read_mod.os, "fstat", fstat_old_ctime)
    real_stat = os.stat

    def stat_old_ctime(path, **kwargs):
        st = real_stat(path, **kwargs)
        return os.stat_result(list(st[:10]), {"st_mtime_ns": st.st_mtime_ns, "st_ctime_ns": 0})

    monkeypatch.setattr(read_mod.os, "stat", stat_old_ctime)
    assert read_regular(p)[0] == b"BBBB"


def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s"
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
        assert refused(path).kind in {"not_regular", "unreadable"}
    finally:
        sock.close()


def test_too_large_is_refused_before_reading(tmp_path, monkeypatch):
    p = tmp_path / "big"
    with open(p, "wb") as fh:
        fh.truncate(MAX_BYTES + 1)  # sparse: 32 MiB + 1 without writing them
    reads = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    assert refused(p).kind == "too_large"
    assert reads == []


def test_a_file_replaced_after_the_open_reads_the_new_one(tmp_path, monkeypatch):
    p = tmp_path / "state.json"
    p.write_bytes(b"old")
    real_open, opens = os.open, []

    def open_then_replace(path, flags, *args):
        fd = real_open(path, flags, *args)
        if Path(path) == p and not opens:
            opens.append(1)
            (tmp_path / "tmp").write_bytes(b"new!")
            os.replace(tmp_path / "tmp", p)
        return fd

    monkeypatch.setattr(os, "open", open_then_replace)
    assert read_regular(p)[0] == b"new!"


def test_permission_denied_is_plain(tmp_path, monkeypatch):
    """Simulated (the suite may run as root, which reads anything)."""

    def denied(*_args, **_kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)
    err = refused(tmp_path / "state.json")
    assert err.kind == "unreadable" and err.reason == "permission denied"


def test_permission_denied_for_real():
    """Run unprivileged (as ``nobody`` when the suite runs as root, which reads anything)."""
    work = unprivileged.workdir()
    try:
        script = (
            "import os, sys\n"
            "from pathlib import Path\n"
            "from phasewatch.core.files.read import ReadRefused, read_regular\n"
            "p = Path(sys.argv[1]) / 'state.json'\n"
            "p.write_bytes(b'{}'); p.chmod(0)\n"
            "try:\n"
            "    read_regular(p)\n"
            "    print('read')\n"
            "except ReadRefused as exc:\n"
            "    print(exc.kind, exc.reason, sep='|')\n"
            "p.chmod(0o644)\n"
        )
        proc = unprivileged.run(script, str(work))
        assert proc.stdout.strip() == "unreadable|permission denied", proc.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.mark.parametrize(
    "raw",
    [b'\xef\xbb\xbf{"state_version": 1}', b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}'],
    ids=["bom", "nan", "infinity", "minus-infinity"],
)
def test_what_json_parse_rejects_is_invalid(tmp_path, raw):
    p = tmp_path / "state.json"
    p.write_bytes(raw)
    r = read_json(p, retries=0, delay=0)
    assert r.status == "invalid" and "JSON.parse" in (r.error or "")


def test_a_fifo_state_is_unreadable_not_a_hang(tmp_path):
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    r = read_json(fifo, retries=0)
    assert r.status == "unreadable" and "regular file" in (r.error or "")


@settings(max_examples=60)
@given(st.binary(max_size=300))
def test_read_regular_returns_exactly_what_is_on_disk(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("r") / "f"
    p.write_bytes(data)
    assert read_regular(p)[0] == data
