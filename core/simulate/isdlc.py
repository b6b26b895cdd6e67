"""The iSDLC player: init, STEP 3c-prime, phase work, STEP 3e, supervised review gates,
escalations and finalize, written exactly as docs/formats.md#phase-loop describes."""

from __future__ import annotations

import copy
from collections.abc import Generator, Iterator
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ..archive import archived, whole_minutes
from ..protocol import (
    ESCALATION_DEDUP_SECONDS,
    ESCALATION_TYPES,
    MAX_ESCALATIONS,
    WORKFLOWS,
    parse_iso,
    phase_prefix,
    review_selected,
)
from . import decisions
from .clock import iso
from .content import (
    ARTICLES,
    FEATURE_TOPICS,
    FIX_TOPICS,
    PROJECT_NAMES,
    REQUIREMENTS,
    SKILLS,
    SUB_AGENTS,
    Topic,
    agent_for,
    artifacts_for,
    constitution_block_detail,
    corridor_block_detail,
    gate_block_detail,
    phase_title,
    review_summary,
    same_phase_reason,
    summary_for,
)
from .files import write_text
from .types import REVIEWS_DIR, SimulationError, StepEvent

if TYPE_CHECKING:
    from .player import Simulator

Steps = Generator[StepEvent, None, str]

REDO_GUIDANCE = (
    "Cover the error paths too: timeouts and partial failures need explicit handling.",
    "Split the design into smaller modules; the service class does too much.",
    "Add the missing acceptance criteria for the admin role before moving on.",
)
TEST_COMMAND = "npm test -- --coverage"
MAX_WORKFLOW_HISTORY = 50
MAX_SKILL_LOG = 50
MAX_HISTORY = 100


