"""``SYNC-DETAIL-MISSING`` on a fresh workflow (issue 42): the framework's ``workflow-init.cjs``
writes no ``phases[k]`` record, its steps create a phase's record when they first write it and
its readers take a missing record as an empty one (docs/formats.md#phase-records). So the
phases not written yet are one finding, listing them, and no cell of the matrix is in error; a
phase ``phase_status`` calls completed without a record (the framework writes it as the phase
completes) keeps its own finding."""

from __future__ import annotations

from typing import Any

from phasewatch.core.findings import Severity
from phasewatch.core.locations import DETAIL, location_rows
from phasewatch.core.models import parse_state

from tests import factories as F
from tests.helpers import generated_corpus as G


def _unrecorded(state: dict[str, Any]) -> list[str]:
    aw = state["active_workflow"]
    return [
        k
        for k in aw["phases"]
        if k not in (state.get("phases") or {}) and aw["phase_status"].get(k) != "completed"
    ]


def test_a_fresh_init_gives_one_finding_listing_the_phases_not_written_yet():
    inits = G.fresh_inits()
    assert len(inits) >= 30
    listed = 0
    for state in inits:
        found = [f for f in G.observe(state).findings if f.rule_id == "SYNC-DETAIL-MISSING"]
        waiting = _unrecorded(state)
        if not waiting:
            assert found == []
            continue
        (f,) = found  # was one per phase: 148 over these 37 states
        assert f.path == "phases" and f.severity == Severity.INFO and f.actual == waiting
        assert "nothing to do" in f.message and ", ".join(waiting) in f.message
        rows = location_rows(parse_state(state, "s")[0])
        assert not [r.key for r in rows if r.key in waiting and DETAIL in r.columns()]
        listed += 1
    assert listed >= 30


def test_the_framework_advances_past_phases_that_have_no_record():
    """Judged by what the framework does next: phase-advance.cjs ran on states whose current
    phase had no record and advanced (it reads ``state.phases?.[phase] || {}``)."""
    _, records = G.load()
    advanced = [
        records[r["prev"]]["state"]
        for r in records
        if r["step"] == G.ADVANCED and r["prev"] is not None
    ]
    unrecorded = [
        s for s in advanced if s["active_workflow"]["current_phase"] not in (s.get("phases") or {})
    ]
    assert unrecorded  # the corpus has them: the framework's own runs


def test_a_completed_phase_without_its_record_keeps_its_own_finding():
    state = F.feature_state()
    del state["phases"]["04-design"]  # completed in phase_status (STEP 3e wrote its record)
    found = [f for f in G.observe(state).findings if f.rule_id == "SYNC-DETAIL-MISSING"]
    assert [f.path for f in found] == ["phases.04-design"]
    assert "completed" in found[0].message and "dropped" in found[0].message
    rows = {r.key: r for r in location_rows(parse_state(state, "s")[0])}
    assert DETAIL in rows["04-design"].columns()
    pending = F.feature_state()
    del pending["phases"]["06-implementation"]  # pending: not written yet, by design
    found = [f for f in G.observe(pending).findings if f.rule_id == "SYNC-DETAIL-MISSING"]
    assert [(f.path, f.actual) for f in found] == [("phases", ["06-implementation"])]
    rows = {r.key: r for r in location_rows(parse_state(pending, "s")[0])}
    assert not rows["06-implementation"].divergent  # its cell is not in error
