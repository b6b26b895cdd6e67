"""Pilot tests of the state timeline and the diff pane."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from phasewatch.core.findings import Finding, Severity
from phasewatch.core.timeline import TimelineEntry, make_entry
from phasewatch.widgets._style import theme_styles
from phasewatch.widgets.diff_view import DiffView
from phasewatch.widgets.timeline_view import TimelineView
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

T0 = datetime(2026, 3, 4, 9, 0, 0, tzinfo=UTC)


def documents() -> list[dict]:
    doc = {
        "state_version": 10,
        "current_phase": "05-test-strategy",
        "active_workflow": {
            "current_phase_index": 0,
            "phase_status": {"05-test-strategy": "in_progress", "06-implementation": "pending"},
        },
        "phases": {"05-test-strategy": {"status": "in_progress"}},
        "skill_usage_log": [],
    }
    docs = [doc]
    d = copy.deepcopy(doc)
    d["state_version"] = 11
    d["phases"]["05-test-strategy"]["status"] = "completed"
    d["active_workflow"]["phase_status"]["05-test-strategy"] = "completed"
    d["active_workflow"]["current_phase_index"] = 1
    docs.append(d)
    d = copy.deepcopy(d)
    d["state_version"] = 12
    d["current_phase"] = "06-implementation"
    d["skill_usage_log"].append({"skill": "[@click=app.quit]x[/]"})
    docs.append(d)
    d = copy.deepcopy(d)
    d["state_version"] = 13
    d["note"] = "[/]"
    docs.append(d)
    return docs


def entries() -> list[TimelineEntry]:
    docs = documents()
    out = []
    for i, doc in enumerate(docs):
        out.append(
            make_entry(i, doc, docs[i - 1] if i else None, observed_at=T0 + timedelta(seconds=i))
        )
    out[2].findings = [
        Finding("T-INDEX-SKIP", Severity.ERROR, "s", "x", 1, 2, "m", "h"),
        Finding("T-WARN", Severity.WARNING, "s", "y", 1, 2, "m", "h"),
    ]
    return out


class Harness(App):
    def compose(self) -> ComposeResult:
        yield TimelineView()


def diff_paths(app: App) -> list[str]:
    return [c.path for c in app.query_one(DiffView).changes]


async def test_rows_appended_and_default_diff_is_against_predecessor():
    app = Harness()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TimelineView)
        es = entries()
        view.add_entries(es[:2])
        await pilot.pause()
        table = app.query_one("#timeline-table", DataTable)
        assert table.row_count == 2
        # the cursor follows the newest row: diff #0 -> #1
        assert diff_paths(app) == [
            "state_version",
            "active_workflow.current_phase_index",
            "active_workflow.phase_status.05-test-strategy",
            "phases.05-test-strategy.status",
        ]
        row = table.get_row("1")
        assert row[5].plain == (
            "active_workflow.current_phase_index, "
            "active_workflow.phase_status.05-test-strategy, phases.05-test-strategy.status"
        )
        assert table.get_row("0")[5].plain == "first observation"
        view.add_entry(es[2])
        view.add_entry(es[3])
        await pilot.pause()
        assert table.row_count == 4
        assert diff_paths(app) == ["state_version", "note"]
        # re-adding a seq updates its row in place
        es[3].state_version = 99
        view.add_entry(es[3])
        await pilot.pause()
        assert table.row_count == 4 and table.get_row("3")[3].plain == "99"
        # findings column: rule ids coloured by severity
        cell: Text = table.get_row("2")[4]
        assert cell.plain == "T-INDEX-SKIP T-WARN"
        error = theme_styles(app)["error"]  # the theme's colour, not a fixed name
        assert any(span.style == error for span in cell.spans)
        app.theme = "nord"  # another error colour (textual-dark and -light share theirs)
        await pilot.pause()
        light = theme_styles(app)["error"]
        assert light != error
        cell = table.get_row("2")[4]
        assert any(span.style == light for span in cell.spans)  # follows the theme


async def test_two_marked_rows_show_their_diff():
    app = Harness()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TimelineView)
        view.add_entries(entries())
        await pilot.pause()
        table = app.query_one("#timeline-table", DataTable)
        table.focus()
        table.move_cursor(row=0)
        await pilot.press("space")
        table.move_cursor(row=3)
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        assert view.marks == [0, 3]
        assert table.get_row("0")[0].plain == "A" and table.get_row("3")[0].plain == "B"
        assert diff_paths(app) == [
            "state_version",
            "current_phase",
            "active_workflow.current_phase_index",
            "active_workflow.phase_status.05-test-strategy",
            "phases.05-test-strategy.status",
            "skill_usage_log[0]",
            "note",
        ]
        kinds = {c.path: c.kind for c in app.query_one(DiffView).changes}
        assert kinds["skill_usage_log[0]"] == "added" and kinds["current_phase"] == "changed"
        # moving the cursor does not change a two-mark comparison
        table.move_cursor(row=1)
        await pilot.pause()
        assert len(diff_paths(app)) == 7
        await pilot.press("escape")
        await pilot.pause()
        assert view.marks == []
        assert diff_paths(app) == [
            "state_version",
            "active_workflow.current_phase_index",
            "active_workflow.phase_status.05-test-strategy",
            "phases.05-test-strategy.status",
        ]


async def test_hostile_values_render_literally():
    app = Harness()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TimelineView)
        es = entries()
        view.add_entries(es)
        view.mark(0)
        view.mark(3)
        await pilot.pause()
        diff_table = app.query_one(DiffView).table
        cells = [str(c) for r in range(diff_table.row_count) for c in diff_table.get_row_at(r)]
        assert any("[@click=app.quit]x[/]" in c for c in cells)
        assert any('"[/]"' in c for c in cells)
        await pilot.pause()
        assert app.is_running


async def test_first_observation_and_clear():
    app = Harness()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(TimelineView)
        view.add_entry(entries()[0])
        await pilot.pause()
        assert diff_paths(app) == []
        assert "first observation" in app.query_one(DiffView).title
        view.clear()
        await pilot.pause()
        assert app.query_one("#timeline-table", DataTable).row_count == 0
