"""The decision writer: every gate and escalation answer against fixture states, byte for byte."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from phasewatch.core import decide, protocol
from phasewatch.core.archive import collect
from phasewatch.core.decide import files as decide_files
from phasewatch.core.sources import read_json

from tests.helpers.decide import (
    NOW,
    clone,
    expected_text,
    feature_state,
    journal_entries,
    load,
    write_state,
)

K = "06-implementation"


def retry_reset(record: dict) -> None:
    """What workflow-retry.cjs deletes (tests/test_decide_framework.py checks it on its output)."""
    for key in ("test_iteration", "constitutional_validation", "interactive_elicitation"):
        record.pop(key, None)
        record.get("iteration_requirements", {}).pop(key, None)


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "now_iso", lambda: NOW)


def seen_of(path: Path) -> dict:
    result = read_json(path)
    assert result.ok
    return result.data


def check_applied(path: Path, expected: dict, result: decide.DecisionResult) -> None:
    assert result.outcome == "applied", result.message
    assert result.exit_code == 0
    assert path.read_bytes() == expected_text(expected)
    assert result.version_before == 41 and result.version_after == 42


# ---------------------------------------------------------------------------- review gate


def test_continue_appends_history_and_removes_gate(tmp_path: Path) -> None:
    state = feature_state()
    path = write_state(tmp_path, state)
    result = decide.decide_review(path, "continue", seen=seen_of(path), via="tui")
    want = clone(state)
    aw = want["active_workflow"]
    del aw["supervised_review"]
    aw["review_history"].append({"phase": K, "action": "continue", "timestamp": NOW})
    want["state_version"] = 42
    check_applied(path, want, result)
    assert result.state_summary["supervised_review"] is None
    [entry] = journal_entries(tmp_path)
    assert entry["action"] == "review continue" and entry["outcome"] == "applied"
    assert entry["via"] == "tui" and "@" in entry["who"]
    assert entry["target"] == ".isdlc/state.json"
    assert (entry["version_before"], entry["version_after"]) == (41, 42)


def test_review_pauses_and_resume_records_the_review(tmp_path: Path) -> None:
    state = feature_state()
    path = write_state(tmp_path, state)
    result = decide.decide_review(path, "review", expect_version=41)
    want = clone(state)
    want["active_workflow"]["supervised_review"].update(status="reviewing", paused_at=NOW)
    want["state_version"] = 42
    check_applied(path, want, result)

    later = "2026-03-04T10:30:00.000Z"
    protocol.now_iso = lambda: later  # restored by the fixture's monkeypatch
    result = decide.decide_review(path, "resume", expect_version=42)
    assert result.outcome == "applied", result.message
    del want["active_workflow"]["supervised_review"]
    want["active_workflow"]["review_history"].append(
        {"phase": K, "action": "review", "timestamp": later, "paused_at": NOW, "resumed_at": later}
    )
    want["state_version"] = 43
    assert path.read_bytes() == expected_text(want)


def test_redo_is_the_v8_safe_redo(tmp_path: Path) -> None:
    state = feature_state(redo_count=1)
    path = write_state(tmp_path, state)
    result = decide.decide_review(
        path, "redo", guidance="  Cover the 429 path  ", expect_version=41
    )
    want = clone(state)
    sr = want["active_workflow"]["supervised_review"]
    sr.update(redo_count=2, status="redo_pending")
    sr["redo_guidance_history"].append("Cover the 429 path")
    want["phases"][K]["status"] = "in_progress"
    want["active_workflow"]["phase_status"][K] = "in_progress"
    want["state_version"] = 42
    check_applied(path, want, result)
    assert load(path)["active_workflow"]["current_phase_index"] == 7  # index not moved back
    assert "redo 2/3" in result.message


def test_redo_from_reviewing_is_allowed(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state(gate="reviewing"))
    result = decide.decide_review(path, "redo", guidance="again", expect_version=41)
    assert result.outcome == "applied"
    assert load(path)["active_workflow"]["supervised_review"]["status"] == "redo_pending"


@pytest.mark.parametrize(
    ("gate", "redo_count", "action", "guidance", "why"),
    [
        (None, 0, "continue", None, "no review gate"),
        ("reviewing", 0, "continue", None, "use resume"),
        ("redo_pending", 1, "continue", None, "'redo_pending'"),
        ("gate_presented", 0, "resume", None, "resume needs a gate under review"),
        ("reviewing", 0, "review", None, "review needs a presented gate"),
        ("gate_presented", 3, "redo", "more", "redo limit reached"),
        ("gate_presented", 0, "redo", "   ", "needs guidance"),
        ("gate_presented", 0, "redo", None, "needs guidance"),
        ("redo_pending", 1, "redo", "x", "redo needs a presented gate"),
    ],
)
def test_review_refusals_write_nothing(
    tmp_path: Path, gate: str | None, redo_count: int, action: str, guidance: str | None, why: str
) -> None:
    path = write_state(tmp_path, feature_state(gate=gate, redo_count=redo_count))
    before = path.read_bytes()
    result = decide.decide_review(path, action, guidance=guidance, expect_version=41)
    assert result.outcome == "refused-invalid" and result.exit_code == 2
    assert why in result.message
    assert path.read_bytes() == before
    assert result.version_after is None and result.state_summary["state_version"] == 41
    [entry] = journal_entries(tmp_path)
    assert entry["outcome"] == "refused-invalid" and entry["version_after"] is None


def test_no_active_workflow_is_nothing_to_decide(tmp_path: Path) -> None:
    state = feature_state()
    state["active_workflow"] = None
    path = write_state(tmp_path, state)
    result = decide.decide_review(path, "continue")
    assert result.outcome == "refused-invalid" and "no active workflow" in result.message


# ---------------------------------------------------------------------------- escalations


def test_retry_records_recovery_and_bumps_retry_count(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=3)
    state["phases"][K]["retry_count"] = 2
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "retry", seen=seen_of(path))
    want = clone(state)
    want["active_workflow"]["recovery_action"] = {"type": "retry", "phase": K, "timestamp": NOW}
    want["phases"][K]["retry_count"] = 3
    retry_reset(want["phases"][K])
    want["pending_escalations"] = []
    want["state_version"] = 42
    check_applied(path, want, result)


def test_retry_creates_retry_count_and_replaces_recovery_action(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=1)
    state["pending_escalations"][0]["phase"] = "05-test-strategy"  # the escalation's phase wins
    state["active_workflow"]["recovery_action"] = {
        "type": "rollback",
        "phase": "x",
        "timestamp": "t",
    }
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "retry", expect_version=41)
    want = clone(state)
    want["active_workflow"]["recovery_action"] = {
        "type": "retry",
        "phase": "05-test-strategy",
        "timestamp": NOW,
    }
    want["phases"]["05-test-strategy"]["retry_count"] = 1
    retry_reset(want["phases"]["05-test-strategy"])
    want["pending_escalations"] = []
    want["state_version"] = 42
    check_applied(path, want, result)


def test_skip_only_clears_the_escalations(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=2)
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "skip", expect_version=41)
    want = clone(state)
    want["pending_escalations"] = []
    want["state_version"] = 42
    check_applied(path, want, result)
    [entry] = journal_entries(tmp_path)
    assert entry["action"] == "escalation skip"  # the override lives in the journal


def test_cancel_archives_the_workflow(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=1)
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "cancel", reason="wrong scope", expect_version=41)
    want = clone(state)
    aw = want["active_workflow"]
    # what the orchestrator does: set cancelled_at, then collectPhaseSnapshots(state) (its
    # model is held to the framework's own output in tests/test_archive.py)
    snapshots, metrics = collect({**want, "active_workflow": {**aw, "cancelled_at": NOW}})
    assert [s["key"] for s in snapshots] == [k for k in aw["phases"] if k in want["phases"]]
    assert all({"gate_passed", "duration_minutes"} <= set(s) for s in snapshots)
    assert set(metrics) == {
        "total_phases", "phases_completed", "total_duration_minutes", "test_iterations_total",
        "gates_passed_first_try", "gates_required_iteration",
    }  # fmt: skip
    assert metrics["total_phases"] == 9 and metrics["phases_completed"] == 7
    entry = {  # the orchestrator's documented keys, in its order, then the workflow's others
        "type": aw.get("type"),
        "id": None,
        "description": aw.get("description"),
        "started_at": aw.get("started_at"),
        "cancelled_at": NOW,
        "cancelled_at_phase": aw.get("current_phase"),
        "cancellation_reason": "wrong scope",
        "status": "cancelled",
        "merged_commit": None,
        "phases": aw["phases"],
        "phase_snapshots": snapshots,
        "metrics": metrics,
    }
    entry.update((k, v) for k, v in aw.items() if k not in entry)
    want["workflow_history"].append(entry)
    want["active_workflow"] = None
    want["pending_escalations"] = []
    want["state_version"] = 42
    check_applied(path, want, result)


def test_cancel_leaves_the_branch_abandoned(tmp_path: Path) -> None:
    """The orchestrator's "Branch on Cancellation": git_branch.status = "abandoned"."""
    state = feature_state(gate=None, escalations=1)
    state["active_workflow"]["git_branch"] = {"name": "feature/REQ-0031-x", "status": "active"}
    path = write_state(tmp_path, state)
    decide.decide_escalation(path, "cancel", reason="wrong scope", expect_version=41)
    entry = json.loads(path.read_text())["workflow_history"][-1]
    assert entry["git_branch"] == {
        "name": "feature/REQ-0031-x",
        "status": "abandoned",
        "abandoned_at": NOW,
    }


