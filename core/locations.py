"""The three redundant places that say where a workflow is, side by side (FORMATS.md 1).

1. ``phases[k].status`` (the detailed record, "detail")
2. ``active_workflow.phase_status[k]`` (the summary map, "summary")
3. the pointers ``active_workflow.current_phase`` / ``current_phase_index`` and the top-level
   mirrors ``current_phase`` + ``active_agent``

:func:`location_rows` builds one row per phase with every disagreement named, so the dashboard
can highlight cells and the audit can raise findings from the same facts.
"""

from __future__ import annotations

from dataclasses import dataclass

from .models import State
from .protocol import agents_for, canonical_phase

# Column names used in PhaseLocations.disagree
DETAIL, SUMMARY, POINTERS, AGENT = "detail", "summary", "pointers", "agent"


@dataclass(frozen=True, slots=True)
class PhaseLocations:
    key: str
    position: int | None  # index in active_workflow.phases (None: not in the workflow)
    detail: str | None  # phases[k].status
    has_record: bool  # phases[k] exists
    summary: str | None  # active_workflow.phase_status[k]
    aw_current: bool  # active_workflow.current_phase == k
    index_current: bool  # active_workflow.phases[current_phase_index] == k
    top_current: bool  # top-level current_phase == k
    agent: str | None  # active_agent, on the row the workflow says is current
    agent_ok: bool | None  # None: no agent expected/known for this row
    disagree: tuple[tuple[str, str], ...] = ()  # (column, explanation)

    @property
    def divergent(self) -> bool:
        return bool(self.disagree)

    def columns(self) -> set[str]:
        return {col for col, _ in self.disagree}

    @property
    def status(self) -> str | None:
        """Best single answer for a pipeline view: detail wins, then summary."""
        return self.detail or self.summary

    @property
    def is_current(self) -> bool:
        return self.aw_current or self.index_current or self.top_current


def _key_match(a: str | None, b: str) -> bool:
    return a is not None and (a == b or canonical_phase(a) == canonical_phase(b))


def location_rows(state: State) -> list[PhaseLocations]:
    aw = state.active_workflow
    order: list[str] = list(aw.phases) if aw else []
    seen = set(order)
    # phases recorded outside the workflow (stale entries), then summary-only keys
    for key in list(state.phases) + (list(aw.phase_status) if aw else []):
        if key not in seen:
            order.append(key)
            seen.add(key)
    if aw is None:
        extra = [k for k in (state.current_phase,) if k and k not in seen]
        order.extend(extra)

    idx = aw.current_phase_index if aw else None
    idx_key = aw.phases[idx] if aw and idx is not None and 0 <= idx < len(aw.phases) else None
    aw_cur = aw.current_phase if aw else None
    between = aw is not None and is_between_phases(state)
    rows: list[PhaseLocations] = []
    for key in order:
        position = aw.phases.index(key) if aw and key in aw.phases else None
        record = state.phases.get(key)
        detail = record.status if record else None
        summary = aw.phase_status.get(key) if aw else None
        a = _key_match(aw_cur, key)
        i = idx_key == key
        t = _key_match(state.current_phase, key)
        if between:
            # After STEP 3e (or during a supervised redo) the index is one past current_phase
            # until the next STEP 3c-prime: the protocol's own window, not a divergence.
            i = a
        awaiting = (
            aw is not None
            and position == 0
            and idx == 0
            and detail == "pending"
            and summary == "in_progress"
            and record is not None
            and record.started is None
        )
        notes: list[tuple[str, str]] = []
        if aw is not None and position is not None:
            if record is None:
                notes.append((DETAIL, f"phases[{key}] is missing although the workflow runs it"))
            if summary is None:
                notes.append(
                    (SUMMARY, f"phase_status[{key}] is missing although the workflow runs it")
                )
        if (
            detail is not None
            and summary is not None
            and detail != summary
            and not (summary == "skipped" and detail == "pending")
            and not awaiting  # initialised; STEP 3c-prime has not activated phase 0 yet
        ):
            text = f"phases[{key}].status is {detail!r} but phase_status[{key}] is {summary!r}"
            notes.append((DETAIL, text))
            notes.append((SUMMARY, text))
        if aw is not None and (a or i or t) and not (a == i == t):
            said = [
                name
                for name, flag in (
                    ("active_workflow.current_phase", a),
                    ("phases[current_phase_index]", i),
                    ("top-level current_phase", t),
                )
                if flag
            ]
            notes.append((POINTERS, f"only {', '.join(said)} point here"))
        if a and not awaiting and (detail == "pending" or summary == "pending"):
            notes.append((POINTERS, "current_phase points here but the phase is still 'pending'"))
        agent, agent_ok = None, None
        if a or (aw is None and t):
            agent = state.active_agent
            expected = agents_for(key)
            if expected:
                agent_ok = agent in expected
                if not agent_ok:
                    notes.append(
                        (
                            AGENT,
                            f"active_agent is {agent!r}; expected {' or '.join(sorted(expected))}",
                        )
                    )
        rows.append(
            PhaseLocations(
                key,
                position,
                detail,
                record is not None,
                summary,
                a,
                i,
                t,
                agent,
                agent_ok,
                tuple(notes),
            )
        )
    return rows


def is_between_phases(state: State) -> bool:
    """True in the protocol's window after STEP 3e: the index is one past ``current_phase``
    because that phase completed (or is being redone under supervised review)."""
    aw = state.active_workflow
    if aw is None or aw.current_phase not in aw.phases or aw.current_phase_index is None:
        return False
    cur = aw.current_phase
    if aw.current_phase_index != aw.phases.index(cur) + 1:
        return False
    record = state.phases.get(cur)
    done = (record is not None and record.status == "completed") or aw.phase_status.get(
        cur
    ) == "completed"
    review = aw.supervised_review
    redo = (
        review is not None
        and review.phase == cur
        and (review.status == "redo_pending" or (review.redo_count or 0) > 0)
    )
    return done or redo
