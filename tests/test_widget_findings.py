"""The findings list: events of one rule at one place share a row that counts them."""

from __future__ import annotations

from phasewatch.core.audit import rules as R
from phasewatch.core.findings import make
from phasewatch.widgets.findings_list import FindingsList, detail_content, events, standing
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
