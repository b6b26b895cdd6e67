"""The facts the framework's own live dashboard shows (``src/dashboard/server.js``
``buildStateResponse`` and ``dashboard.html``, commit 0689df91), from the same files, read as
its code reads them, except where it reads names its writers do not write: there the truth
(docs/observability.md#where-the-framework-reads-the-wrong-names).

Pure: the inputs are parsed documents (:mod:`core.observe.read` reads them). The result is
plain JSON (the ``observability`` object of ``check --json``, docs/observability.md#the-object).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .js import date_ms, first, get, gt, js_round, number, truthy

#: The framework page's 2-minute window for an analysis "running now" (server.js).
ACTIVE_WINDOW_MS = 2 * 60 * 1000
#: dashboard.html's analysis phases, stage labels and the meta.json domains they confirm.
ANALYSIS_PHASES = (
    "00-quick-scan",
    "01-requirements",
    "02-impact-analysis",
    "03-architecture",
    "04-design",
)
FEATURE_STAGES = ("Requirements", "Architecture", "Design", "Tasks")
BUG_STAGES = ("BugSummary", "RootCause", "FixStrategy", "Tasks")
CONFIRM_DOMAINS = ("requirements", "architecture", "design", "tasks")
#: The writer's fields of a sub_agent_log record (state-tracking.js appendSubAgentLog).
SUB_AGENT_FIELDS = (
    "parent_agent",
    "agent",
    "agent_id",
    "phase",
    "started_at",
    "completed_at",
    "status",
    "duration_ms",
    "tokens_used",
    "provider",
)


def dag_status(status: Any) -> str:
    """dashboard.html's class of a phase in the DAG."""
    if status in ("completed", "complete"):
        return "completed"
    if status in ("in_progress", "running"):
        return "running"
    if status in ("failed", "skipped"):
        return str(status)
    return "pending"


def _phases(workflow: Any, phases: Any) -> tuple[list[dict[str, Any]], dict[str, int]]:
    keys = get(workflow, "phases")
    keys = keys if isinstance(keys, list) else []
    out = []
    done = 0
    for key in keys:
        data = phases.get(key) if isinstance(phases, dict) and isinstance(key, str) else None
        status = first(get(data, "status"), "pending")
        if status in ("completed", "complete"):
            done += 1
        out.append({"phase": key, "status": status, "dag": dag_status(status)})
    return out, {"completed": done, "total": len(keys)}


def still_running(log: list[Any]) -> set[int]:
    """The indexes of the sub_agent_log entries still running: status running and no later
    entry for the same agent and phase (the log is append-only: the phase loop's callbacks
    append a completion, they never update the start; docs/observability.md#sub-agents)."""
    later: set[tuple[str, str]] = set()
    out: set[int] = set()
    for i in range(len(log) - 1, -1, -1):
        rec = log[i]
        if not isinstance(rec, dict):
            continue
        pair = (repr(rec.get("agent")), repr(rec.get("phase")))
        if rec.get("status") == "running" and pair not in later:
            out.add(i)
        later.add(pair)
    return out


