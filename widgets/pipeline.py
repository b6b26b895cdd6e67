"""The phase pipeline: each phase of the workflow with its status glyph (✓ ● ○ ⊘), timing
(``wall_clock_minutes``, or the running time of the active phase) and retries.

Plain data in (a :class:`~core.snapshot.Snapshot` and the current time); entries are
packed into lines by width so a narrow terminal wraps between phases, never inside one.

A workflow of more than :data:`SHOW_ALL` phases (a real one has about 15) is shown as a window
of :data:`WINDOW` entries around the phase that matters (the first divergent one, else the
current one) in at most :data:`MAX_LINES` lines, with how many phases come before and after it;
the location matrix below lists every phase (docs/performance.md#dashboard-size). Only the
window's entries are built: the cost of a draw does not grow with the workflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from phasewatch.core.protocol import parse_iso
from textual.content import Content

from ._clocked import ClockedStatic
from ._style import RUNNING, glyph
from .header import format_minutes

if TYPE_CHECKING:
    from phasewatch.core.locations import PhaseLocations
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


#: Up to this many phases every one is shown; beyond it, a window of :data:`WINDOW`.
SHOW_ALL = 60
WINDOW = 40
#: Phases of the window shown before the one that matters.
BEFORE = 5
#: The window's lines at most (the notes of what is left out included).
MAX_LINES = 4


def pipeline_rows(snap: Snapshot | None) -> list[PhaseLocations]:
    """The phases the pipeline draws, in order: the workflow's (every row when there is none)."""
    if snap is None or not snap.rows:
        return []
    wf = snap.workflow
    return [r for r in snap.rows if r.position is not None] if wf and wf.phases else snap.rows


def pipeline_window(rows: Sequence[PhaseLocations]) -> tuple[int, int]:
    """``(start, end)``: the slice of ``rows`` the pipeline builds entries for (all of them up
    to :data:`SHOW_ALL`; else :data:`WINDOW` from :data:`BEFORE` before the first divergent
    row, or the current one)."""
    n = len(rows)
    if n <= SHOW_ALL:
        return 0, n
    focus = next((i for i, r in enumerate(rows) if r.divergent), None)
    if focus is None:
        focus = next((i for i, r in enumerate(rows) if r.is_current), 0)
    start = max(0, focus - BEFORE)
    return start, min(n, start + WINDOW)


def pipeline_entries(
    snap: Snapshot | None, now: datetime, rows: Sequence[PhaseLocations] | None = None
) -> list[Content]:
    """One ``Content`` per phase of ``rows`` (default: every phase): glyph, key, timing,
    retries."""
    if rows is None:
        rows = pipeline_rows(snap)
    if snap is None or not rows:
        return []
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


def _note(count: int, what: str) -> Content:
    return Content.styled(f"… {count:,} {what}", "$text-muted")


def pipeline_part(snap: Snapshot | None) -> tuple[list[PhaseLocations], int, int]:
    """The phases the pipeline draws and the window of them it builds entries for."""
    rows = pipeline_rows(snap)
    return (rows, *pipeline_window(rows))


def pipeline_content(
    snap: Snapshot | None,
    now: datetime,
    width: int = 0,
    part: tuple[list[PhaseLocations], int, int] | None = None,
) -> Content:
    """The entries packed into lines of at most ``width`` cells (0: one line); an entry is never
    split across lines. Past :data:`SHOW_ALL` phases, the window's entries (after a note of
    how many phases come before them) in at most :data:`MAX_LINES` - 1 lines, and a last line
    saying how many come after. ``part``: :func:`pipeline_part` of ``snap``, if known (the
    widget keeps it between the clock's ticks)."""
    rows, start, end = pipeline_part(snap) if part is None else part
    entries = pipeline_entries(snap, now, rows[start:end])
    if not entries:
        return Content.styled("no phases", "$text-muted")
    windowed = end - start < len(rows)
    if start:
        entries.insert(0, _note(start, "earlier phases"))
    parts: list[Content | str] = []
    used = 0
    lines = 1
    shown = 0
    for entry in entries:
        length = entry.cell_length
        if used and width and used + 2 + length > width:
            if windowed and lines == MAX_LINES - 1:
                break
            parts.append("\n")
            lines += 1
            used = 0
        elif used:
            parts.append("  ")
            used += 2
        parts.append(entry)
        used += length
        shown += 1
    later = len(rows) - start - (shown - (1 if start else 0))
    if later:
        parts.extend(["\n", _note(later, "more phases (the location matrix lists them all)")])
    return Content.assemble(*parts)


class Pipeline(ClockedStatic):
    DEFAULT_CSS = """
    Pipeline { height: auto; padding: 0 1; }
    """

    _part: tuple[list[PhaseLocations], int, int] | None = None

    def show(self, snap: Snapshot | None, now: datetime) -> None:
        if snap is not self._snap or self._part is None:
            self._part = pipeline_part(snap)
        self._snap, self._now = snap, now
        self._render_now()

    def on_resize(self) -> None:
        self._render_now()

    def content_at(self, now: datetime) -> Content:
        return pipeline_content(self._snap, now, self.content_region.width, self._part)
