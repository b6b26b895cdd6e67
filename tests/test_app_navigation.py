"""Every screen key goes where it says, from every screen (issue 16.1): the data screens ``1``-``6``
and the review console's ``w``, ``e``, ``a`` (pushed over a data screen)."""

from __future__ import annotations

from pathlib import Path

import pytest
from phasewatch.tui.app import DATA_SCREENS, PhasewatchApp
from phasewatch.tui.screens.console_base import ConsoleScreen

from tests import factories as F
from tests.test_app_helpers import frozen_clock, wait_until, write_state

SIZE = (100, 30)
DATA_KEYS = dict(zip("123456", DATA_SCREENS, strict=True))
CONSOLE_KEYS = {"w": "attention", "e": "escalations", "a": "plan"}


@pytest.fixture
def waiting_project(tmp_path: Path) -> Path:
    """A project where each console screen has something to show (an escalation waits), and no
    review gate (its panel would be opened over everything)."""
    state = F.escalate(F.feature_state())
    write_state(tmp_path / ".isdlc" / "state.json", state)
    return tmp_path


def where(app: PhasewatchApp) -> str:
    """The name of the screen the user sees."""
    screen = app.screen
    if isinstance(screen, ConsoleScreen):
        return screen.NAME
    for name, data in app.data_screens.items():
        if data is screen:
            return name
    return type(screen).__name__


async def press(pilot, key: str, expected: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: where(pilot.app) == expected)
    # Nothing is left behind on the stack: one data screen, at most one console screen on top.
    stack = pilot.app.screen_stack
    assert not any(isinstance(s, ConsoleScreen) for s in stack[:-1]), stack


SOURCES = {**DATA_KEYS, **CONSOLE_KEYS}


@pytest.mark.parametrize("source", list(SOURCES))
async def test_every_screen_key_works_from_every_screen(waiting_project: Path, source) -> None:
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        for key, name in SOURCES.items():
            await press(pilot, source, SOURCES[source])
            await press(pilot, key, name)


async def test_a_screen_key_after_going_away_and_back_returns_to_the_data_screen(
    waiting_project: Path,
) -> None:
    """The issue's own sequence: ``e`` over the overview, ``2``, then ``1`` is the Overview (not
    the escalations screen it was opened over)."""
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        for console_key, name in CONSOLE_KEYS.items():
            await press(pilot, console_key, name)
            await press(pilot, "2", "hooks")
            await press(pilot, "1", "overview")
            await press(pilot, console_key, name)
            await press(pilot, "1", "overview")
