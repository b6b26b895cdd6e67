"""``phasewatch simulate DIR``: play a workflow into a directory, one line per step.

Plain text, no textual import. ``add_arguments`` fills an argparse (sub)parser and
``run_from_args`` runs it; ``python -m core.simulate DIR ...`` works on its own too.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from .faults import FaultError, load_fault_modules
from .player import WORKFLOW_CHOICES, SimConfig, SimulationError, Simulator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", metavar="DIR", nargs="?", help="project directory to write")
    parser.add_argument(
        "--workflow",
        choices=(*WORKFLOW_CHOICES, "plugins"),
        default="feature",
        help="default: feature; 'plugins' walks a plugin registry (PLUGINS.md) through its stages",
    )
    parser.add_argument(
        "--plugins",
        default="MinimalKick,GainKnob",
        metavar="A,B",
        help="with --workflow plugins: the plugin names (default: MinimalKick,GainKnob)",
    )
    parser.add_argument(
        "--faults",
        default="",
        metavar="A,B",
        help="comma-separated faults to inject, each optionally name@phase-key (see --list-faults)",
    )
    parser.add_argument("--fast", action="store_true", help="no pauses, virtual clock")
    parser.add_argument("--seed", type=int, default=None, help="reproduce a run")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="pace factor (default 1.0: ~1.5 min)"
    )
    parser.add_argument(
        "--auto-decide",
        action="store_true",
        help="answer review gates, escalations and plan approval automatically",
    )
    parser.add_argument(
        "--supervised", action="store_true", help="enable supervised_mode (review gates)"
    )
    parser.add_argument(
        "--review-phases",
        default=None,
        metavar="03,06",
        help="review only these phase prefixes (implies --supervised)",
    )
    parser.add_argument(
        "--escalate",
        default="auto",
        metavar="PHASES",
        help="phases whose gate blocks: auto (one, by seed), none, or comma-separated keys",
    )
    parser.add_argument(
        "--tdd-lock", action="store_true", help="tdd: also the legacy .tdd-plan-locked marker"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="start on top of an existing state.json that has no active workflow",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="give up waiting for a decision after N s"
    )
    parser.add_argument("--list-faults", action="store_true", help="list the faults and exit")


def config_from_args(args: argparse.Namespace) -> SimConfig:
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


def _list_faults(out: TextIO) -> None:
    for name, cls in sorted(load_fault_modules().items()):
        rules = ", ".join(cls.rules) or cls.detector
        systems = "/".join(sorted(cls.systems))
        out.write(f"{name:<18} [{systems}] -> {rules}\n    {cls.description}\n")
    from .plugins import PLUGIN_FAULTS

    for name, fault in sorted(PLUGIN_FAULTS.items()):
        out.write(f"{name:<18} [plugins] -> {', '.join(fault.rules)}\n    {fault.description}\n")


def run_from_args(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.list_faults:
        _list_faults(out)
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


def _run_plugins(args: argparse.Namespace, out: TextIO) -> int:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="phasewatch simulate", description=__doc__)
    add_arguments(parser)
    return run_from_args(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
