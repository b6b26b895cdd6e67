"""The dashboard at size (issue 41, docs/performance.md#dashboard-size): past what a screen shows,
the pipeline, the location matrix and the findings list hold a bounded part, say how much there
is, and reach the rest from the keyboard; the state is parsed once and an unchanged one is not
audited again; a read in progress never holds the app's end."""

from __future__ import annotations

import asyncio
import json
import threading
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest
from phasewatch.core import snapshot as snapshot_module
from phasewatch.core.session import ProjectSession
from phasewatch.core.snapshot import Snapshot, evaluate
from phasewatch.core.sources import read_json
from phasewatch.tui.startup import in_daemon
from phasewatch.widgets._window import WINDOW_ROWS
from phasewatch.widgets.findings_list import FindingsList, by_severity, item_order, standing
from phasewatch.widgets.location_matrix import LocationMatrix
from phasewatch.widgets.pipeline import MAX_LINES, Pipeline, pipeline_content, pipeline_rows
from textual.app import App, ComposeResult

from tests import factories as F
from tests.helpers.files import settle

SRC = ".isdlc/state.json"


def many_phases(n: int, current: int | None = None) -> dict:
    """A feature state whose workflow has ``n`` phases (keys ``000000-phase`` ...), the phase
    ``current`` (default: the last) in progress, the ones before it completed."""
    current = n - 1 if current is None else current
    state = F.feature_state()
    names = [f"{k:06d}-phase" for k in range(n)]
    status = [
        "completed" if k < current else "in_progress" if k == current else "pending"
        for k in range(n)
    ]
    state["phases"] = {name: {"status": status[k]} for k, name in enumerate(names)}
    aw = state["active_workflow"]
    aw["phases"] = names
    aw["phase_status"] = dict(zip(names, status, strict=True))
    aw["current_phase"] = state["current_phase"] = names[current]
    aw["current_phase_index"] = current
    return state


def snap_of(n: int, current: int | None = None) -> Snapshot:
    return evaluate(many_phases(n, current), SRC)


NOW = datetime(2026, 1, 1, tzinfo=UTC)


# ---------------------------------------------------------------------- the pipeline


def test_a_long_pipeline_shows_a_window_and_counts_the_rest() -> None:
    snap = snap_of(10_000, current=5_000)
    text = pipeline_content(snap, NOW, 120).plain
    lines = text.split("\n")
    assert len(lines) <= MAX_LINES
    assert "005000-phase" in text  # the current phase is in the window
    shown = sum(1 for k in range(10_000) if f"{k:06d}-phase" in text)
    assert "… 4,995 earlier phases" in lines[0]
    later = 10_000 - 4_995 - shown
    assert lines[-1].startswith(f"… {later:,} more phases")


def test_a_pipeline_that_fits_shows_every_phase() -> None:
    snap = snap_of(12)
    text = pipeline_content(snap, NOW, 120).plain
    assert all(f"{k:06d}-phase" in text for k in range(12))
    assert "more phases" not in text and "earlier" not in text


def test_the_pipeline_builds_entries_for_the_window_only(monkeypatch) -> None:
    import phasewatch.widgets.pipeline as pipeline

    built: list[int] = []
    real = pipeline.phase_timing

    def counting(snap, key, status, now):
        built.append(1)
        return real(snap, key, status, now)

    monkeypatch.setattr(pipeline, "phase_timing", counting)
    snap = snap_of(10_000)
    pipeline_content(snap, NOW, 120)
    assert 0 < len(built) <= pipeline.WINDOW
    assert len(pipeline_rows(snap)) == 10_000


class PipelineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Pipeline()


async def test_the_clock_s_ticks_do_not_look_at_every_phase_again(monkeypatch) -> None:
    import phasewatch.widgets.pipeline as pipeline

    scans: list[int] = []
    real = pipeline.pipeline_rows
    monkeypatch.setattr(pipeline, "pipeline_rows", lambda snap: scans.append(1) or real(snap))
    snap = snap_of(5_000)
    app = PipelineApp()
    async with app.run_test(size=(120, 10)) as pilot:
        widget = app.query_one(Pipeline)
        widget.show(snap, NOW)
        for minute in range(1, 6):
            widget.tick(NOW.replace(minute=minute))
        await pilot.pause()
        assert scans == [1]
        assert "004999-phase" in widget.text and "earlier phases" in widget.text
        widget.show(snap_of(5_000, current=10), NOW)  # a new state: looked at again
        assert scans == [1, 1] and "000010-phase" in widget.text


# ---------------------------------------------------------------------- the matrix


class MatrixApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LocationMatrix()


