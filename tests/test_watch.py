"""phasewatch.core.watch: one watcher over parent directories, restarts on new directories, reconciliation.

Every wait is bounded (``asyncio.wait_for``) and event-driven: no blind sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from phasewatch.core.sources import FileStamp
from phasewatch.core.watch import WatchBatch, Watcher, nearest_existing_dir, polling_forced

TIMEOUT = 10.0


class Collector:
    """Runs ``watcher.batches()`` in a task and lets a test await a condition on the batches."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher
        self.batches: list[WatchBatch] = []
        self.stop = asyncio.Event()
        self.changed = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        async for batch in self.watcher.batches(self.stop):
            self.batches.append(batch)
            self.changed.set()

    async def start(self) -> None:
        self.task = asyncio.create_task(self._run())
        await self.wait_for(lambda: any(b.initial for b in self.batches))

    async def wait_for(self, predicate, timeout: float = TIMEOUT) -> None:
        async def loop() -> None:
            # wake on every batch, and every 20 ms for conditions on the watcher's own state
            while not predicate():
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 0.02)

        await asyncio.wait_for(loop(), timeout)

    def paths(self) -> set[Path]:
        return set().union(*(b.paths for b in self.batches))

    async def close(self) -> None:
        self.stop.set()
        if self.task is not None:
            await asyncio.wait_for(self.task, TIMEOUT)


@contextlib.asynccontextmanager
async def collecting(watcher: Watcher) -> AsyncIterator[Collector]:
    c = Collector(watcher)
    await c.start()
    try:
        yield c
    finally:
        await c.close()


def write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_bytes(b'{"state_version": 1}')
    return tmp_path


async def test_initial_batch_then_plain_write(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=60)
    async with collecting(watcher) as c:
        assert c.batches[0].initial and not c.batches[0].paths
        assert project / ".isdlc" in watcher.watched_dirs
        state.write_bytes(b'{"state_version": 2}')
        await c.wait_for(lambda: state in c.paths())
        assert any(b.origin == "events" for b in c.batches if state in b.paths)


async def test_atomic_replace_is_seen_every_time(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=60)
    async with collecting(watcher) as c:
        for version in range(2, 5):
            before = len(c.batches)
            write_atomic(state, b'{"state_version": %d}' % version)
            await c.wait_for(lambda b=before: any(state in x.paths for x in c.batches[b:]))
        # the temp file in the same directory is not a target: never reported
        assert all(p.name != ".state.json.tmp" for p in c.paths())


async def test_delete_and_recreate(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=60)
    async with collecting(watcher) as c:
        state.unlink()
        await c.wait_for(lambda: state in c.paths())
        before = len(c.batches)
        state.write_bytes(b'{"state_version": 9}')
        await c.wait_for(lambda: any(state in x.paths for x in c.batches[before:]))


async def test_file_in_directory_that_appears_later(tmp_path: Path) -> None:
    target = tmp_path / ".isdlc" / "projects" / "api" / "state.json"
    watcher = Watcher([target], root=tmp_path, reconcile_interval=60)
    async with collecting(watcher) as c:
        assert watcher.watched_dirs == {tmp_path}
        (tmp_path / ".isdlc").mkdir()
        await c.wait_for(lambda: tmp_path / ".isdlc" in watcher.watched_dirs)
        (tmp_path / ".isdlc" / "projects" / "api").mkdir(parents=True)
        # a directory two levels down appeared: reconciliation/restarts must catch up
        await c.wait_for(
            lambda: (
                tmp_path / ".isdlc" / "projects" / "api" in watcher.watched_dirs
                or target in c.paths()
            )
        )
        target.write_bytes(b"{}")
        await c.wait_for(lambda: target in c.paths())


