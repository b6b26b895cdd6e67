"""Snapshot rules of core.audit: a failing and a passing case for every rule id, the location
matrix agreement, and full correct workflows that must stay free of errors."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from phasewatch.core import audit
from phasewatch.core.audit import audit_state, audit_transition
from phasewatch.core.findings import Severity
from phasewatch.core.locations import AGENT, DETAIL, POINTERS, SUMMARY, location_rows
from phasewatch.core.models import parse_state
from phasewatch.core.snapshot import evaluate

from tests import factories as F
from tests.helpers.audit_snapshot_cases import (
    SNAPSHOT_CASES,
    SRC,
    WALKS,
    Case,
    cancelled_state,
    errors,
    feature_aw,
    ids,
    run,
)


@pytest.mark.parametrize("case", SNAPSHOT_CASES, ids=lambda c: f"{c.rule_id}: {c.name}")
def test_rule_fires_on_bad_state(case: Case) -> None:
    findings = [f for f in run(case.bad()) if f.rule_id == case.rule_id]
    assert findings, f"{case.rule_id} did not fire"
    if case.path is not None:
        assert case.path in {f.path for f in findings}
    if case.severity is not None:
        assert case.severity in {f.severity for f in findings}
    for f in findings:
        assert f.source == SRC
        assert f.message and f.hint
        json.dumps(f.to_json())  # expected / actual are JSON values


@pytest.mark.parametrize("case", SNAPSHOT_CASES, ids=lambda c: f"{c.rule_id}: {c.name}")
def test_rule_quiet_on_near_miss(case: Case) -> None:
    assert case.rule_id not in ids(run(case.good()))


# ----------------------------------------------------------------------------- specific behaviour


def test_messages_carry_the_values() -> None:
    doc = feature_aw("phase_status.04-design", "in_progress")
    f = next(f for f in run(doc) if f.rule_id == "SYNC-STATUS")
    assert "'completed'" not in f.message  # JSON spelling, not Python repr
    assert '"completed"' in f.message and '"in_progress"' in f.message
    # advice, not an order: which location says what, never one value to copy over the other
    assert f.actual == 'phases: "completed", phase_status: "in_progress"'
    assert "equal" in f.expected


def test_ready_made_documents_are_clean() -> None:
    for build in (
        F.project_state,
        F.fresh_state,
        F.feature_state,
        F.fix_state,
        F.build_state,
        F.finalized_state,
        cancelled_state,
    ):
        doc = build()
        json.dumps(doc)
        bad = [f for f in run(doc) if f.severity != Severity.INFO]
        assert not bad, (build.__name__, bad)


def test_factories_never_mutate_their_input() -> None:
    s = F.feature_state()
    before = copy.deepcopy(s)
    F.complete(s)
    F.escalate(s)
    F.setpath(s, "phases.05-test-strategy.status", "completed")
    F.delpath(s, "active_workflow")
    assert s == before
    assert F.complete(s)["state_version"] == s["state_version"] + 1


def test_duplicate_finding_paths_are_merged() -> None:
    # detail/summary disagreement is highlighted in two cells but reported once
    doc = feature_aw("phase_status.04-design", "in_progress")
    assert len([f for f in run(doc) if f.rule_id == "SYNC-STATUS"]) == 1
    keys = [f.key for f in run(doc)]
    assert len(keys) == len(set(keys))


def test_internal_failure_becomes_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(em: Any, state: Any, raw: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(audit, "SNAPSHOT_CHECKS", (broken, *audit.SNAPSHOT_CHECKS), raising=True)
    doc = feature_aw("phase_status.04-design", "in_progress")
    state, _ = parse_state(doc)
    found = audit_state(state, doc, SRC)
    internal = [f for f in found if f.rule_id == "AUDIT-INTERNAL"]
    assert len(internal) == 1 and "boom" in internal[0].message
    assert "SYNC-STATUS" in ids(found)  # the other checks still ran
    monkeypatch.undo()
    assert "AUDIT-INTERNAL" not in ids(run(doc))  # and it never fires on its own


def test_wrong_types_are_left_to_schema_type() -> None:
    doc = feature_aw("current_phase_index", "6")
    found = run(doc)
    assert "SCHEMA-TYPE" in ids(found)
    assert not [f for f in found if f.rule_id == "FIELD-REQUIRED"]  # present, just mistyped


def test_non_dict_raw_and_foreign_state_do_not_raise() -> None:
    state, _ = parse_state(F.feature_state())
    assert isinstance(audit_state(state, None, SRC), list)  # type: ignore[arg-type]
    assert isinstance(audit_state(None, {}, SRC), list)  # type: ignore[arg-type]
    assert isinstance(audit_transition(None, None, state, [], SRC), list)  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- locations agree


def _location_corpus() -> list[dict[str, Any]]:
    docs = [c.bad() for c in SNAPSHOT_CASES] + [c.good() for c in SNAPSHOT_CASES]
    docs += [doc for _, doc in F.walk("feature", supervised=True, redo_at="03-architecture")]
    return docs


def test_location_disagreements_and_sync_findings_agree() -> None:
    """Every highlighted cell has a SYNC finding naming it, and every SYNC finding has a cell."""
    for doc in _location_corpus():
        state, _ = parse_state(doc)
        rows = location_rows(state)
        sync = [f for f in audit_state(state, doc, SRC) if f.rule_id.startswith("SYNC-")]
        by_rule = {f.rule_id: f for f in sync}
        explained: set[str] = set()
        for row in rows:
            if row.legal:  # the init window: an info finding says why the cells differ (and
                # the framework's own V9-A, which warns about it, is mirrored as SYNC-STATUS)
                assert any(f.path == f"phases.{row.key}.status" for f in sync)
                explained |= {"SYNC-INIT-WINDOW", "SYNC-STATUS"}
            for column, text in row.disagree:
                if column == AGENT:
                    want = "SYNC-AGENT"
                elif column == POINTERS and not text.startswith("only"):
                    want = "SYNC-PENDING-CURRENT"
                elif column == POINTERS:
                    top_differs = (
                        state.current_phase is not None and row.aw_current != row.top_current
                    )
                    want = "SYNC-CURRENT" if top_differs else "SYNC-INDEX"
                elif column == DETAIL and not row.has_record:
                    want = "SYNC-DETAIL-MISSING"
                elif column == SUMMARY and row.summary is None:
                    want = "SYNC-SUMMARY-MISSING"
                else:
                    want = "SYNC-STATUS"
                assert want in by_rule, (row.key, column, text)
                if want == "SYNC-STATUS":
                    assert any(
                        f.path == f"phases.{row.key}.status" for f in sync if f.rule_id == want
                    )
                explained.add(want)
                if (
                    column == POINTERS
                    and text.startswith("only")
                    and row.aw_current != row.index_current
                ):
                    explained.add("SYNC-INDEX")
        assert {f.rule_id for f in sync} <= explained, (
            {f.rule_id for f in sync} - explained,
            doc.get("active_workflow"),
        )


# ----------------------------------------------------------------------------- full correct runs


@pytest.mark.parametrize("name", list(WALKS))
def test_correct_run_has_no_errors_or_warnings(name: str) -> None:
    steps = WALKS[name]()
    assert len(steps) >= 3
    prev: tuple[Any, dict[str, Any]] | None = None
    for label, doc in steps:
        state, schema = parse_state(doc, SRC)
        assert not schema, (label, schema)
        found = audit_state(state, doc, SRC)
        noisy = [f for f in found if f.severity != Severity.INFO]
        assert not noisy, (label, noisy)
        if prev is not None:
            trans = audit_transition(prev[0], prev[1], state, doc, SRC)
            noisy = [f for f in trans if f.severity != Severity.INFO]
            assert not noisy, (label, noisy)
        prev = (state, doc)


def test_correct_run_through_snapshot_evaluate() -> None:
    snap = None
    for label, doc in WALKS["feature supervised (review 03, redo 06, escalation 16)"]():
        snap = evaluate(doc, SRC, snap)
        assert not errors(snap.findings), (label, errors(snap.findings))
        assert not [r for r in snap.rows if r.divergent and r.key != "00-quick-scan"], label


def test_walk_exercises_the_protocol_windows() -> None:
    labels = [
        label for label, _ in WALKS["feature supervised (review 03, redo 06, escalation 16)"]()
    ]
    for expected in (
        "init",
        "3c-prime 00-quick-scan",
        "3e 05-test-strategy",
        "gate 03-architecture",
        "review 03-architecture",
        "redo 06-implementation",
        "3c-prime redo 06-implementation",
        "gate again 06-implementation",
        "escalate 16-quality-loop",
        "retry 16-quality-loop",
        "finalize",
    ):
        assert expected in labels
    redo = F.run_until(
        "feature",
        "3c-prime redo 06-implementation",
        supervised=True,
        review_phases=["06"],
        redo_at="06-implementation",
    )
    aw = redo["active_workflow"]
    assert aw["current_phase_index"] == aw["phases"].index("06-implementation") + 1
    assert redo["phases"]["06-implementation"]["status"] == "in_progress"
    assert aw["supervised_review"]["status"] == "redo_pending"
