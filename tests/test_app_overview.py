"""Pilot tests of the app and its Overview, driven by a real directory the watcher follows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens import HelpScreen, OverviewScreen, ProjectSwitcher
from phasewatch.widgets.findings_list import FindingsList
from phasewatch.widgets.header import OverviewHeader
from phasewatch.widgets.location_matrix import LocationMatrix
from phasewatch.widgets.pipeline import Pipeline
from phasewatch.widgets.status_bar import StatusBar
from rich.style import Style

from tests import factories as F
from tests.helpers.app import frozen_clock, make_app, screen_text, wait_until, write_state

SIZE = (120, 40)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    return tmp_path


def state_file(root: Path) -> Path:
    return root / ".isdlc" / "state.json"


def overview(app: PhasewatchApp) -> OverviewScreen:
    screen = app.data_screens["overview"]
    assert isinstance(screen, OverviewScreen)
    return screen


def header_text(app: PhasewatchApp) -> str:
    return overview(app).query_one(OverviewHeader).text


async def started(pilot, app: PhasewatchApp) -> None:
    await wait_until(pilot, lambda: app.updates_applied > 0 and overview(app).applied > 0)


def flagged(text) -> bool:
    """Drawn in the error-cell style (reverse) by the location matrix."""
    return isinstance(text.style, Style) and bool(text.style.reverse)


async def test_overview_shows_the_state(repo: Path) -> None:
    state = F.feature_state()
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        text = header_text(app)
        assert state["project"]["name"] in text
        assert "feature" in text and "REQ-0031-rate-limit" in text
        assert f"v{state['state_version']}" in text
        assert "budget on_track" in text
        pipeline = overview(app).query_one(Pipeline).text
        for key in state["active_workflow"]["phases"]:
            assert key in pipeline
        assert "✓ 00-quick-scan" in pipeline and "● 05-test-strategy" in pipeline
        matrix = overview(app).query_one(LocationMatrix)
        assert list(matrix.rows) == state["active_workflow"]["phases"]
        assert matrix.cell_text("05-test-strategy", "pointers").plain == "  ▶ A I T"
        assert matrix.cell_text("05-test-strategy", "agent").plain == "test-design-engineer"
        # the watch starts once the first data is painted (its first pass waits for that)
        await wait_until(pilot, lambda: app.watch_mode == "watching")
        await wait_until(pilot, lambda: "watching" in overview(app).query_one(StatusBar).text)
        assert f"v{state['state_version']}" in overview(app).query_one(StatusBar).text


async def test_screen_converges_after_a_write(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        nxt = F.complete(F.feature_state())
        write_state(state_file(repo), nxt)
        await wait_until(pilot, lambda: f"v{nxt['state_version']}" in header_text(app))
        matrix = overview(app).query_one(LocationMatrix)
        await wait_until(
            pilot, lambda: matrix.cell_text("05-test-strategy", "detail").plain == "completed"
        )
        # incremental: cells updated in place, the table was never rebuilt
        assert matrix.rebuilds == 0 and matrix.cell_updates > 0


async def test_burst_of_writes_converges_to_the_final_content(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        state = F.feature_state()
        for i in range(500):
            state = F.setpath(F.bump(state), "project.description", f"write {i}")
            write_state(state_file(repo), state)
        final = state["state_version"]
        await wait_until(pilot, lambda: f"v{final}" in header_text(app))
        session = app.session
        assert session is not None
        assert session.timeline[-1].state_version == final
        # updates were coalesced (fewer applied than writes) yet nothing regressed
        assert app.updates_applied < 500
        assert overview(app).query_one(LocationMatrix).rebuilds == 0


async def test_divergent_state_highlights_cells_and_lists_the_finding(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        bad = F.setpath(F.bump(F.feature_state()), "phases.05-test-strategy.status", "pending")
        write_state(state_file(repo), bad)
        findings = overview(app).query_one(FindingsList)
        await wait_until(
            pilot, lambda: any(i.finding.rule_id == "SYNC-STATUS" for i in findings.items.values())
        )
        matrix = overview(app).query_one(LocationMatrix)
        detail = matrix.cell_text("05-test-strategy", "detail")
        summary = matrix.cell_text("05-test-strategy", "summary")
        assert detail.plain == "pending" and flagged(detail)
        assert summary.plain == "in_progress" and flagged(summary)
        assert not flagged(matrix.cell_text("05-test-strategy", "agent"))
        assert not flagged(matrix.cell_text("04-design", "detail"))
        assert not flagged(matrix.cell_text("04-design", "summary"))
        # the explanation of the (followed) divergent row is shown
        await pilot.pause()
        text = screen_text(app)
        assert "05-test-strategy disagrees" in text
        assert "SYNC-STATUS" in text
        # the transition (status went down) is kept as a recent event
        assert any(
            i.event is not None and i.finding.rule_id == "TR-STATUS-DOWN"
            for i in findings.items.values()
        )
        # new error findings were announced
        assert overview(app).notified
        # detail pane for the selected finding
        key = next(k for k, i in findings.items.items() if i.finding.rule_id == "SYNC-STATUS")
        assert findings.select(key)
        await pilot.pause()
        text = screen_text(app)
        assert "expected" in text and "what to do" in text
        assert "seed" not in text and "FORMATS" not in text  # plain words on screen


async def test_torn_read_is_shown_in_the_status_bar(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        version = F.feature_state()["state_version"]
        data = json.dumps(F.bump(F.feature_state()), indent=2)
        state_file(repo).write_text(data[: len(data) // 2])
        bar = overview(app).query_one(StatusBar)
        await wait_until(pilot, lambda: "torn read" in bar.text)
        assert f"showing v{version} from 14:00:00" in bar.text.replace(
            frozen_clock().astimezone().strftime("%H:%M:%S"), "14:00:00"
        )
        assert f"v{version}" in header_text(app)  # last good data stays on screen
        state_file(repo).unlink()
        await wait_until(pilot, lambda: "vanished" in bar.text)


async def test_screens_keys_help_and_theme(repo: Path) -> None:
    app = make_app(repo)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        for key, name in zip(
            "23456", ("hooks", "timeline", "history", "tdd", "plugins"), strict=True
        ):
            await pilot.press(key)
            await wait_until(pilot, lambda n=name: app.current_mode == n)
            assert app.screen is app.data_screens[name]
        text = screen_text(app)
        assert "No plugin registry" in text
        await pilot.press("3")
        await wait_until(pilot, lambda: "first observation" in screen_text(app))
        await pilot.press("1")
        await wait_until(pilot, lambda: app.current_mode == "overview")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        listed = {key for keys, _d, _w in help_screen.rows for key in keys.split(", ")}
        for binding in app.BINDINGS:
            assert app.get_key_display(binding) in listed  # type: ignore[arg-type]
        assert "command palette" in help_screen.text
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpScreen))
        theme = app.theme
        await pilot.press("ctrl+t")
        assert app.theme != theme
        await pilot.press("ctrl+t")
        assert app.theme == theme


async def test_monorepo_project_switcher(tmp_path: Path) -> None:
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
    write_state(isdlc / "projects" / "api" / "state.json", F.feature_state())
    web = F.setpath(
        F.fix_state(),
        "pending_escalations",
        [{"type": "gate_blocked", "hook": "gate-blocker", "phase": "06-implementation"}],
    )
    write_state(isdlc / "projects" / "web" / "state.json", web)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert "REQ-0031-rate-limit" in header_text(app)
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, ProjectSwitcher))
        switcher = app.screen
        assert isinstance(switcher, ProjectSwitcher)
        lines = {line.project_id: line for line in switcher.lines}
        assert lines["web"].attention == 1 and lines["web"].phase == "06-implementation"
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: "BUG-0007-null-session" in header_text(app))
        assert app.project_id == "web"
        assert "ESCALATION" in header_text(app)


async def test_app_without_watcher_reads_once(repo: Path) -> None:
    app = make_app(repo, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        assert app.watch_mode == "once"
        assert "acme" in header_text(app).lower() or F.feature_state()["project"][
            "name"
        ] in header_text(app)


async def test_matrix_columns_grow_for_values_that_arrive_later(tmp_path: Path) -> None:
    """A column is sized by the first values it holds; an agent that only appears in a later
    write must still show in full (DataTable.update_cell does not grow a column by default)."""
    state = F.feature_state()
    state["active_agent"] = None
    write_state(state_file(tmp_path), state)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot, app)
        later = F.bump(state)
        later["active_agent"] = "test-design-engineer"
        write_state(state_file(tmp_path), later)
        matrix = overview(app).query_one(LocationMatrix)
        await wait_until(pilot, lambda: matrix.cell_updates > 0)
        await pilot.pause()
        assert "test-design-engineer" in screen_text(app)
