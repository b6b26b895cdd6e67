"""A shared read (``read_json(share=True)``) trusts a file's stamp only once it has settled: a
second write in the same clock tick, of the same size and in place, leaves size, mtime and
inode as they were, and must still be read (core.sources.RACY_NS)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from phasewatch.core.sources import RACY_NS, read_json


def _write_in_place(path: Path, doc: dict, mtime_ns: int) -> None:
    with path.open("r+b") as fh:  # the owner's writeFileSync: truncate and write, same inode
        fh.truncate(0)
        fh.write(json.dumps(doc).encode())
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_write_in_the_same_tick_is_read(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{}")
    tick = time.time_ns()
    _write_in_place(path, {"state_version": 41}, tick)
    assert read_json(path, share=True).data == {"state_version": 41}
    _write_in_place(path, {"state_version": 42}, tick)  # same size, mtime and inode
    assert read_json(path, share=True).data == {"state_version": 42}


def test_a_settled_file_is_shared(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{}")
    _write_in_place(path, {"state_version": 41}, time.time_ns() - 10 * RACY_NS)
    first = read_json(path, share=True)
    assert first.settled and read_json(path, share=True) is first
