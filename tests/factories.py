"""Realistic iSDLC ``state.json`` documents and the protocol's steps, for tests.

Everything here builds plain JSON-ready dicts following /work/shared/FORMATS.md section 1 (field
names and value spellings exact). Shared by the audit, dashboard and writer tests.

Ready-made documents
    ``project_state()``    a project with no active workflow (plus the usual noise: counters,
                           skill_usage_log, history, unknown keys)
    ``fresh_state(kind)``  a workflow just initialised (before the first STEP 3c-prime)
    ``feature_state()``    an older ``feature`` workflow mid-run, phase 05-test-strategy in progress
    ``fix_state()``        an older ``fix`` workflow, 06-implementation iterating on failing tests
    ``build_state()``      a newer ``build`` workflow (schema_version, observability arrays)
    ``finalized_state()``  ``active_workflow: null`` and the run archived in ``workflow_history``

Protocol steps (each returns a NEW dict, never mutates its input, and bumps ``state_version`` by
one like ``writeState()``; timestamps come from :func:`ts` so runs are deterministic)
    ``init`` (orchestrator STEP 4), ``activate`` (STEP 3c-prime), ``complete`` (STEP 3e),
    ``gate_presented`` / ``gate_continue`` / ``gate_review`` / ``gate_resume`` / ``redo``
    (supervised review gate), ``escalate`` / ``answer_retry`` / ``answer_skip`` / ``cancel``
    (escalations), ``finalize``.

Scenarios
    ``walk(kind, ...)`` returns ``[(label, state), ...]``: a full CORRECT run, optionally with a
    supervised gate, a redo, a review pause and an escalation retry. Every step is legal.

Editing helpers for failing cases
    ``get(state, path)``, ``setpath(state, path, value)``, ``delpath(state, path)``; paths are
    dotted (``"phases.06-implementation.status"``) with ``[n]`` for list items. Neither bumps the
    version (use ``bump(state)`` for that).
"""

from __future__ import annotations

import copy
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from phasewatch.core.protocol import ESCALATION_TYPES, WORKFLOWS, primary_agent, review_selected

State = dict[str, Any]

BASE_TIME = datetime(2026, 3, 4, 9, 0, tzinfo=UTC)
MINUTES_PER_WRITE = 3
START_VERSION = 40  # an existing project: the counter is already well above 1

# kind -> (artifact_folder, slug, description)
WORKFLOW_META: dict[str, tuple[str, str, str]] = {
    "feature": ("REQ-0031-rate-limit", "rate-limit", "Add per-tenant rate limiting to the API"),
    "fix": ("BUG-0007-null-session", "null-session", "Crash when the session cookie is empty"),
    "build": ("REQ-0032-export-csv", "export-csv", "Export reports as CSV"),
    "test-run": ("TEST-0004-regression", "regression", "Run the regression suite"),
    "upgrade": ("UPG-0002-node-22", "node-22", "Upgrade the runtime to Node 22"),
}
TESTED_PHASES = ("06-implementation", "16-quality-loop", "11-local-testing", "07-testing")


# ----------------------------------------------------------------------------- time


def iso(moment: datetime) -> str:
    """``2026-03-04T09:12:03.418Z``: the owner's spelling (UTC, milliseconds)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def ts(version: int, seconds: int = 0) -> str:
    """Timestamp of the write that produced ``state_version == version``."""
    return iso(BASE_TIME + timedelta(minutes=MINUTES_PER_WRITE * version, seconds=seconds))


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def now(state: State) -> str:
    return ts(int(state.get("state_version") or 0))


# ----------------------------------------------------------------------------- path editing

_SEG = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _segments(path: str) -> list[str | int]:
    return [name if name else int(index) for name, index in _SEG.findall(path)]


def get(state: Any, path: str, default: Any = None) -> Any:
    node = state
    for seg in _segments(path):
        try:
            node = node[seg]
        except (KeyError, IndexError, TypeError):
            return default
    return node


def setpath(state: State, path: str, value: Any) -> State:
    """A copy of ``state`` with ``path`` set. Missing or non-container steps on the way are
    replaced by ``{}`` (``[]`` before an index); an index past a list's end appends."""
    out = copy.deepcopy(state)
    segs = _segments(path)
    node: Any = out
    for seg, nxt in zip(segs, [*segs[1:], None], strict=True):
        if isinstance(seg, int) and isinstance(node, list) and seg >= len(node):
            node.append(None)
            seg = len(node) - 1
        if nxt is None:
            node[seg] = value
            break
        child = node[seg] if isinstance(node, dict) and seg in node else None
        if isinstance(node, list):
            child = node[seg]
        want = list if isinstance(nxt, int) else dict
        if not isinstance(child, want):
            child = want()
            node[seg] = child
        node = child
    return out


