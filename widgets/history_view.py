"""``workflow_history``: finished and cancelled workflows, newest first, with their phase times.

Left: one line per workflow. Right: the selected workflow's type, description, status (with the
cancellation reason), start/end, total duration, per-phase durations as horizontal bars scaled
to the longest phase, metrics and the review history. Every string is file text and is shown
through ``rich.text.Text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec import Struct
from phasewatch.core.protocol import parse_iso
from phasewatch.core.text import shorten
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ._style import theme_styles
from .header import format_minutes

Styles = dict[str, Style]
#: A status's colour role in ``_style.theme_styles`` (the app's theme: dark and light).
STATUS_ROLE = {
    "completed": "success",
    "cancelled": "error",
    "in_progress": "warning",
    "skipped": "muted",
    "pending": "muted",
}
#: A review decision's colour role.
ACTION_ROLE = {"continue": "success", "review": "info", "redo": "warning"}


def _status(status: str, styles: Styles, default: str = "warning") -> Style:
    return styles[STATUS_ROLE.get(status, default)]


class PhaseTiming(Struct, frozen=True):
    key: str
    minutes: float | None  # None: unknown
    status: str | None
    source: str  # "wall_clock_minutes" | "timing" | "started/completed" | ""


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if value == value and value >= 0 else None


def _span(start: Any, end: Any) -> float | None:
    a, b = parse_iso(start), parse_iso(end)
    if a is None or b is None or b < a:
        return None
    return (b - a).total_seconds() / 60


def _get(obj: Any, name: str) -> Any:
    if isinstance(obj, dict):
        return obj.get(name)
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def phase_timings(entry: Any) -> list[PhaseTiming]:
    """Per-phase durations of a history entry: ``timing.wall_clock_minutes``, else
    ``timing.started_at/completed_at``, else ``started/completed``; phases without a snapshot
    are listed with an unknown duration."""
    out: list[PhaseTiming] = []
    snapshots = _get(entry, "phase_snapshots") or []
    phases = [p for p in (_get(entry, "phases") or []) if isinstance(p, str)]
    seen: set[str] = set()
    for i, snap in enumerate(snapshots if isinstance(snapshots, list) else []):
        if not isinstance(snap, dict):
            continue
        key = next(
            (
                snap[k]
                for k in ("key", "phase", "phase_key", "name")
                if isinstance(snap.get(k), str)
            ),
            phases[i] if i < len(phases) else f"#{i + 1}",
        )
        timing = snap.get("timing")
        if not isinstance(timing, dict):
            timing = {}
        minutes, source = _num(timing.get("wall_clock_minutes")), "wall_clock_minutes"
        if minutes is None:
            minutes, source = _span(timing.get("started_at"), timing.get("completed_at")), "timing"
        if minutes is None:
            end = snap.get("completed") or snap.get("completed_at")
            minutes, source = _span(snap.get("started"), end), "started/completed"
        status = snap.get("status") if isinstance(snap.get("status"), str) else None
        out.append(PhaseTiming(key, minutes, status, source if minutes is not None else ""))
        seen.add(key)
    for key in phases:
        if key not in seen:
            out.append(PhaseTiming(key, None, None, ""))
    return out


def entry_end(entry: Any) -> str | None:
    return _get(entry, "completed_at") or _get(entry, "cancelled_at")


def total_minutes(entry: Any) -> float | None:
    return _span(_get(entry, "started_at"), entry_end(entry))


def _when(value: Any) -> str:
    parsed = parse_iso(value)
    if parsed is None:
        return "?" if not value else str(value)
    return parsed.astimezone().strftime("%Y-%m-%d %H:%M")


class PhaseBars(Widget):
    """Horizontal bars, one per phase, scaled to the longest phase and to the widget's width."""

    DEFAULT_CSS = """
    PhaseBars { height: auto; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.timings: list[PhaseTiming] = []

    def set_timings(self, timings: Sequence[PhaseTiming]) -> None:
        self.timings = list(timings)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self.timings))

    def render(self) -> Text:
        return self.bars_text(self.content_size.width or 60)

    def bars_text(self, width: int) -> Text:
        text = Text(no_wrap=True, overflow="crop")
        if not self.timings:
            text.append("no phase timings recorded", style="dim")
            return text
        label_w = min(max(len(t.key) for t in self.timings), 22)
        dur_w = 6
        bar_w = max(4, width - label_w - dur_w - 2)
        longest = max((t.minutes for t in self.timings if t.minutes), default=0.0)
        for i, t in enumerate(self.timings):
            if i:
                text.append("\n")
            text.append(shorten(t.key, label_w).ljust(label_w))
            text.append(" ")
            styles = theme_styles(self.app)
            style = (
                styles["info"]
                if t.status == "completed"
                else _status(t.status or "", styles, "info")
            )
            if t.minutes is None:
                text.append("·" * min(3, bar_w), style="dim")
                text.append(" " * (bar_w - min(3, bar_w)))
            else:
                n = round(t.minutes / longest * bar_w) if longest else 0
                n = max(1, n) if t.minutes > 0 else 0
                text.append("█" * n, style=style)
                text.append(" " * (bar_w - n))
            text.append(" ")
            text.append(
                format_minutes(t.minutes).rjust(dur_w), style="bold" if t.minutes else "dim"
            )
        return text


class HistoryView(Horizontal):
    """List of ``workflow_history`` entries (newest first) and the selected entry's details."""

    DEFAULT_CSS = """
    HistoryView {
        height: 1fr;
        & > OptionList { width: 34; min-width: 24; height: 1fr; }
        & > #history-detail { width: 1fr; height: 1fr; padding: 0 1; }
        & #history-header { height: auto; }
        & #history-bars-title, & #history-extra-title { height: 1; margin-top: 1; text-style: bold; }
        & #history-extra { height: auto; }
    }
    """

    def __init__(
        self,
        entries: Sequence[Any] = (),
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._entries: list[Any] = list(reversed(list(entries)))  # newest first
        self._selected = 0

    def compose(self) -> ComposeResult:
        yield OptionList(id="history-list")
        with VerticalScroll(id="history-detail"):
            yield Static("", id="history-header", markup=False)
            yield Static("phase durations", id="history-bars-title", markup=False)
            yield PhaseBars(id="history-bars")
            yield Static("", id="history-extra", markup=False)

    def on_mount(self) -> None:
        self._render_list()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_list())

    @property
    def entries(self) -> list[Any]:
        """Entries as displayed (newest first)."""
        return list(self._entries)

    @property
    def selected(self) -> Any | None:
        return self._entries[self._selected] if self._entries else None

    def set_history(self, entries: Sequence[Any]) -> None:
        """Entries as ``workflow_history`` holds them (oldest first; the owner appends).

        The selection follows the newest entry while it is on the newest; a selection the user
        moved elsewhere stays on the same workflow."""
        current = self.selected
        new = list(reversed(list(entries)))
        ident = _identity(current) if current is not None and self._selected else None
        self._entries = new
        self._selected = next((i for i, e in enumerate(new) if _identity(e) == ident), 0)
        if self.is_mounted:
            self._render_list()

    def select(self, index: int) -> None:
        """Show the entry at ``index`` (0 = newest)."""
        if 0 <= index < len(self._entries):
            self._selected = index
            if self.is_mounted:
                self.query_one(OptionList).highlighted = index
                self._render_detail()

    def _render_list(self) -> None:
        styles = theme_styles(self.app)
        option_list = self.query_one(OptionList)
        option_list.clear_options()
        option_list.add_options(
            [Option(_list_line(e, styles), id=str(i)) for i, e in enumerate(self._entries)]
        )
        if self._entries:
            option_list.highlighted = self._selected
        self._render_detail()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index is not None and event.option_index != self._selected:
            self._selected = event.option_index
            self._render_detail()

    def _render_detail(self) -> None:
        entry = self.selected
        header = self.query_one("#history-header", Static)
        bars = self.query_one(PhaseBars)
        extra = self.query_one("#history-extra", Static)
        if entry is None:
            header.update(Text("no finished workflows in workflow_history", style="dim"))
            bars.set_timings([])
            extra.update(Text(""))
            return
        styles = theme_styles(self.app)
        header.update(detail_header(entry, styles))
        bars.set_timings(phase_timings(entry))
        extra.update(detail_extra(entry, styles))


