"""Counts over the whole hook log, kept incrementally: each row is added once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from .batch import Batch
from .parse import HookRecord

# A count (and the store's columns) keeps at most MAX_NAMES distinct names, each at most MAX_NAME
# characters; the rest are counted under OTHER. The log's own hooks, events, phases and agents
# are a few dozen short names: a log of junk, each line a new name, costs no more than they do.
MAX_NAMES = 1000
MAX_NAME = 100
OTHER = "(other)"


def bounded_name(held: Any, name: Any) -> Any:
    """The key ``name`` is counted under, given the keys ``held`` so far (a dict or set):
    ``name`` itself, or :data:`OTHER` when it is too long or ``held`` is full."""
    if name in held or name is None:
        return name
    if len(held) >= MAX_NAMES or (isinstance(name, str) and len(name) > MAX_NAME):
        return OTHER
    return name


def add_count(counter: Counter[Any], name: Any, n: int) -> None:
    """``counter[name] += n`` with ``name`` bounded (:func:`bounded_name`)."""
    counter[bounded_name(counter, name)] += n


class HookCounts:
    """Totals, per hook, per event, per hook and event, blocks by phase, the last timestamp.

    :meth:`add` takes each batch once (the last timestamp is the latest batch's), so a log read
    in parts costs what the part holds: the counting is done on the batch's codes."""

    __slots__ = (
        "blocks_by_phase",
        "by_event",
        "by_hook",
        "by_hook_event",
        "invalid",
        "last_ts",
        "total",
    )

    def __init__(self) -> None:
        self.by_hook: Counter[str] = Counter()
        self.by_event: Counter[str] = Counter()
        self.by_hook_event: dict[str, Counter[str]] = {}
        self.blocks_by_phase: Counter[str] = Counter()
        self.total = self.invalid = 0
        self.last_ts: str | None = None

    def add(self, rows: Batch | Iterable[HookRecord]) -> HookCounts:
        batch = rows if isinstance(rows, Batch) else Batch.of(list(rows))
        xp = batch.ops
        valid = xp.rows(batch.valid)
        self.total += len(batch)
        self.invalid += len(batch) - len(valid)
        hooks, hook_codes = batch.field("hook")
        events, event_codes = batch.field("event")
        valid_events = xp.take(event_codes, valid)
        for h, e, n in xp.tally_pairs(xp.take(hook_codes, valid), valid_events, len(events)):
            hook = bounded_name(self.by_hook, hooks[h] or "(none)")
            event = bounded_name(self.by_event, events[e] or "(none)")
            self.by_hook[hook] += n
            self.by_event[event] += n
            per_hook = self.by_hook_event.get(hook)
            if per_hook is None:
                per_hook = self.by_hook_event[hook] = Counter()
            per_hook[event] += n
        block = [k for k, e in enumerate(events) if e == "block"]
        blocks = xp.take(valid, xp.rows_in(valid_events, block))
        phases, phase_codes = batch.field("phase")
        for code, n in xp.tally(xp.take(phase_codes, blocks)):
            add_count(self.blocks_by_phase, phases[code] or "(none)", n)
        dated = xp.take(valid, xp.rows(xp.take(batch.has_ts, valid)))
        if len(dated):
            self.last_ts = batch.ts(int(dated[-1]))
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
