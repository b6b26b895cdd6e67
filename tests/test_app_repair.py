"""Pilot tests of repair in the dashboard (tui/console.py, RepairDialog): the preview of a
stale-write or location repair, no write without the explicit ``W``, refusal while another write
is in flight, the confirm watch's verdict, and undo."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

from phasewatch.core.decide import journal_path, read_journal
from phasewatch.tui.app import PhasewatchApp, SessionUpdated
from phasewatch.tui.screens.dialogs import ConfirmDialog, RepairDialog

from tests.helpers.app import frozen_clock, record_calls, wait_until, write_state
from tests.helpers.app import make_app as shared_make_app
from tests.helpers.repair import PHASES, orchestration, stale, state

SIZE = (130, 40)
STATE = Path(".isdlc") / "state.json"


def make_app(root: Path) -> PhasewatchApp:
    """One read, no watcher (the tests post the updates): key guard and confirm watch off."""
    return shared_make_app(root, watch=False, arm_delay=0.0, confirm_seconds=0)


async def reread(app: PhasewatchApp, pilot) -> None:
    """What the watcher does after a write: refresh the session, post the update."""
    applied = app.updates_applied
    update = await asyncio.to_thread(app.session.refresh, None)
    app.post_message(SessionUpdated(update))
    await wait_until(pilot, lambda: app.updates_applied > applied)


def journal(root: Path) -> list[tuple[str, str]]:
    return [(e["action"], e["outcome"]) for e in read_journal(journal_path(root))]


async def stale_write_seen(app: PhasewatchApp, pilot, root: Path) -> dict[str, Any]:
    """The app saw phase 2 in progress (v7), then a sub-agent's copy from phase 1 (v8)."""
    await wait_until(pilot, lambda: app.updates_applied > 0)
    bad = stale(state(2, 7), state(1))
    write_state(root / STATE, bad)
    await reread(app, pilot)
    return bad


