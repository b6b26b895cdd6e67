"""Counts over the whole hook log, kept incrementally: each record is added once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .parse import HookRecord


class HookCounts:
    """Totals, per hook, per event, per hook and event, blocks by phase, the last timestamp.

    :meth:`add` takes each record once (in any order but the last timestamp's, which is the
    latest added), so a log read in parts costs what the part holds."""

    __slots__ = ("blocks_by_phase", "by_event", "by_hook", "by_hook_event", "invalid", "last_ts", "total")

    def __init__(self) -> None:
        self.by_hook: Counter[str] = Counter()
        self.by_event: Counter[str] = Counter()
        self.by_hook_event: dict[str, Counter[str]] = {}
        self.blocks_by_phase: Counter[str] = Counter()
        self.total = self.invalid = 0
        self.last_ts: str | None = None

    def add(self, records: Iterable[HookRecord]) -> HookCounts:
        records = list(records)
        valid = [r for r in records if r.valid]
        self.total += len(records)
        self.invalid += len(records) - len(valid)
        pairs = Counter((r.hook or "(none)", r.event or "(none)") for r in valid)
        for (hook, event), n in pairs.items():  # a few distinct pairs: counted in C above
            self.by_hook[hook] += n
            self.by_event[event] += n
            per_hook = self.by_hook_event.get(hook)
            if per_hook is None:
                per_hook = self.by_hook_event[hook] = Counter()
            per_hook[event] += n
        self.blocks_by_phase.update(r.phase or "(none)" for r in valid if r.event == "block")
        for r in reversed(valid):
            if r.ts:
                self.last_ts = r.ts
                break
        return self

    def as_dict(self) -> dict[str, Any]:
        """The dashboard's view (most frequent first)."""
        return {
            "total": self.total,
            "valid": self.total - self.invalid,
            "invalid": self.invalid,
            "by_hook": dict(self.by_hook.most_common()),
            "by_event": dict(self.by_event.most_common()),
            "by_hook_event": {h: dict(c.most_common()) for h, c in self.by_hook_event.items()},
            "blocks_by_phase": dict(self.blocks_by_phase.most_common()),
            "last_ts": self.last_ts,
        }


def hook_stats(records: Iterable[HookRecord]) -> dict[str, Any]:
    """Counts for the dashboard: totals, per hook, per event, per hook and event, blocks by phase."""
    return HookCounts().add(records).as_dict()
