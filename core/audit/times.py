"""Timestamps and durations (``TIME-*``).

Checks take ``(em, state, raw)`` (see :mod:`core.audit.state`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..checks import Emitter
from ..models import PhaseRecord, State
from ..protocol import parse_iso
from . import rules as R
from ._util import awpath, ppath, q, workflow_records


def _stamp(em: Emitter, path: str, value: Any) -> datetime | None:
    if not isinstance(value, str) or not value.strip():
        return None
    when = parse_iso(value)
    if when is None:
        em.add(
            R.TIME_UNPARSEABLE,
            path,
            f"{path} is {q(value)}, not an ISO-8601 timestamp.",
            expected="ISO-8601",
            actual=value,
        )
    return when


def _order(em: Emitter, start_path: str, start: Any, end_path: str, end: Any) -> None:
    if start is None or end is None:
        return
    try:
        backwards = end < start
    except TypeError:  # pragma: no cover - parse_iso always returns aware datetimes
        return
    if backwards:
        em.add(
            R.TIME_ORDER,
            end_path,
            f"{end_path} ({end.isoformat()}) is earlier than {start_path} ({start.isoformat()}).",
            expected=f">= {start.isoformat()}",
            actual=end.isoformat(),
        )


def check_phase_times(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Every timestamp of every phase record parses and comes in order."""
    in_workflow = {k for k, _ in workflow_records(state)}
    for key, rec in state.phases.items():
        _phase_times(em, key, rec, key in in_workflow)


def _phase_times(em: Emitter, key: str, rec: PhaseRecord, in_workflow: bool) -> None:
    started = _stamp(em, ppath(key, "started"), rec.started)
    completed = _stamp(em, ppath(key, "completed"), rec.completed)
    completed_at = _stamp(em, ppath(key, "completed_at"), rec.completed_at)
    _order(em, ppath(key, "started"), started, ppath(key, "completed"), completed)
    _order(em, ppath(key, "started"), started, ppath(key, "completed_at"), completed_at)
    _stamp(em, ppath(key, "gate_passed"), rec.gate_passed)
    t = rec.timing
    if t is not None:
        t0 = _stamp(em, ppath(key, "timing", "started_at"), t.started_at)
        t1 = _stamp(em, ppath(key, "timing", "completed_at"), t.completed_at)
        _order(em, ppath(key, "timing", "started_at"), t0, ppath(key, "timing", "completed_at"), t1)
        if isinstance(t.wall_clock_minutes, int | float) and t.wall_clock_minutes < 0:
            em.add(
                R.TIME_NEGATIVE,
                ppath(key, "timing", "wall_clock_minutes"),
                f"phases[{key}].timing.wall_clock_minutes is {t.wall_clock_minutes}.",
                expected=">= 0",
                actual=t.wall_clock_minutes,
            )
    if rec.gate_validation is not None:
        _stamp(em, ppath(key, "gate_validation", "blocked_at"), rec.gate_validation.blocked_at)
    ir = rec.iteration_requirements
    if ir is not None and ir.test_iteration is not None:
        for j, entry in enumerate(ir.test_iteration.history):
            _stamp(
                em,
                ppath(
                    key,
                    "iteration_requirements",
                    "test_iteration",
                    f"history[{j}]",
                    "timestamp",
                ),
                entry.timestamp,
            )
    if (
        in_workflow
        and rec.status == "completed"
        and rec.completed_time is None
        and (t is None or not t.completed_at)
    ):
        em.add(
            R.TIME_COMPLETED_MISSING,
            ppath(key, "timing", "completed_at"),
            f"phases[{key}] is completed but has no completion time (timing.completed_at, "
            "completed).",
            expected="ISO timestamp",
            actual=None,
        )


def check_other_times(em: Emitter, state: State, raw: dict[str, Any]) -> None:
    """Timestamps outside the phase records: workflow, review, escalations, history, project."""
    aw = state.active_workflow
    if aw is not None:
        _stamp(em, awpath("started_at"), aw.started_at)
        if aw.recovery_action is not None:
            _stamp(em, awpath("recovery_action", "timestamp"), aw.recovery_action.timestamp)
        rv = aw.supervised_review
        if rv is not None:
            p = _stamp(em, awpath("supervised_review", "paused_at"), rv.paused_at)
            r = _stamp(em, awpath("supervised_review", "resumed_at"), rv.resumed_at)
            _order(
                em,
                awpath("supervised_review", "paused_at"),
                p,
                awpath("supervised_review", "resumed_at"),
                r,
            )
        for j, entry in enumerate(aw.review_history):
            _stamp(em, awpath(f"review_history[{j}]", "timestamp"), entry.timestamp)
    for j, e in enumerate(state.pending_escalations):
        _stamp(em, f"pending_escalations[{j}].timestamp", e.timestamp)
    for j, h in enumerate(state.workflow_history):
        path = f"workflow_history[{j}]"
        s = _stamp(em, f"{path}.started_at", h.started_at)
        c = _stamp(em, f"{path}.completed_at", h.completed_at)
        x = _stamp(em, f"{path}.cancelled_at", h.cancelled_at)
        _order(em, f"{path}.started_at", s, f"{path}.completed_at", c)
        _order(em, f"{path}.started_at", s, f"{path}.cancelled_at", x)
    if state.project is not None:
        _stamp(em, "project.created", state.project.created)