async def test_the_preview_names_every_field_and_nothing_is_written_without_w(
    tmp_path: Path,
) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        before = (tmp_path / STATE).read_bytes()
        assert app.review.offer is not None and app.review.offer.can_apply
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        dialog = app.screen
        assert isinstance(dialog, RepairDialog)
        text = dialog.text
        assert "from state_version 7" in text and "over state_version 8" in text
        for label in (
            "active_workflow.current_phase:",
            "active_workflow.current_phase_index: 1 -> 2",
            f"active_workflow.phase_status.{PHASES[1]}:",
            f"phases.{PHASES[2]}.status:",
            "active_agent:",
        ):
            assert label in text
        assert "kept from the newer write" in text and f"phases.{PHASES[0]}.artifacts" in text
        await pilot.press("y")  # not the confirm key
        await pilot.pause()
        assert isinstance(app.screen, RepairDialog)
        await pilot.press("enter")  # presses the focused Cancel
        await wait_until(pilot, lambda: not isinstance(app.screen, RepairDialog))
        await pilot.press("x", "escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, RepairDialog))
        await pilot.pause(0.1)
        assert (tmp_path / STATE).read_bytes() == before
        assert journal(tmp_path) == []
        assert not app.review.results


async def test_w_repairs_the_file_then_z_undoes_it(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        bad = await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        result = app.review.results[-1]
        assert result.ok, result.message
        doc = json.loads((tmp_path / STATE).read_bytes())
        assert orchestration(doc) == orchestration(state(2))
        assert doc["phases"][PHASES[0]]["artifacts"] == ["docs/test-strategy.md"]  # kept
        assert doc["state_version"] == 9
        assert any(str(t.get("title")).endswith(": applied") for t in toasts)
        await reread(app, pilot)
        assert app.review.offer is None  # nothing left to repair
        assert app.review.undoable is not None
        await pilot.press("z")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        shown = app.screen.message.plain  # type: ignore[attr-defined]
        assert "active_workflow.current_phase_index: 2 -> 1" in shown
        assert f'active_agent: "{state(2)["active_agent"]}" -> "{bad["active_agent"]}"' in shown
        await pilot.press("y")
        await wait_until(pilot, lambda: len(app.review.results) == 2)
        assert app.review.results[-1].ok, app.review.results[-1].message
        doc = json.loads((tmp_path / STATE).read_bytes())
        assert orchestration(doc) == orchestration(bad)
        assert app.review.undoable is None
    assert journal(tmp_path) == [
        ("repair stale-write", "applied"),
        ("repair undo", "applied"),
    ]


async def test_no_repair_while_another_write_is_in_flight(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        before = (tmp_path / STATE).read_bytes()
        app.review._in_flight.add(("elsewhere", "a gate decision"))
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: any("refused" in t["message"] for t in toasts))
        await pilot.pause(0.1)
        assert (tmp_path / STATE).read_bytes() == before
        assert not app.review.results and journal(tmp_path) == []


async def test_undo_is_withdrawn_once_someone_writes_after_the_repair(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        await reread(app, pilot)
        assert app.check_action("console", ("undo-repair",))
        later = json.loads((tmp_path / STATE).read_bytes())
        later["state_version"] += 1
        later["project"]["name"] = "renamed by the owner"
        write_state(tmp_path / STATE, later)
        await reread(app, pilot)
        assert app.review.undoable is None
        assert not app.check_action("console", ("undo-repair",))
        await pilot.press("z")
        await pilot.pause(0.1)
        assert not isinstance(app.screen, ConfirmDialog)
        assert json.loads((tmp_path / STATE).read_bytes()) == later
    assert journal(tmp_path) == [("repair stale-write", "applied")]


async def test_the_confirm_watch_says_the_repair_was_kept(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    app.review.confirm_seconds = 0.2
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: any(": kept" in str(t.get("title")) for t in toasts))
        [kept] = [t for t in toasts if ": kept" in str(t.get("title"))]
        assert "nobody wrote" in kept["message"] and kept["markup"] is False


async def test_location_drift_is_offered_and_the_unknowable_is_not(tmp_path: Path) -> None:
    doc = state(2, 7)
    doc["current_phase"] = PHASES[1]  # the top-level mirror left behind (V9-B)
    write_state(tmp_path / STATE, doc)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.review.offer is not None)
        offer = app.review.offer
        assert offer is not None and offer.plan.kind == "location"
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        assert f'current_phase: "{PHASES[1]}" -> "{PHASES[2]}"' in app.screen.text
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[-1].ok
        assert json.loads((tmp_path / STATE).read_bytes())["current_phase"] == PHASES[2]


async def test_read_only_previews_but_offers_no_write(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False, read_only=True)
    app.review.arm_delay = 0.0
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        before = (tmp_path / STATE).read_bytes()
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        assert "Read-only mode" in app.screen.text
        assert not app.screen.query("#write")
        await pilot.press("W")
        await pilot.pause(0.1)
        assert (tmp_path / STATE).read_bytes() == before


def test_a_hostile_source_stays_text() -> None:
    """The dialog's title is built from the file's name and rule ids: cleaned, never markup."""
    from phasewatch.core.review import RepairOffer

    plan = copy.copy(type("P", (), {"kind": "location", "changes": (), "describe": list})())
    dialog = RepairDialog(RepairOffer(plan, ("SYNC-CURRENT",), "[@click=quit]\x1b[2J.json"))
    assert "\x1b" not in dialog.title_text and "[@click=quit]" in dialog.title_text
    assert "cannot be known" in dialog.note and not dialog.can_write


async def test_an_undo_the_writer_refuses_says_why_and_is_withdrawn(tmp_path: Path) -> None:
    """Someone wrote after the repair but the dashboard has not read it yet: z still asks, the
    writer refuses (the file is not what the repair wrote), nothing is written, and the
    refusal names the repair ("nothing was written")."""
    from phasewatch.tui.screens.dialogs import RefusalDialog

    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        later = json.loads((tmp_path / STATE).read_bytes())
        later["project"]["name"] = "renamed by the owner"
        later["state_version"] += 1
        write_state(tmp_path / STATE, later)  # not read by the app yet
        await pilot.press("z")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, RefusalDialog))
        assert "nothing was written" in app.screen.title_text
        assert app.review.results[-1].outcome == "refused-conflict"
        assert app.review.undoable is None
        assert json.loads((tmp_path / STATE).read_bytes()) == later


