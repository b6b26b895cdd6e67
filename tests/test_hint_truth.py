"""Rule texts held to what the framework's own code did (issue 42, deliverable 3).

Each rule whose text names a framework step is checked on the generated corpus
(tests/conformance/isdlc/generated.jsonl.gz), where that step is the framework's own code run
on a scratch project: the text must say what the step did there, and no two findings on one
state may give opposite advice about the same keys.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from phasewatch.core.audit import rules as R
from phasewatch.core.findings import Finding, Severity

from tests.helpers import generated_corpus as G

ADVANCED = G.ADVANCED


@cache
def _advances() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(state before, state after) of every phase-advance.cjs run that advanced."""
    _, records = G.load()
    return [
        (records[r["prev"]]["state"], r["state"])
        for r in records
        if r["step"] == ADVANCED and r["prev"] is not None
    ]


def _transition(prev: dict[str, Any], cur: dict[str, Any]) -> list[Finding]:
    base = G.observe(prev)
    snap = G.observe(cur)
    after = G.evaluate(snap.raw, G.SOURCE, base, read=snap.read)
    return after.findings


def test_phase_advance_never_writes_the_top_level_current_phase_and_sync_current_says_so():
    advances = _advances()
    assert len(advances) >= 100
    # the fact, from the framework's own runs: the top-level copy is left as it was
    assert all(prev.get("current_phase") == cur.get("current_phase") for prev, cur in advances)
    stale = [
        cur
        for _, cur in advances
        if cur.get("current_phase") is not None
        and cur["current_phase"] != cur["active_workflow"]["current_phase"]
    ]
    assert stale, "no advance over a set top-level copy in the corpus"
    for cur in stale[:10]:
        f = next(f for f in G.observe(cur).findings if f.rule_id == "SYNC-CURRENT")
        assert "phase-advance.cjs writes only active_workflow.current_phase" in f.hint
        assert "next phase start writes both" not in f.hint
    assert "phase-advance.cjs writes only" in R.SYNC_CURRENT.fix


def test_next_activated_is_what_todays_phase_advance_does():
    advances = _advances()
    # the fact: one write completes phase k and starts k+1 (phase-advance.cjs lines 150-153)
    for prev, cur in advances:
        aw = cur["active_workflow"]
        done = prev["active_workflow"]["current_phase"]
        assert aw["phase_status"][done] == "completed"
        assert aw["phase_status"][aw["current_phase"]] == "in_progress"
    assert "older" not in R.TR_NEXT_ACTIVATED.title
    assert "phase-advance.cjs" in R.TR_NEXT_ACTIVATED.title
    assert R.TR_NEXT_ACTIVATED.severity == Severity.INFO
    seen = 0
    for prev, cur in advances[:30]:
        for f in _transition(prev, cur):
            if f.rule_id == "TR-NEXT-ACTIVATED":
                seen += 1
                assert f.severity == Severity.INFO
                assert "phase-advance.cjs does this in one write by design" in f.message
                assert "must only complete" not in f.message
    assert seen


_fresh_inits = G.fresh_inits


def test_a_fresh_install_and_init_is_quiet_and_consistent_about_the_skeleton():
    inits = _fresh_inits()
    assert inits
    for state in inits:
        found = G.observe(state).findings
        infos = [f for f in found if f.severity == Severity.INFO]
        # the skeleton line, an init note, at most one per phase the workflow runs (a
        # phase whose record the framework writes at its first step); no stale-phase advice
        phases = state["active_workflow"]["phases"]
        assert len(infos) <= 2 + len(phases), [f.rule_id for f in infos]
        assert not [f for f in found if f.rule_id == "BOUNDS-STALE-PHASE"]
        keep = {k for f in found if f.rule_id == "ALIAS-UNKNOWN" for k in (f.actual or [])}
        assert keep and "Nothing to do" in next(
            f.message for f in found if f.rule_id == "ALIAS-UNKNOWN"
        )
        remove = {f.actual for f in found if f.rule_id == "BOUNDS-STALE-PHASE"}
        # no key both "nothing to do" and "remove it"
        assert not keep & remove


def test_the_skeleton_text_says_what_workflow_init_did():
    """ALIAS-UNKNOWN says workflow-init.cjs leaves the skeleton: it is still there after it."""
    for state in _fresh_inits():
        f = next(f for f in G.observe(state).findings if f.rule_id == "ALIAS-UNKNOWN")
        assert "workflow-init.cjs leaves them" in f.message
        assert all(k in state["phases"] for k in f.actual)
