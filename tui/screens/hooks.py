"""The HookActivityScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.widgets._style import show_in
from phasewatch.widgets.hooklog_view import HookLogScreenBody, HookLogView
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from .dialogs import DetailDialog
from .panels import PanelScreen


class HookActivityScreen(PanelScreen):
    """Key ``2``. Every hook-log line read this session (a virtual view: only visible lines
    render, parsed from the log when shown), filters by hook/event/phase and text, per-hook and
    per-event counts, the log's findings (the whole log). Data: ``update.hooks`` (its ``store``, the
    session's records, read by the view; :meth:`sync_log` when the app says the log grew;
    ``findings``, ``total``, ``progress``)."""

    EMPTY = "No hook activity yet: .isdlc/hook-activity.log is missing or empty."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search"),
        Binding("b", "blocks_only", "Blocks only"),
        Binding("f", "follow", "Follow"),
        Binding("escape", "clear_filters", "Clear filters"),
        Binding("d", "detail", "Row detail"),
    ]

    # the log, not the search box, has the focus: digits still switch screens
    AUTO_FOCUS = "#hooklog-view"

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.syncs = 0  # times the view took in new rows
        self.log_view = HookLogView(id="hooklog-view")

    def compose_main(self) -> Iterable[Widget]:
        yield HookLogScreenBody(view=self.log_view, id="hooks-body")
        yield Static("", id="panel-notes", markup=False)

    @property
    def main_widget(self) -> Widget:
        return self.body

    @property
    def body(self) -> HookLogScreenBody:
        return self.query_one("#hooks-body", HookLogScreenBody)

    def show_update(self, update: SessionUpdate) -> None:
        """The view reads the session's store (attached once); the rest of the update follows
        the usual path (applied now, or merged until the screen shows)."""
        store = update.hooks.store
        if store is not None and store is not self.log_view.store:
            self.log_view.attach(store)
        super().show_update(update)

    def sync_log(self) -> None:
        """The log grew (or was rewritten): the view takes in the new rows, the side counts
        follow."""
        if self.log_view.sync():
            self.syncs += 1
            if self.is_mounted:
                self.body.refresh_side()

    def apply_update(self, update: SessionUpdate) -> None:
        self.sync_log()
        body = self.body
        tail = update.hooks.tail
        if body.view.total:
            self.show_empty(None)
        elif tail.error:
            self.show_empty(f"The hook log cannot be read: {tail.error}")
        else:
            self.show_empty(self.EMPTY)
        self._show_notes(update)

    def project_changed(self) -> None:
        """The hook log belongs to the repository, not to a monorepo project: nothing to
        re-render (re-applying the last update would append its records twice)."""
        self.update_status()

    def _show_notes(self, update: SessionUpdate) -> None:
        text = Text()
        read = f"{update.hooks.total:,} lines"
        if update.hooks.pending and update.hooks.progress is not None:
            done, size = update.hooks.progress
            read += f", {done * 100 // max(size, 1)}% of the log so far"
        text.append(f"Findings and counts cover the whole log ({read}).\n", style="dim")
        for f in update.hooks.findings[:3]:
            text.append(f.rule_id + " ", style="bold")
            text.append(" ".join(f.message.split())[:300])
            text.append("\n")
        more = len(update.hooks.findings) - 3
        if more > 0:
            text.append(f"… {more} more finding(s) on the Overview", style="dim")
        text.rstrip()
        if not update.hooks.findings and not update.hooks.total:
            text = Text()
        notes = self.query_one("#panel-notes", Static)
        show_in(notes, text)
        notes.display = bool(text.plain)

    # -- keys (delegated to the body so ``?`` lists them) ---------------------------------

    def action_search(self) -> None:
        self.body.action_focus_search()

    def action_blocks_only(self) -> None:
        self.body.action_blocks_only()

    def action_follow(self) -> None:
        self.body.view.action_toggle_follow()

    def action_clear_filters(self) -> None:
        self.body.action_clear_filters()
        self.body.view.focus()

    # ---------------------------------------------------------------------------- 3 timeline

    def action_detail(self) -> None:
        self.query_one(HookLogView).action_detail()

    def on_hook_log_view_row_chosen(self, message: HookLogView.RowChosen) -> None:
        """A row asked for whole (click, or d): every field, the reason uncut."""
        fields = message.view.record_fields(message.record)
        order = (
            "ts",
            "hook",
            "event",
            "phase",
            "agent",
            "reason",
            "line_no",
            "marker",
            "error",
            "raw",
        )
        rows = [(key, fields[key]) for key in order if fields.get(key) not in (None, "")]
        self.app.push_screen(DetailDialog(f"Hook log line {fields.get('line_no')}", rows))
