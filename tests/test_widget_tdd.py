"""Pilot tests of the TDD plan board."""

from __future__ import annotations

from phasewatch.core.tdd import audit_tdd, parse_progress, true_remaining
from phasewatch.widgets.tdd_board import TddBoard
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

from tests.helpers.app import wait_until as wait_for

# Template-style slices (### Slice) are invisible to the stop hook, and the header says done.
PLAN = """# TDD Task: Rate limiter [TODO]

**Status:** done
**Created:** 2026-03-01
**Last Updated:** 2026-03-02T10:00:00Z

## Test Specifications

### Slice 1: Token bucket [/]

**Status:** done

- **RED:** test_bucket_refills written
- **GREEN:** implemented
- **REFACTOR:** done

**Depends on:** none | **Blocks:** 2

### Slice 2: Middleware [@click=app.quit]x[/]

**Status:** in-progress

- **RED:** written
- **GREEN:** pending
- **REFACTOR:** pending

**Depends on:** 1 | **Blocks:** none

### Slice 3: Headers

**Status:** pending
"""

# Planner style, approved, header in progress: the hook counts what the file holds.
APPROVED = (
    PLAN.replace(
        "**Last Updated:** 2026-03-02T10:00:00Z",
        "**Last Updated:** 2026-03-02T10:00:00Z\n**Approved:** 2026-03-02T09:00:00Z",
    )
    .replace("### Slice", "## Slice")
    .replace("**Status:** done\n**Created", "**Status:** in-progress\n**Created")
)


class Harness(App):
    def compose(self) -> ComposeResult:
        yield TddBoard()


def text_of(app: App, selector: str) -> str:
    return str(app.query_one(selector, Static).render())


async def test_unapproved_plan_and_mismatch_flagged():
    plan = parse_progress(PLAN)
    plan.lock_exists = True
    true_n, hook_n = true_remaining(plan), plan.hook.remaining
    assert (true_n, hook_n) == (2, 0)  # the hook sees no "## Slice" heading: nothing left
    app = Harness()
    async with app.run_test(size=(100, 36)) as pilot:
        board = app.query_one(TddBoard)
        board.set_plan(plan, findings=audit_tdd(plan, ".tdd-progress.md"))
        await pilot.pause()
        header = text_of(app, "#tdd-header")
        assert "Rate limiter [TODO]" in header and "2026-03-01" in header
        approval = app.query_one("#tdd-approval", Static)
        assert "NOT APPROVED" in str(approval.render())
        assert ".tdd-plan-locked present" in str(approval.render())
        assert approval.has_class("-unapproved")
        counts = app.query_one("#tdd-counts", Static)
        assert counts.has_class("-mismatch") and board.counts_differ
        rendered = str(counts.render())
        assert "remaining slices 2" in rendered and "counts 0" in rendered
        assert "lets the session stop (plan not approved)" in rendered
        assert "DIFFERENT" in rendered and "stop with work left" in rendered
        table = app.query_one(DataTable)
        assert table.row_count == 3
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(3)]
        assert rows[0][1] == "Token bucket [/]" and "done" in rows[0][2]
        assert rows[1][1] == "Middleware [@click=app.quit]x[/]" and "in progress" in rows[1][2]
        assert rows[1][3] == "written" and rows[1][6] == "1"
        assert rows[0][7] == "2"
        assert "TDD-" in text_of(app, "#tdd-findings")
        await pilot.pause()
        assert app.is_running


async def test_approved_plan_counts_agree():
    plan = parse_progress(APPROVED)
    app = Harness()
    async with app.run_test(size=(100, 36)) as pilot:
        board = app.query_one(TddBoard)
        board.set_plan(plan, lock_present=False)
        await pilot.pause()
        approval = app.query_one("#tdd-approval", Static)
        assert "Approved at 2026-03-02T09:00:00Z" in str(approval.render())
        assert approval.has_class("-approved") and not approval.has_class("-unapproved")
        counts = app.query_one("#tdd-counts", Static)
        rendered = str(counts.render())
        assert not counts.has_class("-mismatch") and "(agree)" in rendered
        assert "stop hook: blocks the stop, counts 2" in rendered
        assert (board.true_remaining, board.hook_remaining) == (2, 2)
        board.set_plan(None)
        await pilot.pause()
        assert "no .tdd-progress.md" in text_of(app, "#tdd-header")
        assert app.query_one(DataTable).row_count == 0


