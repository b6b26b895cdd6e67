"""Which phases a recovery marker reset (core.audit.framework.marker_clears): what the repair
planner asks before it keeps a sub-agent's evidence (docs/formats.md#repair)."""

from __future__ import annotations

from typing import Any

import pytest
from phasewatch.core.audit.framework import marker_clears

PHASES = ["01-requirements", "02-tracing", "05-test-strategy", "06-implementation"]


def _doc(kind: str | None, phase: str) -> dict[str, Any]:
    aw: dict[str, Any] = {"phases": PHASES, "current_phase": phase}
    if kind is not None:
        aw["recovery_action"] = {"type": kind, "phase": phase, "timestamp": "2026-11-26T10:00:00Z"}
    return {"active_workflow": aw}


@pytest.mark.parametrize(
    ("kind", "target", "phase", "cleared"),
    [
        ("retry", "02-tracing", "02-tracing", True),  # workflow-retry.cjs: the phase it retries
        ("retry", "05-test-strategy", "02-tracing", False),  # another phase: untouched
        ("rollback", "02-tracing", "02-tracing", True),  # workflow-rollback.cjs: the target
        ("rollback", "02-tracing", "06-implementation", True),  # and every later phase
        ("rollback", "05-test-strategy", "01-requirements", False),  # not an earlier one
        ("resumed_from_suspension", "02-tracing", "02-tracing", False),  # resets nothing
        (None, "02-tracing", "02-tracing", False),
    ],
)
def test_what_a_marker_reset(kind: str | None, target: str, phase: str, cleared: bool) -> None:
    assert marker_clears(_doc(kind, target), phase) is cleared


def test_a_rollback_that_cannot_be_placed_counts_as_a_reset() -> None:
    doc = _doc("rollback", "99-unknown")
    assert marker_clears(doc, "02-tracing")
