"""`phasewatch demo` headless: the players finish, the autopilot decides through the writer."""

import json
import os
import signal
import subprocess
import sys
import threading

import pytest
from phasewatch.core.decide import read_journal
from phasewatch.tui.demo import Autopilot, Presence, main, remove_stale_demo_dirs

from tests import factories as F


def test_headless_demo_runs_to_completion_with_autopilot(tmp_path, capsys):
    root = tmp_path / "demo"
    code = main(
        ["--headless", "--speed", "200", "--autopilot", "0.05", "--dir", str(root), "--seed", "3"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    state = json.loads((root / ".isdlc" / "state.json").read_text())
    assert state["active_workflow"] is None
    assert state["workflow_history"][-1]["status"] == "completed"
    journal = read_journal(root / ".isdlc" / "phasewatch-decisions.jsonl")
    actions = {entry["action"] for entry in journal if entry["outcome"] == "applied"}
    assert "review continue" in actions
    assert any(a.startswith("approve") for a in actions)
    assert all(entry["who"] == "demo-autopilot" for entry in journal)
    assert not any(a.startswith("repair") for a in actions)  # a stale write waits for a human
    assert "**Approved:**" in (root / ".tdd-progress.md").read_text()
    assert (root / "PLUGINS.md").exists()
    assert "phasewatch check" in out  # the final report
    assert "every player finished" in out
    assert "dashboard" not in out and "q quits" not in out  # nothing is left open


def test_demo_refuses_a_directory_with_a_state_file(tmp_path, capsys):
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("{}")
    assert main(["--headless", "--dir", str(tmp_path)]) == 2
    assert "already holds a state.json" in capsys.readouterr().err


# ---------------------------------------------------------------------------- the autopilot


def autopilot(root, grace=20.0):
    ticks = [1000.0]
    presence = Presence()
    pilot = Autopilot(root, grace, threading.Event(), lambda _m: None, presence, lambda: ticks[0])
    return pilot, presence, ticks


def test_each_waiting_item_gets_its_full_time_from_when_it_appears(tmp_path):
    pilot, _presence, ticks = autopilot(tmp_path)
    assert pilot.due(["esc:first"]) == set()
    ticks[0] += 19
    assert pilot.due(["esc:first"]) == set()
    ticks[0] += 1
    assert pilot.due(["esc:first"]) == {"esc:first"}
    ticks[0] += 0.5
    assert pilot.due([]) == set()  # answered: forgotten
    assert pilot.due(["esc:second"]) == set()  # a new one starts from zero
    ticks[0] += 2.4
    assert pilot.due(["esc:second"]) == set()
    ticks[0] += 17.6
    assert pilot.due(["esc:second"]) == {"esc:second"}


def test_user_activity_restarts_the_timers_and_an_open_dialog_stops_them(tmp_path):
    pilot, presence, ticks = autopilot(tmp_path)
    pilot.due(["gate:06"])
    ticks[0] += 15
    presence.last_activity = ticks[0]  # the user pressed a key
    ticks[0] += 10
    assert pilot.due(["gate:06"]) == set()
    ticks[0] += 10
    presence.busy = True  # typing redo guidance in a dialog
    assert pilot.due(["gate:06"]) == set()
    presence.busy = False
    assert pilot.due(["gate:06"]) == {"gate:06"}


def test_autopilot_answers_through_the_writer_only_when_due(tmp_path):
    state = F.build_state()  # the 06-implementation gate is presented
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(state))
    pilot, presence, ticks = autopilot(tmp_path)
    pilot.tick()
    ticks[0] += 30
    presence.busy = True
    pilot.tick()
    assert not (tmp_path / ".isdlc" / "phasewatch-decisions.jsonl").exists()
    presence.busy = False
    pilot.tick()
    [entry] = read_journal(tmp_path / ".isdlc" / "phasewatch-decisions.jsonl")
    assert entry["action"] == "review continue" and entry["who"] == "demo-autopilot"


def test_autopilot_never_resumes_a_gate_someone_paused(tmp_path):
    state = F.build_state()
    state["active_workflow"]["supervised_review"].update(
        {"status": "reviewing", "paused_at": "2026-11-26T10:00:00.000Z"}
    )
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(state))
    pilot, _presence, ticks = autopilot(tmp_path)
    for _ in range(5):
        pilot.tick()
        ticks[0] += 60
    assert not (tmp_path / ".isdlc" / "phasewatch-decisions.jsonl").exists()
    assert json.loads(path.read_text()) == state


PLAN = """# TDD Task: Rate limit

**Status:** in-progress

## Slice 1: Token bucket

**Status:** pending
"""


def test_autopilot_never_approves_the_plan_while_it_is_read(tmp_path):
    (tmp_path / ".tdd-progress.md").write_text(PLAN)
    pilot, presence, ticks = autopilot(tmp_path)
    for screen in ("tdd", "plan"):
        presence.screen = screen
        pilot.tick()
        ticks[0] += 60
        pilot.tick()
        assert "**Approved:**" not in (tmp_path / ".tdd-progress.md").read_text(), screen
    presence.screen = "overview"
    pilot.tick()
    ticks[0] += 60
    pilot.tick()
    assert "**Approved:**" in (tmp_path / ".tdd-progress.md").read_text()


