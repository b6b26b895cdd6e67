"""core/diff.py: structured JSON diff and the changed-path summary."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.diff import (
    Change,
    capped_paths,
    changed_paths,
    diff_json,
    format_value,
    summarize_paths,
)
from phasewatch.core.timeline import make_entry

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=30,
)


def test_nested_added_removed_changed():
    a = {
        "state_version": 41,
        "active_workflow": {
            "phase_status": {"05-test-strategy": "completed", "06-implementation": "pending"}
        },
        "phases": {"06-implementation": {"status": "pending", "summary": "x"}},
    }
    b = copy.deepcopy(a)
    b["state_version"] = 42
    b["active_workflow"]["phase_status"]["06-implementation"] = "in_progress"
    del b["phases"]["06-implementation"]["summary"]
    b["phases"]["06-implementation"]["timing"] = {"started_at": "t"}
    assert diff_json(a, b) == [
        Change("state_version", "changed", 41, 42),
        Change(
            "active_workflow.phase_status.06-implementation", "changed", "pending", "in_progress"
        ),
        Change("phases.06-implementation.summary", "removed", "x", None),
        Change("phases.06-implementation.timing", "added", None, {"started_at": "t"}),
    ]


def test_lists_by_index_append_and_prune():
    assert diff_json({"h": [1, 2]}, {"h": [1, 2, 3, 4]}) == [
        Change("h[2]", "added", None, 3),
        Change("h[3]", "added", None, 4),
    ]
    assert diff_json([1, 2, 3], [1, 9, 3]) == [Change("$[1]", "changed", 2, 9)]
    assert diff_json([1, 2, 3], [1]) == [
        Change("$[1]", "removed", 2, None),
        Change("$[2]", "removed", 3, None),
    ]
    # workflow_history pruned from the front and appended: not "every entry changed"
    old = {"workflow_history": [{"n": i} for i in range(50)]}
    new = {"workflow_history": [{"n": i} for i in range(1, 51)]}
    assert diff_json(old, new) == [
        Change("workflow_history[0]", "removed", {"n": 0}, None),
        Change("workflow_history[49]", "added", None, {"n": 50}),
    ]
    assert diff_json([{"a": [1, {"b": 2}]}], [{"a": [1, {"b": 3}]}]) == [
        Change("$[0].a[1].b", "changed", 2, 3)
    ]


def test_type_changes_are_changes():
    assert diff_json({"x": 1}, {"x": 1.0}) == [Change("x", "changed", 1, 1.0)]
    assert diff_json({"x": 1}, {"x": True}) == [Change("x", "changed", 1, True)]
    assert diff_json({"x": {"a": 1}}, {"x": [1]}) == [Change("x", "changed", {"a": 1}, [1])]
    assert diff_json({"x": None}, {"x": "null"}) == [Change("x", "changed", None, "null")]
    assert diff_json(1, "1") == [Change("$", "changed", 1, "1")]


def test_odd_keys_are_quoted():
    paths = changed_paths({"a": {"x.y": 1, "[z]": 1}}, {"a": {"x.y": 2, "[z]": 2}})
    assert paths == ['a["x.y"]', 'a["[z]"]']


def test_deep_nesting_does_not_raise():
    deep_a: list = []
    deep_b: list = [1]
    for _ in range(5000):
        deep_a, deep_b = [deep_a], [deep_b]
    changes = diff_json(deep_a, deep_b)
    assert len(changes) == 1 and changes[0].kind == "changed"
    assert diff_json(deep_a, deep_a) == []


def test_summary_collapses_paths():
    paths = [
        "state_version",
        "phases.06-implementation.status",
        "active_workflow.current_phase_index",
        "a",
        "b",
        "c",
    ]
    assert (
        summarize_paths(paths, 2, ignore={"state_version"})
        == "phases.06-implementation.status, active_workflow.current_phase_index +3 more"
    )
    assert summarize_paths(["state_version"], 3, ignore={"state_version"}) == "state_version"
    assert summarize_paths([], 3) == ""
    assert format_value("x" * 100, 10) == '"xxxxxxxx…'


def test_timeline_entry_from_two_documents():
    a = {"state_version": 3, "current_phase": "05-test-strategy"}
    b = {"state_version": 4, "current_phase": "06-implementation"}
    entry = make_entry(2, b, a)
    assert entry.state_version == 4
    assert entry.changed_paths == ["state_version", "current_phase"]
    assert entry.summary() == "current_phase"
    first = make_entry(0, a, None)
    assert first.changed_paths == [] and first.note == "first observation"


@settings(max_examples=300)
@given(json_values, json_values)
def test_diff_never_raises_and_self_diff_is_empty(a, b):
    changes = diff_json(a, b)
    assert all(c.kind in {"added", "removed", "changed"} for c in changes)
    assert diff_json(a, a) == []
    assert diff_json(a, copy.deepcopy(a)) == []
    if changes == []:
        assert changed_paths(a, b) == []


@settings(max_examples=200)
@given(
    st.dictionaries(st.text(max_size=5), json_values, max_size=6), st.text(max_size=5), json_values
)
def test_one_key_edit_is_reported_at_its_path(doc, key, value):
    new = dict(doc)
    new[key] = value
    changes = diff_json(doc, new)
    if key in doc:
        assert all(c.path.startswith(changed_paths({key: 0}, {key: 1})[0]) for c in changes)
    else:
        assert [c.kind for c in changes] == ["added"]


def test_capped_paths_name_changes_like_the_diff_pane_and_say_when_cut() -> None:
    a = {"a": 1, "b": {"c": [1, 2], "d": "x"}, "gone": 1}
    b = {"a": 1, "b": {"c": [1, 3], "d": "y"}, "new": 2}
    paths, truncated = capped_paths(a, b)
    assert paths == ["b.c[1]", "b.d", "gone", "new"] and not truncated
    assert paths == [c.path for c in diff_json(a, b)]  # the row and the pane agree
    assert capped_paths({"l": [1]}, {"l": [1, 2]})[0] == ["l[1]"]
    assert capped_paths(1, 1) == ([], False)
    many, truncated = capped_paths(
        {str(i): i for i in range(10)}, {str(i): -i - 1 for i in range(10)}, max_changes=3
    )
    assert many == ["0", "1", "2"] and truncated
    exact, truncated = capped_paths({"a": 1, "b": 1}, {"a": 2, "b": 2}, max_changes=2)
    assert exact == ["a", "b"] and not truncated
