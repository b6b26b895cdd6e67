"""A virtual view of ``.isdlc/hook-activity.log`` rows (line API: only visible lines render).

The rows live in a :class:`~core.hooklog.store.HookStore` (compact columns, the log file as the
storage), filled by the session's worker thread; this widget only reads it. :meth:`HookLogView.sync`
takes in what the store gained since the last call (the app calls it when the log grew): the
filter runs over the new rows only. Rendered lines are cached as Strips in an LRU keyed by (row,
layout), so scrolling only renders (and parses) new rows.

Every string reaches the terminal as a ``Segment`` (never parsed as markup). The widget does no
file I/O: rows are read through the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, ClassVar, NamedTuple

from phasewatch.core.hooklog.store import (
    KIND_INVALID,
    HookFilter,
    HookStore,
    Moot,
    _Visible,
    rotation_notice,
)
from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Static

from ._style import show_in, theme_styles
from .chooser import ANY, Chooser

BLOCK_EVENTS = frozenset({"block", "error"})
WARN_EVENTS = frozenset({"warn", "timeout_warning", "format-validation-warning"})
MAX_REASON_CELLS = 1000  # longer reasons are cut (the horizontal scroll stops there)
BACKGROUND_ROWS = 50_000  # a text filter over more parsed rows runs in a thread


class _Layout(NamedTuple):
    ts_long: bool
    hook: int
    event: int
    phase: int
    agent: int  # 0: agent column hidden

    @property
    def prefix(self) -> int:
        widths = [18 if self.ts_long else 8, self.hook, self.event, self.phase]
        if self.agent:
            widths.append(self.agent)
        return sum(widths) + len(widths)


def _fit(text: str, width: int) -> str:
    """Pad or cut ``text`` to exactly ``width`` cells (an ellipsis marks a cut)."""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, max(0, width - 1)) + "…"


def _one_line(text: str) -> str:
    if "\n" in text or "\t" in text or "\r" in text:
        text = text.replace("\r\n", "⏎").replace("\n", "⏎").replace("\r", "⏎")
        text = text.expandtabs(4)
    if len(text) > MAX_REASON_CELLS:
        text = text[: MAX_REASON_CELLS - 1] + "…"
    return text


def _ts_short(ts: str | None, long: bool) -> str:
    if not ts:
        return "?"
    # canonical form: 2026-03-04T09:12:03.418Z
    if len(ts) >= 19 and ts[4] == "-" and ts[10] in "T " and ts[13] == ":":
        return ts[5:10] + " " + ts[11:23] if long else ts[11:19]
    return ts


class HookLogView(ScrollView, can_focus=True):
    """Virtual view of hook-log records, newest at the bottom.

    It reads a :class:`~core.hooklog.store.HookStore` (the session's: :meth:`attach`, then
    :meth:`sync` when the log grew; records from elsewhere: :meth:`append`); filter with
    :meth:`set_filter`. Rows are parsed from the log only when painted.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "toggle_follow", "Follow", tooltip="Follow new records (auto-scroll)"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "hooklog--ts",
        "hooklog--hook",
        "hooklog--event",
        "hooklog--phase",
        "hooklog--agent",
        "hooklog--block",
        "hooklog--warn",
        "hooklog--invalid",
        "hooklog--marker",
    }

    DEFAULT_CSS = """
    HookLogView {
        background: $surface;
        color: $foreground;
        overflow: auto;
        height: 1fr;
        &:focus { background-tint: $foreground 5%; }
        & > .hooklog--ts { color: $text-muted; }
        & > .hooklog--hook { color: $text-accent; }
        & > .hooklog--event { color: $text-secondary; }
        & > .hooklog--phase { color: $text-primary; }
        & > .hooklog--agent { color: $text-muted; }
        & > .hooklog--block { color: $text-error; text-style: bold; }
        & > .hooklog--warn { color: $text-warning; }
        & > .hooklog--invalid { color: $text-disabled; text-style: italic; }
        & > .hooklog--marker { background: $warning-muted; color: $text-warning; text-style: bold; }
    }
    """

    follow: reactive[bool] = reactive(True)
    """Auto-scroll to new records (released when the user scrolls up)."""

    class FollowChanged(Message):
        def __init__(self, view: HookLogView, follow: bool) -> None:
            super().__init__()
            self.view = view
            self.follow = follow

        @property
        def control(self) -> HookLogView:
            return self.view

    class RowChosen(Message):
        """The user asked to read one row whole (a click on it, or ``d`` for the top row)."""

        def __init__(self, view: HookLogView, record: int) -> None:
            super().__init__()
            self.view = view
            self.record = record

        @property
        def control(self) -> HookLogView:
            return self.view

    class FilterChanged(Message):
        """The set of visible records changed because the filter changed."""

        def __init__(self, view: HookLogView, shown: int, total: int) -> None:
            super().__init__()
            self.view = view
            self.shown = shown
            self.total = total

        @property
        def control(self) -> HookLogView:
            return self.view

    def __init__(
        self,
        store: HookStore | None = None,
        *,
        cache_size: int = 4096,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.store = store if store is not None else HookStore()
        self._synced = (0, 0, self.store.generation)  # (rows, filled rows, generation) taken in
        self._filter = HookFilter()  # the filter shown
        self._wanted = HookFilter()  # the filter asked for (a text filter runs in a thread)
        self._visible: _Visible | None = None  # filled rows passing the filter; None = all rows
        self._cache: LRUCache[tuple[int, _Layout], Strip] = LRUCache(cache_size)
        self._layout: _Layout | None = None
        self._styles: dict[str, Style] | None = None
        self._programmatic = 0

    # ------------------------------------------------------------------ data
    @property
    def total(self) -> int:
        """Rows held (rotation markers and rows not parsed yet included)."""
        return self._synced[0]

    @property
    def shown(self) -> int:
        """Rows passing the current filter (a filter sees parsed rows only)."""
        return self.total if self._visible is None else len(self._visible)

    @property
    def filter(self) -> HookFilter:
        return self._filter

    @property
    def rotations(self) -> list[tuple[datetime, int]]:
        """Every rotation noted: (when, lines the file kept)."""
        return [(m.when, m.lines) for m in self.store.rotations()]

    def visible_records(self) -> list[int]:
        """Indices (in file order) of the rows passing the filter."""
        return list(range(self.total)) if self._visible is None else list(self._visible.records())

    def record_at(self, row: int) -> int:
        """Row index shown at virtual row ``row``."""
        return row if self._visible is None else self._visible.select(row)

    def record_fields(self, record: int) -> dict[str, Any]:
        """The fields of one row (for a detail pane or tests)."""
        store = self.store
        r = store.record(record)
        marker = store.marker(record)
        return {
            "ts": marker.when.isoformat() if marker else r.ts,
            "hook": r.hook,
            "event": r.event,
            "phase": r.phase,
            "agent": r.agent,
            "reason": r.reason,
            "line_no": r.line_no,
            "offset": r.offset,
            "valid": store.kind(record) != KIND_INVALID and marker is None and r.valid,
            "marker": marker.text if marker else None,
            "error": None if r.valid else r.error,
            "raw": None if r.valid else r.raw,
        }

    def line_text(self, record: int) -> str:
        """The plain text of a rendered row (at the current layout)."""
        return self._render_record(record).text

    def counts(self, *, filtered: bool = False) -> tuple[dict[str, int], dict[str, int]]:
        """Parsed rows per hook and per event (``None`` as ``"(none)"``); markers excluded."""
        visible = self._visible if filtered else None
        markers = self.store.markers  # markers hold None in every column and always show

        def rows() -> Iterable[int] | None:  # (a new iterator per field)
            # (not `visible and visible.records()`: an empty _Visible is falsy, passed as is)
            return visible.records() if visible is not None else None

        def named(d: dict[str | None, int]) -> dict[str, int]:
            if markers and None in d:
                d[None] -= markers
            return {("(none)" if k is None else k): n for k, n in d.items() if n > 0}

        return (
            named(self.store.counts("hook", rows())),
            named(self.store.counts("event", rows())),
        )

    def distinct(self, field: str) -> list[str | None]:
        """Distinct values seen for ``hook``, ``event``, ``phase`` or ``agent``."""
        return self.store.distinct(field if field in {"hook", "event", "phase"} else "agent")

    def attach(self, store: HookStore) -> None:
        """Read from ``store`` from now on (everything it holds is taken in)."""
        if store is not self.store:
            self.store = store
            self._synced = (0, 0, -1)
            self.sync()

    def sync(self) -> bool:
        """Take in what the store gained (new rows; after rows were taken away, everything):
        the filter runs over the new parsed rows only. Whether anything changed."""
        store = self.store
        rows, filled, generation = self._synced
        now = (store.count, store.filled, store.generation)
        if now == self._synced:
            return False
        if generation != now[2] or now[0] < rows:
            self._cache.clear()
            filled = 0
            if self._visible is not None:
                self._visible = None
        self._synced = now
        self._filter_from(min(filled, now[1]))
        self._content_changed()
        return True

    def append(self, records: Sequence[Any]) -> None:
        """Add records that did not come from the session's store (tests, tools)."""
        if records:
            self.store.append_records(records)
            self.sync()

    def note_rotation(self, n_lines_kept: int, when: datetime | None = None) -> None:
        """The owner rewrote the file keeping its newest ``n_lines_kept`` lines: a marker row.
        (The session adds these itself; for records fed with :meth:`append`.)"""
        when = when or datetime.now().astimezone()
        self.store.add_marker(rotation_notice(when, n_lines_kept), when, n_lines_kept)
        self.sync()

    def clear(self) -> None:
        """Forget every row (a new, empty store)."""
        self.store = HookStore()
        self._synced = (0, 0, self.store.generation)
        self._visible = None
        if self._filter.active:
            self._visible = _Visible()
            self._visible.set_from(0, b"")
        self._cache.clear()
        self._layout = None
        self._content_changed()

    def set_filter(
        self,
        hooks: Iterable[str | None] | None = None,
        events: Iterable[str | None] | None = None,
        phases: Iterable[str | None] | None = None,
        text: str | None = None,
    ) -> None:
        """Show only rows whose hook/event/phase is in the given sets (None: any) and whose
        reason, hook, agent or phase contains ``text`` (case-insensitive). Rotation markers
        always show; rows not parsed yet show only without a filter."""
        new = HookFilter(
            None if hooks is None else frozenset(hooks),
            None if events is None else frozenset(events),
            None if phases is None else frozenset(phases),
            text or None,
        )
        if new == self._wanted:
            return
        self._wanted = new
        stop = self._synced[1]
        if new.text and stop > BACKGROUND_ROWS and self.is_mounted:
            # a text filter reads the log's bytes: off the UI thread (typing stays fluid; a
            # newer filter makes this one's result moot)
            self.run_worker(
                lambda: self._mask_in_thread(new, stop),
                thread=True,
                exclusive=True,
                group="hooklog-filter",
            )
            return
        self._apply_filter(new, self.store.mask(new, 0, stop), stop)

    def _mask_in_thread(self, wanted: HookFilter, stop: int) -> None:
        # Started at once (no wait for a pause in the typing: measured, a burst of keys lands
        # sooner without one): a scan still running when a newer filter is typed stops at its
        # next part (SCAN_CHUNK of the log), so only the last key's scan runs to its end.
        try:
            mask = self.store.mask(wanted, 0, stop, lambda: wanted == self._wanted)
        except Moot:
            return
        self.app.call_from_thread(self._apply_filter, wanted, mask, stop)

    def _apply_filter(self, new: HookFilter, mask: bytes | None, stop: int) -> None:
        """Show the rows ``mask`` (over the first ``stop`` parsed rows) lets through."""
        if new != self._wanted:
            return  # a newer filter was asked for meanwhile
        anchor = self._top_record()
        self._filter = new
        self._visible = None
        if mask is not None:
            self._visible = _Visible()
            self._visible.set_from(0, mask)
        self._filter_from(stop)  # rows parsed meanwhile
        self._cache.clear()
        self._content_changed(anchor=anchor)
        self.post_message(self.FilterChanged(self, self.shown, self.total))

    def _filter_from(self, start: int) -> None:
        """Apply the filter to the parsed rows from ``start`` on."""
        stop = self._synced[1]
        if start >= stop and (self._visible is not None or not self._filter.active):
            return
        mask = self.store.mask(self._filter, start, stop)
        if mask is None:
            self._visible = None
            return
        if self._visible is None:
            self._visible = _Visible()
            start = 0
            mask = self.store.mask(self._filter, 0, stop) or b""
        self._visible.set_from(start, mask)

    # ------------------------------------------------------------- scrolling
    def _top_record(self) -> int | None:
        if not self.shown:
            return None
        row = min(int(self.scroll_y), self.shown - 1)
        return self.record_at(row)

    def on_mount(self) -> None:
        self.sync()
        self._content_changed()  # rows stored before the view was mounted

    def _content_changed(self, anchor: int | None = None) -> None:
        if not self.is_mounted:  # fed before mount (a screen not shown yet): laid out on mount
            return
        layout = self._compute_layout()
        width = layout.prefix + max(self.store.max_length - 100, 60)
        width = min(width, layout.prefix + MAX_REASON_CELLS)
        self.virtual_size = Size(width, self.shown)
        if self.follow:
            self._scroll_to_end()
            # scrollbars appear only at the next layout and take a row: end again after it
            self.call_after_refresh(self._follow_after_layout)
        elif anchor is not None:
            self._programmatic += 1
            try:
                self.scroll_to(y=self._row_of(anchor), animate=False, immediate=True, force=True)
            finally:
                self._programmatic -= 1
        self.refresh()

    def _scroll_to_end(self) -> None:
        self._programmatic += 1
        try:
            self.scroll_end(animate=False, immediate=True, x_axis=False, force=True)
        finally:
            self._programmatic -= 1

    def _follow_after_layout(self) -> None:
        if self.follow and self.scroll_y != self.max_scroll_y:
            self._scroll_to_end()

    def _row_of(self, record: int) -> int:
        """Row of ``record`` in the current view, or of the next record shown after it."""
        if self._visible is None:
            return min(record, max(0, self.total - 1))
        return min(self._visible.rank(record), max(0, len(self._visible) - 1))

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self._programmatic:
            return
        if new_value < old_value and new_value < self.max_scroll_y:
            self.follow = False
        elif new_value > old_value and new_value >= self.max_scroll_y:
            self.follow = True

    def watch_follow(self, follow: bool) -> None:
        if follow and self.is_mounted:
            self._scroll_to_end()
        self.post_message(self.FollowChanged(self, follow))

    def _choose(self, row: int) -> None:
        if 0 <= row < self.shown:
            self.post_message(self.RowChosen(self, self.record_at(row)))

    def action_detail(self) -> None:
        self._choose(int(self.scroll_y))

    def on_click(self, event: events.Click) -> None:
        self._choose(int(self.scroll_y) + event.y)

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow

    # Paging is instant (an animated page over a million rows repaints many frames).
    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False, x_axis=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, x_axis=False)

    def on_resize(self) -> None:
        self._content_changed()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._cache.clear()

    # ------------------------------------------------------------- rendering
    def _compute_layout(self) -> _Layout:
        width = self.size.width or 120
        wide = width >= 110
        layout = _Layout(
            ts_long=wide,
            hook=max(4, min(self.store.max_cells("hook"), 24 if wide else 16)),
            event=max(5, min(self.store.max_cells("event"), 17 if wide else 10)),
            phase=max(5, min(self.store.max_cells("phase"), 18 if wide else 8)),
            agent=max(5, min(self.store.max_cells("agent"), 20)) if width >= 150 else 0,
        )
        if layout != self._layout:
            self._layout = layout
            self._cache.clear()
        return layout

    def _get_styles(self) -> dict[str, Style]:
        if self._styles is None:
            base = self.rich_style
            self._styles = {
                name.removeprefix("hooklog--"): base + self.get_component_rich_style(name)
                for name in self.COMPONENT_CLASSES
            }
            self._styles["base"] = base
        return self._styles

    def _render_record(self, record: int) -> Strip:
        layout = self._layout or self._compute_layout()
        key = (record, layout)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        st = self._get_styles()
        marker = self.store.marker(record)
        if marker is not None:
            strip = Strip([Segment(marker.text, st["marker"])])
        else:
            strip = Strip(self._segments(self.store.record(record), layout, st))
        self._cache[key] = strip
        return strip

    def _segments(self, r: Any, layout: _Layout, st: dict[str, Style]) -> list[Segment]:
        base = st["base"]
        ts = _fit(_ts_short(r.ts, layout.ts_long), 18 if layout.ts_long else 8)
        if not r.valid:
            line = f"line {r.line_no}: {r.error}"
            return [
                Segment(ts, st["ts"]),
                Segment(" "),
                Segment(_one_line(line), st["invalid"]),
                Segment("  "),
                Segment(_one_line(r.raw or ""), st["invalid"]),
            ]
        event = r.event
        emphasis = (
            st["block"] if event in BLOCK_EVENTS else st["warn"] if event in WARN_EVENTS else None
        )
        segments = [
            Segment(ts, st["ts"]),
            Segment(" ", base),
            Segment(_fit(r.hook or "-", layout.hook), st["hook"]),
            Segment(" ", base),
            Segment(_fit(event or "-", layout.event), emphasis or st["event"]),
            Segment(" ", base),
            Segment(_fit(r.phase or "-", layout.phase), st["phase"]),
            Segment(" ", base),
        ]
        if layout.agent:
            segments += [
                Segment(_fit(r.agent or "-", layout.agent), st["agent"]),
                Segment(" ", base),
            ]
        segments.append(Segment(_one_line(r.reason or ""), emphasis or base))
        return segments

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.size.width
        base = self._get_styles()["base"]
        if row < 0 or row >= self.shown:
            return Strip.blank(width, base)
        strip = self._render_record(self.record_at(row))
        return strip.crop_extend(scroll_x, scroll_x + width, base)


