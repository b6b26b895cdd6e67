"""Recover and quit cleanly (issue 25, item 7): a briefly unsearchable ``.isdlc`` and a quit
before the first read."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from phasewatch.core import session as session_module
from phasewatch.tui.app import PhasewatchApp

from tests import unprivileged
from tests.helpers.app import frozen_clock

# The dashboard on a project whose .isdlc loses its search permission (chmod 000) and gets it
# back. Run unprivileged (tests/unprivileged.py). Each wait is a bounded loop of pilot pauses
# until the app has seen the next state of things: nothing depends on how fast the machine is.
DASHBOARD = r"""
import asyncio, json, os, sys
from pathlib import Path
from phasewatch.tui.app import PhasewatchApp

root = Path(sys.argv[1])
isdlc = root / ".isdlc"

def state_ok(app):
    u = app.last_update
    return u is not None and u.files[".isdlc/state.json"].status == "ok" and not any(
        f.rule_id == "READ-UNREADABLE" for f in u.project.findings)

def unreadable(app):
    u = app.last_update
    return u is not None and u.files[".isdlc/state.json"].status != "ok"

async def until(pilot, app, test, what):
    for _ in range(2000):  # a safety net only (the loop ends when the app has caught up)
        if test(app):
            return
        if app.watch_mode == "stopped":
            raise SystemExit(f"the watcher stopped while waiting for {what}: {app.status_notes()}")
        await pilot.pause(0.01)
    raise SystemExit(f"never saw {what}")

async def main():
    options = {"reconcile_interval": 0.05, "use_events": sys.argv[2] == "events"}
    app = PhasewatchApp(root, watcher_options=options)
    async with app.run_test() as pilot:
        await until(pilot, app, state_ok, "the first read")
        os.chmod(isdlc, 0)
        await until(pilot, app, unreadable, "the unreadable directory")
        os.chmod(isdlc, 0o755)
        await until(pilot, app, state_ok, "the recovery")
        state = json.loads((isdlc / "state.json").read_text())
        state["state_version"] = 2
        (isdlc / "state.json").write_text(json.dumps(state))
        await until(pilot, app, lambda a: a.last_update.snapshots[""].version == 2,
                    "a write after the recovery")
        print("recovered", app.watch_mode)

asyncio.run(main())
"""


# The same at the session and watch layer, step by step (no event loop, no timing): a refresh
# while .isdlc is unsearchable must not raise, its stamps must be forgotten so that the recovery
# is reported even when the watcher never saw the directory closed, and the refresh after it
# must run discovery again (the monorepo's projects come back, the finding goes).
SESSION = r"""
import json, os, sys
from pathlib import Path
from phasewatch.core.session import ProjectSession
from phasewatch.core.watch import Watcher

root = Path(sys.argv[1])
isdlc = root / ".isdlc"
state = isdlc / "projects" / "api" / "state.json"
session = ProjectSession(root)
first = session.refresh(None)
assert sorted(first.snapshots) == ["api"], first.snapshots
watcher = Watcher(*session.watch_targets(), root=session.root, use_events=False)
watcher._stamp_all()
os.chmod(isdlc, 0)
for changed in ({state}, None):  # a reconciliation's report; a full read
    denied = session.refresh(changed)
    assert any(f.rule_id == "READ-UNREADABLE" for f in denied.project.findings)
    if denied.targets_changed:  # what the app does after every refresh
        watcher.set_targets(denied.watch_files, denied.watch_dirs)
    watcher.forget(denied.unseen)
still = watcher._diff_stamps()
assert not still, still  # still closed: nothing to report, no busy loop
os.chmod(isdlc, 0o755)
changed = watcher._diff_stamps()
assert isdlc / "monorepo.json" in changed, changed
back = session.refresh(changed)
assert not back.project.findings, [f.message for f in back.project.findings]
assert sorted(back.snapshots) == ["api"] and back.files[".isdlc/projects/api/state.json"].status == "ok"
print("recovered")
"""


def _project(monorepo: bool = False) -> Path:
    """A project (owned by the unprivileged user): ``.isdlc/state.json``, or a monorepo."""
    root = unprivileged.workdir()
    (root / ".isdlc").mkdir()
    state = json.dumps({"state_version": 1}, indent=2)
    if monorepo:
        (root / ".isdlc" / "monorepo.json").write_text(json.dumps({"projects": {"api": {}}}))
        (root / ".isdlc" / "projects" / "api").mkdir(parents=True)
        (root / ".isdlc" / "projects" / "api" / "state.json").write_text(state)
    else:
        (root / ".isdlc" / "state.json").write_text(state)
    for path in [root / ".isdlc", *(root / ".isdlc").rglob("*")]:
        shutil.chown(path, root.owner())
    return root


def test_a_session_recovers_when_isdlc_is_searchable_again() -> None:
    root = _project(monorepo=True)
    try:
        done = unprivileged.run(SESSION, str(root))
        assert done.returncode == 0 and "recovered" in done.stdout, done.stdout + done.stderr
    finally:
        (root / ".isdlc").chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("mode", ["events", "reconciling"])
def test_the_dashboard_recovers_when_isdlc_is_searchable_again(mode: str) -> None:
    """With OS events and with reconciliation alone (polling filesystems, WSL)."""
    root = _project()
    try:
        done = unprivileged.run(DASHBOARD, str(root), mode)
        assert done.returncode == 0 and "recovered" in done.stdout, done.stdout + done.stderr
        assert "Traceback" not in done.stderr, done.stderr
    finally:
        (root / ".isdlc").chmod(0o755)
        shutil.rmtree(root, ignore_errors=True)


async def test_quitting_before_the_first_read_ends_without_a_traceback(
    tmp_path: Path, monkeypatch
) -> None:
    """The first read (a thread) finishes after the app has gone: nothing is raised anywhere."""
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text('{"state_version": 1}')
    gate, entered = threading.Event(), threading.Event()
    real_init = session_module.ProjectSession.__init__

    def slow_init(self, *args, **kwargs):
        entered.set()
        gate.wait()
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(session_module.ProjectSession, "__init__", slow_init)
    raised: list[BaseException | None] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(args.exc_value))
    app = PhasewatchApp(tmp_path, clock=frozen_clock)
    async with app.run_test() as pilot:
        app._start_first_read()
        assert entered.wait(30)
        await pilot.press("q")
    assert app.return_code == 0
    gate.set()
    for thread in threading.enumerate():
        if thread.name == "phasewatch-first-read":
            thread.join(30)
    assert raised == []
