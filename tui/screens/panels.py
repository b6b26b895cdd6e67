"""Screens 2-6: Hook activity, Timeline, History, TDD, Plugins.

Each is an :class:`~tui.screens.base.UpdateScreen`: the app calls ``show_update(update)`` with
every :class:`~core.session.SessionUpdate` (buffered and merged until the screen is first
mounted). Each screen feeds one dedicated widget, incrementally:

* Hook activity (``2``): :class:`widgets.hooklog_view.HookLogScreenBody`; the update's NEW hook
  records are appended in one call, an owner rotation becomes a marker line and a notice.
* Timeline (``3``): :class:`widgets.timeline_view.TimelineView`; new state versions are appended
  by key (``seq``), two marked versions are diffed.
* History (``4``): :class:`widgets.history_view.HistoryView`; re-set only when the state file has
  a new version and ``workflow_history`` really changed.
* TDD (``5``): :class:`widgets.tdd_board.TddBoard`; re-set only when ``tdd_changed``.
* Plugins (``6``): :class:`widgets.plugin_table.PluginTable`; keyed cell updates, only when
  ``plugins_changed``.

Screen-level bindings (with descriptions) name each screen's keys so the footer and the
generated ``?`` help list them; they delegate to the widgets. No file is read here: every piece
of data comes from the update. Every string from a file goes through ``Content``/``Text``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import DataTable, Static

from core.session import RAW_CAP, TIMELINE_CAP, SessionUpdate, view_entry
from core.tdd import plan_hook_view, true_remaining
from core.timeline import TimelineEntry as ViewEntry
from widgets.history_view import HistoryView
from widgets.hooklog_view import HookLogScreenBody, HookLogView
from widgets.plugin_table import PluginTable
from widgets.tdd_board import TddBoard
from widgets.timeline_view import TimelineView

from .base import UpdateScreen

NO_STATE = "No .isdlc/state.json in this project."
FINISHED = {"done", "pass", "skip"}


class PanelScreen(UpdateScreen):
    """A titled frame (``#panel``) holding an empty-state line and the screen's widget(s)."""

    DEFAULT_CSS = """
    PanelScreen #panel-empty { height: auto; padding: 1 1; color: $text-muted; }
    PanelScreen #panel-notes { height: auto; max-height: 4; color: $text-warning; }
    """

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

    def set_title(self, title: str) -> None:
        self.query_one("#panel").border_title = title

    def _apply(self, update: SessionUpdate) -> None:
        super()._apply(update)
        self._rendered = True


# ---------------------------------------------------------------------------- 2 hooks


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


class TimelineScreen(PanelScreen):
    """Key ``3``. Every distinct state.json content observed this session (of the shown
    project), with its changed paths and transition findings; the diff pane compares the
    highlighted version with its predecessor, or two marked versions. Data: ``update.timeline``
    (entries APPENDED, a delta), converted by :func:`core.session.view_entry`."""

    NAME = "timeline"
    TITLE = "Timeline"
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

    def compose_main(self) -> Iterable[Widget]:
        yield TimelineView(max_entries=TIMELINE_CAP, id="timeline")

    @property
    def main_widget(self) -> Widget:
        return self.view

    @property
    def view(self) -> TimelineView:
        return self.query_one("#timeline", TimelineView)

    def apply_update(self, update: SessionUpdate) -> None:
        new: list[tuple[str, ViewEntry]] = [(e.project_id, view_entry(e)) for e in update.timeline]
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


class HistoryScreen(PanelScreen):
    """Key ``4``. ``workflow_history`` (finished and cancelled workflows, newest first) with the
    selected one's times, per-phase duration bars, metrics and reviews. Data:
    ``update.snapshot(project_id).state.workflow_history``, re-set on a new version only."""

    NAME = "history"
    TITLE = "History"
    EMPTY = "No finished workflow in workflow_history yet."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "newest", "Newest"),
        Binding("o", "oldest", "Oldest"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._history: list[Any] | None = None
        self._shown_project: str | None = None
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
        changed = (
            not self._rendered
            or pid != self._shown_project
            or pid in update.new_versions
            or update.rediscovered
        )
        if not changed:
            return
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


class TddScreen(PanelScreen):
    """Key ``5``. The TDD plugin's plan: task header, approval state (and the legacy lock), the
    true remaining slices next to what the plugin's stop hook would count (flagged when they
    differ), the slices and the plan's findings. Data: ``update.tdd_plan`` (``core.tdd.TddPlan``,
    which records the lines the hook's greps match) and ``tdd_findings``; re-set only when
    ``tdd_changed``."""

    NAME = "tdd"
    TITLE = "TDD"
    EMPTY = "No .tdd-progress.md in this project (the TDD plugin writes it at the project root)."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "next_unfinished", "Next unfinished slice"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.sets = 0  # set_plan calls (tests)

    def compose_main(self) -> Iterable[Widget]:
        yield TddBoard(id="tdd-board")

    @property
    def main_widget(self) -> Widget:
        return self.board

    @property
    def board(self) -> TddBoard:
        return self.query_one("#tdd-board", TddBoard)

    def apply_update(self, update: SessionUpdate) -> None:
        if self._rendered and not update.tdd_changed:
            return
        plan = update.tdd_plan
        findings = update.tdd_findings
        if plan is None:
            self.board.set_plan(None, true_remaining=None, hook_remaining=None, findings=findings)
        else:
            # the hook's own number may be negative; it then lets the session stop, like 0
            hook = max(0, plan_hook_view(plan).remaining)
            self.board.set_plan(
                plan,
                true_remaining=true_remaining(plan),
                hook_remaining=hook,
                findings=findings,
                lock_present=plan.lock_exists,
            )
        self.sets += 1
        self.show_empty(self.EMPTY if plan is None and not findings else None)

    def action_next_unfinished(self) -> None:
        plan = self.board.plan
        slices = list(getattr(plan, "slices", None) or [])
        table: DataTable[Any] = self.board.table
        if not slices or not table.row_count:
            return
        start = table.cursor_row
        for step in range(1, len(slices) + 1):
            i = (start + step) % len(slices)
            if getattr(slices[i], "status", None) not in FINISHED:
                table.move_cursor(row=i)
                table.focus()
                return
        self.notify("Every slice is finished.", markup=False, timeout=3)


# ---------------------------------------------------------------------------- 6 plugins


class PluginsScreen(PanelScreen):
    """Key ``6``. The Plugin Freedom System registry, one row per plugin; cells that disagree
    with another place are highlighted and explained under the table. Data: ``update.registry``
    (``core.plugins.Registry`` or None; its findings included); re-set only when
    ``plugins_changed`` (keyed cell updates)."""

    NAME = "plugins"
    TITLE = "Plugins"
    EMPTY = "No plugin registry: PLUGINS.md and plugins/*/ are not in this project."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "next_drift", "Next drift"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.sets = 0  # update_registry calls (tests)

    def compose_main(self) -> Iterable[Widget]:
        yield PluginTable(id="plugins")

    @property
    def main_widget(self) -> Widget:
        return self.table

    @property
    def table(self) -> PluginTable:
        return self.query_one("#plugins", PluginTable)

    def on_mount(self) -> None:
        super().on_mount()
        # the table has its own empty state (no registry / no plugins yet)
        self.query_one("#panel-empty", Static).display = False

    def apply_update(self, update: SessionUpdate) -> None:
        if self._rendered and not update.plugins_changed:
            return
        self.table.update_registry(update.registry)
        self.sets += 1

    def action_next_drift(self) -> None:
        table = self.table
        registry = table.registry
        names = [r.name for r in registry.plugins] if registry is not None else []
        drifted = [n for n in names if table.record(n) is not None and table.record(n).drift]
        if not drifted:
            self.notify("No plugin has drifted cells.", markup=False, timeout=3)
            return
        current = table.selected
        after = names.index(current) + 1 if current in names else 0
        ordered = names[after:] + names[:after]
        target = next(n for n in ordered if n in drifted)
        table.select_plugin(target)
        table.table.focus()


__all__ = [
    "HistoryScreen",
    "HookActivityScreen",
    "PanelScreen",
    "PluginsScreen",
    "TddScreen",
    "TimelineScreen",
]
