"""SVG snapshots of the Overview at 80x24 and 120x36 from a fixed fixture directory.

Time-dependent text is frozen: the app's clock is injected (elapsed time, "changed at"), the
local time zone is UTC, and the cursor does not blink. Regenerate with
``pytest tests/test_snapshots_overview.py --snapshot-update`` after an intended change.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens.review import GatePanel

from tests import factories as F
from tests.helpers.app import frozen_clock, wait_until, write_state

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fixed_project(root: Path, state: dict) -> Path:
    write_state(root / ".isdlc" / "state.json", state)
    stamp = 1_772_600_000  # fixed mtimes: nothing on screen may depend on the machine
    os.utime(root / ".isdlc" / "state.json", (stamp, stamp))
    return root


def snapshot_app(root: Path) -> PhasewatchApp:
    return PhasewatchApp(root, clock=frozen_clock, watch=False)


async def settle(pilot) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.data_screens["overview"].applied > 0)
    await pilot.pause()
    assert not isinstance(app.screen, GatePanel)  # a gate is announced, never opened by itself
    app.clear_notifications()
    app.screen.query_one("#matrix-table").cursor_blink = False
    await pilot.pause()


@SIZES
def test_overview_healthy(snap_compare, tmp_path: Path, size) -> None:
    root = fixed_project(tmp_path, F.feature_state())
    assert snap_compare(snapshot_app(root), terminal_size=size, run_before=settle)


@SIZES
def test_overview_divergent_with_gate(snap_compare, tmp_path: Path, size) -> None:
    state = F.setpath(F.feature_state(), "phases.05-test-strategy.status", "pending")
    state = F.setpath(
        state,
        "active_workflow.supervised_review",
        {"phase": "04-design", "status": "gate_presented", "redo_count": 0},
    )
    state = F.setpath(state, "supervised_mode", {"enabled": True, "review_phases": "all"})
    root = fixed_project(tmp_path, state)
    assert snap_compare(snapshot_app(root), terminal_size=size, run_before=settle)
