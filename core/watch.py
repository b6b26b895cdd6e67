"""One async watcher over the parent directories of the files phasewatch reads.

Why directories (docs/design.md): watching a *file* dies after its first atomic replace, and
a path that does not exist yet cannot be watched at all. So :class:`Watcher` watches, with
``recursive=False``, the nearest existing directory above every target: the project root,
``.isdlc/``, ``.isdlc/projects/<id>/``, ``plugins/<Name>/`` ... When a directory on the way to a
target appears or disappears, the set of watched directories is recomputed and ``awatch`` is
restarted on the new set (followed at once by a reconciliation pass, so a file written between the
directory's creation and the restart is not missed).

A slow reconciliation pass (every ``reconcile_interval`` seconds) compares each target's
``(size, mtime_ns, inode)`` with what was last seen: it catches what polling mode misses
(``WATCHFILES_FORCE_POLLING``/WSL compare mtimes to the whole second) and anything the OS dropped.
Its changes are reported as the same kind of batch.

Batches are coalesced: while the consumer is busy, every change that arrives is merged into the
next batch. The app's own writes can be announced with :meth:`Watcher.expect_own_write`; a change
whose stamp matches is reported in :attr:`WatchBatch.own`.

No textual import here: the app runs :meth:`Watcher.batches` inside one async worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from msgspec import Struct, field

from .log import internal_failure
from .sources import FileStamp

DEFAULT_STEP_MS = 15  # quiet time before watchfiles yields a group of changes
DEFAULT_DEBOUNCE_MS = 150  # longest time watchfiles groups changes before yielding
DEFAULT_RECONCILE_S = 2.0
# While files change (watchfiles yielded within QUICK_ACTIVE_S), the documents among the targets
# (QUICK_SUFFIXES: state.json, .tdd-progress.md, PLUGINS.md; not the hook log, a stream of
# appends) are also looked at every QUICK_S: a state write never waits for a log appended every
# few ms to go quiet (watchfiles then yields only at its debounce, 150 ms). Idle: no looks.
QUICK_S = 0.01
QUICK_ACTIVE_S = 1.0
QUICK_SUFFIXES = (".json", ".md")
OWN_WRITE_TTL_S = 10.0
_RETRY_S = 0.25
_READY_TIMEOUT_S = 5.0  # after awatch failed to start (a directory vanished under it)

BatchOrigin = Literal["initial", "events", "reconcile", "more", "quick"]

# Sentinel stamp for a target whose state was never observed (reported once if it exists).
_UNSEEN: Any = object()


class WatchBatch(Struct, frozen=True):
    """Paths that changed since the previous batch (targets, or directories on the way to one).

    ``origin`` says what noticed them first (``"initial"`` is the first batch, with no paths: the
    consumer reads everything); ``origins`` every source merged in (``"quick"``: the quick look
    at documents, see QUICK_S). ``own`` is the subset matching :meth:`Watcher.expect_own_write`.
    ``dirs_changed``: the set of watched directories changed (a directory appeared or vanished),
    a hint that discovery should run again.
    """

    paths: frozenset[Path]
    origin: BatchOrigin = "events"
    own: frozenset[Path] = frozenset()
    dirs_changed: bool = False
    initial: bool = False
    seq: int = 0
    origins: frozenset[str] = field(default_factory=frozenset)


def polling_forced(force_polling: bool | None = None) -> bool:
    """Whether watchfiles will poll (explicit flag, ``WATCHFILES_FORCE_POLLING``, or WSL)."""
    if force_polling is not None:
        return force_polling
    try:
        from watchfiles.main import _default_force_polling

        return bool(_default_force_polling(None))
    except Exception:  # private helper moved: fall back to the documented variable
        value = os.environ.get("WATCHFILES_FORCE_POLLING", "")
        return bool(value) and value.lower() not in {"false", "disable", "disabled"}


def nearest_existing_dir(path: Path, stop: Path | None = None) -> Path | None:
    """``path`` if it is a directory, else its nearest existing ancestor (not above ``stop``)."""
    for candidate in (path, *path.parents):
        if stop is not None and candidate != stop and stop not in candidate.parents:
            return None
        try:
            if candidate.is_dir():
                return candidate
        except OSError:
            continue
    return None


class Watcher:
    """Watch ``files`` (exact paths) and ``dirs`` (every direct entry counts) for changes.

    Thread-safety: :meth:`set_targets` and :meth:`expect_own_write` may be called from any
    thread; :meth:`batches` must be iterated by a single task.

    ``awatch`` is injectable (tests pass a fake that never reports, to prove reconciliation works
    alone); ``use_events=False`` runs reconciliation only.
    """

    def __init__(
        self,
        files: Iterable[Path] = (),
        dirs: Iterable[Path] = (),
        *,
        root: Path | None = None,
        step_ms: int = DEFAULT_STEP_MS,
        debounce_ms: int = DEFAULT_DEBOUNCE_MS,
        reconcile_interval: float = DEFAULT_RECONCILE_S,
        force_polling: bool | None = None,
        poll_delay_ms: int = 100,
        use_events: bool = True,
        awatch: Callable[..., Any] | None = None,
    ) -> None:
        self.root = Path(root).resolve() if root is not None else None
        self.step_ms = step_ms
        self.debounce_ms = debounce_ms
        self.reconcile_interval = reconcile_interval
        self.force_polling = force_polling
        self.poll_delay_ms = poll_delay_ms
        self.use_events = use_events
        self._awatch = awatch
        self._lock = threading.Lock()
        self._files: frozenset[Path] = frozenset()
        self._dirs: frozenset[Path] = frozenset()
        self._ancestors: frozenset[Path] = frozenset()
        self._known: dict[Path, Any] = {}  # path -> FileStamp | None | _UNSEEN
        self._own: dict[Path, tuple[FileStamp | None, float]] = {}
        self._watched: frozenset[Path] = frozenset()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[tuple[BatchOrigin, frozenset[Path], bool]] | None = None
        self._restart: asyncio.Event | None = None
        self._reconcile_now: asyncio.Event | None = None
        self._ready = asyncio.Event()
        self._seq = 0
        self.errors: list[str] = []  # last few problems starting awatch (shown in the status bar)
        self.event_batches = 0  # batches noticed by watchfiles
        self.reconcile_batches = 0  # batches noticed only by reconciliation
        self.quick_batches = 0  # batches noticed first by the quick look at documents
        self._active_until = 0.0  # the quick look runs until then (see QUICK_ACTIVE_S)
        self._activity: asyncio.Event | None = None
        self._documents: asyncio.Event | None = None  # set when the quick look queued a change
        self._set_targets(files, dirs, initial=True)

    # ------------------------------------------------------------------ public

    @property
    def mode(self) -> str:
        """``"watching"`` (OS notifications), ``"polling"`` or ``"reconciling"`` (no events)."""
        if not self.use_events:
            return "reconciling"
        return "polling" if polling_forced(self.force_polling) else "watching"

    @property
    def watched_dirs(self) -> frozenset[Path]:
        """Directories awatch currently runs on."""
        return self._watched

    @property
    def files(self) -> frozenset[Path]:
        return self._files

    @property
    def dirs(self) -> frozenset[Path]:
        return self._dirs

    def set_targets(self, files: Iterable[Path], dirs: Iterable[Path] = ()) -> None:
        """Replace the watched targets (new ones are compared at the next reconciliation)."""
        changed = self._set_targets(files, dirs, initial=False)
        if changed:
            self._wake(restart=True)

    def reconcile_now(self) -> None:
        """Run the reconciliation pass now instead of at the next interval (thread-safe)."""
        self._wake(restart=False)

    def again(self, paths: Iterable[Path]) -> None:
        """Deliver ``paths`` in the next batch although nothing changed (origin ``"more"``): the
        consumer has more to read there, e.g. a large log read in parts. Call it from the event
        loop; new changes that arrive meanwhile join the same batch."""
        self._put("more", paths)

    def forget(self, paths: Iterable[Path]) -> None:
        """Forget what was seen of ``paths`` (targets only): the next reconciliation reports
        each one that can be looked up then. For files the consumer could not read although
        their stamps had not changed (a directory on the way briefly unsearchable), so that the
        directory's recovery is noticed however quickly it came (thread-safe)."""
        with self._lock:
            for path in paths:
                if path in self._known:
                    self._known[Path(path)] = None

    def expect_own_write(self, path: Path, stamp_after: FileStamp | None) -> None:
        """Announce that the app itself just wrote ``path`` leaving ``stamp_after`` on disk:
        the next change of ``path`` with that stamp is tagged as ours in :attr:`WatchBatch.own`."""
        with self._lock:
            self._own[Path(path)] = (stamp_after, time.monotonic() + OWN_WRITE_TTL_S)

    def is_own(self, path: Path, stamp: FileStamp | None) -> bool:
        """True (once) when ``path`` now has the stamp announced by :meth:`expect_own_write`."""
        with self._lock:
            entry = self._own.get(path)
            if entry is None:
                return False
            expected, deadline = entry
            if time.monotonic() > deadline:
                del self._own[path]
                return False
            if stamp == expected:
                del self._own[path]
                return True
            return False

    async def batches(self, stop_event: asyncio.Event | None = None) -> AsyncIterator[WatchBatch]:
        """Yield batches of changed paths until ``stop_event`` is set.

        The first batch is ``initial`` (no paths): it is yielded right after every target was
        stamped, so a consumer that reads everything then misses nothing."""
        stop = stop_event or asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._queue = asyncio.Queue()
        self._restart = asyncio.Event()
        self._reconcile_now = asyncio.Event()
        self._ready = asyncio.Event()
        await asyncio.to_thread(self._stamp_all)
        self._activity = asyncio.Event()
        self._documents = asyncio.Event()
        tasks = [asyncio.create_task(self._reconcile_loop(stop), name="phasewatch-reconcile")]
        if self.use_events:
            tasks.append(asyncio.create_task(self._event_loop(stop), name="phasewatch-awatch"))
            tasks.append(asyncio.create_task(self._quick_loop(stop), name="phasewatch-quick"))
        try:
            if self.use_events:
                try:  # the OS watch is in place before the consumer's first full read
                    await asyncio.wait_for(self._ready.wait(), _READY_TIMEOUT_S)
                except TimeoutError:
                    pass
            self._seq += 1
            yield WatchBatch(frozenset(), "initial", initial=True, seq=self._seq)
            while not stop.is_set():
                item = await self._next_item(stop)
                if item is None:
                    break
                items = [item]
                while not self._queue.empty():
                    items.append(self._queue.get_nowait())
                paths = frozenset().union(*(p for _, p, _ in items))
                dirs_changed = any(d for _, _, d in items)
                if not paths and not dirs_changed:
                    continue
                origins = frozenset(o for o, _, _ in items)
                origin: BatchOrigin = (
                    "events"
                    if "events" in origins or "quick" in origins
                    else "reconcile"
                    if "reconcile" in origins
                    else "more"
                )
                # stat()ing our own writes needs a thread; most batches have none pending
                own = (
                    await asyncio.to_thread(self._own_paths, paths)
                    if self._own_pending(paths)
                    else frozenset()
                )
                self._seq += 1
                yield WatchBatch(paths, origin, own, dirs_changed, seq=self._seq, origins=origins)
        finally:
            if self._restart is not None:
                self._restart.set()
            for task in tasks:
                task.cancel()
            for task in tasks:
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass

    # ------------------------------------------------------------------ targets

    def _set_targets(self, files: Iterable[Path], dirs: Iterable[Path], *, initial: bool) -> bool:
        new_files = frozenset(Path(f) for f in files)
        new_dirs = frozenset(Path(d) for d in dirs)
        ancestors: set[Path] = set()
        for target in (*new_files, *new_dirs):
            for parent in target.parents:
                if self.root is not None and self.root not in (parent, *parent.parents):
                    break
                ancestors.add(parent)
        with self._lock:
            if not initial and new_files == self._files and new_dirs == self._dirs:
                return False
            self._files, self._dirs = new_files, new_dirs
            self._ancestors = frozenset(ancestors)
            known = {p: self._known.get(p, _UNSEEN) for p in new_files}
            self._known = known
        return True

    def desired_dirs(self) -> frozenset[Path]:
        """The directories awatch should run on now (nearest existing one for each target)."""
        with self._lock:
            files, dirs = self._files, self._dirs
        wanted: set[Path] = set()
        for f in files:
            d = nearest_existing_dir(f.parent, self.root)
            if d is not None:
                wanted.add(d)
        for target in dirs:
            d = nearest_existing_dir(target, self.root)
            if d is not None:
                wanted.add(d)
                if d != target:  # the directory does not exist yet: its parent chain is watched
                    continue
        return frozenset(wanted)

    def _interesting(self, path: Path) -> bool:
        return (
            path in self._files
            or path.parent in self._dirs
            or path in self._dirs
            or path in self._ancestors
        )

    # ------------------------------------------------------------------ stamps

    def _stamp_all(self) -> None:
        with self._lock:
            files = list(self._files)
        stamps = {f: FileStamp.of(f) for f in files}
        with self._lock:
            for f, s in stamps.items():
                if f in self._known:
                    self._known[f] = s

    def _note(self, paths: Iterable[Path]) -> None:
        """Record current stamps of ``paths`` (already reported by events)."""
        stamps = {p: FileStamp.of(p) for p in paths}
        with self._lock:
            for p, s in stamps.items():
                if p in self._known:
                    self._known[p] = s

    def _diff_stamps(self, quick: bool = False) -> set[Path]:
        """The targets whose stamps changed since last seen (``quick``: the documents only)."""
        with self._lock:
            files = [f for f in self._files if not quick or f.suffix in QUICK_SUFFIXES]
        current = {f: FileStamp.of(f) for f in files}
        changed: set[Path] = set()
        with self._lock:
            for f, stamp in current.items():
                if f not in self._known:
                    continue
                before = self._known[f]
                if before is _UNSEEN:
                    self._known[f] = stamp
                    if stamp is not None:
                        changed.add(f)
                elif before != stamp:
                    self._known[f] = stamp
                    changed.add(f)
        return changed

    def _seen_quick(self, paths: set[Path]) -> set[Path]:
        """The documents among ``paths`` whose stamps are the ones last seen (by a quick look)."""
        docs = [p for p in paths if p in self._files and p.suffix in QUICK_SUFFIXES]
        if not docs:
            return set()
        stamps = {p: FileStamp.of(p) for p in docs}
        with self._lock:
            return {p for p, s in stamps.items() if s is not None and self._known.get(p) == s}

    def _own_pending(self, paths: frozenset[Path]) -> bool:
        with self._lock:
            return any(p in self._own for p in paths)

    def _own_paths(self, paths: frozenset[Path]) -> frozenset[Path]:
        with self._lock:
            pending = [p for p in paths if p in self._own]
        return frozenset(p for p in pending if self.is_own(p, FileStamp.of(p)))

    # ------------------------------------------------------------------ loops

    def _put(self, origin: BatchOrigin, paths: Iterable[Path], dirs_changed: bool = False) -> None:
        if self._queue is not None:
            self._queue.put_nowait((origin, frozenset(paths), dirs_changed))
        if origin == "quick" and self._documents is not None:
            self._documents.set()

    @staticmethod
    def documents_in(paths: Iterable[Path]) -> bool:
        """Whether ``paths`` hold a document (a state file, not a log: see QUICK_SUFFIXES)."""
        return any(Path(p).suffix in QUICK_SUFFIXES for p in paths)

    async def pause(self, seconds: float) -> None:
        """Wait ``seconds`` (a consumer letting a storm's changes gather), or until a document
        changes: a state write never waits out a log's gap. Call it from the event loop."""
        if self._documents is None:
            await asyncio.sleep(seconds)
            return
        self._documents.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._documents.wait(), seconds)

    def _wake(self, *, restart: bool) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return

        def wake() -> None:
            if restart and self._restart is not None:
                self._restart.set()
            if self._reconcile_now is not None:
                self._reconcile_now.set()

        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        try:
            if running is loop:
                wake()
            else:
                loop.call_soon_threadsafe(wake)
        except RuntimeError:  # loop closing
            pass

    async def _next_item(self, stop: asyncio.Event) -> Any:
        assert self._queue is not None
        if not self._queue.empty():
            return self._queue.get_nowait()
        getter = asyncio.ensure_future(self._queue.get())
        stopper = asyncio.ensure_future(stop.wait())
        try:
            done, _ = await asyncio.wait({getter, stopper}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopper.cancel()
            if not getter.done():
                getter.cancel()
        if getter in done and not getter.cancelled():
            return getter.result()
        return None

    async def _reconcile_loop(self, stop: asyncio.Event) -> None:
        assert self._reconcile_now is not None
        while not stop.is_set():
            try:
                await asyncio.wait_for(self._reconcile_now.wait(), self.reconcile_interval)
            except TimeoutError:
                pass
            self._reconcile_now.clear()
            if stop.is_set():
                return
            changed = await asyncio.to_thread(self._diff_stamps)
            dirs = await asyncio.to_thread(self.desired_dirs)
            dirs_changed = self.use_events and dirs != self._watched
            if dirs_changed and self._restart is not None:
                self._restart.set()
            if changed or dirs_changed:
                self.reconcile_batches += bool(changed)
                self._put("reconcile", changed, dirs_changed)

    async def _quick_loop(self, stop: asyncio.Event) -> None:
        """While files change, look at the documents' stamps every QUICK_S (see QUICK_S)."""
        assert self._activity is not None
        while not stop.is_set():
            if time.monotonic() >= self._active_until:
                self._activity.clear()
                await self._activity.wait()
            await asyncio.sleep(QUICK_S)
            if stop.is_set():
                return
            changed = await asyncio.to_thread(self._diff_stamps, True)
            if changed:
                self.quick_batches += 1
                self._put("quick", changed)

    async def _event_loop(self, stop: asyncio.Event) -> None:
        awatch = self._awatch
        if awatch is None:
            from watchfiles import awatch as real_awatch

            awatch = real_awatch
        started = False
        while not stop.is_set():
            assert self._restart is not None
            self._restart = restart = asyncio.Event()
            inner = asyncio.Event()  # stops this awatch run: outer stop or restart

            async def relay(restart: asyncio.Event = restart, inner: asyncio.Event = inner) -> None:
                stopper = asyncio.ensure_future(stop.wait())
                restarter = asyncio.ensure_future(restart.wait())
                try:
                    await asyncio.wait({stopper, restarter}, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stopper.cancel()
                    restarter.cancel()
                    inner.set()

            relay_task = asyncio.create_task(relay())
            dirs = await asyncio.to_thread(self.desired_dirs)
            restarted = started
            started = True
            self._watched = dirs
            pending: asyncio.Future[Any] | None = None
            try:
                if not dirs:
                    await inner.wait()
                    continue
                gen = awatch(
                    *sorted(dirs),
                    stop_event=inner,
                    watch_filter=None,
                    debounce=self.debounce_ms,
                    step=self.step_ms,
                    recursive=False,
                    force_polling=self.force_polling,
                    poll_delay_ms=self.poll_delay_ms,
                    ignore_permission_denied=True,
                )
                pending = asyncio.ensure_future(gen.__anext__())
                # awatch creates its OS watch synchronously in its first step: once that step ran
                # (two loop turns), every later write is seen. Tell batches() we are ready.
                for _ in range(2):
                    await asyncio.sleep(0)
                self._ready.set()
                if restarted:
                    # events between the old watch's end and this one's start were lost:
                    # compare every target now
                    self._wake(restart=False)
                while True:
                    try:
                        changes = await pending
                    except StopAsyncIteration:
                        break
                    self._on_changes(changes, restart)
                    pending = asyncio.ensure_future(gen.__anext__())
            except Exception as exc:  # a directory vanished between listing and watching
                internal_failure(__name__, "the OS watch stopped", exc)
                self.errors = [*self.errors[-4:], f"{type(exc).__name__}: {exc}"]
                try:
                    await asyncio.wait_for(inner.wait(), _RETRY_S)
                except TimeoutError:
                    pass
            finally:
                self._ready.set()  # even a failed start must not block the first batch
                if pending is not None and not pending.done():
                    pending.cancel()
                relay_task.cancel()

    def _on_changes(self, changes: Iterable[tuple[Any, str]], restart: asyncio.Event) -> None:
        self._active_until = time.monotonic() + QUICK_ACTIVE_S
        if self._activity is not None:
            self._activity.set()
        paths: set[Path] = set()
        dir_event = False
        with self._lock:
            for _change, raw in changes:
                path = Path(raw)
                if not self._interesting(path):
                    continue
                paths.add(path)
                if path in self._ancestors or path in self._dirs or path.parent in self._dirs:
                    # a directory on the way to a target (or an entry of a watched directory)
                    # appeared or vanished: the set of directories may change
                    dir_event = dir_event or path not in self._files
        # a document the quick look already reported, unchanged since: not news again
        paths -= self._seen_quick(paths)
        if not paths and not dir_event:
            return
        self._note(paths)
        self.event_batches += 1
        dirs_changed = False
        if dir_event:
            wanted = self.desired_dirs()
            if wanted != self._watched:
                dirs_changed = True
                restart.set()
        self._put("events", paths, dirs_changed)
