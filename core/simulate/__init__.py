"""A faithful workflow player with fault injection (demo, tests, benchmarks).

``Simulator(SimConfig(directory, workflow="feature", ...)).run()`` writes a project directory
exactly the way the real systems do (docs/formats.md): ``.isdlc/state.json`` through the owner's
non-atomic ``writeState()`` (``JSON.stringify(state, null, 2)``, no trailing newline,
``state_version`` = disk + 1), ``.isdlc/hook-activity.log`` with its in-place rotation, review
summaries, and for the ``tdd`` workflow ``.tdd-progress.md``. It waits for review-gate,
escalation and plan-approval decisions written to those files by someone else, or answers them
itself with ``auto_decide``. Named faults (see :mod:`.faults`) inject the failures the seeds
describe. ``steps()`` yields every write; ``on_step(name, state)`` sees each one; ``stop()``
ends a run started in a thread.
"""

from ..decide.codec import js_number, stringify
from .clock import Clock, VirtualClock, WallClock, iso
from .faults import FAULTS, Fault, FaultError, load_fault_modules, register_fault
from .files import HookLog, hook_line, render_state, write_state
from .player import Simulator
from .types import SimConfig, SimSummary, SimulationError, StepEvent

__all__ = [
    "FAULTS",
    "Clock",
    "Fault",
    "FaultError",
    "HookLog",
    "SimConfig",
    "SimSummary",
    "SimulationError",
    "Simulator",
    "StepEvent",
    "VirtualClock",
    "WallClock",
    "hook_line",
    "iso",
    "js_number",
    "load_fault_modules",
    "register_fault",
    "render_state",
    "stringify",
    "write_state",
]