def delpath(state: State, path: str) -> State:
    """A copy of ``state`` without ``path`` (no error if it is absent)."""
    out = copy.deepcopy(state)
    segs = _segments(path)
    parent: Any = out
    for seg in segs[:-1]:
        try:
            parent = parent[seg]
        except (KeyError, IndexError, TypeError):
            return out
    if isinstance(parent, dict):
        parent.pop(segs[-1], None)
    elif isinstance(parent, list) and isinstance(segs[-1], int) and segs[-1] < len(parent):
        del parent[segs[-1]]
    return out


def bump(state: State, by: int = 1) -> State:
    """A copy with ``state_version`` raised like ``writeState()`` (disk + 1)."""
    out = copy.deepcopy(state)
    out["state_version"] = int(out.get("state_version") or 0) + by
    return out


# ----------------------------------------------------------------------------- documents


def project_state(*, newer: bool = False, version: int = START_VERSION) -> State:
    """A project with no active workflow, carrying the keys real files have."""
    state: State = {
        "state_version": version,
        "project": {
            "name": "acme-api",
            "created": "2026-01-12T08:30:00.000Z",
            "description": "Billing API",
        },
        "current_phase": None,
        "active_agent": None,
        "phases": {},
        "active_workflow": None,
        "workflow_history": [],
        "pending_escalations": [],
        "supervised_mode": {"enabled": False, "review_phases": "all"},
        "skill_usage_log": [
            {
                "timestamp": "2026-03-01T10:00:00.000Z",
                "agent": "requirements-analyst",
                "skill_id": "REQ-002",
                "phase": "01-requirements",
                "status": "executed",
            }
        ],
        "counters": {"next_req_id": 31, "next_bug_id": 7},
        "history": [
            {
                "timestamp": "2026-03-01T10:05:00.000Z",
                "agent": "sdlc-orchestrator",
                "action": "Project discovered",
            }
        ],
        "blockers": [],
        "contract_violations": [],
        # keys phasewatch does not model (kept and ignored)
        "framework_version": "0.9.3",
        "constitution": {"enforced": True, "path": "docs/isdlc/constitution.md"},
        "iteration_enforcement": {"enabled": True},
        "discovery_context": {"completed_at": "2026-03-01T09:00:00.000Z", "tech_stack": ["node"]},
    }
    if newer:
        state["schema_version"] = 1
    return state


def _aw(state: State) -> dict[str, Any]:
    aw = state.get("active_workflow")
    if not isinstance(aw, dict):
        raise ValueError("no active workflow")
    return aw


def _key(state: State, key: str | int | None) -> str:
    aw = _aw(state)
    if key is None:
        return aw["current_phase"]
    if isinstance(key, int):
        return aw["phases"][key]
    return key


def skeleton() -> dict[str, Any]:
    """``phases[k]`` as workflow init writes it."""
    return {
        "status": "pending",
        "started": None,
        "completed": None,
        "gate_passed": None,
        "artifacts": [],
    }


def init(
    state: State,
    kind: str = "feature",
    *,
    phases: list[str] | None = None,
    light: bool = False,
    supervised: bool | None = None,
    review_phases: str | list[str] = "all",
    artifact_folder: str | None = None,
    newer: bool | None = None,
) -> State:
    """Orchestrator STEP 4: a new ``active_workflow`` (seed 003 IR-008).

    ``phase_status`` all pending (the orchestrator's MODE init-only); index 0; ``phases`` reset to skeletons
    (stale entries removed); top-level ``current_phase`` = first phase. ``light`` drops 03/04 from
    a feature. ``supervised`` sets top-level ``supervised_mode`` (None keeps what is there).
    """
    out = bump(state)
    at = now(out)
    keys = list(phases or WORKFLOWS[kind])
    if light:
        keys = [k for k in keys if k not in ("03-architecture", "04-design")]
    folder, slug, description = WORKFLOW_META.get(kind, (f"WF-0001-{kind}", kind, kind))
    folder = artifact_folder or folder
    if supervised is not None:
        out["supervised_mode"] = {
            "enabled": supervised,
            "review_phases": review_phases,
            "parallel_summary": True,
            "auto_advance_timeout": None,
        }
    aw: dict[str, Any] = {
        "type": kind,
        "description": description,
        "slug": slug,
        "artifact_folder": folder,
        "phases": keys,
        "current_phase": keys[0],
        "current_phase_index": 0,
        "phase_status": dict.fromkeys(keys, "pending"),
        "started_at": at,
        "flags": {
            "light": light,
            "supervised": (out.get("supervised_mode") or {}).get("enabled") is True,
        },
        "budget_status": "on_track",
        "sizing": {"intensity": "light" if light else "standard", "file_count": 12},
        "review_history": [],
        "hook_block_retries": {},
        "git_branch": {
            "name": f"{'bugfix' if kind == 'fix' else 'feature'}/{folder}",
            "status": "active",
        },
    }
    if newer if newer is not None else kind == "build":
        out["schema_version"] = 1
        aw.update({"sub_agent_log": [], "hook_events": [], "artifacts_produced": []})
    out["active_workflow"] = aw
    out["phases"] = {k: skeleton() for k in keys}
    out["current_phase"] = keys[0]
    out["pending_escalations"] = []
    return out


