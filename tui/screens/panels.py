"""The base of screens 2-7 (one module each: ``hooks``, ``timeline``, ``history``, ``tdd``,
``plugins``, ``views``).

Each is an :class:`~tui.screens.base.UpdateScreen`: the app calls ``show_update(update)`` with
every :class:`~core.session.SessionUpdate` (buffered and merged until the screen is first
mounted). Each screen feeds one dedicated widget, incrementally:

* Hook activity (``2``): :class:`widgets.hooklog_view.HookLogScreenBody`; the update's NEW hook
  records are appended in one call, an owner rotation becomes a marker line and a notice.
* Timeline (``3``): :class:`widgets.timeline_view.TimelineView`; new state versions are appended
  by key (``seq``), two marked versions are diffed.
* History (``4``): :class:`widgets.history_view.HistoryView`; re-set only when the state file has
  a new version and ``workflow_history`` really changed.
* TDD (``5``): :class:`widgets.tdd_board.TddBoard`; re-set only when the plan was re-read (its ``rev``).
* Plugins (``6``): :class:`widgets.plugin_table.PluginTable`; keyed cell updates, only when
  the registry was re-read (its ``rev``).
* Framework views (``7``): :class:`widgets.framework_views.FrameworkViews`; re-set only when
  the observability view was re-read (its ``rev``), or an analysis aged out of its window.

Screen-level bindings (with descriptions) name each screen's keys so the footer and the
generated ``?`` help list them; they delegate to the widgets. No file is read here: every piece
of data comes from the update. Every string from a file goes through ``Content``/``Text``.
"""

from __future__ import annotations

from collections.abc import Iterable

from phasewatch.core.session import SessionUpdate
from phasewatch.widgets._style import plain_content
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from .base import UpdateScreen

NO_STATE = "No .isdlc/state.json in this project."


class PanelScreen(UpdateScreen):
    """A titled frame (``#panel``) holding an empty-state line and the screen's widget(s)."""

    EMPTY = "Nothing to show yet."

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._rendered = False  # the first update was applied (flags say "changed" after it)

    def compose_body(self) -> Iterable[Widget]:
        with Vertical(id="panel") as frame:
            frame.border_title = self.TITLE
            yield Static(Content(self.EMPTY), id="panel-empty", markup=False)
            yield from self.compose_main()

    def compose_main(self) -> Iterable[Widget]:
        """The screen's widget(s) (override); hidden while the empty line shows."""
        return ()

    @property
    def main_widget(self) -> Widget:
        raise NotImplementedError

    @property
    def empty_text(self) -> str:
        """The empty-state line ('' when data is shown)."""
        empty = self.query_one("#panel-empty", Static)
        return str(empty.render()) if empty.display else ""

    def show_empty(self, message: str | None) -> None:
        """Show ``message`` instead of the main widget (None: show the widget)."""
        empty = self.query_one("#panel-empty", Static)
        if message is not None:
            empty.update(Content(message))
        empty.display = message is not None
        self.main_widget.display = message is None
        auto = self.app.AUTO_FOCUS if self.AUTO_FOCUS is None else self.AUTO_FOCUS
        if message is None and self.focused is None and auto:
            # hidden while empty, the widget lost the focus (Textual blurs what it hides)
            for widget in self.query(auto):
                if widget.focusable:
                    self.set_focus(widget)
                    break

    def set_title(self, title: str) -> None:
        self.query_one("#panel").border_title = plain_content(title)  # cleaned, never markup

    def _apply(self, update: SessionUpdate) -> None:
        super()._apply(update)
        self._rendered = True


# ---------------------------------------------------------------------------- 2 hooks