def _sub_agents(workflow: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    log = get(workflow, "sub_agent_log")
    log = log if isinstance(log, list) else []
    last = log[-1] if log else None
    active = None
    if truthy(last):
        active = {
            "agent": first(get(last, "agent"), None),
            "status": get(last, "status"),
            "running": get(last, "status") == "running",
        }
    records = [{f: rec.get(f) for f in SUB_AGENT_FIELDS} for rec in log if isinstance(rec, dict)]
    running = still_running(records)
    for i, rec in enumerate(records):
        rec["still_running"] = i in running
    records.sort(key=lambda r: not r["still_running"])  # stable: the running ones first
    return records, active


def _iteration(phase: Any) -> dict[str, Any] | None:
    """The current phase's iteration progress: what the test watcher writes
    (``iteration_requirements.test_iteration``), else the framework page's
    ``iteration_tracking`` (which nothing writes at 0689df91)."""
    test = get(get(phase, "iteration_requirements"), "test_iteration")
    if isinstance(test, dict):
        current = test.get("current_iteration")
        current = test.get("current") if current is None else current
        cap = test.get("max_iterations")
        if number(current) and number(cap):
            return _progress(current, cap, "iteration_requirements.test_iteration", test)
    tracking = get(phase, "iteration_tracking")
    if isinstance(tracking, dict):
        current, cap = tracking.get("current"), tracking.get("max")
        if number(current) and number(cap) and cap > 0:
            return _progress(current, cap, "iteration_tracking", tracking)
    return None


def _progress(current: float, cap: float, source: str, data: dict[str, Any]) -> dict[str, Any]:
    percent = min(100, js_round(current / cap * 100)) if cap > 0 else None
    return {
        "current": current,
        "max": cap,
        "percent": percent,
        "source": source,
        "completed": data.get("completed") is True,
        # the watcher writes status "escalated" (+ escalation_reason); `escalated: true` is what
        # collectPhaseSnapshots reads (docs/observability.md#where-the-framework-reads-the-wrong-names)
        "escalated": data.get("status") == "escalated" or data.get("escalated") is True,
    }


def usage(skill: Any, log: Any) -> str:
    """dashboard.html getSkillUsageState: confirmed (a tool call), likely (inferred), loaded."""
    tool = inferred = False
    for entry in log if isinstance(log, list) else ():
        if (
            isinstance(entry, dict)
            and entry.get("skill_name") == skill
            and not isinstance(skill, dict | list)  # JavaScript's === on objects: identity
        ):
            tool = tool or entry.get("source") == "tool_call"
            inferred = inferred or entry.get("source") == "inferred"
    return "confirmed" if tool else "likely" if inferred else "loaded"


def _skills(agent: Any, manifest: Any, external: Any, log: Any) -> dict[str, list[dict[str, Any]]]:
    built: list[dict[str, Any]] = []
    owned = get(get(manifest, "ownership"), agent) if isinstance(agent, str) else None
    if truthy(owned):
        ids = get(owned, "skills")
        for sid in ids if isinstance(ids, list) else []:
            # the page looks a skill up by `skill_id || name || '?'` (dashboard.html line 741)
            built.append({"skill_id": sid, "usage": usage(first(sid, "?"), log)})
    ext: list[dict[str, Any]] = []
    skills = get(external, "skills")
    if isinstance(skills, list) and None not in skills:  # a null entry throws in server.js
        for s in skills:
            name = first(get(s, "name"), get(s, "skill_id"), "unknown")
            ext.append(
                {"name": name, "file": first(get(s, "file"), None), "usage": usage(name, log)}
            )
    return {"built_in": built, "external": ext}


def hook_events(lines: list[Any], current_phase: Any) -> list[dict[str, Any]]:
    """server.js scanHookLog on the parsed tail: a line that does not parse (``...``) or is
    ``null`` is skipped; the current phase's events only, when there is one."""
    events = []
    for entry in lines:
        if entry is ... or entry is None:
            continue
        events.append(
            {k: first(get(entry, k), None) for k in ("ts", "hook", "event", "phase", "reason")}
        )
    if truthy(current_phase):
        events = [e for e in events if e["phase"] == current_phase]
    return events


def _active_item(items: list[Any], now_ms: float, *, first_wins: bool = False) -> Any:
    """server.js: the item with activity within the window and not analyzed, the latest one
    (``first_wins``: readActiveMeta's, which compares with a slug string and keeps the first)."""
    active = None
    for item in items:
        if not isinstance(item, dict) or not truthy(item.get("last_activity_at")):
            continue
        age = now_ms - date_ms(item["last_activity_at"])
        if not age < ACTIVE_WINDOW_MS or item.get("analysis_status") == "analyzed":
            continue  # (NaN: never active, as in JavaScript)
        if active is None or (
            not first_wins and gt(item["last_activity_at"], active["last_activity_at"])
        ):
            active = item
    return active


def _analysis(item: Any) -> dict[str, Any] | None:
    if item is None:
        return None
    done = item.get("phases_completed")
    done = done if isinstance(done, list) else []
    return {
        "slug": item.get("slug"),
        "item_type": first(item.get("item_type"), None),
        "analysis_status": first(item.get("analysis_status"), "raw"),
        "source_id": first(item.get("source_id"), None),
        "last_activity_at": item.get("last_activity_at"),
        "phases": [
            {
                "phase": p,
                "state": "done" if p in done else "active" if i == len(done) else "pending",
            }
            for i, p in enumerate(ANALYSIS_PHASES)
        ],
        "phases_completed": len(done),
        "phases_total": len(ANALYSIS_PHASES),
    }


def confirmation(meta: Any, item_type: Any) -> list[dict[str, Any]]:
    """dashboard.html's confirmation stages from ``meta.acceptance.domains``."""
    domains = get(get(meta, "acceptance"), "domains")
    if not truthy(domains) or not isinstance(domains, list | str):
        return []
    labels = BUG_STAGES if item_type == "BUG" else FEATURE_STAGES
    out = []
    before = True
    for label, key in zip(labels, CONFIRM_DOMAINS, strict=True):
        accepted = key in domains
        out.append(
            {
                "stage": label,
                "domain": key,
                "state": "accepted" if accepted else "current" if before else "pending",
            }
        )
        before = before and accepted
    return out


def observe(
    state: dict[str, Any] | None,
    *,
    index: Any,
    meta: Callable[[str], Any],
    skills_manifest: Any,
    external_manifest: Any,
    hook_lines: list[Any],
    personas: list[dict[str, Any]],
    now_ms: float,
) -> dict[str, Any]:
    """The framework dashboard's facts (docs/observability.md#the-object); ``meta(slug)``
    reads ``docs/requirements/<slug>/meta.json``."""
    workflow = first(get(state, "active_workflow"), None)
    phases = first(get(state, "phases"), {})
    items = get(index, "items")
    items = items if isinstance(items, list) else []
    active = _active_item(items, now_ms)
    current = first(get(workflow, "current_phase"), None)
    dag, progress = _phases(workflow, phases)
    agents, agent = _sub_agents(workflow)
    cur_phase = (
        phases.get(current) if isinstance(phases, dict) and isinstance(current, str) else None
    )
    log = first(get(state, "skill_usage_log"), [])
    meta_doc = (
        meta(active["slug"]) if active is not None and isinstance(active.get("slug"), str) else None
    )
    analysis = _analysis(active)
    return {
        "status": "Building" if truthy(workflow) else "Analysing" if active is not None else "Idle",
        "workflow_type": get(workflow, "type"),
        "slug": first(get(workflow, "slug"), get(workflow, "artifact_folder"), None),
        "current_phase": current,
        "phases": dag,
        "progress": progress,
        "active_agent": agent,
        "sub_agent_log": agents,
        "iteration_progress": _iteration(cur_phase) if truthy(cur_phase) else None,
        "agent_skills": _skills(
            agent["agent"] if agent else None, skills_manifest, external_manifest, log
        ),
        "hook_events": hook_events(hook_lines, current),
        "analysis_items": [_item(i) for i in items if isinstance(i, dict)],
        "active_analysis": analysis,
        "active_meta": None
        if active is None or not isinstance(meta_doc, dict)
        else {
            "slug": active.get("slug"),
            "confirmation": confirmation(meta_doc, active.get("item_type")),
        },
        "personas": [
            {**p, "kind": "contributing" if p.get("role_type") == "contributing" else "core"}
            for p in personas
        ],
    }


def _item(item: dict[str, Any]) -> dict[str, Any]:
    """An analysis item's fields as the index holds them (server.js returns them as read)."""
    keys = ("slug", "item_type", "analysis_status", "source_id", "phases_completed")
    return {**{k: item.get(k) for k in keys}, "last_activity_at": item.get("last_activity_at")}


def framework_meta_slug(index: Any, now_ms: float) -> Any:
    """The slug whose meta.json the framework's server returns as ``active_meta`` (the first
    active item, server.js readActiveMeta), for the comparison with the framework's answer."""
    items = get(index, "items")
    item = _active_item(items if isinstance(items, list) else [], now_ms, first_wins=True)
    return None if item is None else item.get("slug")


def expire(data: dict[str, Any], now_ms: float) -> dict[str, Any]:
    """``data`` (an observability object) at a later ``now_ms``: an analysis item leaves the
    2-minute window by time alone, without a file changing (one enters it only by a write of
    the index, which reloads everything). The same object when nothing changed; a newly active
    older item comes without its meta.json (read at the next change)."""
    active = _active_item(data["analysis_items"], now_ms)
    was = data["active_analysis"]
    if (active is None and was is None) or (
        active is not None and was is not None and active["slug"] == was["slug"]
    ):
        return data
    building = data["status"] == "Building"
    return {
        **data,
        "status": "Building" if building else "Analysing" if active is not None else "Idle",
        "active_analysis": _analysis(active),
        "active_meta": None,
    }
