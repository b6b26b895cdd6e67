"""The findings list: events of one rule at one place share a row that counts them."""

from __future__ import annotations

from phasewatch.core.audit import rules as R
from phasewatch.core.findings import make
from phasewatch.widgets.findings_list import (
    MESSAGE_MIN_WIDTH,
    FindingsList,
    detail_content,
    events,
    standing,
)
from textual.app import App, ComposeResult

SRC = ".isdlc/state.json"


def jump(old: int, new: int):
    return make(
        R.TR_VERSION_JUMP,
        source=SRC,
        path="state_version",
        expected=old + 1,
        actual=new,
        message=f"state_version jumped from {old} to {new}.",
    )


def down(old: int, new: int):
    return make(
        R.TR_VERSION_DOWN,
        source=SRC,
        path="state_version",
        expected=f">= {old}",
        actual=new,
        message=f"state_version went down from {old} to {new}.",
    )


def test_events_share_a_row_per_rule_and_place_newest_first() -> None:
    rows = events(
        [(9, 12, jump(9, 12)), (7, 9, down(10, 9)), (5, 8, jump(5, 8)), (2, 5, jump(2, 5))]
    )
    assert [(r.finding.rule_id, r.event, r.version, r.count) for r in rows] == [
        ("TR-VERSION-JUMP", 9, 12, 3),
        ("TR-VERSION-DOWN", 7, 9, 1),
    ]
    assert "3 such events this session" in detail_content(rows[0]).plain
    assert "such events" not in detail_content(rows[1]).plain


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FindingsList()


async def test_a_newer_event_renews_its_row_without_adding_one() -> None:
    app = ListApp()
    async with app.run_test(size=(120, 20)) as pilot:
        flist = app.query_one(FindingsList)
        history = [(2, 5, jump(2, 5))]
        added = flist.show(events(reversed(history)), emphasise_new=False)
        assert [a.count for a in added] == [1] and flist.table.row_count == 1
        for seq in range(3, 8):  # a storm: one more jump at every refresh
            history.append((seq, seq * 3, jump(seq * 3 - 3, seq * 3)))
            added = flist.show(events(reversed(history)))
            await pilot.pause()
            assert flist.table.row_count == 1  # the same row, counting
            assert [(a.event, a.count) for a in added] == [(seq, seq - 1)]  # renewed: emphasised
        (key,) = flist.keys
        message = flist.table.get_cell(key, "message").plain
        assert message.startswith("×6, newest v21: state_version jumped from 18 to 21")
        # the same update again: nothing is new
        assert flist.show(events(reversed(history))) == []
        # a standing finding and another rule's event: rows of their own
        other = [*history, (9, 20, down(21, 20))]
        added = flist.show(standing([jump(1, 3)]) + events(reversed(other)))
        assert {a.finding.rule_id for a in added} == {"TR-VERSION-JUMP", "TR-VERSION-DOWN"}
        assert flist.table.row_count == 3


def long(n: int):
    """A finding whose message is far wider than any screen (wide characters in it too)."""
    return make(
        R.TR_VERSION_JUMP,
        source=SRC,
        path=f"phases.0{n}-implementation.status",
        expected=1,
        actual=2,
        message=f"finding {n}: " + "漢字 and words " * 30 + "the end",
    )


class SizedApp(App[None]):
    CSS = "FindingsList > DataTable { height: 8; }"

    def compose(self) -> ComposeResult:
        yield FindingsList()


async def test_messages_take_the_width_the_other_columns_leave() -> None:
    """No horizontal scroll bar for a long message (at 120 columns one hid a row of three):
    the message is cut with "…" to the columns' leftover width, whole in the detail pane, and
    cut again when the terminal is resized."""
    app = SizedApp()
    async with app.run_test(size=(100, 20)) as pilot:
        flist = app.query_one(FindingsList)
        flist.show(standing([long(n) for n in range(5)]), emphasise_new=False)
        await pilot.pause()
        table = flist.table
        assert table.scrollbars_enabled == (False, False)
        assert table.virtual_size.width <= table.size.width
        cut = [table.get_cell(key, "message") for key in flist.keys]
        assert all(cell.plain.endswith("…") for cell in cut)
        assert {cell.cell_len for cell in cut} == {flist._message_room}
        assert cut[0].plain.startswith("finding 0: 漢字 and words")
        assert "the end" in detail_content(flist.selected).plain  # the pane has it whole
        await pilot.resize_terminal(140, 20)
        await pilot.pause()
        wider = table.get_cell(flist.keys[0], "message")
        assert wider.cell_len == flist._message_room and flist._message_room > cut[0].cell_len
        assert table.virtual_size.width <= table.size.width
        # a narrow terminal: the message keeps MESSAGE_MIN_WIDTH, the table scrolls instead
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert flist._message_room == MESSAGE_MIN_WIDTH
        assert table.get_cell(flist.keys[0], "message").cell_len == MESSAGE_MIN_WIDTH


async def test_v_filters_the_list_by_severity_and_brings_hidden_rows_back() -> None:
    """lazygit/k9s-style: `v` cycles all -> errors and warnings -> errors only -> all."""
    from phasewatch.core.findings import Severity

    found = [
        make(R.SYNC_CURRENT, source=SRC, path="current_phase", message="w"),
        make(R.TR_NEXT_ACTIVATED, source=SRC, path="phases.a.status", message="i"),
        make(R.SYNC_CURRENT, source=SRC, path="x", message="e", severity=Severity.ERROR),
    ]
    app = ListApp()
    async with app.run_test(size=(120, 20)) as pilot:
        flist = app.query_one(FindingsList)
        flist.show(standing(found), emphasise_new=False)
        flist.table.focus()
        sev = lambda: sorted(str(i.finding.severity) for i in flist.items.values())  # noqa: E731
        assert sev() == ["error", "info", "warning"]
        await pilot.press("v")
        assert sev() == ["error", "warning"]
        await pilot.press("v")
        assert sev() == ["error"]
        # an update while filtered keeps the filter
        assert flist.show(standing(found)) == [] and sev() == ["error"]
        await pilot.press("v")
        assert sev() == ["error", "info", "warning"] and flist.table.row_count == 3


async def test_the_whole_file_is_named_not_dollar() -> None:
    """A finding about the whole file (path `$`) shows the file's name and "the whole file"."""
    from pathlib import Path

    from phasewatch.core.sources import ReadResult, read_finding

    f = read_finding(ReadResult(Path("s"), "torn", error="x"), SRC)
    assert f.path == "$"
    app = ListApp()
    async with app.run_test(size=(120, 20)):
        flist = app.query_one(FindingsList)
        flist.show(standing([f]), emphasise_new=False)
        (key,) = flist.keys
        assert flist.table.get_cell(key, "path").plain == SRC
        assert "the whole file" in detail_content(standing([f])[0]).plain
        assert "$" not in detail_content(standing([f])[0]).plain.split("path", 1)[1].split("\n")[0]