def held(matrix: LocationMatrix) -> list[str]:
    table = matrix.table
    return [str(row.key.value) for row in table.ordered_rows]


def cursor_key(matrix: LocationMatrix) -> str:
    table = matrix.table
    return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)


async def test_a_long_matrix_holds_a_window_says_so_and_reaches_every_row() -> None:
    app = MatrixApp()
    async with app.run_test(size=(120, 30)) as pilot:
        matrix = app.query_one(LocationMatrix)
        app.set_focus(None)  # not driven by the user: the window follows the current phase
        await pilot.pause()
        matrix.show(snap_of(2_000, current=1_200).rows)
        await pilot.pause()
        assert matrix.table.row_count <= WINDOW_ROWS
        assert cursor_key(matrix) == "001200-phase"  # the current phase, in the window
        more = str(app.query_one("#matrix-more").render())
        assert "of 2,000 phases" in more and "more" in more and "before" in more
        matrix.table.focus()
        await pilot.press("home")
        assert cursor_key(matrix) == "000000-phase"
        assert held(matrix)[0] == "000000-phase"
        await pilot.press("end")
        assert cursor_key(matrix) == "001999-phase"
        await pilot.press("home")
        matrix.table.move_cursor(row=WINDOW_ROWS - 1)  # the window's last row
        await pilot.pause()
        for _ in range(5):  # one row at a time past it
            await pilot.press("down")
        assert cursor_key(matrix) == f"{WINDOW_ROWS + 4:06d}-phase"
        assert matrix.table.row_count <= WINDOW_ROWS
        await pilot.press("up")
        assert cursor_key(matrix) == f"{WINDOW_ROWS + 3:06d}-phase"
        await pilot.press("pagedown")  # (pages within the window as in any table)
        assert int(cursor_key(matrix)[:6]) > WINDOW_ROWS + 3
        assert matrix.select("001777-phase")
        assert cursor_key(matrix) == "001777-phase"
        assert matrix.table.row_count <= WINDOW_ROWS


async def test_a_matrix_that_fits_holds_every_row_and_no_note() -> None:
    app = MatrixApp()
    async with app.run_test(size=(120, 30)) as pilot:
        matrix = app.query_one(LocationMatrix)
        matrix.show(snap_of(15).rows)
        await pilot.pause()
        assert matrix.table.row_count == 15
        assert not app.query_one("#matrix-more").display


# ---------------------------------------------------------------------- the findings


class ListApp(App[None]):
    def compose(self) -> ComposeResult:
        yield FindingsList()


