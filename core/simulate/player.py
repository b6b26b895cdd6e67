"""The simulator: configuration, step events and the write/wait primitives the workflow players
(``isdlc.py``, ``tdd.py``) and the faults (``faults.py``) are built from."""

from __future__ import annotations

import copy
import json
import random
import threading
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..protocol import WORKFLOWS
from .clock import Clock, VirtualClock, WallClock, iso
from .faults import Fault, make_faults
from .files import (
    HookLog,
    next_version,
    read_disk_version,
    render_state,
    with_version,
    write_truncate,
)
from .isdlc import IsdlcRun
from .tdd import TddRun
from .types import (
    HOOK_LOG,
    STATE_FILE,
    WORKFLOW_CHOICES,
    SimConfig,
    SimSummary,
    SimulationError,
    StepEvent,
)

# Real seconds per kind of pause at speed 1.0, and simulated seconds the virtual clock moves.
PACE = {
    "write": ((0.7, 1.7), (60.0, 420.0)),
    "quick": ((0.3, 0.7), (4.0, 40.0)),
    "think": ((1.4, 2.4), (20.0, 240.0)),
}


def _normalise_supervised(value: bool | str | Sequence[str]) -> str | list[str] | None:
    """None: off; "all"; or a list of phase prefixes."""
    if value is False or value is None:
        return None
    if value is True:
        return "all"
    if isinstance(value, str):
        if value.strip().lower() in ("", "all", "true", "yes"):
            return "all"
        value = [p for p in value.split(",") if p.strip()]
    prefixes = [str(p).strip().split("-", 1)[0] for p in value]
    return prefixes or "all"


