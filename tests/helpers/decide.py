"""Fixture states for the decision writer tests (FORMATS.md 1), written the owner's way.

No tests here: shared builders for tests/test_decide*.py.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from phasewatch.core.decide import dumps
from phasewatch.core.protocol import WORKFLOWS

T0 = "2026-03-04T09:00:00.000Z"
NOW = "2026-03-04T10:11:12.345Z"  # what the writer's clock says in the tests (monkeypatched)

# Text edits applied to the owner's output: values whose spelling JSON.stringify would never
# produce (a float written as 12.50, an escaped é, a key spelled with an escape). The writer
# must give them back exactly as they were.
LITERAL_EDITS = (
    ('"zz_float": 12.5', '"zz_float": 12.50'),
    ('"zz_escaped": "é"', '"zz_escaped": "\\u00e9"'),
    ('"zz_one": 1', '"zz_one": 1.0'),
    ('"A_key": true', '"\\u0041_key": true'),
)


def with_literals(text: str) -> str:
    for old, new in LITERAL_EDITS:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def phase_record(key: str, status: str, n: int) -> dict[str, Any]:
    rec: dict[str, Any] = {
        "status": status,
        "started": None,
        "completed": None,
        "gate_passed": None,
        "artifacts": [],
    }
    if status in ("completed", "in_progress"):
        rec["started"] = f"2026-03-04T0{n % 10}:00:00.000Z"
        rec["timing"] = {"started_at": rec["started"], "retries": 0}
    if status == "completed":
        rec["completed"] = f"2026-03-04T0{n % 10}:30:00.000Z"
        rec["gate_passed"] = rec["completed"]
        rec["summary"] = f"{key} done"
        rec["timing"]["completed_at"] = rec["completed"]
        rec["timing"]["wall_clock_minutes"] = [30, 12.5, 7.25][n % 3]
        rec["constitutional_validation"] = {
            "required": True,
            "completed": True,
            "status": "compliant",
        }
    return rec


def feature_state(
    *,
    gate: str | None = "gate_presented",
    redo_count: int = 0,
    escalations: int = 0,
    done: int = 7,
) -> dict[str, Any]:
    """A feature workflow whose phase ``done - 1`` (06-implementation) just completed (STEP 3e:
    index already advanced, current_phase still on it), with its review gate in ``gate``."""
    keys = list(WORKFLOWS["feature"])
    current = keys[done - 1]
    phases = {
        k: phase_record(k, "completed" if i < done else "pending", i) for i, k in enumerate(keys)
    }
    phases[keys[1]]["iteration_requirements"] = {
        "interactive_elicitation": {"required": True, "completed": True, "menu_interactions": 3}
    }
    aw: dict[str, Any] = {
        "type": "feature",
        "description": "Rate limit the public API",
        "slug": "rate-limit",
        "artifact_folder": "REQ-0031-rate-limit",
        "phases": keys,
        "current_phase": current,
        "current_phase_index": done,
        "phase_status": {k: ("completed" if i < done else "pending") for i, k in enumerate(keys)},
        "started_at": T0,
        "flags": {"light": False, "supervised": True},
        "budget_status": "on_track",
        "sizing": {"intensity": "standard"},
        "review_history": [{"phase": keys[0], "action": "continue", "timestamp": T0}],
        "hook_block_retries": {f"gate-blocker:{current}": 1},
        "zz_unknown_workflow_key": {"kept": ["as", "is"]},
    }
    if gate is not None:
        aw["supervised_review"] = {
            "phase": current,
            "status": gate,
            "paused_at": "2026-03-04T09:50:00.000Z" if gate == "reviewing" else None,
            "resumed_at": None,
            "redo_count": redo_count,
            "redo_guidance_history": [f"guidance {i + 1}" for i in range(redo_count)],
        }
    state: dict[str, Any] = {
        "state_version": 41,
        "schema_version": 1,
        "project": {"name": "acme-api", "created": T0, "description": "ACME"},
        "current_phase": current,
        "active_agent": "software-developer",
        "phases": phases,
        "active_workflow": aw,
        "workflow_history": [
            {"type": "fix", "status": "completed", "slug": "old-bug", "phases": ["01-requirements"]}
        ],
        "pending_escalations": [
            {
                "type": "gate_blocked",
                "hook": "gate-blocker",
                "phase": current,
                "detail": f"Gate blocked #{i}:\n- constitutional validation incomplete\n\ttab",
                "timestamp": T0,
            }
            for i in range(escalations)
        ],
        "supervised_mode": {
            "enabled": True,
            "review_phases": "all",
            "parallel_summary": True,
            "auto_advance_timeout": None,
        },
        "skill_usage_log": [{"agent": "software-developer", "skill": "DEV-001", "ts": T0}],
        "counters": {"owner_writes": 0},
        "zz_vendor": {
            "zz_float": 12.5,
            "zz_escaped": "é",
            "zz_one": 1,
            "A_key": True,
            "emoji": "✅ done",
            "ctl": "bell\u0007 esc\u001b[31m",
            "big": 12345678901234567890,
            "neg": -3.75e-5,
        },
    }
    return state


def write_state(root: Path, state: dict[str, Any], *, literals: bool = True) -> Path:
    isdlc = root / ".isdlc"
    isdlc.mkdir(parents=True, exist_ok=True)
    path = isdlc / "state.json"
    text = dumps(state)
    path.write_bytes((with_literals(text) if literals else text).encode("utf-8"))
    return path


def expected_text(state: dict[str, Any], *, literals: bool = True) -> bytes:
    text = dumps(state)
    return (with_literals(text) if literals else text).encode("utf-8")


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def journal_entries(root: Path) -> list[dict[str, Any]]:
    path = root / ".isdlc" / "phasewatch-decisions.jsonl"
    if not path.exists():
        return []
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [e for e in lines if e["outcome"] != "intent"]  # the line before each rename


def clone(state: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(state)