def activate(state: State, key: str | int | None = None) -> State:
    """STEP 3c-prime for ``key`` (default: the phase at ``current_phase_index``).

    ONE write: ``phases[k].status = in_progress``, ``started`` (kept if set), ``timing.started_at``
    (kept; ``retries`` += 1 on a re-run), ``current_phase`` (both), ``phase_status[k]``,
    ``active_agent``. The index is not touched. Also re-runs a phase for a redo or a retry.
    """
    aw = _aw(state)
    if key is None:
        idx = aw["current_phase_index"]
        key = aw["phases"][idx] if idx < len(aw["phases"]) else aw["current_phase"]
    k = _key(state, key)
    out = bump(state)
    at = now(out)
    aw = out["active_workflow"]
    rec = out["phases"].setdefault(k, skeleton())
    rec["status"] = "in_progress"
    if not rec.get("started"):
        rec["started"] = at
    timing = rec.setdefault("timing", {})
    if timing.get("started_at"):
        timing["retries"] = int(timing.get("retries") or 0) + 1
        timing.pop("completed_at", None)
        timing.pop("wall_clock_minutes", None)
    else:
        timing.update({"started_at": at, "retries": 0})
    rec.setdefault(
        "constitutional_validation",
        {
            "required": True,
            "completed": False,
            "status": "pending",
            "iterations_used": 0,
            "max_iterations": 5,
        },
    )
    if k in TESTED_PHASES:
        rec.setdefault("iteration_requirements", {}).setdefault(
            "test_iteration",
            {
                "required": True,
                "completed": False,
                "current_iteration": 0,
                "max_iterations": 10,
                "status": "pending",
                "history": [],
            },
        )
    if k == "01-requirements":
        rec.setdefault("iteration_requirements", {}).setdefault(
            "interactive_elicitation",
            {"required": True, "completed": False, "menu_interactions": 0},
        )
    aw["current_phase"] = k
    aw["phase_status"][k] = "in_progress"
    out["current_phase"] = k
    out["active_agent"] = primary_agent(k)
    if isinstance(aw.get("sub_agent_log"), list):
        aw["sub_agent_log"].append({"agent": primary_agent(k), "phase": k, "started_at": at})
    return out


def iterate_tests(state: State, key: str | int | None = None, *, passed: bool) -> State:
    """One test iteration inside a running phase (the test-watcher's write)."""
    k = _key(state, key)
    out = bump(state)
    ti = (
        out["phases"][k]
        .setdefault("iteration_requirements", {})
        .setdefault(
            "test_iteration",
            {
                "required": True,
                "completed": False,
                "current_iteration": 0,
                "max_iterations": 10,
                "history": [],
            },
        )
    )
    ti["current_iteration"] = int(ti.get("current_iteration") or 0) + 1
    ti["last_test_result"] = "passed" if passed else "failed"
    ti["status"] = "success" if passed else "iterating"
    ti["completed"] = passed
    ti.setdefault("history", []).append(
        {
            "iteration": ti["current_iteration"],
            "timestamp": now(out),
            "command": "npm test",
            "result": "PASSED" if passed else "FAILED",
        }
    )
    return out


