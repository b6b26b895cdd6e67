"""The HookActivityScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.widgets.hooklog_view import HookLogScreenBody, HookLogView
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from .panels import PanelScreen


class HookActivityScreen(PanelScreen):
    """Key ``2``. Every hook-log record read this session (a virtual view: only visible lines
    render), filters by hook/event/phase and text, per-hook and per-event counts, the log's
    findings. Data: ``update.hook_records`` (NEW records: appended in one call),
    ``hook_older`` (a large log's older lines, read from its end: put before all held),
    ``hook_tail`` (an owner rotation -> a marker line), ``hook_findings``, ``hook_dropped``."""

    NAME = "hooks"
    TITLE = "Hook activity"
    EMPTY = "No hook activity yet: .isdlc/hook-activity.log is missing or empty."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "search", "Search"),
        Binding("b", "blocks_only", "Blocks only"),
        Binding("f", "follow", "Follow"),
        Binding("escape", "clear_filters", "Clear filters"),
    ]

    # the log, not the search box, has the focus: digits still switch screens
    AUTO_FOCUS = "#hooklog-view"
    DEFAULT_CSS = """
    HookActivityScreen #panel-notes { max-height: 3; text-wrap: nowrap; text-overflow: ellipsis; }
    HookActivityScreen #hooks-body > HookStats { dock: top; }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.appends = 0  # append calls made (one per update with records)
        self.rotations_noted = 0
        # Built now and fed with every update's records even before the screen is first shown:
        # the records go straight into its compact columns instead of piling up as objects in
        # a pending update (a large log is read in many parts).
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
        """Feed the records (and a rotation marker) to the view at once, shown or not; the rest
        of the update follows the usual path (applied now, or merged until the screen shows)."""
        view = self.log_view
        fed = False
        if update.hook_tail.rotation and view.total:
            view.note_rotation(update.hook_tail.lines or 0, update.at)
            self.rotations_noted += 1
            fed = True
        if update.hook_older:  # a large log's older lines: before all held
            view.prepend(update.hook_older)
            fed = True
            update = replace(update, hook_older=[])
        if update.hook_records:
            view.append(update.hook_records)
            self.appends += 1
            fed = True
            update = replace(update, hook_records=[])
        if fed and self.is_mounted:  # (a body mounted later counts on its own mount)
            self.body.refresh_side()
        super().show_update(update)

    def apply_update(self, update: SessionUpdate) -> None:
        body = self.body
        tail = update.hook_tail
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
        if update.hook_dropped:
            text.append(
                f"{update.hook_dropped:,} older records were dropped while this screen was "
                "not shown (the newest are kept).\n",
                style="dim",
            )
        for f in update.hook_findings[:3]:
            text.append(f.rule_id + " ", style="bold")
            text.append(" ".join(f.message.split())[:300])
            text.append("\n")
        more = len(update.hook_findings) - 3
        if more > 0:
            text.append(f"… {more} more finding(s) on the Overview", style="dim")
        text.rstrip()
        notes = self.query_one("#panel-notes", Static)
        notes.update(text)
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
