"""A live session on one project: every reader, the previous snapshots, and what changed.

:class:`ProjectSession` owns discovery, one :class:`~core.sources.StateReader` per state file
(one per monorepo project), the previous :class:`~core.snapshot.Snapshot` of each, the hook log
tailer, and one view per registered system (:mod:`core.systems`: the TDD plan, the plugin
registry). :meth:`ProjectSession.refresh` re-reads what the watcher said changed (or
everything) and returns a :class:`SessionUpdate`: plain data the UI renders, never a widget. It
runs in a worker thread; nothing here imports textual.

What the session remembers across refreshes (the files do not):

* every distinct state content observed (:class:`Observation`, the last ``timeline_cap``), with
  the changed field paths and the transition findings of that step; the raw document is kept for
  the newest ``raw_cap`` entries holding at most ``RAW_BYTES`` of state files (older entries drop
  it to bound memory; the newest two always keep it);
* every transition finding seen (:class:`RecentEvent`): a transition finding exists only in the
  one snapshot where the transition happened, the dashboard keeps showing it as a recent event;
* per file: read status (ok/torn/missing/vanished/invalid/...), when it last changed and when the
  last good read happened (for "torn read, showing v41 from 12:03:11").
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from msgspec import Struct, field
from msgspec.structs import replace

from .diff import capped_paths
from .findings import Finding, is_transition, sort_findings
from .log import internal_failure
from .memory import release_memory
from .snapshot import Snapshot, observe
from .sources import FileStamp, Project, StateReader, StateSource, discover
from .systems import SystemKey, SystemView, registered
from .timeline import TimelineEntry as ViewEntry

if TYPE_CHECKING:
    from .config import Config
    from .hooklog import HookAudit, HookCounts, HookLogTailer, TailResult
    from .hooklog.store import HookStore
    from .review import RepairOffer, RepairOfferer

TIMELINE_CAP = 2000
RAW_CAP = 200
RAW_BYTES = 4 * 1024 * 1024  # the file bytes of the documents the timeline keeps (README)
EVENTS_CAP = 500
# A huge hook log is read over several refreshes (``HookLogView.pending``), so state
# changes are never stuck behind it: each refresh polls it (HOOK_READ_BYTES a poll, a part
# short enough to parse between two state reads: docs/performance.md#the-hook-log) for up to
# HOOK_PART_SECONDS. Its lines are indexed first (a newline scan), so they show at once, parsed
# when on screen.
HOOK_READ_BYTES = 4 * 1024 * 1024
HOOK_PART_SECONDS = 0.1
DIFF_LIMIT = 200  # changed field paths recorded per timeline entry

Clock = Callable[[], datetime]
T = TypeVar("T")


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _absent(path: Path) -> bool:
    """Nothing at ``path`` (not even a dangling link); a path that cannot be looked up is not
    absent (its reader reports why)."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except (OSError, ValueError):
        return False
    return False


# ---------------------------------------------------------------------------- data


class FileStatus(Struct, frozen=True):
    """How one file read last time. ``status``: ok | missing | vanished | torn | invalid |
    unreadable | too_large | not_object. ``vanished`` = it was there earlier in the session."""

    path: Path
    rel: str
    kind: str  # state | hook_log | a system's name (core.systems: tdd, plugins)
    status: str
    detail: str | None = None
    project_id: str = ""
    stamp: FileStamp | None = None
    checked_at: datetime | None = None  # last time it was read
    changed_at: datetime | None = None  # last time its content changed
    last_ok_at: datetime | None = None  # last good read
    shown_version: int | None = None  # state files: the version on screen (last good)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def stale(self) -> bool:
        """The screen shows older data than the file holds (or the file is gone)."""
        return self.status in {"torn", "invalid", "vanished", "unreadable", "too_large"} or (
            self.status == "not_object"
        )


class Observation(Struct, frozen=True):
    """One distinct state content observed in this session."""

    seq: int  # session-wide observation number (monotonic)
    at: datetime
    project_id: str
    source: str
    state_version: int | None
    changed: tuple[str, ...]  # changed field paths ("phases.06-x.status"); () for the first
    findings: tuple[Finding, ...]  # transition findings of the step that led here
    initial: bool = False  # first observation of this file in the session
    own: bool = False  # the change was phasewatch's own write
    raw: dict[str, Any] | None = None  # the document (dropped for old entries, see RAW_CAP)
    size: int = 0  # bytes of the file it was read from (see RAW_BYTES)
    truncated: bool = False  # more than DIFF_LIMIT paths changed


