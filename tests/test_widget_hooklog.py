"""Pilot tests of the virtual hook-log view (widgets/hooklog_view.py)."""

from __future__ import annotations

from datetime import datetime
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.hooklog import HookRecord, parse_line
from phasewatch.widgets.chooser import Chooser
from phasewatch.widgets.hooklog_view import HookLogScreenBody, HookLogView, HookStats
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

HOOKS = ["gate-blocker", "iteration-corridor", "constitution-validator", "phase-loop-controller"]
EVENTS = ["allow", "block", "warn", "same-phase-bypass", "timeout_warning"]
PHASES = ["05-test-strategy", "06-implementation", None]


def rec(i: int, *, hook=None, event=None, phase="", reason=None, agent="software-developer"):
    return HookRecord(
        ts=f"2026-03-04T09:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z",
        hook=hook or HOOKS[i % len(HOOKS)],
        event=event or EVENTS[i % len(EVENTS)],
        phase=PHASES[i % len(PHASES)] if phase == "" else phase,
        agent=agent,
        reason=f"reason {i}" if reason is None else reason,
        line_no=i + 1,
        offset=i * 100,
    )


def batch(n: int, start: int = 0) -> list[HookRecord]:
    return [rec(i) for i in range(start, start + n)]


class ViewApp(App):
    def compose(self) -> ComposeResult:
        yield HookLogView()


class BodyApp(App):
    def compose(self) -> ComposeResult:
        yield HookLogScreenBody()


def screen_text(view: HookLogView) -> list[str]:
    """The plain text of the rows currently painted in the view."""
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


async def test_follow_mode_shows_newest_records_at_the_bottom():
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        view.append(batch(500))
        await pilot.pause()
        assert view.follow
        rows = [line for line in screen_text(view) if line.strip()]
        assert "reason 499" in rows[-1]
        assert "reason 498" in rows[-2]
        view.append([rec(500), rec(501)])
        await pilot.pause()
        rows = [line for line in screen_text(view) if line.strip()]
        assert "reason 501" in rows[-1]
        assert view.is_vertical_scroll_end


async def test_append_while_scrolled_up_keeps_the_scroll_position():
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        view.append(batch(1000))
        await pilot.pause()
        view.focus()
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        assert not view.follow  # scrolling up released follow mode
        before_y = view.scroll_y
        before = screen_text(view)
        view.append(batch(300, start=1000))
        await pilot.pause()
        assert view.scroll_y == before_y
        assert screen_text(view) == before
        assert not any("reason 1299" in line for line in screen_text(view))
        # the follow key jumps back to the end and follows again
        await pilot.press("f")
        await pilot.pause()
        assert view.follow
        assert "reason 1299" in [x for x in screen_text(view) if x.strip()][-1]


async def test_filters_show_exactly_the_matching_records():
    records = batch(2000)
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        view.append(records[:700])
        view.append(records[700:])  # two batches: the index is extended incrementally
        await pilot.pause()

        def expect(pred) -> list[int]:
            return [i for i, r in enumerate(records) if pred(r)]

        view.set_filter(hooks={"gate-blocker"})
        assert view.visible_records() == expect(lambda r: r.hook == "gate-blocker")
        view.set_filter(events={"block", "warn"})
        assert view.visible_records() == expect(lambda r: r.event in {"block", "warn"})
        view.set_filter(phases={None})
        assert view.visible_records() == expect(lambda r: r.phase is None)
        view.set_filter(
            hooks={"iteration-corridor"}, events={"block"}, phases={"06-implementation"}
        )
        combined = expect(
            lambda r: (
                r.hook == "iteration-corridor"
                and r.event == "block"
                and r.phase == "06-implementation"
            )
        )
        assert combined and view.visible_records() == combined
        view.set_filter(text="REASON 12")  # case-insensitive substring of the reason
        assert view.visible_records() == expect(lambda r: "reason 12" in r.reason)
        view.set_filter(text="CORRIDOR")  # matches the hook name
        assert view.visible_records() == expect(lambda r: "corridor" in r.hook)
        view.set_filter(text="no such thing")
        assert view.visible_records() == []
        # appends keep honouring the filter
        view.set_filter(events={"block"})
        view.append([rec(5000, event="block"), rec(5001, event="allow")])
        assert view.visible_records()[-1] == 2000
        assert 2001 not in view.visible_records()
        view.set_filter()
        assert view.shown == view.total == 2002
        await pilot.pause()
        rows = [line for line in screen_text(view) if line.strip()]
        assert "reason 5001" in rows[-1]


