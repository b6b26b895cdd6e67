"""Untrusted text (DESIGN.md): file strings render literally, run no action, emit no escape byte.

A state file carries markup-looking text and an OSC escape in EVERY string field (project name,
description, phase keys, statuses, agent, summaries, escalation detail, unknown keys); so do the
hook log, the TDD plan and the plugin registry. Every screen is shown; clicks land on the text.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from phasewatch.core.simulate.files import HookLog
from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens import HelpScreen, OverviewScreen, ProjectSwitcher
from phasewatch.tui.screens.attention import AttentionScreen
from phasewatch.tui.screens.escalations import EscalationsScreen
from phasewatch.tui.screens.plan import PlanScreen
from phasewatch.tui.screens.review import GatePanel
from phasewatch.widgets.findings_list import FindingsList
from phasewatch.widgets.header import OverviewHeader
from textual.pilot import Pilot

from tests.helpers.app import frozen_clock, screen_text, svg_lines, wait_until, write_state

OSC = "\x1b]0;x\x07"
EVIL = "[/] [TODO] [@click=app.quit]x[/] [[b]]x[/b]] " + OSC
LITERALS = ("[/]", "[TODO]", "[@click=app.quit]x[/]", "[[b]]x[/b]]")


def evil_state() -> dict[str, Any]:
    k1 = "05-test[/]" + OSC
    k2 = "06-[TODO]impl"
    k3 = "08-[@click=app.quit]x[/]"
    phases = [k1, k2, k3]
    return {
        "state_version": 41,
        "schema_version": 1,
        "project": {"name": "proj " + EVIL, "created": EVIL, "description": EVIL},
        "current_phase": k2,
        "active_agent": "agent " + EVIL,
        "phases": {
            k1: {
                "status": "completed",
                "started": "2026-03-04T09:00:00.000Z",
                "completed": "2026-03-04T09:10:00.000Z",
                "gate_passed": EVIL,
                "artifacts": [EVIL],
                "summary": "summary " + EVIL,
                "timing": {"started_at": "2026-03-04T09:00:00.000Z", "wall_clock_minutes": 10},
            },
            k2: {
                "status": "in_progress " + EVIL,
                "started": "2026-03-04T09:10:00.000Z",
                "completed": None,
                "gate_passed": None,
                "artifacts": [],
                "summary": EVIL,
            },
            k3: {"status": "pending", "started": None, "artifacts": [], EVIL: EVIL},
        },
        "active_workflow": {
            "type": "feature " + EVIL,
            "description": "desc " + EVIL,
            "slug": EVIL,
            "artifact_folder": "REQ-[/]" + EVIL,
            "phases": phases,
            "current_phase": k2,
            "current_phase_index": 1,
            "phase_status": {k1: "completed", k2: "in_progress", k3: "pending " + EVIL},
            "started_at": "2026-03-04T09:00:00.000Z",
            "budget_status": "on_track " + EVIL,
            "supervised_review": {"phase": k1 + EVIL, "status": "gate_presented", "redo_count": 0},
            EVIL: EVIL,
        },
        "pending_escalations": [
            {
                "type": "gate_blocked " + EVIL,
                "hook": "gate-blocker " + EVIL,
                "phase": k2,
                "detail": "line one " + EVIL + "\nline two " + EVIL,
                "timestamp": "2026-03-04T09:20:00.000Z",
            }
        ],
        "supervised_mode": {"enabled": True, "review_phases": "all"},
        "workflow_history": [
            {
                "type": EVIL,
                "status": "completed " + EVIL,
                "description": EVIL,
                "artifact_folder": EVIL,
            }
        ],
        EVIL: {"nested " + EVIL: [EVIL]},
    }


def populate(root: Path) -> None:
    write_state(root / ".isdlc" / "state.json", evil_state())
    log = HookLog(root / ".isdlc" / "hook-activity.log")
    log.append("2026-03-04T09:00:00.000Z", "gate " + EVIL, "block", EVIL, EVIL, "reason " + EVIL)
    log.append(EVIL, EVIL, "event " + EVIL, EVIL, EVIL, EVIL)
    with open(log.path, "a", encoding="utf-8") as fh:
        fh.write("not json " + EVIL + "\n")
    (root / ".tdd-progress.md").write_text(
        f"# TDD Task: {EVIL}\n\n**Status:** {EVIL}\n**Created:** {EVIL}\n\n"
        f"## Slice 1: {EVIL}\n\n**Status:** {EVIL}\n- **RED:** {EVIL}\n"
    )
    (root / "PLUGINS.md").write_text(
        "| Plugin Name | Status | Version | Last Updated |\n|---|---|---|---|\n"
        f"| {EVIL} | 🚧 Stage 1 {EVIL} | 1.0 | {EVIL} |\n\n### {EVIL}\n\n**Status:** {EVIL}\n"
    )


class Spy:
    def __init__(self) -> None:
        self.calls: list[str] = []


def assert_literal(app: PhasewatchApp, svg: str, must: tuple[str, ...] = LITERALS) -> None:
    """``svg`` (the screen just exported) holds no escape and shows every string of ``must``."""
    assert "\x1b" not in svg and "\x07" not in svg and "\x9b" not in svg
    text = "\n".join(svg_lines(svg))  # the same picture as text (an export costs ~0.1 s)
    for literal in must:
        assert literal in text, (literal, text)


@asynccontextmanager
async def evil_app(tmp_path: Path) -> AsyncIterator[tuple[PhasewatchApp, Pilot[None], Spy]]:
    """The app over :func:`populate`'s files, its overview applied, ``quit`` spied on."""
    populate(tmp_path)
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watcher_options={"reconcile_interval": 0.5})
    spy = Spy()

    async def fake_quit() -> None:
        spy.calls.append("quit")

    app.action_quit = fake_quit  # type: ignore[method-assign]
    async with app.run_test(size=(160, 50)) as pilot:
        overview = app.data_screens["overview"]
        assert isinstance(overview, OverviewScreen)
        await wait_until(pilot, lambda: overview.applied > 0)
        yield app, pilot, spy
        assert spy.calls == [] and app.is_running


