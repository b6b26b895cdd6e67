"""Shared helpers for the app's Pilot tests (test_app_*.py, test_untrusted_text.py,
test_snapshots_*.py): write states the owner's way, await conditions, read the screen as text."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from phasewatch.core.simulate.files import render_state, write_truncate

FROZEN = datetime(2026, 3, 4, 14, 0, 0, tzinfo=UTC)
TIMEOUT = 15.0


def frozen_clock() -> datetime:
    return FROZEN


def write_state(path: Path, state: dict[str, Any]) -> None:
    """``JSON.stringify(state, null, 2)``, no trailing newline, truncate-then-write."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_truncate(path, render_state(state))


async def wait_until(pilot, predicate: Callable[[], bool], timeout: float = TIMEOUT) -> None:
    """Await ``predicate()`` by letting the app run (``pilot.pause``) with a deadline."""
    import time

    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
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