async def test_filter_bar_drives_the_view():
    app = BodyApp()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        body.append(batch(400))
        await pilot.pause()
        select = app.query_one("#hooklog-event", Chooser)
        select.value = "block"
        await pilot.pause()
        view = body.view
        assert view.filter.events == frozenset({"block"})
        assert view.shown == sum(1 for i in range(400) if EVENTS[i % 5] == "block")
        app.query_one("#hooklog-search", Input).value = "reason 10"
        await pilot.pause()
        assert {view.record_fields(i)["reason"] for i in view.visible_records()} <= {
            f"reason {i}" for i in range(400) if "reason 10" in f"reason {i}"
        }
        assert view.visible_records()
        status = str(app.query_one("#hooklog-status", Static).render())
        assert f"{view.shown:,} of 400" in status and "filtered" in status


async def test_escape_leaves_the_search_box_then_clears_the_filters():
    app = BodyApp()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        body.append(batch(50))
        body.view.focus()
        await pilot.press("slash")
        search = app.query_one("#hooklog-search", Input)
        assert search.has_focus
        await pilot.press(*"reason 1")
        await pilot.press("escape")
        assert not search.has_focus and body.view.has_focus
        assert search.value == "reason 1"  # the filter stays
        await pilot.press("escape")
        assert search.value == ""


async def test_a_text_filter_over_a_large_log_lands_from_its_thread():
    """Past BACKGROUND_ROWS the text filter runs in a thread: keys typed meanwhile make the
    earlier results moot, and the status line says the filter when it lands."""
    from phasewatch.widgets.hooklog_view import BACKGROUND_ROWS

    n = BACKGROUND_ROWS + 1000
    app = BodyApp()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        body.append(batch(n))
        await pilot.pause()
        body.action_focus_search()
        await pilot.press(*"reason 4999")
        await app.workers.wait_for_complete()
        await pilot.pause()
        view = body.view
        assert view.filter.text == "reason 4999"
        assert view.visible_records() == [i for i in range(n) if "reason 4999" in f"reason {i}"]
        status = str(app.query_one("#hooklog-status", Static).render())
        assert f"{view.shown:,} of {n:,} records" in status and "filtered" in status


async def test_counts_and_stats_widget():
    app = BodyApp()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        records = batch(100)
        body.append(records)
        await pilot.pause()
        hooks, events = body.view.counts()
        assert hooks == {h: sum(1 for r in records if r.hook == h) for h in HOOKS}
        assert events == {e: sum(1 for r in records if r.event == e) for e in EVENTS}
        body.view.set_filter(events={"block"})
        _, filtered_events = body.view.counts(filtered=True)
        assert filtered_events == {"block": 20}
        stats = app.query_one(HookStats)
        assert stats.events == events
        text = str(stats.render())
        assert "block 20" in text and "gate-blocker 25" in text
        body.view.set_filter(events={"no-such-event"})  # nothing visible: no counts, no error
        assert body.view.counts(filtered=True) == ({}, {})


