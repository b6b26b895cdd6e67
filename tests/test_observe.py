"""core.observe: the framework views' facts on bad input, the contradiction rules against the
framework's own generated projects, and ``check``'s object (docs/observability.md)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.findings import Severity
from phasewatch.core.observe import load_observed
from phasewatch.core.observe.js import date_ms, truthy
from phasewatch.core.observe.load import load_audited
from phasewatch.core.observe.read import HOOK_TAIL_BYTES
from phasewatch.core.sources import discover
from phasewatch.tui.cli import main

from tests.helpers.files import settle
from tests.helpers.observe_compare import materialize, records

NOW = date_ms("2026-12-07T12:00:00.000Z")


def write(root: Path, rel: str, body: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(body, bytes):
        path.write_bytes(body)
    else:
        path.write_text(body, encoding="utf-8")
    return settle(path)  # written before it is read: a stamp cache may keep it


def building(**extra: Any) -> dict[str, Any]:
    state: dict[str, Any] = {
        "active_workflow": {
            "type": "feature",
            "slug": "REQ-1-x",
            "phases": ["01-requirements", "06-implementation", "08-code-review"],
            "current_phase": "06-implementation",
            "sub_agent_log": [],
        },
        "phases": {
            "01-requirements": {"status": "completed"},
            "06-implementation": {"status": "in_progress"},
        },
    }
    state.update(extra)
    return state


def observed(root: Path, state: Any) -> dict[str, Any]:
    write(root, ".isdlc/state.json", json.dumps(state))
    return load_observed(discover(root), now_ms=NOW)


def test_building_workflow_facts(tmp_path: Path) -> None:
    obs = observed(tmp_path, building())
    assert obs["status"] == "Building" and obs["slug"] == "REQ-1-x"
    assert [p["dag"] for p in obs["phases"]] == ["completed", "running", "pending"]
    assert obs["progress"] == {"completed": 1, "total": 3}
    assert obs["problems"] == []


def test_unreadable_files_are_said_not_hidden(tmp_path: Path) -> None:
    write(tmp_path, ".isdlc/state.json", "{not json")
    write(tmp_path, ".isdlc/analysis-index.json", "[1, 2]")
    write(tmp_path, "src/isdlc/config/skills-manifest.json", b"\xff\xfe\x00junk")
    obs = load_observed(discover(tmp_path), now_ms=NOW)
    files = {p["file"] for p in obs["problems"]}
    assert files == {
        ".isdlc/state.json",
        ".isdlc/analysis-index.json",
        "src/isdlc/config/skills-manifest.json",
    }
    assert obs["status"] == "Idle"


def test_a_huge_index_is_refused_and_a_huge_hook_log_read_from_its_end(tmp_path: Path) -> None:
    state = building()
    write(tmp_path, ".isdlc/state.json", json.dumps(state))
    big = tmp_path / ".isdlc/analysis-index.json"
    with big.open("w") as f:
        f.write('{"items": [')
        f.write(",".join(["1"] * (17 * 1024 * 1024)))
        f.write("]}")
    line = json.dumps({"ts": "t", "hook": "h", "event": "allow", "phase": "06-implementation"})
    log = tmp_path / ".isdlc/hook-activity.log"
    log.write_text((line + "\n") * (3 * HOOK_TAIL_BYTES // len(line)) + '{"cut"\nnull\n')
    obs = load_observed(discover(tmp_path), now_ms=NOW)
    assert any(p["file"] == ".isdlc/analysis-index.json" for p in obs["problems"])
    assert len(obs["hook_events"]) == 48  # 50 lines, the two bad ones skipped as server.js does


def test_a_fifo_hook_log_and_a_traversing_slug_are_never_read(tmp_path: Path) -> None:
    write(tmp_path, ".isdlc/state.json", json.dumps(building()))
    os.mkfifo(tmp_path / ".isdlc/hook-activity.log")
    stamp = "2026-12-07T11:59:30.000Z"
    items = [{"slug": "../../outside", "last_activity_at": stamp, "analysis_status": "raw"}]
    write(tmp_path, ".isdlc/analysis-index.json", json.dumps({"items": items}))
    write(tmp_path, "outside/meta.json", json.dumps({"acceptance": {"domains": ["requirements"]}}))
    obs = load_observed(discover(tmp_path), now_ms=NOW)
    assert obs["hook_events"] == []
    assert {"file": ".isdlc/hook-activity.log", "message": "not a regular file"} in obs["problems"]
    assert obs["active_analysis"]["slug"] == "../../outside" and obs["active_meta"] is None


def test_analysis_window_and_confirmation(tmp_path: Path) -> None:
    items = [
        {"slug": "old", "last_activity_at": "2026-12-07T11:57:00.000Z", "analysis_status": "raw"},
        {
            "slug": "BUG-1",
            "item_type": "BUG",
            "last_activity_at": "2026-12-07T11:59:00.000Z",
            "analysis_status": "partial",
            "phases_completed": ["00-quick-scan"],
        },
    ]
    write(tmp_path, ".isdlc/analysis-index.json", json.dumps({"items": items}))
    meta = {"acceptance": {"domains": ["requirements", "design"]}}
    write(tmp_path, "docs/requirements/BUG-1/meta.json", json.dumps(meta))
    obs = observed(tmp_path, {})
    assert obs["status"] == "Analysing"
    assert obs["active_analysis"]["slug"] == "BUG-1"
    assert [p["state"] for p in obs["active_analysis"]["phases"]][:3] == [
        "done",
        "active",
        "pending",
    ]
    stages = obs["active_meta"]["confirmation"]
    assert [(s["stage"], s["state"]) for s in stages] == [
        ("BugSummary", "accepted"),
        ("RootCause", "current"),
        ("FixStrategy", "accepted"),  # accepted even after a gap, as the page shows it
        ("Tasks", "pending"),
    ]


def test_iteration_progress_reads_what_the_test_watcher_writes(tmp_path: Path) -> None:
    state = building()
    impl = state["phases"]["06-implementation"]
    impl["iteration_requirements"] = {
        "test_iteration": {"current_iteration": 3, "max_iterations": 10}
    }
    obs = observed(tmp_path, state)
    assert obs["iteration_progress"]["current"] == 3 and obs["iteration_progress"]["percent"] == 30
    assert obs["iteration_progress"]["source"] == "iteration_requirements.test_iteration"


def test_trace_reads_the_writers_names(tmp_path: Path) -> None:
    snap = {
        "key": "06-implementation",
        "status": "completed",
        "timing": {"wall_clock_minutes": 12},
        "test_iterations": {"count": 3},
        "summary": None,
    }
    obs = observed(
        tmp_path, {"workflow_history": [{"slug": "s", "type": "fix", "phase_snapshots": [snap]}]}
    )
    row = obs["traces"][0]["phases"][0]
    assert (row["phase"], row["wall_clock_minutes"], row["iterations"]) == (
        "06-implementation",
        12,
        3,
    )
    assert obs["recent_workflows"][0]["duration_minutes"] == 12


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(
    ["active_workflow", "phases", "skill_usage_log", "workflow_history", "sub_agent_log",
     "current_phase", "iteration_requirements", "test_iteration", "phase_snapshots", "items"]
)  # fmt: skip


@settings(max_examples=150)
@given(st.dictionaries(KEYS, JSON, max_size=5), st.dictionaries(KEYS, JSON, max_size=3))
def test_any_json_never_raises(state: dict[str, Any], index: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write(root, ".isdlc/state.json", json.dumps(state))
        write(root, ".isdlc/analysis-index.json", json.dumps(index))
        obs, findings = load_audited(discover(root), now_ms=NOW)
    json.dumps(obs)
    assert all(f.rule_id != "AUDIT-INTERNAL" for f in findings)


def test_truthiness_is_javascripts() -> None:
    assert [truthy(v) for v in (0, 0.0, "", None, False, [], {}, "0", -1)] == [
        False, False, False, False, False, True, True, True, True,
    ]  # fmt: skip


# ------------------------------------------------------------------ rules on the framework's projects


def _findings() -> list[tuple[dict[str, Any], dict[str, Any], list[Any]]]:
    head, recs = records()
    out = []
    for rec in recs:
        root = Path(os.environ.get("TMPDIR", "/tmp")) / f"pw-observe-{os.getpid()}-{rec['name']}"
        root.mkdir(parents=True, exist_ok=True)
        try:
            materialize(head, rec, root)
            obs, found = load_audited(discover(root))
        finally:
            import shutil

            shutil.rmtree(root, ignore_errors=True)
        out.append((rec, obs, found))
    return out


@pytest.fixture(scope="module")
def recorded() -> list[tuple[dict[str, Any], dict[str, Any], list[Any]]]:
    return _findings()


def test_rules_are_silent_where_the_framework_writes_by_design(recorded) -> None:
    """The phase loop's own callbacks (and no log at all) never make a sub-agent finding;
    iterations past the maximum only where the test watcher escalated first; nothing is more
    than information (the framework warns about none of these as such)."""
    for rec, _, found in recorded:
        if rec["subagents"] != "planted":
            assert not [f for f in found if f.rule_id.startswith("OBS-AGENT")], rec["name"]
        for f in found:
            assert f.severity == Severity.INFO, f
            if f.rule_id == "OBS-ITERATIONS-PAST-MAX":
                state = json.loads(rec["files"][".isdlc/state.json"])
                phase = state["active_workflow"]["current_phase"]
                test = state["phases"][phase]["iteration_requirements"]["test_iteration"]
                assert test["escalation_reason"] in ("max_iterations", "circuit_breaker")


def test_rules_fire_on_the_planted_contradictions(recorded) -> None:
    fired = {f.rule_id for _, _, found in recorded for f in found}
    assert {
        "OBS-AGENT-RUNNING-DONE",
        "OBS-AGENT-OTHER-PHASE",
        "OBS-SKILL-NOT-OWNED",
        "OBS-ITERATIONS-PAST-MAX",
    } <= fired


def test_rules_on_hand_made_states(tmp_path: Path) -> None:
    state = building()
    state["active_workflow"]["sub_agent_log"] = [
        {"agent": "a", "phase": "01-requirements", "status": "running"},
        {"agent": "b", "phase": "08-code-review", "status": "running"},
        {"agent": "c", "phase": "06-implementation", "status": "running"},
        {"agent": "c", "phase": "06-implementation", "status": "completed"},
    ]
    impl = state["phases"]["06-implementation"]
    impl["iteration_requirements"] = {
        "test_iteration": {"current_iteration": 11, "max_iterations": 10}
    }
    write(tmp_path, ".isdlc/state.json", json.dumps(state))
    _, found = load_audited(discover(tmp_path), now_ms=NOW)
    assert sorted((f.rule_id, f.path) for f in found) == [
        ("OBS-AGENT-OTHER-PHASE", "active_workflow.sub_agent_log[1]"),
        ("OBS-AGENT-RUNNING-DONE", "active_workflow.sub_agent_log[0]"),
        (
            "OBS-ITERATIONS-PAST-MAX",
            "phases.06-implementation.iteration_requirements.test_iteration.current_iteration",
        ),
    ]


def test_check_json_carries_the_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(tmp_path, ".isdlc/state.json", json.dumps(building()))
    main(["check", "--json", str(tmp_path)])
    doc = json.loads(capsys.readouterr().out)
    assert doc["systems"] == ["isdlc"]
    obs = doc["observability"]
    assert obs["status"] == "Building" and obs["progress"] == {"completed": 1, "total": 3}
    main(["check", str(tmp_path)])
    assert (
        "framework views  Building · REQ-1-x · 06-implementation (1/3 phases)"
        in capsys.readouterr().out
    )


def test_an_analysis_leaves_the_window_by_time_alone(tmp_path: Path) -> None:
    from phasewatch.core.observe.view import expire

    stamp = "2026-12-07T11:59:30.000Z"
    items = [{"slug": "REQ-9", "last_activity_at": stamp, "analysis_status": "partial"}]
    write(tmp_path, ".isdlc/analysis-index.json", json.dumps({"items": items}))
    write(
        tmp_path, "docs/requirements/REQ-9/meta.json", json.dumps({"acceptance": {"domains": []}})
    )
    obs = observed(tmp_path, {})
    assert obs["status"] == "Analysing" and obs["active_meta"] is not None
    assert expire(obs, NOW + 60_000) is obs  # still within 2 minutes of the last activity
    later = expire(obs, NOW + 91_000)
    assert later["status"] == "Idle" and later["active_analysis"] is None
    assert later["active_meta"] is None and later["analysis_items"] == obs["analysis_items"]


def test_a_reload_caused_by_the_hook_log_parses_no_json_again(tmp_path: Path) -> None:
    from phasewatch.core.observe.read import DocCache

    write(tmp_path, ".isdlc/state.json", json.dumps(building()))
    write(tmp_path, ".isdlc/analysis-index.json", json.dumps({"items": []}))
    cache = DocCache()
    load_observed(discover(tmp_path), now_ms=NOW, cache=cache)
    parsed = cache.parses
    write(tmp_path, ".isdlc/hook-activity.log", '{"hook": "h", "phase": "06-implementation"}\n')
    obs = load_observed(discover(tmp_path), now_ms=NOW, cache=cache)
    assert cache.parses == parsed and len(obs["hook_events"]) == 1
    write(tmp_path, ".isdlc/state.json", json.dumps(building(skill_usage_log=[])))
    load_observed(discover(tmp_path), now_ms=NOW, cache=cache)
    assert cache.parses == parsed + 1
