"""The dashboard application.

Event flow (one direction): a file is written -> :class:`core.watch.Watcher` (one exclusive async
worker, watchfiles on the parent directories + a 2 s reconciliation pass) yields a batch of paths
-> the same worker runs :meth:`core.session.ProjectSession.refresh` in a thread
(a daemon thread, ``startup.in_daemon``, strictly one at a time) -> the resulting
:class:`~core.session.SessionUpdate` (the state picture) is posted as :class:`SessionUpdated`
(coalescing: when several pile up, only the newest goes through)
-> :meth:`PhasewatchApp.on_session_updated` hands it to every data screen inside
``app.batch_update()`` -> widgets update keyed cells only.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core import memory
from phasewatch.core.log import internal_failure
from phasewatch.core.systems import SYSTEMS
from phasewatch.core.text import clean
from phasewatch.widgets._textual import css_generation, mark_styled
from textual import on, work
from textual.app import App, CSSPathType, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from . import startup
from .console import CONSOLE_BINDINGS, ReviewConsole
from .escape_keys import EscapeThenKey
from .messages import DecisionDone, DecisionKept, DecisionReverted, HookLogGrew, SessionUpdated
from .notifications import app_notifier
from .screens import CONSOLE_SCREENS, DATA_SCREENS, SCREEN_CSS, load
from .screens.base import UpdateScreen
from .screens.console_base import ConsoleScreen
from .screens.help import HelpScreen, help_rows
from .screens.overview import other_screen
from .startup import (
    COLLECTOR_PAUSE_MAX_S,
    FIRST_PAINT_WAIT_S,
    Clock,
    StartupScheduling,
    after_first_data,
)

if TYPE_CHECKING:
    from phasewatch.core.config import Config
    from phasewatch.core.session import ProjectSession, SessionUpdate
    from phasewatch.core.sources import FileStamp
    from phasewatch.core.watch import Watcher


SCREEN_NAMES = tuple(DATA_SCREENS)  # (the list and its keys: tui/screens/__init__.py)
#: The keys 1-7, one per data screen, made from the one list.
SCREEN_BINDINGS: list[Binding] = [
    Binding(str(key), f"show('{name}')", screen.label)
    for key, (name, screen) in enumerate(DATA_SCREENS.items(), start=1)
]
#: Updates are posted at most this often: a storm of writes (100 a second) would otherwise have
#: the screen redrawn ~30 times a second and key presses wait behind the drawing. A change after
#: a quiet spell is still read at once, and so are our own writes and a large log's next part.
UPDATE_GAP_S = 1 / 15
DARK, LIGHT = "textual-dark", "textual-light"


def screens_to_warm(update: SessionUpdate) -> list[str]:
    """The data screens whose modules are imported once the first data is painted: every one
    but a system's screen (``tdd``, ``plugins``: a system's name is its screen's) when the
    project does not use that system (the plugin screen's models bring pydantic:
    docs/performance.md#start-up-and-keys)."""
    systems = {key.name for key in SYSTEMS}
    return [n for n in DATA_SCREENS if n not in systems or n in update.systems]


def screen_class(name: str) -> type[UpdateScreen]:
    """The class of the data screen ``name`` (imports its module)."""
    return load(DATA_SCREENS[name].where)


class PhasewatchApp(EscapeThenKey, StartupScheduling, App[int]):
    """``PhasewatchApp(path, read_only=False, project_id=None, demo=None)``.

    Test/bench keywords: ``clock`` (a callable returning an aware datetime: freezes elapsed time
    and "changed at" times), ``watch`` (False: one read at start, no watcher), ``watcher_options``
    (passed to :class:`core.watch.Watcher`, e.g. ``reconcile_interval``, ``use_events``),
    ``session_options`` (passed to :class:`core.session.ProjectSession`, e.g. ``hook_read_bytes``).

    ``demo``: an object with ``run()`` (blocking; run in a thread worker) and optionally
    ``stop()`` (called on exit), e.g. a ``core.simulate`` Simulator writing into ``path``.

    ``freeze_startup`` (the command line sets it): the start-up's pause of the garbage
    collector (tui/startup.py :class:`~tui.startup.StartupScheduling`).
    """

    # the screens' stylesheets, then the app's own (last, so it wins a tie: tui/screens/__init__.py)
    CSS_PATH: ClassVar[CSSPathType] = [*SCREEN_CSS, Path(__file__).with_name("app.tcss")]
    TITLE = "phasewatch"
    ENABLE_COMMAND_PALETTE = True

    BINDINGS: ClassVar[list[BindingType]] = [
        *SCREEN_BINDINGS,
        *CONSOLE_BINDINGS,
        Binding("p", "switch_project", "Project"),
        Binding("question_mark", "help", "Help", key_display="?"),
        Binding("ctrl+t", "toggle_theme", "Dark/light"),
        Binding("r", "reread", "Re-read", show=False),
        Binding("q", "quit", "Quit"),
    ]
    MODES: ClassVar[dict[str, str | Callable[[], Screen[Any]]]] = {n: n for n in SCREEN_NAMES}
    DEFAULT_MODE = "overview"

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        read_only: bool = False,
        project_id: str | None = None,
        demo: Any = None,
        *,
        clock: Clock | None = None,
        watch: bool = True,
        watcher_options: dict[str, Any] | None = None,
        session_options: dict[str, Any] | None = None,
        config: Config | None = None,
        freeze_startup: bool = False,
    ) -> None:
        self._t0 = time.perf_counter()
        super().__init__()
        self.path = path
        self.read_only = read_only
        #: The user's config file (notifications, theme, default screen). None: no config file,
        #: the defaults (they change nothing; the notifier's own are the config's, a test holds
        #: them together), so the dashboard never imports pydantic without a config file.
        self.config: Config | None = None
        #: The review console (gate panel, escalations, plan approval, every decision write).
        self.review = ReviewConsole(
            self, read_only=read_only, clock=self.now, own_write=self._own_write
        )
        if config is not None:
            self._use_config(config)
        else:
            self.review.notifier = app_notifier(self)
        self.project_id: str | None = project_id
        self.demo = demo
        self.clock: Clock = clock or (lambda: datetime.now(UTC))
        self.watch_enabled = watch
        self.watcher_options = dict(watcher_options or {})
        self.session: ProjectSession | None = None
        self.watcher: Watcher | None = None
        self.watch_mode = "starting"
        self.last_update: SessionUpdate | None = None
        self.updates_applied = 0
        self.updates_received = 0
        self.startup_seconds: float | None = None
        #: Why the first read failed (the data screens show it instead of "Reading...").
        self.read_error: str | None = None
        self.first_data_seconds: float | None = None
        self._stop = asyncio.Event()
        #: Set once the first data is painted: the reads after it wait (one GIL, see run_watcher).
        self._first_painted = asyncio.Event()
        self._posted_at = 0.0  # time.monotonic() of the last update posted
        self._init_startup(freeze_startup)
        self._document_at = 0.0  # ... of the last one a document's change started (a state write)
        self._notes: list[str] = []
        #: Textual's CSS generation (widgets/_textual.py) the stylesheet last ran at; see
        #: :meth:`refresh_css`; the stylesheet's own at first (see below).
        self._css_styled_at: int | None = None
        self.theme = DARK
        #: The data screens built so far (see DATA_SCREENS); the overview is built at once.
        self.data_screens: dict[str, UpdateScreen] = {}
        # Textual made the stylesheet with this theme's variables: the first screen is styled
        # by it as it mounts. Said so, Textual's start of the first mode does not re-parse every
        # stylesheet and restyle the app before the first frame; a theme set later (a
        # config's) makes a newer generation, which is refreshed as usual.
        self._css_styled_at = css_generation(self)
        self.data_screen("overview")
        memory.share_arenas()  # before the reader threads start: see core/memory.py
        self._session_options = {"ui_idle": self._ui_idle, **(session_options or {})}

    # ------------------------------------------------------------------ lifecycle

    def now(self) -> datetime:
        return self.clock()

    def on_mount(self) -> None:
        self._start_first_read()
        self._show_a_quick_first_read()
        self.set_interval(1.0, self._tick, name="clock")
        if self._freeze_startup:
            gc.callbacks.append(self._note_collection)
            self.set_timer(COLLECTOR_PAUSE_MAX_S, memory.resume_collector, name="collector")
        if self.config is not None:  # a config file was read: its theme for the first frame
            self._apply_config(self.config)
        self.run_watcher()
        if self.demo is not None:
            self._run_demo()

    def _use_config(self, config: Config) -> None:
        """Hold ``config``; its notifications go to the review console."""
        self.config = config
        self.review.notifier = app_notifier(self, config.notifications)

    def _apply_config(self, config: Config) -> None:
        """The config's theme and first screen (its notifications are the review console's)."""
        theme = config.theme
        if theme and theme in self.available_themes:
            self.theme = theme
        elif theme:
            self.notify(
                f"config: no theme named {clean(theme)!r}; kept {self.theme}.",
                severity="warning",
                markup=False,
            )
        if config.default_screen != "overview":
            self.call_after_refresh(self.action_show, config.default_screen)

    def on_ready(self) -> None:
        """The first frame is on screen."""
        if self.startup_seconds is None:
            self.startup_seconds = time.perf_counter() - self._t0
            self._styled_now(self.screen)

    async def on_unmount(self) -> None:
        self._stop.set()
        if self._note_collection in gc.callbacks:
            gc.callbacks.remove(self._note_collection)
        if self._freeze_startup:
            memory.resume_collector()
        stop = getattr(self.demo, "stop", None)
        if callable(stop):
            stop()

    def _tick(self) -> None:
        if not self.is_running:  # shutting down (cleared before any screen closes)
            return
        screen = self.screen
        if isinstance(screen, UpdateScreen):
            screen.tick(self.now())

    def status_notes(self) -> list[str]:
        notes = list(self._notes)
        if self.watcher is not None and self.watcher.errors:
            notes.append("watch: " + self.watcher.errors[-1])
        return notes

    # ------------------------------------------------------------------ the watcher worker

    @work(exclusive=True, group="watch", name="watch", exit_on_error=False)
    async def run_watcher(self) -> None:
        """ONE async worker: watch, refresh in a thread (sequentially), post the update.

        The first read is started in a thread as the app mounts (:meth:`_start_first_read`);
        it is shown at once, and the next reads wait until it is painted. The watcher's initial
        batch then re-reads everything with the OS watch in place, so nothing written between
        that first read and the watch is missed."""
        session, first = await asyncio.wrap_future(self._first_read)
        self.session = session
        if self.project_id is not None and session.project.state_for(self.project_id) is None:
            self._notes.append(f"no project {self.project_id!r}")
        if not self.watch_enabled:
            self.watch_mode = "once"
        if not self._first_shown:  # (else shown as the app mounted)
            self._post(first)
        # The next reads (the log, the watch's first full pass) hold the GIL for tens of ms:
        # started now, they would slow the painting of the first data they follow.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._first_painted.wait(), FIRST_PAINT_WAIT_S)
        if not self.watch_enabled:
            update = first
            # the rest of a large log, in parts; and the repair offers the first read left
            while update.hooks.pending or update.offers is None:
                again = [session.project.hook_log] if update.hooks.pending else []
                await self._after_keys()
                update = await startup.in_daemon(session.refresh, again)
                self._post(update)
            return
        if first.hooks.pending:  # a large log: its newest lines now, not after the watch set-up
            hook_log = session.project.hook_log
            await self._after_keys()
            self._post(await startup.in_daemon(session.refresh, [hook_log]))
        from phasewatch.core.watch import Watcher

        files, dirs = session.watch_targets()
        watcher = Watcher(files, dirs, root=session.root, **self.watcher_options)
        self.watcher = watcher
        self.watch_mode = watcher.mode
        async for batch in watcher.batches(self._stop):
            # documents (state writes) have their own gap: never behind a log's storm
            document = watcher.documents_in(batch.paths)
            last = self._document_at if document else self._posted_at
            gap = last + UPDATE_GAP_S - time.monotonic()
            if gap > 0 and not batch.own and "more" not in batch.origins:
                # a storm: let changes gather (keys first; a document ends a log's wait)
                await (asyncio.sleep(gap) if document else watcher.pause(gap))
            if document:
                self._document_at = time.monotonic()
            changed = None if batch.initial else batch.paths
            await self._after_keys()
            update = await startup.in_daemon(session.refresh, changed, own=batch.own)
            if update.targets_changed:
                watcher.set_targets(update.watch_files, update.watch_dirs)
            if update.unseen:  # unsearchable now: its recovery is reported, however quick
                watcher.forget(update.unseen)
            self._post(update)
            if update.hooks.pending:  # a large log is read in parts, between other changes
                watcher.again([session.project.hook_log])
        self.watch_mode = "stopped"

    def _post(self, update: SessionUpdate, now: bool = False) -> None:
        """Hand ``update`` to the screens: by a message, or ``now`` (as the app mounts)."""
        self._posted_at = time.monotonic()
        self.updates_received += 1  # (counted here: a coalesced message never arrives)
        if now:
            self.on_session_updated(SessionUpdated(update))
        else:
            self.post_message(SessionUpdated(update))
        if update.hooks.changed:
            self.post_message(HookLogGrew())

    @work(thread=True, exclusive=True, group="demo", name="demo", exit_on_error=False)
    def _run_demo(self) -> None:
        self.demo.run()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """One handler for worker failures: say so in the status bar and a notification."""
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        if isinstance(error, BaseException):
            internal_failure(__name__, f"the {event.worker.name} worker failed", error)
        reason = clean(f"{type(error).__name__}: {error}")
        text = f"{clean(event.worker.name)} failed: {reason}"
        if event.worker.group == "watch":
            self.watch_mode = "stopped"
            if self.last_update is None:  # nothing was read: the screens say so, not "Reading"
                self.read_error = f"Could not read the project: {reason}"
                if self._freeze_startup:
                    memory.resume_collector()  # (no first data is coming)
                for screen in self.data_screens.values():
                    screen.reading_failed(self.read_error)
        self._notes = [*self._notes[-3:], text]
        self.notify(text, title="phasewatch", severity="error", markup=False, timeout=10)
        self._refresh_status()

    # ------------------------------------------------------------------ updates

    def on_session_updated(self, message: SessionUpdated) -> None:
        if not self.is_running:  # shutting down: queued updates are drained after the screens close
            return
        update = message.update
        self.last_update = update
        with self.batch_update():
            for screen in self.data_screens.values():
                screen.show_update(update)
            self.review.update(update, self.project_id)
        self.updates_applied += 1
        if self.first_data_seconds is None:
            self.first_data_seconds = time.perf_counter() - self._t0
            self._open_where_the_data_is(update)
            later = [DATA_SCREENS[name].where for name in screens_to_warm(update)]
            self.call_after_refresh(after_first_data, self._freeze_startup, later, self._ui_idle)
            self.call_after_refresh(self._first_painted.set)

    def _open_where_the_data_is(self, update: SessionUpdate) -> None:
        """A project without an iSDLC workflow opens on the screen that has its data (the TDD
        plan, the plugin registry); the overview says which key shows it (1 comes back)."""
        name = other_screen(update)
        if name is not None and self.screen is self.data_screens.get("overview"):
            self.action_show(name)

    def on_hook_log_grew(self, _message: HookLogGrew) -> None:
        screen = self.data_screens.get("hooks")
        if screen is not None and self.is_running:
            from .screens.hooks import HookActivityScreen  # (loaded already: the screen exists)

            if isinstance(screen, HookActivityScreen):
                screen.sync_log()

    def _refresh_status(self) -> None:
        for screen in self.data_screens.values():
            if screen.is_mounted:
                screen.update_status()

    # ------------------------------------------------------------------ actions

    def data_screen(self, name: str) -> UpdateScreen:
        """The data screen ``name``, built (and installed) on first use; it starts with the
        newest update (the state picture: nothing it missed is lost)."""
        screen = self.data_screens.get(name)
        if screen is None:
            screen = screen_class(name)(name=name)
            self._screen_built_at = startup.collector_clock()
            self._styled_now(screen)  # (its widgets are styled when they mount)
            self.data_screens[name] = screen
            self.install_screen(screen, name)
            if self.last_update is not None:
                screen.show_update(self.last_update)
        return screen

    def action_show(self, name: str) -> None:
        """Show the data screen ``name`` from anywhere: the review console's screens (``w``,
        ``e``, ``a``) are pushed over the current data screen, so they are closed first (else
        ``1`` on the overview's own stack would leave them on top, and ``2`` then ``1`` would
        come back to them)."""
        if name not in self.MODES:
            return
        while len(self.screen_stack) > 1 and isinstance(self.screen, ConsoleScreen):
            self.pop_screen()
        self.data_screen(name)
        self.switch_mode(name)

    # ------------------------------------------------------------------ the review console

    def action_console(self, name: str, _always: str = "") -> None:
        self.review.open(name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "console" and parameters:
            always = len(parameters) > 1
            return self.review.can_open(str(parameters[0]), always, self.screen)
        return super().check_action(action, parameters)

    @on(DecisionDone)
    def _decision_done(self, message: DecisionDone) -> None:
        self.review.finish(message)

    @on(DecisionReverted)
    def _decision_reverted(self, message: DecisionReverted) -> None:
        self.review.reverted(message)

    @on(DecisionKept)
    def _decision_kept(self, message: DecisionKept) -> None:
        self.review.kept(message)

    def _own_write(self, path: Path, stamp: FileStamp | None) -> None:
        if self.watcher is not None:
            self.watcher.expect_own_write(path, stamp)

    def refresh_css(self, animate: bool = True) -> None:
        super().refresh_css(animate)
        self._css_styled_at = css_generation(self)

    def _styled_now(self, screen: Screen[Any]) -> None:
        """Tell Textual that ``screen`` is styled with the stylesheet of the last CSS refresh
        (a screen just built, or the first one once it is painted). Else Textual refreshes the
        whole app's CSS (reparse, restyle every node) when a new screen is first shown, again on
        its second visit and on the first screen's second visit, as it must for a screen the
        theme changed under. A theme change since that refresh (a newer generation) is still
        refreshed when the screen is shown."""
        if self._css_styled_at is not None:
            mark_styled(screen, self._css_styled_at)

    def action_toggle_theme(self) -> None:
        self.theme = LIGHT if self.theme == DARK else DARK

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(help_rows(self, self.help_sections())))

    def help_sections(self) -> list[tuple[str, list[BindingType]]]:
        """What ``?`` lists, in order: the decision keys (gate panel, escalations, plan
        approval, the waiting list), the keys that work everywhere, each data screen's keys."""
        console = {name: load(where) for name, where in CONSOLE_SCREENS.items()}
        off = "  [read-only: decisions disabled]" if self.read_only else ""
        sections: list[tuple[str, list[BindingType]]] = [
            ("Review gate panel (g opens it when a gate waits)" + off,
             load("phasewatch.tui.screens.review:GatePanel").BINDINGS),
            ("Escalations (e)" + off, console["escalations"].BINDINGS),
            ("Plan approval (a)" + off, console["plan"].BINDINGS),
            ("Waiting for a human (w)", console["attention"].BINDINGS),
            ("Everywhere", self.BINDINGS),
        ]  # fmt: skip
        for key, (name, (title, _label, _where)) in enumerate(DATA_SCREENS.items(), start=1):
            bindings = vars(screen_class(name)).get("BINDINGS")  # its own, not Screen's
            if bindings:
                sections.append((f"{title} ({key})", bindings))
        return sections

    def action_switch_project(self) -> None:
        update = self.last_update
        if update is None:
            self.notify("No data yet.", markup=False)
            return
        from .screens.projects import ProjectSwitcher, project_lines

        lines = project_lines(update)
        if len(lines) <= 1 and not update.project.monorepo:
            self.notify("Not a monorepo: there is only one project.", markup=False)
            return
        snap = update.snapshot(self.project_id)
        current = snap.project_id if snap is not None else self.project_id

        def chosen(result: str | None) -> None:
            if result is not None:
                self.select_project(result)

        self.push_screen(ProjectSwitcher(lines, current), chosen)

    def select_project(self, project_id: str) -> None:
        self.project_id = project_id
        with self.batch_update():
            for screen in self.data_screens.values():
                if screen.is_mounted:
                    screen.project_changed()
            self.review.update(self.last_update, self.project_id)

    def action_reread(self) -> None:
        """Re-read everything now (the reconciliation pass, on demand)."""
        if self.watcher is not None:
            self.watcher.reconcile_now()
            self.notify("Re-reading the project files.", markup=False, timeout=2)

    # ------------------------------------------------------------------ command palette

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # Textual's own "Keys" (its key panel) would stand beside ours (`?`): one entry
        yield from (c for c in super().get_system_commands(screen) if c.title != "Keys")
        for key, (name, (title, _label, _where)) in enumerate(DATA_SCREENS.items(), start=1):
            yield SystemCommand(
                f"Show {title}",
                f"Switch to the {title} screen (key {key})",
                lambda name=name: self.action_show(name),
            )
        yield from self.review.commands()
        yield SystemCommand(
            "Switch project", "Monorepo project switcher (p)", self.action_switch_project
        )
        yield SystemCommand("Keys", "Every key binding (?)", self.action_help)
        yield SystemCommand(
            "Toggle dark/light", "Dark or light theme (ctrl+t)", self.action_toggle_theme
        )
        yield SystemCommand(
            "Re-read files", "Compare every watched file now (r)", self.action_reread
        )
