"""Shared helpers for the app's Pilot tests (test_app_*.py, test_widget_*.py,
test_untrusted_text.py, test_snapshots_*.py): make the app, write states the owner's way, await
conditions, go to a screen, read the screen as text, record toasts and bells."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from phasewatch.core.simulate.files import render_state, write_truncate

if TYPE_CHECKING:
    from phasewatch.tui.app import PhasewatchApp
    from phasewatch.tui.screens.panels import PanelScreen

FROZEN = datetime(2026, 3, 4, 14, 0, 0, tzinfo=UTC)
TIMEOUT = 15.0


def frozen_clock() -> datetime:
    return FROZEN


def write_state(path: Path, state: dict[str, Any]) -> None:
    """``JSON.stringify(state, null, 2)``, no trailing newline, truncate-then-write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_truncate(path, render_state(state))


async def wait_until(
    pilot,
    predicate: Callable[[], bool],
    timeout: float = TIMEOUT,
    what: Callable[[], str] | None = None,
) -> None:
    """Await ``predicate()`` by letting the app run (``pilot.pause``) with a deadline;
    ``what()`` says what was there instead when it fails."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            seen = f": {what()}" if what is not None else ""
            raise AssertionError(f"condition not met within {timeout}s{seen}")
        await pilot.pause(0.01)


def svg_lines(svg: str) -> list[str]:
    """The screen text of a Textual SVG screenshot, one string per terminal line."""
    rows: dict[float, list[tuple[float, str]]] = {}
    pattern = r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)" textLength="[\d.]+"[^>]*>(.*?)</text>'
    for m in re.finditer(pattern, svg):
        rows.setdefault(float(m.group(2)), []).append(
            (float(m.group(1)), html.unescape(m.group(3)).replace("\xa0", " "))
        )
    out = []
    for y in sorted(rows):
        line = ""
        for x, text in sorted(rows[y]):
            line = line.ljust(round(x / 12.2)) + text
        out.append(line.rstrip())
    return out


def screen_text(app) -> str:
    return "\n".join(svg_lines(app.export_screenshot()))


def make_app(
    root: Path,
    *,
    arm_delay: float | None = None,
    confirm_seconds: float | None = None,
    **kwargs: Any,
) -> PhasewatchApp:
    """The app on ``root`` with the frozen clock and a 0.5 s reconcile; ``arm_delay`` and
    ``confirm_seconds`` (the review console's key guard and confirm watch) when given."""
    from phasewatch.tui.app import PhasewatchApp

    kwargs.setdefault("clock", frozen_clock)
    kwargs.setdefault("watcher_options", {"reconcile_interval": 0.5})
    app = PhasewatchApp(root, **kwargs)
    if arm_delay is not None:
        app.review.arm_delay = arm_delay
    if confirm_seconds is not None:
        app.review.confirm_seconds = confirm_seconds
    return app


async def show(pilot, app: PhasewatchApp, key: str, name: str) -> PanelScreen:
    """Press the screen's key; return the screen once it is current and has applied an update."""
    from phasewatch.tui.screens.panels import PanelScreen

    await wait_until(pilot, lambda: app.updates_applied > 0)
    await pilot.press(key)
    screen = app.data_screens[name]
    await wait_until(pilot, lambda: app.screen is screen and screen.applied > 0)
    assert isinstance(screen, PanelScreen)
    return screen


def footer_keys(app: PhasewatchApp) -> set[str]:
    """The keys the current screen offers: shown in the footer and enabled."""
    return {k for k, b in app.screen.active_bindings.items() if b.binding.show and b.enabled}


def record_calls(app: PhasewatchApp) -> tuple[list[dict[str, Any]], list[int]]:
    """Record the app's toasts (message + keywords) and bells."""
    toasts: list[dict[str, Any]] = []
    bells: list[int] = []
    notify = app.notify

    def spy_notify(message: str, **kw: Any) -> None:
        toasts.append({"message": message, **kw})
        notify(message, **kw)

    app.notify = spy_notify  # type: ignore[method-assign]
    app.bell = lambda: bells.append(1)  # type: ignore[method-assign]
    return toasts, bells
