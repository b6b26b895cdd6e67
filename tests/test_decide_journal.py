"""The decision journal under faults (issue 41 item 5, issue 40 item 8): a line is written
whole or not at all; a cut line is never glued to the next; the journal rotates before it
outgrows what is read; one that cannot be read is said, never taken as empty; a writer
killed between its rename and its outcome line blocks nothing once it is gone, and its
repair can still be undone from the intent line and the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from phasewatch.core import decide
from phasewatch.core.decide import journal as journal_module
from phasewatch.core.decide.repair import in_flight
from phasewatch.core.files.lock import lock_held, writer_lock
from phasewatch.core.files.write import append_whole
from phasewatch.tui import cli

from tests.helpers.repair import PHASES, state, stringify

pytestmark = pytest.mark.skipif(os.name != "posix", reason="rlimits, flock, kill -9")


@pytest.fixture(autouse=True)
def no_project_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def drifted() -> dict[str, Any]:
    doc = state(2)
    doc["current_phase"] = PHASES[1]  # V9-B: a location repair sets it to PHASES[2]
    return doc


def project(root: Path) -> tuple[Path, Path]:
    (root / ".isdlc").mkdir(exist_ok=True)
    path = root / ".isdlc" / "state.json"
    path.write_text(stringify(drifted()), encoding="utf-8")
    return path, root / ".isdlc" / decide.JOURNAL_NAME


def lines(journal: Path) -> list[dict[str, Any]]:
    """Every line of the file, each of which must parse (nothing glued, nothing cut)."""
    raw = journal.read_bytes()
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.decode().splitlines()]


def repair(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["repair", *argv])
    return code, capsys.readouterr().out


def filler(n: int) -> bytes:
    """``n`` bytes of old journal lines (another file's refusals)."""
    one = json.dumps({"ts": "2026-01-01T00:00:00.000Z", "target": "other.json",
                      "outcome": "refused-invalid", "message": "x" * 200}).encode() + b"\n"  # fmt: skip
    return one * (n // len(one) + 1)


# ----------------------------------------------------------------------------- whole lines

CHILD = textwrap.dedent(
    """
    import os, resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit is cut, not fatal
    resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), resource.RLIM_INFINITY))
    {body}
    """
)


def run_child(body: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", CHILD.format(body=textwrap.dedent(body)), *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("room", [0, 1, 50, 299, 300])
def test_append_whole_writes_the_line_or_nothing(tmp_path: Path, room: int) -> None:
    """A file size limit ``room`` bytes past the end (a disk that fills up): a 300-byte line
    is in the file whole, or not at all (cut back), and the failure is an error."""
    journal = tmp_path / "j.jsonl"
    journal.write_bytes(filler(4000))
    before = journal.read_bytes()
    line = json.dumps({"message": "y" * 284}).encode() + b"\n"
    assert len(line) == 300
    got = run_child(
        """
        import json
        from phasewatch.core.files.write import append_whole
        fd = os.open(sys.argv[1], os.O_RDWR | os.O_APPEND)
        try:
            append_whole(fd, json.dumps({"message": "y" * 284}).encode() + b"\\n")
            print("written")
        except OSError as exc:
            print("refused", exc.errno)
        """,
        str(journal),
        str(len(before) + room),
    )
    assert got.stderr == ""
    if room >= len(line):
        assert got.stdout.strip() == "written" and journal.read_bytes() == before + line
    else:
        assert got.stdout.split()[0] == "refused" and journal.read_bytes() == before


def test_a_cut_line_is_never_glued_to_the_next(tmp_path: Path, capsys) -> None:
    """A line cut by a crash (no newline): the next decision's lines start on a line of
    their own and are read."""
    _, journal = project(tmp_path)
    journal.write_bytes(b'{"ts": "2026-01-01T00:00:00.000Z", "outco')
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code == 0, out
    text = journal.read_bytes().decode().splitlines()
    assert text[0] == '{"ts": "2026-01-01T00:00:00.000Z", "outco'
    assert [json.loads(t)["outcome"] for t in text[1:]] == ["intent", "applied"]
    assert [e["outcome"] for e in decide.read_journal(journal)] == ["applied"]
    fd = os.open(journal, os.O_RDWR | os.O_APPEND)
    try:
        os.write(fd, b'{"cut')
        append_whole(fd, b'{"whole": 1}\n', sync=False)
    finally:
        os.close(fd)
    assert journal.read_bytes().endswith(b'\n{"cut\n{"whole": 1}\n')


def test_a_disk_full_at_the_outcome_line_leaves_the_journal_whole(tmp_path: Path) -> None:
    """The issue's case: room for the intent line, not for the outcome. The repair is in the
    file, the journal holds the intent whole and nothing cut; the writer is gone, so the next
    repair is not blocked, and the repair is undone from its intent and the file."""
    path, journal = project(tmp_path)
    journal.write_bytes(filler(64 * 1024))
    padded = journal.read_bytes()
    # how long the lines are: the same repair on a copy, without a limit
    (tmp_path / "twin").mkdir()
    _, twin_journal = project(tmp_path / "twin")
    assert cli.main(["repair", str(tmp_path / "twin"), "--yes"]) == 0
    intent, outcome = (
        len(json.dumps(e, ensure_ascii=False, separators=(",", ":"))) + 1
        for e in lines(twin_journal)
    )
    limit = len(padded) + intent + outcome // 2
    got = run_child(
        """
        from phasewatch.core.decide.command import RepairCommand, run_repair
        code = run_repair(RepairCommand(path=sys.argv[1], yes=True))
        print("exit", code)
        """,
        str(tmp_path),
        str(limit),
    )
    assert "Traceback" not in got.stderr, got.stderr
    assert "not written" in got.stdout, got.stdout  # the outcome line's failure is said
    assert json.loads(path.read_text())["current_phase"] == PHASES[2]  # the repair landed
    assert journal.read_bytes().startswith(padded)
    assert [e.get("outcome") for e in lines(journal)[-1:]] == ["intent"]
    assert in_flight(path) is None  # its writer is gone
    undo = decide.undo_repair(path, settle=0)
    assert undo.outcome == decide.APPLIED, undo.message
    assert json.loads(path.read_text())["current_phase"] == PHASES[1]
    assert [e.get("outcome") for e in lines(journal)[-3:]] == ["intent", "intent", "applied"]


# ----------------------------------------------------------------------------- rotation


def test_the_journal_rotates_before_it_outgrows_what_is_read(tmp_path: Path, capsys) -> None:
    _, journal = project(tmp_path)
    journal.write_bytes(filler(journal_module.ROTATE_BYTES))
    old = journal.read_bytes()
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code == 0, out
    rotated = journal.with_name(journal.name + ".1")
    assert rotated.read_bytes() == old  # the full generation, whole
    assert [e["outcome"] for e in lines(journal)] == ["intent", "applied"]
    entries = decide.read_journal(journal)
    assert len(entries) > 1000 and entries[-1]["action"] == "repair location"
    code, out = repair(capsys, str(tmp_path), "--undo")
    assert code == 0 and "applied" in out, out


def test_a_journal_past_the_read_cap_is_still_read(tmp_path: Path, capsys) -> None:
    """The issue's case: a journal from before rotation, past 32 MiB, with a repair at its
    end: --undo finds it (today: "nothing to undo")."""
    path, journal = project(tmp_path)
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code == 0, out
    tail = journal.read_bytes()
    journal.write_bytes(filler(33 * 1024 * 1024) + tail)
    assert decide.last_repair(path) is not None
    code, out = repair(capsys, str(tmp_path), "--undo")
    assert code == 0 and "applied" in out, out
    assert json.loads(path.read_text())["current_phase"] == PHASES[1]


def test_two_processes_rotating_at_once_lose_no_generation(tmp_path: Path) -> None:
    """The rotation takes the writer lock: while another process holds it, nothing rotates
    (a later append does), so a generation is never renamed over another."""
    _, journal = project(tmp_path)
    journal.write_bytes(filler(journal_module.ROTATE_BYTES))
    rotated = journal.with_name(journal.name + ".1")
    rotated.write_bytes(b'{"older": 1}\n')
    held = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
         str(tmp_path / ".isdlc" / "phasewatch.lock")],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert held.stdout is not None and held.stdout.readline().strip() == "held"
        assert lock_held(tmp_path)
        with journal_module.open_journal(
            tmp_path, journal
        ) as opened:  # waits ROTATE_WAIT, then appends
            opened.append({"x": 1}, sync=False)
        assert rotated.read_bytes() == b'{"older": 1}\n'
    finally:
        held.kill()
        held.wait()
    assert not lock_held(tmp_path)
    with journal_module.open_journal(tmp_path, journal) as opened:
        opened.append({"x": 2}, sync=False)
    assert rotated.read_bytes().endswith(b'{"x":1}\n') and lines(journal) == [{"x": 2}]


# ----------------------------------------------------------------------------- unreadable


def _unreadable(journal: Path, how: str) -> None:
    if how == "symlink":
        target = journal.parent.parent / "elsewhere.jsonl"
        target.write_text("")
        journal.symlink_to(target)
    elif how == "fifo":
        os.mkfifo(journal)
    else:
        journal.mkdir()


@pytest.mark.parametrize("how", ["symlink", "fifo", "directory"])
def test_a_journal_that_cannot_be_read_is_said_never_taken_as_empty(
    tmp_path: Path, capsys, how: str
) -> None:
    path, journal = project(tmp_path)
    _unreadable(journal, how)
    with pytest.raises(journal_module.JournalUnreadable, match="cannot be read"):
        decide.read_journal(journal)
    assert "cannot be read" in (in_flight(path) or "")
    code, out = repair(capsys, str(tmp_path), "--undo")
    assert code != 0 and "nothing to undo" not in out, out  # (never "empty")
    assert "cannot be read" in out or "cannot be written" in out, out
    before = path.read_bytes()
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code != 0 and path.read_bytes() == before, out


# ----------------------------------------------------------------------------- kill -9

KILLED = """
import os, signal, sys
from phasewatch.core.decide import files
from phasewatch.core.decide.command import RepairCommand, run_repair
# killed right after the rename, before the directory fsync and the outcome line
files._fsync_dir = lambda directory: os.kill(os.getpid(), signal.SIGKILL)
run_repair(RepairCommand(path=sys.argv[1], yes=True))
"""


def test_a_writer_killed_mid_write_blocks_nothing_and_can_be_undone(tmp_path: Path) -> None:
    path, journal = project(tmp_path)
    got = subprocess.run(
        [sys.executable, "-c", KILLED, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert got.returncode == -9, got.stderr
    assert json.loads(path.read_text())["current_phase"] == PHASES[2]  # the rename happened
    assert [e["outcome"] for e in lines(journal)] == ["intent"]  # and nothing after it
    assert in_flight(path) is None  # at once, not 60 s later: the process is gone
    entry = decide.last_repair(path)
    assert entry is not None and entry["killed"] and entry["action"] == "repair location"
    undo = decide.undo_repair(path, settle=0)
    assert undo.outcome == decide.APPLIED, undo.message
    assert json.loads(path.read_text())["current_phase"] == PHASES[1]
    again = decide.apply_repair(path, decide.plan_locations(json.loads(path.read_text())), settle=0)
    assert again.outcome == decide.APPLIED, again.message


def test_a_killed_repair_that_never_landed_is_not_undone(tmp_path: Path) -> None:
    """Killed after its intent, the file then written by its owner: the undo says the file is
    not what that repair wrote, and writes nothing."""
    path, _ = project(tmp_path)
    subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], capture_output=True, timeout=60)
    doc = json.loads(path.read_text())
    doc["state_version"] += 1
    path.write_text(stringify(doc))
    before = path.read_bytes()
    undo = decide.undo_repair(path, settle=0)
    assert undo.outcome != decide.APPLIED and "stopped before it recorded" in undo.message
    assert path.read_bytes() == before


def test_a_writer_still_holding_the_lock_is_in_flight(tmp_path: Path) -> None:
    path, _ = project(tmp_path)
    subprocess.run([sys.executable, "-c", KILLED, str(tmp_path)], capture_output=True, timeout=60)
    with writer_lock(tmp_path):  # (another open file description: held, as another writer's)
        assert lock_held(tmp_path)
        assert "in flight" in (in_flight(path) or "")
    assert in_flight(path) is None


@example(junk=b"", entry={"message": "a\u2028b\x85c\x1cd"})  # str.splitlines() split these
@example(junk=b'{"ts": "cut', entry={})
@given(
    junk=st.binary(max_size=600),
    entry=st.dictionaries(st.text(max_size=8), st.text(max_size=40) | st.integers(), max_size=5),
)
def test_whatever_the_journal_held_the_next_line_is_read_whole(junk, entry) -> None:
    """Any bytes before (a cut line, binary junk, no newline at the end): the line appended
    next is read back as written, never glued to what came before; reading never raises."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        journal = Path(tmp) / "j.jsonl"
        journal.write_bytes(junk)
        with journal_module.open_journal(Path(tmp), journal) as opened:
            opened.append({"outcome": "applied", "target": "t", **entry, "n": 1}, sync=False)
        got = decide.read_journal(journal)
    assert got and got[-1] == {"outcome": "applied", "target": "t", **entry, "n": 1}
