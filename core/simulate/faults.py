"""Fault injection: named, seeded deviations from the protocol, each meant to trip an audit rule.

A fault is a class registered with :func:`register_fault`. The player calls it at named points
(``start``, ``init``, ``activate``, ``work``, ``worked``, ``complete``, ``gate``, ``finalize``,
``tdd-approval``, ``tdd-slice``, ``finish``) with the phase concerned:

* ``transform(sim, point, phase, doc)`` runs before the controller's write at ``point`` and returns
  the document to write. Mutating ``doc`` in place and returning it makes the change stick (the
  controller really did it); returning a modified copy makes it a one-off write that the next
  controller write overwrites.
* ``after(sim, point, phase)`` runs after the write and may yield extra steps (writes by a
  sub-agent, a hook, a stale process) through the simulator's primitives.
* ``override(sim, point, phase)`` returns True to replace the player's normal action at a point
  (for example skipping the wait for plan approval).

Another module adds a fault with ``@register_fault`` on a :class:`Fault` subclass and lists itself
in :data:`FAULT_MODULES` so ``phasewatch simulate --faults`` sees it (a missing module is fine).
Faults fire once each, reproducibly: their random choices come from ``Random(f"{seed}:{name}")``.
"""

from __future__ import annotations

import copy
import importlib
import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..protocol import ESCALATION_TYPES, MAX_ESCALATIONS
from .content import agent_for, constitution_block_detail, corridor_block_detail, gate_block_detail

if TYPE_CHECKING:
    from .player import Simulator
    from .types import StepEvent

FAULT_MODULES = (
    "phasewatch.core.simulate.faults",
    "phasewatch.core.simulate.plugins",
    "phasewatch.core.simulate.plugin_faults",
)

FAULTS: dict[str, type[Fault]] = {}


class FaultError(ValueError):
    """A fault name or target that cannot be used for this run."""