def test_cancel_prunes_history_to_50(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=1)
    state["workflow_history"] = [{"slug": f"w{i}", "status": "completed"} for i in range(50)]
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "cancel", reason="stop", expect_version=41)
    assert result.outcome == "applied"
    history = load(path)["workflow_history"]
    assert len(history) == 50
    assert history[0]["slug"] == "w1" and history[-1]["status"] == "cancelled"


@pytest.mark.parametrize(
    ("action", "reason", "mutate", "why"),
    [
        ("retry", None, lambda s: s.update(pending_escalations=[]), "nothing to decide"),
        ("skip", None, lambda s: s.pop("pending_escalations"), "nothing to decide"),
        ("cancel", "  ", lambda s: None, "needs a reason"),
        ("cancel", "x", lambda s: s.update(active_workflow=None), "no active workflow"),
        ("retry", None, lambda s: s.update(active_workflow=None), "no active workflow"),
        ("cancel", "x", lambda s: s.update(workflow_history={}), "not a list"),
    ],
)
def test_escalation_refusals_write_nothing(tmp_path: Path, action, reason, mutate, why) -> None:
    state = feature_state(gate=None, escalations=1)
    mutate(state)
    path = write_state(tmp_path, state)
    before = path.read_bytes()
    result = decide.decide_escalation(path, action, reason=reason)
    assert result.outcome == "refused-invalid", result.message
    assert why in result.message
    assert path.read_bytes() == before