async def test_rotation_marker_is_shown_and_earlier_records_kept():
    app = BodyApp()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        body.append(batch(20))
        body.note_rotation(500, when=datetime(2026, 3, 4, 9, 30, 15))
        body.append(batch(3, start=20))
        await pilot.pause()
        view = body.view
        rows = [line for line in screen_text(view) if line.strip()]
        marker = [line for line in rows if "log rotated by its owner at 09:30:15" in line]
        assert marker and "earlier lines kept from this session" in marker[0]
        assert any("reason 0" in line for line in rows)  # earlier records still there
        assert "reason 22" in rows[-1]
        assert "23 of 23 records" in str(app.query_one("#hooklog-status", Static).render())
        # the marker survives filtering; counts do not include it
        view.set_filter(events={"block"})
        assert any(view.record_fields(i)["marker"] for i in view.visible_records())
        hooks, _ = view.counts()
        assert sum(hooks.values()) == 23
        assert "log rotated by its owner at 09:30:15" in str(app.query_one(HookStats).render())


async def test_invalid_lines_are_dimmed_with_their_error():
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        bad = parse_line(b'{"ts": "x", broken', line_no=7, offset=0)
        assert not bad.valid
        view.append([rec(0), bad])
        await pilot.pause()
        line = view.render_line(1)  # two records: they fill the first two rows
        assert "line 7: not JSON" in line.text and "broken" in line.text
        invalid_style = view.get_component_rich_style("hooklog--invalid")
        assert any(
            seg.style and seg.style.italic == invalid_style.italic and "not JSON" in seg.text
            for seg in line
        )
        view.set_filter(text="broken")  # the raw text of invalid lines is searchable
        assert view.visible_records() == [1]


async def test_blocks_and_warnings_stand_out():
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        view.append([rec(0, event="block"), rec(1, event="allow"), rec(2, event="warn")])
        await pilot.pause()
        error = view.get_component_rich_style("hooklog--block").color
        warning = view.get_component_rich_style("hooklog--warn").color

        def event_color(record: int):
            strip = view._render_record(record)
            seg = next(s for s in strip if s.text.strip() in {"block", "allow", "warn"})
            return seg.style.color

        assert event_color(0) == error
        assert event_color(2) == warning
        assert event_color(1) not in {error, warning}


async def test_hostile_reason_renders_literally_and_runs_nothing():
    hostile = ["[/]", "[@click=app.quit]x[/]", "[TODO] fix", "[b]bold[/b]"]
    quit_called = []

    class Harness(App):
        def compose(self) -> ComposeResult:
            yield HookLogScreenBody()

        def action_quit(self) -> None:  # pragma: no cover - must never run
            quit_called.append(True)

    app = Harness()
    async with app.run_test(size=(120, 36)) as pilot:
        body = app.query_one(HookLogScreenBody)
        records = [
            rec(i, reason=text, hook=f"hook{text}", event=EVENTS[0])
            for i, text in enumerate(hostile)
        ]
        body.append(records)
        await pilot.pause()
        view = body.view
        rows = [line for line in screen_text(view) if line.strip()]
        for text, row in zip(hostile, rows[-len(hostile) :], strict=True):
            assert row.rstrip().endswith(text)
        # click every painted row: nothing runs
        for y in range(len(rows)):
            await pilot.click(HookLogView, offset=(60, y))
        await pilot.pause()
        assert not quit_called
        # the stats show the hostile hook names literally too (the filter lists: test_widget_chooser)
        assert "hook[@click=app.quit]x[/]" in str(app.query_one(HookStats).render())
        assert app.is_running


async def test_a_100k_batch_is_accepted_and_scrolls():
    records = batch(100_000)
    app = ViewApp()
    async with app.run_test(size=(120, 36)) as pilot:
        view = app.query_one(HookLogView)
        view.append(records)
        await pilot.pause()
        assert view.total == 100_000
        rows = [line for line in screen_text(view) if line.strip()]
        assert "reason 99999" in rows[-1]
        view.focus()
        await pilot.press("home")
        await pilot.pause()
        assert not view.follow
        assert "reason 0" in screen_text(view)[0]
        view.set_filter(events={"block"}, text="reason 9999")  # large: run in a thread
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert view.filter.text == "reason 9999"
        assert view.visible_records() == [
            i for i, r in enumerate(records) if r.event == "block" and "reason 9999" in r.reason
        ]
        view.clear()
        assert view.total == 0 and view.shown == 0


