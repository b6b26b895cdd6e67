"""``phasewatch simulate DIR``: play a workflow into a directory, one line per step.

Plain text, no textual import. ``run_from_args`` runs the options ``phasewatch simulate``
parsed (the parser itself is in ``tui/cli.py``, with every other command's).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

from .faults import FaultError, load_fault_modules
from .player import Simulator
from .types import SimConfig, SimulationError

if TYPE_CHECKING:
    from argparse import Namespace


def config_from_args(args: Namespace) -> SimConfig:
    supervised: bool | list[str] = bool(args.supervised)
    if args.review_phases:
        supervised = [p.strip() for p in args.review_phases.split(",") if p.strip()] or True
    escalate: str | list[str] | None
    if args.escalate in (None, "", "none"):
        escalate = None
    elif args.escalate == "auto":
        escalate = "auto"
    else:
        escalate = [p.strip() for p in args.escalate.split(",") if p.strip()]
    return SimConfig(
        directory=args.directory,
        workflow=args.workflow,
        faults=[f.strip() for f in (args.faults or "").split(",") if f.strip()],
        speed=args.speed,
        fast=args.fast,
        seed=args.seed,
        auto_decide=args.auto_decide,
        supervised=supervised,
        escalate=escalate,
        tdd_lock=args.tdd_lock,
        reuse=args.reuse,
        decision_timeout=args.timeout,
    )


def list_faults(out: TextIO) -> None:
    for name, cls in sorted(load_fault_modules().items()):
        rules = ", ".join(cls.rules) or cls.detector
        systems = "/".join(sorted(cls.systems))
        out.write(f"{name:<18} [{systems}] -> {rules}\n    {cls.description}\n")
    from .plugins import PLUGIN_FAULTS

    for name, fault in sorted(PLUGIN_FAULTS.items()):
        out.write(f"{name:<18} [plugins] -> {', '.join(fault.rules)}\n    {fault.description}\n")


def run_from_args(args: Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.list_faults:
        list_faults(out)
        return 0
    if not args.directory:
        out.write("phasewatch simulate: a directory is required\n")
        return 2
    if args.workflow == "plugins":
        return _run_plugins(args, out)
    try:
        config = config_from_args(args)
        sim = Simulator(config)
    except (SimulationError, FaultError) as exc:
        out.write(f"phasewatch simulate: {exc}\n")
        return 2
    out.write(
        f"simulating a {config.workflow} workflow in {sim.root} (seed {sim.seed}"
        + (", fast" if config.fast else f", speed {config.speed:g}")
        + (", auto-decide" if config.auto_decide else ", decisions from the files")
        + ")\n"
    )
    out.flush()
    try:
        for event in sim.steps():
            out.write(event.line() + "\n")
            if event.name in ("gate", "escalation", "tdd-plan") and not config.auto_decide:
                out.write("     ... waiting for a decision written to the file\n")
            out.flush()
    except (SimulationError, FaultError) as exc:
        out.write(f"phasewatch simulate: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sim.stop()
        out.write("interrupted\n")
        return 130
    except BrokenPipeError:  # output closed (| head): stop writing files too
        sim.stop()
        return 1
    summary = sim.summary
    assert summary is not None
    out.write(summary.line() + "\n")
    return {"completed": 0, "cancelled": 0, "timeout": 3}.get(summary.status, 1)


def _run_plugins(args: Namespace, out: TextIO) -> int:
    from .plugins import PluginPipeline

    names = [n.strip() for n in (args.plugins or "").split(",") if n.strip()]
    faults = [f.strip() for f in (args.faults or "").split(",") if f.strip()]
    try:
        pipeline = PluginPipeline(
            args.directory,
            plugins=names,
            faults=faults,
            seed=args.seed or 0,
            fast=args.fast,
            speed=args.speed,
        )
    except ValueError as exc:
        out.write(f"phasewatch simulate: {exc}\n")
        return 2
    out.write(f"simulating a plugin registry in {pipeline.root}: {', '.join(names)}\n")
    try:
        for step in pipeline.steps():
            out.write(step.line() + "\n")
            out.flush()
    except KeyboardInterrupt:
        pipeline.stop()
        out.write("interrupted\n")
        return 130
    except BrokenPipeError:
        pipeline.stop()
        return 1
    return 0
