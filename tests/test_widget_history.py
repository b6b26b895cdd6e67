"""Pilot tests of the workflow_history view."""

from __future__ import annotations

from phasewatch.core.models import HistoryEntry
from phasewatch.widgets.history_view import HistoryView, PhaseBars, format_minutes, phase_timings
from textual.app import App, ComposeResult
from textual.widgets import OptionList, Static


def completed_entry() -> HistoryEntry:
    return HistoryEntry.model_validate(
        {
            "type": "feature",
            "description": "Rate limit the API [TODO]",
            "artifact_folder": "REQ-0031-rate-limit",
            "status": "completed",
            "started_at": "2026-03-01T09:00:00.000Z",
            "completed_at": "2026-03-01T11:30:00.000Z",
            "phases": ["05-test-strategy", "06-implementation", "08-code-review"],
            "phase_snapshots": [
                {
                    "key": "05-test-strategy",
                    "status": "completed",
                    "timing": {"wall_clock_minutes": 20},
                },
                {
                    "key": "06-implementation",
                    "status": "completed",
                    "timing": {
                        "started_at": "2026-03-01T09:30:00Z",
                        "completed_at": "2026-03-01T10:50:00Z",
                    },
                },
                {
                    "key": "08-code-review",
                    "status": "completed",
                    "started": "2026-03-01T11:00:00Z",
                    "completed": "2026-03-01T11:10:00Z",
                },
            ],
            "metrics": {"total_retries": 2, "review_gates": 3},
            "review_history": [
                {
                    "phase": "05-test-strategy",
                    "action": "continue",
                    "timestamp": "2026-03-01T09:21:00Z",
                },
                {
                    "phase": "06-implementation",
                    "action": "redo",
                    "redo_count": 1,
                    "guidance": "[@click=app.quit]add tests[/]",
                    "timestamp": "2026-03-01T10:00:00Z",
                },
                {
                    "phase": "06-implementation",
                    "action": "review",
                    "paused_at": "2026-03-01T10:51:00Z",
                    "resumed_at": "2026-03-01T10:56:00Z",
                },
            ],
        }
    )


def cancelled_entry() -> HistoryEntry:
    return HistoryEntry.model_validate(
        {
            "type": "fix",
            "description": "crash on start",
            "artifact_folder": "BUG-0007-crash",
            "status": "cancelled",
            "started_at": "2026-03-02T09:00:00.000Z",
            "cancelled_at": "2026-03-02T09:45:00.000Z",
            "cancellation_reason": "gate blocked three times [/]",
            "phases": ["01-requirements", "02-tracing"],
            "phase_snapshots": [
                {
                    "key": "01-requirements",
                    "status": "completed",
                    "timing": {"wall_clock_minutes": 15},
                }
            ],
        }
    )


class Harness(App):
    def compose(self) -> ComposeResult:
        yield HistoryView([completed_entry(), cancelled_entry()])


def test_phase_timings_use_every_source():
    timings = phase_timings(completed_entry())
    assert [(t.key, t.minutes, t.source) for t in timings] == [
        ("05-test-strategy", 20.0, "wall_clock_minutes"),
        ("06-implementation", 80.0, "timing"),
        ("08-code-review", 10.0, "started/completed"),
    ]
    partial = phase_timings(cancelled_entry())
    assert [(t.key, t.minutes) for t in partial] == [
        ("01-requirements", 15.0),
        ("02-tracing", None),
    ]
    assert format_minutes(150) == "2h30m" and format_minutes(None) == "?"


async def test_newest_first_and_cancellation_shown():
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        app.query_one(HistoryView)
        option_list = app.query_one(OptionList)
        assert option_list.option_count == 2
        assert "BUG-0007-crash" in str(option_list.get_option_at_index(0).prompt)  # newest first
        header = str(app.query_one("#history-header", Static).render())
        assert "cancelled" in header
        assert "gate blocked three times [/]" in header
        assert "total 45m" in header
        bars = app.query_one(PhaseBars)
        lines = bars.bars_text(bars.content_size.width).plain.split("\n")
        assert lines[0].startswith("01-requirements") and "█" in lines[0]
        assert "█" not in lines[1] and lines[1].rstrip().endswith("?")


async def test_bars_scale_to_the_widest_phase_at_80_columns():
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(HistoryView)
        view.select(1)
        await pilot.pause()
        bars = app.query_one(PhaseBars)
        width = bars.content_size.width
        assert 20 < width < 60
        lines = bars.bars_text(width).plain.split("\n")
        counts = [line.count("█") for line in lines]
        assert counts[1] == max(counts)  # 80 minutes: the widest phase fills the bar
        assert counts[0] == round(20 / 80 * counts[1]) and counts[2] == round(10 / 80 * counts[1])
        assert all(len(line) <= width for line in lines)
        extra = str(app.query_one("#history-extra", Static).render())
        assert "total_retries" in extra and "review_gates" in extra
        assert "continue" in extra and "redo #1" in extra and "paused 5m00s" in extra
        assert "[@click=app.quit]add tests[/]" in extra  # literal, never markup
        header = str(app.query_one("#history-header", Static).render())
        assert "Rate limit the API [TODO]" in header and "total 2h30m" in header


async def test_selection_survives_refresh_and_keys_move_it():
    app = Harness()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one(HistoryView)
        app.query_one(OptionList).focus()
        await pilot.press("down")
        await pilot.pause()
        assert view.selected.artifact_folder == "REQ-0031-rate-limit"
        newer = cancelled_entry().model_copy(
            update={"artifact_folder": "BUG-0008-new", "started_at": "2026-03-03T00:00:00Z"}
        )
        view.set_history([completed_entry(), cancelled_entry(), newer])
        await pilot.pause()
        assert view.selected.artifact_folder == "REQ-0031-rate-limit"
        assert next(e.artifact_folder for e in view.entries) == "BUG-0008-new"
        view.set_history([])
        await pilot.pause()
        assert "no finished workflows" in str(app.query_one("#history-header", Static).render())
