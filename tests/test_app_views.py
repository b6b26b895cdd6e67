"""The Framework views screen (key 7): legible at 80x24, keyboard reachable, in the help, live,
and never showing file text as markup (docs/observability.md)."""

from __future__ import annotations

import json
from pathlib import Path

from phasewatch.tui.screens.help import HelpScreen
from textual.widgets import Static

from tests.helpers.app import make_app, screen_text, show, wait_until, write_state


def state(agent: str, status: str = "running") -> dict:
    return {
        "state_version": 1,
        "active_workflow": {
            "type": "feature",
            "slug": "REQ-7-[bold]views[/bold]",
            "phases": ["01-requirements", "06-implementation"],
            "current_phase": "06-implementation",
            "current_phase_index": 1,
            "sub_agent_log": [{"agent": agent, "phase": "06-implementation", "status": status}],
        },
        "phases": {
            "01-requirements": {"status": "completed"},
            "06-implementation": {
                "status": "in_progress",
                "iteration_requirements": {
                    "test_iteration": {"current_iteration": 3, "max_iterations": 10}
                },
            },
        },
    }


def body(app) -> str:
    return str(app.screen.query_one("#views-body", Static).render())


async def test_views_screen_fits_80x24_and_follows_the_files(tmp_path: Path) -> None:
    path = tmp_path / ".isdlc" / "state.json"
    write_state(path, state("software-developer"))
    app = make_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show(pilot, app, "7", "views")
        page = screen.query_one("#views")
        assert page.region.height >= 10 and page.region.bottom <= 22
        assert app.screen.focused is page
        text = body(app)
        assert "REQ-7-[bold]views[/bold]" in text  # file text as text, never markup
        assert "● 06-implementation" in text and "3 / 10" in text
        assert "software-developer running" in text
        assert "Framework views · Building" in screen_text(app)
        write_state(path, state("code-reviewer", "completed"))
        await wait_until(
            pilot, lambda: "code-reviewer completed" in body(app), what=lambda: body(app)
        )
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        everywhere = dict(app.help_sections())["Everywhere"]
        assert [b.description for b in everywhere if getattr(b, "key", None) == "7"] == ["Views"]


async def test_an_unreadable_index_is_said_on_the_screen(tmp_path: Path) -> None:
    write_state(tmp_path / ".isdlc" / "state.json", state("a"))
    (tmp_path / ".isdlc" / "analysis-index.json").write_text(json.dumps([1]))
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await show(pilot, app, "7", "views")
        assert ".isdlc/analysis-index.json: not object" in body(app)


async def test_the_screen_drops_an_analysis_that_aged_out(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    now = datetime.now(UTC)
    items = [{"slug": "REQ-9-x", "last_activity_at": now.isoformat(), "analysis_status": "raw"}]
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "analysis-index.json").write_text(json.dumps({"items": items}))
    write_state(tmp_path / ".isdlc" / "state.json", {"state_version": 1})
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await show(pilot, app, "7", "views")
        assert "Active: REQ-9-x" in body(app)
        screen.clock = lambda: now.timestamp() + 180  # type: ignore[attr-defined]
        screen.check_window()  # type: ignore[attr-defined]
        await pilot.pause()
        assert "No analysis active" in body(app)
        assert "Framework views · Idle" in screen_text(app)


def test_the_page_traces_the_newest_workflow_by_the_writers_names(tmp_path: Path) -> None:
    from collections import defaultdict

    from phasewatch.core.observe import load_observed
    from phasewatch.core.sources import discover
    from phasewatch.widgets.framework_views import render
    from rich.style import Style

    from tests.helpers.observe_compare import materialize, records

    head, recs = records()
    rec = next(r for r in recs if '"key"' in r["files"][".isdlc/state.json"])
    materialize(head, rec, tmp_path)
    data = load_observed(discover(tmp_path))
    text = render(data, defaultdict(Style)).plain
    newest = data["traces"][-1]
    assert "Last workflow trace" in text and f"{newest['slug']} ({newest['type']})" in text
    for row in newest["phases"]:
        assert f"{row['phase']}  " in text
    assert "unknown  --  --" not in text  # what the framework's own trace prints there
