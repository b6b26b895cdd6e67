"""phasewatch.core.session: readers, memory across refreshes (timeline, recent events), read statuses."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from phasewatch.core.session import ProjectSession, SessionUpdate, attention
from phasewatch.core.simulate.files import HookLog, render_state, write_truncate

from tests import factories as F


class Tick:
    """A clock that moves one second per call (deterministic times)."""

    def __init__(self) -> None:
        self.t = datetime(2026, 3, 4, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


def write_state(path: Path, state: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_truncate(path, render_state(state))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    return tmp_path


def state_path(root: Path) -> Path:
    return root / ".isdlc" / "state.json"


def test_initial_refresh_reads_everything(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    u = s.refresh()
    assert u.initial and u.seq == 1
    snap = u.snapshot()
    assert snap is not None and snap.version == F.feature_state()["state_version"]
    assert u.files[".isdlc/state.json"].status == "ok"
    assert u.files[".isdlc/state.json"].shown_version == snap.version
    assert len(u.timeline) == 1 and u.timeline[0].initial and u.timeline[0].changed == ()
    assert u.timeline[0].raw is not None
    assert state_path(repo) in u.watch_files
    assert repo / ".isdlc" / "projects" in u.watch_dirs


def test_unchanged_reread_adds_no_timeline_entry(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    s.refresh()
    before = s.refresh({state_path(repo)})
    u = s.refresh({state_path(repo)})
    assert len(u.timeline) == 1 and u.versions == before.versions == {"": 1}


def test_new_version_records_changed_paths_and_transition_events(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    first = F.feature_state()
    s.refresh()
    # a status going down is a transition finding: it exists only in this one snapshot
    bad = F.setpath(F.bump(first), "phases.04-design.status", "in_progress")
    write_state(state_path(repo), bad)
    u = s.refresh({state_path(repo)})
    assert u.versions == {"": 2}
    entry = u.timeline[-1]  # every entry kept; the newest is this version
    assert entry.state_version == bad["state_version"]
    assert "phases.04-design.status" in entry.changed and "state_version" in entry.changed
    rules = {f.rule_id for f in entry.findings}
    assert "TR-STATUS-DOWN" in rules
    assert {e.finding.rule_id for e in u.events if e.seq == entry.seq} >= {"TR-STATUS-DOWN"}
    # the next (unrelated) write: the transition is gone from the snapshot, kept as an event
    later = F.setpath(F.bump(bad), "project.description", "still bad")
    write_state(state_path(repo), later)
    u2 = s.refresh({state_path(repo)})
    snap = u2.snapshot()
    assert snap is not None
    assert not any(f.rule_id == "TR-STATUS-DOWN" for f in snap.findings)
    assert any(e.finding.rule_id == "TR-STATUS-DOWN" for e in u2.events_for(None))
    assert not any(f.rule_id.startswith("TR-") for f in u2.findings_for(None))
    assert [e.state_version for e in s.timeline] == [
        first["state_version"],
        bad["state_version"],
        later["state_version"],
    ]


def test_torn_read_keeps_last_good_and_reports_torn(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    good = s.refresh().snapshot()
    assert good is not None
    text = render_state(F.bump(F.feature_state()))
    state_path(repo).write_bytes(text[: len(text) // 2])
    u = s.refresh({state_path(repo)})
    status = u.files[".isdlc/state.json"]
    assert status.status == "torn" and status.stale
    assert status.shown_version == good.version
    assert u.snapshot().version == good.version  # type: ignore[union-attr]
    assert len(u.timeline) == 1  # no entry for the torn read
    assert any(f.rule_id == "READ-TORN" for f in u.findings_for(None))
    state_path(repo).write_bytes(text)
    u = s.refresh({state_path(repo)})
    assert u.files[".isdlc/state.json"].status == "ok"
    assert len(u.timeline) == 2


def test_vanished_then_recreated(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    s.refresh()
    state_path(repo).unlink()
    u = s.refresh({state_path(repo)})
    assert u.files[".isdlc/state.json"].status == "vanished"
    assert u.snapshot() is not None and u.snapshot().version is not None  # type: ignore[union-attr]
    write_state(state_path(repo), F.bump(F.feature_state(), 5))
    u = s.refresh({state_path(repo)})
    assert u.files[".isdlc/state.json"].status == "ok"
    assert u.snapshot().version == F.feature_state()["state_version"] + 5  # type: ignore[union-attr]


def test_invalid_json_is_not_torn(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    s.refresh()
    state_path(repo).write_text('{"state_version": 1,, "x": 2}')
    u = s.refresh({state_path(repo)})
    assert u.files[".isdlc/state.json"].status == "invalid"


def rows(u: SessionUpdate) -> list:
    """The hook log's rows as the hook screen shows them (parsed from the store)."""
    assert u.hooks.store is not None
    return [u.hooks.store.record(i) for i in range(u.hooks.rows)]


