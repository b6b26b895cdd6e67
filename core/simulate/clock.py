"""Clocks for the simulator: the wall clock (demo) or a virtual one (reproducible runs)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

DEFAULT_EPOCH = datetime(2026, 3, 4, 9, 0, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    """``2026-03-04T09:12:03.418Z``: how the owner's ``new Date().toISOString()`` prints."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Clock(Protocol):
    def now(self) -> datetime: ...

    def advance(self, seconds: float) -> None:
        """Let simulated time pass (a no-op for the wall clock, which passes on its own)."""


class WallClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def advance(self, seconds: float) -> None:
        return None


class VirtualClock:
    """Time that moves only when told to: timestamps depend on the seed, not on the machine."""

    def __init__(self, start: datetime = DEFAULT_EPOCH) -> None:
        self._now = start if start.tzinfo else start.replace(tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds > 0:
            # whole milliseconds, like the timestamps it produces
            self._now += timedelta(milliseconds=max(1, round(seconds * 1000)))
