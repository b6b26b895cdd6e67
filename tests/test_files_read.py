"""core.files.read.read_regular: regular files only, never blocks, capped, torn-read safe;
and core.sources.read_json parsing like the owner's JSON.parse (BOM, NaN are errors)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.files.read import ReadRefused, read_regular
from phasewatch.core.sources import read_json


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


def test_torn_writes_never_parse_as_a_state(tmp_path):
    """An owner truncating and rewriting between two versions of different lengths: every
    document read is one of the versions whole, never a blend of two."""
    p = tmp_path / "state.json"
    versions = [json.dumps({"state_version": i, "pad": "x" * (i % 7) * 50}, indent=2)
                for i in range(50)]
    p.write_text(versions[0])
    stop = threading.Event()

    def owner():
        i = 0
        while not stop.is_set():
            i = (i + 1) % len(versions)
            with open(p, "r+b") as fh:  # truncate, then write: not atomic, as writeState
                fh.truncate(0)
                fh.write(versions[i].encode())

    thread = threading.Thread(target=owner, daemon=True)
    thread.start()
    seen = 0
    try:
        for _ in range(2000):
            r = read_json(p, retries=2, delay=0)
            if r.ok:
                seen += 1
                assert r.data is not None
                assert json.dumps(r.data, indent=2) in versions
            else:
                assert r.status in {"torn", "invalid"}
    finally:
        stop.set()
        thread.join(5)
    assert seen > 0


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


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300))
def test_read_regular_returns_exactly_what_is_on_disk(tmp_path_factory, data):
    p = tmp_path_factory.mktemp("r") / "f"
    p.write_bytes(data)
    assert read_regular(p)[0] == data