async def test_findings_of_a_long_state_are_held_as_a_window() -> None:
    snap = snap_of(1_000)
    items = by_severity(standing(snap.findings))
    assert len(items) > 3 * WINDOW_ROWS
    order = [i.key for i in sorted(items, key=item_order)]
    app = ListApp()
    async with app.run_test(size=(120, 30)) as pilot:
        flist = app.query_one(FindingsList)
        added = flist.show(items, emphasise_new=False)
        await pilot.pause()
        assert len(added) == len(items)  # new findings, all of them, held or not
        assert flist.table.row_count <= WINDOW_ROWS
        assert len(flist.items) <= WINDOW_ROWS  # the cells built: the window's only
        assert flist.keys == order[: flist.table.row_count]  # the first rows, in order
        more = str(app.query_one("#findings-more").render())
        assert f"rows 1-{WINDOW_ROWS} of {len(items):,} findings" in more
        flist.table.focus()
        await pilot.press("end")
        last = flist.selected
        assert last is not None and last.key == order[-1]
        await pilot.press("home")
        first = flist.selected
        assert first is not None and first.key == order[0]
        flist.table.move_cursor(row=WINDOW_ROWS - 1)  # the window's last row
        await pilot.pause()
        for _ in range(5):  # one row at a time past it
            await pilot.press("down")
        selected = flist.selected
        assert selected is not None and selected.key == order[WINDOW_ROWS + 4]
        assert flist.table.row_count <= WINDOW_ROWS
        assert flist.select(order[len(order) // 2])  # a jump to a finding far away
        selected = flist.selected
        assert selected is not None and selected.key == order[len(order) // 2]
        # and an update that adds nothing says nothing is new
        assert flist.show(items) == []


async def test_a_short_findings_list_has_no_note() -> None:
    items = by_severity(standing(snap_of(3).findings))
    app = ListApp()
    async with app.run_test(size=(120, 30)) as pilot:
        flist = app.query_one(FindingsList)
        flist.show(items, emphasise_new=False)
        await pilot.pause()
        assert flist.table.row_count == len({i.key for i in items})
        assert not app.query_one("#findings-more").display


# ---------------------------------------------------------------------- the core


def test_a_snapshot_grows_linearly_with_phases() -> None:
    """What a snapshot holds (model, rows, findings) per phase does not grow with the phases."""

    def size(n: int) -> int:
        state = many_phases(n)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            snap = evaluate(state, SRC)
            held = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert len(snap.rows) == n
        return held

    small, large = size(500), size(4_000)
    assert large < 8 * small * 1.25


def write_state(root: Path, state: dict) -> Path:
    (root / ".isdlc").mkdir(exist_ok=True)
    path = root / ".isdlc" / "state.json"
    path.write_text(json.dumps(state, indent=2))
    return settle(path)  # written before it is read: a stamp cache may keep it


def test_a_shared_read_parses_an_unchanged_file_once(tmp_path: Path, monkeypatch) -> None:
    import phasewatch.core.sources as sources

    path = write_state(tmp_path, many_phases(20))
    first = read_json(path, share=True)
    reads: list[Path] = []
    real = sources.read_regular
    monkeypatch.setattr(sources, "read_regular", lambda p, **k: reads.append(p) or real(p, **k))
    again = read_json(path, share=True)
    assert first.ok and again is first and reads == []  # the same parse, not read again
    assert read_json(path).data == first.data and read_json(path) is not first  # not shared
    state = many_phases(21)
    write_state(tmp_path, state)
    changed = read_json(path, share=True)
    assert changed is not first and len(changed.data["phases"]) == 21
    # a link to the very file read is not the file: read as any read takes it, not shared
    moved = tmp_path / "elsewhere.json"
    path.rename(moved)
    path.symlink_to(moved)
    reads.clear()
    linked = read_json(path, share=True)
    assert reads == [path]
    assert (linked.status, linked.data) == (read_json(path).status, read_json(path).data)


def test_an_unchanged_state_is_not_audited_again(tmp_path: Path, monkeypatch) -> None:
    path = write_state(tmp_path, many_phases(30))
    session = ProjectSession(tmp_path)
    update = session.refresh(None)
    snap = update.snapshot()
    assert snap is not None and len(snap.rows) == 30
    audits: list[int] = []
    real = snapshot_module.evaluate
    monkeypatch.setattr(
        snapshot_module, "evaluate", lambda *a, **k: audits.append(1) or real(*a, **k)
    )
    again = session.refresh([path]).snapshot()
    assert audits == []
    assert again is snap  # the same snapshot: what depends on it (offers) is not redone
    state = many_phases(30)
    state["state_version"] += 1
    write_state(tmp_path, state)
    session.refresh([path])
    assert audits == [1]


async def test_a_refresh_in_progress_never_holds_the_app_s_end() -> None:
    """The session's reads run in daemon threads: the interpreter's end does not wait for them
    (asyncio.to_thread's executor is joined when the loop closes)."""
    release = threading.Event()
    task = asyncio.ensure_future(in_daemon(release.wait, 30))
    await asyncio.sleep(0.05)
    threads = [t for t in threading.enumerate() if t.name == "phasewatch-refresh"]
    assert threads and all(t.daemon for t in threads)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    release.set()
    assert await in_daemon(sum, [1, 2, 3]) == 6
    with pytest.raises(ZeroDivisionError):
        await in_daemon(divmod, 1, 0)


async def test_the_overview_lists_the_findings_again_only_when_they_changed(
    tmp_path: Path, monkeypatch
) -> None:
    from phasewatch.tui.screens import OverviewScreen

    from tests.helpers.app import make_app, wait_until
    from tests.helpers.app import write_state as write_owner_state

    path = tmp_path / ".isdlc" / "state.json"
    write_owner_state(path, many_phases(300))
    app = make_app(tmp_path)
    shows: list[int] = []
    real = FindingsList.show
    monkeypatch.setattr(
        FindingsList, "show", lambda self, *a, **k: shows.append(1) or real(self, *a, **k)
    )
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.data_screens["overview"]
        assert isinstance(screen, OverviewScreen)
        await wait_until(pilot, lambda: screen.applied > 0 and screen.last_update is not None)
        update = screen.last_update
        assert update is not None
        before = len(shows)
        screen.apply_update(update)  # the same findings (a refresh of the log alone)
        assert len(shows) == before
        state = many_phases(301)
        state["state_version"] += 1
        write_owner_state(path, state)  # new findings: listed
        await wait_until(pilot, lambda: len(shows) > before)
        flist = screen.query_one(FindingsList)
        assert any("000300-phase" in key for key in flist._wanted)
