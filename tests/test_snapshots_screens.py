"""SVG snapshots of the Hook activity, Timeline and TDD screens at 120x36.

Deterministic: fixed fixture contents (seeded simulators with a virtual clock, fixed states),
fixed mtimes, the app's clock frozen, the local time zone UTC, no watcher (``watch=False``):
every later read is one explicit ``session.refresh`` posted like the watcher would. Regenerate
with ``pytest tests/test_snapshots_screens.py --snapshot-update`` after an intended change.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path

import pytest
from phasewatch.core.simulate import HookLog, SimConfig, Simulator
from phasewatch.core.simulate.files import write_text
from phasewatch.tui.app import PhasewatchApp, SessionUpdated
from phasewatch.tui.screens.hooks import HookActivityScreen
from phasewatch.tui.screens.tdd import TddScreen
from phasewatch.tui.screens.timeline import TimelineScreen

from tests import factories as F
from tests.helpers.app import frozen_clock, wait_until, write_state

SIZE = (120, 36)
STAMP = 1_772_600_000


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fix_mtimes(root: Path) -> None:
    for path in root.rglob("*"):
        os.utime(path, (STAMP, STAMP))


def snapshot_app(root: Path) -> PhasewatchApp:
    return PhasewatchApp(root, clock=frozen_clock, watch=False)


async def reread(pilot) -> None:
    """What the watcher would do after a write: refresh the session, post the update."""
    app = pilot.app
    applied = app.updates_applied
    update = await asyncio.to_thread(app.session.refresh, None)
    app.post_message(SessionUpdated(update))
    await wait_until(pilot, lambda: app.updates_applied > applied)


async def open_screen(pilot, key: str, name: str):
    app = pilot.app
    await wait_until(pilot, lambda: app.updates_applied > 0 and app.session is not None)
    await pilot.press(key)
    screen = app.data_screens[name]
    await wait_until(pilot, lambda: app.screen is screen and screen.applied > 0)
    return screen


async def settle(pilot) -> None:
    pilot.app.clear_notifications()  # toasts (new findings) expire on a timer
    for _ in range(3):
        await pilot.pause()


def test_hooks_screen_after_a_rotation(snap_compare, tmp_path: Path) -> None:
    Simulator(
        SimConfig(
            directory=tmp_path,
            workflow="feature",
            fast=True,
            auto_decide=True,
            supervised=True,
            seed=1,
        )
    ).run()
    fix_mtimes(tmp_path)
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", keep_lines=40)

    async def run_before(pilot) -> None:
        screen = await open_screen(pilot, "2", "hooks")
        assert isinstance(screen, HookActivityScreen)
        log.rotate()  # the owner's in-place rewrite, then new lines
        for i, (event, reason) in enumerate(
            [
                ("allow", "Phase 08-code-review is 'completed'"),
                ("block", "V7: state_version 41 < disk 43"),
                ("warn", "Phase status is 'pending', expected 'in_progress'"),
            ]
        ):
            log.append(
                f"2026-03-04T12:2{i}:00.000Z", "state-write-validator", event, None, None, reason
            )
        fix_mtimes(tmp_path)
        await reread(pilot)
        assert len(screen.log_view.rotations) == 1
        await settle(pilot)

    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_timeline_screen_two_marked_versions(snap_compare, tmp_path: Path) -> None:
    state_path = tmp_path / ".isdlc" / "state.json"
    first = F.feature_state()
    write_state(state_path, first)
    fix_mtimes(tmp_path)

    async def run_before(pilot) -> None:
        screen = await open_screen(pilot, "3", "timeline")
        assert isinstance(screen, TimelineScreen)
        second = F.complete(first)
        write_state(state_path, second)
        await reread(pilot)
        third = F.setpath(F.bump(second), "project.description", "Rate limiting [TODO] for /v2")
        write_state(state_path, third)
        fix_mtimes(tmp_path)
        await reread(pilot)
        view = screen.view
        await wait_until(pilot, lambda: len(view.entries) == 3)
        view.table.move_cursor(row=0)
        await pilot.press("space")
        view.table.move_cursor(row=2)
        await pilot.press("space")
        await wait_until(pilot, lambda: len(view.marks) == 2)
        await settle(pilot)

    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_tdd_screen_unapproved_with_a_hook_miscount(snap_compare, tmp_path: Path) -> None:
    sim = Simulator(
        SimConfig(
            directory=tmp_path,
            workflow="tdd",
            fast=True,
            auto_decide=True,
            seed=1,
            faults=["tdd-unapproved"],
        )
    )
    for step in sim.steps():
        if "Slice 2: done" in step.detail:
            break
    progress = tmp_path / ".tdd-progress.md"
    text = re.sub(
        r"^\*\*Status:\*\* .*$", "**Status:** done", progress.read_text(), count=1, flags=re.M
    )
    write_text(progress, text)
    fix_mtimes(tmp_path)

    async def run_before(pilot) -> None:
        screen = await open_screen(pilot, "5", "tdd")
        assert isinstance(screen, TddScreen)
        await wait_until(pilot, lambda: screen.board.counts_differ)
        await settle(pilot)

    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_repair_preview_of_a_stale_write(snap_compare, tmp_path: Path) -> None:
    """The Repair preview (x) over the overview: the fields a sub-agent's stale copy put back,
    now -> proposed from the version seen before it, what the newer write keeps."""
    from tests.helpers.repair import stale, state

    write_state(tmp_path / ".isdlc" / "state.json", state(2, 7))
    fix_mtimes(tmp_path)

    async def run_before(pilot) -> None:
        from phasewatch.tui.screens.dialogs import RepairDialog

        app = pilot.app
        await wait_until(pilot, lambda: app.updates_applied > 0)
        write_state(tmp_path / ".isdlc" / "state.json", stale(state(2, 7), state(1)))
        fix_mtimes(tmp_path)
        await reread(pilot)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await settle(pilot)

    assert snap_compare(snapshot_app(tmp_path), terminal_size=SIZE, run_before=run_before)