class Simulator:
    """Plays one workflow into ``config.directory``; see the package docstring."""

    def __init__(self, config: SimConfig) -> None:
        if config.workflow not in WORKFLOW_CHOICES:
            raise SimulationError(
                f"unknown workflow {config.workflow!r} (choose {', '.join(WORKFLOW_CHOICES)})"
            )
        if not config.speed or config.speed <= 0:
            raise SimulationError("speed must be > 0")
        self.config = config
        self.root = Path(config.directory)
        self.seed = (
            config.seed if config.seed is not None else random.SystemRandom().randrange(2**31)
        )
        self.rng = random.Random(self.seed)
        self._tick = random.Random(f"{self.seed}:tick")  # small clock ticks, independent
        self.clock: Clock = config.clock or (VirtualClock() if config.fast else WallClock())
        self.review_mode = _normalise_supervised(config.supervised)
        self._stop = threading.Event()
        self.state_path = self.root / STATE_FILE
        self.hook_log = HookLog(self.root / HOOK_LOG)
        self.state: dict[str, Any] = {}  # the controller's model of state.json
        self.before: dict[str, Any] | None = None  # the model before the current protocol step
        self.launch_snapshots: dict[str, dict[str, Any]] = {}  # doc written at 3c-prime
        self.phases: list[str] = list(WORKFLOWS.get(config.workflow, ()))
        self.redoing = False
        self.pending_rest: str | None = None
        self.faults: list[Fault] = make_faults(
            list(config.faults), self.seed, "tdd" if config.workflow == "tdd" else "isdlc"
        )
        self.poll_interval = config.poll_interval or (0.01 if config.fast else 0.1)
        self._version: int | None = None
        self._seq = 0
        self._started = False
        self.summary: SimSummary | None = None
        self._result = SimSummary("stopped", config.workflow, self.seed, str(self.root))
        # set-up errors (directory in use, bad fault target) surface here, not mid-iteration
        self.player: IsdlcRun | TddRun = (
            TddRun(self) if config.workflow == "tdd" else IsdlcRun(self)
        )
        self.player.prepare()
        for fault in self.faults:
            fault.setup(self)
        self.player.plan()

    # ------------------------------------------------------------------ public API
    def run(self) -> SimSummary:
        """Play the whole workflow (blocking) and return the summary."""
        for _ in self.steps():
            pass
        assert self.summary is not None
        return self.summary

    def steps(self) -> Iterator[StepEvent]:
        """The run as a generator of steps (each yielded right after its write)."""
        if self._started:
            raise SimulationError("a Simulator runs once")
        self._started = True
        return self._steps()

    def stop(self) -> None:
        """Ask a running simulation to stop at the next step or poll (thread-safe)."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    # ------------------------------------------------------------------ driver
    def _steps(self) -> Generator[StepEvent, None, None]:
        started = time.monotonic()
        status = "stopped"
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            yield from self.fire_after("start", None)
            status = yield from self.player.play()
            if status == "completed":
                yield from self.fire_after("finish", None)
        finally:
            result = self._result
            result.status = "stopped" if self.stopping and status == "completed" else status
            result.elapsed = time.monotonic() - started
            result.hook_lines = self.hook_log.lines_written
            result.rotations = self.hook_log.rotations
            result.faults = [
                {"name": f.name, "phase": f.phase, "fired": f.fired, "rules": list(f.rules)}
                for f in self.faults
            ]
            self.summary = result

    # ------------------------------------------------------------------ time
    def now_iso(self) -> str:
        return iso(self.clock.now())

    def pace(self, kind: str = "write") -> None:
        (rlo, rhi), (vlo, vhi) = PACE[kind]
        self.clock.advance(self._tick.uniform(vlo, vhi))
        if not self.config.fast:
            self._stop.wait(self._tick.uniform(rlo, rhi) / self.config.speed)

    def wait_real(self, seconds: float) -> None:
        """A real pause scaled by speed (not skipped by ``fast``: callers check that)."""
        self._stop.wait(seconds / self.config.speed)

    # ------------------------------------------------------------------ events
    def emit(self, event: StepEvent) -> StepEvent:
        self._seq += 1
        event = _with_seq(event, self._seq)
        self._result.steps += 1
        if event.name.startswith("decide:") or event.name.startswith("decision:"):
            self._result.decisions.append((event.name.split(":", 1)[1], event.phase))
        if self.config.on_step is not None:
            self.config.on_step(event.name, event.state)
        if self.config.on_event is not None:
            self.config.on_event(event)
        return event

    def emit_file(
        self,
        name: str,
        path: Path,
        phase: str | None = None,
        *,
        text: str | None = None,
        fault: str | None = None,
        detail: str = "",
        counted: bool = False,
    ) -> StepEvent:
        if counted:
            self._result.writes += 1
        return self.emit(
            StepEvent(
                0,
                name,
                self.now_iso(),
                path=self.rel(path),
                phase=phase,
                text=text,
                fault=fault,
                detail=detail,
            )
        )

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # ------------------------------------------------------------------ hook log
    def log(
        self,
        hook: str | None,
        event: str | None,
        phase: str | None = None,
        agent: str | None = None,
        reason: str | None = None,
        *,
        pace: bool = True,
    ) -> None:
        if pace:
            self.clock.advance(self._tick.uniform(0.05, 2.5))
        self.hook_log.path.parent.mkdir(parents=True, exist_ok=True)
        self.hook_log.append(self.now_iso(), hook, event, phase, agent, reason)

    # ------------------------------------------------------------------ state writes
    def disk_version(self) -> int | None:
        try:
            return read_disk_version(self.state_path)
        except ValueError:
            return None

    def fire_after(self, point: str, phase: str | None) -> Iterator[StepEvent]:
        for fault in self.faults:
            yield from fault.after(self, point, phase)

    def commit(
        self,
        name: str,
        phase: str | None,
        *,
        point: str | None = None,
        fault: str | None = None,
        apply_faults: bool = True,
        torn: tuple[str, float, random.Random] | None = None,
    ) -> Iterator[StepEvent]:
        """The controller's ``writeState(model)``: faults may alter the document first
        (``transform``) and add steps after it (``after``)."""
        point = point or name
        doc = self.state
        if apply_faults:
            for f in self.faults:
                fired = f.fired
                doc = f.transform(self, point, phase, doc)
                if f.fired > fired:
                    fault = fault or f.name
        version = next_version(self.state_path, self._version)
        data = render_state(with_version(doc, version))
        if torn is None:
            write_truncate(self.state_path, data)
        else:
            yield from self._torn_write(data, torn, phase, fault)
        self._version = version
        self.state["state_version"] = version
        self._result.writes += 1
        written = json.loads(data)
        if point == "activate" and phase is not None:
            self.launch_snapshots[phase] = written
        yield self._state_written(name, phase, written, fault)
        if apply_faults:
            yield from self.fire_after(point, phase)

    def write_raw(
        self, doc: dict[str, Any], name: str, phase: str | None, *, fault: str | None = None
    ) -> Iterator[StepEvent]:
        """Write a document exactly as given (a sub-agent's Write tool: no version bump)."""
        data = render_state(doc)
        write_truncate(self.state_path, data)
        self._result.writes += 1
        yield self._state_written(name, phase, json.loads(data), fault)

    def _state_written(
        self, name: str, phase: str | None, written: dict[str, Any], fault: str | None
    ) -> StepEvent:
        version = written.get("state_version")
        return self.emit(
            StepEvent(
                0,
                name,
                self.now_iso(),
                path=self.rel(self.state_path),
                phase=phase,
                version=version if isinstance(version, int) else None,
                state=written,
                fault=fault,
                detail=_describe(name, phase, written),
            )
        )

    def _torn_write(
        self,
        data: bytes,
        torn: tuple[str, float, random.Random],
        phase: str | None,
        fault: str | None,
    ) -> Iterator[StepEvent]:
        mode, pause, rng = torn
        if mode == "empty":
            cut = 0
        else:
            # cut at a line end in the middle of the document: what a reader sees when the
            # write is split, and what a JSON parser recognises as "ran off the end"
            lines = [i + 1 for i, b in enumerate(data) if b == 0x0A]
            middle = [i for i in lines if len(data) * 0.25 < i < len(data) * 0.75] or lines
            cut = rng.choice(middle) if middle else len(data) // 2
        with open(self.state_path, "wb") as fh:
            fh.write(data[:cut])
            fh.flush()
            yield self.emit(
                StepEvent(
                    0,
                    "torn",
                    self.now_iso(),
                    path=self.rel(self.state_path),
                    phase=phase,
                    fault=fault,
                    detail=f"{cut} of {len(data)} bytes on disk for {pause * 1000:.0f} ms",
                )
            )
            if not self.config.fast:
                self._stop.wait(pause)
            fh.write(data[cut:])

    # ------------------------------------------------------------------ waiting
    def poll_state(self) -> dict[str, Any] | None:
        """The document on disk, or None while it is missing, torn or not an object."""
        try:
            raw = self.state_path.read_bytes()
            doc = json.loads(raw)
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) else None

    def wait_until(self, check: Callable[[], Any]) -> tuple[str, Any]:
        """Poll ``check`` until it returns a value: ("ok", value), ("stopped", None) after
        :meth:`stop`, or ("timeout", None) after ``decision_timeout`` seconds."""
        deadline = (
            time.monotonic() + self.config.decision_timeout
            if self.config.decision_timeout is not None
            else None
        )
        while True:
            if self.stopping:
                return "stopped", None
            value = check()
            if value is not None:
                return "ok", value
            if deadline is not None and time.monotonic() > deadline:
                return "timeout", None
            self._stop.wait(self.poll_interval)

    def adopt(self, doc: dict[str, Any]) -> None:
        """Take a document someone else wrote as the controller's model (it re-reads state)."""
        self.state = doc
        version = doc.get("state_version")
        if isinstance(version, int):
            self._version = version

    def snapshot_model(self) -> None:
        self.before = copy.deepcopy(self.state)

    def skeleton(self) -> dict[str, Any]:
        return {
            "status": "pending",
            "started": None,
            "completed": None,
            "gate_passed": None,
            "artifacts": [],
        }


def _with_seq(event: StepEvent, seq: int) -> StepEvent:
    return StepEvent(
        seq,
        event.name,
        event.ts,
        event.path,
        event.phase,
        event.version,
        event.state,
        event.text,
        event.fault,
        event.detail,
        event.external,
    )


def _describe(name: str, phase: str | None, doc: dict[str, Any]) -> str:
    aw = doc.get("active_workflow")
    if not isinstance(aw, dict):
        return "no active workflow"
    record = doc.get("phases", {}).get(phase) if phase else None
    detail = record.get("status") if isinstance(record, dict) else None
    summary = aw.get("phase_status", {}).get(phase) if phase else None
    review = aw.get("supervised_review")
    text = (
        f"index {aw.get('current_phase_index')} current {aw.get('current_phase')} "
        f"| {phase}: {detail}/{summary}"
    )
    if isinstance(review, dict):
        text += f" | review {review.get('status')}"
    pending = doc.get("pending_escalations")
    if isinstance(pending, list) and pending:
        text += f" | {len(pending)} escalation(s)"
    return text
