"""Shared helpers for the repair tests (test_repair*.py, test_app_repair.py): a small build
workflow with every location in step, a sub-agent's stale copy of it, and the orchestration
fields a repair restores."""

from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path
from typing import Any

PHASES = ["05-test-strategy", "06-implementation", "16-quality-loop", "08-code-review"]
AGENTS = ["test-design-engineer", "software-developer", "quality-loop-engineer", "code-reviewer"]


def state(at: int, version: int = 7, **top: Any) -> dict[str, Any]:
    """A build workflow whose phase ``at`` is in progress (earlier ones completed), every
    location in step."""
    statuses = {k: ("completed" if i < at else "in_progress" if i == at else "pending")
                for i, k in enumerate(PHASES)}  # fmt: skip
    doc: dict[str, Any] = {
        "state_version": version,
        "project": {"name": "demo", "ratio": 0.5},
        "current_phase": PHASES[at],
        "active_agent": AGENTS[at],
        "phases": {k: {"status": s, "artifacts": []} for k, s in statuses.items()},
        "active_workflow": {
            "type": "build",
            "slug": "rate-limit",
            "started_at": "2026-11-01T10:00:00.000Z",
            "phases": list(PHASES),
            "current_phase": PHASES[at],
            "current_phase_index": at,
            "phase_status": dict(statuses),
        },
    }
    doc.update(top)
    return doc


def stale(newer: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    """``newer`` written back with ``old``'s orchestration fields (a sub-agent's old copy),
    plus something of its own; ``state_version`` + 1."""
    out = copy.deepcopy(newer)
    for key in ("current_phase", "active_agent"):
        out[key] = old[key]
    for key in ("current_phase", "current_phase_index", "phase_status"):
        out["active_workflow"][key] = copy.deepcopy(old["active_workflow"][key])
    for key, rec in old["phases"].items():
        out["phases"][key]["status"] = rec["status"]
    out["phases"][PHASES[0]]["artifacts"] = ["docs/test-strategy.md"]
    out["state_version"] = newer["state_version"] + 1
    return out


def stringify(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


def project(doc: Any, text: str | None = None) -> Path:
    root = Path(tempfile.mkdtemp(prefix="pw-repair-"))
    (root / ".isdlc").mkdir()
    path = root / ".isdlc" / "state.json"
    path.write_text(stringify(doc) if text is None else text, encoding="utf-8")
    return path


def orchestration(doc: dict[str, Any]) -> Any:
    aw = doc["active_workflow"]
    return (
        doc.get("current_phase"),
        doc.get("active_agent"),
        aw["current_phase"],
        aw["current_phase_index"],
        aw["phase_status"],
        {k: r.get("status") for k, r in doc["phases"].items()},
    )