def _record_evidence(rec: dict[str, Any], key: str, at: str) -> None:
    cv = rec.setdefault("constitutional_validation", {})
    cv.update({"required": True, "completed": True, "status": "compliant", "max_iterations": 5})
    cv["iterations_used"] = max(1, int(cv.get("iterations_used") or 0))
    ir = rec.get("iteration_requirements") or {}
    ti = ir.get("test_iteration")
    if isinstance(ti, dict) and not ti.get("completed"):
        n = int(ti.get("current_iteration") or 0) + 1
        ti.update(
            {
                "current_iteration": n,
                "completed": True,
                "last_test_result": "passed",
                "status": "success",
            }
        )
        ti.setdefault("history", []).append(
            {"iteration": n, "timestamp": at, "command": "npm test", "result": "PASSED"}
        )
    ie = ir.get("interactive_elicitation")
    if isinstance(ie, dict):
        ie.update(
            {"completed": True, "menu_interactions": max(3, int(ie.get("menu_interactions") or 0))}
        )


def complete(state: State, key: str | int | None = None, *, summary: str | None = None) -> State:
    """STEP 3e for ``key`` (default: ``current_phase``).

    ONE write: ``phases[k].status = completed``, ``summary``, ``timing.completed_at``,
    ``wall_clock_minutes``, ``phase_status[k] = completed``, index = position(k) + 1 (so a redo,
    which never moved the index back, does not skip a phase). The next phase is NOT touched.
    Evidence (constitutional iterations, test iterations, menu interactions) is recorded too.
    """
    k = _key(state, key)
    out = bump(state)
    at = now(out)
    aw = out["active_workflow"]
    rec = out["phases"].setdefault(k, skeleton())
    _record_evidence(rec, k, at)
    rec["status"] = "completed"
    rec["summary"] = summary or f"{k}: done ({len(rec.get('artifacts') or [])} artifacts)"
    rec["gate_passed"] = at
    rec.setdefault("artifacts", []).append(f"docs/{aw.get('artifact_folder')}/{k}.md")
    timing = rec.setdefault("timing", {})
    started = timing.get("started_at") or rec.get("started") or at
    timing["completed_at"] = at
    timing["wall_clock_minutes"] = round((_parse(at) - _parse(started)).total_seconds() / 60, 1)
    aw["phase_status"][k] = "completed"
    aw["current_phase_index"] = max(
        int(aw.get("current_phase_index") or 0), aw["phases"].index(k) + 1
    )
    return out


# ----------------------------------------------------------------------------- review gate


def gate_presented(state: State, key: str | int | None = None) -> State:
    """After phase k's completion write: present [C]/[R]/[D]. After a redo, record it first."""
    k = _key(state, key)
    out = bump(state)
    at = now(out)
    aw = out["active_workflow"]
    rv = aw.get("supervised_review")
    if isinstance(rv, dict) and rv.get("phase") == k and rv.get("status") == "redo_pending":
        history = rv.get("redo_guidance_history") or [None]
        aw["review_history"].append(
            {
                "phase": k,
                "action": "redo",
                "redo_count": rv["redo_count"],
                "guidance": history[-1],
                "timestamp": at,
            }
        )
        rv["status"] = "gate_presented"
    else:
        aw["supervised_review"] = {
            "phase": k,
            "status": "gate_presented",
            "paused_at": None,
            "resumed_at": None,
            "redo_count": 0,
            "redo_guidance_history": [],
        }
    return out


def gate_continue(state: State) -> State:
    """[C]: record the decision and delete ``supervised_review``."""
    out = bump(state)
    aw = out["active_workflow"]
    rv = aw.pop("supervised_review")
    aw["review_history"].append({"phase": rv["phase"], "action": "continue", "timestamp": now(out)})
    return out


def gate_review(state: State) -> State:
    """[R]: pause for a human review (the gate stays blocked)."""
    out = bump(state)
    rv = out["active_workflow"]["supervised_review"]
    rv.update({"status": "reviewing", "paused_at": now(out)})
    return out


def gate_resume(state: State) -> State:
    """End of [R]: record ``{action: review}`` and delete ``supervised_review``."""
    out = bump(state)
    at = now(out)
    aw = out["active_workflow"]
    rv = aw.pop("supervised_review")
    aw["review_history"].append(
        {
            "phase": rv["phase"],
            "action": "review",
            "paused_at": rv.get("paused_at"),
            "resumed_at": at,
            "timestamp": at,
        }
    )
    return out


