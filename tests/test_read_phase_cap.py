"""A state with more phases than a dashboard can hold is refused as too large, as a file over
the byte cap is (core.sources.MAX_PHASES; docs/performance.md#dashboard-size)."""

from __future__ import annotations

import json
from pathlib import Path

from phasewatch.core.report import audit_project
from phasewatch.core.sources import MAX_PHASES, read_json


def _state(tmp_path: Path, n: int, *, listed: bool) -> Path:
    names = [f"p{k:06d}" for k in range(n)]
    doc: dict = {
        "state_version": 3,
        "phases": {} if listed else {k: {"status": "pending"} for k in names},
    }
    doc["active_workflow"] = {"type": "feature", "phases": names if listed else names[:3]}
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(doc))
    return path


def test_a_state_past_the_phase_cap_is_refused(tmp_path: Path) -> None:
    path = _state(tmp_path, MAX_PHASES + 1, listed=False)
    result = read_json(path)
    assert result.status == "too_large" and result.data is None
    assert f"{MAX_PHASES + 1:,} phases" in (result.error or "")
    found = [f for f in audit_project(tmp_path).findings if f.rule_id == "READ-TOO-LARGE"]
    assert found and f"{MAX_PHASES + 1:,} phases" in found[0].message


def test_the_workflow_list_counts_too(tmp_path: Path) -> None:
    assert read_json(_state(tmp_path, MAX_PHASES + 1, listed=True)).status == "too_large"


def test_a_state_at_the_phase_cap_is_read(tmp_path: Path) -> None:
    assert read_json(_state(tmp_path, MAX_PHASES, listed=False)).ok
