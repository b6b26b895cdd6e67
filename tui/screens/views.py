"""The ViewsScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, ClassVar

from phasewatch.core.observe.view import expire
from phasewatch.core.session import SessionUpdate
from phasewatch.core.systems import OBSERVE
from phasewatch.widgets.framework_views import FrameworkViews
from textual.binding import Binding, BindingType
from textual.widget import Widget

from .panels import NO_STATE, PanelScreen


class ViewsScreen(PanelScreen):
    """Key ``7``. What the iSDLC framework's own live dashboard and ``/isdlc status`` show
    (docs/observability.md): the build, sub-agents, skills, hook events, the analysis and the
    recent workflows, read as the framework reads them where its writers agree. Data:
    ``update.system(OBSERVE)``; re-set only when its ``rev`` moved, and when an analysis
    leaves the framework's 2-minute window (checked every :attr:`EXPIRE_S` seconds: time alone
    ends it, no file changes)."""

    EXPIRE_S = 5.0
    EMPTY = NO_STATE

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "top", "Top", show=False),
        Binding("end", "bottom", "Bottom", show=False),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.sets = 0  # set_data calls (tests)
        self._rev = -1  # the load rendered (SystemView.rev)
        self._data: dict[str, Any] | None = None
        self.clock = time.time  # (tests set their own)

    def on_mount(self) -> None:
        self.set_interval(self.EXPIRE_S, self.check_window)

    def check_window(self) -> None:
        """Re-show the page when an active analysis has aged out of the window."""
        if self._data is not None:
            later = expire(self._data, self.clock() * 1000)
            if later is not self._data:
                self._show(later)

    def compose_main(self) -> Iterable[Widget]:
        yield FrameworkViews(id="views")

    @property
    def main_widget(self) -> Widget:
        return self.page

    @property
    def page(self) -> FrameworkViews:
        return self.query_one("#views", FrameworkViews)

    def apply_update(self, update: SessionUpdate) -> None:
        view = update.system(OBSERVE)
        if self._rendered and view.rev == self._rev:
            return
        self._rev = view.rev
        self._show(view.data)
        self.show_empty(NO_STATE if view.data is None else None)

    def _show(self, data: dict[str, Any] | None) -> None:
        self._data = data
        self.page.set_data(data)
        self.sets += 1
        if data is not None:
            self.set_title(f"{self.TITLE} · {data['status']}")

    def action_top(self) -> None:
        self.page.scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.page.scroll_end(animate=False)