class HookStats(Static):
    """Per-hook and per-event record counts (blocks in the error colour)."""

    DEFAULT_CSS = """
    HookStats {
        height: auto;
        max-height: 6;
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(
        self,
        hooks: dict[str, int] | None = None,
        events: dict[str, int] | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, markup=False)
        self.hooks: dict[str, int] = dict(hooks or {})
        self.events: dict[str, int] = dict(events or {})
        self.note: str = ""
        self._refresh_text()

    def update_counts(self, hooks: dict[str, int], events: dict[str, int], note: str = "") -> None:
        """Show new counts (``note``: one extra plain-text line, e.g. the last rotation)."""
        self.hooks, self.events, self.note = dict(hooks), dict(events), note
        self._refresh_text()

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._refresh_text())

    def _refresh_text(self) -> None:
        styles = theme_styles(self.app)
        text = Text(no_wrap=False)
        text.append("events ", style="bold")
        if not self.events:
            text.append("—")
        for i, (event, n) in enumerate(sorted(self.events.items(), key=lambda kv: -kv[1])):
            if i:
                text.append(" · ")
            style = (
                styles["error"]
                if event in BLOCK_EVENTS
                else styles["warning"]
                if event in WARN_EVENTS
                else ""
            )
            text.append(event, style=style)
            text.append(f" {n}", style=style or "bold")
        text.append("\nhooks  ", style="bold")
        if not self.hooks:
            text.append("—")
        for i, (hook, n) in enumerate(sorted(self.hooks.items(), key=lambda kv: -kv[1])):
            if i:
                text.append(" · ")
            text.append(hook)
            text.append(f" {n}", style="bold")
        if self.note:
            text.append("\n")
            text.append(self.note, style=styles["warning"])
        self.update(text)


class _NullValue:
    """Filter value standing for a JSON null (``(none)``)."""

    def __repr__(self) -> str:
        return "(none)"


NULL_VALUE = _NullValue()


class HookLogScreenBody(Vertical):
    """Filter bar + :class:`HookLogView` + :class:`HookStats`: drop it into a Screen.

    Feed it like the view: :meth:`append`, :meth:`note_rotation`, :meth:`clear`.
    """

    DEFAULT_CSS = """
    HookLogScreenBody {
        height: 1fr;
        & > #hooklog-bar { height: auto; }
        & > #hooklog-bar > Input { width: 1fr; min-width: 16; }
        & > #hooklog-bar > Chooser { width: 22; }
        & > #hooklog-status { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "focus_search", "Search", show=True),
        Binding("b", "blocks_only", "Blocks only", show=True),
        Binding("escape", "clear_filters", "Clear filters", show=False),
    ]

    def __init__(
        self,
        *,
        view: HookLogView | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """``view``: a view built (and possibly fed) beforehand, e.g. by a screen that receives
        records before it is first shown."""
        super().__init__(name=name, id=id, classes=classes)
        self._view = view or HookLogView(id="hooklog-view")
        self._known: dict[str, tuple[Any, ...]] = {}
        self._syncing = 0

    def compose(self) -> ComposeResult:
        with Horizontal(id="hooklog-bar"):
            yield Input(placeholder="search reason / hook / agent / phase", id="hooklog-search")
            yield Chooser(prompt="hook: any", id="hooklog-hook")
            yield Chooser(prompt="event: any", id="hooklog-event")
            yield Chooser(prompt="phase: any", id="hooklog-phase")
        yield self._view
        yield Static("", id="hooklog-status", markup=False)
        yield HookStats(id="hooklog-stats")

    @property
    def view(self) -> HookLogView:
        return self._view

    @property
    def stats(self) -> HookStats:
        return self.query_one(HookStats)

    def on_mount(self) -> None:
        self.refresh_side()

    # ------------------------------------------------------------------ feed
    def append(self, records: Sequence[Any]) -> None:
        self.view.append(records)
        self.refresh_side()

    def note_rotation(self, n_lines_kept: int, when: datetime | None = None) -> None:
        self.view.note_rotation(n_lines_kept, when)
        self.refresh_side()

    def clear(self) -> None:
        self.view.clear()
        self.refresh_side()

    # --------------------------------------------------------------- filters
    def _select_value(self, select_id: str) -> frozenset[str | None] | None:
        value = self.query_one(f"#{select_id}", Chooser).value
        if value is ANY:
            return None
        return frozenset({None if value is NULL_VALUE else value})

    def _apply_filter(self) -> None:
        if self._syncing:
            return
        self.view.set_filter(
            hooks=self._select_value("hooklog-hook"),
            events=self._select_value("hooklog-event"),
            phases=self._select_value("hooklog-phase"),
            text=self.query_one("#hooklog-search", Input).value or None,
        )
        self.refresh_side()

    @on(Input.Changed, "#hooklog-search")
    def _search_changed(self) -> None:
        self._apply_filter()

    @on(Chooser.Changed)
    def _select_changed(self, event: Chooser.Changed) -> None:
        event.stop()
        self._apply_filter()

    @on(HookLogView.FollowChanged)
    def _follow_changed(self) -> None:
        self._refresh_status()

    @on(HookLogView.FilterChanged)
    def _filter_changed(self) -> None:
        self.refresh_side()  # a text filter over a large log lands later (from its thread)

    def action_focus_search(self) -> None:
        self.query_one("#hooklog-search", Input).focus()

    def action_blocks_only(self) -> None:
        select = self.query_one("#hooklog-event", Chooser)
        if "block" in self.view.distinct("event"):
            select.value = ANY if select.value == "block" else "block"

    def action_clear_filters(self) -> None:
        """Escape: in the search box, leave it for the log (the text stays a filter, and keys
        are the screen's again); elsewhere, clear every filter."""
        search = self.query_one("#hooklog-search", Input)
        if search.has_focus:
            self.view.focus()
            return
        self._syncing += 1
        try:
            self.query_one("#hooklog-search", Input).value = ""
            for sid in ("hooklog-hook", "hooklog-event", "hooklog-phase"):
                self.query_one(f"#{sid}", Chooser).clear()
        finally:
            self._syncing -= 1
        self._apply_filter()

    # ---------------------------------------------------------------- status
    def refresh_side(self) -> None:
        view = self.view
        self._sync_options("hooklog-hook", view.distinct("hook"))
        self._sync_options("hooklog-event", view.distinct("event"))
        self._sync_options("hooklog-phase", view.distinct("phase"))
        hooks, events = view.counts()
        note = ""
        if view.rotations:
            when, kept = view.rotations[-1]
            note = (
                f"log rotated by its owner at {when:%H:%M:%S} (×{len(view.rotations)}; "
                f"file kept {kept} lines) — earlier lines kept from this session"
            )
        self.stats.update_counts(hooks, events, note)
        self._refresh_status()

    def _refresh_status(self) -> None:
        view = self.view
        text = Text()
        markers = view.store.markers  # always shown, never counted as records
        text.append(f"{view.shown - markers:,} of {view.total - markers:,} records")
        if view.filter.active:
            text.append("  (filtered)", style="bold")
        text.append("  ·  follow ")
        text.append(
            "on" if view.follow else "off (f)",
            style="bold" if view.follow else theme_styles(self.app)["warning"],
        )
        show_in(self.query_one("#hooklog-status", Static), text)

    def _sync_options(self, select_id: str, values: list[str | None]) -> None:
        key = tuple(values)
        if self._known.get(select_id) == key:
            return
        self._known[select_id] = key
        select = self.query_one(f"#{select_id}", Chooser)
        options = [
            (
                Text("(none)", style="italic") if v is None else Text(v),
                NULL_VALUE if v is None else v,
            )
            for v in sorted(values, key=lambda v: (v is None, v or ""))
        ]
        self._syncing += 1
        try:
            select.set_options(options)  # (a chosen value still offered stays chosen)
        finally:
            self._syncing -= 1