# ---------------------------------------------------------------------------- column search


@settings(max_examples=200)
@given(
    batches=st.lists(
        st.lists(st.one_of(st.none(), st.text(alphabet="abAB \x00é", max_size=6)), max_size=30),
        min_size=1,
        max_size=4,
    ),
    needle=st.text(alphabet="abAB é", min_size=1, max_size=3),
)
def test_column_search_matches_the_naive_definition(batches, needle):
    """The column search finds exactly the values that contain the needle, case-insensitively,
    across ingestion batches; and the record mask built from those ids marks exactly the records
    holding them (also past 256 values, where ids no longer fit a byte)."""
    from phasewatch.core.hooklog.store import _Column

    column = _Column()
    records: list[str | None] = []
    for batch in batches:
        column.extend(batch)
        records.extend(batch)
        column.ids_matching(needle.lower())  # build the haystack between batches too
    filler = [f"x{i}" for i in range(300)] if len(column.values) < 300 else []
    column.extend(filler)
    records.extend(filler)
    low = needle.lower()
    expected = {i for i, v in enumerate(column.values) if low in ("" if v is None else v.lower())}
    ids = column.ids_matching(low)
    assert ids == expected
    mask = column.mask(ids)
    assert list(mask) == [int(column.ids[v] in expected) for v in records]
    assert column.mask(ids, start=len(records) // 2) == mask[len(records) // 2 :]


def test_column_keeps_its_ids_when_it_outgrows_one_byte() -> None:
    """Regression: past 256 distinct values the ids move from a bytearray to array('I'); the
    bytes were taken as raw machine words (a crash, or four ids packed into one)."""
    from phasewatch.core.hooklog.store import _Column

    column = _Column()
    early = ["a", "b", "c", "a", "b"]  # 5 records: not a multiple of 4 either
    column.extend(early)
    late = [f"reason {i}" for i in range(400)]
    column.extend(late)
    assert [column.value(i) for i in range(len(early) + len(late))] == early + late


# ---------------------------------------------------------------------------- prepending


def _fields(view: HookLogView) -> list[dict]:
    return [view.record_fields(i) for i in range(view.total)]


def _naive(records: list[HookRecord], f: dict) -> list[int]:
    def passes(r: HookRecord) -> bool:
        if "hooks" in f and r.hook not in f["hooks"]:
            return False
        if "events" in f and r.event not in f["events"]:
            return False
        if "phases" in f and r.phase not in f["phases"]:
            return False
        needle = (f.get("text") or "").lower()
        texts = (r.hook, r.agent, r.phase, r.reason, r.error, r.raw)
        return not needle or any(needle in (v or "").lower() for v in texts)

    return [i for i, r in enumerate(records) if passes(r)]


@settings(max_examples=60)
@given(
    n=st.integers(0, 400),
    cuts=st.lists(st.integers(0, 400), max_size=6),
    filters=st.lists(
        st.sampled_from(
            [
                {},
                {"hooks": {"gate-blocker"}},
                {"events": {"block", "warn"}},
                {"phases": {None}},
                {"text": "reason 1"},
                {"text": "not json"},  # matches invalid lines only
                {"text": "réason"},  # non-ASCII: every reason is a candidate
                {"text": '\u00e9 "q'},  # escaped in the raw bytes
                {"text": "gate"},  # in a hook name: found from the columns
                {"text": "reason"},  # a key's name as well: only a value counts
                {"text": "null"},  # a null value's bytes, not its text
            ]
        ),
        min_size=1,
        max_size=3,
    ),
)
def test_appending_parts_equals_one_append_and_the_naive_filter(n, cuts, filters):
    """A log read in parts, under a filter set at any time: the view holds and shows exactly
    what one append of the whole log gives (invalid lines and their errors included), and the
    rows a filter shows are those the naive definition picks (the text filter scans raw bytes
    first: escapes, non-ASCII and controls must not hide a match)."""
    records = [
        parse_line(b"not json " + str(i).encode(), i + 1, i * 100)
        if i % 37 == 5
        else rec(i, reason=f'R\u00c9ASON {i} \u00e9 "q" \\')
        if i % 11 == 3
        else rec(i)
        for i in range(n)
    ]
    bounds = sorted({0, n, *(min(c, n) for c in cuts)})
    parts = [records[a:b] for a, b in pairwise(bounds)]
    whole = HookLogView()
    whole.append(records)
    pieces = HookLogView()
    for k, part in enumerate(parts):
        pieces.set_filter(**filters[k % len(filters)])
        pieces.append(part)
    for f in filters:
        pieces.set_filter(**f)
        whole.set_filter(**f)
        assert pieces.visible_records() == whole.visible_records() == _naive(records, f)
        assert pieces.shown == whole.shown
    assert _fields(pieces) == _fields(whole)
    assert pieces.counts() == whole.counts()


_LINE = (
    '{{"ts":"2026-03-04T09:00:0{i}.000Z","hook":"{hook}","event":"{event}","phase":null,'
    '"agent":"dev","reason":{reason}}}'
)
_REASONS = [
    "null",
    '"V7: state_version 1 < disk 3"',
    '"ok } done"',
    '"quote-free: a, b"',
    '""',
    '"x \\" y"',
    '"caf\u00e9 Z"',
]


@settings(max_examples=120)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["gate-blocker", "z-hook"]),
            st.sampled_from(["allow", "block"]),
            st.sampled_from(_REASONS),
            st.booleans(),
        ),
        max_size=40,
    ),
    needle=st.sampled_from(
        [
            "v7",
            "state",
            '"',
            "}",
            "done",
            "reason",
            ":",
            "null",
            "z",
            "allow",
            "gate",
            "a, b",
            "caf\u00e9",
            "dev",
            "x",
            '" y',
        ]
    ),
    copy=st.sampled_from(["file", "copy", "both"]),
    chunk=st.sampled_from([64, 300, 1 << 20]),
)
def test_property_text_filter_over_read_lines_matches_the_naive_definition(
    tmp_path_factory, rows, needle, copy, chunk
):
    """Lines read by the tailer (the owner's shape confirmed from the bytes, the others
    parsed): a text filter picks exactly the rows the naive definition picks, read back from
    the file, from the store's copy or from both, scanned in one part or in many (on the
    threads)."""
    from unittest.mock import patch

    from phasewatch.core.hooklog import HookLogTailer
    from phasewatch.core.hooklog import store as store_module
    from phasewatch.core.hooklog.store import HookFilter, HookStore

    lines = [
        _LINE.format(i=i % 10, hook=h, event=e, reason=r) if ok else f"junk {r} {h}"
        for i, (h, e, r, ok) in enumerate(rows)
    ]
    path = tmp_path_factory.mktemp("filter") / "log"
    path.write_bytes("".join(x + "\n" for x in lines).encode())
    store = HookStore(path)
    gen = store.file_generation((path.stat().st_dev, path.stat().st_ino))
    tailer = HookLogTailer(path, max_read=256)  # several batches: "both" reads them from both
    for k, batch in enumerate(tailer.read_all().batches):
        store.fill(batch, gen=0 if copy == "copy" or (copy == "both" and k % 2) else gen)
    records = [parse_line(x, i + 1) for i, x in enumerate(lines)]
    with patch.object(store_module, "SCAN_CHUNK", chunk):
        mask = store.mask(HookFilter(text=needle), 0, store.filled) or b""
    assert [i for i, m in enumerate(mask) if m] == _naive(records, {"text": needle})


