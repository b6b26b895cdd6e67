"""Where the facts the framework's views show contradict each other or the workflow
(docs/observability.md#contradictions). The framework checks none of these as such (its test
watcher escalates at the maximum, then keeps counting and may end on a pass), so each is
information."""

from __future__ import annotations

from typing import Any

from ..checks import Emitter, run_checks
from ..findings import Finding, Severity, rule
from .js import get, number
from .view import still_running

SOURCE = ".isdlc/state.json"

R_AGENT_DONE_PHASE = rule(
    "OBS-AGENT-RUNNING-DONE",
    Severity.INFO,
    "A sub-agent is still logged as running for a phase that has completed.",
    seed="docs/observability.md#contradictions (state-tracking.js appendSubAgentLog)",
    fix="The agent's completion was never logged: the log is append-only, so a later entry for "
    "the same agent with its outcome settles it. Nothing to do if the phase's work is done.",
)
R_AGENT_OTHER_PHASE = rule(
    "OBS-AGENT-OTHER-PHASE",
    Severity.INFO,
    "A sub-agent logged as running belongs to a phase that is not the current one.",
    seed="docs/observability.md#contradictions (state-tracking.js appendSubAgentLog)",
    fix="Either the workflow moved on while the agent ran, or its completion was not logged; "
    "check the agent's outcome before trusting the current phase's work.",
)
R_SKILL_NOT_OWNED = rule(
    "OBS-SKILL-NOT-OWNED",
    Severity.INFO,
    "A skill call is logged for an agent whose entry in the skills manifest does not own it.",
    seed="docs/observability.md#contradictions (post-skill-dispatcher.cjs, skills-manifest.json)",
    fix="Cross-agent skill use is allowed and only observed by the framework; look at why the "
    "agent needed another agent's skill if it keeps happening.",
)
R_ITER_PAST_MAX = rule(
    "OBS-ITERATIONS-PAST-MAX",
    Severity.INFO,
    "The current phase's test iterations went past their maximum.",
    seed="docs/observability.md#contradictions (test-watcher.cjs: MAX ITERATIONS EXCEEDED)",
    fix="The test watcher escalated at the maximum: if the escalation was never answered, answer "
    "it (fix the failures, or raise the limit in the iteration config).",
)


def _running(state: Any) -> list[tuple[int, dict[str, Any]]]:
    log = get(get(state, "active_workflow"), "sub_agent_log")
    if not isinstance(log, list):
        return []
    return [(i, log[i]) for i in sorted(still_running(log))]


def check_agents(em: Emitter, state: Any, manifest: Any) -> None:
    workflow = get(state, "active_workflow")
    current = get(workflow, "current_phase")
    phases = get(state, "phases")
    for i, rec in _running(state):
        phase = rec.get("phase")
        if not isinstance(phase, str) or not phase:
            continue
        status = get(get(phases, phase), "status")
        path = f"active_workflow.sub_agent_log[{i}]"
        if status in ("completed", "complete"):
            em.add(
                R_AGENT_DONE_PHASE,
                path,
                f"sub-agent {rec.get('agent')} is running for {phase}, which is {status}",
                expected="completed or failed",
                actual="running",
            )
        elif isinstance(current, str) and phase != current:
            em.add(
                R_AGENT_OTHER_PHASE,
                path,
                f"sub-agent {rec.get('agent')} is running for {phase}; the current phase is {current}",
                expected=current,
                actual=phase,
            )


def check_skills(em: Emitter, state: Any, manifest: Any) -> None:
    ownership = get(manifest, "ownership")
    lookup = get(manifest, "skill_lookup")
    log = get(state, "skill_usage_log")
    if not isinstance(ownership, dict) or not isinstance(lookup, dict) or not isinstance(log, list):
        return
    for i, entry in enumerate(log):
        if not isinstance(entry, dict) or entry.get("source") != "tool_call":
            continue
        agent, skill = entry.get("agent"), entry.get("skill_name")
        owned = get(ownership.get(agent) if isinstance(agent, str) else None, "skills")
        if not isinstance(owned, list) or not isinstance(skill, str) or skill not in lookup:
            continue  # an agent or a skill the manifest does not know: nothing to compare
        if skill not in owned:
            em.add(
                R_SKILL_NOT_OWNED,
                f"skill_usage_log[{i}]",
                f"{agent} called {skill}, which the skills manifest gives to {lookup[skill]}",
                expected=lookup[skill],
                actual=agent,
            )


def check_iterations(em: Emitter, state: Any, manifest: Any) -> None:
    current = get(get(state, "active_workflow"), "current_phase")
    if not isinstance(current, str):
        return
    phase = get(get(state, "phases"), current)
    test = get(get(phase, "iteration_requirements"), "test_iteration")
    done, cap = get(test, "current_iteration"), get(test, "max_iterations")
    if number(done) and number(cap) and done > cap:
        em.add(
            R_ITER_PAST_MAX,
            f"phases.{current}.iteration_requirements.test_iteration.current_iteration",
            f"{current}: test iteration {done} of at most {cap}",
            expected=f"<= {cap}",
            actual=done,
        )


CHECKS = (check_agents, check_skills, check_iterations)


def audit_observed(state: Any, manifest: Any) -> list[Finding]:
    return run_checks(Emitter(SOURCE), CHECKS, state, manifest)