def _identity(entry: Any) -> tuple[Any, ...]:
    return (
        _get(entry, "slug"),
        _get(entry, "artifact_folder"),
        _get(entry, "started_at"),
        _get(entry, "type"),
    )


def _list_line(entry: Any, styles: Styles) -> Text:
    status = _get(entry, "status") or "?"
    text = Text(no_wrap=True, overflow="ellipsis")
    glyph = {"completed": "✓", "cancelled": "✗"}.get(status, "•")
    text.append(glyph + " ", style=_status(status, styles))
    text.append(str(_get(entry, "type") or "?"), style="bold")
    text.append(" ")
    name = _get(entry, "artifact_folder") or _get(entry, "slug") or _get(entry, "description") or ""
    text.append(shorten(str(name), 40))
    when = parse_iso(entry_end(entry) or _get(entry, "started_at"))
    if when is not None:
        text.append(f"  {when.astimezone():%m-%d}", style="dim")
    return text


def detail_header(entry: Any, styles: Styles) -> Text:
    status = _get(entry, "status") or "?"
    text = Text()
    text.append(str(_get(entry, "type") or "?"), style="bold")
    folder = _get(entry, "artifact_folder") or _get(entry, "slug")
    if folder:
        text.append("  ")
        text.append(str(folder))
    text.append("\n")
    description = _get(entry, "description")
    if description:
        text.append(str(description))
        text.append("\n")
    text.append("status ")
    text.append(str(status), style=_status(status, styles))
    if status == "cancelled":
        reason = _get(entry, "cancellation_reason")
        text.append("  reason: ", style=styles["error"])
        text.append(str(reason) if reason else "(none given)", style=styles["error"])
    text.append("\nstarted ")
    text.append(_when(_get(entry, "started_at")))
    text.append("  ·  ")
    text.append("cancelled " if status == "cancelled" else "completed ")
    text.append(_when(entry_end(entry)))
    text.append("  ·  total ")
    text.append(format_minutes(total_minutes(entry)), style="bold")
    return text


