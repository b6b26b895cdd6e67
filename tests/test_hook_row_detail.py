"""The hook screen shows one row whole (issue: reasons were cut at ~40 characters with no way to
read them): d (the top row) or a click opens every field, cleaned, never parsed as markup."""

from __future__ import annotations

import json
from pathlib import Path

from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens.dialogs import DetailDialog

from tests import factories as F
from tests.helpers.app import frozen_clock, wait_until, write_state

LONG = "V7: state_version 41 < disk 43 " + "because the sub-agent wrote from an old snapshot " * 3
HOSTILE = "[/] [@click=app.quit]x[/] \x1b]52;c;SGk=\x07 end"


def line(i: int, reason: str) -> str:
    return json.dumps(
        {
            "ts": f"2026-03-04T09:00:{i:02d}.000Z",
            "hook": "state-write-validator",
            "event": "block",
            "phase": "06-implementation",
            "agent": "software-developer",
            "reason": reason,
        },
        separators=(",", ":"),
    )


async def open_detail(tmp_path: Path, reasons: list[str], how: str) -> DetailDialog:
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    log = tmp_path / ".isdlc" / "hook-activity.log"
    log.write_text("".join(line(i, r) + "\n" for i, r in enumerate(reasons)))
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.press("2")
        await wait_until(
            pilot,
            lambda: app.screen.name == "hooks" or type(app.screen).__name__ == "HookActivityScreen",
        )
        await pilot.pause()
        if how == "key":
            await pilot.press("d")
        else:
            view = app.screen.query_one("HookLogView")
            await pilot.click(view, offset=(2, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, DetailDialog))
        dialog = app.screen
        assert isinstance(dialog, DetailDialog)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, DetailDialog))
        return dialog


async def test_d_shows_the_top_row_whole(tmp_path):
    dialog = await open_detail(tmp_path, [LONG, "short"], "key")
    fields = dict(dialog.fields)
    assert fields["reason"] == LONG.strip() or fields["reason"] == LONG
    assert fields["hook"] == "state-write-validator" and fields["line_no"] == "1"


async def test_a_click_opens_a_row_and_hostile_text_stays_text(tmp_path):
    dialog = await open_detail(tmp_path, [HOSTILE], "click")
    reason = dict(dialog.fields)["reason"]
    assert "[@click=app.quit]x[/]" in reason and "\x1b" not in reason and "\x07" not in reason