async def test_watched_dirs_entries(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    watcher = Watcher([tmp_path / "PLUGINS.md"], [plugins], root=tmp_path, reconcile_interval=60)
    async with collecting(watcher) as c:
        (plugins / "Reverb").mkdir()
        await c.wait_for(lambda: plugins / "Reverb" in c.paths())
        assert any(b.dirs_changed or b.paths for b in c.batches[1:])
        (tmp_path / "unrelated.txt").write_text("x")  # not a target: filtered out
        (tmp_path / "PLUGINS.md").write_text("| Plugin Name |")
        await c.wait_for(lambda: tmp_path / "PLUGINS.md" in c.paths())
        assert tmp_path / "unrelated.txt" not in c.paths()


def _never_reports():
    """A fake ``awatch`` that reports nothing (events suppressed) until told to stop."""

    async def fake(*dirs, stop_event, **kwargs):
        await stop_event.wait()
        return
        yield  # pragma: no cover (makes this an async generator)

    return fake


async def test_reconciliation_catches_changes_without_events(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    log = project / ".isdlc" / "hook-activity.log"
    watcher = Watcher([state, log], root=project, reconcile_interval=0.1, awatch=_never_reports())
    async with collecting(watcher) as c:
        # same size, new content: only mtime_ns (and maybe inode) tell
        st = state.stat()
        state.write_bytes(b'{"state_version": 7}')
        os.utime(state, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000))
        await c.wait_for(lambda: state in c.paths())
        log.write_text('{"event":"allow"}\n')  # a file that did not exist at start
        await c.wait_for(lambda: log in c.paths())
        assert {b.origin for b in c.batches if b.paths} == {"reconcile"}
        assert watcher.event_batches == 0


async def test_reconcile_only_mode(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=0.05, use_events=False)
    assert watcher.mode == "reconciling"
    async with collecting(watcher) as c:
        write_atomic(state, b'{"state_version": 123}')
        await c.wait_for(lambda: state in c.paths())


async def test_own_write_is_tagged(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=60)
    async with collecting(watcher) as c:
        write_atomic(state, b'{"state_version": 2, "ours": true}')
        watcher.expect_own_write(state, FileStamp.of(state))
        await c.wait_for(lambda: any(state in b.own for b in c.batches))
        before = len(c.batches)
        state.write_bytes(b'{"state_version": 3, "theirs": true}')
        await c.wait_for(lambda: any(state in b.paths for b in c.batches[before:]))
        assert not any(state in b.own for b in c.batches[before:])


async def test_set_targets_restarts_on_new_directory(tmp_path: Path) -> None:
    first = tmp_path / "a.json"
    other = tmp_path / "sub" / "b.json"
    (tmp_path / "sub").mkdir()
    watcher = Watcher([first], root=tmp_path, reconcile_interval=60)
    async with collecting(watcher) as c:
        assert watcher.watched_dirs == {tmp_path}
        watcher.set_targets([first, other])
        await c.wait_for(lambda: tmp_path / "sub" in watcher.watched_dirs, timeout=TIMEOUT)
        other.write_text("{}")
        await c.wait_for(lambda: other in c.paths())


async def test_force_polling_env(monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    monkeypatch.setenv("WATCHFILES_FORCE_POLLING", "1")
    assert polling_forced()
    state = project / ".isdlc" / "state.json"
    watcher = Watcher([state], root=project, reconcile_interval=0.5, poll_delay_ms=50)
    assert watcher.mode == "polling"
    async with collecting(watcher) as c:
        write_atomic(state, b'{"state_version": 77}')
        await c.wait_for(lambda: state in c.paths())


async def test_stop_event_ends_iteration(project: Path) -> None:
    watcher = Watcher([project / ".isdlc" / "state.json"], root=project)
    c = Collector(watcher)
    await c.start()
    c.stop.set()
    await asyncio.wait_for(c.task, TIMEOUT)  # type: ignore[arg-type]
    assert c.task is not None and c.task.done() and c.task.exception() is None


def test_nearest_existing_dir(tmp_path: Path) -> None:
    assert nearest_existing_dir(tmp_path / "x" / "y", tmp_path) == tmp_path
    (tmp_path / "x").mkdir()
    assert nearest_existing_dir(tmp_path / "x" / "y", tmp_path) == tmp_path / "x"
    assert nearest_existing_dir(Path("/"), tmp_path) is None


async def test_again_delivers_the_paths_as_a_batch_without_a_change(project: Path) -> None:
    state = project / ".isdlc" / "state.json"
    watcher = Watcher({state}, {project / ".isdlc"}, root=project, reconcile_interval=60)
    async with collecting(watcher) as c:
        watcher.again([state])
        await c.wait_for(lambda: any(b.origin == "more" for b in c.batches))
        batch = next(b for b in c.batches if b.origin == "more")
        assert batch.paths == {state} and batch.origins == {"more"}


def _reports_once(path: Path, held: Path, release: asyncio.Event):
    """A fake ``awatch`` that reports one change of ``path`` (files are changing), then holds
    everything back (a log appended every few ms never goes quiet) until ``release``: then
    ``path`` and ``held``."""

    async def fake(*dirs, stop_event, **kwargs):
        yield {(2, str(path))}
        await release.wait()
        yield {(2, str(path)), (2, str(held))}
        await stop_event.wait()

    return fake


async def test_a_state_write_does_not_wait_for_the_log_to_go_quiet(project: Path) -> None:
    """Issue 41 item 4: while files change, the documents are looked at on their own, so a state
    write is reported although watchfiles holds its batch back; the log is not (it waits)."""
    state = project / ".isdlc" / "state.json"
    log = project / ".isdlc" / "hook-activity.log"
    log.write_text('{"event":"allow"}\n')
    release = asyncio.Event()
    fake = _reports_once(log, state, release)
    watcher = Watcher([state, log], root=project, reconcile_interval=3600, awatch=fake)
    async with collecting(watcher) as c:
        await c.wait_for(lambda: log in c.paths())
        with open(log, "a") as fh:
            fh.write('{"event":"allow"}\n')  # held back by the fake, as by a storm
        state.write_bytes(b'{"state_version": 2, "x": 1}')
        await c.wait_for(lambda: state in c.paths())
        assert watcher.quick_batches >= 1
        assert sum(log in b.paths for b in c.batches) == 1  # the log waits for watchfiles
        before = len(c.batches)
        release.set()  # watchfiles' batch, with the state write already reported: the log only
        await c.wait_for(lambda: len(c.batches) > before)
        assert all(state not in b.paths for b in c.batches[before:])
