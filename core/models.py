"""Tolerant models of ``.isdlc/state.json`` (docs/formats.md#isdlc).

Unknown keys are kept (:attr:`_Tolerant.model_extra`), unknown phase keys are fine, and a value
of the wrong type never raises: :func:`parse_state` drops it, records a ``SCHEMA-TYPE`` finding
with its JSON path, and validates the rest. Types are strict, so ``"41"`` is not silently taken
for ``41`` (nor ``true`` for ``1``).

The models are plain classes checked by a small validator of their own (docs/design.md, "The
state models"): the few types the state uses, with pydantic v2's strict-mode verdicts and error
records (``loc``, ``type``, ``input``), which ``tests/test_models_oracle.py`` compares with
pydantic's on the corpora and on random documents. Not importing pydantic is most of what makes
``phasewatch check`` start fast.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Callable
from typing import Any, ClassVar, Union

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

Loc = tuple[Any, ...]
Errors = list[dict[str, Any]]
#: ``check(value, loc, errors)``: the value as the field keeps it, or ``_BAD`` (and an error)
Check = Callable[[Any, Loc, Errors], Any]
_BAD: Any = object()

_MESSAGES = {
    "int_type": "Input should be a valid integer",
    "float_type": "Input should be a valid number",
    "string_type": "Input should be a valid string",
    "bool_type": "Input should be a valid boolean",
    "dict_type": "Input should be a valid dictionary",
    "list_type": "Input should be a valid list",
}


class ValidationError(ValueError):
    """A document the models do not accept; :meth:`errors` as pydantic's records them."""

    def __init__(self, title: str, errors: Errors) -> None:
        super().__init__(f"{len(errors)} validation error(s) for {title}")
        self._errors = errors

    def errors(self, *, include_url: bool = True) -> Errors:
        return [dict(e) for e in self._errors]


def _fail(errors: Errors, loc: Loc, kind: str, value: Any, msg: str = "") -> Any:
    errors.append({"type": kind, "loc": loc, "msg": msg or _MESSAGES[kind], "input": value})
    return _BAD


def _check_any(value: Any, loc: Loc, errors: Errors) -> Any:
    return value


def _check_str(value: Any, loc: Loc, errors: Errors) -> Any:
    return value if isinstance(value, str) else _fail(errors, loc, "string_type", value)


def _check_int(value: Any, loc: Loc, errors: Errors) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return _fail(errors, loc, "int_type", value)


def _check_float(value: Any, loc: Loc, errors: Errors) -> Any:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)  # (strict mode takes an integer for a number)
        except OverflowError:
            pass
    return _fail(errors, loc, "float_type", value)


def _check_bool(value: Any, loc: Loc, errors: Errors) -> Any:
    return value if isinstance(value, bool) else _fail(errors, loc, "bool_type", value)


_SCALARS: dict[Any, Check] = {
    Any: _check_any,
    str: _check_str,
    int: _check_int,
    float: _check_float,
    bool: _check_bool,
}


def _compile(hint: Any) -> Check:
    """The check of one annotation: a scalar, ``X | None``, ``list[X]``, ``dict[str, X]`` or a
    model (the only shapes the state models use; anything else is a programming error)."""
    if hint in _SCALARS:
        return _SCALARS[hint]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        (inner,) = (a for a in args if a is not type(None))
        check = _compile(inner)

        def nullable(value: Any, loc: Loc, errors: Errors) -> Any:
            return None if value is None else check(value, loc, errors)

        return nullable
    if origin is list:
        item = _compile(args[0])

        def list_of(value: Any, loc: Loc, errors: Errors) -> Any:
            if not isinstance(value, list):
                return _fail(errors, loc, "list_type", value)
            if item is _check_any:
                return list(value)
            return [item(x, (*loc, i), errors) for i, x in enumerate(value)]

        return list_of
    if origin is dict:
        if args[0] is not str:
            raise TypeError(f"unsupported key type in {hint!r}")
        item = _compile(args[1])

        def dict_of(value: Any, loc: Loc, errors: Errors) -> Any:
            if not isinstance(value, dict):
                return _fail(errors, loc, "dict_type", value)
            out = {}
            for key, x in value.items():
                if not isinstance(key, str):
                    _fail(errors, (*loc, key, "[key]"), "string_type", key)
                out[key] = item(x, (*loc, key), errors)
            return out

        return dict_of
    if isinstance(hint, type) and issubclass(hint, _Tolerant):
        return hint._check
    raise TypeError(f"unsupported annotation {hint!r}")


