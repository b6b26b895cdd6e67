"""`phasewatch check --against FILE`: the state judged as a write over an earlier copy, and the
transition rules that decide it (V7/V8 on every write, markers only when the write sets them)."""

import copy
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from phasewatch.tui.cli import main

from tests import factories as f

ROOT = Path(__file__).resolve().parent.parent


def project(tmp_path: Path, state: dict) -> Path:
    (tmp_path / ".isdlc").mkdir(exist_ok=True)
    (tmp_path / ".isdlc" / "state.json").write_text(json.dumps(state, indent=2))
    return tmp_path


def check(capsys, tmp_path: Path, now: dict, before: dict, *extra: str) -> tuple[int, dict]:
    project(tmp_path, now)
    copy_ = tmp_path / "before.json"
    copy_.write_text(json.dumps(before, indent=2))
    code = main(["check", str(tmp_path), "--against", str(copy_), "--json", *extra])
    return code, json.loads(capsys.readouterr().out)


def errors(doc: dict) -> list[str]:
    return [x["rule_id"] for x in doc["findings"] if x["severity"] == "error"]


def raw_write(copy_: dict, over: dict) -> dict:
    """A sub-agent's old copy written back as it is (its own, older state_version)."""
    return copy.deepcopy(copy_)


def via_write_state(copy_: dict, over: dict) -> dict:
    """The same copy written through the framework's writeState (version = disk + 1)."""
    out = copy.deepcopy(copy_)
    out["state_version"] = int(over["state_version"]) + 1
    return out


def test_the_same_state_is_clean_against_itself(tmp_path, capsys):
    s = f.feature_state()
    code, doc = check(capsys, tmp_path, s, s)
    assert code == 0 and not errors(doc)
    assert doc["against"]["state_version"] == s["state_version"]


def test_a_controller_step_is_not_an_error(tmp_path, capsys):
    steps = f.walk(
        "feature", supervised=True, redo_at="03-architecture", escalate_at="06-implementation"
    )
    for (_, before), (label, after) in itertools.pairwise(steps):
        _code, doc = check(capsys, tmp_path, after, before)
        assert not errors(doc), (label, errors(doc))


@pytest.mark.parametrize("write", [raw_write, via_write_state])
def test_a_stale_copy_is_an_error_exit_1(tmp_path, capsys, write):
    steps = dict(f.walk("feature"))
    old, new = steps["3c-prime 04-design"], steps["3c-prime 06-implementation"]
    code, doc = check(capsys, tmp_path, write(old, new), new)
    assert code == 1
    assert {"TR-INDEX-DOWN", "TR-STATUS-DOWN"} & set(errors(doc)) or "TR-VERSION-DOWN" in errors(
        doc
    )


def test_a_copy_of_another_workflow_lowering_the_version_is_an_error(tmp_path, capsys):
    """A copy from before the workflow was finalized and a new one started: V7 blocks it in
    every era, whatever the workflow."""
    first = f.walk("feature")
    old = dict(first)["3c-prime 06-implementation"]
    second = f.walk("fix", start=dict(first)["finalize"], finish=False)
    new = second[-1][1]
    code, doc = check(capsys, tmp_path, raw_write(old, new), new)
    assert code == 1 and "TR-VERSION-DOWN" in errors(doc)


def test_a_copy_with_an_older_retry_marker_excuses_nothing(tmp_path, capsys):
    steps = dict(f.walk("feature", escalate_at="06-implementation"))
    during = steps["3c-prime again 06-implementation"]  # marker: retry at 06
    later = copy.deepcopy(steps["3e 06-implementation"])
    # a second retry, later: the disk's marker is newer than the copy's
    later = f.answer_retry(f.escalate(later, seconds=30))
    later["active_workflow"]["recovery_action"]["timestamp"] = "2099-01-01T00:00:00.000Z"
    stale = via_write_state(during, later)
    code, doc = check(capsys, tmp_path, stale, later)
    assert code == 1 and {"TR-STATUS-DOWN", "TR-INDEX-DOWN"} & set(errors(doc))
    # the index alone put back: the status regression is still not excused by the old marker
    stale["active_workflow"]["current_phase_index"] = later["active_workflow"][
        "current_phase_index"
    ]
    code, doc = check(capsys, tmp_path, stale, later)
    assert code == 1 and "TR-STATUS-DOWN" in errors(doc)


def test_a_write_that_sets_a_newer_marker_is_excused(tmp_path, capsys):
    steps = dict(f.walk("feature", escalate_at="06-implementation"))
    before, after = steps["retry 06-implementation"], steps["3c-prime again 06-implementation"]
    _code, doc = check(capsys, tmp_path, after, before)
    assert not errors(doc)


def test_a_copy_taken_during_a_redo_is_stale_once_the_redo_is_done(tmp_path, capsys):
    steps = dict(f.walk("feature", supervised=True, redo_at="03-architecture"))
    during = steps["3c-prime redo 03-architecture"]  # redo_pending, 03 in progress
    after = steps["gate again 03-architecture"]  # the redo is done: 03 completed, gate again
    code, doc = check(capsys, tmp_path, via_write_state(during, after), after)
    assert code == 1 and "TR-STATUS-DOWN" in errors(doc)
    # the redo itself, from the gate, is legitimate
    code, doc = check(capsys, tmp_path, during, steps["redo 03-architecture"])
    assert not errors(doc)


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_format_exits_1_on_a_transition_error(tmp_path, capsys, fmt):
    steps = dict(f.walk("feature"))
    old, new = steps["3c-prime 04-design"], steps["3c-prime 06-implementation"]
    project(tmp_path, raw_write(old, new))
    (tmp_path / "b.json").write_text(json.dumps(new))
    code = main(["check", str(tmp_path), "--against", str(tmp_path / "b.json"), "--format", fmt])
    out = capsys.readouterr().out
    assert code == 1
    assert "TR-VERSION-DOWN" in out


def test_a_pipe_and_stdin_are_read(tmp_path):
    """The README's recipe: `--against <(git show HEAD:.isdlc/state.json)`, or `-`."""
    steps = dict(f.walk("feature"))
    old, new = steps["3c-prime 04-design"], steps["3c-prime 06-implementation"]
    project(tmp_path, raw_write(old, new))
    cmd = [sys.executable, "-m", "phasewatch", "check", str(tmp_path), "-q", "--against"]
    r = subprocess.run([*cmd, "-"], input=json.dumps(new), capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    read_end, write_end = os.pipe()
    os.write(write_end, json.dumps(new).encode())
    os.close(write_end)
    r = subprocess.run(
        [*cmd, f"/dev/fd/{read_end}"], pass_fds=(read_end,), capture_output=True, text=True
    )
    os.close(read_end)
    assert r.returncode == 1, r.stderr


@pytest.mark.parametrize(
    ("content", "says"),
    [("{not json", "not a state to compare with"), ("[1]", "not a state"), ("", "not a state")],
)
def test_a_copy_that_is_not_a_state_exits_2(tmp_path, capsys, content, says):
    project(tmp_path, f.feature_state())
    (tmp_path / "b.json").write_text(content)
    assert main(["check", str(tmp_path), "--against", str(tmp_path / "b.json")]) == 2
    assert says in capsys.readouterr().err


def test_a_missing_copy_or_a_directory_exits_2(tmp_path, capsys):
    project(tmp_path, f.feature_state())
    assert main(["check", str(tmp_path), "--against", str(tmp_path / "nope")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["check", str(tmp_path), "--against", str(tmp_path), "--json"]) == 2
    assert "not a regular file or a pipe" in json.loads(capsys.readouterr().out)["error"]
