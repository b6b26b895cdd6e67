"""A registry summarised for machines: ``phasewatch check --json``'s ``"plugins"`` list."""

from __future__ import annotations

from typing import Any

from .markdown import fix_mojibake
from .model import Registry
from .status import Status


def _status(status: Status | None) -> str | None:
    """A status as the file wrote it (bold removed, mojibake repaired, one line); None if absent."""
    if status is None:
        return None
    return " ".join(fix_mojibake(status.raw).replace("**", "").split()) or None


def summary_json(registry: Registry | None) -> list[dict[str, Any]]:
    """One object per plugin: ``name``, ``table_status``, ``entry_status``, ``handoff_stage``
    (``"3"``, ``"3.2"``, ``"ideation"`` or null) and ``drift`` (any place disagrees)."""
    if registry is None:
        return []
    out = []
    for rec in registry.plugins:
        ch = rec.handoff
        out.append(
            {
                "name": rec.name,
                "table_status": _status(rec.table.status if rec.table else None),
                "entry_status": _status(rec.entry.status if rec.entry else None),
                "handoff_stage": ch.stage_label if ch is not None else None,
                "drift": bool(rec.drift),
            }
        )
    return out
