import json

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.models import json_path, parse_state

FEATURE = {
    "state_version": 41,
    "schema_version": 1,
    "project": {"name": "shop", "created": "2026-03-01T10:00:00.000Z"},
    "current_phase": "06-implementation",
    "active_agent": "software-developer",
    "phases": {
        "06-implementation": {
            "status": "in_progress",
            "started": "2026-03-04T09:00:00.000Z",
            "completed": None,
            "gate_passed": None,
            "artifacts": [],
            "timing": {"started_at": "2026-03-04T09:00:00.000Z", "retries": 0},
            "iteration_requirements": {
                "test_iteration": {"required": True, "current_iteration": 2, "history": []}
            },
            "vendor_field": {"kept": True},
        }
    },
    "active_workflow": {
        "type": "feature",
        "phases": ["05-test-strategy", "06-implementation"],
        "current_phase": "06-implementation",
        "current_phase_index": 1,
        "phase_status": {"05-test-strategy": "completed", "06-implementation": "in_progress"},
        "flags": {"light": False, "supervised": True},
    },
    "pending_escalations": [],
    "some_future_key": [1, 2, 3],
}


def test_valid_state_parses_without_findings_and_keeps_unknown_keys():
    state, findings = parse_state(FEATURE)
    assert findings == []
    assert state.state_version == 41
    assert state.active_workflow.current_phase_index == 1
    assert state.model_extra == {"some_future_key": [1, 2, 3]}
    assert state.phases["06-implementation"].model_extra == {"vendor_field": {"kept": True}}


def test_wrong_types_become_findings_with_json_paths():
    data = json.loads(json.dumps(FEATURE))
    data["state_version"] = "41"
    data["phases"]["06-implementation"]["status"] = 2
    data["phases"]["06-implementation"]["timing"]["retries"] = "zero"
    data["active_workflow"]["current_phase_index"] = True
    data["active_workflow"]["phases"] = ["05-test-strategy", None, "06-implementation"]
    data["pending_escalations"] = ["oops", {"type": "gate_blocked"}]
    state, findings = parse_state(data)
    paths = {f.path: f for f in findings}
    assert set(paths) == {
        "state_version",
        "phases.06-implementation.status",
        "phases.06-implementation.timing.retries",
        "active_workflow.current_phase_index",
        "active_workflow.phases[1]",
        "pending_escalations[0]",
    }
    assert all(f.rule_id == "SCHEMA-TYPE" for f in findings)
    assert paths["state_version"].expected == "integer"
    assert paths["state_version"].actual == "'41'"
    # the rest of the document survives
    assert state.state_version is None
    assert state.active_workflow.phases == ["05-test-strategy", "06-implementation"]
    assert state.phases["06-implementation"].status is None
    assert state.phases["06-implementation"].timing.started_at == "2026-03-04T09:00:00.000Z"
    assert [e.type for e in state.pending_escalations] == ["gate_blocked"]


def test_the_input_is_not_mutated():
    data = json.loads(json.dumps(FEATURE))
    data["phases"]["06-implementation"]["status"] = 2
    before = json.dumps(data, sort_keys=True)
    parse_state(data)
    assert json.dumps(data, sort_keys=True) == before


def test_whole_sections_of_the_wrong_shape():
    state, findings = parse_state({"phases": [], "active_workflow": "feature", "project": 3})
    assert {f.path for f in findings} == {"phases", "active_workflow", "project"}
    assert state.phases == {} and state.active_workflow is None


def test_json_path():
    assert json_path(("a", "b", 3, "c")) == "a.b[3].c"
    assert json_path(()) == "$"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=30,
)
known_keys = st.sampled_from(
    [
        "state_version",
        "phases",
        "active_workflow",
        "current_phase",
        "pending_escalations",
        "workflow_history",
        "supervised_mode",
        "project",
        "active_agent",
    ]
)


@given(st.dictionaries(known_keys | st.text(max_size=5), json_values, max_size=8))
def test_parse_state_never_raises(data):
    state, findings = parse_state(data)
    assert state is not None
    assert all(f.rule_id == "SCHEMA-TYPE" for f in findings)