def test_unknown_action_is_refused_and_journaled(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    result = decide.decide_review(path, "approve-all")
    assert result.outcome == "refused-invalid"
    assert journal_entries(tmp_path)[-1]["outcome"] == "refused-invalid"


# ---------------------------------------------------------------------------- compare-and-swap


def test_version_conflict_refuses_and_shows_the_new_state(tmp_path: Path) -> None:
    state = feature_state()
    path = write_state(tmp_path, state)
    seen = seen_of(path)
    state["state_version"] = 43  # the controller wrote twice meanwhile
    state["active_workflow"]["supervised_review"]["status"] = "reviewing"
    path.write_bytes(expected_text(state))
    before = path.read_bytes()
    result = decide.decide_review(path, "continue", seen=seen)
    assert result.outcome == "refused-conflict" and result.exit_code == 3
    assert "state_version is 43, you saw 41" in result.message
    assert "reviewing" in result.message  # the current state is shown
    assert result.state_summary["supervised_review"]["status"] == "reviewing"
    assert path.read_bytes() == before
    assert journal_entries(tmp_path)[-1]["outcome"] == "refused-conflict"


def test_dependent_fields_conflict_even_at_the_same_version(tmp_path: Path) -> None:
    """A writer that does not bump state_version (some bump by hand) still cannot slip by."""
    state = feature_state(gate=None, escalations=1)
    path = write_state(tmp_path, state)
    seen = seen_of(path)
    state["pending_escalations"].append(
        dict(state["pending_escalations"][0], type="corridor_blocked")
    )
    path.write_bytes(expected_text(state))
    before = path.read_bytes()
    result = decide.decide_escalation(path, "skip", seen=seen)
    assert result.outcome == "refused-conflict"
    assert "depends on changed" in result.message
    assert path.read_bytes() == before


def test_unrelated_change_at_same_version_is_not_a_conflict(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=1)
    path = write_state(tmp_path, state)
    seen = seen_of(path)
    state["counters"]["owner_writes"] = 9
    path.write_bytes(expected_text(state))
    result = decide.decide_escalation(path, "skip", seen=seen)
    assert result.outcome == "applied"
    assert load(path)["counters"]["owner_writes"] == 9


def test_seen_with_control_characters_matches_cleaned_disk(tmp_path: Path) -> None:
    state = feature_state(gate=None, escalations=1)
    state["pending_escalations"][0]["detail"] = "red \x1b[31mFAIL\x1b[0m\r\n done"
    path = write_state(tmp_path, state)
    result = decide.decide_escalation(path, "skip", seen=seen_of(path))  # seen is cleaned
    assert result.outcome == "applied", result.message


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b'{\n  "state_version": 41,\n  "phases": {',
        b"{'a': 1}",
        b"[1, 2]",
        b'{"a": NaN}',
        b'{"a": 1, "a": 2}',
        b"\xef\xbb\xbf{}",
        b'{"a": "\xff"}',
        b'{"state_version": "41"}',
    ],
)
def test_invalid_json_on_disk_is_refused_untouched(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_bytes(content)
    result = decide.decide_review(path, "continue")
    assert result.outcome == "refused-invalid", result.message
    assert path.read_bytes() == content
    assert not list(path.parent.glob(".state.json.phasewatch-*"))
    assert journal_entries(tmp_path)[-1]["outcome"] == "refused-invalid"


def test_missing_file_is_nothing_to_decide(tmp_path: Path) -> None:
    (tmp_path / ".isdlc").mkdir()
    result = decide.decide_review(tmp_path / ".isdlc" / "state.json", "continue")
    assert result.outcome == "refused-invalid" and "does not exist" in result.message


# ---------------------------------------------------------------------------- file handling


def test_mode_kept_and_no_temp_left(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    os.chmod(path, 0o640)
    inode = path.stat().st_ino
    result = decide.decide_review(path, "continue")
    assert result.outcome == "applied"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert path.stat().st_ino != inode  # replaced, not rewritten in place
    assert sorted(p.name for p in path.parent.iterdir()) == [
        "phasewatch-decisions.jsonl",
        "phasewatch.lock",
        "state.json",
    ]


def test_symlinked_state_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    real = write_state(tmp_path / "real", feature_state())
    before = real.read_bytes()
    (tmp_path / "proj" / ".isdlc").mkdir(parents=True)
    link = tmp_path / "proj" / ".isdlc" / "state.json"
    link.symlink_to(real)
    result = decide.decide_review(link, "continue")
    assert result.outcome == "refused-invalid" and "symbolic link" in result.message
    assert link.is_symlink() and real.read_bytes() == before


@pytest.mark.parametrize(("tail", "newline"), [("\n", "\n"), ("", "\r\n"), ("\r\n", "\r\n")])
def test_detected_style_kept(tmp_path: Path, tail: str, newline: str) -> None:
    state = feature_state()
    original = decide.dumps(state, decide.Style("    ", newline, "", tail))
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_bytes(original.encode())
    result = decide.decide_review(path, "review")
    assert result.outcome == "applied" and "re-laid out" not in result.message
    want = clone(state)
    want["active_workflow"]["supervised_review"].update(status="reviewing", paused_at=NOW)
    want["state_version"] = 42
    assert path.read_bytes() == decide.dumps(want, decide.Style("    ", newline, "", tail)).encode()


def test_compact_file_stays_compact(tmp_path: Path) -> None:
    state = feature_state()
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_text(json.dumps(state, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    result = decide.decide_review(path, "review")
    assert result.outcome == "applied" and "re-laid out" not in result.message
    assert "\n" not in path.read_text(encoding="utf-8")


def test_odd_layout_is_relaid_out_with_values_kept(tmp_path: Path) -> None:
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_text(
        '{"state_version": 5, "x": [1.50, "\\u00e9"],\n "active_workflow": {"supervised_review":'
        ' {"phase": "01-requirements", "status": "gate_presented"}}}',
        encoding="utf-8",
    )
    result = decide.decide_review(path, "review")
    assert result.outcome == "applied" and "re-laid out" in result.message
    text = path.read_text(encoding="utf-8")
    assert "1.50" in text and '"\\u00e9"' in text
    assert journal_entries(tmp_path)[-1]["params"] == {"reformatted": True}


def test_stale_temps_of_dead_processes_are_removed(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    dead = path.with_name(".state.json.phasewatch-999999999.tmp")  # no such pid
    alive = path.with_name(f".state.json.phasewatch-{os.getppid()}.tmp")
    other = path.with_name(".state.json.phasewatch-abc.tmp")
    for p in (dead, alive, other):
        p.write_text("{")
    assert decide.decide_review(path, "review").outcome == "applied"
    assert not dead.exists() and alive.exists() and other.exists()


def test_a_decision_the_journal_cannot_record_is_not_made(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    (tmp_path / ".isdlc" / "phasewatch-decisions.jsonl").mkdir()  # cannot be appended to
    result = decide.decide_review(path, "continue")
    assert result.outcome == "refused-invalid" and result.exit_code == 2
    assert "journal" in result.message and "not made" in result.message
    assert load(path)["state_version"] == 41


def test_journal_without_isdlc_goes_to_the_root(tmp_path: Path) -> None:
    assert decide.journal_path(tmp_path) == tmp_path / ".phasewatch-decisions.jsonl"
    (tmp_path / ".isdlc").mkdir()
    assert decide.journal_path(tmp_path) == tmp_path / ".isdlc" / "phasewatch-decisions.jsonl"


def test_every_attempt_is_journaled_in_order(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    decide.decide_review(path, "resume")  # refused
    decide.decide_review(path, "review", expect_version=40)  # conflict
    decide.decide_review(path, "review", expect_version=41)  # applied
    entries = journal_entries(tmp_path)
    assert [e["outcome"] for e in entries] == ["refused-invalid", "refused-conflict", "applied"]
    keys = ["ts", "who", "via", "action", "target", "pid", "params", "version_before",
            "version_after", "outcome", "message"]  # fmt: skip
    # an applied line adds what the decision claims (what the file must hold: core.decide.claims)
    assert [list(e) for e in entries] == [keys, keys, [*keys, "claim", "sha256"]]
    assert decide.read_journal(tmp_path / ".isdlc" / "phasewatch-decisions.jsonl") == entries


# ---------------------------------------------------------------------------- races (injected)


def test_owner_write_before_our_replace_is_a_conflict(tmp_path, monkeypatch) -> None:
    """The owner rewrites the file after we read it (while our temp is being written)."""
    state = feature_state()
    path = write_state(tmp_path, state)
    real_write_temp = decide_files._write_temp
    owner = clone(state)
    owner["state_version"] = 42
    owner["counters"]["owner_writes"] = 1

    def write_temp(*args):
        tmp = real_write_temp(*args)
        path.write_bytes(expected_text(owner))  # truncate + write, the owner's way
        return tmp

    monkeypatch.setattr(decide_files, "_write_temp", write_temp)
    result = decide.decide_review(path, "continue", expect_version=41)
    assert result.outcome == "refused-conflict" and "changed while" in result.message
    assert path.read_bytes() == expected_text(owner)
    assert not list(path.parent.glob(".state.json.phasewatch-*"))


def test_owner_write_onto_the_replaced_file_is_restored(tmp_path, monkeypatch) -> None:
    """The owner's truncate-write lands on the old inode in the instant before our rename: the
    owner's bytes are put back and our decision is withdrawn (reported as a race)."""
    state = feature_state()
    path = write_state(tmp_path, state)
    owner = clone(state)
    owner["state_version"] = 42
    owner["counters"]["owner_writes"] = 1
    real_replace = os.replace

    def replace(src, dst, **dir_fds):
        if Path(dst).name == path.name and Path(src).name.startswith(".state.json.phasewatch-"):
            monkeypatch.setattr(os, "replace", real_replace)
            with open(path, "wb") as fh:  # same inode as the one we are about to replace
                fh.write(expected_text(owner))
        real_replace(src, dst, **dir_fds)

    monkeypatch.setattr(os, "replace", replace)
    result = decide.decide_review(path, "continue", expect_version=41)
    assert result.outcome == "race" and result.exit_code == 3
    assert "withdrawn" in result.message
    assert path.read_bytes() == expected_text(owner)
    assert journal_entries(tmp_path)[-1]["outcome"] == "race"


def test_owner_write_right_after_ours_is_reported(tmp_path, monkeypatch) -> None:
    state = feature_state()
    path = write_state(tmp_path, state)
    owner = clone(state)
    owner["state_version"] = 42
    real_fsync_dir = decide_files._fsync_dir

    def fsync_dir(d):
        real_fsync_dir(d)
        if not owner.get("done"):
            owner["done"] = True
            path.write_bytes(expected_text({k: v for k, v in owner.items() if k != "done"}))

    monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)
    result = decide.decide_review(path, "continue", expect_version=41)
    assert result.outcome == "race" and "NOT in the file" in result.message
    assert result.version_after is None


def _truncate_after_our_rename(monkeypatch, path: Path, finish) -> None:
    """The owner opens the file for writing (truncating it) right after our rename, then is
    descheduled; ``finish(ours)`` (in a thread, given the bytes we wrote) completes its write."""
    real_fsync_dir = decide_files._fsync_dir

    def fsync_dir(d):
        real_fsync_dir(d)
        if not fired:
            fired.append(path.read_bytes())
            path.write_bytes(b"")
            threading.Thread(target=finish, args=(fired[0],), daemon=True).start()

    fired: list[bytes] = []
    monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)


def test_owner_slow_to_finish_its_write_is_waited_for(tmp_path, monkeypatch) -> None:
    """Found by the contention test on a busy machine: the owner read our file, truncated it,
    and finished its write (keeping the decision) 150 ms later; the look-again gave up after
    40 ms and said the decision was NOT in the file. It waits for a whole file now."""
    path = write_state(tmp_path, feature_state())

    def finish(ours: bytes) -> None:
        time.sleep(0.15)
        doc = json.loads(ours)
        doc["state_version"] += 1
        path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")

    _truncate_after_our_rename(monkeypatch, path, finish)
    result = decide.decide_review(path, "continue", expect_version=41)
    assert result.outcome == "applied", result.message
    assert "kept the decision" in result.message and result.version_after == 42
    assert load(path)["active_workflow"]["review_history"][-1]["action"] == "continue"


def test_owner_that_never_finishes_its_write_leaves_the_verdict_open(tmp_path, monkeypatch) -> None:
    """A file still empty when the look-again gives up is no proof either way: uncertain."""
    path = write_state(tmp_path, feature_state())
    monkeypatch.setattr(decide_files, "UNSETTLED_SECONDS", 0.2)
    _truncate_after_our_rename(monkeypatch, path, lambda ours: None)
    started = time.monotonic()
    result = decide.decide_review(path, "continue", expect_version=41)
    assert time.monotonic() - started < 2
    assert result.outcome == "race" and result.version_after is None
    assert "uncertain" in result.message and "NOT in the file" not in result.message


def test_torn_read_is_retried(tmp_path, monkeypatch) -> None:
    """An empty file (the owner mid truncate-write) is read again rather than refused."""
    state = feature_state()
    path = write_state(tmp_path, state)
    good = path.read_bytes()
    path.write_bytes(b"")
    real_sleep = time.sleep

    def sleep(seconds):
        if not path.read_bytes():  # the owner finishes its write while we wait
            path.write_bytes(good)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    result = decide.decide_review(path, "review")
    assert result.outcome == "applied", result.message


def test_owner_write_after_ours_that_kept_the_decision_is_applied(tmp_path, monkeypatch) -> None:
    """The owner read our file and wrote again before we looked back: the decision stands."""
    state = feature_state()
    path = write_state(tmp_path, state)
    real_fsync_dir = decide_files._fsync_dir
    fired = []

    def fsync_dir(d):
        real_fsync_dir(d)
        if not fired:
            fired.append(1)
            ours = load(path)
            ours["counters"]["owner_writes"] += 1
            ours["state_version"] += 1
            path.write_text(json.dumps(ours, indent=2, ensure_ascii=False), encoding="utf-8")

    monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)
    result = decide.decide_review(path, "continue", expect_version=41)
    assert result.outcome == "applied", result.message
    assert "kept the decision" in result.message
    assert result.version_after == 42 and result.state_summary["state_version"] == 43


@pytest.mark.parametrize(
    ("gate", "escalations", "call"),
    [
        ("gate_presented", 0, lambda p: decide.decide_review(p, "review")),
        ("gate_presented", 0, lambda p: decide.decide_review(p, "redo", guidance="g")),
        ("reviewing", 0, lambda p: decide.decide_review(p, "resume")),
        (None, 2, lambda p: decide.decide_escalation(p, "retry")),
        (None, 2, lambda p: decide.decide_escalation(p, "skip")),
        (None, 2, lambda p: decide.decide_escalation(p, "cancel", reason="r")),
    ],
)
def test_receipts_tell_kept_from_lost(tmp_path, monkeypatch, gate, escalations, call) -> None:
    """Each action's receipt: an owner write on top of ours keeps it (applied); an owner
    write from the state before ours loses it (race)."""
    for keep in (True, False):
        root = tmp_path / str(keep)
        state = feature_state(gate=gate, escalations=escalations)
        path = write_state(root, state)
        fired = []
        real_fsync_dir = decide_files._fsync_dir

        def fsync_dir(d, path=path, keep=keep, state=state, fired=fired, real=real_fsync_dir):
            real(d)
            if not fired:
                fired.append(1)
                doc = load(path) if keep else clone(state)
                doc["state_version"] = 42 if not keep else 43
                doc["counters"]["owner_writes"] += 1
                path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")

        monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)
        result = call(path)
        assert result.outcome == ("applied" if keep else "race"), result.message


def test_every_action_the_commands_accept_has_an_answer():
    from phasewatch.core.decide import escalation, outcomes, review

    assert set(review._ANSWERS) == set(outcomes.REVIEW_ACTIONS)
    assert set(escalation._ANSWERS) == set(outcomes.ESCALATION_ACTIONS)