def test_hook_log_lines_go_to_the_store(repo: Path) -> None:
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    log.append(F.ts(1), "gate-blocker", "allow", "05-test-strategy", "x", None)
    s = ProjectSession(repo, clock=Tick())
    u = s.refresh()
    assert [r.event for r in rows(u)] == ["allow"] and u.hooks.changed
    assert u.files[".isdlc/hook-activity.log"].status == "ok"
    log.append(
        F.ts(2), "gate-blocker", "block", "05-test-strategy", "x", "V7: state_version 41 < disk 43"
    )
    u = s.refresh({log.path})
    assert [r.event for r in rows(u)] == ["allow", "block"] and u.hooks.store.filled == 2
    assert u.hooks.total == 2 and u.hooks.stats["total"] == 2
    u = s.refresh({log.path})
    assert u.hooks.rows == 2 and not u.hooks.changed


@pytest.mark.parametrize("with_log", [True, False])
def test_hooks_later_shows_the_state_first_and_the_log_at_the_next_refresh(
    repo: Path, with_log: bool
) -> None:
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    if with_log:
        log.append(F.ts(1), "gate-blocker", "allow", "05-test-strategy", "x", None)
    s = ProjectSession(repo, clock=Tick())
    first = s.refresh(None, hooks_later=True)
    assert first.snapshots and first.hooks.pending == with_log and first.hooks.rows == 0
    assert first.hooks.store is None and first.hooks.total == 0
    status = first.files[".isdlc/hook-activity.log"].status
    assert status == ("ok" if with_log else "missing")
    second = s.refresh([log.path] if with_log else None)
    assert not second.hooks.pending and second.hooks.store is not None
    assert [r.event for r in rows(second)] == (["allow"] if with_log else [])
    assert second.hooks.total == (1 if with_log else 0)


def test_the_first_refresh_with_hooks_later_needs_neither_numpy_nor_the_tdd_reader(
    repo: Path,
) -> None:
    """The state's first frame does not wait for the hook log's modules (numpy) nor for the
    TDD reader's when there is no progress file (docs/design.md#data-flow)."""
    import subprocess
    import sys

    HookLog(repo / ".isdlc" / "hook-activity.log").append(
        F.ts(1), "gate-blocker", "allow", "05-test-strategy", "x", None
    )
    code = (
        "import sys\n"
        "from phasewatch.core.session import ProjectSession\n"
        f"u = ProjectSession({str(repo)!r}).refresh(None, hooks_later=True)\n"
        "assert u.snapshots and u.hooks.pending\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy'}),"
        " 'phasewatch.core.tdd' in sys.modules, 'phasewatch.core.hooklog' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]", "False", "False"]


