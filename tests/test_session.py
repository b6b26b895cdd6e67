"""phasewatch.core.session: readers, memory across refreshes (timeline, recent events), read statuses."""

from __future__ import annotations

import json
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
    u = s.refresh({state_path(repo)})
    assert u.timeline == [] and not u.new_versions
    assert u.changed_projects == {""}


def test_new_version_records_changed_paths_and_transition_events(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    first = F.feature_state()
    s.refresh()
    # a status going down is a transition finding: it exists only in this one snapshot
    bad = F.setpath(F.bump(first), "phases.04-design.status", "in_progress")
    write_state(state_path(repo), bad)
    u = s.refresh({state_path(repo)})
    assert u.new_versions == {""}
    (entry,) = u.timeline
    assert entry.state_version == bad["state_version"]
    assert "phases.04-design.status" in entry.changed and "state_version" in entry.changed
    rules = {f.rule_id for f in entry.findings}
    assert "TR-STATUS-DOWN" in rules
    assert {e.finding.rule_id for e in u.new_events} >= {"TR-STATUS-DOWN"}
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
    assert u.timeline == []
    assert any(f.rule_id == "READ-TORN" for f in u.findings_for(None))
    state_path(repo).write_bytes(text)
    u = s.refresh({state_path(repo)})
    assert u.files[".isdlc/state.json"].status == "ok"
    assert len(u.timeline) == 1


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


def test_hook_log_records_are_deltas(repo: Path) -> None:
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    log.append(F.ts(1), "gate-blocker", "allow", "05-test-strategy", "x", None)
    s = ProjectSession(repo, clock=Tick())
    u = s.refresh()
    assert [r.event for r in u.hook_records] == ["allow"]
    assert u.files[".isdlc/hook-activity.log"].status == "ok"
    log.append(
        F.ts(2), "gate-blocker", "block", "05-test-strategy", "x", "V7: state_version 41 < disk 43"
    )
    u = s.refresh({log.path})
    assert [r.event for r in u.hook_records] == ["block"]
    assert u.hook_total == 2 and u.hook_stats["total"] == 2
    u = s.refresh({log.path})
    assert u.hook_records == []


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
    assert u.rediscovered and set(u.snapshots) == {"api", "web"}
    assert u.snapshot("web").workflow.type == "fix"  # type: ignore[union-attr]
    assert u.snapshot(None).project_id == "api"  # type: ignore[union-attr]


def test_merged_after_concatenates_deltas(repo: Path) -> None:
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    s = ProjectSession(repo, clock=Tick())
    a = s.refresh()
    log.append(F.ts(1), "h", "allow")
    b = s.refresh({log.path})
    write_state(state_path(repo), F.bump(F.feature_state()))
    c = s.refresh({state_path(repo)})
    merged = c.merged_after(b.merged_after(a))
    assert [r.event for r in merged.hook_records] == ["allow"]
    assert len(merged.timeline) == 2 and merged.initial
    assert merged.snapshots is c.snapshots


def test_merged_back_fill_parts_keep_their_order_and_the_cap_drops_the_oldest(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import phasewatch.core.session as session_mod

    log = _big_log(repo)
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096)
    s.refresh()
    a = s.refresh({log.path})
    log.append(F.ts(400), "gate-blocker", "allow", "05-test-strategy", "x", "appended")
    b = s.refresh({log.path})
    merged = b.merged_after(a)
    assert merged.hook_older == b.hook_older + a.hook_older  # b's part is the older one
    assert [r.reason for r in merged.hook_records] == ["appended"]
    monkeypatch.setattr(session_mod, "MERGE_RECORDS_CAP", len(a.hook_older) + 1)
    capped = b.merged_after(a)
    assert capped.hook_older == a.hook_older and capped.hook_records == b.hook_records
    assert capped.hook_dropped == len(b.hook_older)


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


def test_own_write_flag(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick())
    s.refresh()
    write_state(state_path(repo), F.bump(F.feature_state()))
    u = s.refresh({state_path(repo)}, own={state_path(repo)})
    assert u.timeline[0].own and state_path(repo) in u.own_writes


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


def test_a_large_hook_log_is_read_newest_first_in_parts(repo: Path) -> None:
    """A log larger than one part when first seen: the first refresh shows the state only; the
    next ones bring its older lines newest part first (``hook_older``), each part at most
    ``hook_read_bytes``, while lines appended meanwhile arrive as usual (``hook_records``)."""
    log = _big_log(repo)
    size = log.path.stat().st_size
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096)
    u = s.refresh()
    assert u.snapshots and u.hook_pending and u.hook_records == [] and u.hook_older == []
    assert u.hook_progress == (0, size)
    u = s.refresh({log.path})
    assert u.hook_records == [] and u.hook_pending
    parts = [[r.reason for r in u.hook_older]]
    assert parts[0][-1] == "reason 0299" and sum(len(r) for r in parts[0]) < 4096
    assert [r.line_no for r in u.hook_older][-1] == 300  # true line numbers
    done, total = u.hook_progress
    assert total == size and 0 < done <= 4096
    assert u.hook_stats["total"] == len(parts[0])  # the audit runs on what is held
    log.append(F.ts(400), "gate-blocker", "allow", "05-test-strategy", "x", "appended")
    u = s.refresh({log.path})
    assert [(r.reason, r.line_no) for r in u.hook_records] == [("appended", 301)]
    parts.append([r.reason for r in u.hook_older])
    while u.hook_pending:
        u = s.refresh({log.path})
        assert all(r.valid for r in u.hook_older)  # parts end at line boundaries
        parts.append([r.reason for r in u.hook_older])
        assert len(parts) < 100
    assert len(parts) >= size // 4096
    seen = [reason for part in reversed(parts) for reason in part]
    assert seen == [f"reason {i:04d}" for i in range(300)]  # every line once
    assert u.hook_progress is None and u.hook_total == 301 and u.hook_unread == 0
    assert u.hook_stats["total"] == 301 and u.hook_findings
    block = next(f for f in u.hook_findings if f.rule_id == "HOOK-BLOCK")
    assert block.path == "line 251" and "6 block(s)" in block.message  # blocks at 0, 50 .. 250
    assert s.refresh({log.path}).hook_older == []


