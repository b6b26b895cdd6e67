"""core.archive against the framework's own collectPhaseSnapshots (corpus/phase-snapshots.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.archive import collect, js_truthy

CORPUS = Path(__file__).parent / "conformance" / "isdlc" / "corpus" / "phase-snapshots.json"
CASES = json.loads(CORPUS.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_the_framework_s_snapshots_and_metrics(case: dict[str, Any]) -> None:
    snapshots, metrics = collect(case["state"])
    got = {"phase_snapshots": snapshots, "metrics": metrics}
    # byte-for-byte as JSON.stringify writes them: the same keys, in the same order
    assert json.dumps(got) == json.dumps(case["result"])


def test_js_truthiness() -> None:
    assert js_truthy({}) and js_truthy([]) and js_truthy("0")
    assert not any(js_truthy(v) for v in (0, 0.0, "", None, False, float("nan")))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=4) | st.floats(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


iteration = st.fixed_dictionaries(
    {"test_iteration": st.fixed_dictionaries(
        {}, optional={"current_iteration": json_values, "current": json_values,
                      "completed": json_values, "escalated": json_values})}
)  # fmt: skip
record_keys = st.sampled_from(
    ["status", "started", "completed", "gate_passed", "summary", "artifacts", "timing",
     "iteration_requirements"]
)  # fmt: skip
records = st.dictionaries(record_keys, json_values, max_size=6) | st.fixed_dictionaries(
    {"iteration_requirements": iteration, "gate_passed": json_values}
)
workflows = st.fixed_dictionaries(
    {"phases": st.lists(st.sampled_from(["01-requirements", "a", 3]), max_size=4) | json_values},
    optional={"started_at": json_values, "cancelled_at": json_values, "completed_at": json_values},
)
states = st.fixed_dictionaries(
    {},
    optional={
        "active_workflow": workflows | json_values,
        "phases": st.dictionaries(st.sampled_from(["01-requirements", "a", "3"]), records | json_values)
        | json_values,
        "history": st.lists(
            st.fixed_dictionaries({}, optional={"agent": st.just("requirements-analyst") | json_values,
                                                "timestamp": json_values, "action": json_values})
            | json_values
        ),
    },
)  # fmt: skip


@given(states)
def test_never_raises_on_any_document(state: dict[str, Any]) -> None:
    snapshots, metrics = collect(state)
    assert isinstance(snapshots, list) and set(metrics) >= {"total_phases", "phases_completed"}
    json.dumps([snapshots, metrics])  # writable as it stands