def test_the_refresh_that_reads_the_log_gives_its_heap_back_once_at_its_end(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log left for later is read by the next refresh, which returns the freed heap pages
    once, after its counts and findings are made (not before them, not on every refresh)."""
    from phasewatch.core import session as session_module

    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    log.append(F.ts(1), "gate-blocker", "block", "05-test-strategy", "x", None)
    s = ProjectSession(repo, clock=Tick())
    counted: list[int] = []  # the lines the findings covered when the heap was given back
    monkeypatch.setattr(session_module, "release_memory", lambda: counted.append(s._hook_total))
    s.refresh(None, hooks_later=True)
    assert counted == []
    assert s.refresh([log.path]).hooks.total == 1 and counted == [1]
    s.refresh([log.path])
    assert counted == [1]


@pytest.mark.parametrize("log", ["absent", "empty"])
def test_a_project_without_hook_lines_never_imports_numpy(repo: Path, log: str) -> None:
    """Learning that there is no hook log (or an empty one) costs no numpy: full refreshes
    make the store, the counts and the findings, and the hook screen has its (empty) store."""
    import subprocess
    import sys

    if log == "empty":
        (repo / ".isdlc" / "hook-activity.log").write_bytes(b"")
    code = (
        "import sys\n"
        "from phasewatch.core.session import ProjectSession\n"
        f"s = ProjectSession({str(repo)!r})\n"
        "u = s.refresh(None, hooks_later=True)\n"
        "u = s.refresh(None)\n"
        "u = s.refresh(None)\n"
        "assert u.hooks.store is not None and u.hooks.store.count == 0 and u.hooks.total == 0\n"
        "print(u.files['.isdlc/hook-activity.log'].status, 'numpy' in sys.modules,"
        " 'phasewatch.core.hooklog.store' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["missing" if log == "absent" else "ok", "False", "True"]


def test_monorepo_discovers_new_project(tmp_path: Path) -> None:
    isdlc = tmp_path / ".isdlc"
    isdlc.mkdir()
    (isdlc / "monorepo.json").write_text(
        json.dumps({"version": 1, "default_project": "api", "projects": {"api": {"name": "API"}}})
    )
    write_state(isdlc / "projects" / "api" / "state.json", F.feature_state())
    s = ProjectSession(tmp_path, clock=Tick())
    u = s.refresh()
    assert u.project.monorepo and set(u.snapshots) == {"api"}
    assert isdlc / "projects" / "api" / "state.json" in u.watch_files
    # a project directory appears (the watcher reports the directory), then its state file
    (isdlc / "projects" / "web").mkdir()
    u = s.refresh({isdlc / "projects" / "web"})
    assert isdlc / "projects" / "web" / "state.json" in u.watch_files and u.targets_changed
    write_state(isdlc / "projects" / "web" / "state.json", F.fix_state())
    u = s.refresh({isdlc / "projects" / "web" / "state.json"})
    assert u.discovery == 1 and set(u.snapshots) == {"api", "web"}  # the layout changed once
    assert u.snapshot("web").workflow.type == "fix"  # type: ignore[union-attr]
    assert u.snapshot(None).project_id == "api"  # type: ignore[union-attr]


def test_an_update_is_the_state_picture(repo: Path) -> None:
    """The newest update says all an older one would: revisions, the whole timeline, the hook
    store (a screen that skipped updates loses nothing)."""
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    s = ProjectSession(repo, clock=Tick())
    a = s.refresh()
    log.append(F.ts(1), "h", "allow")
    b = s.refresh({log.path})
    write_state(state_path(repo), F.bump(F.feature_state()))
    c = s.refresh({state_path(repo)})
    assert [e.seq for e in c.timeline] == [1, 2] and c.versions == {"": 2} != a.versions
    assert c.hooks.store is b.hooks.store is s.hooks and c.hooks.rows == 1 and c.hooks.total == 1
    assert c.snapshot() is not a.snapshot() and c.timeline[:1] == a.timeline


def test_timeline_cap_and_raw_trimming(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick(), timeline_cap=5, raw_cap=2)
    state = F.feature_state()
    s.refresh()
    for _ in range(8):
        state = F.bump(state)
        write_state(state_path(repo), state)
        s.refresh({state_path(repo)})
    assert len(s.timeline) == 5
    assert [e.raw is not None for e in s.timeline] == [False, False, False, True, True]
    assert s.timeline[-1].state_version == state["state_version"]


def test_the_timeline_keeps_documents_up_to_a_number_of_bytes(repo: Path, monkeypatch) -> None:
    """A large state keeps fewer documents (RAW_BYTES of files), never fewer than the newest two:
    a day of writes to a state near the read cap stays bounded."""
    from phasewatch.core import session as session_module

    state = dict(F.feature_state(), padding="x" * 20_000)
    write_state(state_path(repo), state)
    size = state_path(repo).stat().st_size
    monkeypatch.setattr(session_module, "RAW_BYTES", 3 * size + size // 2)
    s = ProjectSession(repo, clock=Tick(), raw_cap=200)
    s.refresh()
    for _ in range(8):
        state = F.bump(state)
        write_state(state_path(repo), state)
        s.refresh({state_path(repo)})
    assert [e.raw is not None for e in s.timeline] == [False] * 6 + [True] * 3
    monkeypatch.setattr(session_module, "RAW_BYTES", 1)
    state = F.bump(state)
    write_state(state_path(repo), state)
    s.refresh({state_path(repo)})
    assert [e.raw is not None for e in s.timeline][-3:] == [False, True, True]


def test_own_write_flag(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    s.refresh()
    write_state(state_path(repo), F.bump(F.feature_state()))
    u = s.refresh({state_path(repo)}, own={state_path(repo)})
    assert u.timeline[-1].own


def test_attention_gate_and_escalations(repo: Path) -> None:
    base = F.feature_state()
    gated = F.setpath(
        base,
        "active_workflow.supervised_review",
        {"phase": "04-design", "status": "gate_presented", "redo_count": 0},
    )
    gated = F.setpath(
        gated,
        "pending_escalations",
        [
            {
                "type": "gate_blocked",
                "hook": "gate-blocker",
                "phase": "05-test-strategy",
                "detail": "x",
            }
        ],
    )
    write_state(state_path(repo), gated)
    s = ProjectSession(repo, clock=Tick())
    assert attention(s.refresh().snapshot()) == (True, 1)


def test_update_is_plain_data(repo: Path) -> None:
    u = ProjectSession(repo).refresh()
    assert isinstance(u, SessionUpdate)
    assert u.findings_for(None) == u.findings_for("")  # single project: id "" or None alike


def _big_log(repo: Path, n: int = 300) -> HookLog:
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    for i in range(n):
        event = "block" if i % 50 == 0 else "allow"
        log.append(F.ts(i), "gate-blocker", event, "05-test-strategy", "x", f"reason {i:04d}")
    return log


def test_a_large_hook_log_shows_at_once_and_is_counted_in_parts(repo: Path) -> None:
    """A log larger than one part when first seen: the first refresh shows the state only; the
    next indexes every line (shown at once, parsed when shown); the following ones parse them
    from the start, each part at most ``hook_read_bytes``, while
    lines appended meanwhile show at once. Counts and findings cover the whole log."""
    log = _big_log(repo)
    size = log.path.stat().st_size
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096, hook_part_seconds=0)
    u = s.refresh()
    assert u.snapshots and u.hooks.pending and u.hooks.rows == 0
    assert u.hooks.progress == (0, size)
    u = s.refresh({log.path})
    assert u.hooks.rows == 300 and u.hooks.pending and u.hooks.store.filled == 0 and u.hooks.changed
    assert (
        u.hooks.store.record(299).reason == "reason 0299"
        and u.hooks.store.record(299).line_no == 300
    )
    u = s.refresh({log.path})
    done, total = u.hooks.progress
    assert total == size and 0 < done <= 4096 and 0 < u.hooks.store.filled < 300
    assert u.hooks.stats["total"] == u.hooks.store.filled  # counted: what was parsed
    log.append(F.ts(400), "gate-blocker", "allow", "05-test-strategy", "x", "appended")
    u = s.refresh({log.path})
    assert u.hooks.rows == 301 and u.hooks.store.record(300).reason == "appended"
    refreshes = 0
    while u.hooks.pending:
        u = s.refresh({log.path})
        refreshes += 1
        assert refreshes < 100
    assert refreshes >= size // 4096 - 2
    assert [r.reason for r in rows(u)] == [f"reason {i:04d}" for i in range(300)] + ["appended"]
    assert [r.line_no for r in rows(u)] == list(range(1, 302))
    assert u.hooks.progress is None and u.hooks.total == 301 and u.hooks.store.filled == 301
    assert u.hooks.stats["total"] == 301 and u.hooks.findings
    block = next(f for f in u.hooks.findings if f.rule_id == "HOOK-BLOCK")
    assert block.path == "line 251" and "6 block(s)" in block.message  # blocks at 0, 50 .. 250


def test_a_key_being_answered_ends_a_part_at_its_next_poll(repo: Path) -> None:
    """While the UI answers a key (``ui_idle`` clear) a refresh of a large log reads one poll,
    however long its part may run; idle again, it reads on until the part's time is up."""
    log = _big_log(repo)
    idle = threading.Event()
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=2048, hook_part_seconds=60, ui_idle=idle)
    s.refresh()
    s.refresh({log.path})  # the index
    u = s.refresh({log.path})
    assert u.hooks.pending and 0 < u.hooks.progress[0] <= 2048  # one poll: the UI is busy
    idle.set()
    u = s.refresh({log.path})
    assert not u.hooks.pending and u.hooks.store.filled == 300  # the rest, in one part