def redo(state: State, guidance: str = "Cover the error paths too.") -> State:
    """[D] (offered while ``redo_count < 3``): ``redo_count += 1``, ``status = redo_pending``.

    The re-run is then ``activate(state)`` (statuses back to in_progress, index unchanged),
    ``complete(state)`` and ``gate_presented(state)``.
    """
    out = bump(state)
    rv = out["active_workflow"]["supervised_review"]
    if rv["redo_count"] >= 3:
        raise ValueError("redo is only offered while redo_count < 3")
    rv["redo_count"] += 1
    rv["redo_guidance_history"].append(guidance)
    rv["status"] = "redo_pending"
    return out


# ----------------------------------------------------------------------------- escalations


def escalate(
    state: State,
    type: str = "gate_blocked",
    *,
    phase: str | None = None,
    detail: str | None = None,
    seconds: int = 0,
) -> State:
    """A hook blocked and queued an escalation (``gate_blocked`` also records the gate block)."""
    out = bump(state)
    at = ts(int(out["state_version"]), seconds)
    aw = out["active_workflow"]
    k = phase or aw["current_phase"]
    hook = ESCALATION_TYPES[type]
    out.setdefault("pending_escalations", []).append(
        {
            "type": type,
            "hook": hook,
            "phase": k,
            "detail": detail
            or f"GATE BLOCKED: {k}\n\nUnsatisfied requirements:\n  - test_iteration: tests failing\n",
            "timestamp": at,
        }
    )
    counter = f"{hook}:{k}"
    aw["hook_block_retries"][counter] = aw["hook_block_retries"].get(counter, 0) + 1
    if type == "gate_blocked" and k in out["phases"]:
        out["phases"][k]["gate_validation"] = {
            "status": "blocked",
            "blocked_at": at,
            "blocking_requirements": ["test_iteration"],
            "details": ["Tests have not passed"],
        }
    return out


def answer_retry(state: State) -> State:
    """Retry: clear the escalations, record ``recovery_action`` and ``retry_count``; the phase is
    then re-run with ``activate(state)``."""
    out = bump(state)
    k = (
        out["pending_escalations"][0]["phase"]
        if out.get("pending_escalations")
        else out["active_workflow"]["current_phase"]
    )
    out["pending_escalations"] = []
    out["active_workflow"]["recovery_action"] = {"type": "retry", "phase": k, "timestamp": now(out)}
    rec = out["phases"][k]
    rec["retry_count"] = int(rec.get("retry_count") or 0) + 1
    return out


def answer_skip(state: State) -> State:
    """Skip (override): clear the escalations; the phase is then completed with ``complete``."""
    out = bump(state)
    out["pending_escalations"] = []
    return out


def _snapshots(state: State) -> list[dict[str, Any]]:
    aw = _aw(state)
    snaps = []
    for k in aw["phases"]:
        rec = state["phases"].get(k, {})
        timing = rec.get("timing") or {}
        snaps.append(
            {
                "key": k,
                "status": rec.get("status"),
                "summary": rec.get("summary"),
                "started": rec.get("started"),
                "completed": timing.get("completed_at"),
                "gate_passed": rec.get("gate_passed"),
                "wall_clock_minutes": timing.get("wall_clock_minutes"),
                "retries": timing.get("retries", 0),
            }
        )
    return snaps


def _archive(state: State, status: str, **extra: Any) -> State:
    out = bump(state)
    at = now(out)
    aw = out["active_workflow"]
    snaps = _snapshots(out)
    entry = {
        "type": aw["type"],
        "description": aw["description"],
        "slug": aw["slug"],
        "artifact_folder": aw["artifact_folder"],
        "status": status,
        "started_at": aw["started_at"],
        "phases": list(aw["phases"]),
        "phase_snapshots": snaps,
        "metrics": {
            "total_phases": len(aw["phases"]),
            "phases_completed": sum(1 for s in snaps if s["status"] == "completed"),
            "total_duration_minutes": round(
                (_parse(at) - _parse(aw["started_at"])).total_seconds() / 60, 1
            ),
            "redo_count": sum(1 for r in aw.get("review_history", []) if r.get("action") == "redo"),
        },
        "review_history": list(aw.get("review_history", [])),
        "git_branch": aw.get("git_branch"),
        **extra,
    }
    if status == "completed":
        entry["completed_at"] = at
    out["workflow_history"] = [*out.get("workflow_history", []), entry][-50:]
    out["active_workflow"] = None
    out["pending_escalations"] = []
    return out


def finalize(state: State) -> State:
    """Orchestrator finalize: archive to ``workflow_history`` (``phase_snapshots``, ``metrics``)
    and set ``active_workflow = null``. Top-level mirrors keep the last phase."""
    return _archive(state, "completed")


