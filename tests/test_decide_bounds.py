"""Nothing outside the project (issue 25, item 3).

* A monorepo project id is one path component: discovery, the command line's ``--project`` and
  the writer refuse an absolute id, one with a separator, ``.``/``..`` or an empty one, and name
  it (cleaned) in the message.
* A directory on the way swapped for a link while the writer runs cannot redirect a write.
* A decision that cannot be journalled is not made.
* A user who cannot write ``state.json`` cannot replace it either; owner and mode never change.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import threading
from pathlib import Path

import pytest
from phasewatch.core import decide
from phasewatch.core.sources import discover, project_id_problem
from phasewatch.tui import cli

from tests import unprivileged
from tests.helpers.decide import feature_state, load

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX paths, links and modes")

BAD_IDS = ["/etc", "../../outside", "..", ".", "", "a/b", "api/../../x", "x\\y"]
HOSTILE = "\u202eevil\u200b\x1b]0;t\x07"  # a bidi override, a zero-width space, an OSC


def _victim(tmp_path: Path) -> Path:
    """``outside/state.json``: what a ``../..`` id would name from ``proj/.isdlc/projects``."""
    victim = tmp_path / "outside" / "state.json"
    victim.parent.mkdir()
    victim.write_bytes(decide.dumps(feature_state()).encode())
    return victim


def _monorepo(tmp_path: Path, ids: list[str]) -> Path:
    root = tmp_path / "proj"
    (root / ".isdlc" / "projects" / "api").mkdir(parents=True)
    (root / ".isdlc" / "projects" / "api" / "state.json").write_bytes(
        decide.dumps(feature_state()).encode()
    )
    projects = {pid: {"name": pid or "empty", "path": "x"} for pid in ["api", *ids]}
    (root / ".isdlc" / "monorepo.json").write_text(
        json.dumps(
            {"version": 1, "default_project": ids[0] if ids else "api", "projects": projects}
        )
    )
    return root


@pytest.mark.parametrize("pid", [*BAD_IDS, HOSTILE + "/x"])
def test_a_project_id_that_is_not_one_component_is_named(pid: str) -> None:
    problem = project_id_problem(pid)
    assert problem is not None
    assert "\x1b" not in problem and "\u202e" not in problem and "\u200b" not in problem


@pytest.mark.parametrize("pid", ["api", "web-frontend", "a.b", "..x", "x..", "svc_1"])
def test_an_ordinary_project_id_is_accepted(pid: str) -> None:
    assert project_id_problem(pid) is None


def test_discovery_drops_ids_that_leave_the_projects_directory(tmp_path: Path) -> None:
    _victim(tmp_path)
    root = _monorepo(tmp_path, ["../../outside", "/etc", "..", HOSTILE + "/x"])
    project = discover(root, env={})
    assert [s.project_id for s in project.states] == ["api"]
    assert all(root / ".isdlc" / "projects" in s.path.parents for s in project.states)
    messages = " ".join(f.message for f in project.findings)
    assert "../../outside" in messages and "/etc" in messages
    assert "\x1b" not in messages and "\u202e" not in messages and "\u200b" not in messages
    assert project.default_project is None  # the default named a refused id


def test_the_command_line_refuses_a_bad_project_id(tmp_path: Path, capsys) -> None:
    victim = _victim(tmp_path)
    before = victim.read_bytes()
    root = _monorepo(tmp_path, [])
    for pid in ["../../outside", "/etc", "..", ""]:
        code = cli.main(["review", "continue", str(root), "--project", pid])
        out = capsys.readouterr().out
        assert code == 2 and "project id" in out and repr(pid)[1:-1] in out, out
    assert victim.read_bytes() == before
    assert load(root / ".isdlc" / "projects" / "api" / "state.json")["state_version"] == 41


def test_the_dashboard_refuses_a_bad_project_id(tmp_path: Path, capsys, monkeypatch) -> None:
    from phasewatch.tui import dashboard

    opened: list[object] = []
    monkeypatch.setattr(dashboard, "run_dashboard", lambda *a, **k: opened.append(a) or 0)
    root = _monorepo(tmp_path, [])
    code = cli.main([str(root), "--project", "../../outside"])
    err = capsys.readouterr().err
    assert code == 2 and "project id" in err and "../../outside" in err and not opened


def test_the_writer_refuses_a_path_through_a_bad_project_id(tmp_path: Path) -> None:
    root = _monorepo(tmp_path, [])
    projects = root / ".isdlc" / "projects"
    nested = projects / "api" / "deeper"
    nested.mkdir()
    (nested / "state.json").write_bytes(decide.dumps(feature_state()).encode())
    for target in (nested / "state.json", projects / "state.json"):
        before = target.read_bytes() if target.exists() else None
        result = decide.decide_review(target, "continue")
        assert result.outcome == "refused-invalid" and "project" in result.message, result
        assert (target.read_bytes() if target.exists() else None) == before


# ---------------------------------------------------------------------------- links flipped


def _flip(place: Path, elsewhere: Path, stop: threading.Event, flips: list[int]) -> None:
    """Swap the directory ``place`` for a link to ``elsewhere`` and back, as fast as possible."""
    aside = place.with_name(place.name + "-aside")
    while not stop.is_set():
        with contextlib.suppress(OSError):
            os.rename(place, aside)
            os.symlink(elsewhere, place)
            flips[0] += 1
            os.unlink(place)
            os.rename(aside, place)


@pytest.mark.parametrize("where", [".isdlc", ".isdlc/projects/api"])
def test_a_directory_flipped_to_a_link_never_redirects_a_write(tmp_path: Path, where: str) -> None:
    """A thread swaps a directory on the way to state.json for a link to an identical tree
    outside the project while decisions run: not one byte is written outside (the state, its
    temp files, the journal, the lock)."""
    outside = tmp_path / "outside"
    root = tmp_path / "proj"
    for base in (outside, root):
        (base / where).mkdir(parents=True)
        state = feature_state()
        state["counters"] = {}
        (base / where / "state.json").write_bytes(decide.dumps(state).encode())
    target = root / where / "state.json"
    before = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}

    def bump(doc):
        doc["counters"]["n"] = doc["counters"].get("n", 0) + 1
        return "bumped"

    stop, flips = threading.Event(), [0]
    flipper = threading.Thread(target=_flip, args=(root / where, outside / where, stop, flips))
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the two threads as finely as the GIL allows
    flipper.start()
    outcomes: list[str] = []
    try:  # 150 decisions, and more until one lands between the flips (a busy machine)
        while len(outcomes) < 150 or ("applied" not in outcomes and len(outcomes) < 3000):
            outcomes.append(decide.apply_update(target, bump, action="bump", settle=0).outcome)
    finally:
        stop.set()
        flipper.join()
        sys.setswitchinterval(switch)
    after = {p: p.read_bytes() for p in outside.rglob("*") if p.is_file()}
    assert after == before, sorted(str(p.relative_to(outside)) for p in after)
    assert flips[0] > 0 and "applied" in outcomes


# ---------------------------------------------------------------------------- the journal first


def _victim_text(tmp_path: Path) -> Path:
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir(exist_ok=True)
    victim.write_bytes(b"precious\n")
    return victim


@pytest.mark.parametrize("kind", ["link", "fifo", "directory"])
def test_a_decision_that_cannot_be_journalled_is_not_made(tmp_path: Path, kind: str) -> None:
    victim = _victim_text(tmp_path)
    root = tmp_path / "proj"
    (root / ".isdlc").mkdir(parents=True)
    state = root / ".isdlc" / "state.json"
    state.write_bytes(decide.dumps(feature_state()).encode())
    before = state.read_bytes()
    journal = root / ".isdlc" / decide.JOURNAL_NAME
    {"link": lambda: journal.symlink_to(victim), "fifo": lambda: os.mkfifo(journal),
     "directory": journal.mkdir}[kind]()  # fmt: skip
    result = decide.decide_review(state, "continue")
    assert result.outcome == "refused-invalid" and "journal" in result.message, result
    assert state.read_bytes() == before and victim.read_bytes() == b"precious\n"
    assert not list(state.parent.glob(".state.json.phasewatch-*"))


def test_an_approval_that_cannot_be_journalled_is_not_made(tmp_path: Path) -> None:
    victim = _victim_text(tmp_path)
    root = tmp_path / "proj"
    root.mkdir()
    plan = root / ".tdd-progress.md"
    plan.write_text("# TDD Task: x\n\n**Last Updated:** 2026-01-01\n")
    (root / ".tdd-plan-locked").touch()
    before = plan.read_bytes()
    (root / f".{decide.JOURNAL_NAME}").symlink_to(victim)
    for discard in (False, True):
        result = decide.decide_approval(plan, discard=discard)
        assert result.outcome == "refused-invalid" and "journal" in result.message, result
    assert plan.read_bytes() == before and (root / ".tdd-plan-locked").exists()
    assert victim.read_bytes() == b"precious\n"


# ---------------------------------------------------------------------------- who may write


@pytest.mark.parametrize(
    ("mode", "owner", "group", "uid", "gids", "allowed"),
    [
        (0o644, 1000, 1000, 1000, {1000}, True),  # the owner, u+w
        (0o444, 1000, 1000, 1000, {1000}, False),  # the owner, no u+w
        (0o464, 1000, 50, 1000, {50}, False),  # the owner's bits decide, not the group's
        (0o664, 1000, 50, 2000, {50}, True),  # a member of the group, g+w
        (0o644, 1000, 50, 2000, {50}, False),  # a member of the group, no g+w
        (0o646, 1000, 50, 2000, {60}, True),  # anyone else, o+w
        (0o664, 1000, 50, 2000, {60}, False),  # anyone else, no o+w
        (0o000, 1000, 50, 0, {0}, True),  # root
    ],
)
def test_the_mode_bits_say_who_may_write(mode, owner, group, uid, gids, allowed) -> None:
    from phasewatch.core.files.write import mode_allows_write

    assert mode_allows_write(mode, owner, group, uid, gids) is allowed


# Run unprivileged (tests/unprivileged.py): answer a gate on each state file; print what became
# of it (outcome, message, bytes, owner and mode before and after).
UNWRITABLE = r"""
import json, os, sys
from pathlib import Path
from phasewatch.core import decide

