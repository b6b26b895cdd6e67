"""core.confirm: judging a later content of a file a decision was applied to."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.confirm import (
    approval_footprint,
    judge,
    overlaps,
    parent,
    state_footprint,
    watch,
)


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


def continued(doc: dict[str, Any], version: int) -> dict[str, Any]:
    """``doc`` after a review continue (as the writer does it)."""
    out = json.loads(json.dumps(doc))
    wf = out["active_workflow"]
    wf["review_history"].append({"phase": "06-implementation", "action": "continue", "ts": "t"})
    del wf["supervised_review"]
    out["state_version"] = version
    return out


def test_overlapping_paths() -> None:
    assert overlaps("a.b", "a.b")
    assert overlaps("a.b", "a.b.c") and overlaps("a.b[2].c", "a.b")
    assert overlaps('a.b["x.y"]', "a.b")
    assert not overlaps("a.b", "a.bc") and not overlaps("a.b", "a.c")


def test_a_stale_copy_written_back_is_a_revert() -> None:
    ours = dump(continued(GATE, 8))
    footprint = state_footprint(dump(GATE), ours)
    assert "state_version" not in footprint.paths and footprint.paths
    assert judge(footprint, ours) == ("unchanged", None)
    stale = dict(GATE, state_version=9, current_phase="06-implementation", extra="owner's field")
    assert judge(footprint, dump(stale)) == ("reverted", 9)


def test_an_owner_write_that_read_ours_holds() -> None:
    ours = continued(GATE, 8)
    later = json.loads(json.dumps(ours))
    later["state_version"] = 9
    later["active_workflow"]["supervised_review"] = {"phase": "07-testing", "status": "x"}
    later["current_phase"] = "07-testing"
    footprint = state_footprint(dump(GATE), dump(ours))
    assert judge(footprint, dump(later)) == ("held", 9)


def test_a_content_that_is_not_json_cannot_be_judged_yet() -> None:
    footprint = state_footprint(dump(GATE), dump(continued(GATE, 8)))
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


json_leaf = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)
json_values = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)
documents = st.dictionaries(st.sampled_from("abcde"), json_values, max_size=5)


@given(documents, documents, st.integers(1, 1000))
def test_any_decision_written_back_over_is_a_revert_and_kept_is_held(
    before: dict[str, Any], after: dict[str, Any], version: int
) -> None:
    after = {**after, "state_version": version + 1}
    before = {**before, "state_version": version}
    footprint = state_footprint(dump(before), dump(after))
    if not footprint.paths:
        return  # the decision changed nothing but the version: nothing to lose
    stale = {**before, "state_version": version + 2}
    assert judge(footprint, dump(stale))[0] == "reverted"
    kept = {**after, "state_version": version + 2, "zz-owner": 1}
    assert judge(footprint, dump(kept))[0] == "held"


def test_watch_reports_a_revert_written_during_the_window(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ours = dump(continued(GATE, 8))
    path.write_bytes(ours)
    footprint = state_footprint(dump(GATE), ours)

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
    result = watch(path, state_footprint(dump(GATE), ours), seconds=0.05)
    assert result.verdict == "unchanged" and not result.reverted


def test_watch_survives_the_file_vanishing_and_coming_back(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    ours = dump(continued(GATE, 8))
    footprint = state_footprint(dump(GATE), ours)
    calls = []

    def sleep(_s: float) -> None:
        calls.append(1)
        if len(calls) == 3:  # the owner's replace: gone for a moment, then the kept content
            later = continued(GATE, 9)
            path.write_bytes(dump(later))

    result = watch(path, footprint, seconds=60, sleep=sleep)
    assert result.verdict == "held" and result.version == 9


def test_parents_of_paths() -> None:
    assert parent("current_phase") is None and parent('$["a b"]') is None
    assert parent("active_workflow.supervised_review.status") == "active_workflow.supervised_review"
    assert parent("active_workflow.review_history[3]") == "active_workflow.review_history"
    assert parent('phases["a.b"]') == "phases"


def test_a_new_gate_in_the_same_object_is_not_our_pause_undone() -> None:
    """After our review pause and its resume, the owner presents the next phase's gate: the
    object is back to status gate_presented with no paused_at, but it is a new gate."""
    paused = json.loads(json.dumps(GATE))
    paused["state_version"] = 8
    paused["active_workflow"]["supervised_review"].update(status="reviewing", paused_at="t")
    footprint = state_footprint(dump(GATE), dump(paused))
    later = json.loads(json.dumps(GATE))
    later["state_version"] = 15
    later["active_workflow"]["supervised_review"]["phase"] = "07-testing"
    assert judge(footprint, dump(later)) == ("held", 15)
    stale = dict(GATE, state_version=9)  # the same gate, unpaused: our pause undone
    assert judge(footprint, dump(stale)) == ("reverted", 9)
