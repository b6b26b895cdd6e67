"""``phasewatch demo``: a simulated project, live in the dashboard, in one command.

Three players write one temporary directory the way the real systems do: an iSDLC workflow
(supervised review gates, an escalation, injected faults), a TDD plan waiting for approval, and a
plugin registry walking its stages. You answer the gates, escalations and the plan in the
dashboard; an *autopilot* answers whatever is still waiting after ``--autopilot`` seconds, through
the same decision writer (journaled as ``demo-autopilot``), so an unattended demo never stalls.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_FAULTS = "stale-write,half-applied,torn,rotation-burst"
DEFAULT_PLUGIN_FAULTS = "plugin-drift,plugin-tamper"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch demo",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Everything is written to a temporary directory, removed on exit unless --keep.",
    )
    p.add_argument("--workflow", choices=("feature", "fix", "build"), default="feature")
    p.add_argument(
        "--faults",
        default=DEFAULT_FAULTS,
        help=f"iSDLC faults (default: {DEFAULT_FAULTS}; 'none' for a clean run)",
    )
    p.add_argument("--plugin-faults", default=DEFAULT_PLUGIN_FAULTS, help="plugin registry faults")
    p.add_argument("--speed", type=float, default=1.0, help="pace factor (1.0: about 1.5 minutes)")
    p.add_argument("--seed", type=int, default=7, help="reproduce a run (default 7)")
    p.add_argument(
        "--autopilot",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="answer what still waits after this long (0: never; default 20)",
    )
    p.add_argument("--no-tdd", action="store_true", help="no TDD plan")
    p.add_argument("--no-plugins", action="store_true", help="no plugin registry")
    p.add_argument(
        "--dir", help="write here instead of a temporary directory (must not hold a state.json)"
    )
    p.add_argument("--keep", action="store_true", help="keep the directory afterwards")
    p.add_argument("--read-only", action="store_true", help="dashboard without write actions")
    p.add_argument(
        "--headless",
        action="store_true",
        help="no dashboard: print the players' steps and a final check",
    )
    return p


def _names(text: str | None) -> list[str]:
    if not text or text.strip().lower() == "none":
        return []
    return [part.strip() for part in text.split(",") if part.strip()]


class Autopilot:
    """Answers waiting decisions after a grace period, through ``core.decide`` like a human."""

    def __init__(self, root: Path, grace: float, stop: threading.Event, log: Callable[[str], None]):
        self.root = root
        self.grace = grace
        self.stop = stop
        self.log = log
        self.first_seen: dict[str, float] = {}
        self.retried: set[str] = set()

    def _due(self, key: str) -> bool:
        now = time.monotonic()
        first = self.first_seen.setdefault(key, now)
        return now - first >= self.grace

    def run(self) -> None:
        while not self.stop.wait(0.25):
            try:
                self.tick()
            except Exception as exc:  # never let the autopilot take the demo down
                self.log(f"autopilot: {type(exc).__name__}: {exc}")

    def tick(self) -> None:
        from phasewatch.core import decide

        state_path = self.root / ".isdlc" / "state.json"
        try:
            doc = json.loads(state_path.read_bytes())
        except (OSError, ValueError):
            doc = None
        if isinstance(doc, dict):
            aw = doc.get("active_workflow") if isinstance(doc.get("active_workflow"), dict) else {}
            review = (
                aw.get("supervised_review")
                if isinstance(aw.get("supervised_review"), dict)
                else None
            )
            if review and review.get("status") in ("gate_presented", "reviewing"):
                key = (
                    f"gate:{review.get('phase')}:{review.get('status')}:{review.get('redo_count')}"
                )
                if self._due(key):
                    action = "continue" if review["status"] == "gate_presented" else "resume"
                    result = decide.decide_review(
                        state_path, action, seen=doc, who="demo-autopilot", via="demo"
                    )
                    self.log(f"autopilot: review {action} {review.get('phase')}: {result.outcome}")
            escalations = doc.get("pending_escalations")
            if isinstance(escalations, list) and escalations:
                phase = str(
                    (escalations[-1] or {}).get("phase")
                    if isinstance(escalations[-1], dict)
                    else ""
                )
                key = f"esc:{phase}:{len(escalations)}"
                if self._due(key):
                    action = "skip" if phase in self.retried else "retry"
                    self.retried.add(phase)
                    result = decide.decide_escalation(
                        state_path, action, seen=doc, who="demo-autopilot", via="demo"
                    )
                    self.log(f"autopilot: escalation {action} {phase}: {result.outcome}")
        progress = self.root / ".tdd-progress.md"
        if progress.exists():
            from phasewatch.core.tdd import parse_progress

            try:
                plan = parse_progress(progress.read_bytes())
            except OSError:
                plan = None
            if plan is not None and not plan.approved and plan.slices and self._due("plan"):
                result = decide.decide_approval(progress, who="demo-autopilot", via="demo")
                self.log(f"autopilot: approve plan: {result.outcome}")


class DemoRunner:
    """Runs the players (and the autopilot) in threads; ``run()`` blocks until they finish."""

    def __init__(
        self, args: argparse.Namespace, root: Path, log: Callable[[str], None] | None = None
    ):
        from phasewatch.core.simulate import SimConfig, Simulator

        self.args = args
        self.root = root
        self.log = log or (lambda _msg: None)
        self._stop = threading.Event()
        self.players: list[Any] = []
        self.players.append(
            Simulator(
                SimConfig(
                    directory=root,
                    workflow=args.workflow,
                    faults=_names(args.faults),
                    speed=args.speed,
                    seed=args.seed,
                    supervised=True,
                    escalate="auto",
                )
            )
        )
        if not args.no_tdd:
            self.players.append(
                Simulator(
                    SimConfig(
                        directory=root, workflow="tdd", speed=args.speed, seed=args.seed, reuse=True
                    )
                )
            )
        if not args.no_plugins:
            from phasewatch.core.simulate.plugins import PluginPipeline

            self.players.append(
                PluginPipeline(
                    root,
                    faults=_names(args.plugin_faults),
                    seed=args.seed,
                    fast=False,
                    speed=args.speed * 0.6,
                )
            )
        self.autopilot = (
            Autopilot(root, args.autopilot, self._stop, self.log) if args.autopilot > 0 else None
        )

    def run(self) -> None:
        threads = [
            threading.Thread(target=self._play, args=(p,), daemon=True) for p in self.players
        ]
        if self.autopilot is not None:
            threads.append(threading.Thread(target=self.autopilot.run, daemon=True))
        for t in threads:
            t.start()
        for t in threads[: len(self.players)]:
            t.join()
        self._stop.set()
        self.log("demo: every player finished; the dashboard stays open (q quits)")

    def _play(self, player: Any) -> None:
        try:
            player.run()
        except Exception as exc:
            self.log(f"demo: {type(player).__name__} stopped: {exc}")

    def stop(self) -> None:
        self._stop.set()
        for player in self.players:
            player.stop()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.speed <= 0:
        print("phasewatch demo: --speed must be > 0", file=sys.stderr)
        return 2
    if args.dir:
        root = Path(args.dir).resolve()
        root.mkdir(parents=True, exist_ok=True)
        if (root / ".isdlc" / "state.json").exists():
            print(
                f"phasewatch demo: {root} already holds a state.json; pick an empty directory",
                file=sys.stderr,
            )
            return 2
    else:
        root = Path(tempfile.mkdtemp(prefix="phasewatch-demo-"))
    keep = args.keep or bool(args.dir)
    headless = args.headless or not (sys.stdout.isatty() and sys.stdin.isatty())
    try:
        if headless:
            return _headless(args, root)
        return _dashboard(args, root)
    except Exception as exc:  # a clear message, never a traceback
        print(f"phasewatch demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"demo files kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


def _dashboard(args: argparse.Namespace, root: Path) -> int:
    from phasewatch.tui.app import PhasewatchApp

    app: PhasewatchApp | None = None

    def log(message: str) -> None:
        if app is not None and app.is_running:
            app.call_from_thread(app.notify, message, title="demo", markup=False)

    runner = DemoRunner(args, root, log)
    app = PhasewatchApp(root, read_only=args.read_only, demo=runner)
    result = app.run()
    runner.stop()
    return result if isinstance(result, int) else 0


def _headless(args: argparse.Namespace, root: Path) -> int:
    from phasewatch.core.report import audit_project
    from phasewatch.tui.check_output import print_report

    print(f"phasewatch demo (headless): writing {root}")
    runner = DemoRunner(args, root, lambda m: print(m, flush=True))
    thread = threading.Thread(target=runner.run, daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(5.0)
            report = audit_project(root)
            snap = report.snapshots[0] if report.snapshots else None
            where = snap.workflow.current_phase if snap and snap.workflow else "no active workflow"
            counts = report.summary
            print(
                f"  v{snap.version if snap else '?'} {where}: "
                f"{counts['error']} errors, {counts['warning']} warnings, {counts['info']} info",
                flush=True,
            )
    except KeyboardInterrupt:
        runner.stop()
        return 130
    print_report(audit_project(root))
    return 0
