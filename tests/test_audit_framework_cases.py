"""One unit test per shape the real iSDLC framework accepts or warns on (issue 12, items 1-9, 11).

The corpus in tests/conformance/isdlc/ proves the same on states the framework wrote itself;
these tests pin each case on the factories' documents so a regression names the case.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.locations import init_window, location_rows
from phasewatch.core.models import parse_state
from phasewatch.core.protocol import agents_for, review_phases, review_selected
from phasewatch.core.snapshot import evaluate

from tests import factories as F
from tests.factories import delpath, setpath

SRC = ".isdlc/state.json"


def run(doc: dict[str, Any]) -> list[Finding]:
    return list(evaluate(doc, SRC).findings)


def loud(doc: dict[str, Any]) -> list[str]:
    return [f"{f.rule_id} {f.path}" for f in run(doc) if f.severity is not Severity.INFO]


def init_only() -> dict[str, Any]:
    """The orchestrator's init-only mode: every phase pending in both maps."""
    doc = F.fresh_state()
    return setpath(doc, "active_workflow.phase_status.00-quick-scan", "pending")


def full_init() -> dict[str, Any]:
    """The orchestrator's other (deprecated) init: the first phase in_progress in phase_status
    only."""
    return setpath(F.fresh_state(), "active_workflow.phase_status.00-quick-scan", "in_progress")


def test_init_only_all_pending_is_quiet() -> None:
    doc = init_only()
    assert loud(doc) == []
    state, _ = parse_state(doc)
    assert "init-only" in init_window(state)


def test_full_init_is_the_legal_window_and_says_why() -> None:
    """The framework's own V9-A warns about the full init's shape until STEP 3c-prime: so does
    phasewatch (the severity contract), and it says why nothing needs doing."""
    doc = full_init()
    assert loud(doc) == ["SYNC-STATUS phases.00-quick-scan.status"]
    (warning,) = [f for f in run(doc) if f.rule_id == "SYNC-STATUS"]
    assert warning.severity is Severity.WARNING and "start" in warning.message
    assert "STEP" not in warning.message and "3c-prime" not in warning.message  # plain words
    window = [f for f in run(doc) if f.rule_id == "SYNC-INIT-WINDOW"]
    assert [f.path for f in window] == ["phases.00-quick-scan.status"]
    state, _ = parse_state(doc)
    row = location_rows(state)[0]
    assert row.disagree == () and "legal" in row.legal and "starts the phase" in row.legal


@pytest.mark.parametrize(
    ("key", "agent"),
    [
        ("02-impact-analysis", "impact-analyst"),
        ("04-design", "software-designer"),
        ("07-testing", "quality-assurance-engineer"),
        ("16-quality-loop", "quality-assurance-engineer"),
        ("08-code-review", "code-reviewer"),
        ("02-tracing", "trace-analyst"),
    ],
)
def test_phase_agent_map_names_are_legal(key: str, agent: str) -> None:
    assert agent in agents_for(key)


def test_software_designer_on_04_is_quiet() -> None:
    doc = F.run_until("feature", "3c-prime 04-design")
    assert loud(setpath(doc, "active_agent", "software-designer")) == []


def test_last_phase_completed_with_index_len_minus_one_is_quiet() -> None:
    doc = F.run_until("build", "3e 08-code-review")
    n = len(doc["active_workflow"]["phases"])
    assert loud(setpath(doc, "active_workflow.current_phase_index", n - 1)) == []


def test_index_behind_is_reported_but_not_loud() -> None:
    """The index left on a completed phase: the framework's validators accept it (V9-C sees
    the index and current_phase agree), so phasewatch only informs."""
    doc = F.run_until("build", "3e 06-implementation")
    doc = setpath(doc, "active_workflow.current_phase_index", 1)
    assert loud(doc) == []
    behind = [f for f in run(doc) if f.rule_id == "BOUNDS-INDEX-BEHIND"]
    assert [f.severity for f in behind] == [Severity.INFO]


def test_after_clear_transient_fields_a_second_workflow_is_quiet() -> None:
    """clearTransientFields(): top-level pointers null, phases {}; then a new workflow whose
    records only later steps write (the antigravity CLIs never write phases[k].started)."""
    doc = F.fresh_state("build")
    doc = setpath(doc, "current_phase", None)
    doc = setpath(doc, "active_agent", None)
    doc["phases"] = {"05-test-strategy": {"status": "completed", "completed_at": F.now(doc)}}
    aw = doc["active_workflow"]
    aw["phase_status"]["05-test-strategy"] = "completed"
    aw["phase_status"]["06-implementation"] = "in_progress"
    aw["current_phase"], aw["current_phase_index"] = "06-implementation", 1
    assert loud(doc) == []