class RecentEvent(Struct, frozen=True):
    """A transition finding seen this session (kept after the snapshot that raised it)."""

    seq: int
    at: datetime
    project_id: str
    state_version: int | None
    finding: Finding

    @property
    def key(self) -> tuple[str, ...]:
        return ("event", str(self.seq), *self.finding.key)


class HookTail(Struct, frozen=True):
    """Flags of the hook log's last read (see core.hooklog.TailResult)."""

    rotated: bool = False
    truncated: bool = False
    reset: bool = False
    missing: bool = False
    replaced: bool = False
    error: str | None = None
    lines: int | None = None  # lines the file held right after a rotation/reset (else None)


class HookLogView(Struct, frozen=True):
    """The hook log in a :class:`SessionUpdate` (``update.hooks``), beside the systems' views
    (``update.systems``, :class:`~core.systems.SystemView`): the log is the session's own (see
    docs/design.md#systems), so its view is typed here. The records are not carried: they are
    in ``store`` (the session's :class:`~core.hooklog.store.HookStore`), which viewers read."""

    store: HookStore | None = None  # the records (rows), read by the hook screen
    rows: int = 0  # rows the store held at this update (a viewer compares)
    tail: HookTail = field(default_factory=HookTail)  # the last read of the log
    changed: bool = False  # this refresh changed the log's rows or status (for the worker)
    findings: list[Finding] = field(default_factory=list)  # over every line read
    stats: dict[str, Any] = field(default_factory=dict)  # over every line read
    total: int = 0  # lines read (parsed, counted) this session
    rotations: int = 0  # rotations/rewrites of the log seen this session
    rotated_at: datetime | None = None  # when the last one was seen
    pending: bool = False  # more of the log waits: refresh again with the log "changed"
    progress: tuple[int, int] | None = None  # (bytes read, file size) while pending


class SessionUpdate(Struct):
    """What one :meth:`ProjectSession.refresh` produced. Plain data, safe to hand to the UI.

    The state picture only: a newer update says all an older one would (the app lets the newest
    through, and a screen not shown yet keeps the newest). What changed is told by revision
    numbers a screen compares with the ones it rendered: ``versions`` (per project, the ``seq``
    of its newest timeline entry), ``discovery``, each system's ``rev``, ``hooks.rows``;
    ``timeline`` holds every entry kept (a screen takes those newer than it has, by ``seq``). The
    hook log's records are not carried: they are in ``hooks.store`` (the session's
    :class:`~core.hooklog.store.HookStore`), which viewers read.
    """

    seq: int
    at: datetime
    project: Project
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)  # project -> newest timeline seq
    discovery: int = 0  # rediscoveries that changed the project's layout
    files: dict[str, FileStatus] = field(default_factory=dict)  # by path relative to the root
    hooks: HookLogView = field(default_factory=HookLogView)  # the hook log
    # timeline and recent events
    timeline: tuple[Observation, ...] = ()
    timeline_total: int = 0
    events: tuple[RecentEvent, ...] = ()
    #: The registered systems (core.systems: the TDD plan, the plugin registry) by name; read
    #: them typed with :meth:`system`.
    systems: Mapping[str, SystemView[object]] = field(default_factory=dict)
    # watcher targets
    watch_files: frozenset[Path] = frozenset()
    watch_dirs: frozenset[Path] = frozenset()
    targets_changed: bool = False  # this refresh changed them (for the worker)
    #: Watched files this refresh could not look up (``.isdlc`` unsearchable): the watcher
    #: forgets their stamps, so it reports them once they can be looked up again.
    unseen: frozenset[Path] = frozenset()
    errors: list[str] = field(default_factory=list)  # the last loader failures (kept short)
    initial: bool = False  # the session's first refresh
    #: The repair each project's state calls for now (core.review.RepairOfferer), by project:
    #: planned here, in the session's thread, so the UI thread never diffs whole documents (nor
    #: imports the writer's package to do it). None on the first refresh (see ``hooks_later``).
    offers: dict[str, RepairOffer | None] | None = None

    # -- reading helpers ------------------------------------------------------------------

    def system(self, key: SystemKey[T]) -> SystemView[T]:
        """The system ``key`` names (``update.system(TDD).data`` is a ``TddPlan`` or None); an
        empty view when it was never loaded."""
        view = self.systems.get(key.name)
        return cast("SystemView[T]", view) if view is not None else SystemView(key.name)

    def snapshot(self, project_id: str | None = None) -> Snapshot | None:
        """The snapshot of ``project_id`` (None: the default project, else the first)."""
        if project_id is not None and project_id in self.snapshots:
            return self.snapshots[project_id]
        source = self.project.state_for(project_id)
        if source is not None and source.project_id in self.snapshots:
            return self.snapshots[source.project_id]
        return next(iter(self.snapshots.values()), None)

    def offer(self, project_id: str | None = None) -> RepairOffer | None:
        """The repair offered for the state :meth:`snapshot` gives for ``project_id``."""
        snap = self.snapshot(project_id)
        if snap is None or not self.offers:
            return None
        return self.offers.get(snap.project_id)

    def state_file(self, project_id: str | None = None) -> FileStatus | None:
        snap = self.snapshot(project_id)
        return self.files.get(snap.source) if snap is not None else None

    def findings_for(self, project_id: str | None = None) -> list[Finding]:
        """Every standing finding relevant to one project's overview: discovery, its state
        file, the repository's hook log and every system (sorted, deduplicated)."""
        out: dict[tuple[str, str, str], Finding] = {}
        snap = self.snapshot(project_id)
        pools: list[Iterable[Finding]] = [
            self.project.findings,
            snap.findings if snap is not None else (),
            self.hooks.findings,
            *(view.findings for view in self.systems.values()),
        ]
        for pool in pools:
            for f in pool:
                if is_transition(f):
                    continue  # shown as a recent event instead
                out.setdefault(f.key, f)
        return sort_findings(list(out.values()))

    def events_for(self, project_id: str | None = None) -> list[RecentEvent]:
        snap = self.snapshot(project_id)
        pid = snap.project_id if snap is not None else (project_id or "")
        return [e for e in self.events if e.project_id == pid]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def view_entry(entry: Observation) -> ViewEntry:
    """The session's record of one observed state as the timeline widget's entry
    (:class:`core.timeline.TimelineEntry`): same ``seq`` (the row key), time, version, changed
    paths, transition findings and document; the session's flags become the note."""
    note = "first observation" if entry.initial else "phasewatch's own write" if entry.own else ""
    return ViewEntry(
        seq=entry.seq,
        observed_at=entry.at,
        state_version=entry.state_version,
        changed_paths=list(entry.changed),
        findings=sort_findings(list(entry.findings)),
        raw=entry.raw,
        note=note,
    )


