"""phasewatch's reading of the framework's live dashboard and status report against the
framework's own answers (tests/conformance/observe, made by ``make corpus`` with the
framework's own writers and views; docs/observability.md#proof)."""

from __future__ import annotations

import pytest
from phasewatch.core.observe import view

from tests.helpers.observe_compare import FRAMEWORK_WRONG, RECORDED, compare

pytestmark = pytest.mark.xdist_group("observe-corpus")

#: Every kind of fact the replay compares (none may go uncompared).
KINDS = {
    "status", "slug", "current_phase", "phase_dag", "progress", "active_agent", "sub_agent_log",
    "iteration_progress", "skills_built_in", "skills_external", "hook_events", "analysis_items",
    "active_analysis", "active_meta", "personas", "problems", "trace_header", "trace_status",
    "trace_duration", "trace_coverage", "trace_row_status", "trace_row_phase",
    "trace_row_minutes", "trace_row_iterations", "trace_row_summary", "trace_row_provider",
    "trace_activity", "summary_row", "summary_table",
}  # fmt: skip


def test_every_fact_equals_the_frameworks_or_is_its_documented_misreading() -> None:
    tally = compare(RECORDED)
    assert tally.projects >= 48
    assert tally.diffs == []
    assert set(tally.facts) == KINDS
    assert set(tally.wrong) <= set(FRAMEWORK_WRONG)
    # the misreadings the issue names do show on the framework's own output
    for kind in ("trace-phase", "trace-minutes", "trace-iterations", "iteration-progress"):
        assert tally.wrong[kind] > 0, kind


def test_the_replay_fails_when_phasewatch_reads_differently(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = view.hook_events
    monkeypatch.setattr(view, "hook_events", lambda lines, phase: real(lines, phase)[1:])
    tally = compare(RECORDED)
    assert any("hook_events" in d for d in tally.diffs)
