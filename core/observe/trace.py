"""The framework's status report (``/isdlc status``: ``formatWorkflowTrace`` and
``formatWorkflowSummary`` in ``src/core/observability/cli-formatter.js``, commit 0689df91) as
facts, read from what the writers write: a phase snapshot's ``key``,
``timing.wall_clock_minutes`` and ``test_iterations.count`` (``collectPhaseSnapshots``), where
the formatter reads ``phase``, ``wall_clock_minutes`` and ``iterations_used``
(docs/observability.md#where-the-framework-reads-the-wrong-names)."""

from __future__ import annotations

from typing import Any

from .js import first, get, js_round, key_order, number

#: formatWorkflowSummary's default number of workflows.
RECENT = 5
#: Workflows traced (the newest); a history longer than this is counted, not traced.
MAX_TRACED = 50


def phase_row(snap: Any) -> dict[str, Any]:
    status = get(snap, "status")
    minutes = get(snap, "wall_clock_minutes")
    if minutes is None:
        minutes = get(get(snap, "timing"), "wall_clock_minutes")
    iterations = get(snap, "iterations_used")
    if iterations is None:
        iterations = get(get(snap, "test_iterations"), "count")
    return {
        "status": "done" if status in ("complete", "completed") else status,
        "phase": first(get(snap, "key"), get(snap, "phase"), "unknown"),
        "wall_clock_minutes": minutes if number(minutes) else None,
        "iterations": iterations if number(iterations) else None,
        "coverage_percent": get(snap, "coverage_percent"),
        "summary": first(get(snap, "summary"), None),
        "provider": first(get(snap, "provider"), "unknown"),
    }


def _snapshots(entry: Any) -> list[Any]:
    snaps = get(entry, "phase_snapshots")
    return [s for s in snaps if isinstance(s, dict)] if isinstance(snaps, list) else []


def total_minutes(rows: list[dict[str, Any]]) -> float:
    return sum(r["wall_clock_minutes"] or 0 for r in rows)


def coverage(entry: Any) -> Any:
    """The last snapshot's coverage that is not null (cli-formatter.js extractCoverage)."""
    for snap in reversed(_snapshots(entry)):
        if snap.get("coverage_percent") is not None:
            return snap["coverage_percent"]
    return None


def trace(entry: Any) -> dict[str, Any]:
    """One workflow_history entry as formatWorkflowTrace shows it (docs/observability.md)."""
    rows = [phase_row(s) for s in _snapshots(entry)]
    groups: dict[str, list[dict[str, Any]]] = {}
    log = get(entry, "sub_agent_log")
    for sa in log if isinstance(log, list) else []:
        if not isinstance(sa, dict):
            continue
        phase = first(sa.get("phase"), "unknown")
        duration = sa.get("duration_ms")
        groups.setdefault(str(phase), []).append(
            {
                "agent": sa.get("agent"),
                "minutes": js_round(duration / 60000) if number(duration) else None,
                "status": first(sa.get("status"), "unknown"),
                "provider": first(sa.get("provider"), None),
            }
        )
    hooks = get(entry, "hook_events")
    arts = get(entry, "artifacts_produced")
    branch = first(get(get(entry, "git_branch"), "name"), get(entry, "branch"), None)
    return {
        "slug": first(
            get(entry, "slug"), get(entry, "id"), get(entry, "artifact_folder"), "unknown"
        ),
        "type": first(get(entry, "type"), get(entry, "workflow_type"), "unknown"),
        "status": first(get(entry, "status"), "unknown"),
        "duration_minutes": total_minutes(rows),
        "coverage_percent": coverage(entry),
        "branch": branch,
        "provider_mode": first(get(entry, "provider_mode"), None),
        "phases": rows,
        "sub_agents_by_phase": [{"phase": k, "agents": groups[k]} for k in key_order(list(groups))],
        "hook_events": [
            {
                "hook": h.get("hook"),
                "action": h.get("action"),
                "phase": h.get("phase"),
                "reason": first(h.get("reason"), ""),
                "resolution": first(h.get("resolution"), None),
            }
            for h in (hooks if isinstance(hooks, list) else [])
            if isinstance(h, dict)
        ],
        "artifacts_produced": [
            {"file_path": a.get("file_path"), "action": a.get("action")}
            for a in (arts if isinstance(arts, list) else [])
            if isinstance(a, dict)
        ],
    }


def recent(entry: Any) -> dict[str, Any]:
    """One row of formatWorkflowSummary's table."""
    rows = [phase_row(s) for s in _snapshots(entry)]
    return {
        "slug": str(first(get(entry, "slug"), get(entry, "artifact_folder"), "unknown"))[:44],
        "type": first(get(entry, "type"), "unknown"),
        "status": first(get(entry, "status"), "unknown"),
        "duration_minutes": total_minutes(rows),
        "coverage_percent": coverage(entry),
    }


def history(state: Any) -> dict[str, Any]:
    """Every workflow_history entry's trace (the newest :data:`MAX_TRACED`) and the table."""
    entries = get(state, "workflow_history")
    entries = entries if isinstance(entries, list) else []
    return {
        "workflows": len(entries),
        "traces": [trace(e) for e in entries[-MAX_TRACED:]],
        "recent_workflows": [recent(e) for e in entries[-RECENT:]],
    }
