"""After a stale write the Overview leads with its error: counted, sorted before warnings and
infos, visible at 80x24 without scrolling, with the `x Repair…` key (issue: the error is buried)."""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path

from phasewatch.core.findings import Finding, Severity
from phasewatch.tui.app import SessionUpdated
from phasewatch.widgets.findings_list import FindingsList, Item, by_severity

from tests import factories as f
from tests.helpers.app import make_app, screen_text, wait_until, write_state

STATE = Path(".isdlc") / "state.json"


def finding(rule: str, severity: Severity) -> Finding:
    return Finding(rule, severity, "s", "p", None, None, "m", "")


def test_errors_come_first_and_events_before_standing_within_a_severity() -> None:
    items = [
        Item("a", finding("INFO-1", Severity.INFO)),
        Item("b", finding("WARN-1", Severity.WARNING)),
        Item("c", finding("ERR-STANDING", Severity.ERROR)),
        Item("d", finding("EVENT-INFO", Severity.INFO), event=3),
        Item("e", finding("EVENT-ERR", Severity.ERROR), event=3),
        Item("f", finding("EVENT-WARN", Severity.WARNING), event=2),
    ]
    order = [i.finding.rule_id for i in by_severity(items)]
    assert order == ["EVENT-ERR", "ERR-STANDING", "EVENT-WARN", "WARN-1", "EVENT-INFO", "INFO-1"]


async def test_a_stale_write_error_is_on_top_and_counted_at_80x24(tmp_path: Path) -> None:
    steps = dict(f.walk("feature", supervised=True))
    newer, old = steps["3c-prime 06-implementation"], steps["3c-prime 04-design"]
    write_state(tmp_path / STATE, newer)
    app = make_app(tmp_path, watch=False, arm_delay=0.0, confirm_seconds=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        before = screen_text(app)
        assert "Findings  ✖ 0" in before
        bad = copy.deepcopy(old)
        bad["state_version"] = newer["state_version"] + 1  # through writeState: V8 blocks it
        write_state(tmp_path / STATE, bad)
        applied = app.updates_applied
        update = await asyncio.to_thread(app.session.refresh, None)
        app.post_message(SessionUpdated(update))
        await wait_until(pilot, lambda: app.updates_applied > applied)
        await pilot.pause()
        flist = app.screen.query_one(FindingsList)
        rows = [flist.items[key] for key in flist.keys]  # in display order
        assert rows and rows[0].finding.rule_id == "TR-INDEX-DOWN"
        assert rows[0].finding.severity == Severity.ERROR
        shown = screen_text(app)
        assert "Findings  ✖ 1" in shown
        assert "TR-INDEX-DOWN" in shown  # on the screen, not below the fold
        assert "x Repair" in shown
