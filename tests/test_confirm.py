"""core.confirm: judging a later content of a file a decision was applied to."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from phasewatch.core.confirm import judge, still_holds, watch
from phasewatch.core.decide.claims import approval_footprint, review_claim, state_footprint


def dump(doc: Any) -> bytes:
    return (json.dumps(doc, indent=2) + "\n").encode()


GATE = {
    "state_version": 7,
    "current_phase": "06-implementation",
    "active_workflow": {
        "review_history": [{"phase": "05-test-strategy", "action": "continue"}],
        "supervised_review": {"phase": "06-implementation", "status": "gate_presented"},
    },
}


CONTINUE = review_claim("continue", "06-implementation", "t")


def continued(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """``doc`` after a review continue (as the writer does it)."""
    out = json.loads(json.dumps(doc))
    wf = out["active_workflow"]
    wf["review_history"].append(
        {"phase": "06-implementation", "action": "continue", "timestamp": "t"}
    )
    del wf["supervised_review"]
    out["state_version"] = version
    return out


def footprint_of(doc: dict[str, Any]) -> Any:
    return state_footprint(dump(doc), CONTINUE)


def test_a_stale_copy_written_back_is_a_revert() -> None:
    ours = dump(continued(GATE, 8))
    footprint = state_footprint(ours, CONTINUE)
    assert judge(footprint, ours) == ("unchanged", None)
    stale = dict(GATE, state_version=9, current_phase="06-implementation", extra="owner's field")
    assert judge(footprint, dump(stale)) == ("reverted", 9)


def test_an_owner_write_that_read_ours_holds() -> None:
    ours = continued(GATE, 8)
    later = json.loads(json.dumps(ours))
    later["state_version"] = 9
    later["active_workflow"]["supervised_review"] = {"phase": "07-testing", "status": "x"}
    later["current_phase"] = "07-testing"
    footprint = footprint_of(ours)
    assert judge(footprint, dump(later)) == ("held", 9)


def test_a_content_that_is_not_json_cannot_be_judged_yet() -> None:
    footprint = footprint_of(continued(GATE, 8))
    assert judge(footprint, b'{"state_version": 9, "act') is None


def test_plan_approval_is_judged_by_the_hook_test() -> None:
    ours = b"# Plan\n**Approved:** 2026-11-24T04:00:00Z\n## Slice 1\nStatus: pending\n"
    footprint = approval_footprint(ours)
    assert judge(footprint, ours) == ("unchanged", None)
    more = ours + b"## Slice 2\nStatus: pending\n"
    assert judge(footprint, more) == ("held", None)
    assert judge(footprint, b"# Plan\n## Slice 1\nStatus: pending\n") == ("reverted", None)
    other = ours.replace(b"04:00:00Z", b"05:00:00Z")
    assert judge(footprint, other) == ("reverted", None)  # someone else's marker, not ours
    assert judge(footprint, b"") is None  # between the planner's truncate and its write


def test_watch_reports_a_revert_written_during_the_window(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ours = dump(continued(GATE, 8))
    path.write_bytes(ours)
    footprint = state_footprint(ours, CONTINUE)

    def owner() -> None:  # a slow read-modify-write: it read before our write
        time.sleep(0.15)
        path.write_bytes(dump(dict(GATE, state_version=9)))

    thread = threading.Thread(target=owner)
    thread.start()
    result = watch(path, footprint, seconds=10)
    thread.join()
    assert result.reverted and result.version == 9


def test_watch_ends_unchanged_when_nobody_writes(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ours = dump(continued(GATE, 8))
    path.write_bytes(ours)
    result = watch(path, state_footprint(ours, CONTINUE), seconds=0.05)
    assert result.verdict == "unchanged" and not result.reverted


def test_watch_survives_the_file_vanishing_and_coming_back(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    footprint = footprint_of(continued(GATE, 8))
    calls = []

    def sleep(_s: float) -> None:
        calls.append(1)
        if len(calls) == 3:  # the owner's replace: gone for a moment, then the kept content
            later = continued(GATE, 9)
            path.write_bytes(dump(later))

    result = watch(path, footprint, seconds=60, sleep=sleep, stop=lambda: len(calls) > 5)
    assert result.verdict == "held" and result.version == 9  # held to the end of the window


def test_a_new_gate_in_the_same_object_is_not_our_pause_undone() -> None:
    """After our review pause and its resume, the owner presents the next phase's gate: the
    object is back to status gate_presented with no paused_at, but it is a new gate."""
    paused = json.loads(json.dumps(GATE))
    paused["state_version"] = 8
    paused["active_workflow"]["supervised_review"].update(status="reviewing", paused_at="t")
    footprint = state_footprint(dump(paused), review_claim("review", "06-implementation", "t"))
    later = json.loads(json.dumps(GATE))
    later["state_version"] = 15
    later["active_workflow"]["supervised_review"]["phase"] = "07-testing"
    later["active_workflow"]["review_history"].append(  # the resume, recorded
        {"phase": "06-implementation", "action": "review", "paused_at": "t", "resumed_at": "u"}
    )
    assert judge(footprint, dump(later)) == ("held", 15)
    stale = dict(GATE, state_version=9)  # the same gate, unpaused: our pause undone
    assert judge(footprint, dump(stale)) == ("reverted", 9)


def test_still_holds_reads_the_file_with_the_same_test(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ours = continued(GATE, 8)
    path.write_bytes(dump(ours))
    footprint = footprint_of(ours)
    assert still_holds(path, footprint)
    path.write_bytes(dump(dict(GATE, state_version=9)))
    assert not still_holds(path, footprint)
    path.unlink()
    assert not still_holds(path, footprint)  # nothing to prove it with
