"""The simulator's shared types: what the player (``player.py``), the workflow runs (``isdlc.py``,
``tdd.py``) and the faults use, in one module below them all (no import cycle)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from .clock import Clock

WORKFLOW_CHOICES = ("feature", "fix", "build", "tdd")
STATE_FILE = Path(".isdlc") / "state.json"
HOOK_LOG = Path(".isdlc") / "hook-activity.log"
REVIEWS_DIR = Path(".isdlc") / "reviews"


class SimulationError(RuntimeError):
    """The simulation cannot start (bad configuration, directory in use)."""


class SimConfig(Struct):
    directory: str | Path
    workflow: str = "feature"  # feature | fix | build | tdd
    faults: Sequence[str] = ()  # fault names, optionally "name@phase-key"
    speed: float = 1.0  # > 1 is faster; a feature workflow takes ~1.5 min at 1.0
    fast: bool = False  # no pauses at all (waits for decisions still poll)
    seed: int | None = None  # None: a random seed (reported in the summary)
    auto_decide: bool = False  # the player answers gates, escalations and plan approval itself
    supervised: bool | str | Sequence[str] = False  # True/"all" or review phase prefixes
    on_step: Callable[[str, dict[str, Any] | None], None] | None = None
    on_event: Callable[[StepEvent], None] | None = None
    clock: Clock | None = None  # default: virtual when fast, else the wall clock
    escalate: str | Sequence[str] | None = "auto"  # phases whose gate blocks ("auto": one)
    block_attempts: int = 2  # how many attempts of an escalating phase are blocked
    tdd_lock: bool = False  # TDD run: also the legacy .tdd-plan-locked marker
    reuse: bool = False  # allow an existing state.json without an active workflow
    poll_interval: float | None = None  # decision polling (default 0.01 s fast, 0.1 s else)
    decision_timeout: float | None = None  # give up waiting after this many seconds


class StepEvent(Struct, frozen=True):
    seq: int
    name: str  # "init", "3c-prime", "work", "3e", "gate", "decide:continue", "fault:regress" ...
    ts: str
    path: str | None = None  # file written or observed, relative to the directory
    phase: str | None = None
    version: int | None = None
    state: dict[str, Any] | None = None  # the state.json document written or observed
    text: str | None = None  # Markdown written (review summary, TDD progress)
    fault: str | None = None  # the fault that caused this step
    detail: str = ""
    external: bool = False  # written by someone else (a decision) and observed by the player

    def line(self) -> str:
        version = f"v{self.version}" if self.version is not None else "-"
        who = " (observed)" if self.external else ""
        fault = f" [{self.fault}]" if self.fault else ""
        detail = f"  {self.detail}" if self.detail else ""
        return (
            f"{self.seq:4d} {self.ts[11:23]} {self.name:<20} {self.phase or '-':<20} "
            f"{version:>5}{who}{fault}{detail}"
        )


class SimSummary(Struct):
    status: str  # completed | cancelled | stopped | timeout
    workflow: str
    seed: int
    directory: str
    steps: int = 0
    writes: int = 0  # writes of state.json / Markdown by the simulated system
    hook_lines: int = 0
    rotations: int = 0
    elapsed: float = 0.0
    decisions: list[tuple[str, str | None]] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)

    def line(self) -> str:
        faults = ", ".join(f"{f['name']}@{f['phase']}" for f in self.faults if f["fired"])
        return (
            f"{self.status}: {self.workflow} in {self.elapsed:.1f}s, {self.steps} steps, "
            f"{self.writes} writes, {self.hook_lines} hook log lines, seed {self.seed}"
            + (f", faults: {faults}" if faults else "")
        )
