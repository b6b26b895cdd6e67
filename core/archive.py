"""A workflow's archive entry: ``phase_snapshots`` and ``metrics`` as the framework builds them.

When a workflow is cancelled (the orchestrator's "Cancellation Process": ``cancelled_at`` is set,
then ``collectPhaseSnapshots(state)`` from ``common.cjs``) or finalized, the framework records
one snapshot per phase of the workflow and a few metrics in its ``workflow_history`` entry. The
Cancel decision and the simulator's finalize both build them here, so what phasewatch writes is
what the framework would have written: the same keys, in the same order, with the same values.
``tests/conformance/isdlc/corpus/phase-snapshots.json`` holds the framework's own output on a
set of states (typical and odd) and the tests hold this module to it.

The rules, as the framework applies them:

* only phases of ``active_workflow.phases`` that have a truthy record in ``phases`` count;
* snapshot: ``key``, ``status`` (``"pending"`` when falsy), ``started``, ``completed``,
  ``gate_passed`` (null when falsy), ``duration_minutes`` (whole minutes between ``started``
  and ``completed``, rounded half up; null when either is missing, unparseable or negative),
  ``summary`` (the record's string ``summary``, else the newest ``history`` entry of the phase's
  agent within the phase's time range; at most 150 UTF-16 units); then, only when present:
  ``artifacts`` (a non-empty list), ``test_iterations`` (``{count, result, escalated}`` from
  ``iteration_requirements.test_iteration``), ``timing`` (any object);
* metrics: ``total_phases`` (the workflow's phase count), ``phases_completed``,
  ``total_duration_minutes`` (``started_at`` to ``completed_at`` or ``cancelled_at``),
  ``test_iterations_total``, ``gates_passed_first_try`` and ``gates_required_iteration``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from .protocol import parse_iso

SUMMARY_UNITS = 150
_MINUTE = timedelta(minutes=1)
#: The agent whose ``history`` entries can stand in for a phase's missing summary
#: (``common.cjs`` ``PHASE_AGENT_MAP``; one agent per phase key, unlike the controller's map).
SUMMARY_AGENTS = {
    "01-requirements": "requirements-analyst",
    "02-impact-analysis": "impact-analysis-orchestrator",
    "02-tracing": "tracing-orchestrator",
    "03-architecture": "solution-architect",
    "04-design": "system-designer",
    "05-test-strategy": "test-design-engineer",
    "06-implementation": "software-developer",
    "07-testing": "integration-tester",
    "08-code-review": "qa-engineer",
    "09-validation": "security-compliance-auditor",
    "10-cicd": "cicd-engineer",
    "11-local-testing": "environment-builder",
    "12-remote-build": "environment-builder",
    "12-test-deploy": "deployment-engineer-staging",
    "13-production": "release-manager",
    "14-operations": "site-reliability-engineer",
    "15-upgrade-plan": "upgrade-engineer",
    "15-upgrade-execute": "upgrade-engineer",
    "16-quality-loop": "quality-loop-engineer",
}


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness (an empty object or array is true, NaN is false)."""
    if isinstance(value, dict | list):
        return True
    return bool(value) and value == value


def _js_round(value: float) -> int:
    """``Math.round``: halves go up (towards +infinity), unlike Python's ``round``."""
    return math.floor(value + 0.5)


def _parse(value: Any) -> datetime | None:
    return parse_iso(value) if isinstance(value, str) else None


def whole_minutes(start: Any, end: Any) -> int | None:
    """``_computeDuration``: whole minutes from ``start`` to ``end``; None when not computable."""
    if not js_truthy(start) or not js_truthy(end):
        return None
    a, b = _parse(start), _parse(end)
    if a is None or b is None or b < a:
        return None
    return _js_round((b - a).total_seconds() / 60)


def _units(text: str, limit: int = SUMMARY_UNITS) -> str:
    """``text.substring(0, limit)``: JavaScript counts UTF-16 units (an emoji is two)."""
    if len(text) <= limit // 2:
        return text
    data = text.encode("utf-16-le", "surrogatepass")[: 2 * limit]
    return data.decode("utf-16-le", "surrogatepass")


def _history_summary(record: Mapping[str, Any], history: Any, key: str) -> str | None:
    """The newest ``history`` entry of the phase's agent (within the phase's time range, plus a
    minute, when both ends parse) stands in for a missing summary."""
    agent = SUMMARY_AGENTS.get(key)
    if not isinstance(history, list) or agent is None:
        return None
    start = _parse(record.get("started"))
    end_value = record.get("completed") if js_truthy(record.get("completed")) else None
    end = _parse(end_value if end_value is not None else record.get("gate_passed"))
    for entry in reversed(history):
        if not isinstance(entry, Mapping) or entry.get("agent") != agent:
            continue
        if start is not None and end is not None:
            at = _parse(entry.get("timestamp"))
            if at is None or not (start <= at <= end + _MINUTE):
                continue
        action = entry.get("action")
        action = _units(action) if isinstance(action, str) else ""
        return action or None
    return None