class Fault:
    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    rules: ClassVar[tuple[str, ...]] = ()  # the audit rule ids it is meant to trigger
    detector: ClassVar[str] = ""  # what notices it when no rule id does (e.g. the log tailer)
    systems: ClassVar[frozenset[str]] = frozenset({"isdlc"})  # "isdlc", "tdd", "plugins"

    def __init__(self, rng: random.Random, phase: str | None = None) -> None:
        self.rng = rng
        self.phase = phase  # the target phase (None: chosen in setup)
        self.fired = 0

    # -- choosing a target
    def eligible(self, phases: Sequence[str]) -> list[str]:
        """Phases this fault can hit (default: any)."""
        return list(phases)

    def setup(self, sim: Simulator) -> None:
        options = self.eligible(sim.phases)
        if not sim.phases:
            return
        if self.phase is not None:
            if self.phase not in options:
                raise FaultError(
                    f"fault {self.name!r} cannot hit phase {self.phase!r} "
                    f"(possible: {', '.join(options) or 'none'})"
                )
            return
        if not options:
            raise FaultError(f"fault {self.name!r} has no phase to hit in this workflow")
        self.phase = self.rng.choice(options)

    # -- hooks (defaults do nothing)
    def transform(
        self, sim: Simulator, point: str, phase: str | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        return doc

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        return iter(())

    def override(self, sim: Simulator, point: str, phase: str | None) -> bool:
        return False

    # -- helpers
    def hit(self, point: str, phase: str | None, want_point: str) -> bool:
        """True once: at ``want_point`` of the target phase."""
        if self.fired or point != want_point or phase != self.phase:
            return False
        self.fired += 1
        return True

    @property
    def label(self) -> str:
        return f"fault:{self.name}"


def register_fault(cls: type[Fault]) -> type[Fault]:
    if not cls.name:
        raise ValueError("a fault needs a name")
    old = FAULTS.get(cls.name)
    if old is not None and old is not cls and old.__qualname__ != cls.__qualname__:
        raise ValueError(f"fault {cls.name!r} registered twice")
    FAULTS[cls.name] = cls
    return cls


def load_fault_modules() -> dict[str, type[Fault]]:
    for module in FAULT_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:  # a fault module not written yet
            if exc.name != module:
                raise
    return dict(FAULTS)


def parse_fault_spec(spec: str) -> tuple[str, str | None]:
    """``"regress"`` or ``"regress@02-impact-analysis"`` -> (name, phase)."""
    name, _, phase = spec.strip().partition("@")
    return name.strip(), (phase.strip() or None)


def make_faults(specs: Sequence[str], seed: int, system: str) -> list[Fault]:
    registry = load_fault_modules()
    out: list[Fault] = []
    for spec in specs:
        name, phase = parse_fault_spec(spec)
        if not name:
            continue
        cls = registry.get(name)
        if cls is None:
            raise FaultError(f"unknown fault {name!r} (known: {', '.join(sorted(registry))})")
        if system not in cls.systems:
            raise FaultError(f"fault {name!r} does not apply to a {system} run")
        out.append(cls(random.Random(f"{seed}:{name}"), phase))
    return out


# ---------------------------------------------------------------------------- built-in faults


def _with_subagent_data(snapshot: dict[str, Any], current: dict[str, Any], phase: str) -> dict:
    """What a sub-agent writes back: its launch-time snapshot plus the phase data it produced."""
    doc = copy.deepcopy(snapshot)
    record = current.get("phases", {}).get(phase)
    if isinstance(record, dict) and isinstance(doc.get("phases"), dict):
        mine = copy.deepcopy(doc["phases"].get(phase) or {})
        for key in ("artifacts", "iteration_requirements", "constitutional_validation"):
            if key in record:
                mine[key] = copy.deepcopy(record[key])
        doc["phases"][phase] = mine
    return doc


@register_fault
class StaleWrite(Fault):
    name = "stale-write"
    description = (
        "A sub-agent writes its launch-time snapshot back with a lower state_version than disk "
        "(iSDLC BUG-0009; docs/formats.md#write-guards)."
    )
    rules = ("TR-VERSION-DOWN", "HOOK-STALE-WRITE")

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        if not self.hit(point, phase, "worked") or phase is None:
            return
        snapshot = sim.launch_snapshots.get(phase)
        disk = sim.disk_version()
        if snapshot is None or disk is None:
            return
        doc = _with_subagent_data(snapshot, sim.state, phase)
        launched = int(snapshot.get("state_version") or 0)
        incoming = launched + 1 if launched + 1 < disk else launched
        doc["state_version"] = incoming
        sim.log(
            "state-write-validator",
            "warn",
            phase,
            agent_for(phase),
            f"V7: state_version {incoming} < disk {disk}",
        )
        yield from sim.write_raw(doc, self.label, phase, fault=self.name)


@register_fault
class Regress(Fault):
    name = "regress"
    description = (
        "A sub-agent's write lands after the controller advanced and puts current_phase, the index "
        "and the statuses back (iSDLC BUG-0011; docs/formats.md#write-guards)."
    )
    rules = ("TR-INDEX-DOWN", "TR-STATUS-DOWN", "TR-CURRENT-BACK", "HOOK-REGRESSION")

    def eligible(self, phases: Sequence[str]) -> list[str]:
        return list(phases[:-1])

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        target = self.phase
        if self.fired or point != "activate" or target is None or target not in sim.phases:
            return
        position = sim.phases.index(target)
        if position + 1 >= len(sim.phases) or phase != sim.phases[position + 1]:
            return
        snapshot = sim.launch_snapshots.get(target)
        if snapshot is None:
            return
        self.fired += 1
        doc = _with_subagent_data(snapshot, sim.state, target)
        doc["state_version"] = (sim.disk_version() or 0) + 1  # it re-read the version: V7 passes
        aw = sim.state.get("active_workflow") or {}
        sim.log(
            "state-write-validator",
            "warn",
            target,
            agent_for(target),
            f"V8: phase_index {position} < disk {aw.get('current_phase_index')}",
        )
        yield from sim.write_raw(doc, self.label, target, fault=self.name)
        sim.log(
            "phase-sequence-guard",
            "block",
            phase,
            agent_for(phase),
            f"OUT-OF-ORDER PHASE DELEGATION: target phase {phase} but current phase is {target}",
        )


@register_fault
class NextActivated(Fault):
    name = "next-activated"
    description = (
        "The post-phase write (STEP 3e) also activates the next phase, as before the BUG-0006 fix "
        "(docs/formats.md#phase-loop)."
    )
    rules = ("TR-NEXT-ACTIVATED",)

    def eligible(self, phases: Sequence[str]) -> list[str]:
        return list(phases[:-1])

    def transform(
        self, sim: Simulator, point: str, phase: str | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        if not self.hit(point, phase, "complete") or phase is None:
            return doc
        nxt = sim.phases[sim.phases.index(phase) + 1]
        now = sim.now_iso()
        record = doc["phases"].setdefault(nxt, sim.skeleton())
        record["status"] = "in_progress"
        if not record.get("started"):
            record["started"] = now
        aw = doc["active_workflow"]
        aw["current_phase"] = nxt
        aw["phase_status"][nxt] = "in_progress"
        doc["current_phase"] = nxt
        doc["active_agent"] = agent_for(nxt)
        return doc  # in place: the controller really did this


@register_fault
class HalfApplied(Fault):
    name = "half-applied"
    description = (
        "STEP 3e lands in two writes: the summary map and the index first, the detailed phase "
        "record later, so the three locations disagree in between."
    )
    rules = ("SYNC-STATUS",)

    def transform(
        self, sim: Simulator, point: str, phase: str | None, doc: dict[str, Any]
    ) -> dict[str, Any]:
        if point != "complete" or phase != self.phase or self.fired or sim.redoing:
            return doc
        before = sim.before
        if before is None or phase not in before.get("phases", {}):
            return doc
        self.fired += 1
        half = copy.copy(doc)
        half["phases"] = dict(doc["phases"])
        half["phases"][phase] = copy.deepcopy(before["phases"][phase])
        sim.pending_rest = phase
        return half

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        if point == "complete" and sim.pending_rest == phase and phase is not None:
            sim.pending_rest = None
            yield from sim.commit("complete-rest", phase, fault=self.name, apply_faults=False)


@register_fault
class Torn(Fault):
    name = "torn"
    description = (
        "A non-atomic write is observed mid-way: the file is empty or cut mid-document for "
        "50-200 ms, then complete."
    )
    rules = ("READ-TORN",)

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        if not self.hit(point, phase, "work"):
            return
        mode = self.rng.choice(("empty", "cut"))
        pause = self.rng.uniform(0.05, 0.2)
        yield from sim.commit(
            "work", phase, fault=self.name, apply_faults=False, torn=(mode, pause, self.rng)
        )


@register_fault
class EscalationBurst(Fault):
    name = "escalation-burst"
    description = (
        "Hooks keep blocking while nobody answers: more than 20 escalations are raised; a legacy "
        "hook appends them without the cap or the 60 s de-duplication."
    )
    rules = ("ESC-CAP", "ESC-DUPLICATE")

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        if not self.hit(point, phase, "worked") or phase is None:
            return
        count = self.rng.randint(MAX_ESCALATIONS + 3, MAX_ESCALATIONS + 10)
        kinds = list(ESCALATION_TYPES.items())
        for i in range(count):
            kind, hook = kinds[i % len(kinds)]
            if kind == "gate_blocked":
                detail = gate_block_detail(phase, i + 1, 10, self.rng.randint(1, 9))
            elif kind == "corridor_blocked":
                detail = corridor_block_detail(phase, i + 1)
            else:
                detail = constitution_block_detail(phase, ["II", "VII"])
            sim.clock.advance(self.rng.uniform(0.3, 4.0))
            entry = {
                "type": kind,
                "hook": hook,
                "phase": phase,
                "detail": detail,
                "timestamp": sim.now_iso(),
            }
            sim.state.setdefault("pending_escalations", []).append(entry)
            sim.log(hook, "block", phase, agent_for(phase), detail.split("\n", 1)[0])
            yield from sim.commit("escalation", phase, fault=self.name, apply_faults=False)


@register_fault
class RotationBurst(Fault):
    name = "rotation-burst"
    description = (
        "A looping sub-agent floods hook-activity.log; it passes 1 MiB and is rotated in place "
        "(newest 500 lines kept) mid-burst while lines keep coming."
    )
    rules = ()
    detector = "phasewatch.core.hooklog.HookLogTailer: TailResult.rotated, no line lost or repeated"
    CHUNK = 200  # lines between steps: fewer than the 500 kept, so a tailer polling at each
    # step always finds its place again after the rotation

    def after(self, sim: Simulator, point: str, phase: str | None) -> Iterator[StepEvent]:
        if not self.hit(point, phase, "work") or phase is None:
            return
        agent = agent_for(phase)
        start_rotations = sim.hook_log.rotations
        tail = self.rng.randint(50, 300)  # lines still coming after the rotation
        n = 0
        while not sim.stopping and n < 1_000_000:
            sim.clock.advance(0.004)
            sim.log(
                "phase-loop-controller",
                "same-phase-bypass",
                phase,
                agent,
                f"Sub-agent '{agent}' targets active phase {phase} (intra-phase delegation); "
                f"re-delegation #{n + 1} after a tool error",
                pace=False,
            )
            n += 1
            rotated = sim.hook_log.rotations > start_rotations
            if rotated:
                tail -= 1
            if n % self.CHUNK == 0 or tail <= 0:
                yield sim.emit_file(
                    self.label,
                    sim.hook_log.path,
                    phase,
                    fault=self.name,
                    detail=f"{n} lines so far, "
                    f"{sim.hook_log.rotations - start_rotations} rotation(s)",
                )
                if not sim.config.fast:
                    sim.wait_real(0.05)
            if tail <= 0:
                break


@register_fault
class TddUnapproved(Fault):
    name = "tdd-unapproved"
    description = (
        "The planner's approval step is lost (auto-compaction) and the slices are implemented "
        "without an Approved: line (docs/formats.md#approval-marker)."
    )
    rules = ("TDD-UNAPPROVED-PROGRESS",)  # and TDD-LOCK-PROGRESS with the legacy lock
    systems = frozenset({"tdd"})

    def setup(self, sim: Simulator) -> None:
        self.phase = None

    def override(self, sim: Simulator, point: str, phase: str | None) -> bool:
        if point == "tdd-approval" and not self.fired:
            self.fired += 1
            return True
        return False
