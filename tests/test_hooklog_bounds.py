"""A day beside a rotating hook log stays within the store's caps (issue 41 item 2): the oldest
rows are forgotten, the rest read back exactly, and the first row says how many went."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from phasewatch.core.hooklog import store as store_module
from phasewatch.core.hooklog.store import KIND_MARKER, HookFilter
from phasewatch.core.session import ProjectSession
from phasewatch.core.simulate.files import HookLog, render_state, write_truncate

from tests import factories as F


class Tick:
    def __init__(self) -> None:
        self.t = datetime(2026, 3, 4, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


def day(tmp_path: Path, monkeypatch, lines: int, every: int) -> tuple[ProjectSession, list]:
    """``lines`` appended beside a session, read every ``every`` lines, the log rotated at
    4 KiB to its newest 10 lines (the owner's way, small); the store's copy capped at 8 KiB."""
    monkeypatch.setattr(store_module, "COPY_CAP", 8 * 1024)
    state = tmp_path / ".isdlc" / "state.json"
    state.parent.mkdir(parents=True)
    write_truncate(state, render_state(F.feature_state()))
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=4096, keep_lines=10)
    session = ProjectSession(tmp_path, clock=Tick())
    update = session.refresh()
    for i in range(lines):
        event = "block" if i % 7 == 0 else "allow"
        hook = f"hook-{i % 3}"
        log.append(F.ts(i), hook, event, "05-test-strategy", "x", f"reason {i:05d}")
        if i % every == every - 1:
            update = session.refresh({log.path})
    return session, update


def test_the_copied_lines_stay_within_the_cap_and_read_back_exactly(tmp_path, monkeypatch):
    _session, u = day(tmp_path, monkeypatch, 1500, 5)
    store = u.hooks.store
    assert store is not None
    assert len(store._copy) <= 8 * 1024  # the copy of the rotated-away lines
    assert store.forgotten > 0 and store.kind(0) == KIND_MARKER
    marker = store.marker(0)
    assert marker is not None and f"{store.forgotten:,} earlier lines" in marker.text
    reasons = [store.record(r).reason for r in range(store.count) if store.marker(r) is None]
    first = int(reasons[0].split()[-1])
    # every line after the forgotten ones, once, in order, read from the copy
    assert reasons == [f"reason {i:05d}" for i in range(first, 1500)]
    assert store.forgotten == first  # the notice counts lines, not the rotation notices
    lines = [store.record(r).line_no for r in range(store.count) if store.marker(r) is None]
    assert lines == sorted(lines) and len(set(lines)) == len(lines)
    # the columns' counts are the rows held (each notice counts as None)
    hooks = store.counts("hook")
    assert sum(hooks.values()) == store.filled
    assert hooks[None] == store.markers
    # a filter over the rows held
    mask = store.mask(HookFilter(events=frozenset({"block"})), 0, store.filled)
    assert mask is not None
    shown = [store.record(r) for r, m in enumerate(mask) if m and store.marker(r) is None]
    assert shown and all(r.event == "block" for r in shown)
    assert len(shown) == sum(1 for i in range(first, 1500) if i % 7 == 0)


def test_forgetting_again_keeps_one_notice_with_the_total(tmp_path, monkeypatch):
    _session, u = day(tmp_path, monkeypatch, 3000, 3)
    store = u.hooks.store
    assert store is not None
    notices = [store.marker(r).text for r in range(store.count) if store.marker(r) is not None]
    assert sum("earlier lines of this session" in t for t in notices) == 1
    first = next(
        int(store.record(r).reason.split()[-1])
        for r in range(store.count)
        if store.marker(r) is None
    )
    assert store.forgotten == first and store.record(store.count - 1).reason == "reason 02999"


def test_a_finding_names_the_line_of_the_file_as_it_is_now(tmp_path):
    """Issue 40 item 6: lines are numbered as read across rotations; a finding's place is the
    line of the file now, or says a rotation took it out (never ``line 7152`` of 1,269)."""
    from phasewatch.core.hooklog.rules import ROTATED_OUT

    state = tmp_path / ".isdlc" / "state.json"
    state.parent.mkdir(parents=True)
    write_truncate(state, render_state(F.feature_state()))
    log = HookLog(tmp_path / ".isdlc" / "hook-activity.log", max_bytes=4096, keep_lines=10)
    session = ProjectSession(tmp_path, clock=Tick())
    session.refresh()
    with open(log.path, "ab") as fh:
        fh.write(b"not json\n")  # an unusable line, soon rotated out
    for i in range(60):
        event = "block" if i == 57 else "allow"
        log.append(F.ts(i), "gate-blocker", event, "05-test-strategy", "x", f"reason {i:05d}")
        if i % 9 == 0:
            session.refresh({log.path})
    u = session.refresh({log.path})
    assert log.rotations >= 1
    text = log.path.read_text().splitlines()
    by_rule = {f.rule_id: f for f in u.hooks.findings}
    block = by_rule["HOOK-BLOCK"]
    number = int(block.path.split()[-1])
    assert '"block"' in text[number - 1] and "reason 00057" in text[number - 1]
    invalid = next(f for f in by_rule.values() if "unusable" in f.message)
    assert invalid.path == ROTATED_OUT and "rotated out" in invalid.message
    tailer = session.tailer
    assert tailer.file_line(1) is None
    assert tailer.file_line(tailer.lines_consumed) == len(text)