_BYTES = st.sampled_from(b'aAzZ@`[{-_ 7:\x80\xc3\xa9\xe0\xc0\n"')


@settings(max_examples=300)
@given(
    data=st.lists(_BYTES, max_size=200).map(bytes),
    needle=st.lists(_BYTES, min_size=1, max_size=6).map(bytes),
)
def test_find_all_matches_find_in_the_lower_cased_bytes(data, needle):
    """The filter's raw search (numpy, case folded without a lower-cased copy) finds exactly
    where ``data.lower()`` holds ``needle``, overlaps included: bytes that differ from a letter
    by the case bit only (@ and `, [ and {) and non-ASCII bytes are not letters."""
    from phasewatch.core.hooklog.store import _find_all

    needle = needle.lower()
    low = data.lower()
    want = [i for i in range(len(data)) if low.startswith(needle, i)]
    assert _find_all(data, needle).tolist() == want


def _file_store(tmp_path, reasons: list[str], max_read: int | None = None):  # type: ignore[no-untyped-def]
    """A log file of owner lines with these reasons (JSON values): an empty store on it, the
    file's generation in the store, and the file's lines read as batches."""
    from phasewatch.core.hooklog import HookLogTailer
    from phasewatch.core.hooklog.store import HookStore

    lines = [
        _LINE.format(i=i % 10, hook="gate-blocker", event="allow", reason=r)
        for i, r in enumerate(reasons)
    ]
    path = tmp_path / "log"
    path.write_bytes("".join(x + "\n" for x in lines).encode())
    store = HookStore(path)
    gen = store.file_generation((path.stat().st_dev, path.stat().st_ino))
    tailer = HookLogTailer(path) if max_read is None else HookLogTailer(path, max_read=max_read)
    return store, gen, tailer.read_all().batches


