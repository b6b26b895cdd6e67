"""The dashboard's start-up and the scheduling around keys: what the app does so that its
first frame shows the data and a key's answer never waits behind a read or the collector
(docs/design.md#data-flow, "Start-up" and "Keys go first"; the measurements behind each choice
are in docs/performance.md#start-up-and-keys).

:class:`StartupScheduling` is a part of :class:`~tui.app.PhasewatchApp` (a mixin: Textual never
sees it, its CSS and bindings are the app's): the first read in a thread as the app mounts,
waited for up to :data:`FIRST_READ_WAIT_S` before the first frame; the cyclic collector paused
for the start-up and its full collections moved to just after a key's answer is painted; the
session's ``ui_idle`` event cleared while a key is answered. :func:`after_first_data` warms up
the other screens' modules once the first data is painted.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, InvalidStateError
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from phasewatch.core import memory
from textual import events
from textual.timer import Timer

from .screens import load

T = TypeVar("T")

if TYPE_CHECKING:
    from phasewatch.core.config import Config
    from phasewatch.core.session import ProjectSession, SessionUpdate
    from textual.app import App

    _Base = App[int]
else:
    _Base = object

Clock = Callable[[], datetime]
#: What the first read gives: the session and its first update.
FirstRead = tuple["ProjectSession", "SessionUpdate"]

#: After a key press, when its answer is most likely on screen (a screen switch, measured in
#: docs/performance.md#start-up-and-keys); what waits for the collector then waits for the
#: next idle refresh too.
KEY_ANSWERED_S = 0.12
#: As the app mounts it waits this long at most for the first read, to paint its data in the
#: first frame (a real-size project's read fits, with a margin); a slower read shows
#: "Reading...".
FIRST_READ_WAIT_S = 0.15
#: The reads after the first wait this long at most for the first data to be painted.
FIRST_PAINT_WAIT_S = 0.5
#: A key's answer goes before a large log's read: the read stops at its next part and waits
#: until the answer is painted, this long at most.
KEY_HOLD_MAX_S = 0.3
FIRST_SHOW_S = 0.5  # a data screen's first show under a write storm, with a margin
FULL_COLLECTION_GAP_S = 1.0  # at most one full collection after keys per this many seconds
#: The collector paused for the start-up (``freeze_startup``) runs again after this long at most.
COLLECTOR_PAUSE_MAX_S = 3.0
#: The clock of the two windows above (a test sets its own, so they hold at any load).
collector_clock = time.monotonic


class StartupScheduling(_Base):
    """The app's start-up and key scheduling (see the module's docstring).

    ``freeze_startup`` (the command line sets it): the cyclic garbage collector is paused until
    the first data is painted (the command pauses it before it imports textual; see
    core/memory.py), as its passes over the objects the start-up makes were a large part of the
    time to the data (docs/performance.md#start-up-and-keys). The modules imported by then are frozen as the app is built
    (``memory.freeze_imports``), so the one full collection after the data scans only what came
    after them; then the objects made so far (the screens built, the session) leave the
    collector's reach too (``gc.freeze``): a full collection scanned them all, a few times a
    minute under a write storm, each one a stall a key press could wait behind. The collector
    runs again then, or when the first read fails, the app ends, or after
    ``COLLECTOR_PAUSE_MAX_S`` whatever happens. The full collections are moved to just after a
    key's answer is painted (see :meth:`_collect_after_key`). Off by default: a process that
    starts many apps (the tests) would keep each one's start-up garbage.
    """

    # (the app's, used here)
    path: str | os.PathLike[str] | None
    clock: Clock
    config: Config | None
    session: ProjectSession | None
    _session_options: dict[str, Any]

    def _post(self, update: SessionUpdate, now: bool = False) -> None:
        raise NotImplementedError  # (the app's)

    def _init_startup(self, freeze_startup: bool) -> None:
        self._freeze_startup = freeze_startup
        if freeze_startup:
            memory.pause_collector()
            memory.freeze_imports()
        self._full_collected_at = 0.0  # (monotonic) the last full collection's end
        self._screen_built_at = 0.0  # (monotonic) the last data screen built (its first show)
        self._key_timer: Timer | None = None  # (see on_event)
        #: Clear while a key is answered (see _hold_reads): the reads and the warm-up wait.
        self._ui_idle = threading.Event()
        self._ui_idle.set()
        self._held_at = 0.0  # (monotonic) the key the reads wait for
        #: The first read, started as the app mounts (:meth:`_start_first_read`).
        self._first_read: Future[FirstRead] = Future()
        self._read_started = False
        self._first_shown = False  # the first read was shown as the app mounted

    def _start_first_read(self) -> None:
        """Start the first read (import the core, discover and read the project) in a thread,
        once, as the app mounts; :meth:`_show_a_quick_first_read` then waits for it. Started
        before the app mounts, it shared the interpreter with Textual's set-up and gained
        nothing (bench/bench_startup.py, 2 CPUs, quiet)."""
        if self._read_started:
            return
        self._read_started = True
        read_in_background(
            self._first_read, self.path, self.clock, self._session_options, self.config
        )

    def _show_a_quick_first_read(self) -> None:
        """Wait up to ``FIRST_READ_WAIT_S`` for the first read and show it now, before the first
        frame, which is then the data's. The read runs alone meanwhile (the wait releases the
        GIL); painted first, "Reading..." cost its own layout and paint and the read
        shared the interpreter with it. A slower read (a huge state file, a loaded machine)
        shows "Reading..." and its data when it ends; a failed one is the watcher's to report."""
        try:
            self.session, first = self._first_read.result(FIRST_READ_WAIT_S)
        except Exception:  # TimeoutError, or the read's own failure (see run_watcher)
            return
        self._first_shown = True
        self._post(first, now=True)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self._hold_reads()
            # (a key the focused widget leaves comes back up to the app: one timer at a time)
            if self._freeze_startup and not self._key_timer:
                self._key_timer = self.set_timer(KEY_ANSWERED_S, self._after_key, name="collect")
        await super().on_event(event)

    def _hold_reads(self) -> None:
        """A key's answer goes first: a large log's read stops at its next part (its parts hold
        the GIL) and the next refresh waits until the answer is painted (two refreshes after
        the key), KEY_HOLD_MAX_S at most."""
        self._held_at = held = time.monotonic()
        self._ui_idle.clear()
        self.call_after_refresh(self._answer_painted, held, 1)

    def _answer_painted(self, held: float, more: int) -> None:
        if held != self._held_at:
            return  # a later key holds them
        if more and time.monotonic() - held < KEY_HOLD_MAX_S:
            self.call_after_refresh(self._answer_painted, held, more - 1)
            return
        self._ui_idle.set()

    async def _after_keys(self) -> None:
        """Until the last key's answer is painted (KEY_HOLD_MAX_S at most)."""
        if not self._ui_idle.is_set():
            await asyncio.to_thread(self._ui_idle.wait, KEY_HOLD_MAX_S)

    def _note_collection(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            self._full_collected_at = collector_clock()

    def _after_key(self) -> None:
        self._key_timer = None
        self.call_after_refresh(self._collect_after_key)

    def _collect_after_key(self) -> None:
        """A full collection is a stall (under a write storm, every second or so: the
        repaints' Textual strips are cycles only the collector frees) and a key press waiting
        behind one is the stall a user feels. So, once a key's answer is painted (this timer,
        then the next idle refresh), a full collection that is coming anyway (over half of the
        young collections it waits for have run) is run now, at most once a second
        (FULL_COLLECTION_GAP_S): the next key finds it done. Not within FIRST_SHOW_S of a data
        screen's build: its first show lasts longer than the timer and is painted in parts (the
        next key collects). The first key (the hook screen's first show) can still meet a
        collection the collector started on its own (docs/performance.md#start-up-and-keys)."""
        now = collector_clock()
        if (
            now - self._full_collected_at >= FULL_COLLECTION_GAP_S
            and now - self._screen_built_at >= FIRST_SHOW_S
            and gc.get_count()[2] * 2 >= gc.get_threshold()[2]
        ):
            gc.collect()


def read_in_background(
    future: Future[FirstRead],
    path: str | os.PathLike[str] | None,
    clock: Clock,
    options: dict[str, Any],
    config: Config | None,
) -> None:
    """Import the core, discover the project and read it once, in a daemon thread, into
    ``future`` (never raises here: a failure is re-raised in the watcher worker, which reports
    it). ``config``: the one read before the app, which the session applies to every finding
    (None: no config file was read; the defaults change nothing). The module the review
    console needs for the first update is imported here too, off the UI thread (the writer
    only with the first decision, in its worker)."""

    def run() -> None:
        try:
            from phasewatch.core import review  # noqa: F401  (see the docstring)
            from phasewatch.core.session import ProjectSession

            session = ProjectSession(path, clock=clock, config=config, **options)
            first = session.refresh(None, hooks_later=True)  # the log: the next refresh
            settle(future.set_result, (session, first))
        except BaseException as exc:
            settle(future.set_exception, exc)

    def settle(how: Callable[[Any], None], value: Any) -> None:
        # the app quit before the read ended: the worker awaiting it cancelled the future
        with contextlib.suppress(InvalidStateError):
            how(value)

    threading.Thread(target=run, name="phasewatch-first-read", daemon=True).start()


def after_first_data(freeze: bool, screens: Iterable[str], ui_idle: threading.Event) -> None:
    """Once the first data is on screen, in a daemon thread: import the modules of the data
    ``screens`` a key may show next ("module:Class"; the first press of ``2`` waited for the
    hook screen's), then end the start-up's pause of the
    collector, with ``freeze`` moving the objects made so far out of its reach (see
    :class:`StartupScheduling`), and give the heap pages the start-up freed back to the system
    (docs/performance.md#start-up-and-keys). Each import, and the collection, waits while a key is
    answered (``ui_idle`` clear; see :meth:`StartupScheduling._hold_reads`). The writer is not
    imported here: a dashboard that only watches never needs it, and the first decision
    imports it in its own worker."""

    def run() -> None:
        for where in screens:
            ui_idle.wait(KEY_HOLD_MAX_S)
            load(where)
        ui_idle.wait(KEY_HOLD_MAX_S)
        memory.end_startup(freeze)
        memory.release_memory()

    threading.Thread(target=run, name="phasewatch-warm-up", daemon=True).start()


async def in_daemon(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a daemon thread of its own, awaited. ``asyncio.to_thread``
    runs it in the loop's executor, which the app's end joins: ``q`` waited out a read in
    progress (5 s at 32,000 phases; docs/performance.md#dashboard-size). A result that comes
    after the loop is gone is dropped."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # (cancelled: the app is ending)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def run() -> None:
        try:
            result, error = fn(*args, **kwargs), None
        except BaseException as exc:  # handed to the awaiting task, which logs it
            result, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(settle, result, error)

    threading.Thread(target=run, name="phasewatch-refresh", daemon=True).start()
    return await future