# Every string renders literally and runs nothing: three parts (each its own app, so the
# workers share them), the overview, the other screens, the review console.


async def test_the_overview_renders_literally_and_runs_nothing(tmp_path: Path) -> None:
    async with evil_app(tmp_path) as (app, pilot, spy):
        overview = app.data_screens["overview"]
        # the review gate panel (g) over the overview: its text is literal too
        await wait_until(pilot, lambda: app.review.waiting_gate() is not None)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GatePanel))
        await wait_until(pilot, lambda: app.screen.summary_loaded)
        await pilot.pause()
        assert_literal(app, app.export_screenshot())
        await pilot.press("escape")
        await pilot.pause()
        header = overview.query_one(OverviewHeader).text
        assert "proj [/] [TODO] [@click=app.quit]x[/] [[b]]x[/b]]" in header
        assert "\x1b" not in header
        assert_literal(app, app.export_screenshot())

        # click over the rendered text: header, pipeline, matrix, findings
        for widget_id in ("#header", "#pipeline", "#matrix", "#findings"):
            widget = overview.query_one(widget_id)
            for x in range(0, min(widget.size.width, 120), 15):
                await pilot.click(widget_id, offset=(x, 0))
        await pilot.pause()
        assert spy.calls == [] and app.is_running

        # select each finding: the detail pane shows expected/actual/message literally
        findings = overview.query_one(FindingsList)
        for key in list(findings.items)[:10]:
            findings.select(key)
            await pilot.pause()
            assert "\x1b" not in app.export_screenshot()

        # a new version with evil text raises new findings -> notifications (markup off)
        nxt = evil_state()
        nxt["state_version"] = 42
        nxt["phases"]["06-[TODO]impl"]["status"] = "pending"
        nxt["active_workflow"]["phase_status"]["06-[TODO]impl"] = "completed"
        write_state(tmp_path / ".isdlc" / "state.json", nxt)
        await wait_until(pilot, lambda: "v42" in overview.query_one(OverviewHeader).text)
        await pilot.pause()
        assert_literal(app, app.export_screenshot(), ("[/]", "[TODO]"))


