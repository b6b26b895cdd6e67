"""Issue 25: a decision is "kept" only while its own fields hold it, against an owner that
writes the way the framework's controller does (a stale copy of ``active_workflow`` and
``pending_escalations`` written back whole, ``state_version`` = disk + 1)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core import decide
from phasewatch.core.confirm import judge, watch

from tests.helpers.decide import feature_state, load, write_state


def stringify(doc: Any) -> bytes:
    """``JSON.stringify(doc, null, 2)``: what ``writeState`` puts on disk (no newline)."""
    return json.dumps(doc, indent=2, ensure_ascii=False).encode()


def controller_write(stale: dict[str, Any], disk: dict[str, Any]) -> dict[str, Any]:
    """The Phase-Loop Controller's write: the file as it is now, with ``active_workflow`` and
    ``pending_escalations`` replaced by its own copy read earlier (moved on a little: a
    sub-agent log line, a hook event), ``state_version`` = disk + 1."""
    out = copy.deepcopy(disk)
    aw = copy.deepcopy(stale.get("active_workflow"))
    if isinstance(aw, dict):
        aw.setdefault("sub_agent_log", []).append({"agent": "software-developer", "ok": True})
        aw["hook_events"] = [{"hook": "gate-blocker", "event": "allow"}]
    out["active_workflow"] = aw
    out["pending_escalations"] = copy.deepcopy(stale.get("pending_escalations"))
    out["state_version"] = disk["state_version"] + 1
    return out


# (action, the decide function's keyword, the state it needs)
DECISIONS = [
    ("review", "continue", {}, {"gate": "gate_presented"}),
    ("review", "review", {}, {"gate": "gate_presented"}),
    ("review", "resume", {}, {"gate": "reviewing"}),
    ("review", "redo", {"guidance": "more tests"}, {"gate": "gate_presented"}),
    ("escalation", "retry", {}, {"gate": None, "escalations": 2}),
    ("escalation", "skip", {}, {"gate": None, "escalations": 2}),
    ("escalation", "cancel", {"reason": "wrong plan"}, {"gate": None, "escalations": 1}),
]
IDS = [f"{kind} {action}" for kind, action, _kw, _st in DECISIONS]


def _decide(path: Path, kind: str, action: str, kw: dict[str, Any], seen: Any) -> Any:
    fn = decide.decide_review if kind == "review" else decide.decide_escalation
    return fn(path, action, seen=seen, who="test", **kw)


@pytest.fixture(params=DECISIONS, ids=IDS)
def applied(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, Any, dict, dict]:
    """A decision applied on a fresh project: (path, result, the state before, the state after)."""
    kind, action, kw, shape = request.param
    path = write_state(tmp_path, feature_state(**shape))
    before = load(path)
    result = _decide(path, kind, action, kw, before)
    assert result.outcome == "applied", result.message
    return path, result, before, load(path)


def test_a_stale_controller_write_is_a_revert_whatever_else_it_changed(applied) -> None:
    """The bug of issue 25: the controller's stale write changes ``active_workflow`` (so the
    old generic judge saw 'their change overlaps ours') and bumps the version: still the
    decision is gone, and the watch must say so."""
    _path, result, before, after = applied
    stale = controller_write(before, after)
    assert judge(result.footprint, stringify(stale)) == ("reverted", after["state_version"] + 1)


def test_an_owner_write_on_top_of_ours_holds(applied) -> None:
    _path, result, _before, after = applied
    later = controller_write(after, after)  # it read our write, then wrote
    later["current_phase"] = "07-testing"
    assert judge(result.footprint, stringify(later)) == ("held", after["state_version"] + 1)


def test_a_write_that_undoes_one_field_of_a_redo_is_a_revert(tmp_path: Path) -> None:
    """Redo sets the gate to redo_pending and both phase statuses to in_progress: a write
    that keeps the gate but puts ``phase_status`` back to completed undid the re-run."""
    path = write_state(tmp_path, feature_state())
    before = load(path)
    result = decide.decide_review(path, "redo", guidance="again", seen=before)
    after = load(path)
    partial = copy.deepcopy(after)
    partial["active_workflow"]["phase_status"]["06-implementation"] = "completed"
    partial["state_version"] += 1
    assert judge(result.footprint, stringify(partial))[0] == "reverted"


def test_a_continue_whose_gate_comes_back_is_a_revert(tmp_path: Path) -> None:
    """The history entry alone is not the decision: with the same gate presented again the
    controller re-offers it (FORMATS: a decision in the file is honoured, so is its undoing)."""
    path = write_state(tmp_path, feature_state())
    before = load(path)
    result = decide.decide_review(path, "continue", seen=before)
    after = load(path)
    mixed = copy.deepcopy(after)
    mixed["active_workflow"]["supervised_review"] = before["active_workflow"]["supervised_review"]
    mixed["state_version"] += 1
    assert judge(result.footprint, stringify(mixed))[0] == "reverted"


def test_a_retry_whose_workflow_ended_since_still_holds(tmp_path: Path) -> None:
    """The retried phase ran, the workflow completed and was archived (``recovery_action``
    goes with it, ``active_workflow`` null) within the watch: not a revert. The stale copy,
    which brings the workflow back with its escalations, still is."""
    path = write_state(tmp_path, feature_state(gate=None, escalations=2))
    before = load(path)
    result = decide.decide_escalation(path, "retry", seen=before)
    after = load(path)
    done = copy.deepcopy(after)
    archived = {k: v for k, v in done["active_workflow"].items() if k != "recovery_action"}
    done.setdefault("workflow_history", []).append({**archived, "status": "completed"})
    done["active_workflow"], done["pending_escalations"] = None, []
    done["state_version"] += 1
    assert judge(result.footprint, stringify(done))[0] == "held"
    assert judge(result.footprint, stringify(controller_write(before, done)))[0] == "reverted"


owner_noise = st.dictionaries(
    st.sampled_from(["sub_agent_log", "hook_events", "budget_status", "zz_owner", "git_branch"]),
    st.integers(0, 5) | st.text(max_size=4) | st.lists(st.integers(0, 3), max_size=3),
    max_size=4,
)


@given(noise=owner_noise, top=owner_noise, bump=st.integers(1, 5))
def test_any_stale_rewrite_reverts_a_continue(noise: dict, top: dict, bump: int) -> None:
    """Whatever else the owner's stale write changed (in the workflow, at the top level, any
    version), the continue is reverted; the same changes on top of ours keep it."""
    state = feature_state()
    ours = copy.deepcopy(state)
    ours["active_workflow"]["review_history"].append(
        {"phase": "06-implementation", "action": "continue", "timestamp": "T"}
    )
    del ours["active_workflow"]["supervised_review"]
    ours["state_version"] = 42
    footprint = decide.claims.state_footprint(
        stringify(ours), decide.claims.review_claim("continue", "06-implementation", "T")
    )
    for base, verdict in ((state, "reverted"), (ours, "held")):
        doc = copy.deepcopy(base)
        doc["active_workflow"].update(noise)
        doc.update(top)
        doc["state_version"] = 42 + bump
        assert judge(footprint, stringify(doc))[0] == verdict


def test_the_watch_reports_a_revert_after_a_write_that_kept_it(tmp_path: Path) -> None:
    """Two writes in the window: the first kept the decision, the second (a stale copy)
    undid it. 'Kept' is said of the whole window, not of the first write seen."""
    path = write_state(tmp_path, feature_state())
    before = load(path)
    result = decide.decide_review(path, "continue", seen=before)
    after = load(path)
    writes = {2: controller_write(after, after), 5: controller_write(before, after)}
    calls: list[int] = []

    def sleep(_s: float) -> None:
        calls.append(1)
        if len(calls) in writes:
            disk = load(path)
            doc = writes[len(calls)]
            doc["state_version"] = disk["state_version"] + 1
            path.write_bytes(stringify(doc))

    verdict = watch(path, result.footprint, seconds=60, sleep=sleep, stop=lambda: len(calls) > 8)
    assert verdict.verdict == "reverted"


def test_the_watch_holds_when_every_write_in_the_window_kept_it(tmp_path: Path) -> None:
    path = write_state(tmp_path, feature_state())
    before = load(path)
    result = decide.decide_review(path, "continue", seen=before)
    calls: list[int] = []

    def sleep(_s: float) -> None:
        calls.append(1)
        if len(calls) in (2, 5):
            disk = load(path)
            path.write_bytes(stringify(controller_write(disk, disk)))

    verdict = watch(path, result.footprint, seconds=60, sleep=sleep, stop=lambda: len(calls) > 8)
    assert verdict.verdict == "held"


def test_already_applied_only_while_the_file_holds_it(tmp_path: Path) -> None:
    """A stale writer that bumps the version by hand from its own copy (41 + 1) leaves the
    version our write had: the journal says 'applied 41 -> 42', but the decision is gone.
    Pressing again must not say 'already applied'."""
    path = write_state(tmp_path, feature_state())
    seen = load(path)
    first = decide.decide_review(path, "review", seen=seen)
    assert first.outcome == "applied" and first.version_after == 42
    stale = copy.deepcopy(seen)
    stale["state_version"] = 42  # its copy's 41, bumped by hand
    path.write_bytes(stringify(stale))
    again = decide.decide_review(path, "review", seen=seen)
    assert "already applied" not in again.message
    assert again.outcome == "refused-conflict" and "NOT in the file" in again.message
    assert load(path) == stale  # nothing written over what the user has not seen


def test_already_applied_after_the_owner_moved_on_keeping_it(tmp_path: Path) -> None:
    """The owner wrote on top of our decision: pressing again on the old look is 'already
    applied' (the file holds it), not a conflict."""
    path = write_state(tmp_path, feature_state())
    seen = load(path)
    first = decide.decide_review(path, "review", seen=seen)
    assert first.outcome == "applied"
    after = load(path)
    path.write_bytes(stringify(controller_write(after, after)))
    again = decide.decide_review(path, "review", seen=seen)
    assert again.outcome == "applied" and again.message.startswith("already applied")
    assert again.version_after == 43