def _summary(record: Mapping[str, Any], history: Any, key: str) -> str | None:
    summary = record.get("summary")
    if isinstance(summary, str) and summary:
        return _units(summary)
    return _history_summary(record, history, key)


def _test_iterations(record: Mapping[str, Any]) -> dict[str, Any] | None:
    reqs = record.get("iteration_requirements")
    it = reqs.get("test_iteration") if isinstance(reqs, Mapping) else None
    if not js_truthy(it) or not isinstance(it, Mapping):
        return None
    count = it.get("current_iteration")
    if count is None:
        count = it.get("current")
    if count is None:
        count = 0
    if count == 0 and not js_truthy(it.get("completed")) and not js_truthy(it.get("escalated")):
        return None
    completed, escalated = it.get("completed") is True, it.get("escalated") is True
    result = "passed" if completed else "escalated" if escalated else "unknown"
    return {"count": count, "result": result, "escalated": escalated}


def snapshot(key: Any, record: Mapping[str, Any], history: Any) -> dict[str, Any]:
    """One phase's snapshot (keys in the framework's order); ``key`` as the workflow lists it."""

    def value(name: str) -> Any:
        got = record.get(name)
        return got if js_truthy(got) else None

    out: dict[str, Any] = {
        "key": key,
        "status": value("status") or "pending",
        "started": value("started"),
        "completed": value("completed"),
        "gate_passed": value("gate_passed"),
        "duration_minutes": whole_minutes(record.get("started"), record.get("completed")),
        "summary": _summary(record, history, key if isinstance(key, str) else ""),
    }
    artifacts = record.get("artifacts")
    if isinstance(artifacts, list) and artifacts:
        out["artifacts"] = artifacts
    tests = _test_iterations(record)
    if tests is not None:
        out["test_iterations"] = tests
    timing = record.get("timing")
    if js_truthy(timing) and isinstance(timing, dict | list):
        out["timing"] = timing
    return out


def metrics(snapshots: list[dict[str, Any]], workflow: Mapping[str, Any]) -> dict[str, Any]:
    """``_computeMetrics`` over the snapshots and the workflow's own timestamps."""
    phases = workflow.get("phases")
    end = workflow.get("completed_at")
    end = end if js_truthy(end) else workflow.get("cancelled_at")
    tests_total: int | float = 0
    first_try = iterated = 0
    for snap in snapshots:
        tests = snap.get("test_iterations")
        count = tests["count"] if tests else 0
        count = count if isinstance(count, int | float) and not isinstance(count, bool) else 0
        tests_total += count  # (a count that is not a number: JavaScript would concatenate)
        if js_truthy(snap.get("gate_passed")):
            if count > 1:
                iterated += 1
            else:
                first_try += 1
    return {
        "total_phases": _js_length(phases),
        "phases_completed": sum(1 for s in snapshots if s.get("status") == "completed"),
        "total_duration_minutes": whole_minutes(workflow.get("started_at"), end),
        "test_iterations_total": tests_total,
        "gates_passed_first_try": first_try,
        "gates_required_iteration": iterated,
    }


EMPTY_METRICS: dict[str, Any] = {
    "total_phases": 0,
    "phases_completed": 0,
    "total_duration_minutes": None,
    "test_iterations_total": 0,
    "gates_passed_first_try": 0,
    "gates_required_iteration": 0,
}


def archived(state: Mapping[str, Any], **stamp: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """:func:`collect` with the workflow stamped first (``completed_at=`` when it is finalized,
    ``cancelled_at=`` when cancelled), as the framework does before it collects."""
    workflow = state.get("active_workflow")
    if isinstance(workflow, Mapping):
        state = {**state, "active_workflow": {**workflow, **stamp}}
    return collect(state)


def collect(state: Mapping[str, Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``collectPhaseSnapshots(state)``: (phase_snapshots, metrics). Never raises."""
    workflow, records = state.get("active_workflow"), state.get("phases")
    if not js_truthy(workflow) or not js_truthy(records) or not isinstance(workflow, Mapping):
        return [], dict(EMPTY_METRICS)
    keys = workflow.get("phases")
    if not isinstance(keys, list) or not keys:
        return [], metrics([], workflow)
    records = records if isinstance(records, Mapping) else {}
    snapshots = []
    for key in keys:
        name = _js_key(key)
        record = records.get(name) if name is not None else None
        if not js_truthy(record) or not isinstance(record, Mapping):
            continue
        snapshots.append(snapshot(key, record, state.get("history")))
    return snapshots, metrics(snapshots, workflow)


def _js_length(value: Any) -> Any:
    """``(value && value.length) || 0``: a list's or string's length (UTF-16 units), an object's
    ``length`` property; 0 when that is missing or falsy."""
    if isinstance(value, list):
        length: Any = len(value)
    elif isinstance(value, str):
        length = len(value.encode("utf-16-le", "surrogatepass")) // 2
    elif isinstance(value, Mapping):
        length = value.get("length")
    else:
        length = 0
    return length if js_truthy(length) else 0


def _js_key(key: Any) -> str | None:
    """The property name JavaScript looks up for ``key`` (numbers become their text)."""
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)
    return None
