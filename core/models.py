"""Tolerant pydantic v2 models of ``.isdlc/state.json`` (docs/formats.md#isdlc).

Unknown keys are kept (``extra="allow"``), unknown phase keys are fine, and a value of the wrong
type never raises: :func:`parse_state` drops it, records a ``SCHEMA-TYPE`` finding with its JSON
path, and validates the rest. Strict mode is on so ``"41"`` is not silently taken for ``41``.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationError

from .findings import Finding, Severity, make, rule
from .protocol import canonical_phase
from .text import shorten

R_SCHEMA_TYPE = rule(
    "SCHEMA-TYPE",
    Severity.INFO,
    "A field has an unexpected type; phasewatch ignores it (validate-state.cjs rejects only "
    "the types FIELD-SHAPE and FIELD-VERSION name).",
    seed="docs/formats.md#isdlc (field types)",
    fix="Correct the value's type in the writer that produced it.",
)


# Empty lists and dicts are plain defaults: pydantic copies an unhashable default for each
# instance, and a ``default_factory=list`` costs an ``inspect.signature`` of the builtin (parsed
# from its text signature) per field when the schema is built: 4 ms of a ``check``.
class _Tolerant(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True, frozen=False, defer_build=True)


class Timing(_Tolerant):
    started_at: str | None = None
    completed_at: str | None = None
    wall_clock_minutes: float | None = None
    retries: int | None = None


class ConstitutionalValidation(_Tolerant):
    required: bool | None = None
    completed: bool | None = None
    status: str | None = None
    iterations_used: int | None = None
    max_iterations: int | None = None


class TestIterationEntry(_Tolerant):
    iteration: int | None = None
    timestamp: str | None = None
    command: str | None = None
    result: str | None = None


class TestIteration(_Tolerant):
    required: bool | None = None
    completed: bool | None = None
    current_iteration: int | None = None
    max_iterations: int | None = None
    last_test_result: str | None = None
    status: str | None = None
    escalation_reason: str | None = None
    history: list[TestIterationEntry] = []


class InteractiveElicitation(_Tolerant):
    required: bool | None = None
    completed: bool | None = None
    menu_interactions: int | None = None


class IterationRequirements(_Tolerant):
    test_iteration: TestIteration | None = None
    interactive_elicitation: InteractiveElicitation | None = None


class GateValidation(_Tolerant):
    status: str | None = None
    blocked_at: str | None = None
    blocking_requirements: list[Any] = []
    details: list[Any] = []


class PhaseRecord(_Tolerant):
    status: str | None = None
    started: str | None = None
    completed: str | None = None
    completed_at: str | None = None  # one writer uses this instead of `completed`
    gate_passed: Any = None
    artifacts: list[Any] = []
    summary: str | None = None
    retry_count: int | None = None
    timing: Timing | None = None
    constitutional_validation: ConstitutionalValidation | None = None
    iteration_requirements: IterationRequirements | None = None
    gate_validation: GateValidation | None = None

    @property
    def completed_time(self) -> str | None:
        return self.completed or self.completed_at


class SupervisedReview(_Tolerant):
    phase: str | None = None
    status: str | None = None
    paused_at: str | None = None
    resumed_at: str | None = None
    redo_count: int | None = None
    redo_guidance_history: list[Any] = []


class ReviewHistoryEntry(_Tolerant):
    phase: str | None = None
    action: str | None = None
    timestamp: str | None = None


class RecoveryAction(_Tolerant):
    type: str | None = None
    phase: str | None = None
    timestamp: str | None = None


class ActiveWorkflow(_Tolerant):
    type: str | None = None
    description: str | None = None
    slug: str | None = None
    artifact_folder: str | None = None
    phases: list[str] = []
    current_phase: str | None = None
    current_phase_index: int | None = None
    phase_status: dict[str, str] = {}
    started_at: str | None = None
    flags: dict[str, Any] = {}
    budget_status: str | None = None
    sizing: dict[str, Any] = {}
    supervised_review: SupervisedReview | None = None
    review_history: list[ReviewHistoryEntry] = []
    recovery_action: RecoveryAction | None = None
    hook_block_retries: dict[str, int] = {}
    # (the phases list it was built from, its length, key -> first position, canonical key ->
    # first position): built once, so a lookup per phase is O(1), not a scan of the list
    _index: tuple[list[str], int, dict[str, int], dict[str, int]] | None = PrivateAttr(None)

    def _positions(self) -> tuple[dict[str, int], dict[str, int]]:
        private = self.__pydantic_private__  # (self._index goes through a slow __getattr__)
        assert private is not None  # (a model with a PrivateAttr always has the dict)
        index, phases = private["_index"], self.phases
        if index is None or index[0] is not phases or index[1] != len(phases):
            index = private["_index"] = (phases, len(phases), *phase_positions(phases))
        return index[2], index[3]

    def index_of(self, key: str | None) -> int | None:
        """``phases.index(key)``, None when absent."""
        return None if key is None else self._positions()[0].get(key)

    def position(self, key: str | None) -> int | None:
        """Position of ``key`` in ``phases``, else of the first phase with the same canonical key
        (aliases); None when absent."""
        if key is None:
            return None
        exact, canonical = self._positions()
        found = exact.get(key)
        return found if found is not None else canonical.get(canonical_phase(key))


def phase_positions(phases: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """Each key's first position in ``phases``, and each canonical key's. Called once per
    phases list (a test counts the calls): every lookup after that is a dict's."""
    exact: dict[str, int] = {}
    canonical: dict[str, int] = {}
    for i, key in enumerate(phases):
        exact.setdefault(key, i)
        canonical.setdefault(canonical_phase(key), i)
    return exact, canonical