class IsdlcRun:
    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        cfg = sim.config
        self.type = cfg.workflow
        self.phases: list[str] = list(WORKFLOWS[self.type])
        rng = sim.rng
        self.topic: Topic = rng.choice(FIX_TOPICS if self.type == "fix" else FEATURE_TOPICS)
        self.project = rng.choice(PROJECT_NAMES)
        self.escalate: list[str] = []
        self.redo_phase: str | None = None
        self.review_phases: set[str] = set()
        self._observed: dict[str, Any] | None = None  # the document a decision was read from

    # ------------------------------------------------------------------ set-up
    def prepare(self) -> None:
        """Check the directory and resolve which phases escalate (before faults choose)."""
        cfg = self.sim.config
        path = self.sim.state_path
        if path.exists() and not cfg.reuse:
            raise SimulationError(
                f"{path} already exists; point the simulator at an empty directory "
                "(or pass reuse=True / --reuse to start a new workflow on top of it)"
            )
        tested = [k for k in self.phases if "tests" in REQUIREMENTS.get(phase_prefix(k), ())]
        if cfg.escalate == "auto":
            self.escalate = [self.sim.rng.choice(tested or self.phases)]
        elif cfg.escalate:
            wanted = [cfg.escalate] if isinstance(cfg.escalate, str) else list(cfg.escalate)
            unknown = [k for k in wanted if k not in self.phases]
            if unknown:
                raise SimulationError(
                    f"escalate: {', '.join(unknown)} not in the {self.type} workflow"
                )
            self.escalate = wanted

    def plan(self) -> None:
        """Choose what --auto-decide answers at each gate (after faults chose their phases)."""
        mode = self.sim.review_mode
        supervised = {"enabled": mode is not None, "review_phases": mode or "all"}
        reviewed = [k for k in self.phases if review_selected(supervised, k)]
        avoid = {f.phase for f in self.sim.faults} | set(self.escalate)
        rng = self.sim.rng
        candidates = [k for k in reviewed if k not in avoid] or reviewed
        if candidates:
            self.redo_phase = rng.choice(candidates)
            others = [k for k in reviewed if k != self.redo_phase]
            if others:
                self.review_phases = set(rng.sample(others, max(1, len(others) // 4)))

    # ------------------------------------------------------------------ the run
    def play(self) -> Steps:
        sim = self.sim
        yield from self.bootstrap()
        yield from self.init()
        while not sim.stopping:
            aw = sim.state.get("active_workflow")
            if not isinstance(aw, dict):
                return "cancelled"
            index = aw.get("current_phase_index")
            if not isinstance(index, int) or index >= len(self.phases):
                break
            key = self.phases[index]
            status = yield from self.run_phase(key)
            if status != "ok":
                return status
            status = yield from self.review(key)
            if status != "ok":
                return status
        if sim.stopping:
            return "stopped"
        yield from self.finalize()
        return "completed"

    # ------------------------------------------------------------------ bootstrap / init
    def supervised_mode(self) -> dict[str, Any]:
        mode = self.sim.review_mode
        return {
            "enabled": mode is not None,
            "review_phases": mode if mode is not None else "all",
            "parallel_summary": True,
            "auto_advance_timeout": None,
        }

    def initial_state(self) -> dict[str, Any]:
        sim, rng = self.sim, self.sim.rng
        now = sim.clock.now()
        created = now - timedelta(days=rng.randint(20, 90), minutes=rng.randint(0, 600))
        req_id, bug_id = rng.randint(8, 40), rng.randint(3, 20)
        history_entry = self._past_workflow(created, bug_id - 1)
        return {
            "framework_version": "0.9.4",
            "project": {
                "name": self.project,
                "created": iso(created),
                "description": f"{self.project}: a service built with the iSDLC framework",
            },
            "complexity_assessment": {
                "level": "medium",
                "track": "auto",
                "assessed_at": iso(created),
                "dimensions": {
                    "architectural": "medium",
                    "security": "low",
                    "testing": "medium",
                    "deployment": "low",
                    "team": "low",
                    "timeline": "medium",
                },
            },
            "workflow": {
                "track": "auto",
                "track_name": "Orchestrator-managed",
                "phases_required": None,
                "phases_optional": None,
                "phases_skipped": None,
            },
            "constitution": {
                "enforced": True,
                "path": "docs/isdlc/constitution.md",
                "validated_at": iso(created + timedelta(hours=1)),
            },
            "autonomous_iteration": {
                "enabled": True,
                "max_iterations": 10,
                "timeout_per_iteration_minutes": 5,
                "circuit_breaker_threshold": 3,
            },
            "skill_enforcement": {
                "enabled": True,
                "mode": "observe",
                "fail_behavior": "allow",
                "manifest_version": "4.0.0",
            },
            "cloud_configuration": {
                "provider": "none",
                "configured_at": None,
                "credentials_validated": False,
            },
            "iteration_enforcement": {"enabled": True},
            "skill_usage_log": [],
            "active_agent": None,
            "current_phase": None,
            "phases": {},
            "blockers": [],
            "risks": [],
            "counters": {"next_req_id": req_id, "next_bug_id": bug_id},
            "active_workflow": None,
            "workflow_history": [history_entry],
            "history": [
                {
                    "timestamp": iso(created),
                    "agent": "init-script",
                    "action": "Project installed with iSDLC framework",
                },
                {
                    "timestamp": history_entry["completed_at"],
                    "agent": "sdlc-orchestrator",
                    "action": f"Workflow {history_entry['artifact_folder']} completed",
                },
            ],
            "state_version": rng.randint(20, 90),
            "supervised_mode": self.supervised_mode(),
            "pending_escalations": [],
            "schema_version": 1,
        }

    def _past_workflow(self, created: Any, bug_id: int) -> dict[str, Any]:
        """One finished fix workflow in the project's past (history realism)."""
        rng = self.sim.rng
        phases = list(WORKFLOWS["fix"])
        topic = rng.choice(FIX_TOPICS)
        start = created + timedelta(days=rng.randint(3, 15))
        records = {}
        t = start
        for key in phases:
            minutes = rng.randint(4, 35)
            end = t + timedelta(minutes=minutes)
            records[key] = {
                "status": "completed",
                "started": iso(t),
                "completed": iso(end),
                "gate_passed": iso(end),
                "summary": summary_for(key, topic, rng),
                "artifacts": artifacts_for(key, f"BUG-{bug_id:04d}-{topic.slug}", topic),
                "timing": {
                    "started_at": iso(t),
                    "completed_at": iso(end),
                    "wall_clock_minutes": minutes,
                    "retries": 0,
                },
            }
            t = end + timedelta(minutes=rng.randint(1, 5))
        workflow = {"phases": phases, "started_at": iso(start)}
        snapshots, metrics = archived(
            {"active_workflow": workflow, "phases": records}, completed_at=iso(t)
        )
        return {
            "type": "fix",
            "description": topic.description,
            "slug": topic.slug,
            "artifact_folder": f"BUG-{bug_id:04d}-{topic.slug}",
            "status": "completed",
            "started_at": iso(start),
            "completed_at": iso(t),
            "phases": phases,
            "phase_snapshots": snapshots,
            "metrics": metrics,
        }

    def bootstrap(self) -> Iterator[StepEvent]:
        """The state file as earlier sessions left it (or the existing one, with reuse)."""
        sim = self.sim
        sim.state_path.parent.mkdir(parents=True, exist_ok=True)
        if sim.state_path.exists():
            doc = sim.poll_state()
            if doc is None:
                raise SimulationError(f"{sim.state_path} is not a readable JSON object")
            if isinstance(doc.get("active_workflow"), dict):
                raise SimulationError(f"{sim.state_path} has an active workflow; not touching it")
            sim.adopt(doc)
            for key, empty in (
                ("skill_usage_log", []),
                ("phases", {}),
                ("workflow_history", []),
                ("history", []),
                ("pending_escalations", []),
                ("counters", {"next_req_id": 1, "next_bug_id": 1}),
            ):
                if not isinstance(doc.get(key), type(empty)):
                    doc[key] = empty
            if sim.review_mode is not None or not isinstance(doc.get("supervised_mode"), dict):
                doc["supervised_mode"] = self.supervised_mode()
            return
        state = self.initial_state()
        sim.adopt(state)
        yield from sim.write_raw(state, "bootstrap", None)

    def init(self) -> Iterator[StepEvent]:
        """Workflow initialization (orchestrator STEP 4): ONE write."""
        sim = self.sim
        s = sim.state
        now = sim.now_iso()
        counters = s["counters"]
        if self.type == "fix":
            number = int(counters.get("next_bug_id") or 1)
            counters["next_bug_id"] = number + 1
            folder, branch = f"BUG-{number:04d}-{self.topic.slug}", "bugfix"
        else:
            number = int(counters.get("next_req_id") or 1)
            counters["next_req_id"] = number + 1
            folder, branch = f"REQ-{number:04d}-{self.topic.slug}", "feature"
        first = self.phases[0]
        s["phases"] = {k: sim.skeleton() for k in self.phases}  # stale entries removed
        s["active_workflow"] = {
            "type": self.type,
            "description": self.topic.description,
            "slug": self.topic.slug,
            "phases": list(self.phases),
            "current_phase": first,
            "current_phase_index": 0,
            # the orchestrator's MODE init-only (the Phase-Loop Controller's): every phase
            # pending; STEP 3c-prime activates the first (docs/framework-facts.md, "Init")
            "phase_status": dict.fromkeys(self.phases, "pending"),
            "artifact_folder": folder,
            "started_at": now,
            "flags": {"light": False, "supervised": sim.review_mode is not None},
            "sizing": {"intensity": "standard", "decided_at": now, "source": "impact-analysis"},
            "budget_status": "on_track",
            "git_branch": {
                "name": f"{branch}/{folder}",
                "created_from": "main",
                "created_at": now,
                "status": "active",
            },
        }
        s["current_phase"] = first
        s["active_agent"] = agent_for(first)
        self._history("sdlc-orchestrator", f"Workflow initialized: {self.type} {folder}")
        sim.log(
            "branch-guard",
            "allow",
            first,
            "sdlc-orchestrator",
            f"Created and checked out branch {branch}/{folder}",
        )
        sim.pace("quick")
        yield from sim.commit("init", first)

    # ------------------------------------------------------------------ one phase
    def run_phase(self, key: str) -> Steps:
        sim = self.sim
        attempt = 0
        skipped = False
        while True:
            yield from self.activate(key, rerun=attempt > 0)
            yield from self.work(key, attempt)
            if sim.stopping:
                return "stopped"
            if sim.state.get("pending_escalations"):
                decision = yield from self.await_escalation(key, attempt)
                if decision == "retry":
                    attempt += 1
                    continue
                if decision == "skip":
                    skipped = True
                    break
                return decision
            break
        yield from self.complete(key, skipped=skipped)
        return "ok"

    def activate(self, key: str, *, rerun: bool) -> Iterator[StepEvent]:
        """STEP 3c-prime: ONE write before delegating phase ``key``."""
        sim = self.sim
        s = sim.state
        aw = s["active_workflow"]
        agent = agent_for(key)
        if not rerun and sim.rng.random() < 0.2:
            sim.log(
                "phase-loop-controller",
                "block",
                key,
                agent,
                "Phase status is 'pending', expected 'in_progress'",
            )
        sim.snapshot_model()
        now = sim.now_iso()
        record = s["phases"].setdefault(key, sim.skeleton())
        record["status"] = "in_progress"
        if not record.get("started"):
            record["started"] = now
        timing = record.get("timing")
        if not isinstance(timing, dict):
            record["timing"] = {"started_at": now, "retries": 0}
        else:
            timing.setdefault("started_at", now)
            if rerun:
                timing["retries"] = int(timing.get("retries") or 0) + 1
        aw["current_phase"] = key
        aw.setdefault("phase_status", {})[key] = "in_progress"
        s["current_phase"] = key
        s["active_agent"] = agent
        review = aw.get("supervised_review")
        if isinstance(review, dict) and review.get("status") == "completed":
            del aw["supervised_review"]  # a resumed gate someone left behind
        sim.pace("quick")
        yield from sim.commit("3c-prime", key, point="activate")
        sim.log(
            "phase-loop-controller",
            "allow",
            key,
            agent,
            f"Phase {key} is 'in_progress'; delegation to {agent} allowed",
        )
        sim.log(
            "phase-sequence-guard",
            "allow",
            key,
            agent,
            f"Delegation target {key} matches current phase",
        )

    def _work_write(self, key: str, index: list[int]) -> Iterator[StepEvent]:
        self.sim.pace("write")
        yield from self.sim.commit("work", key)
        index[0] += 1

    def work(self, key: str, attempt: int, *, redo: bool = False) -> Iterator[StepEvent]:
        """The phase agent and its sub-agents at work: progress writes with real evidence."""
        sim = self.sim
        s = sim.state
        record = s["phases"][key]
        prefix = phase_prefix(key)
        needs = REQUIREMENTS.get(prefix, frozenset())
        agent = agent_for(key)
        blocked = not redo and key in self.escalate and attempt < sim.config.block_attempts
        count = [0]

        skill_id = self._log_skill(key, agent)
        yield from self._work_write(key, count)
        self._log_sub_agents(key, agent, skill_id)

        if "elicitation" in needs:
            self._open_elicitation(key, agent)
            yield from self._work_write(key, count)

        if "constitution" in needs:
            self._open_constitution(key)
            yield from self._work_write(key, count)

        if "tests" in needs:
            results = (
                ["FAILED", "FAILED"]
                if blocked
                else (["FAILED", "PASSED"] if attempt == 0 and not redo else ["PASSED"])
            )
            for result in results:
                yield from self._test_iteration(key, result, count)

        if "constitution" in needs and not (blocked and "tests" not in needs):
            self._close_constitution(key, agent)
        if "elicitation" in needs:
            self._close_elicitation(key)

        record["artifacts"] = artifacts_for(key, self._folder(), self.topic)
        yield from self._work_write(key, count)

        yield from sim.fire_after("worked", key)
        if blocked and not s.get("pending_escalations"):
            yield from self.block(key, attempt)
        elif not s.get("pending_escalations"):
            sim.log(
                "gate-blocker",
                "allow",
                key,
                agent,
                f"All iteration requirements satisfied for {key}",
            )

    def _log_skill(self, key: str, agent: str) -> str:
        """The skill-usage entry of a phase's agent; the skill's id."""
        sim = self.sim
        skill_id, skill = SKILLS.get(phase_prefix(key), ("GEN-001", "general"))
        sim.state.setdefault("skill_usage_log", []).append(
            {
                "timestamp": sim.now_iso(),
                "agent": agent,
                "agent_phase": key,
                "current_phase": key,
                "skill_id": skill_id,
                "skill": skill,
                "status": "executed",
                "reason": "owned",
            }
        )
        return skill_id

    def _log_sub_agents(self, key: str, agent: str, skill_id: str) -> None:
        sim, rng = self.sim, self.sim.rng
        subs = SUB_AGENTS.get(key, (agent,))
        for sub in rng.sample(subs, len(subs)) * rng.randint(1, 3):
            sim.log(
                "phase-loop-controller", "same-phase-bypass", key, sub, same_phase_reason(sub, key)
            )
            if rng.random() < 0.3:
                sim.log("skill-validator", "allow", key, sub, f"Skill {skill_id} owned by {agent}")

    def _open_elicitation(self, key: str, agent: str) -> None:
        record = self.sim.state["phases"][key]
        reqs = record.setdefault("iteration_requirements", {})
        elicitation = reqs.setdefault(
            "interactive_elicitation",
            {
                "required": True,
                "completed": False,
                "menu_interactions": 0,
                "selections": [],
                "final_selection": None,
            },
        )
        elicitation["menu_interactions"] = int(elicitation.get("menu_interactions") or 0) + 1
        elicitation["selections"].append("[A] Adjust requirements")
        self.sim.log("menu-tracker", "allow", key, agent, "Menu interaction recorded (1)")

    def _close_elicitation(self, key: str) -> None:
        record = self.sim.state["phases"][key]
        elicitation = record["iteration_requirements"]["interactive_elicitation"]
        elicitation["menu_interactions"] = int(elicitation["menu_interactions"]) + 2
        elicitation["selections"].append("[S] Save and continue")
        elicitation["final_selection"] = "save"
        elicitation["completed"] = True

    def _open_constitution(self, key: str) -> None:
        rng = self.sim.rng
        cv = self.sim.state["phases"][key].setdefault(
            "constitutional_validation",
            {
                "required": True,
                "completed": False,
                "status": "pending",
                "iterations_used": 0,
                "max_iterations": 5,
                "articles_checked": [],
                "violations_found": 0,
            },
        )
        cv["status"] = "iterating"
        cv["completed"] = False
        cv["iterations_used"] = int(cv.get("iterations_used") or 0) + 1
        cv["articles_checked"] = list(rng.sample(ARTICLES, 4))
        cv["violations_found"] = rng.randint(1, 3)

    def _close_constitution(self, key: str, agent: str) -> None:
        sim = self.sim
        cv = sim.state["phases"][key]["constitutional_validation"]
        cv["iterations_used"] = int(cv.get("iterations_used") or 0) + 1
        cv["violations_found"] = 0
        cv["status"] = "compliant"
        cv["completed"] = True
        cv["completed_at"] = sim.now_iso()
        sim.log(
            "constitution-validator",
            "allow",
            key,
            agent,
            f"Constitutional validation compliant after {cv['iterations_used']} iteration(s)",
        )

    def _test_iteration(self, key: str, result: str, count: list[int]) -> Iterator[StepEvent]:
        sim = self.sim
        record = sim.state["phases"][key]
        reqs = record.setdefault("iteration_requirements", {})
        ti = reqs.setdefault(
            "test_iteration",
            {
                "required": True,
                "completed": False,
                "current_iteration": 0,
                "max_iterations": 10,
                "last_test_result": None,
                "status": "iterating",
                "escalation_reason": None,
                "history": [],
            },
        )
        n = int(ti.get("current_iteration") or 0) + 1
        now = sim.now_iso()
        failing = sim.rng.randint(1, 7)
        entry: dict[str, Any] = {
            "iteration": n,
            "timestamp": now,
            "command": TEST_COMMAND,
            "result": result,
        }
        if result == "FAILED":
            entry["failures"] = failing
        ti["history"].append(entry)
        ti["current_iteration"] = n
        ti["last_test_result"] = result.lower()
        if result == "PASSED":
            ti["completed"] = True
            ti["status"] = "success"
            ti["completed_at"] = now
        else:
            ti["completed"] = False
            ti["status"] = "iterating"
            sim.log(
                "test-watcher",
                "warn",
                key,
                agent_for(key),
                f"Test command exited 1: {failing} failing test(s) "
                f"(iteration {n}/{ti['max_iterations']})",
            )
        yield from self._work_write(key, count)

    def block(self, key: str, attempt: int) -> Iterator[StepEvent]:
        """A hook blocks the gate: gate_validation + an escalation, written by the hook."""
        sim = self.sim
        s = sim.state
        record = s["phases"][key]
        needs = REQUIREMENTS.get(phase_prefix(key), frozenset())
        ti = record.get("iteration_requirements", {}).get("test_iteration", {})
        n = int(ti.get("current_iteration") or 1)
        if "tests" in needs:
            kind = "gate_blocked" if attempt == 0 else "corridor_blocked"
            if kind == "gate_blocked":
                detail = gate_block_detail(key, n, int(ti.get("max_iterations") or 10), 3)
            else:
                detail = corridor_block_detail(key, n)
            blocking = ["test_iteration"]
        else:
            kind = "constitution_blocked"
            detail = constitution_block_detail(key, ["II", "IX"])
            blocking = ["constitutional_validation"]
        hook = ESCALATION_TYPES[kind]
        now = sim.now_iso()
        record["gate_validation"] = {
            "status": "blocked",
            "blocked_at": now,
            "blocking_requirements": blocking,
            "details": [detail.split("\n", 1)[0]],
        }
        added = self.add_escalation(
            {"type": kind, "hook": hook, "phase": key, "detail": detail, "timestamp": now}
        )
        aw = s["active_workflow"]
        retries = aw.setdefault("hook_block_retries", {})
        retries[f"{hook}:{key}"] = int(retries.get(f"{hook}:{key}") or 0) + 1
        sim.log(hook, "block", key, agent_for(key), detail.split("\n", 1)[0])
        sim.pace("quick")
        yield from sim.commit("escalation", key, point="escalation")
        if not added:
            return

    def add_escalation(self, entry: dict[str, Any]) -> bool:
        """``addPendingEscalation()``: drop a repeat within 60 s, keep at most 20 (oldest out)."""
        s = self.sim.state
        pending = s.get("pending_escalations")
        if not isinstance(pending, list):
            pending = s["pending_escalations"] = []
        when = parse_iso(entry["timestamp"])
        for old in pending:
            if not isinstance(old, dict):
                continue
            same = all(old.get(k) == entry[k] for k in ("hook", "phase", "type"))
            then = parse_iso(old.get("timestamp"))
            if same and when and then and (when - then).total_seconds() < ESCALATION_DEDUP_SECONDS:
                return False
        pending.append(entry)
        del pending[:-MAX_ESCALATIONS]
        return True

    def await_escalation(self, key: str, attempt: int) -> Steps:
        """STEP 3b/3c: the blocker banner; wait for Retry, Skip or Cancel in the file."""
        sim = self.sim
        aw = sim.state["active_workflow"]
        before_action = copy.deepcopy(aw.get("recovery_action"))
        before_retries = int(sim.state["phases"][key].get("retry_count") or 0)
        if sim.config.auto_decide:
            sim.pace("think")
            now = sim.now_iso()
            if attempt == 0:
                decisions.escalation_retry(sim.state, key, now)
                yield from sim.commit("decide:retry", key, point="decide")
            else:
                decisions.escalation_skip(sim.state, now)
                yield from sim.commit("decide:skip", key, point="decide")

        def check() -> str | None:
            doc = sim.poll_state()
            if doc is None:
                return None
            wf = doc.get("active_workflow")
            if not isinstance(wf, dict):
                return "cancel"
            if doc.get("pending_escalations"):
                return None
            self._observed = doc
            record = doc.get("phases", {}).get(key)
            retries = record.get("retry_count") if isinstance(record, dict) else None
            action = wf.get("recovery_action")
            if (
                isinstance(action, dict)
                and action != before_action
                and action.get("type") == "retry"
            ) or (isinstance(retries, int) and retries > before_retries):
                return "retry"
            return "skip"

        self._observed = None
        status, decision = sim.wait_until(check)
        if status != "ok":
            return status
        doc = sim.poll_state() if decision == "cancel" else self._observed
        if doc is None:
            doc = sim.poll_state() or sim.state
        if not sim.config.auto_decide:
            yield self._observed_event(f"decision:{decision}", key, doc)
        sim.adopt(doc)
        if decision == "cancel":
            return "cancelled"
        if decision == "skip":
            self._mark_overridden(key)
        return decision

    def _mark_overridden(self, key: str) -> None:
        record = self.sim.state["phases"].get(key, {})
        now = self.sim.now_iso()
        ti = record.get("iteration_requirements", {}).get("test_iteration")
        if isinstance(ti, dict) and not ti.get("completed"):
            ti["status"] = "escalated"
            ti["escalation_reason"] = "User chose Skip (override) at the gate block"
        cv = record.get("constitutional_validation")
        if isinstance(cv, dict) and not cv.get("completed"):
            cv["status"] = "escalated"
        gate = record.get("gate_validation")
        if isinstance(gate, dict):
            gate["status"] = "overridden"
            gate["overridden_at"] = now
            gate["override_reason"] = "User chose Skip at the escalation prompt"

    def complete(
        self, key: str, *, skipped: bool = False, redo: bool = False
    ) -> Iterator[StepEvent]:
        """STEP 3e: ONE write; never touches the next phase. A redo keeps the index."""
        sim = self.sim
        s = sim.state
        aw = s["active_workflow"]
        record = s["phases"][key]
        sim.snapshot_model()
        sim.pace("quick")
        now = sim.now_iso()
        record["status"] = "completed"
        record["completed"] = now
        if not skipped:
            record["gate_passed"] = now
        record["summary"] = summary_for(key, self.topic, sim.rng)
        timing = record.setdefault("timing", {"started_at": record.get("started") or now})
        timing["completed_at"] = now
        # isdlc.md STEP 3e: Math.round((end - start) / 60000), 0 when the start is unusable
        timing["wall_clock_minutes"] = whole_minutes(timing.get("started_at"), now) or 0
        aw["phase_status"][key] = "completed"
        if redo:
            review = aw.get("supervised_review") or {}
            guidance = review.get("redo_guidance_history") or [""]
            aw.setdefault("review_history", []).append(
                {
                    "phase": key,
                    "action": "redo",
                    "redo_count": review.get("redo_count"),
                    "guidance": guidance[-1],
                    "timestamp": now,
                }
            )
        else:
            aw["current_phase_index"] = int(aw.get("current_phase_index") or 0) + 1
        done = sum(1 for v in aw["phase_status"].values() if v == "completed")
        if done * 4 >= len(self.phases) * 3 and aw.get("budget_status") == "on_track":
            aw["budget_status"] = "approaching" if sim.rng.random() < 0.5 else "on_track"
        self._history(agent_for(key), f"Phase {key} completed" + (" (redo)" if redo else ""))
        yield from sim.commit("3e", key, point="complete")

    # ------------------------------------------------------------------ review gate
    def review(self, key: str) -> Steps:
        sim = self.sim
        while review_selected(sim.state.get("supervised_mode"), key):
            if sim.stopping:
                return "stopped"
            yield from self.present_gate(key)
            decision = yield from self.await_gate(key)
            if decision in ("continue", "resume"):
                return "ok"
            if decision != "redo":
                return decision
            sim.redoing = True
            try:
                yield from self.activate(key, rerun=True)
                yield from self.work(key, 0, redo=True)
                yield from self.complete(key, redo=True)
            finally:
                sim.redoing = False
        return "ok"

    def present_gate(self, key: str) -> Iterator[StepEvent]:
        sim = self.sim
        s = sim.state
        aw = s["active_workflow"]
        record = s["phases"][key]
        review = aw.get("supervised_review")
        redo_count = int(review.get("redo_count") or 0) if isinstance(review, dict) else 0
        timing = record.get("timing") or {}
        path = sim.root / REVIEWS_DIR / f"phase-{phase_prefix(key)}-summary.md"
        text = review_summary(
            key,
            phase_title(key),
            record.get("summary") or "",
            list(record.get("artifacts") or []),
            float(timing.get("wall_clock_minutes") or 0),
            redo_count,
            record.get("completed") or sim.now_iso(),
        )
        write_text(path, text)
        yield sim.emit_file("review-summary", path, key, text=text, counted=True)
        if isinstance(review, dict) and review.get("phase") == key:
            review["status"] = "gate_presented"
        else:
            aw["supervised_review"] = {
                "phase": key,
                "status": "gate_presented",
                "paused_at": None,
                "resumed_at": None,
                "redo_count": 0,
                "redo_guidance_history": [],
            }
        sim.pace("quick")
        yield from sim.commit("gate", key, point="gate")

    def await_gate(self, key: str) -> Steps:
        """Wait for [C]ontinue, [R]eview (+ resume) or [D]edo written to the file."""
        sim = self.sim
        aw = sim.state["active_workflow"]
        if sim.config.auto_decide:
            review = aw.get("supervised_review") or {}
            redo_count = int(review.get("redo_count") or 0)
            if key == self.redo_phase and redo_count == 0:
                plan = ["redo"]
            elif key in self.review_phases:
                plan = ["review", "resume"]
            else:
                plan = ["continue"]
            for action in plan:
                sim.pace("think")
                now = sim.now_iso()
                if action == "redo":
                    decisions.gate_redo(sim.state, sim.rng.choice(REDO_GUIDANCE), now)
                elif action == "review":
                    decisions.gate_review(sim.state, now)
                elif action == "resume":
                    decisions.gate_resume(sim.state, now)
                else:
                    decisions.gate_continue(sim.state, now)
                yield from sim.commit(f"decide:{action}", key, point="decide")

        seen_reviewing = [False]

        def check() -> tuple[str, dict[str, Any]] | None:
            doc = sim.poll_state()
            if doc is None:
                return None
            wf = doc.get("active_workflow")
            if not isinstance(wf, dict):
                return "cancel", doc
            review = wf.get("supervised_review")
            if isinstance(review, dict) and review.get("phase") == key:
                status = review.get("status")
                if status == "redo_pending":
                    return "redo", doc
                if status == "completed":
                    return "resume", doc
                if status == "reviewing" and not seen_reviewing[0]:
                    seen_reviewing[0] = True
                    return "review", doc  # paused: the gate stays blocked until resumed
                return None
            history = [h for h in wf.get("review_history") or [] if isinstance(h, dict)]
            mine = [h for h in history if h.get("phase") == key]
            if mine and mine[-1].get("action") == "review":
                return "resume", doc
            return "continue", doc

        while True:
            status, found = sim.wait_until(check)
            if status != "ok":
                return status
            decision, doc = found
            if not sim.config.auto_decide:
                yield self._observed_event(f"decision:{decision}", key, doc)
            if decision == "review":
                continue
            sim.adopt(doc)
            if decision == "cancel":
                return "cancelled"
            return decision

    def _observed_event(self, name: str, key: str, doc: dict[str, Any]) -> StepEvent:
        sim = self.sim
        version = doc.get("state_version")
        return sim.emit(
            StepEvent(
                0,
                name,
                sim.now_iso(),
                path=sim.rel(sim.state_path),
                phase=key,
                version=version if isinstance(version, int) else None,
                state=copy.deepcopy(doc),
                external=True,
            )
        )

    # ------------------------------------------------------------------ finalize
    def finalize(self) -> Iterator[StepEvent]:
        """Archive the workflow into workflow_history and set active_workflow = null."""
        sim = self.sim
        s = sim.state
        aw = s["active_workflow"]
        sim.pace("quick")
        now = sim.now_iso()
        # collectPhaseSnapshots before pruning, the workflow stamped completed
        snapshots, metrics = archived(copy.deepcopy(s), completed_at=now)
        history = aw.get("review_history") or []
        entry = {
            "type": aw.get("type"),
            "description": aw.get("description"),
            "slug": aw.get("slug"),
            "artifact_folder": aw.get("artifact_folder"),
            "status": "completed",
            "started_at": aw.get("started_at"),
            "completed_at": now,
            "phases": list(aw.get("phases") or []),
            "phase_snapshots": snapshots,
            "metrics": metrics,
            "review_history": copy.deepcopy(history),
            "git_branch": dict(aw.get("git_branch") or {}, status="merged", merged_at=now),
        }
        s["workflow_history"] = (s.get("workflow_history") or []) + [entry]
        del s["workflow_history"][:-MAX_WORKFLOW_HISTORY]
        s["active_workflow"] = None
        s["current_phase"] = None
        s["active_agent"] = None
        for record in s["phases"].values():  # pruneCompletedPhases
            if isinstance(record, dict) and record.get("status") == "completed":
                for heavy in (
                    "iteration_requirements",
                    "constitutional_validation",
                    "gate_validation",
                ):
                    record.pop(heavy, None)
        del s["skill_usage_log"][:-MAX_SKILL_LOG]
        self._history("sdlc-orchestrator", f"Workflow {entry['artifact_folder']} completed")
        del s["history"][:-MAX_HISTORY]
        yield from sim.commit("finalize", None)
        sim.log(
            "workflow-completion-enforcer",
            "allow",
            None,
            "sdlc-orchestrator",
            f"Workflow {entry['artifact_folder']} archived with phase_snapshots and metrics",
        )

    # ------------------------------------------------------------------ helpers
    def _folder(self) -> str:
        aw = self.sim.state.get("active_workflow") or {}
        return str(aw.get("artifact_folder") or self.topic.slug)

    def _history(self, agent: str, action: str) -> None:
        self.sim.state.setdefault("history", []).append(
            {"timestamp": self.sim.now_iso(), "agent": agent, "action": action}
        )
