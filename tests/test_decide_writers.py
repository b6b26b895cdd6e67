"""Two phasewatch writers (the dashboard and a command, two terminals) take turns: the lock
among phasewatch's own writers (core.files.write.writer_lock) and what it guarantees."""

from __future__ import annotations

import json
import multiprocessing as mp
from pathlib import Path

import pytest
from phasewatch.core import decide
from phasewatch.core.files.write import WriteRefused, writer_lock

from tests.test_decide_support import feature_state, journal_entries, write_state


def _hold(directory: str, ready, release) -> None:
    with writer_lock(Path(directory)):
        ready.set()
        release.wait(10)


def test_a_lock_held_by_another_process_refuses_after_its_timeout(tmp_path: Path) -> None:
    ctx = mp.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(str(tmp_path), ready, release))
    holder.start()
    try:
        assert ready.wait(20)
        with pytest.raises(WriteRefused, match="another phasewatch"), writer_lock(tmp_path, 0.2):
            pass
    finally:
        release.set()
        holder.join(10)
    with writer_lock(tmp_path, 5):  # free again once the other writer is done
        pass


def _decide(path: str, seen: dict, start, out) -> None:
    start.wait(10)
    result = decide.decide_review(Path(path), "continue", seen=seen, who="proc", via="test")
    out.put(result.outcome)


def test_two_processes_answering_the_same_gate_apply_it_once(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    seen = json.loads(path.read_text())
    ctx = mp.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_decide, args=(str(path), seen, start, out)) for _ in range(2)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(30)
    outcomes = sorted(out.get(timeout=5) for _ in procs)
    assert outcomes == ["applied", "refused-conflict"]
    assert json.loads(path.read_text())["state_version"] == seen["state_version"] + 1
    assert [e["outcome"] for e in journal_entries(tmp_path)].count("applied") == 1
