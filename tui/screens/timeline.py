"""The TimelineScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import ClassVar

from phasewatch.core.session import RAW_CAP, TIMELINE_CAP, SessionUpdate, view_entry
from phasewatch.core.timeline import TimelineEntry as ViewEntry
from phasewatch.widgets.timeline_view import TimelineView
from textual.binding import Binding, BindingType
from textual.widget import Widget

from .panels import NO_STATE, PanelScreen


class TimelineScreen(PanelScreen):
    """Key ``3``. Every distinct state.json content observed this session (of the shown
    project), with its changed paths and transition findings; the diff pane compares the
    highlighted version with its predecessor, or two marked versions. Data: ``update.timeline``
    (entries APPENDED, a delta), converted by :func:`core.session.view_entry`."""

    EMPTY = "No state version observed yet in this session."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "mark", "Mark A/B"),
        Binding("escape", "clear_marks", "Clear marks"),
        Binding("l", "latest", "Latest"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        # every entry of every project (the view shows one project's)
        self.entries: deque[tuple[str, ViewEntry]] = deque(maxlen=TIMELINE_CAP)
        self._with_raw: deque[ViewEntry] = deque()  # entries still holding their document
        self._shown_project: str | None = None
        self._seq = 0  # the newest session entry taken in (update.timeline holds them all)

    def compose_main(self) -> Iterable[Widget]:
        yield TimelineView(max_entries=TIMELINE_CAP, id="timeline")

    @property
    def main_widget(self) -> Widget:
        return self.view

    @property
    def view(self) -> TimelineView:
        return self.query_one("#timeline", TimelineView)

    def apply_update(self, update: SessionUpdate) -> None:
        fresh = [e for e in update.timeline if e.seq > self._seq]
        if fresh:
            self._seq = fresh[-1].seq
        new: list[tuple[str, ViewEntry]] = [(e.project_id, view_entry(e)) for e in fresh]
        self.entries.extend(new)
        self._trim_raw(entry for _pid, entry in new)
        self._show_entries(update, new)

    def project_changed(self) -> None:
        """Show the other project's versions (kept here), without re-adding the last delta."""
        if self.last_update is not None and self.is_mounted:
            self._show_entries(self.last_update, [])
            self.update_status()

    def _show_entries(self, update: SessionUpdate, new: list[tuple[str, ViewEntry]]) -> None:
        snap = update.snapshot(self.project_id)
        pid = snap.project_id if snap is not None else ""
        view = self.view
        if pid != self._shown_project:
            self._shown_project = pid
            view.clear()
            view.add_entries(e for p, e in self.entries if p == pid)
        else:
            view.add_entries(e for p, e in new if p == pid)
        shown = len(view.entries)
        if shown:
            self.show_empty(None)
        else:
            self.show_empty(self.EMPTY if snap is not None else NO_STATE)
        total = update.timeline_total
        extra = f" of {total}" if total > shown else ""
        plural = "s" if shown != 1 else ""
        self.set_title(f"{self.TITLE} · {shown}{extra} version{plural} this session")

    def _trim_raw(self, added: Iterable[ViewEntry]) -> None:
        """Keep the document of the newest ``RAW_CAP`` entries only (as the session does)."""
        for entry in added:
            if entry.raw is not None:
                self._with_raw.append(entry)
        while len(self._with_raw) > RAW_CAP:
            self._with_raw.popleft().raw = None

    # -- keys --------------------------------------------------------------------------

    def action_mark(self) -> None:
        self.view.action_toggle_mark()

    def action_clear_marks(self) -> None:
        self.view.clear_marks()

    def action_latest(self) -> None:
        table = self.view.table
        if table.row_count:
            table.move_cursor(row=table.row_count - 1)
            table.focus()


# ---------------------------------------------------------------------------- 4 history