def test_a_large_append_is_read_forward_in_parts(repo: Path) -> None:
    """Lines appended after the start show at once and are parsed from the tailer's place, in
    parts, oldest first; each is counted once."""
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    log.append(F.ts(0), "gate-blocker", "allow", "05-test-strategy", "x", "first")
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096, hook_part_seconds=0)
    assert [r.reason for r in rows(s.refresh())] == ["first"]
    before = log.path.stat().st_size
    log = _big_log(repo)
    size = log.path.stat().st_size
    u = s.refresh({log.path})
    assert u.hooks.pending and u.hooks.rows == 301
    done, total = u.hooks.progress
    assert total == size and before < done <= before + 4096
    while u.hooks.pending:
        u = s.refresh({log.path})
    assert [r.reason for r in rows(u)] == ["first"] + [f"reason {i:04d}" for i in range(300)]
    assert u.hooks.stats["total"] == 301 and u.hooks.findings


def test_a_rewrite_while_reading_in_parts_drops_the_unread_rows(repo: Path) -> None:
    """Rewritten in place while its indexed lines wait to be parsed: those rows go (no junk,
    nothing shown twice); lines parsed before a rewrite stay (a small log is copied as read)."""
    log = _big_log(repo)
    kept = log.path.read_text().splitlines()[-20:]
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096, hook_part_seconds=0)
    s.refresh()
    assert s.refresh({log.path}).hooks.rows == 300  # indexed, not parsed
    log.path.write_text("\n".join(kept) + "\n")  # the owner's in-place rotation
    u = s.refresh({log.path})
    while u.hooks.pending:
        u = s.refresh({log.path})
    assert [r.reason for r in rows(u)] == [f"reason {i:04d}" for i in range(280, 300)]
    # parsed first, then rewritten: the rows read stay, the rotation is marked once
    log2 = _big_log(repo)
    u = s.refresh({log2.path})
    while u.hooks.pending:
        u = s.refresh({log2.path})
    before = u.hooks.rows
    log2.path.write_text("\n".join(log2.path.read_text().splitlines()[-5:]) + "\n")
    log2.append(F.ts(999), "gate-blocker", "allow", "05-test-strategy", "x", "after")
    u = s.refresh({log2.path})
    assert u.hooks.rotations == 1 and u.hooks.store.markers == 1
    got = rows(u)
    assert all(r.valid for r in got[:before]) and got[-1].reason == "after"