def cancel(state: State, reason: str = "Cancelled by user at escalation") -> State:
    """Cancel (escalation answer): archive with ``status: cancelled``, ``cancelled_at``,
    ``cancellation_reason``."""
    at = ts(int(state.get("state_version") or 0) + 1)
    return _archive(state, "cancelled", cancelled_at=at, cancellation_reason=reason)


# ----------------------------------------------------------------------------- scenarios


def walk(
    kind: str = "feature",
    *,
    start: State | None = None,
    supervised: bool | None = None,
    review_phases: str | list[str] = "all",
    redo_at: str | None = None,
    review_at: str | None = None,
    escalate_at: str | None = None,
    light: bool = False,
    finish: bool = True,
) -> list[tuple[str, State]]:
    """A full correct run as ``[(label, state), ...]``, starting with ``start`` (default: an idle
    project). Reviewed phases get a gate: a redo at ``redo_at``, a review pause at ``review_at``,
    [C] otherwise. ``escalate_at`` adds a gate_blocked escalation answered with Retry."""
    s = start if start is not None else project_state(newer=kind == "build")
    steps: list[tuple[str, State]] = [("start", s)]

    def step(label: str, new: State) -> State:
        steps.append((label, new))
        return new

    s = step("init", init(s, kind, supervised=supervised, review_phases=review_phases, light=light))
    for k in list(s["active_workflow"]["phases"]):
        s = step(f"3c-prime {k}", activate(s))
        if k == escalate_at:
            s = step(f"tests fail {k}", iterate_tests(s, passed=False))
            s = step(f"escalate {k}", escalate(s))
            s = step(f"retry {k}", answer_retry(s))
            s = step(f"3c-prime again {k}", activate(s, k))
        s = step(f"3e {k}", complete(s))
        if review_selected(s.get("supervised_mode"), k):
            s = step(f"gate {k}", gate_presented(s))
            if k == redo_at:
                s = step(f"redo {k}", redo(s))
                s = step(f"3c-prime redo {k}", activate(s, k))
                s = step(f"3e redo {k}", complete(s, k))
                s = step(f"gate again {k}", gate_presented(s, k))
            if k == review_at:
                s = step(f"review {k}", gate_review(s))
                s = step(f"resume {k}", gate_resume(s))
            else:
                s = step(f"continue {k}", gate_continue(s))
    if finish:
        s = step("finalize", finalize(s))
    return steps


def run_until(kind: str, label: str, **kwargs: Any) -> State:
    """The state right after the step called ``label`` in ``walk(kind, **kwargs)``."""
    for name, state in walk(kind, **kwargs):
        if name == label:
            return state
    raise KeyError(label)


def fresh_state(kind: str = "feature", **kwargs: Any) -> State:
    """Just initialised (orchestrator STEP 4 done, no STEP 3c-prime yet)."""
    return run_until(kind, "init", **kwargs)


def feature_state() -> State:
    """Older ``feature`` workflow mid-run: 00..04 completed, 05-test-strategy in progress."""
    s = run_until("feature", "3c-prime 05-test-strategy")
    s = copy.deepcopy(s)
    s["phases"]["05-test-strategy"]["constitutional_validation"].update(
        {"status": "iterating", "iterations_used": 1}
    )
    s["skill_usage_log"].append(
        {
            "timestamp": now(s),
            "agent": "test-design-engineer",
            "skill_id": "TEST-001",
            "phase": "05-test-strategy",
            "status": "executed",
        }
    )
    s["history"].append(
        {"timestamp": now(s), "agent": "test-design-engineer", "action": "Phase 05 started"}
    )
    s["counters"]["next_req_id"] = 32
    return s


def fix_state() -> State:
    """Older ``fix`` workflow: 06-implementation iterating on failing tests (TS-004 shape)."""
    s = run_until("fix", "3c-prime 06-implementation")
    s = iterate_tests(s, passed=False)
    return iterate_tests(s, passed=False)


def build_state() -> State:
    """Newer ``build`` workflow (schema_version 1, observability arrays), supervised on 06 and
    16: 05 done, 06-implementation completed by STEP 3e with its review gate presented."""
    return run_until("build", "gate 06-implementation", supervised=True, review_phases=["06", "16"])


def finalized_state(kind: str = "feature", **kwargs: Any) -> State:
    """Run finished: ``active_workflow: null``, archived with ``phase_snapshots`` and ``metrics``."""
    return run_until(kind, "finalize", **kwargs)