def test_the_journal_records_what_the_decision_claims(applied) -> None:
    """The applied line carries the claim, so 'already applied' (and anyone reading the
    journal) can test the file with the one definition."""
    path, result, _before, after = applied
    [line] = decide.read_journal(decide.journal_path(path.parent.parent))
    assert line["claim"] == result.footprint.claim
    assert decide.claims.holds(line["claim"], after)


def test_a_pause_followed_by_a_redo_still_holds(tmp_path: Path) -> None:
    """Redo from a paused gate keeps our ``paused_at`` (status redo_pending): the pause was
    decided on, not undone; the stale copy without it is still a revert."""
    path = write_state(tmp_path, feature_state())
    before = load(path)
    paused = decide.decide_review(path, "review", seen=before)
    redo = decide.decide_review(path, "redo", guidance="again", seen=load(path))
    assert redo.outcome == "applied"
    assert decide.claims.holds(paused.footprint.claim, load(path))
    assert not decide.claims.holds(paused.footprint.claim, before)
    rerun = load(path)  # the controller re-ran the phase: gate presented again, redo recorded
    rerun["active_workflow"]["supervised_review"]["status"] = "gate_presented"
    rerun["active_workflow"]["review_history"].append(
        {"phase": "06-implementation", "action": "redo", "guidance": "again", "timestamp": "~"}
    )
    assert decide.claims.holds(paused.footprint.claim, rerun)


