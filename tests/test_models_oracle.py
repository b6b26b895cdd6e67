"""The state models' validator against pydantic v2 in strict mode (docs/design.md, "The state
models"): pydantic models made here from the same annotations must accept the same documents,
keep the same values and report the same errors (location, type, input, in the same order)."""

from __future__ import annotations

import json
import math
import typing
from pathlib import Path
from types import UnionType
from typing import Any, Union

import pytest
from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core import models
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from tests.helpers import generated_corpus

CORPUS = Path(__file__).parent / "conformance" / "isdlc" / "corpus"
_MIRRORS: dict[type, type[BaseModel]] = {}


def _hint(hint: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if isinstance(hint, type) and issubclass(hint, models._Tolerant):
        return mirror(hint)
    if origin in (Union, UnionType):
        return typing.Optional[_hint(next(a for a in args if a is not type(None)))]  # noqa: UP045
    if origin is list:
        return list[_hint(args[0])]  # type: ignore[misc]
    if origin is dict:
        return dict[str, _hint(args[1])]  # type: ignore[misc]
    return hint


def mirror(cls: type[models._Tolerant]) -> type[BaseModel]:
    """The pydantic model with ``cls``'s fields and defaults (extra keys allowed, strict)."""
    if cls not in _MIRRORS:
        fields: dict[str, Any] = {
            name: (_hint(hint), getattr(cls, name))
            for name, hint in typing.get_type_hints(cls, vars(models)).items()
            if not name.startswith("_")
        }
        config = ConfigDict(extra="allow", strict=True)
        _MIRRORS[cls] = create_model(cls.__name__, __config__=config, **fields)
    return _MIRRORS[cls]


def _plain(value: Any) -> Any:
    """Comparable data (NaN as a string: it equals nothing)."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    if isinstance(value, list):
        return [_plain(x) for x in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def verdicts(data: Any) -> tuple[Any, Any]:
    """(ours, pydantic's): the dumped state, or the errors as (loc, type, input)."""
    out = []
    for validate, error in (
        (models.State.model_validate, models.ValidationError),
        (mirror(models.State).model_validate, ValidationError),
    ):
        try:
            out.append(("ok", _plain(validate(data).model_dump())))
        except error as exc:
            errs = exc.errors(include_url=False)
            out.append(("errors", [(e["loc"], e["type"], _plain(e["input"])) for e in errs]))
    return out[0], out[1]


def test_the_corpus_states_agree():
    states = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CORPUS.glob("*.json"))]
    states += [rec["state"] for rec in generated_corpus.load()[1]]
    assert len(states) > 100
    outcomes = set()
    for data in states:
        ours, theirs = verdicts(data)
        assert ours == theirs
        outcomes.add(ours[0])
    assert outcomes == {"ok", "errors"}  # (the mutations include wrong types)


@pytest.mark.parametrize(
    "data",
    [
        {"state_version": True},
        {"state_version": 1.0},
        {"state_version": 2**70},
        {"phases": {"a": {"timing": {"wall_clock_minutes": 3}}}},
        {"phases": {"a": {"timing": {"wall_clock_minutes": True, "retries": 1.5}}}},
        {"phases": {"a": {"timing": {"wall_clock_minutes": 10**400}}}},
        {"phases": {"a": {"timing": {"wall_clock_minutes": float("nan")}}}},
        {"phases": [], "project": "x", "active_workflow": {"phases": None, "flags": 3}},
        {"workflow_history": [1, {"phases": [1], "phase_snapshots": [2], "metrics": []}]},
        {"active_workflow": {"hook_block_retries": {"a": 1.5, "b": 2}, "review_history": [{}]}},
        {"supervised_mode": {"enabled": [1], "review_phases": None}, "extra": {"x": [1]}},
        {"pending_escalations": [{"type": 1, "detail": None}, "x"]},
        {"phases": {"a": {"constitutional_validation": {"required": 1, "completed": "true"}}}},
    ],
)
def test_edge_values_agree(data):
    ours, theirs = verdicts(data)
    assert ours == theirs


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)


def _documents(cls: type[models._Tolerant], depth: int = 0) -> st.SearchStrategy[Any]:
    """Objects of ``cls``'s shape: its keys with values of the right or a wrong type."""
    values: dict[str, st.SearchStrategy[Any]] = {}
    for name, hint in typing.get_type_hints(cls, vars(models)).items():
        if name.startswith("_"):
            continue
        right = json_values
        inner = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
        target = typing.get_args(inner[0])[-1] if typing.get_origin(inner[0]) else inner[0]
        if depth < 4 and isinstance(target, type) and issubclass(target, models._Tolerant):
            sub = _documents(target, depth + 1)
            if typing.get_origin(inner[0]) is list:
                right = st.lists(sub, max_size=2)
            elif typing.get_origin(inner[0]) is dict:
                right = st.dictionaries(st.text(max_size=3), sub, max_size=2)
            else:
                right = sub
        values[name] = right | json_values
    return st.fixed_dictionaries({}, optional=values)


@given(_documents(models.State))
def test_random_documents_agree(data):
    ours, theirs = verdicts(data)
    assert ours == theirs
