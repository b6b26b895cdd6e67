"""Short summaries of a state (for refusals and ``--json``) and the fingerprints a decision is compared on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..text import clean_json, shorten
from .codec import plain


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def next_version(disk: int | None) -> int:
    """``writeState``'s rule: disk + 1 when disk is a positive number, else 1."""
    return disk + 1 if disk is not None and disk > 0 else 1


def _version_of(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def state_summary(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a user needs to see to decide again (plain, cleaned values)."""
    if not isinstance(data, Mapping):
        return {}
    data = clean_json(plain(dict(data)))
    aw = data.get("active_workflow")
    summary: dict[str, Any] = {"state_version": data.get("state_version")}
    if isinstance(aw, dict):
        phases = aw.get("phases")
        if not isinstance(phases, list):
            phases = []
        summary["workflow"] = {
            "type": aw.get("type"),
            "id": aw.get("artifact_folder") or aw.get("slug"),
            "current_phase": aw.get("current_phase"),
            "current_phase_index": aw.get("current_phase_index"),
            "total_phases": len(phases),
        }
        sr = aw.get("supervised_review")
        summary["supervised_review"] = (
            {k: sr.get(k) for k in ("phase", "status", "redo_count")}
            if isinstance(sr, dict)
            else None
        )
    else:
        summary["workflow"] = None
        summary["supervised_review"] = None
    esc = data.get("pending_escalations")
    if isinstance(esc, list):
        summary["pending_escalations"] = len(esc)
        summary["escalations"] = [
            {"type": e.get("type"), "phase": e.get("phase"), "hook": e.get("hook")}
            for e in esc[-5:]
            if isinstance(e, dict)
        ]
    else:
        summary["pending_escalations"] = 0 if esc is None else None
    return summary


def describe_summary(summary: Mapping[str, Any]) -> str:
    """One line for humans: ``v42 · build REQ-1 at 06-implementation [2/4] · gate ... · ...``."""
    if "tdd_file" in summary:
        state = "approved" if summary.get("approved") else "not approved"
        lock = "locked" if summary.get("locked") else "no lock"
        return f"{summary.get('tdd_file')}: {state} · {lock}"
    parts = [f"v{summary.get('state_version')}"]
    wf = summary.get("workflow")
    if isinstance(wf, dict):
        idx, total = wf.get("current_phase_index"), wf.get("total_phases")
        pos = f" [{idx}/{total}]" if isinstance(idx, int) else ""
        parts.append(f"{wf.get('type')} {wf.get('id') or ''} at {wf.get('current_phase')}{pos}")
    else:
        parts.append("no active workflow")
    sr = summary.get("supervised_review")
    if isinstance(sr, dict):
        parts.append(f"gate {sr.get('phase')} {sr.get('status')} (redos {sr.get('redo_count')})")
    else:
        parts.append("no review gate")
    parts.append(f"escalations {summary.get('pending_escalations')}")
    return shorten(" · ".join(str(p) for p in parts), 200)


def _identity(data: Mapping[str, Any]) -> Any:
    aw = data.get("active_workflow")
    if not isinstance(aw, dict):
        return None
    return [aw.get(k) for k in ("type", "slug", "artifact_folder", "started_at")]


def review_view(data: Mapping[str, Any]) -> Any:
    """The fields a gate decision depends on."""
    aw = data.get("active_workflow")
    sr = aw.get("supervised_review") if isinstance(aw, dict) else None
    return {"workflow": _identity(data), "supervised_review": sr}


def escalation_view(data: Mapping[str, Any]) -> Any:
    """The fields an escalation answer depends on."""
    aw = _obj(data.get("active_workflow"))
    return {
        "workflow": _identity(data),
        "current_phase": aw.get("current_phase"),
        "pending_escalations": data.get("pending_escalations"),
    }


def fingerprint(view: Any) -> str:
    text = json.dumps(clean_json(plain(view)), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]
