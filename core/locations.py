"""The three redundant places that say where a workflow is, side by side
(docs/formats.md#three-locations).

1. ``phases[k].status`` (the detailed record, "detail")
2. ``active_workflow.phase_status[k]`` (the summary map, "summary")
3. the pointers ``active_workflow.current_phase`` / ``current_phase_index`` and the top-level
   mirrors ``current_phase`` + ``active_agent``

:func:`location_rows` builds one row per phase with every disagreement named, so the dashboard
can highlight cells and the audit can raise findings from the same facts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec import Struct

from .protocol import agents_for, canonical_phase

if TYPE_CHECKING:
    from .models import State

# Column names used in PhaseLocations.disagree
DETAIL, SUMMARY, POINTERS, AGENT = "detail", "summary", "pointers", "agent"


class PhaseLocations(Struct, frozen=True):
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
    legal: str = ""  # cells differ but legally (the init window): why, in plain words

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


def no_phase_started(state: State) -> bool:
    """No phase of the workflow has been activated yet: only pending skeleton records (if any)
    and no completed summary (skipped phases are set at init by a process.json)."""
    aw = state.active_workflow
    if aw is None:
        return False
    for key in aw.phases:
        rec = state.phases.get(key)
        if rec is not None and (rec.status not in (None, "pending") or rec.started is not None):
            return False
    return not any(v in ("completed",) for v in aw.phase_status.values())


def init_window(state: State) -> str:
    """Why the first phase may legally look unfinished, or ``""`` outside the init window.

    Two legal shapes right after the orchestrator's init step, before STEP 3c-prime activates
    phase 0 (``current_phase`` and index already point at it):
    the init-only mode leaves every phase ``pending`` in both maps; the full init sets
    ``phase_status`` of phase 0 to ``in_progress`` while ``phases[k]`` stays a pending skeleton
    (the framework's validator notes that difference, V9-A, until 3c-prime writes both).
    """
    aw = state.active_workflow
    if aw is None or not aw.phases or aw.current_phase_index not in (0, None):
        return ""
    first = aw.phases[0]
    if not _key_match(aw.current_phase, first) or not no_phase_started(state):
        return ""
    summary = aw.phase_status.get(first)
    rec = state.phases.get(first)
    if summary == "in_progress" and (rec is None or rec.status in (None, "pending")):
        return (
            f"legal init window: the orchestrator set phase_status[{first}] to in_progress at "
            f"init; phases[{first}] becomes in_progress when the orchestrator starts the phase (the "
            "framework's validator notes the difference until then)."
        )
    if summary in (None, "pending"):
        return (
            f"legal init window: the workflow was initialised (init-only) and {first} waits for "
            "the orchestrator to start it."
        )
    return ""


def _pointer_note(a: bool, i: bool, t: bool | None) -> str:
    """The disagreement among the pointers naming one row; ``t`` None: top-level not set."""
    flags = [("active_workflow.current_phase", a), ("phases[current_phase_index]", i)]
    if t is not None:
        flags.append(("top-level current_phase", t))
    if not any(f for _, f in flags) or all(f for _, f in flags):
        return ""
    said = [name for name, flag in flags if flag]
    return f"only {', '.join(said)} point here"


def _status_note(key: str, detail: str | None, summary: str | None) -> str:
    if detail is None or summary is None or detail == summary:
        return ""
    return f"phases[{key}].status is {detail!r} but phase_status[{key}] is {summary!r}"


def _row_order(state: State) -> list[str]:
    aw = state.active_workflow
    order: list[str] = list(aw.phases) if aw else []
    seen = set(order)
    # phases recorded outside the workflow (stale entries), then summary-only keys
    for key in list(state.phases) + (list(aw.phase_status) if aw else []):
        if key not in seen:
            order.append(key)
            seen.add(key)
    if aw is None and state.current_phase and state.current_phase not in seen:
        order.append(state.current_phase)
    return order


def location_rows(state: State) -> list[PhaseLocations]:
    aw = state.active_workflow
    idx = aw.current_phase_index if aw else None
    idx_key = aw.phases[idx] if aw and idx is not None and 0 <= idx < len(aw.phases) else None
    between = aw is not None and is_between_phases(state)
    window = init_window(state)
    return [_row(state, key, idx_key, between, window) for key in _row_order(state)]


def _row(state: State, key: str, idx_key: str | None, between: bool, window: str) -> PhaseLocations:
    aw = state.active_workflow
    position = aw.index_of(key) if aw else None
    record = state.phases.get(key)
    detail = record.status if record else None
    summary = aw.phase_status.get(key) if aw else None
    a = _key_match(aw.current_phase if aw else None, key)
    # After STEP 3e the index is one past current_phase until the next 3c-prime: the
    # validator's own intermediate state (V9-C), not a divergence.
    i = a if between else idx_key == key
    t = _key_match(state.current_phase, key)
    legal = window if position == 0 else ""
    notes: list[tuple[str, str]] = []
    if aw is not None and position is not None:
        if record is None and summary == "completed":  # a record not yet written is by design
            notes.append(
                (DETAIL, f"phases[{key}] is missing although phase_status says it completed")
            )
        if summary is None:
            notes.append((SUMMARY, f"phase_status[{key}] is missing although the workflow runs it"))
    status = _status_note(key, detail, summary)
    if status and not legal:
        notes += [(DETAIL, status), (SUMMARY, status)]
    if aw is not None:
        # a null top-level current_phase is not compared (V9-B compares only when both are set;
        # clearTransientFields() nulls it and the antigravity CLIs never write it)
        pointer = _pointer_note(a, i, t if state.current_phase is not None else None)
        if pointer:
            notes.append((POINTERS, pointer))
    if a and not legal and (detail == "pending" or summary == "pending"):
        notes.append((POINTERS, "current_phase points here but the phase is still 'pending'"))
    agent, agent_ok = None, None
    if a or (aw is None and t):
        agent = state.active_agent
        expected = agents_for(key)
        if expected and agent is not None:  # null: cleared between workflows, not a claim
            agent_ok = agent in expected
            if not agent_ok:
                names = " or ".join(sorted(expected))
                notes.append((AGENT, f"active_agent is {agent!r}; expected {names}"))
    return PhaseLocations(
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
        legal if (legal and status) else "",
    )


def is_between_phases(state: State) -> bool:
    """True when ``current_phase_index`` is one past ``current_phase``: after STEP 3e (and
    during a supervised redo) until the next 3c-prime. The framework's validator suppresses
    exactly this case (V9-C "intermediate state"), whatever the phase's status."""
    aw = state.active_workflow
    at = None if aw is None else aw.index_of(aw.current_phase)
    if at is None or aw is None or aw.current_phase_index is None:
        return False
    return aw.current_phase_index == at + 1