def test_text_filter_reads_rows_from_the_file_and_from_the_copy(tmp_path) -> None:
    """Rows of one store kept two ways (read back from the file, or from the store's copy of
    lines no longer in it): each is scanned from where it is kept."""
    from phasewatch.core.hooklog.store import HookFilter

    store, gen, batches = _file_store(tmp_path, [f'"ok }} done {i}"' for i in range(12)], 256)
    assert len(batches) == 12
    for k, batch in enumerate(batches):
        store.fill(batch, gen=0 if k % 2 else gen)
    assert list(store.mask(HookFilter(text="DONE"), 0, store.filled)) == [1] * 12
    assert list(store.mask(HookFilter(text="done 7"), 0, store.filled)) == [0] * 7 + [1] + [0] * 4


def test_a_text_scan_stops_at_its_next_part_once_a_newer_filter_is_wanted(tmp_path) -> None:
    """The filter's scan starts at the first key (no wait for a pause in the typing), so each
    part asks whether it is still wanted: once it is not, the scan stops (``Moot``) and the
    parts after it read nothing; while it is, the result is the one without the question."""
    from unittest.mock import patch

    import pytest
    from phasewatch.core.hooklog import store as store_module
    from phasewatch.core.hooklog.store import HookFilter, Moot

    store, gen, batches = _file_store(tmp_path, [f'"ok done {i}"' for i in range(200)])
    for batch in batches:
        store.fill(batch, gen=gen)
    f = HookFilter(text="done 1")
    asked: list[int] = []

    def wanted() -> bool:  # a newer filter is typed while the third part is asked
        asked.append(1)
        return len(asked) < 3

    scanned = patch.object(store_module, "_reason_hits", wraps=store_module._reason_hits)
    with patch.object(store_module, "SCAN_CHUNK", 256), scanned as parts:  # a part per line or two
        full = store.mask(f, 0, store.filled, lambda: True)
        n_parts = parts.call_count
        parts.reset_mock()
        with pytest.raises(Moot):
            store.mask(f, 0, store.filled, wanted)
    assert n_parts > 50
    assert parts.call_count <= 2  # (the mask's own question, then two parts on two threads)
    assert full == store.mask(f, 0, store.filled)
    assert [i for i, m in enumerate(full or b"") if m] == [
        i for i in range(200) if "done 1" in f"ok done {i}"
    ]
