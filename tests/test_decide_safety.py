"""The writer under attack (issue 13): links, FIFOs, devices and a second phasewatch writer.

Every case checks the outcome *and* that nothing outside the project changed; a hang would show
as the test timing out (each FIFO case opens non-blocking, so it returns at once or not at all).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from phasewatch.core import decide
from phasewatch.core.files.lock import lock_path

from tests.helpers.decide import feature_state, load, write_state

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX links and FIFOs")

PLAN = "# TDD Task: x\n\n**Last Updated:** 2026-01-01\n\n## Slices\n- one\n"


def _outside(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_bytes(b"precious\n")
    return victim


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    write_state(root, feature_state())
    return root


def test_state_linked_outside_is_refused(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    victim.write_text(json.dumps(feature_state(), indent=2))
    before = victim.read_bytes()
    root = _project(tmp_path)
    state = root / ".isdlc" / "state.json"
    state.unlink()
    state.symlink_to(victim)
    result = decide.decide_review(state, "continue")
    assert result.outcome == "refused-invalid" and "symbolic link" in result.message
    assert victim.read_bytes() == before and state.is_symlink()


def test_isdlc_directory_linked_outside_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write_state(elsewhere, feature_state())
    before = (elsewhere / ".isdlc" / "state.json").read_bytes()
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".isdlc").symlink_to(elsewhere / ".isdlc")
    result = decide.decide_review(root / ".isdlc" / "state.json", "continue")
    assert result.outcome == "refused-invalid" and "outside the project" in result.message
    assert (elsewhere / ".isdlc" / "state.json").read_bytes() == before
    assert sorted(p.name for p in (elsewhere / ".isdlc").iterdir()) == ["state.json"]


def test_journal_linked_outside_is_not_appended(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    root = _project(tmp_path)
    (root / ".isdlc" / decide.JOURNAL_NAME).symlink_to(victim)
    before = (root / ".isdlc" / "state.json").read_bytes()
    result = decide.decide_review(root / ".isdlc" / "state.json", "continue")
    assert result.outcome == "refused-invalid"  # a decision it cannot record is not made
    assert "journal" in result.message and "symbolic link" in result.message
    assert (root / ".isdlc" / "state.json").read_bytes() == before
    assert victim.read_bytes() == b"precious\n"


def test_temp_name_linked_outside_is_not_written(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    root = _project(tmp_path)
    state = root / ".isdlc" / "state.json"
    decide.temp_path(state).symlink_to(victim)
    result = decide.decide_review(state, "continue")
    assert result.outcome == "applied" and load(state)["state_version"] == 42
    assert victim.read_bytes() == b"precious\n"


def test_lock_file_linked_outside_refuses_the_write(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    root = _project(tmp_path)
    lock_path(root).symlink_to(victim)
    before = (root / ".isdlc" / "state.json").read_bytes()
    result = decide.decide_review(root / ".isdlc" / "state.json", "continue")
    assert result.outcome != "applied"
    assert (root / ".isdlc" / "state.json").read_bytes() == before
    assert victim.read_bytes() == b"precious\n"


def test_progress_linked_outside_is_not_approved(tmp_path: Path) -> None:
    victim = _outside(tmp_path)
    victim.write_text(PLAN)
    (tmp_path / "proj").mkdir()
    progress = tmp_path / "proj" / ".tdd-progress.md"
    progress.symlink_to(victim)
    result = decide.decide_approval(progress)
    assert result.outcome == "refused-invalid" and "symbolic link" in result.message
    assert victim.read_text() == PLAN and progress.is_symlink()


@pytest.mark.parametrize("name", ["state", "journal", "lock"])
def test_fifo_at_each_state_side_path_never_hangs(tmp_path: Path, name: str) -> None:
    root = _project(tmp_path)
    state = root / ".isdlc" / "state.json"
    target = {"state": state, "journal": root / ".isdlc" / decide.JOURNAL_NAME}.get(
        name, lock_path(root)
    )
    if target.exists():
        target.unlink()
    os.mkfifo(target)
    result = decide.decide_review(state, "continue")
    assert result.outcome == "refused-invalid" and "regular file" in result.message


def test_fifo_progress_never_hangs(tmp_path: Path) -> None:
    progress = tmp_path / ".tdd-progress.md"
    os.mkfifo(progress)
    result = decide.decide_approval(progress)
    assert result.outcome == "refused-invalid" and "regular file" in result.message


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_dev_zero_is_neither_read_nor_written(tmp_path: Path) -> None:
    root = _project(tmp_path)
    state = root / ".isdlc" / "state.json"
    state.unlink()
    state.symlink_to("/dev/zero")
    result = decide.decide_review(state, "continue")
    assert result.outcome == "refused-invalid"
    progress = tmp_path / ".tdd-progress.md"
    progress.symlink_to("/dev/zero")
    assert decide.decide_approval(progress).outcome == "refused-invalid"


# Two phasewatch writers in two processes, each deciding `counter` bumps as fast as it can.
# Without the cross-process lock both could read version V and both report applied at V + 1.
WRITER = r"""
import sys
from phasewatch.core import decide
path, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def bump(doc):
    doc["counters"][tag] = doc["counters"].get(tag, 0) + 1
    return "bumped"
applied = 0
for _ in range(n):
    r = decide.apply_update(path, bump, action="bump " + tag, settle=0)
    applied += r.outcome == "applied"
    assert r.outcome == "applied", r.message
print(applied)
"""


def test_two_writers_in_two_processes_never_lose_a_decision(tmp_path: Path) -> None:
    state = feature_state()
    state["counters"] = {}
    path = write_state(tmp_path, state)
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    n = 40
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(path), str(n), tag], stdout=subprocess.PIPE
        )
        for tag in ("a", "b")
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert [int(o) for o in outs] == [n, n]
    final = load(path)
    assert final["counters"] == {"a": n, "b": n}
    assert final["state_version"] == state["state_version"] + 2 * n
    applied = [e for e in decide.read_journal(tmp_path / ".isdlc" / decide.JOURNAL_NAME)]
    versions = sorted(e["version_after"] for e in applied)
    assert versions == list(range(state["state_version"] + 1, final["state_version"] + 1))


def test_a_second_press_after_our_own_write_is_already_applied(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state(gate="gate_presented"))
    seen = load(path)
    first = decide.decide_review(path, "review", seen=seen)
    assert first.outcome == "applied" and first.version_after == 42
    before = path.read_bytes()
    for _ in range(2):  # the same stale view pressed again (and again)
        again = decide.decide_review(path, "review", seen=seen)
        assert again.outcome == "applied" and again.message.startswith("already applied")
        assert again.version_after == 42 and path.read_bytes() == before
    other = decide.decide_review(path, "continue", seen=seen)  # a different decision: conflict
    assert other.outcome == "refused-conflict"