class _Tolerant:
    """A record of the state: the annotated fields (validated, with their class defaults; an
    empty list or dict default is a new one per instance) and every other key, kept as it is in
    :attr:`model_extra` and readable as an attribute. Names starting with ``_`` are private."""

    #: field name -> (check, default), made from the annotations at first use
    _fields: ClassVar[dict[str, tuple[Check, Any]] | None] = None
    _extra: dict[str, Any]

    @classmethod
    def _spec(cls) -> dict[str, tuple[Check, Any]]:
        spec = cls.__dict__.get("_fields")
        if spec is None:
            spec = {}
            for name, hint in typing.get_type_hints(cls).items():
                if name.startswith("_") or typing.get_origin(hint) is ClassVar:
                    continue
                spec[name] = (_compile(hint), getattr(cls, name))
            cls._fields = spec
        return spec

    @classmethod
    def _check(cls, value: Any, loc: Loc, errors: Errors) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, dict):
            msg = f"Input should be a valid dictionary or instance of {cls.__name__}"
            return _fail(errors, loc, "model_type", value, msg)
        obj = cls.__new__(cls)
        values = obj.__dict__
        spec = cls._spec()
        for name, (check, default) in spec.items():
            if name in value:
                values[name] = check(value[name], (*loc, name), errors)
            else:
                values[name] = copy.copy(default) if isinstance(default, list | dict) else default
        values["_extra"] = {k: v for k, v in value.items() if k not in spec}
        return obj

    @classmethod
    def model_validate(cls, data: Any) -> typing.Self:
        """``data`` as a model; :class:`ValidationError` listing every value of a wrong type."""
        errors: Errors = []
        obj = cls._check(data, (), errors)
        if errors:
            raise ValidationError(cls.__name__, errors)
        return typing.cast(typing.Self, obj)

    def __init__(self, **data: Any) -> None:
        self.__dict__.update(self.model_validate(data).__dict__)

    @property
    def model_extra(self) -> dict[str, Any]:
        """The keys the model does not name, with their values as the file has them."""
        return self._extra

    def __getattr__(self, name: str) -> Any:  # only for names that are not fields: the extras
        extra = self.__dict__.get("_extra")
        if extra is not None and name in extra:
            return extra[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _values(self) -> dict[str, Any]:
        return {name: self.__dict__[name] for name in self._spec()} | self._extra

    def model_dump(self) -> dict[str, Any]:
        """Fields and extras as plain data (nested models too)."""
        return _dump(self._values())

    def model_copy(self, *, update: dict[str, Any] | None = None) -> typing.Self:
        """A shallow copy, with ``update``'s values (not validated, as pydantic's) set."""
        new = copy.copy(self)
        new.__dict__["_extra"] = dict(self._extra)
        new.__dict__.pop("_index", None)
        for name, value in (update or {}).items():
            if name in self._spec():
                new.__dict__[name] = value
            else:
                new._extra[name] = value
        return new

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        assert isinstance(other, _Tolerant)
        return self._values() == other._values()

    __hash__ = None  # type: ignore[assignment]  # (mutable, like a dict)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._values().items())
        return f"{type(self).__name__}({fields})"


def _dump(value: Any) -> Any:
    if isinstance(value, _Tolerant):
        return value.model_dump()
    if isinstance(value, list):
        return [_dump(x) for x in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


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
    _index: tuple[list[str], int, dict[str, int], dict[str, int]] | None = None

    def _positions(self) -> tuple[dict[str, int], dict[str, int]]:
        index, phases = self._index, self.phases
        if index is None or index[0] is not phases or index[1] != len(phases):
            index = self._index = (phases, len(phases), *phase_positions(phases))
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