def test_help_lists_the_repair_keys(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    keys = {b.key for _title, bindings in app.help_sections() for b in bindings}  # type: ignore[union-attr]
    assert {"x", "z"} <= keys


async def test_an_owner_write_that_keeps_the_repair_is_told_kept(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    app.review.confirm_seconds = 5
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        later = json.loads((tmp_path / STATE).read_bytes())
        later["state_version"] += 1
        later["project"]["name"] = "the owner's next step"
        write_state(tmp_path / STATE, later)  # within the window, the repair kept
        await wait_until(
            pilot, lambda: any(": kept" in str(t.get("title")) for t in toasts), timeout=15
        )
        [kept] = [t for t in toasts if ": kept" in str(t.get("title"))]
        assert kept["message"] == "Still in the file: the owner wrote again (v10) and kept it."


async def test_a_repair_the_owner_writes_over_is_reported_reverted(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    app.review.confirm_seconds = 30
    toasts, bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        bad = await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.undoable is not None
        write_state(tmp_path / STATE, dict(bad, state_version=10))  # the stale copy again
        await wait_until(pilot, lambda: any("REVERTED" in str(t.get("title")) for t in toasts))
        [toast] = [t for t in toasts if "REVERTED" in str(t.get("title"))]
        assert toast["title"] == "repair stale-write: REVERTED" and bells
        assert app.review.results[-1].outcome == "reverted"
        assert app.review.undoable is None  # nothing of ours left to undo
    assert journal(tmp_path) == [
        ("repair stale-write", "applied"),
        ("repair stale-write", "reverted"),
    ]


async def test_drift_whose_right_value_cannot_be_known_offers_no_write(tmp_path: Path) -> None:
    doc = state(1, 7)
    doc["phases"][PHASES[3]]["status"] = "in_progress"  # after the current: lowering is V8's
    doc["active_workflow"]["current_phase_index"] = 3  # ahead: lowering is V8's
    write_state(tmp_path / STATE, doc)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.review.offer is not None)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        dialog = app.screen
        assert isinstance(dialog, RepairDialog)
        assert "cannot be known" in dialog.note and not dialog.query("#write")
        assert "not repaired: active_workflow.current_phase_index" in dialog.text
        before = (tmp_path / STATE).read_bytes()
        await pilot.press("W")
        await pilot.pause(0.1)
        assert isinstance(app.screen, RepairDialog)  # W does nothing here
        assert (tmp_path / STATE).read_bytes() == before and not app.review.results


async def test_a_w_right_after_the_preview_appears_does_nothing(tmp_path: Path) -> None:
    """The key guard: a W typed as the preview came up (aimed elsewhere) is not a confirmation."""
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await stale_write_seen(app, pilot, tmp_path)
        before = (tmp_path / STATE).read_bytes()
        app.review.arm_delay = 3600.0
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        await pilot.press("W")
        await pilot.pause(0.1)
        assert isinstance(app.screen, RepairDialog)
        assert (tmp_path / STATE).read_bytes() == before and not app.review.results


async def test_a_repair_refused_because_the_file_moved_is_planned_and_shown_again(
    tmp_path: Path,
) -> None:
    """Between the preview and W a hook moved a planned field: nothing is written, the repair
    is planned again from the file as it is and its preview opens again; only a second W
    writes it."""
    write_state(tmp_path / STATE, state(2, 7))
    app = make_app(tmp_path)
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        bad = await stale_write_seen(app, pilot, tmp_path)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        moved = copy.deepcopy(bad)
        moved["state_version"] += 1
        moved["active_agent"] = "someone-else"  # a field the plan changes
        write_state(tmp_path / STATE, moved)
        await pilot.press("W")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[-1].outcome == "refused-conflict"
        assert json.loads((tmp_path / STATE).read_bytes()) == moved  # nothing written
        assert any(str(t.get("title")).endswith(": planned again") for t in toasts)
        await reread(app, pilot)
        await wait_until(pilot, lambda: isinstance(app.screen, RepairDialog))
        preview = app.screen.preview().plain  # type: ignore[attr-defined]
        assert '"someone-else"' in preview  # the new plan, from the file as it is
        await pilot.press("W")
        await wait_until(pilot, lambda: len(app.review.results) == 2)
        assert app.review.results[-1].ok, app.review.results[-1].message
        doc = json.loads((tmp_path / STATE).read_bytes())
        assert orchestration(doc) == orchestration(state(2))