def attention(snap: Snapshot | None) -> tuple[bool, int]:
    """(a review gate is waiting, number of pending escalations) for one snapshot."""
    if snap is None:
        return False, 0
    wf = snap.workflow
    gate = bool(
        wf is not None
        and wf.supervised_review is not None
        and wf.supervised_review.status == "gate_presented"
    )
    return gate, len(snap.state.pending_escalations)


# ---------------------------------------------------------------------------- session


class _StateTrack(Struct):
    source: StateSource
    reader: StateReader
    rel: str
    snapshot: Snapshot | None = None
    status: str = "missing"
    detail: str | None = None
    existed: bool = False
    stamp: FileStamp | None = None
    checked_at: datetime | None = None
    changed_at: datetime | None = None
    last_ok_at: datetime | None = None


class ProjectSession:
    """The readers and memory of one dashboard session on the project at ``path``.

    ``refresh(changed)`` is meant to be called from ONE thread at a time (the app runs it in a
    worker thread, sequentially); a lock makes concurrent calls safe anyway.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        clock: Clock | None = None,
        timeline_cap: int = TIMELINE_CAP,
        raw_cap: int = RAW_CAP,
        events_cap: int = EVENTS_CAP,
        hook_read_bytes: int = HOOK_READ_BYTES,
        hook_part_seconds: float = HOOK_PART_SECONDS,
        env: dict[str, str] | None = None,
        config: Config | None = None,
        ui_idle: threading.Event | None = None,
    ) -> None:
        self._path = path
        self._env = env
        #: The user's config, applied here once to every finding the session hands out (a rule
        #: that is off is gone from every screen, count and notification); None: the defaults.
        self.config = config
        self.clock: Clock = clock or _utc_now
        self.timeline_cap = timeline_cap
        self.raw_cap = raw_cap
        self._lock = threading.RLock()
        self.project: Project = self._configured_project(discover(path, env))
        self.root = self.project.root
        self._tracks: dict[str, _StateTrack] = {}
        #: By project (see SessionUpdate.offers): its offerer, and the snapshot and observation
        #: count its last offer was made at, with that offer.
        self._offered: dict[str, tuple[RepairOfferer, Snapshot | None, int, RepairOffer | None]]
        self._offered = {}
        self._sync_tracks()
        self._hook_read_bytes = hook_read_bytes
        self._hook_part_seconds = hook_part_seconds
        # The hook log's reader, store, audit and counts: made when the log is first read (their
        # modules are not needed for the state's first frame).
        self._tailer: HookLogTailer | None = None
        self._hooks: HookStore | None = None
        self._hook_audit: HookAudit | None = None
        self._hook_counts: HookCounts | None = None
        self._hook_indexed = 0  # byte offset up to which the store holds rows (parsed or not)
        self._hook_started = False  # the log was looked at
        self._hook_pending = False
        # what the findings cover: (lines read, current phase, lines before the file's first)
        self._hook_audit_key: tuple[int, str | None, int | None] | None = None
        self._hook_total = 0
        self._hook_rotations = 0
        self._hook_rotated_at: datetime | None = None
        self._hook_findings: list[Finding] = []
        self._hook_stats: dict[str, Any] = {}
        self._hook_status = FileStatus(
            self.project.hook_log, self.project.rel(self.project.hook_log), "hook_log", "missing"
        )
        self._hook_existed = False
        self._release = False  # the heap pages a refresh freed go back at its end
        #: Cleared by the UI while it answers a key: a large log's read then ends its refresh
        #: at the next poll (the parts hold the GIL; a key's answer goes first).
        if ui_idle is None:
            ui_idle = threading.Event()
            ui_idle.set()
        self.ui_idle = ui_idle
        self.timeline: deque[Observation] = deque(maxlen=timeline_cap)
        self._timeline_total = 0
        self._versions: dict[str, int] = {}  # project -> seq of its newest timeline entry
        self._discovery = 0
        self.events: deque[RecentEvent] = deque(maxlen=events_cap)
        self._systems: dict[str, SystemView[object]] = {}
        #: Systems in use here (their module imported): found at a full refresh, or a change
        #: near their markers; a system once in use stays so (a removed file is "vanished").
        self._active: set[str] = set()
        self._other_status: dict[str, FileStatus] = {}
        self._seq = 0
        self._obs = 0
        self._targets: tuple[frozenset[Path], frozenset[Path]] = (frozenset(), frozenset())
        self._errors: list[str] = []

    @property
    def tailer(self) -> HookLogTailer:
        """The hook log's tailer (made on first use, with the store)."""
        return self._hook_log()[0]

    @property
    def hooks(self) -> HookStore:
        """The hook log's records, which viewers read (made on first use)."""
        return self._hook_log()[1]

    def _hook_log(self) -> tuple[HookLogTailer, HookStore, HookAudit, HookCounts]:
        if self._tailer is None or self._hooks is None:
            from .hooklog import HookAudit, HookCounts, HookLogTailer
            from .hooklog.store import HookStore

            self._tailer = HookLogTailer(self.project.hook_log, max_read=self._hook_read_bytes)
            self._hooks = HookStore(self.project.hook_log, max_line=self._tailer.max_line)
            self._hook_audit, self._hook_counts = HookAudit(), HookCounts()
        assert self._hook_audit is not None and self._hook_counts is not None
        return self._tailer, self._hooks, self._hook_audit, self._hook_counts

    # ------------------------------------------------------------------ targets

    def watch_targets(self) -> tuple[frozenset[Path], frozenset[Path]]:
        """(files, directories) the watcher should follow for this project, including files and
        directories that do not exist yet (a monorepo project or plugin added later)."""
        p = self.project
        files: set[Path] = {
            p.isdlc_dir / "state.json",
            p.isdlc_dir / "monorepo.json",
            p.hook_log,
        }
        files |= {s.path for s in p.states}
        dirs: set[Path] = {p.isdlc_dir / "projects"}
        try:
            children = [c for c in (p.isdlc_dir / "projects").iterdir() if c.is_dir()]
        except OSError:
            children = []
        files |= {child / "state.json" for child in children}
        for key in registered():
            more_files, more_dirs = self._system_watch(key)
            files |= more_files
            dirs |= more_dirs
        return frozenset(files), frozenset(dirs)

    def _known_paths(self) -> set[Path]:
        p = self.project
        known = {t.source.path for t in self._tracks.values()}
        known.add(p.hook_log)
        for key in registered():
            known |= self._system_watch(key)[0]
        return known

    # ------------------------------------------------------------------ refresh

    def refresh(
        self,
        changed: Iterable[Path] | None = None,
        *,
        own: Iterable[Path] = (),
        hooks_later: bool = False,
    ) -> SessionUpdate:
        """Re-read what ``changed`` names (None: everything) and report what is new.

        ``hooks_later``: on the first refresh, leave a non-empty hook log for the next one
        (``hooks.pending``), and the repair offers (``offers`` None) for the next refresh: the
        state's first frame waits neither for the log's modules and lines nor for the writer's
        package the planners import (the app's start-up, docs/design.md#data-flow)."""
        with self._lock:
            return self._refresh(
                None if changed is None else {Path(c) for c in changed}, own, hooks_later
            )

    def _refresh(
        self, changed: set[Path] | None, own: Iterable[Path], hooks_later: bool = False
    ) -> SessionUpdate:
        now = self.clock()
        own_set = frozenset(Path(o) for o in own)
        self._seq += 1
        initial = self._seq == 1
        errors: list[str] = []
        full = changed is None
        changed = changed or set()

        if full or self._needs_discovery(changed):
            rediscovered = self._rediscover()
            self._discovery += rediscovered
            full = full or rediscovered

        # state files
        for pid, track in self._tracks.items():
            if full or track.source.path in changed or track.snapshot is None:
                self._observe_state(pid, track, now, own=track.source.path in own_set)
        self._trim_raw()

        # hook log
        p = self.project
        tail = HookTail()
        hook_changed = False
        if full or p.hook_log in changed:
            tail, hook_changed = self._read_hooks(now, initial and hooks_later)
        self._audit_hooks()

        # the other systems (core.systems)
        for key in registered():
            if key.name not in self._active:
                if not (full and key.present(p)) and not any(key.near(p, c) for c in changed):
                    continue  # not used here: its module is not even imported
                self._active.add(key.name)
                self._load_system(key, now, errors)
            elif full or any(key.system().owns(p, c) for c in changed):
                self._load_system(key, now, errors)

        files, dirs = self.watch_targets()
        targets_changed = (files, dirs) != self._targets
        self._targets = (files, dirs)
        self._errors = (self._errors + errors)[-10:]
        if self._release:  # (after the counts and findings: their work is freed too)
            self._release = False
            release_memory()
        timeline = tuple(self.timeline)

        return SessionUpdate(
            seq=self._seq,
            at=now,
            project=self.project,
            snapshots={pid: t.snapshot for pid, t in self._tracks.items() if t.snapshot},
            versions=dict(self._versions),
            discovery=self._discovery,
            files=self._file_statuses(),
            hooks=HookLogView(
                store=self._hooks,
                rows=0 if self._hooks is None else self._hooks.count,
                tail=tail,
                changed=hook_changed,
                findings=self._hook_findings,
                stats=self._hook_stats,
                total=self._hook_total,
                rotations=self._hook_rotations,
                rotated_at=self._hook_rotated_at,
                pending=self._hook_pending,
                progress=self._hook_progress() if self._hook_pending else None,
            ),
            timeline=timeline,
            timeline_total=self._timeline_total,
            events=tuple(self.events),
            systems=dict(self._systems),
            watch_files=files,
            watch_dirs=dirs,
            targets_changed=targets_changed,
            unseen=frozenset(f for f in files if p.isdlc_dir in f.parents)
            if p.unsearchable
            else frozenset(),
            errors=list(self._errors),
            initial=initial,
            offers=None if initial and hooks_later else self._offers(timeline),
        )

    def _observe_state(self, pid: str, track: _StateTrack, now: datetime, *, own: bool) -> None:
        """Re-read one state file; a new content becomes a timeline entry (and its transition
        findings recent events)."""
        entry = self._observe(track, now, own=own)
        if entry is None:
            return
        self._versions[pid] = entry.seq
        for f in entry.findings:
            self.events.append(RecentEvent(entry.seq, now, pid, entry.state_version, f))

    # ------------------------------------------------------------------ discovery

    def _needs_discovery(self, changed: set[Path]) -> bool:
        if self.project.unsearchable and changed:  # it may be searchable again: look
            return True
        known = self._known_paths()
        isdlc = self.project.isdlc_dir
        for path in changed:
            if path == isdlc / "monorepo.json" or path not in known:
                if path.parent != self.project.root and self._system_path(path):
                    continue  # a file inside a system's directory: its reload covers it
                return True
        # a state file that vanished (or cannot be looked up any more: os.path.exists says
        # False where Path.exists raises) may mean a project was removed
        return any(
            t.source.path in changed and not os.path.exists(t.source.path)
            for t in self._tracks.values()
        )

    def _configured(self, findings: Iterable[Finding]) -> list[Finding]:
        """``findings`` as the user configured them (:func:`core.config.apply_config`)."""
        if self.config is None:
            return list(findings)
        from .config import apply_config

        return apply_config(findings, self.config)

    def _configured_project(self, project: Project) -> Project:
        project.findings = self._configured(project.findings)
        return project

    def _offers(self, timeline: tuple[Observation, ...]) -> dict[str, RepairOffer | None]:
        """The repair each project's state calls for now. An offer depends on the project's
        snapshot and the timeline, which changes only with an observation: asked again with
        neither changed (a refresh for the hook log alone), the last offer stands without a
        look at the timeline; else the project's offerer plans again only when its inputs
        changed (core.review.RepairOfferer)."""
        from .review import RepairOfferer

        for pid in set(self._offered) - set(self._tracks):
            del self._offered[pid]  # a project gone from the layout
        offers: dict[str, RepairOffer | None] = {}
        for pid, track in self._tracks.items():
            snap = track.snapshot
            if snap is None:
                continue
            offerer, seen, obs, offer = self._offered.get(pid) or (RepairOfferer(), None, -1, None)
            if seen is not snap or obs != self._obs:
                offer = offerer.offer(snap, timeline)
                self._offered[pid] = (offerer, snap, self._obs, offer)
            offers[pid] = offer
        return offers

    def _rediscover(self) -> bool:
        fresh = self._configured_project(discover(self._path, self._env))
        before = [(s.project_id, s.path, s.name) for s in self.project.states]
        after = [(s.project_id, s.path, s.name) for s in fresh.states]
        changed = (
            before != after
            or fresh.monorepo != self.project.monorepo
            or fresh.default_project != self.project.default_project
            or fresh.systems != self.project.systems
            or [f.key for f in fresh.findings] != [f.key for f in self.project.findings]
        )
        self.project = fresh
        self._sync_tracks()
        return changed

    def _sync_tracks(self) -> None:
        wanted = {s.project_id: s for s in self.project.states}
        for pid in list(self._tracks):
            if pid not in wanted or self._tracks[pid].source.path != wanted[pid].path:
                del self._tracks[pid]
        for pid, source in wanted.items():
            if pid in self._tracks:
                self._tracks[pid].source = source
                continue
            rel = self.project.rel(source.path)
            self._tracks[pid] = _StateTrack(source, StateReader(source.path, rel), rel)

    # ------------------------------------------------------------------ state files

    def _observe(self, track: _StateTrack, now: datetime, *, own: bool) -> Observation | None:
        previous = track.snapshot
        snap = observe(track.reader, previous, track.source.project_id)
        if snap is previous and previous is not None:  # the file is unchanged: not audited again
            track.checked_at = now
            if any(is_transition(f) for f in previous.findings):  # as a new audit would make it
                track.snapshot = replace(
                    previous,
                    findings=[f for f in previous.findings if not is_transition(f)],
                    seq=previous.seq + 1,
                    taken_at=datetime.now(UTC),
                )
            return None  # (the same snapshot otherwise: what depends on it is not redone)
        snap.findings = self._configured(snap.findings)
        result = snap.read
        status: str = result.status if result is not None else "missing"
        if status == "ok":
            track.existed = True
            track.last_ok_at = now
        elif status == "missing":
            if track.existed:
                status = "vanished"
        else:
            track.existed = True
        track.status = status
        track.detail = result.error if result is not None else None
        track.stamp = result.stamp if result is not None else None
        track.checked_at = now
        track.snapshot = snap
        if not snap.fresh or snap.raw is None:
            return None
        if previous is not None and previous.raw == snap.raw:
            return None
        track.changed_at = now
        self._obs += 1
        self._timeline_total += 1
        if previous is None or previous.raw is None:
            paths: list[str] = []
            truncated, first = False, True
        else:
            paths, truncated = capped_paths(previous.raw, snap.raw, max_changes=DIFF_LIMIT)
            first = False
        entry = Observation(
            seq=self._obs,
            at=now,
            project_id=track.source.project_id,
            source=track.rel,
            state_version=snap.version,
            changed=tuple(paths),
            findings=tuple(f for f in snap.findings if is_transition(f)),
            initial=first,
            own=own,
            raw=snap.raw,
            truncated=truncated,
            size=track.stamp.size if track.stamp is not None else 0,
        )
        self.timeline.append(entry)
        return entry

    def _trim_raw(self) -> None:
        """Drop the raw document of timeline entries past the newest ``raw_cap``, or past
        ``RAW_BYTES`` of file bytes (a large state keeps fewer; the newest two always keep it).
        Older entries lose it first, so the walk stops at the first one without it."""
        kept = held = 0
        for i in range(len(self.timeline) - 1, -1, -1):
            entry = self.timeline[i]
            if entry.raw is None:
                break
            kept, held = kept + 1, held + entry.size
            if kept > self.raw_cap or (kept > 2 and held > RAW_BYTES):
                self.timeline[i] = replace(entry, raw=None)

    # ------------------------------------------------------------------ hook log

    def _read_hooks(self, now: datetime, later: bool) -> tuple[HookTail, bool]:
        """New lines into the store (polled for at most hook_part_seconds; the rest at the
        next refresh), each counted and audited once. A large log is first indexed whole, so its
        newest lines show at once, and then parsed from its start, part by part. ``later``:
        the first refresh shows the state and leaves a non-empty log for the next."""
        p = self.project
        size = 0 if self._hook_started else _size(p.hook_log)
        if later and self._tailer is None:
            # the next refresh reads it (and makes the store); an empty or absent log is read
            # by the next full refresh (the watcher's first)
            self._hook_pending = size > 0
            if not _absent(p.hook_log):
                self._hook_file_status(None, now)
            return HookTail(), False
        from .hooklog import TailResult, count_lines

        large = size > self._hook_read_bytes
        initial = self._seq == 1
        if large and initial:
            res = TailResult(pending=True)  # a large log: the first refresh shows the state
        elif large:  # then its lines, indexed (shown at once); parsed from the next refresh on
            self._hook_started = True
            self._index_hooks(0, 1)
            res = TailResult(pending=True)
        else:
            self._hook_started = self._hook_started or _size(p.hook_log) > 0
            res = self.tailer.poll()
            self._store_hooks(res, now)
            deadline = time.monotonic() + self._hook_part_seconds
            while (
                res.pending
                and not res.error
                and time.monotonic() < deadline
                and self.ui_idle.is_set()
            ):
                more = self.tailer.poll()  # a large log: as much as the part's time allows
                self._store_hooks(more, now)
                res = res.then(more)
            if res.pending:
                self._index_rest()
        if self._hook_pending and not res.pending:
            self._release = True  # the log was read: give back what its parse borrowed
        self._hook_pending = res.pending
        lines = count_lines(p.hook_log) if res.rotated or res.reset else None
        tail = HookTail(
            res.rotated, res.truncated, res.reset, res.missing, res.replaced, res.error, lines
        )
        rewritten = bool(res.rotated or res.truncated or res.reset)
        if rewritten:
            self._hook_rotations += 1
            self._hook_rotated_at = now
        flags_changed = self._hook_file_status(res, now) or rewritten
        return tail, bool(len(res)) or flags_changed or (large and not initial)

    def _store_hooks(self, res: TailResult, now: datetime) -> None:
        """Put a poll's records in the store (after a rotation marker), counted and audited."""
        from .hooklog import count_lines
        from .hooklog.store import KEEP_BYTES, rotation_notice

        _, store, audit, counts = self._hook_log()
        if store.pending and self._hook_indexed > self.tailer.size:
            store.drop_pending()  # rewritten shorter before those lines were parsed: not there
            self._hook_indexed = 0
        if res.rotated or res.truncated or res.reset or res.replaced:
            store.retire_file()
            if (res.rotated or res.reset) and store.count:
                lines = count_lines(self.project.hook_log) or 0
                store.add_marker(rotation_notice(now, lines), now, lines)
        ident = self.tailer.ident
        gen = 0
        if ident is not None and self.tailer.size > KEEP_BYTES:
            gen = store.file_generation(ident)
        for batch in res.batches:
            store.fill(batch, gen=gen)
            audit.add(batch)
            counts.add(batch)
        store.bound(now)  # a day of a rotating log stays within the store's caps
        if not store.pending:
            self._hook_indexed = self.tailer.offset

    def _index_rest(self) -> None:
        """Index what the tailer has not parsed yet (once a refresh's polls are done), so the
        newest lines show before they are counted."""
        if self.tailer.ident is not None:
            start = max(self._hook_indexed, self.tailer.offset)
            self._index_hooks(start, self.tailer.lines_consumed + self.hooks.pending + 1)

    def _index_hooks(self, start: int, first_line: int) -> None:
        """Rows for the complete lines from byte ``start`` on, not parsed yet (shown at once)."""
        path = self.project.hook_log
        try:
            st = path.stat()
        except OSError:
            return
        from .hooklog import line_starts

        starts, end = line_starts(path, start)
        self.hooks.add_pending(
            starts, end, first_line, self.hooks.file_generation((st.st_dev, st.st_ino))
        )
        self._hook_indexed = max(start, end)

    def _audit_hooks(self) -> None:
        """The findings over every line read (cheap: the audit keeps only what they need);
        rebuilt when lines arrived or the current phase may have moved."""
        audit, counts = self._hook_audit, self._hook_counts
        if audit is None or counts is None:  # the log was not read yet
            return
        current = None
        snap = self._default_snapshot()
        if snap is not None and snap.workflow is not None:
            current = snap.workflow.current_phase
        tailer = self.tailer
        key = (audit.records, current, tailer.base)  # a rotation renumbers the file's lines
        if key != self._hook_audit_key:
            self._hook_audit_key = key
            rel = self.project.rel(self.project.hook_log)
            found = audit.findings(rel, current_phase=current, line_at=tailer.file_line)
            self._hook_findings = self._configured(found)
            self._hook_stats = counts.as_dict()
            self._hook_total = audit.records

    def _hook_file_status(self, res: TailResult | None, now: datetime) -> bool:
        """Record the log file's status; whether it changed. ``res`` None: the file is there,
        not read yet."""
        p = self.project
        if res is None:
            status = "ok"
            self._hook_existed = True
        elif res.missing:
            status = "vanished" if self._hook_existed else "missing"
        elif res.error:
            status = "unreadable"
        else:
            status = "ok"
            self._hook_existed = True
        old = self._hook_status
        self._hook_status = FileStatus(
            p.hook_log,
            p.rel(p.hook_log),
            "hook_log",
            status,
            None if res is None else res.error,
            stamp=FileStamp.of(p.hook_log),
            checked_at=now,
            changed_at=now
            if (res is not None and len(res)) or status != old.status
            else old.changed_at,
            last_ok_at=now if status == "ok" else old.last_ok_at,
        )
        return status != old.status

    def _hook_progress(self) -> tuple[int, int]:
        """(bytes read, file size) of the hook log while parts of it wait."""
        if self._tailer is None:
            return 0, _size(self.project.hook_log)
        size = self._tailer.size or _size(self.project.hook_log)
        return self._tailer.offset, size

    def _default_snapshot(self) -> Snapshot | None:
        source = self.project.state_for(None)
        if source is None:
            return None
        track = self._tracks.get(source.project_id)
        return track.snapshot if track else None

    # ------------------------------------------------------------------ other systems

    def _system_watch(self, key: SystemKey[object]) -> tuple[set[Path], set[Path]]:
        if key.name in self._active:
            return key.system().watch(self.project)
        return key.markers_watch(self.project)

    def _system_path(self, path: Path) -> bool:
        p = self.project
        return any(
            key.system().owns(p, path) if key.name in self._active else key.near(p, path)
            for key in registered()
        )

    def _load_system(self, key: SystemKey[object], now: datetime, errors: list[str]) -> None:
        """Load one system (core.systems); its ``rev`` moves when its data or findings
        changed. A failure keeps the last data and is reported in ``errors``."""
        system = key.system()
        before = self._systems.get(key.name, SystemView(key.name))
        try:
            loaded = system.load(self.project, self._configured, known=before.data is not None)
        except Exception as exc:  # keep the dashboard alive on a parser bug
            internal_failure(__name__, f"loading {system.title} raised", exc)
            errors.append(f"{system.title}: {type(exc).__name__}: {exc}")
            return
        if loaded is None:
            return
        findings = tuple(loaded.findings)
        if (loaded.data, findings) != (before.data, before.findings):
            self._systems[key.name] = SystemView(key.name, loaded.data, findings, before.rev + 1)
        rel = self.project.rel(loaded.path)
        status = loaded.status
        prev = self._other_status.get(rel)
        if status == "missing" and prev is not None and prev.status in {"ok", "vanished"}:
            status = "vanished"
        self._other_status[rel] = FileStatus(
            loaded.path,
            rel,
            key.name,
            status,
            stamp=FileStamp.of(loaded.path),
            checked_at=now,
            changed_at=now,
            last_ok_at=now if status == "ok" else (prev.last_ok_at if prev else None),
        )

    # ------------------------------------------------------------------ statuses

    def _file_statuses(self) -> dict[str, FileStatus]:
        out: dict[str, FileStatus] = {}
        for pid, t in self._tracks.items():
            shown = t.snapshot.version if t.snapshot is not None and t.snapshot.raw else None
            out[t.rel] = FileStatus(
                t.source.path,
                t.rel,
                "state",
                t.status,
                t.detail,
                project_id=pid,
                stamp=t.stamp,
                checked_at=t.checked_at,
                changed_at=t.changed_at,
                last_ok_at=t.last_ok_at,
                shown_version=shown,
            )
        out[self._hook_status.rel] = self._hook_status
        out.update(self._other_status)
        return out

    # ------------------------------------------------------------------ queries

    def snapshot(self, project_id: str | None = None) -> Snapshot | None:
        with self._lock:
            source = self.project.state_for(project_id)
            if source is None:
                return None
            track = self._tracks.get(source.project_id)
            return track.snapshot if track else None