async def test_the_other_screens_render_literally_and_run_nothing(tmp_path: Path) -> None:
    async with evil_app(tmp_path) as (app, pilot, spy):
        # every other screen, the help screen and the project switcher
        for key in "234567":
            await pilot.press(key)
            await pilot.pause()
            svg = app.export_screenshot()
            assert "\x1b" not in svg and "\x07" not in svg
            for x in range(0, 120, 20):
                await pilot.click(offset=(x, 2))
        await pilot.press("2")
        await wait_until(pilot, lambda: "[@click=app.quit]x[/]" in screen_text(app))
        await pilot.press("5")
        await wait_until(pilot, lambda: "[TODO]" in screen_text(app))
        await pilot.press("1", "question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await pilot.press("p")  # not a monorepo: a notification, no modal
        await pilot.pause()
        assert not isinstance(app.screen, ProjectSwitcher)
        assert spy.calls == [] and app.is_running


async def test_the_review_console_renders_literally_and_runs_nothing(tmp_path: Path) -> None:
    async with evil_app(tmp_path) as (app, pilot, spy):
        # the review console: escalations (detail), plan approval, the attention queue
        for key, cls, literals in (
            ("e", EscalationsScreen, LITERALS),
            ("a", PlanScreen, ("[TODO]",)),
            ("w", AttentionScreen, ("[TODO]",)),
        ):
            await pilot.press(key)
            await wait_until(pilot, lambda cls=cls: isinstance(app.screen, cls))
            await wait_until(pilot, lambda: app.screen.applied > 0)
            # the TDD plan may reach the screen an update after its first (a busy machine)
            await wait_until(
                pilot,
                lambda lits=literals: all(x in screen_text(app) for x in lits),
                what=lambda lits=literals, key=key: (
                    f"after {key!r}, {type(app.screen).__name__} (update"
                    f" {getattr(app.screen, 'applied', None)}) lacks"
                    f" {[x for x in lits if x not in screen_text(app)]}:\n{screen_text(app)}"
                ),
            )
            assert_literal(app, app.export_screenshot(), literals)
            for x in range(0, 120, 20):
                await pilot.click(offset=(x, 3))
        assert spy.calls == [] and app.is_running


async def test_title_and_notifications_are_plain(tmp_path: Path) -> None:
    populate(tmp_path)
    app = PhasewatchApp(tmp_path, clock=frozen_clock)
    async with app.run_test(size=(120, 36)) as pilot:
        overview = app.data_screens["overview"]
        await wait_until(pilot, lambda: overview.applied > 0)
        app.notify(EVIL.replace(OSC, ""), markup=False)  # the way the app notifies file text
        await pilot.pause()
        text = screen_text(app)
        assert "[@click=app.quit]x[/]" in text
        assert app.is_running


def test_evil_state_is_valid_json() -> None:
    # the fixture itself must parse (so the test exercises rendering, not read errors)
    json.loads(json.dumps(evil_state()))


# ---------------------------------------------------------------------------- hostile names

#: A name that sets the clipboard (OSC 52), the title and clears the screen when printed raw.
NAME = "x\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\x1b[2J\x9b31my"


def hostile_names(tmp_path: Path) -> Path:
    """Names from listings and paths carry escapes: the root directory, a monorepo project
    directory (its id), a plugin directory (and the plugin its notes name)."""
    root = tmp_path / f"proj{NAME}"
    isdlc = root / ".isdlc"
    write_state(isdlc / "projects" / NAME / "state.json", evil_state())
    write_state(isdlc / "projects" / "api" / "state.json", evil_state())
    (isdlc / "monorepo.json").write_text('{"version": 1, "projects": {}}')
    notes = root / "plugins" / NAME / ".continue-here.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(f"---\nplugin: {NAME}\nstage: 1\n---\n", encoding="utf-8")
    (root / "PLUGINS.md").write_text("| Plugin Name | Status |\n|---|---|\n| Foo | x |\n")
    return root


def assert_clean(app: PhasewatchApp) -> None:
    svg = app.export_screenshot()
    for bad in ("\x1b", "\x07", "\x9b", "52;c;"):
        assert bad not in svg, (bad, type(app.screen).__name__)
    assert "pwned" not in "\n".join(svg_lines(svg))


async def test_names_from_listings_never_reach_the_screen_raw(tmp_path: Path) -> None:
    root = hostile_names(tmp_path)
    app = PhasewatchApp(root, clock=frozen_clock, watch=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.pause()
        if isinstance(app.screen, GatePanel):
            assert_clean(app)
            await pilot.press("escape")
        for key in "1234567":
            await pilot.press(key)
            await wait_until(pilot, lambda: app.screen.applied > 0)
            await pilot.pause()
            assert_clean(app)
        await pilot.press("1", "p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProjectSwitcher))
        assert_clean(app)
        for _ in range(2):  # every project: the header, the matrix, the findings name it
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: not isinstance(app.screen, ProjectSwitcher))
            await pilot.pause()
            if isinstance(app.screen, GatePanel):
                assert_clean(app)
                await pilot.press("escape")
            assert_clean(app)
            await pilot.press("p")
            await wait_until(pilot, lambda: isinstance(app.screen, ProjectSwitcher))
        await pilot.press("escape")
        for key in "wea":
            await pilot.press(key)
            await pilot.pause()
            assert_clean(app)
        assert app.is_running
