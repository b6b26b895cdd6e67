"""phasewatch.core.memory: the collector paused for a start-up, and started again."""

from __future__ import annotations

import gc

import phasewatch.core.memory as memory
import pytest


@pytest.fixture(autouse=True)
def _collector_restored():
    gc.unfreeze()  # (whatever an earlier test in this worker left)
    gc.enable()
    yield
    memory.resume_collector()
    gc.unfreeze()
    gc.enable()


def test_pause_and_resume_are_idempotent() -> None:
    memory.pause_collector()
    memory.pause_collector()
    assert not gc.isenabled()
    memory.resume_collector()
    assert gc.isenabled()
    gc.disable()  # someone else's choice now: resuming again does not undo it
    memory.resume_collector()
    assert not gc.isenabled()


def test_a_collector_switched_off_by_someone_else_is_left_off() -> None:
    gc.disable()
    memory.pause_collector()
    memory.end_startup(freeze=False)
    assert not gc.isenabled()


def _freed_by_the_end(freeze: bool) -> int:
    """Make a cycle (garbage), end the start-up; the objects its collections freed."""
    cycle: list[object] = []
    cycle.append(cycle)
    del cycle
    freed: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            freed.append(info["collected"])

    gc.callbacks.append(note)
    try:
        memory.end_startup(freeze)
    finally:
        gc.callbacks.remove(note)
    return sum(freed)


@pytest.mark.parametrize("freeze", [True, False])
def test_the_end_of_a_start_up_collects_its_garbage_then_freezes(freeze: bool) -> None:
    """Cycles made while the collector was paused are freed at the end of the start-up, not
    frozen with the objects that live on; the collector runs again."""
    memory.pause_collector()
    survivor = [object() for _ in range(10)]
    assert _freed_by_the_end(freeze) >= 1 and gc.isenabled()
    assert (gc.get_freeze_count() > 0) == freeze
    assert survivor


def _collectable(obj: object) -> bool:
    """Whether the collector's generations hold ``obj`` (a frozen object is in none)."""
    return any(o is obj for o in gc.get_objects())


def test_what_was_imported_is_frozen_and_the_end_collects_only_what_came_after() -> None:
    """freeze_imports (collector paused): what exists then leaves the collector's reach, so the
    full collection at the end of the start-up does not scan it again; garbage made after it
    is still freed."""
    memory.pause_collector()
    imported = [object()]  # a module's object, say
    assert _collectable(imported)
    memory.freeze_imports()
    assert not _collectable(imported)
    assert _freed_by_the_end(freeze=False) >= 1
    assert not _collectable(imported) and gc.isenabled()


def test_nothing_is_frozen_by_a_process_that_did_not_pause() -> None:
    kept = [object()]
    memory.freeze_imports()
    assert _collectable(kept)


def test_no_collection_at_the_end_of_a_start_up_that_did_not_pause() -> None:
    runs: list[str] = []
    gc.callbacks.append(lambda phase, _info: runs.append(phase))
    try:
        memory.end_startup(freeze=False)
    finally:
        gc.callbacks.pop()
    assert runs == [] and gc.isenabled()


@pytest.mark.parametrize(("argv", "paused"), [(["."], True), (["demo"], True), (["check"], False)])
def test_the_command_pauses_the_collector_for_the_dashboards_start_up(
    monkeypatch, argv: list[str], paused: bool
) -> None:
    """``phasewatch [PATH]`` and ``phasewatch demo`` pause it before importing textual (the app
    starts it again once its data shows); the headless commands leave it alone."""
    import sys

    import phasewatch.tui.cli as cli

    seen: list[bool] = []
    monkeypatch.setattr(cli, "main", lambda _argv: seen.append(gc.isenabled()) or 0)
    monkeypatch.setattr(sys, "argv", ["phasewatch", *argv])
    monkeypatch.setattr(gc, "freeze", lambda: None)  # (check freezes the test process's heap)
    assert cli.run() == 0
    assert seen == [not paused]