def test_the_watch_reads_again_a_file_changed_within_the_clock_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """File times move in coarse ticks and an in-place rewrite keeps the inode: two writes of
    the same size within one tick look alike to stat. A fresh-looking stamp is not trusted."""
    import time as _time

    from phasewatch.core import confirm

    path = write_state(tmp_path, feature_state())
    before = load(path)
    result = decide.decide_review(path, "continue", seen=before)
    after = load(path)
    kept, stale = controller_write(after, after), controller_write(before, after)
    short, long = sorted((kept, stale), key=lambda d: len(stringify(d)))
    short["zz"] = ""
    short["zz"] = "x" * (len(stringify(long)) - len(stringify(short)))
    assert len(stringify(kept)) == len(stringify(stale))  # an in-place rewrite, same size
    real_stat = os.stat
    frozen = _time.time_ns()

    class Stamp:  # what stat says of both writes: the same times (inode and size are)
        def __init__(self, st: Any) -> None:
            self.st = st
            self.st_mtime_ns = self.st_ctime_ns = frozen

        def __getattr__(self, name: str) -> Any:
            return getattr(self.st, name)

    def stat(p: Any, **kw: Any) -> Any:
        return Stamp(real_stat(p, **kw))

    monkeypatch.setattr(confirm, "os", SimpleNamespace(stat=stat))  # the watch's stat only
    calls: list[int] = []

    def sleep(_s: float) -> None:
        calls.append(1)
        if len(calls) == 2:
            path.write_bytes(stringify(kept))
        if len(calls) == 4:
            path.write_bytes(stringify(stale))

    verdict = watch(path, result.footprint, seconds=60, sleep=sleep, stop=lambda: len(calls) > 8)
    assert verdict.verdict == "reverted"