class Escalation(_Tolerant):
    type: str | None = None
    hook: str | None = None
    phase: str | None = None
    detail: str | None = None
    timestamp: str | None = None


class SupervisedMode(_Tolerant):
    enabled: Any = None
    review_phases: Any = "all"
    parallel_summary: Any = None
    auto_advance_timeout: Any = None


class HistoryEntry(_Tolerant):
    type: str | None = None
    description: str | None = None
    slug: str | None = None
    artifact_folder: str | None = None
    status: str | None = None
    started_at: str | None = None
    completed_at: str | None = None
    cancelled_at: str | None = None
    cancellation_reason: str | None = None
    phases: list[str] = []
    phase_snapshots: list[dict[str, Any]] | None = None
    metrics: dict[str, Any] | None = None
    review_history: list[ReviewHistoryEntry] = []


class ProjectInfo(_Tolerant):
    name: str | None = None
    created: str | None = None
    description: str | None = None


class State(_Tolerant):
    state_version: int | None = None
    schema_version: int | None = None
    project: ProjectInfo | None = None
    current_phase: str | None = None
    active_agent: str | None = None
    phases: dict[str, PhaseRecord] = {}
    active_workflow: ActiveWorkflow | None = None
    workflow_history: list[HistoryEntry] = []
    pending_escalations: list[Escalation] = []
    supervised_mode: SupervisedMode | None = None


def json_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """``("phases", "06-x", "status")`` -> ``phases.06-x.status``; list indices as ``[3]``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "$"


def _delete(data: Any, loc: tuple[Any, ...]) -> bool:
    parent = data
    for part in loc[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return False
    last = loc[-1]
    try:
        if isinstance(parent, dict):
            del parent[last]
        elif isinstance(parent, list):
            parent[last] = None  # keep indices stable; Nones are removed afterwards
            return True
        else:
            return False
    except (KeyError, IndexError, TypeError):
        return False
    return True


def _drop_nones_in_lists(data: Any, locs: list[tuple[Any, ...]]) -> None:
    for loc in locs:
        parent = data
        for part in loc[:-1]:
            try:
                parent = parent[part]
            except (KeyError, IndexError, TypeError):
                parent = None
                break
        if isinstance(parent, list):
            parent[:] = [x for x in parent if x is not None]


_JSON_TYPES = {
    "int_type": "integer",
    "float_type": "number",
    "string_type": "string",
    "bool_type": "boolean",
    "model_type": "object",
    "dict_type": "object",
    "list_type": "array",
}


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    text = repr(value) if isinstance(value, str) else type(value).__name__
    return shorten(text, 60)


def parse_state(
    data: dict[str, Any], source: str = ".isdlc/state.json"
) -> tuple[State, list[Finding]]:
    """Validate ``data`` into a :class:`State`, turning every type error into a finding."""
    try:
        return State.model_validate(data), []
    except ValidationError:
        pass
    work = copy.deepcopy(data)
    findings: list[Finding] = []
    for _ in range(20):  # each pass removes every reported value, so this converges quickly
        try:
            return State.model_validate(work), findings
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        list_parents: list[tuple[Any, ...]] = []
        for err in sorted(errors, key=lambda e: len(e["loc"]), reverse=True):
            loc = tuple(err["loc"])
            if not loc:
                continue
            findings.append(
                make(
                    R_SCHEMA_TYPE,
                    source=source,
                    path=json_path(loc),
                    expected=_JSON_TYPES.get(err["type"], err["msg"]),
                    actual=_describe(err.get("input")),
                    message=f"{json_path(loc)} has the wrong type ({_describe(err.get('input'))}); ignored.",
                )
            )
            _delete(work, loc)
            if isinstance(loc[-1], int):
                list_parents.append(loc)
        _drop_nones_in_lists(work, list_parents)
    return State(), findings  # pathological input: give up on the structure, keep the findings