def detail_extra(entry: Any, styles: Styles) -> Text:
    text = Text()
    metrics = _get(entry, "metrics")
    text.append("metrics\n", style="bold")
    if isinstance(metrics, dict) and metrics:
        width = min(max(len(str(k)) for k in metrics), 28)
        for key, value in metrics.items():
            text.append("  " + shorten(str(key), width).ljust(width) + "  ", style="dim")
            text.append(shorten(str(value), 60))
            text.append("\n")
    else:
        text.append("  none recorded\n", style="dim")
    reviews = _get(entry, "review_history") or []
    text.append("review history\n", style="bold")
    if not reviews:
        text.append("  none\n", style="dim")
    for review in reviews:
        action = str(_get(review, "action") or "?")
        style = styles[ACTION_ROLE.get(action, "plain")]
        text.append("  ")
        text.append(action.ljust(9), style=style)
        text.append(str(_get(review, "phase") or "?"))
        ts = _get(review, "timestamp")
        if ts:
            text.append("  " + _when(ts), style="dim")
        if action == "redo":
            count = _get(review, "redo_count")
            if count is not None:
                text.append(f"  redo #{count}")
            guidance = _get(review, "guidance")
            if guidance:
                text.append("  guidance: ", style="dim")
                text.append(shorten(str(guidance), 80))
        if action == "review":
            paused = _span(_get(review, "paused_at"), _get(review, "resumed_at"))
            if paused is not None:
                text.append(f"  paused {format_minutes(paused)}")
        text.append("\n")
    text.rstrip()
    return text


__all__ = [
    "HistoryView",
    "PhaseBars",
    "PhaseTiming",
    "detail_extra",
    "detail_header",
    "format_minutes",
    "phase_timings",
]
