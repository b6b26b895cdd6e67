"""The HistoryScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.widgets.history_view import HistoryView
from textual.binding import Binding, BindingType
from textual.widget import Widget

from .panels import NO_STATE, PanelScreen


class HistoryScreen(PanelScreen):
    """Key ``4``. ``workflow_history`` (finished and cancelled workflows, newest first) with the
    selected one's times, per-phase duration bars, metrics and reviews. Data:
    ``update.snapshot(project_id).state.workflow_history``, re-set on a new version only."""

    EMPTY = "No finished workflow in workflow_history yet."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "newest", "Newest"),
        Binding("o", "oldest", "Oldest"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._history: list[Any] | None = None
        self._shown_project: str | None = None
        self._shown: tuple[Any, ...] = ()  # (project, its version seq, discovery) rendered
        self.sets = 0  # set_history calls (tests)

    def compose_main(self) -> Iterable[Widget]:
        yield HistoryView(id="history")

    @property
    def main_widget(self) -> Widget:
        return self.view

    @property
    def view(self) -> HistoryView:
        return self.query_one("#history", HistoryView)

    def apply_update(self, update: SessionUpdate) -> None:
        snap = update.snapshot(self.project_id)
        pid = snap.project_id if snap is not None else ""
        shown = (pid, update.versions.get(pid), update.discovery)  # revisions, not deltas
        if self._rendered and shown == self._shown:
            return
        self._shown = shown
        self._shown_project = pid
        history = list(snap.state.workflow_history) if snap is not None else []
        if history != self._history:
            self._history = history
            self.view.set_history(history)
            self.sets += 1
        if snap is None:
            self.show_empty(NO_STATE)
        else:
            self.show_empty(None if history else self.EMPTY)
        n = len(history)
        self.set_title(f"{self.TITLE} · {n} finished workflow{'s' if n != 1 else ''}")

    def action_newest(self) -> None:
        self.view.select(0)

    def action_oldest(self) -> None:
        self.view.select(len(self.view.entries) - 1)


# ---------------------------------------------------------------------------- 5 TDD