@pytest.mark.parametrize(
    ("value", "selected"),
    [
        (None, True),
        ("some", True),
        ({}, True),
        ([0], True),
        (["00-quick-scan"], True),
        ([], True),
        (["03"], False),
        (["06", "00-quick-scan"], True),
        (["٠٦"], True),  # not ASCII digits: ignored like JavaScript's \d, so "all"
    ],
)
def test_review_phases_read_like_read_supervised_mode_config(value: Any, selected: bool) -> None:
    mode = {"enabled": True, "review_phases": value}
    assert review_selected(mode, "06-implementation") is selected


def test_review_phases_keeps_only_prefixes() -> None:
    assert review_phases({"review_phases": ["03", "06-implementation", 3]}) == ["03"]
    assert review_phases({"review_phases": "ALL"}) == "all"


def test_gate_with_review_phases_fallback_is_quiet() -> None:
    doc = F.run_until("build", "gate 06-implementation", supervised=True)
    doc = setpath(doc, "supervised_mode.review_phases", ["06-implementation"])
    assert [x for x in loud(doc) if x.startswith("REV-")] == []


def test_index_one_past_an_in_progress_phase_is_the_intermediate_state() -> None:
    doc = F.feature_state()  # 05-test-strategy in progress at index 5
    assert loud(setpath(doc, "active_workflow.current_phase_index", 6)) == []


def test_top_level_current_phase_null_is_not_compared() -> None:
    doc = setpath(F.feature_state(), "current_phase", None)
    assert loud(doc) == []


def test_skipped_summary_against_pending_record_is_found() -> None:
    doc = setpath(F.feature_state(), "active_workflow.phase_status.08-code-review", "skipped")
    assert "SYNC-STATUS phases.08-code-review.status" in loud(doc)


@pytest.mark.parametrize("value", ["23", "1", 7.5, True, [3]])
def test_state_version_not_a_number_is_an_error(value: Any) -> None:
    doc = setpath(F.feature_state(), "state_version", value)
    errors = [f for f in run(doc) if f.rule_id == "FIELD-VERSION"]
    if isinstance(value, float):
        assert errors == []  # a JavaScript number
    else:
        assert [f.severity for f in errors] == [Severity.ERROR]


def test_missing_record_is_only_info() -> None:
    doc = delpath(F.feature_state(), "phases.08-code-review")
    assert loud(doc) == []


def _documents() -> list[dict[str, Any]]:
    docs = [state for kind in ("feature", "build") for _, state in F.walk(kind, supervised=True)]
    docs += [
        setpath(F.feature_state(), "active_workflow.phase_status.04-design", "in_progress"),
        setpath(
            setpath(F.feature_state(), "active_workflow.current_phase", "06-implementation"),
            "current_phase",
            "06-implementation",
        ),
        delpath(F.finalized_state(), "workflow_history[0].metrics"),
    ]
    return docs


def test_findings_are_advice_not_conflicting_orders() -> None:
    """Never two rules asking for different values at one path; never internal dicts."""
    for doc in _documents():
        found = run(doc)
        by_path: dict[str, set[str]] = {}
        for f in found:
            by_path.setdefault(f.path, set()).add(json.dumps(f.expected, sort_keys=True))
            assert not isinstance(f.actual, dict) and not isinstance(f.expected, dict), f
        assert all(len(v) == 1 for v in by_path.values()), by_path


def test_matrix_explains_the_legal_init_window() -> None:
    from phasewatch.widgets.location_matrix import explain

    state, _ = parse_state(full_init())
    text = explain(location_rows(state)[0]).plain
    assert "agree" not in text and "legal init window" in text


def test_is_transition_is_the_rule_scope() -> None:
    from phasewatch.core.findings import get_rule as rule_of
    from phasewatch.core.findings import is_transition, make

    def finding(rule_id: str) -> Finding:
        return make(rule_of(rule_id), source=SRC, path="$", message="m")

    assert is_transition(finding("TR-STATUS-DOWN"))
    assert not is_transition(finding("SYNC-STATUS"))
    unknown = Finding("TR-NOT-A-RULE", Severity.INFO, SRC, "$", None, None, "m", "h")
    assert not is_transition(unknown)


def test_the_installers_skeleton_is_one_quiet_note() -> None:
    """The framework's installer (src/core/installer generateState) leaves pending records
    under its own phase keys and no state_version: one info note, nothing loud."""
    from phasewatch.core.protocol import INSTALLER_PHASE_KEYS

    doc = F.project_state()
    doc.pop("state_version", None)
    doc["current_phase"] = "01-requirements"
    doc["phases"] = {k: F.skeleton() for k in sorted(INSTALLER_PHASE_KEYS)}
    assert loud(doc) == []
    notes = [f for f in run(doc) if f.rule_id == "ALIAS-UNKNOWN"]
    assert [f.path for f in notes] == ["phases"] and "installer" in notes[0].message
