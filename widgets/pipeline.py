"""The phase pipeline: each phase of the workflow with its status glyph (✓ ● ○ ⊘), timing
(``wall_clock_minutes``, or the running time of the active phase) and retries.

Plain data in (a :class:`~core.snapshot.Snapshot` and the current time); entries are
packed into lines by width so a narrow terminal wraps between phases, never inside one.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from phasewatch.core.protocol import parse_iso
from textual.content import Content

from ._clocked import ClockedStatic
from ._style import RUNNING, glyph
from .header import format_minutes

if TYPE_CHECKING:
    from phasewatch.core.snapshot import Snapshot

_STATUS_STYLE = {
    "completed": "$success",
    "in_progress": "bold $primary",
    "pending": "$text-muted",
    "skipped": "$text-muted",
}


def phase_timing(snap: Snapshot, key: str, status: str | None, now: datetime) -> str:
    rec = snap.state.phases.get(key)
    if rec is None:
        return ""
    timing = rec.timing
    if timing is not None and timing.wall_clock_minutes is not None and status == "completed":
        return format_minutes(timing.wall_clock_minutes)
    if status == "in_progress":
        started = parse_iso((timing.started_at if timing else None) or rec.started)
        if started is not None:
            return RUNNING + format_minutes(max(0.0, (now - started).total_seconds() / 60))
    if timing is not None and timing.wall_clock_minutes is not None:
        return format_minutes(timing.wall_clock_minutes)
    return ""


def retries(snap: Snapshot, key: str) -> int:
    rec = snap.state.phases.get(key)
    if rec is None:
        return 0
    values = [rec.retry_count or 0, (rec.timing.retries if rec.timing else None) or 0]
    return max(values)


def pipeline_entries(snap: Snapshot | None, now: datetime) -> list[Content]:
    """One ``Content`` per phase: glyph, key, timing, retries."""
    if snap is None or not snap.rows:
        return []
    wf = snap.workflow
    rows = [r for r in snap.rows if r.position is not None] if wf and wf.phases else snap.rows
    out: list[Content] = []
    for row in rows:
        status = row.status
        style = "bold $error" if row.divergent else _STATUS_STYLE.get(status or "", "$warning")
        parts: list[Content | str | tuple[str, str]] = [
            (glyph(status) + " ", style),
            (row.key, "bold underline" if row.is_current else ""),
        ]
        timing = phase_timing(snap, row.key, status, now)
        if timing:
            parts.append((" " + timing, "$text-muted"))
        n = retries(snap, row.key)
        if n:
            parts.append((f" ↻{n}", "$warning"))
        out.append(Content.assemble(*parts))
    return out


def pipeline_content(snap: Snapshot | None, now: datetime, width: int = 0) -> Content:
    """The entries packed into lines of at most ``width`` cells (0: one line); an entry is never
    split across lines."""
    entries = pipeline_entries(snap, now)
    if not entries:
        return Content.styled("no phases", "$text-muted")
    parts: list[Content | str] = []
    used = 0
    for entry in entries:
        length = entry.cell_length
        if used and width and used + 2 + length > width:
            parts.append("\n")
            used = 0
        elif used:
            parts.append("  ")
            used += 2
        parts.append(entry)
        used += length
    return Content.assemble(*parts)


class Pipeline(ClockedStatic):
    DEFAULT_CSS = """
    Pipeline { height: auto; padding: 0 1; }
    """

    def show(self, snap: Snapshot | None, now: datetime) -> None:
        self._snap, self._now = snap, now
        self._render_now()

    def on_resize(self) -> None:
        self._render_now()

    def content_at(self, now: datetime) -> Content:
        return pipeline_content(self._snap, now, self.content_region.width)