def test_a_large_append_is_read_forward_in_parts(repo: Path) -> None:
    """Lines appended after the start are read from the tailer's place, in parts, oldest first;
    the audit runs once, when the reader has caught up."""
    log = HookLog(repo / ".isdlc" / "hook-activity.log")
    log.append(F.ts(0), "gate-blocker", "allow", "05-test-strategy", "x", "first")
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096)
    assert [r.reason for r in s.refresh().hook_records] == ["first"]
    before = log.path.stat().st_size
    log = _big_log(repo)
    size = log.path.stat().st_size
    u = s.refresh({log.path})
    assert u.hook_records and u.hook_pending and u.hook_older == []
    done, total = u.hook_progress
    assert total == size and before < done <= before + 4096
    seen = [r.reason for r in u.hook_records]
    while u.hook_pending:
        u = s.refresh({log.path})
        seen += [r.reason for r in u.hook_records]
        assert len(seen) <= 300
    assert seen == [f"reason {i:04d}" for i in range(300)]  # every line once, in order
    assert u.hook_stats["total"] == 301 and u.hook_findings  # audited once complete


def test_a_large_log_that_appears_later_is_read_from_its_end(repo: Path) -> None:
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096)
    assert s.refresh().hook_pending is False  # no log yet
    log = _big_log(repo)  # e.g. copied in whole
    u = s.refresh({log.path})
    assert u.hook_records == [] and u.hook_older and u.hook_pending
    assert u.hook_older[-1].reason == "reason 0299" and u.hook_older[-1].line_no == 300


def test_a_rewrite_during_the_backfill_is_reported_not_misread(repo: Path) -> None:
    log = _big_log(repo)
    s = ProjectSession(repo, clock=Tick(), hook_read_bytes=4096)
    s.refresh()
    u = s.refresh({log.path})
    held = [r.reason for r in u.hook_older]
    kept = log.path.read_text().splitlines()[-20:]
    log.path.write_text("\n".join(kept) + "\n")  # the owner's in-place rotation
    u = s.refresh({log.path})
    assert u.hook_tail.rotation and not u.hook_pending
    assert u.hook_older == [] and u.hook_records == []  # the kept lines were seen already
    assert 0 < u.hook_unread < log.path.stat().st_size + 300 * 200
    assert held[-1] == "reason 0299"