async def test_a_rejected_marker_is_shown_as_not_approval():
    plan = parse_progress(APPROVED.replace("**Approved:**", "- **Approved:**"))
    app = Harness()
    async with app.run_test(size=(100, 36)) as pilot:
        board = app.query_one(TddBoard)
        board.set_plan(plan)
        await pilot.pause()
        approval = text_of(app, "#tdd-approval")
        assert "NOT APPROVED" in approval and "line 6 looks like a marker" in approval
        assert "lets the session stop (plan not approved)" in text_of(app, "#tdd-counts")


async def test_tdd_and_plan_screens_show_one_stop_hook_verdict(tmp_path):
    """The same file gave "-1 ... DIFFERENT" on the plan screen and "0 (agree)" on the TDD
    screen; both boards now read the plan's one hook verdict."""
    from phasewatch.tui.screens.plan import PlanScreen

    from tests.helpers.app import footer_keys, make_app, show

    done_everywhere = APPROVED.replace("**Approved:** 2026-03-02T09:00:00Z\n", "")
    done_everywhere = done_everywhere.replace("in-progress", "done").replace("pending", "done")
    (tmp_path / ".tdd-progress.md").write_text(done_everywhere, encoding="utf-8")
    assert parse_progress(done_everywhere).hook.remaining == -1  # the header is subtracted too
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await show(pilot, app, "5", "tdd")
        on_tdd = str(screen.query_one("#tdd-counts", Static).render())
        await wait_for(pilot, lambda: "a" in footer_keys(app))
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen.applied)
        on_plan = str(app.screen.query_one("#tdd-counts", Static).render())
    assert on_tdd == on_plan
    assert "remaining slices 0" in on_tdd and "counts 0" in on_tdd and "(agree)" in on_tdd


def test_no_dependency_is_a_dash_not_the_word_none():
    from phasewatch.widgets.tdd_board import _numbers

    for raw in ("None", "none", "N/A", "-", "**None**", None, ""):
        assert _numbers([], raw) == "—", raw
    assert _numbers([1, 2], "1, 2") == "1, 2"
    assert _numbers([], "slice 3 (partly)") == "slice 3 (partly)"


def _many_slices(n: int, unfinished_from: int) -> str:
    head = "# TDD Task: many\n\n**Approved:** 2026-03-02T09:00:00Z\n\n"
    return head + "".join(
        f"## Slice {i}: s{i}\n**Status:** {'pending' if i >= unfinished_from else 'done'}\n\n"
        for i in range(1, n + 1)
    )


async def test_a_plan_past_a_screenful_holds_bounded_rows_and_says_how_many_more(tmp_path):
    """A plan at the read cap holds ~125,000 slices: the table holds the first ROWS_SHOWN, the
    board says how many more there are, the counts stay over all of them, and `u` names the
    next unfinished slice past the rows shown instead of finding none."""
    from phasewatch.widgets.tdd_board import ROWS_SHOWN

    from tests.helpers.app import make_app, show

    total = ROWS_SHOWN + 250
    text = _many_slices(total, unfinished_from=ROWS_SHOWN + 7)
    (tmp_path / ".tdd-progress.md").write_text(text, encoding="utf-8")
    app = make_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await show(pilot, app, "5", "tdd")
        board = screen.query_one(TddBoard)
        assert board.table.row_count == ROWS_SHOWN
        more = screen.query_one("#tdd-more", Static)
        assert more.display
        assert f"250 more slices not shown (the first {ROWS_SHOWN:,} of {total:,}" in str(
            more.render()
        )
        assert "remaining slices 244" in str(screen.query_one("#tdd-counts", Static).render())
        notes: list[str] = []
        app.notify = lambda message, **_kw: notes.append(str(message))  # type: ignore[method-assign]
        screen.action_next_unfinished()
        assert notes and f"slice {ROWS_SHOWN + 7}" in notes[0]


async def test_a_small_plan_says_nothing_more():
    app = Harness()
    async with app.run_test(size=(100, 36)) as pilot:
        board = app.query_one(TddBoard)
        board.set_plan(parse_progress(_many_slices(3, unfinished_from=2)))
        await pilot.pause()
        assert board.table.row_count == 3
        assert not app.query_one("#tdd-more", Static).display