out = []
for name in sys.argv[1:]:
    path = Path(name)
    before = path.read_bytes(), os.stat(path).st_uid, os.stat(path).st_mode
    result = decide.decide_review(path, "continue")
    after = path.read_bytes(), os.stat(path).st_uid, os.stat(path).st_mode
    temps = [p.name for p in path.parent.iterdir() if ".phasewatch-" in p.name]
    out.append([result.outcome, result.message, before == after, temps])
print(json.dumps(out))
"""


def test_a_user_who_cannot_write_the_state_cannot_replace_it(tmp_path: Path) -> None:
    """The directory is the user's (writable), the file is not: refused, untouched."""
    import pwd

    base = unprivileged.workdir()
    try:
        me = base.stat().st_uid
        other = 0 if me != 0 else pwd.getpwnam("root").pw_uid
        cases = []
        given_away = [("theirs", 0o644, other), ("their-group", 0o664, other)]
        # (only root can give a file away; run by a user, the read-only case alone)
        for name, mode, uid in [("readonly", 0o444, me), *given_away * (os.geteuid() == 0)]:
            isdlc = base / name / ".isdlc"
            isdlc.mkdir(parents=True)
            state = isdlc / "state.json"
            state.write_bytes(decide.dumps(feature_state()).encode())
            for path in (base / name, isdlc):
                os.chown(path, me, -1)
            os.chown(state, uid, base.stat().st_gid)
            state.chmod(mode)
            cases.append(str(state))
        done = unprivileged.run(UNWRITABLE, *cases)
        assert done.returncode == 0, done.stderr
        for (outcome, message, untouched, temps), case in zip(
            json.loads(done.stdout), cases, strict=True
        ):
            assert outcome == "refused-invalid", (case, message)
            assert "state.json" in message and ("write" in message or "owner" in message)
            assert untouched and temps == [], case
    finally:
        shutil.rmtree(base, ignore_errors=True)


JOURNAL_READONLY = r"""
import json, sys
from pathlib import Path
from phasewatch.core import decide

path = Path(sys.argv[1])
before = path.read_bytes()
result = decide.decide_review(path, "continue")
print(json.dumps([result.outcome, result.message, path.read_bytes() == before]))
"""


def test_an_unwritable_journal_means_no_decision(tmp_path: Path) -> None:
    base = unprivileged.workdir()
    try:
        isdlc = base / ".isdlc"
        isdlc.mkdir()
        state = isdlc / "state.json"
        state.write_bytes(decide.dumps(feature_state()).encode())
        journal = isdlc / decide.JOURNAL_NAME
        journal.write_text("")
        for path in (isdlc, state, journal):
            os.chown(path, base.stat().st_uid, -1)
        journal.chmod(0o444)
        done = unprivileged.run(JOURNAL_READONLY, str(state))
        assert done.returncode == 0, done.stderr
        outcome, message, untouched = json.loads(done.stdout)
        assert outcome == "refused-invalid" and "journal" in message and untouched, message
    finally:
        shutil.rmtree(base, ignore_errors=True)
