"""Pilot tests of screens 2-6 (Hooks, Timeline, History, TDD, Plugins), driven by real files the
simulators and the owner-format writers put in a temp directory while the app watches it."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from phasewatch.core.diff import diff_json
from phasewatch.core.simulate import HookLog, SimConfig, Simulator
from phasewatch.core.simulate.files import write_text
from phasewatch.core.simulate.plugins import PluginPipeline
from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens import (
    HelpScreen,
    HistoryScreen,
    HookActivityScreen,
    PluginsScreen,
    TddScreen,
    TimelineScreen,
)
from phasewatch.widgets._style import theme_styles

from tests import factories as F
from tests.helpers.app import (
    frozen_clock,
    make_app,
    screen_text,
    show,
    svg_lines,
    wait_until,
    write_state,
)

SIZE = (120, 36)
TS = "2026-03-04T09:{:02d}:{:02d}.000Z"


def log_lines(root: Path) -> list[dict]:
    text = (root / ".isdlc" / "hook-activity.log").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def shown_records(screen: HookActivityScreen) -> list[dict]:
    view = screen.body.view
    fields = [view.record_fields(i) for i in range(view.total)]
    return [f for f in fields if f["marker"] is None]


def live_config(root: Path) -> SimConfig:
    """A feature run played while the app watches. No review gate or escalation: the review
    console would put its modal over the screen under test."""
    return SimConfig(
        directory=root,
        workflow="feature",
        fast=True,
        auto_decide=True,
        supervised=False,
        escalate=None,
        seed=1,
    )


def play_until(steps: Iterator, predicate) -> None:
    for step in steps:
        if predicate(step):
            return
    raise AssertionError("the simulation ended before the wanted step")


# ---------------------------------------------------------------------------- hooks


async def test_hook_screen_shows_every_record_and_the_counts(tmp_path: Path) -> None:
    (tmp_path / ".isdlc").mkdir()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "2", "hooks")
        assert isinstance(screen, HookActivityScreen)
        assert "No hook activity yet" in screen.empty_text
        assert "No hook activity yet" in screen_text(app)
        sim = Simulator(live_config(tmp_path))
        summary = await asyncio.to_thread(sim.run)
        assert summary.status == "completed" and summary.hook_lines > 50
        lines = log_lines(tmp_path)
        await wait_until(pilot, lambda: len(shown_records(screen)) == len(lines))
        # every line once, in order (the view takes in the store's new rows as the log grows)
        assert [r["ts"] for r in shown_records(screen)] == [line["ts"] for line in lines]
        assert screen.syncs > 0
        assert screen.empty_text == ""
        hooks, events = screen.body.view.counts()
        assert events == dict(Counter(line["event"] for line in lines))
        assert hooks == dict(Counter(line["hook"] for line in lines))
        assert screen.body.stats.events == events
        await pilot.pause()
        text = screen_text(app)
        assert f"{len(lines)} of {len(lines)} records" in text
        assert f"block {events['block']}" in text
        assert "HOOK-BLOCK" in text  # the log's findings under the view
        # the filter keys: blocks only, then clear
        await pilot.press("b")
        await wait_until(pilot, lambda: screen.body.view.shown == events["block"])
        await wait_until(pilot, lambda: "(filtered)" in screen_text(app))
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.body.view.shown == len(lines))


async def test_screens_are_built_when_first_shown_with_every_update_they_missed(
    tmp_path: Path,
) -> None:
    """Only the overview exists at start; a screen built later still shows every hook record
    and state version seen before it existed (several updates, merged)."""
    (tmp_path / ".isdlc").mkdir()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        assert set(app.data_screens) == {"overview"}
        sim = Simulator(live_config(tmp_path))
        await asyncio.to_thread(sim.run)
        lines = log_lines(tmp_path)
        await wait_until(pilot, lambda: app.updates_applied > 1)
        await wait_until(pilot, lambda: app.session._hook_total == len(lines))
        screen = await show(pilot, app, "2", "hooks")
        await wait_until(pilot, lambda: len(shown_records(screen)) == len(lines))
        assert [r["ts"] for r in shown_records(screen)] == [line["ts"] for line in lines]
        timeline = await show(pilot, app, "3", "timeline")
        assert isinstance(timeline, TimelineScreen)
        # every version the session kept (how many depends on how the watcher's reads fell
        # between the simulator's writes: a loaded machine sees fewer, never none)
        seen = lambda: [e.seq for e in app.session.timeline]  # noqa: E731
        await wait_until(pilot, lambda: [e.seq for _p, e in timeline.entries] == seen())
        assert seen()
        assert set(app.data_screens) == {"overview", "hooks", "timeline"}


async def test_hook_screen_keeps_records_across_an_owner_rotation(tmp_path: Path) -> None:
    (tmp_path / ".isdlc").mkdir()
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=10**9, keep_lines=20)

    def append(i: int) -> None:
        event = "block" if i % 7 == 0 else "allow"
        log.append(TS.format(i // 60, i % 60), "gate-blocker", event, "06-impl", None, f"line {i}")

    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "2", "hooks")
        assert isinstance(screen, HookActivityScreen)
        for i in range(30):
            append(i)
        await wait_until(pilot, lambda: len(shown_records(screen)) == 30)
        # the owner's rotation: over the limit after an append -> rewritten with the newest 20
        log.max_bytes = log.path.stat().st_size
        append(30)
        assert log.rotations == 1 and len(log.path.read_text().splitlines()) == 20
        log.max_bytes = 10**9
        for i in range(31, 36):
            append(i)
        await wait_until(pilot, lambda: len(shown_records(screen)) == 36)
        reasons = [r["reason"] for r in shown_records(screen)]
        assert reasons == [f"line {i}" for i in range(36)]  # nothing lost or repeated
        assert len(screen.body.view.rotations) == 1
        markers = [
            screen.body.view.record_fields(i)["marker"] for i in range(screen.body.view.total)
        ]
        assert sum(m is not None for m in markers) == 1
        await pilot.pause()
        text = screen_text(app)
        assert "log rotated by its owner" in text
        assert "earlier lines kept from this session" in text
        assert "36 of 36 records" in text
        assert "hook log rotated" in text  # the status bar


# ---------------------------------------------------------------------------- timeline


async def test_timeline_lists_versions_and_diffs_two_marked_ones(tmp_path: Path) -> None:
    state_path = tmp_path / ".isdlc" / "state.json"
    first = F.feature_state()
    write_state(state_path, first)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "3", "timeline")
        assert isinstance(screen, TimelineScreen)
        view = screen.view
        await wait_until(pilot, lambda: len(view.entries) == 1)
        second = F.complete(first)
        write_state(state_path, second)
        await wait_until(pilot, lambda: len(view.entries) == 2)
        third = F.setpath(F.bump(second), "project.description", "[/] not markup")
        write_state(state_path, third)
        await wait_until(pilot, lambda: len(view.entries) == 3)
        versions = [e.state_version for e in view.entries]
        assert versions == [first["state_version"], second["state_version"], third["state_version"]]
        assert view.table.row_count == 3  # appended by key, never rebuilt
        # default: the highlighted (newest) version against its predecessor
        assert [c.path for c in view.diff_view.changes] == [
            c.path for c in diff_json(second, third)
        ]
        # mark the first and the last: the diff compares those two
        await pilot.press("l")
        await pilot.press("space")
        view.table.move_cursor(row=0)
        await pilot.press("space")
        await wait_until(pilot, lambda: len(view.marks) == 2)
        changes = diff_json(first, third)
        assert [c.path for c in view.diff_view.changes] == [c.path for c in changes]
        assert "phases.05-test-strategy.status" in {c.path for c in changes}
        a, b = view.entries[0].seq, view.entries[2].seq
        await pilot.pause()
        text = screen_text(app)
        v1, v3 = first["state_version"], third["state_version"]
        assert f"marked #{a} (v{v1}) → #{b} (v{v3})" in text
        assert "first observation" in text
        assert "[/] not markup" in text
        assert "3 versions this session" in text
        await pilot.press("escape")
        await wait_until(pilot, lambda: view.marks == [])


async def test_timeline_empty_state(tmp_path: Path) -> None:
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "3", "timeline")
        assert "No .isdlc/state.json" in screen.empty_text
        assert not screen.main_widget.display


# ---------------------------------------------------------------------------- history


async def test_history_shows_a_finished_workflow(tmp_path: Path) -> None:
    sim = Simulator(live_config(tmp_path))
    steps = sim.steps()
    play_until(steps, lambda step: step.name == "3e")  # mid-run: nothing finished yet
    state = json.loads((tmp_path / ".isdlc" / "state.json").read_text())
    before = len(state.get("workflow_history", []))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "4", "history")
        assert isinstance(screen, HistoryScreen)
        assert len(screen.view.entries) == before
        await asyncio.to_thread(list, steps)  # the rest of the run, while the app watches
        state = json.loads((tmp_path / ".isdlc" / "state.json").read_text())
        finished = state["workflow_history"][-1]
        assert finished["status"] == "completed" and state["active_workflow"] is None
        await wait_until(pilot, lambda: len(screen.view.entries) == before + 1)
        shown = screen.view.selected  # the newest is selected
        assert shown is not None and shown.artifact_folder == finished["artifact_folder"]
        await pilot.pause()
        text = screen_text(app)
        assert finished["artifact_folder"] in text
        assert "phase durations" in text and "status completed" in text
        assert "06-implementation" in text and "█" in text  # a duration bar
        assert f"{before + 1} finished workflows" in text
        # a hook-log-only change does not touch the history
        sets = screen.sets
        applied = screen.applied
        with open(tmp_path / ".isdlc" / "hook-activity.log", "a") as fh:
            fh.write(json.dumps({"ts": TS.format(59, 0), "hook": "h", "event": "allow"}) + "\n")
        await wait_until(pilot, lambda: screen.applied > applied)
        assert screen.sets == sets
        await pilot.press("o")
        await wait_until(pilot, lambda: screen.view.selected is screen.view.entries[-1])
        await pilot.press("n")
        await wait_until(pilot, lambda: screen.view.selected is screen.view.entries[0])


# ---------------------------------------------------------------------------- TDD


async def test_tdd_screen_shows_approval_and_flags_the_hook_miscount(tmp_path: Path) -> None:
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
    play_until(sim.steps(), lambda step: "Slice 2: done" in step.detail)
    progress = tmp_path / ".tdd-progress.md"
    text = progress.read_text()
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "5", "tdd")
        assert isinstance(screen, TddScreen)
        board = screen.board
        await wait_until(pilot, lambda: board.plan is not None)
        slices = len(board.plan.slices)
        assert board.true_remaining == slices - 2 == board.hook_remaining
        assert not board.counts_differ
        screen_now = screen_text(app)
        assert "NOT APPROVED" in screen_now and "(agree)" in screen_now
        assert "TDD-UNAPPROVED-PROGRESS" in screen_now
        assert board.table.row_count == slices
        # the agent marks the whole task done too early: the hook subtracts the header line
        sets = screen.sets
        premature = re.sub(r"^\*\*Status:\*\* .*$", "**Status:** done", text, count=1, flags=re.M)
        write_text(progress, premature)
        await wait_until(pilot, lambda: board.counts_differ)
        # re-set for the change (twice when a busy machine lets the watcher see the file
        # between the agent's truncate and its write: that read is a plan of its own)
        assert sets + 1 <= screen.sets <= sets + 2
        assert board.true_remaining == slices - 2 and board.hook_remaining == slices - 3
        await pilot.pause()
        screen_now = screen_text(app)
        assert "DIFFERENT" in screen_now and "TDD-HOOK-MISCOUNT" in screen_now
        # approval: the marker goes right after Last Updated
        approved = re.sub(
            r"^(\*\*Last Updated:\*\*.*)$",
            r"\1\n**Approved:** 2026-03-04T09:07:00.000Z",
            premature,
            count=1,
            flags=re.M,
        )
        write_text(progress, approved)
        await wait_until(pilot, lambda: "✓ Approved" in screen_text(app))
        assert "NOT APPROVED" not in screen_text(app)
        # key: the cursor goes to the next slice that is not finished
        await pilot.press("u")
        await wait_until(pilot, lambda: board.table.cursor_row == 2)
        # the next slice starts: the board is re-set, the cursor stays where the user put it
        sets = screen.sets
        started = approved.replace("**Status:** pending", "**Status:** in-progress", 1)
        write_text(progress, started)
        await wait_until(pilot, lambda: screen.sets > sets and board.true_remaining == slices - 2)
        await wait_until(pilot, lambda: "◐ in progress" in screen_text(app))
        assert board.table.cursor_row == 2


async def test_tdd_screen_empty_state_and_no_rerender_without_change(tmp_path: Path) -> None:
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "5", "tdd")
        assert isinstance(screen, TddScreen)
        assert "No .tdd-progress.md in this project" in screen_text(app)
        sets, applied = screen.sets, screen.applied
        write_state(tmp_path / ".isdlc" / "state.json", F.bump(F.feature_state()))
        await wait_until(pilot, lambda: screen.applied > applied)
        assert screen.sets == sets  # tdd_changed was not set


# ---------------------------------------------------------------------------- plugins


async def test_plugins_screen_highlights_and_explains_a_drifted_cell(tmp_path: Path) -> None:
    pipeline = PluginPipeline(
        tmp_path, ("MinimalKick", "GainKnob"), faults=["plugin-drift"], seed=1
    )
    steps = pipeline.steps()
    play_until(steps, lambda step: step.fault == "plugin-drift")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "6", "plugins")
        assert isinstance(screen, PluginsScreen)
        table = screen.table
        await wait_until(pilot, lambda: table.record("GainKnob") is not None)
        rec = table.record("GainKnob")
        assert rec is not None and {c.column for c in rec.drift} >= {"status"}
        cell = table.table.get_cell("GainKnob", "table_status")
        drift_styles = {theme_styles(app)[f"{s}-cell"] for s in ("error", "warning", "info")}
        assert cell.style in drift_styles
        clean = table.table.get_cell("MinimalKick", "table_status")
        assert clean.style not in drift_styles
        await pilot.press("d")  # next drift: GainKnob's row and its explanation
        await wait_until(pilot, lambda: table.selected == "GainKnob")
        # the picture, not the selection: the explanation is painted after it (a busy machine)
        await wait_until(pilot, lambda: "PLG-STATUS-DRIFT" in screen_text(app))
        text = screen_text(app)
        assert "PLG-STATUS-DRIFT" in text and "Drift (" in text
        assert "the status words differ" in text
        # the run goes on: rows are updated in place by key, the drift is repaired
        await asyncio.to_thread(list, steps)
        # (a read of PLUGINS.md half-written shows fewer plugins and no drift: wait for both)
        await wait_until(
            pilot,
            lambda: table.table.row_count == 2 and not any(r.drift for r in table.registry.plugins),
        )
        # one row per plugin, keyed by its name (a half-written read in between may have
        # dropped a row and added it back: that is an update by key too, never a duplicate)
        keys = {row.value for row in table.table.rows}
        assert keys == {"MinimalKick", "GainKnob"} and table.table.row_count == 2


async def test_plugins_empty_state(tmp_path: Path) -> None:
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await show(pilot, app, "6", "plugins")
        await pilot.pause()
        assert "No plugin registry" in screen_text(app)


# ---------------------------------------------------------------------------- all screens


@pytest.fixture
def full_project(tmp_path: Path) -> Path:
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
    tdd = Simulator(
        SimConfig(directory=tmp_path, workflow="tdd", fast=True, auto_decide=True, seed=1)
    )
    play_until(tdd.steps(), lambda step: "Slice 1: done" in step.detail)
    pipeline = PluginPipeline(
        tmp_path, ("MinimalKick", "GainKnob"), faults=["plugin-drift"], seed=1
    )
    play_until(pipeline.steps(), lambda step: step.fault == "plugin-drift")
    return tmp_path


MAIN_WIDGET = {
    "hooks": "#hooklog-view",
    "timeline": "#timeline-table",
    "history": "#history-list",
    "tdd": "#tdd-slices",
    "plugins": "#plugins-table",
    "views": "#views",
}
KEYS = {
    "hooks": ("Search", "Blocks only", "Follow", "Clear filters"),
    "timeline": ("Mark A/B", "Clear marks", "Latest"),
    "history": ("Newest", "Oldest"),
    "tdd": ("Next unfinished slice",),
    "plugins": ("Next drift",),
    "views": ("Top", "Bottom"),
}


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_every_screen_fits_and_lists_its_keys(full_project: Path, size) -> None:
    app = make_app(full_project, watch=False)
    async with app.run_test(size=size) as pilot:
        for key, name in zip("234567", MAIN_WIDGET, strict=True):
            screen = await show(pilot, app, key, name)
            await pilot.pause()
            main = screen.query_one(MAIN_WIDGET[name])
            region = main.region
            assert region.height >= 3 and region.width >= 24, (name, region)
            assert region.bottom <= size[1] - 2  # above the status bar and the footer
            assert app.screen.focused is not None
            await pilot.press("question_mark")
            await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
            help_screen = app.screen
            assert isinstance(help_screen, HelpScreen)
            listed = {desc for _k, desc, _where in help_screen.rows}
            assert set(KEYS[name]) <= listed, name
            await pilot.press("escape")
            await wait_until(pilot, lambda s=screen: app.screen is s)


async def test_project_switch_shows_the_other_timeline_and_keeps_hooks_once(
    tmp_path: Path,
) -> None:
    isdlc = tmp_path / ".isdlc"
    isdlc.mkdir()
    (isdlc / "monorepo.json").write_text(
        json.dumps(
            {
                "version": 1,
                "default_project": "api",
                "projects": {"api": {"name": "API"}, "web": {"name": "Web"}},
            }
        )
    )
    api, web = F.feature_state(), F.fix_state()
    write_state(isdlc / "projects" / "api" / "state.json", api)
    write_state(isdlc / "projects" / "web" / "state.json", web)
    log = HookLog(isdlc / "hook-activity.log")
    for i in range(3):
        log.append(TS.format(0, i), "gate-blocker", "allow", None, None, f"line {i}")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        hooks = await show(pilot, app, "2", "hooks")
        assert isinstance(hooks, HookActivityScreen)
        await wait_until(pilot, lambda: len(shown_records(hooks)) == 3)
        timeline = await show(pilot, app, "3", "timeline")
        assert isinstance(timeline, TimelineScreen)
        await wait_until(pilot, lambda: len(timeline.view.entries) == 1)
        assert timeline.view.entries[0].state_version == api["state_version"]
        app.select_project("web")
        await wait_until(
            pilot,
            lambda: [e.state_version for e in timeline.view.entries] == [web["state_version"]],
        )
        app.select_project("api")
        await wait_until(
            pilot,
            lambda: [e.state_version for e in timeline.view.entries] == [api["state_version"]],
        )
        assert len(timeline.entries) == 2  # one version of each project, never re-added
        assert len(shown_records(hooks)) == 3  # the hook log is the repository's: not re-added


def test_view_entry_converts_the_session_timeline(tmp_path: Path) -> None:
    from phasewatch.core.session import ProjectSession, view_entry

    state_path = tmp_path / ".isdlc" / "state.json"
    write_state(state_path, F.feature_state())
    session = ProjectSession(tmp_path, clock=frozen_clock)
    (first,) = session.refresh(None).timeline
    write_state(state_path, F.complete(F.feature_state()))
    _first, second = session.refresh([state_path], own=[state_path]).timeline  # all kept
    a, b = view_entry(first), view_entry(second)
    assert (a.seq, a.state_version, a.note, a.changed_paths) == (
        first.seq,
        first.state_version,
        "first observation",
        [],
    )
    assert b.observed_at == frozen_clock() and b.raw is second.raw
    assert b.changed_paths == list(second.changed) and "state_version" in b.changed_paths
    assert b.note == "phasewatch's own write"
    assert "phases.05-test-strategy.status" in b.summary(limit=10)


@pytest.mark.parametrize("watch", [True, False])
async def test_a_large_hook_log_loads_in_parts_into_a_screen_not_shown(
    tmp_path: Path, watch: bool
) -> None:
    """The log arrives over many updates (the watcher asks for the rest itself), newest part
    first; the hook screen, built but never shown, takes every record into its view as it
    comes, so nothing piles up in its pending update and nothing is dropped."""
    (tmp_path / ".isdlc").mkdir()
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=10**9)
    for i in range(400):
        log.append(TS.format(i // 60, i % 60), "gate-blocker", "allow", None, None, f"r{i}")
    app = make_app(
        tmp_path, watch=watch, session_options={"hook_read_bytes": 2048, "hook_part_seconds": 0}
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        screen = app.data_screen("hooks")  # built, not shown
        view = screen.log_view
        await wait_until(pilot, lambda: view.total > 0, timeout=30)
        await wait_until(pilot, lambda: view.total == 400, timeout=30)
        assert not screen.is_mounted and screen._pending is not None
        await wait_until(pilot, lambda: app.last_update.hooks.total == 400, timeout=30)
        assert view.record_fields(view.total - 1)["reason"] == "r399"  # in file order, whole
        assert app.updates_received > 10
        assert app.last_update is not None and not app.last_update.hooks.pending
        shown = await show(pilot, app, "2", "hooks")
        assert [r["reason"] for r in shown_records(shown)] == [f"r{i}" for i in range(400)]
        assert "400 of 400 records" in screen_text(app)


async def test_a_screen_shown_before_its_data_gives_the_focus_to_it(tmp_path: Path) -> None:
    """The hook screen opened before the log has a line shows its empty message (the view is
    hidden, and Textual blurs what it hides); once lines arrive the view has the focus again,
    so its keys work without a click."""
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "2", "hooks")
        await wait_until(pilot, lambda: not screen.body.display)
        log = HookLog(tmp_path / ".isdlc" / "hook-activity.log")
        log.append(TS.format(0, 1), "gate-blocker", "allow", None, None, "first")
        await wait_until(pilot, lambda: screen.body.display, timeout=10)
        await pilot.pause()
        assert screen.focused is screen.log_view


async def test_a_key_holds_a_large_logs_read_until_its_answer_is_painted(tmp_path: Path) -> None:
    """A key's answer goes first: from the key until its screen is painted the session is told
    the UI is busy (its read of a large log stops at the next poll and the next refresh
    waits); then the read goes on to the end."""
    (tmp_path / ".isdlc").mkdir()
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=10**9)
    for i in range(400):
        log.append(TS.format(i // 60, i % 60), "gate-blocker", "allow", None, None, f"r{i}")
    app = make_app(tmp_path, session_options={"hook_read_bytes": 2048, "hook_part_seconds": 0})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session is not None)
        idle = app.session.ui_idle
        seen: list[tuple[str, str | None]] = []
        clear, set_ = idle.clear, idle.set
        idle.clear = lambda: (seen.append(("clear", None)), clear())[-1]  # type: ignore[method-assign]
        idle.set = lambda: (seen.append(("set", app.screen.name)), set_())[-1]  # type: ignore[method-assign]
        await pilot.press("2")
        await wait_until(pilot, idle.is_set)
        assert seen[0] == ("clear", None) and seen[-1] == ("set", "hooks")
        assert app.screen.is_mounted
        await wait_until(pilot, lambda: not app.last_update.hooks.pending, timeout=30)
        assert app.last_update.hooks.total == 400


async def test_a_rewrite_while_the_log_is_read_in_parts_is_not_misread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The owner rotates the log (in place) while it is still being parsed in parts: the view
    keeps what was read, shows no line twice and none out of order, and says it rotated."""
    from phasewatch.core.hooklog import HookLogTailer

    (tmp_path / ".isdlc").mkdir()
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=10**9)
    for i in range(400):
        log.append(TS.format(i // 60, i % 60), "gate-blocker", "allow", None, None, f"r{i}")
    polls = 0
    real_poll = HookLogTailer.poll

    def poll(self: HookLogTailer):
        nonlocal polls
        polls += 1
        if polls == 3:  # between two parts
            kept = log.path.read_text().splitlines()[-20:]
            log.path.write_text("\n".join(kept) + "\n")
        return real_poll(self)

    monkeypatch.setattr(HookLogTailer, "poll", poll)
    app = make_app(tmp_path, session_options={"hook_read_bytes": 2048, "hook_part_seconds": 0})
    async with app.run_test(size=SIZE) as pilot:
        screen = await show(pilot, app, "2", "hooks")
        await wait_until(pilot, lambda: "hook log rotated" in screen_text(app))
        await wait_until(pilot, lambda: not app.last_update.hooks.pending, timeout=30)
        await pilot.pause()
        reasons = [r["reason"] for r in shown_records(screen)]
        numbers = [int(r[1:]) for r in reasons if r]
        assert numbers and numbers == sorted(set(numbers))  # nothing repeated or misplaced


async def test_the_hook_screen_reads_the_store_when_first_opened(tmp_path: Path) -> None:
    """Nobody opens the hook screen: it is not built, and no record is carried for it (they
    are in the session's store); opened later, it shows them all."""
    (tmp_path / ".isdlc").mkdir()
    app = make_app(tmp_path, session_options={"hook_read_bytes": 2048, "hook_part_seconds": 0})
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=10**9)
        for i in range(300):
            log.append(TS.format(i // 60, i % 60), "gate-blocker", "allow", None, None, f"r{i}")
        await wait_until(pilot, lambda: app.last_update.hooks.total == 300, timeout=30)
        assert set(app.data_screens) == {"overview"}
        screen = await show(pilot, app, "2", "hooks")
        assert [r["reason"] for r in shown_records(screen)] == [f"r{i}" for i in range(300)]


async def test_a_storm_of_writes_is_gathered_into_fewer_updates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes 40 ms apart (the watcher alone would report nearly each one) reach the screen as
    a few updates, at most one per UPDATE_GAP_S, and the newest version is the one shown."""
    import phasewatch.tui.app as app_module

    monkeypatch.setattr(app_module, "UPDATE_GAP_S", 0.5)
    state = F.feature_state()
    path = tmp_path / ".isdlc" / "state.json"
    write_state(path, state)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.watch_mode == "watching" and app.updates_applied > 0)
        await pilot.pause(0.6)
        before = app.updates_received
        started = time.monotonic()
        for v in range(100, 112):
            state["state_version"] = v
            write_state(path, state)
            await pilot.pause(0.04)
        await wait_until(pilot, lambda: app.last_update.snapshot(None).version == 111)
        # 12 writes in ~0.5 s (longer under load): the first at once, then one per gap at most
        most = 2 + (time.monotonic() - started) / app_module.UPDATE_GAP_S
        assert app.updates_received - before <= most


@pytest.mark.parametrize("freeze", [True, False])
async def test_start_up_objects_leave_the_collector_once_the_first_data_shows(
    tmp_path: Path, freeze: bool, monkeypatch
) -> None:
    """``freeze_startup`` (the command line's setting): after the first data frame the objects
    made so far are frozen (full collections no longer scan them); off by default. Either way
    the heap pages the start-up freed are then given back, once, after the freeze."""
    import gc

    import phasewatch.core.memory as memory

    trims: list[tuple[int, bool]] = []  # (objects frozen, collector on) at the trim
    monkeypatch.setattr(
        memory, "release_memory", lambda: trims.append((gc.get_freeze_count(), gc.isenabled()))
    )
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    gc.unfreeze()
    try:
        app = make_app(tmp_path, freeze_startup=freeze)
        assert gc.isenabled() != freeze  # paused for the start-up with freeze_startup only
        imported = gc.get_freeze_count()  # the modules imported by then: frozen at once
        assert (imported > 0) == freeze
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.first_data_seconds is not None)
            if freeze:  # in the warm-up thread started once the data is on screen
                await wait_until(pilot, lambda: gc.get_freeze_count() > imported + 1000)
            else:
                await pilot.pause(0.5)
                assert gc.get_freeze_count() == 0
            await wait_until(pilot, lambda: trims)
            await pilot.pause(0.2)
            assert len(trims) == 1 and (trims[0][0] > 0) == freeze
            assert trims[0][1] and gc.isenabled()  # the collector runs again
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.parametrize("ending", ["failed read", "quit before the data"])
async def test_the_collector_paused_for_the_start_up_runs_again_without_data(
    tmp_path: Path, monkeypatch, ending: str
) -> None:
    """The collector paused for the start-up runs again when no first data is coming: the first
    read failed, or the app ended before it came."""
    import gc

    import phasewatch.core.session as session_module
    import phasewatch.tui.startup as startup_module

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    if ending == "failed read":

        def broken(*_args, **_kwargs):
            raise OSError("no")

        monkeypatch.setattr(session_module, "ProjectSession", broken)
    else:
        monkeypatch.setattr(startup_module, "read_in_background", lambda *args: None)  # never ends
        monkeypatch.setattr(startup_module, "FIRST_READ_WAIT_S", 0.01)
    try:
        app = make_app(tmp_path, freeze_startup=True)
        assert not gc.isenabled()
        async with app.run_test(size=SIZE) as pilot:
            if ending == "failed read":
                await wait_until(pilot, lambda: app.read_error is not None)
                assert gc.isenabled()
            else:
                await pilot.pause(0.1)
                assert not gc.isenabled() and app.last_update is None
        assert gc.isenabled()
    finally:
        gc.unfreeze()  # (the modules, frozen as the app was built)
        gc.enable()


async def test_a_collector_switched_off_by_the_caller_stays_off(tmp_path: Path) -> None:
    """The app only starts again the collector it paused itself."""
    import gc

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    gc.disable()
    try:
        app = make_app(tmp_path, freeze_startup=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.first_data_seconds is not None)
            await pilot.pause(0.3)
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        gc.enable()


@pytest.mark.parametrize("freeze", [True, False])
async def test_a_due_full_collection_runs_once_a_key_is_answered(
    tmp_path: Path, freeze: bool, monkeypatch
) -> None:
    """With ``freeze_startup`` a full collection that is due runs once a key's answer is on
    screen, so the next key does not wait behind it: not during a data screen's first show, at
    most once a second, not when none is due. Without it the collector is left alone. The
    windows run on the test's clock and each key waits for its answer, so any load holds."""
    import gc

    import phasewatch.core.memory as memory
    import phasewatch.tui.startup as startup_module

    collected: list[float] = []
    due = [(0, 0, 10)]  # gc.get_count(): ten young collections since the last full one
    now = [1000.0]  # the collector's clock: moves only when the test moves it
    monkeypatch.setattr(gc, "freeze", lambda: None)  # (the test process's heap stays collectable)
    monkeypatch.setattr(memory, "release_memory", lambda: None)
    monkeypatch.setattr(startup_module, "collector_clock", lambda: now[0])

    def collect(generation: int = 2) -> int:  # a full collection as the callbacks see it
        info = {"generation": generation, "collected": 0, "uncollectable": 0}
        for phase in ("start", "stop"):
            for callback in list(gc.callbacks):
                callback(phase, info)
        collected.append(now[0])
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    monkeypatch.setattr(gc, "get_count", lambda: due[0])
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    gc.disable()  # no automatic full collection
    try:
        app = make_app(tmp_path, freeze_startup=freeze)
        answered: list[float] = []
        after_key = app._collect_after_key

        def spy() -> None:
            after_key()
            answered.append(now[0])

        monkeypatch.setattr(app, "_collect_after_key", spy)

        async def key(name: str, seconds_later: float) -> int:
            """Move the clock, press ``name``, wait for its answer: the collections so far."""
            now[0] += seconds_later
            count = len(answered)
            await pilot.press(name)
            if freeze:  # (its answer waits for the next refresh: one comes)
                await wait_until(
                    pilot, lambda: bool(app.screen.refresh()) and len(answered) > count
                )
            else:
                assert app._key_timer is None  # nothing is scheduled after a key
                await pilot.pause(0.2)
            return len(collected)

        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.first_data_seconds is not None)
            assert await key("3", 0) == 0  # the timeline's first show
            assert await key("1", startup_module.FIRST_SHOW_S - 0.1) == 0  # still within it
            assert await key("3", 0.1) == (1 if freeze else 0)  # a quick answer: collected
            gap = startup_module.FULL_COLLECTION_GAP_S
            assert await key("1", gap - 0.1) == (1 if freeze else 0)  # within the gap
            due[0] = (0, 0, 2)  # none due
            assert await key("3", 0.1) == (1 if freeze else 0)
            due[0] = (0, 0, 10)
            assert await key("1", 0) == (2 if freeze else 0)  # one key, one collection
            assert await key("3", 0) == (2 if freeze else 0)  # (just collected)
    finally:
        gc.enable()


async def test_before_the_first_read_every_screen_says_it_is_reading(tmp_path, monkeypatch):
    """The first frame is drawn before the project is read: until the first update no data
    screen may say a file is missing (there is a hook log, a plan and a registry here), each
    says it is reading; the first update shows the data."""
    import phasewatch.tui.startup as startup_module

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    (tmp_path / ".isdlc" / "hook-activity.log").write_text(
        json.dumps({"ts": TS.format(1, 0), "hook": "gate-blocker", "event": "allow"}) + "\n"
    )
    held: list[tuple] = []
    read = startup_module.read_in_background
    monkeypatch.setattr(startup_module, "read_in_background", lambda *args: held.append(args))
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(held))
        for key in "234561":
            await pilot.press(key)
            await pilot.pause()
            text = screen_text(app)
            assert "Reading the project files…" in text, (key, text)
            assert "missing" not in text and "No " not in text and "no " not in text, text
        assert app.updates_applied == 0
        read(*held[0])  # the read, as the app starts it
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.pause()
        text = screen_text(app)
        assert "Reading the project files…" not in text
        assert F.feature_state()["project"]["name"] in text
        await pilot.press("2")
        await wait_until(pilot, lambda: "gate-blocker" in screen_text(app))
        assert "Reading the project files…" not in screen_text(app)


@pytest.mark.parametrize("quick", [True, False])
async def test_a_quick_first_read_is_in_the_first_frame(tmp_path, monkeypatch, quick) -> None:
    """As the app mounts it waits a little for the first read: a quick one is painted in the
    first frame ("Reading..." never shows), the location matrix's rows included (Textual's
    DataTable measures new rows only when idle: an auto-height table had none in the frame
    before), a slower one after "Reading..."."""
    import threading

    import phasewatch.tui.startup as startup_module

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    name = F.feature_state()["project"]["name"]
    gate = threading.Event()
    read = startup_module.read_in_background

    def held(*args) -> None:  # the slow read ends only once the first frame is up
        threading.Thread(target=lambda: (gate.wait(10), read(*args)), daemon=True).start()

    if not quick:
        monkeypatch.setattr(startup_module, "read_in_background", held)
        monkeypatch.setattr(startup_module, "FIRST_READ_WAIT_S", 0.05)
    first_frame: list[str] = []

    class Watched(PhasewatchApp):
        def on_ready(self) -> None:
            first_frame.append(screen_text(self))
            gate.set()
            super().on_ready()

    app = Watched(tmp_path, watch=False, clock=frozen_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: bool(first_frame))
        assert (name in first_frame[0]) == quick
        current_row = re.compile(r"05-test-strategy +in_progress +in_progress +▶ A I T")
        assert bool(current_row.search(first_frame[0])) == quick, first_frame[0]
        assert ("Reading the project files…" in first_frame[0]) != quick
        await wait_until(pilot, lambda: name in screen_text(app))
        assert app._first_shown == quick  # as the app mounted, or by the watcher's message


async def test_a_first_read_that_fails_says_so_in_place_of_reading(tmp_path, monkeypatch):
    """A bug or an unexpected error in the first read: every data screen says it could not
    read the project (cleaned: no escape reaches the screen), not "Reading..." for ever."""
    import phasewatch.core.session as session_module

    def broken(*_args, **_kwargs):
        raise OSError("disk \x1b]0;gone\x07 on fire")

    monkeypatch.setattr(session_module, "ProjectSession", broken)
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.read_error is not None)
        await pilot.pause()
        for key in "21":
            await pilot.press(key)
            await pilot.pause()
            text = screen_text(app)
            assert "Could not read the project: OSError: disk  on fire" in text, text  # OSC gone
            assert "Reading the project files" not in text
        assert app.updates_applied == 0


async def test_the_first_read_starts_as_the_app_mounts_without_waiting_for_ready(tmp_path):
    """The first read starts as the app mounts, while Textual paints the first frame: it does not
    wait for Ready (the first frame on screen), nor need one (a driver that never sent it must not
    leave every screen "Reading")."""
    from textual import events

    class NoReady(PhasewatchApp):
        def on_ready(self, event: events.Ready) -> None:
            event.prevent_default()  # PhasewatchApp.on_ready never runs

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = NoReady(tmp_path, watch=False, clock=frozen_clock)
    async with app.run_test(size=SIZE) as pilot:
        assert app._read_started  # at mount, before any Ready
        # (the update lands before the repaint that shows it: wait for the picture itself)
        name = F.feature_state()["project"]["name"]
        await wait_until(pilot, lambda: name in screen_text(app))
        assert app.updates_applied > 0 and app.startup_seconds is None  # (no Ready came)


def test_svg_lines_reads_text() -> None:
    """The shared helper reads a Textual SVG's text runs as one line."""
    svg = (
        '<text class="a" x="0" y="20" textLength="24">ab</text>'
        '<text class="b" x="24.4" y="20" textLength="12">[/]</text>'
    )
    assert svg_lines(svg) == ["ab[/]"]


@pytest.mark.parametrize("watch", [True, False])
async def test_the_log_is_read_only_once_the_first_data_is_painted(tmp_path, monkeypatch, watch):
    """The first read leaves a non-empty hook log for the next refresh; that refresh (and the
    watcher's first full pass) holds the GIL for tens of ms, so it starts only once the first
    data is on screen, never between the first update and its painting."""
    import phasewatch.core.session as session_module

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    (tmp_path / ".isdlc" / "hook-activity.log").write_text(
        json.dumps({"ts": TS.format(1, 0), "hook": "gate-blocker", "event": "allow"}) + "\n"
    )
    app = make_app(tmp_path, watch=watch)
    calls: list[tuple[bool, bool]] = []  # (first read, the first data painted by then)
    refresh = session_module.ProjectSession.refresh

    def spy(session, changed=None, **kwargs):
        calls.append((bool(kwargs.get("hooks_later")), app._first_painted.is_set()))
        return refresh(session, changed, **kwargs)

    monkeypatch.setattr(session_module.ProjectSession, "refresh", spy)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.last_update is not None and app.last_update.hooks.rows > 0
        )
    assert calls[0] == (True, False)  # the first read: before any paint
    assert len(calls) > 1 and all(painted for _first, painted in calls[1:]), calls