# ---------------------------------------------------------------------------- temp dirs


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_demo_dirs_of_dead_processes_are_removed(tmp_path):
    dead = tmp_path / f"phasewatch-demo-{dead_pid()}-abc"
    (dead / ".isdlc").mkdir(parents=True)
    mine = tmp_path / f"phasewatch-demo-{os.getpid()}-def"
    mine.mkdir()
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("x")
    link = tmp_path / f"phasewatch-demo-{dead_pid()}-ghi"
    link.symlink_to(target)
    other = tmp_path / "phasewatch-demo-notapid"
    other.mkdir()
    assert remove_stale_demo_dirs(tmp_path) == [dead]
    assert not dead.exists() and mine.exists() and other.exists()
    assert link.is_symlink() and (target / "keep.txt").exists()


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_killed_demo_removes_its_directory(tmp_path, signum):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    argv = [sys.executable, "-m", "phasewatch", "demo", "--headless", "--autopilot", "0"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()  # "...: writing <dir>" once it exists
        assert "writing" in first, first
        made = list(tmp_path.glob("phasewatch-demo-*"))
        assert len(made) == 1 and made[0].is_dir()
        proc.send_signal(signum)
        assert proc.wait(30) == -signum
        assert not made[0].exists()
    finally:
        proc.kill()
        proc.wait()


async def test_the_demo_app_tells_the_autopilot_when_a_human_is_there(tmp_path):
    from phasewatch.tui.demo import DemoApp

    from tests.helpers.app import frozen_clock, wait_until

    app = DemoApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        presence = app.presence
        assert presence.last_activity == 0.0 and not presence.busy
        await pilot.press("question_mark")  # a key, and a screen over the data screen
        await wait_until(pilot, lambda: presence.busy)
        assert presence.last_activity > 0.0
        await pilot.press("escape")
        await wait_until(pilot, lambda: not presence.busy)
        await pilot.press("5")  # the TDD screen: the plan may be read there
        await wait_until(pilot, lambda: presence.screen == "tdd")


async def test_the_demo_app_announces_its_autopilot(tmp_path):
    from phasewatch.tui.demo import DemoApp

    from tests.helpers.app import frozen_clock, wait_until

    app = DemoApp(tmp_path, clock=frozen_clock, watch=False, announce="autopilot after 20 s")
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: bool(notes))
    assert notes[0] == "autopilot after 20 s"


def _demo_args(monkeypatch, argv):
    """What the demo hands its dashboard (or its headless run): ``main`` up to that point."""
    from phasewatch.tui import demo

    seen = {}

    def capture(args, root):
        seen["args"] = args
        return 0

    monkeypatch.setattr(demo, "_headless", capture)
    monkeypatch.setattr(demo, "_dashboard", capture)
    assert demo.main(argv) == 0
    return seen["args"]


def test_the_demo_honours_the_whole_config_and_notify_cmd(tmp_path, monkeypatch):
    """Not only [autopilot]: [notifications], [rules] and --notify-cmd reach the dashboard."""
    config = tmp_path / "config.toml"
    config.write_text(
        '[autopilot]\nwait_seconds = 3\n[notifications]\ncommand = "from-file"\n'
        '[rules]\nSYNC-AGENT = "off"\n',
        encoding="utf-8",
    )
    args = _demo_args(monkeypatch, ["--config", str(config), "--dir", str(tmp_path / "d")])
    assert args.autopilot == 3
    assert args.config_loaded.notifications.command == "from-file"
    assert args.config_loaded.rules["SYNC-AGENT"] == "off"
    args = _demo_args(
        monkeypatch,
        ["--config", str(config), "--notify-cmd", "cat >> n.jsonl", "--dir", str(tmp_path / "e")],
    )
    assert args.config_loaded.notifications.command == "cat >> n.jsonl"
    args = _demo_args(monkeypatch, ["--notify-cmd", "x", "--dir", str(tmp_path / "f")])
    assert args.config_loaded.notifications.command == "x"  # no config file: flags alone
    args = _demo_args(monkeypatch, ["--no-notify", "--dir", str(tmp_path / "g")])
    assert args.config_loaded.notifications.enabled is False


def test_the_demo_refuses_a_bad_config(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[notifications\n", encoding="utf-8")
    assert main(["--config", str(config), "--dir", str(tmp_path / "d")]) == 2
    assert "phasewatch" in capsys.readouterr().err


async def test_the_demo_dashboard_runs_the_notify_command(tmp_path):
    """The DemoApp takes the config like the dashboard: its notifier runs the command."""
    from phasewatch.core.config import Config
    from phasewatch.tui.demo import DemoApp

    from tests.helpers.app import frozen_clock

    cfg = Config().model_copy()
    cfg = cfg.model_copy(
        update={"notifications": cfg.notifications.model_copy(update={"command": "true"})}
    )
    app = DemoApp(tmp_path, clock=frozen_clock, watch=False, config=cfg)
    async with app.run_test(size=(120, 36)):
        assert app.config is not None and app.config.notifications.command == "true"
