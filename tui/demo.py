"""``phasewatch demo``: a simulated project, live in the dashboard, in one command.

Three players write one temporary directory the way the real systems do: an iSDLC workflow
(supervised review gates, an escalation, injected faults), a TDD plan waiting for approval, and a
plugin registry walking its stages. You answer the gates, escalations and the plan in the
dashboard; an *autopilot* answers what has waited ``--autopilot`` seconds with nobody at the
keyboard (``--autopilot 0`` turns it off), through the same decision writer (journaled as
``demo-autopilot``), so an unattended demo never stalls. The autopilot never repairs: after the
``regress`` fault (a sub-agent's old copy moving the workflow back) the workflow holds still
with the stale write on screen and its Repair offer (``x``) for a human to take or leave.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from phasewatch.core.config import ConfigError
from phasewatch.core.config import load as load_config
from phasewatch.core.log import internal_failure
from phasewatch.core.text import plural
from phasewatch.tui.app import PhasewatchApp
from textual import events

DEFAULT_FAULTS = "stale-write,regress,half-applied,torn,rotation-burst"
DEFAULT_PLUGIN_FAULTS = "plugin-drift,plugin-tamper"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch demo",
        description=__doc__.split("\n\n")[0].replace("``", ""),  # plain words (completion)
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
        default=None,
        metavar="SECONDS",
        help="answer what has waited this long with no key or click and no dialog open "
        "(0: never, you answer everything; default: the config's [autopilot], else 20)",
    )
    p.add_argument(
        "--config",
        type=Path,
        default=None,
        help="config file (default: XDG): [autopilot], [notifications], rules, theme",
    )
    p.add_argument(
        "--notify-cmd",
        default=None,
        metavar="CMD",
        help="run CMD for each new error or pending decision, as the dashboard does (the demo is "
        "the safe place to try it)",
    )
    p.add_argument("--no-notify", action="store_true", help="no desktop notification or command")
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


class Presence:
    """Whether a human is at the dashboard, as the autopilot sees it: nobody, headless. The
    dashboard (:class:`DemoApp`) writes both attributes on its thread; the autopilot reads them."""

    def __init__(self) -> None:
        #: ``time.monotonic()`` of the user's last key or click (0.0: never).
        self.last_activity = 0.0
        #: True while a dialog or a console screen is open over the data screens.
        self.busy = False
        #: The data screen on view (its NAME): the plan is not approved while it is read.
        self.screen = ""


class Autopilot:
    """Answers waiting decisions through ``core.decide`` like a human, but only what has waited
    its full ``grace`` with nobody at the keyboard: each item's timer starts when it appears,
    any key or click restarts every timer, and nothing is answered while a dialog or a console
    screen is open (the user may be typing redo guidance or reading an escalation). It never
    resumes a gate someone paused for review (a pause is a person's decision), and never
    approves the plan while the TDD or plan screen is on view (someone may be reading it)."""

    def __init__(
        self,
        root: Path,
        grace: float,
        stop: threading.Event,
        log: Callable[[str], None],
        presence: Presence | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.root = root
        self.grace = grace
        self.stop = stop
        self.log = log
        self.presence = presence or Presence()
        self.clock = clock
        self.first_seen: dict[str, float] = {}
        self.retried: set[str] = set()

    def due(self, waiting: list[str]) -> set[str]:
        """The keys of ``waiting`` whose time is up (forgets the items that went away)."""
        now = self.clock()
        self.first_seen = {k: self.first_seen.get(k, now) for k in waiting}
        if self.presence.busy:
            return set()
        quiet_since = self.presence.last_activity
        return {k for k, t in self.first_seen.items() if now - max(t, quiet_since) >= self.grace}

    def run(self) -> None:
        # It looks four times a grace (at most every 0.25 s): an item is answered at most a
        # quarter of its grace late, however short the grace.
        while not self.stop.wait(min(0.25, self.grace / 4)):
            try:
                self.tick()
            except Exception as exc:  # never let the autopilot take the demo down
                internal_failure(__name__, "the demo's autopilot raised", exc)
                self.log(f"autopilot: {type(exc).__name__}: {exc}")

    def tick(self) -> None:
        state_path = self.root / ".isdlc" / "state.json"
        try:
            doc = json.loads(state_path.read_bytes()) if state_path.exists() else {}
        except (OSError, ValueError):
            return  # mid-write (the owner truncates, then writes): keep every timer as it is
        doc = doc if isinstance(doc, dict) else {}
        waiting: dict[str, Callable[[], str]] = {}
        gate = _waiting_gate(doc)
        if gate is not None:
            waiting[gate] = lambda: self._answer_gate(state_path, doc)
        escalations = doc.get("pending_escalations")
        if isinstance(escalations, list) and escalations:
            key = "esc:" + json.dumps(escalations, sort_keys=True, default=str)
            waiting[key] = lambda: self._answer_escalation(state_path, doc, escalations)
        progress = self.root / ".tdd-progress.md"
        plan = _unapproved_plan(progress)
        if plan is not None and self.presence.screen not in READING_PLAN:
            waiting[f"plan:{plan}"] = lambda: self._approve(progress)
        for key in self.due(list(waiting)):
            self.log(waiting[key]())
            self.first_seen.pop(key, None)

    def _answer_gate(self, state_path: Path, doc: dict[str, Any]) -> str:
        from phasewatch.core import decide

        review = doc["active_workflow"]["supervised_review"]
        result = decide.decide_review(state_path, "continue", seen=doc, who=WHO, via="demo")
        return f"autopilot: review continue {review.get('phase')}: {result.outcome}"

    def _answer_escalation(self, state_path: Path, doc: dict[str, Any], pending: list[Any]) -> str:
        from phasewatch.core import decide

        last = pending[-1]
        phase = str(last.get("phase") if isinstance(last, dict) else "")
        action = "skip" if phase in self.retried else "retry"
        self.retried.add(phase)
        result = decide.decide_escalation(state_path, action, seen=doc, who=WHO, via="demo")
        return f"autopilot: escalation {action} {phase}: {result.outcome}"

    def _approve(self, progress: Path) -> str:
        from phasewatch.core import decide

        result = decide.decide_approval(progress, who=WHO, via="demo")
        return f"autopilot: approve plan: {result.outcome}"


WHO = "demo-autopilot"
#: The screens on which the plan is read: no approval while one is on view.
READING_PLAN = frozenset({"tdd", "plan"})


def _waiting_gate(doc: dict[str, Any]) -> str | None:
    """The identity of the gate waiting in ``doc`` (phase, redo count), or None. A gate paused
    for review (``reviewing``) is not waiting for the autopilot: someone paused it."""
    aw = doc.get("active_workflow")
    review = aw.get("supervised_review") if isinstance(aw, dict) else None
    if not isinstance(review, dict) or review.get("status") != "gate_presented":
        return None
    return f"gate:{review.get('phase')}:{review.get('status')}:{review.get('redo_count')}"


def _unapproved_plan(progress: Path) -> str | None:
    """The digest of an unapproved plan with slices at ``progress``, or None."""
    from phasewatch.core.tdd import parse_progress

    try:
        data = progress.read_bytes()
    except OSError:
        return None
    plan = parse_progress(data)
    if plan.is_approved or not plan.slices:
        return None
    return hashlib.sha256(data).hexdigest()


#: Pacing at ``--speed 1``: the TDD plan appears once the first gate is answered (or after this
#: long), so a newcomer meets one decision at a time; the board holds still after a plugin drift
#: and the workflow after a stale write, long enough to find them (screen 6, the Timeline), and
#: after a regressing write long enough to open its Repair preview (``x``) and decide.
PLAN_AFTER_S = 60.0
DRIFT_HOLD_S = 60.0
STALE_HOLD_S = 15.0
REGRESS_HOLD_S = 45.0


class DemoRunner:
    """Runs the players (and the autopilot) in threads; ``run()`` blocks until they finish.
    ``finished``: what to say when every player is done (the dashboard adds how to leave)."""

    def __init__(
        self,
        args: argparse.Namespace,
        root: Path,
        log: Callable[[str], None] | None = None,
        *,
        presence: Presence | None = None,
        finished: str = "demo: every player finished",
    ):
        from phasewatch.core.simulate import SimConfig, Simulator

        self.args = args
        self.root = root
        self.log = log or (lambda _msg: None)
        self.finished = finished
        self._stop = threading.Event()
        self._first_answer = threading.Event()
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
                    on_event=self._isdlc_event,
                )
            )
        )
        if not args.no_tdd:
            tdd = SimConfig(
                directory=root, workflow="tdd", speed=args.speed, seed=args.seed, reuse=True
            )
            self.players.append(Simulator(tdd))
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
            Autopilot(root, args.autopilot, self._stop, self.log, presence)
            if args.autopilot > 0
            else None
        )
        self.threads: list[threading.Thread] = []
        WRITERS[root] = self

    def _hold(self, seconds: float) -> None:
        self._stop.wait(seconds / self.args.speed)

    def _isdlc_event(self, event: Any) -> None:
        """The iSDLC player's steps (its thread): note the first answer, pause on a stale write."""
        if event.name.startswith("decision:"):
            self._first_answer.set()
        if event.fault == "stale-write":
            self._hold(STALE_HOLD_S)
        elif event.fault == "regress" and event.state is not None:  # its state write
            self._hold(REGRESS_HOLD_S)

    def run(self) -> None:
        threads = [
            threading.Thread(target=self._play, args=(p,), daemon=True) for p in self.players
        ]
        if self.autopilot is not None:
            threads.append(threading.Thread(target=self.autopilot.run, daemon=True))
        self.threads = threads
        for t in threads:
            t.start()
        for t in threads[: len(self.players)]:
            t.join()
        self._stop.set()
        self.log(self.finished)

    def _play(self, player: Any) -> None:
        from phasewatch.core.simulate.plugins import PluginPipeline

        try:
            if isinstance(player, PluginPipeline):
                for step in player.steps():
                    if "plugin-drift" in (step.fault or "").split(","):
                        held = DRIFT_HOLD_S / self.args.speed
                        self.log(f"demo: plugin drift on {step.plugin}, left standing {held:g} s")
                        self._hold(DRIFT_HOLD_S)
            else:
                if player is not self.players[0]:  # the TDD plan: after the first gate
                    self._first_answer.wait(PLAN_AFTER_S / self.args.speed)
                if not self._stop.is_set():
                    player.run()
        except Exception as exc:
            internal_failure(__name__, f"the demo's {type(player).__name__} raised", exc)
            self.log(f"demo: {type(player).__name__} stopped: {exc}")

    def stop(self) -> None:
        self._stop.set()
        self._first_answer.set()
        for player in self.players:
            player.stop()

    def halt(self, timeout: float) -> None:
        """Stop, and wait up to ``timeout`` seconds for every player and the autopilot to end:
        a player's next write makes its directories again (``mkdir(parents=True)``), so the
        demo's directory removed under a running player came back (14 of 20 runs killed by
        SIGHUP at ``--speed 30``)."""
        self.stop()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            if thread is not threading.current_thread():
                thread.join(max(0.0, deadline - time.monotonic()))


TEMP_PREFIX = "phasewatch-demo-"
#: The runner writing each demo directory, so the directory's removal can stop it first.
WRITERS: dict[Path, DemoRunner] = {}
#: How long the removal waits for the writers (a player ends at its next step or pause; in
#: the dashboard, one waiting for the app to show a message never ends while it is stopped).
HALT_WAIT_S = 2.0


def remove_demo_dir(root: Path) -> None:
    """Stop the demo's writers (:data:`WRITERS`), then remove ``root`` (again, should a write
    that was under way have left an entry behind)."""
    runner = WRITERS.pop(root, None)
    if runner is not None:
        runner.halt(HALT_WAIT_S)
    for _ in range(10):
        shutil.rmtree(root, ignore_errors=True)
        if not os.path.lexists(root):
            return
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    from phasewatch.tui.config_flags import _dashboard_config

    args = build_parser().parse_args(argv)
    # the whole config, with --notify-cmd / --no-notify on top, as `phasewatch` itself reads it
    args.config_loaded = _dashboard_config(args)
    if args.config_loaded is False:
        return 2
    if args.autopilot is None:
        try:
            config = args.config_loaded or load_config(args.config)[0]
        except ConfigError as exc:
            print(f"phasewatch demo: {exc}", file=sys.stderr)
            return 2
        autopilot = config.autopilot
        args.autopilot = autopilot.wait_seconds if autopilot.enabled else 0.0
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
        remove_stale_demo_dirs()
        root = Path(tempfile.mkdtemp(prefix=f"{TEMP_PREFIX}{os.getpid()}-"))
    keep = args.keep or bool(args.dir)
    headless = args.headless or not (sys.stdout.isatty() and sys.stdin.isatty())
    restore = _remove_on_signal(root) if not keep else {}
    try:
        if headless:
            return _headless(args, root)
        return _dashboard(args, root)
    except Exception as exc:  # a clear message on the terminal, the traceback in the log
        internal_failure(__name__, "the demo failed", exc)
        print(f"phasewatch demo: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        for signum, handler in restore.items():
            signal.signal(signum, handler)
        if keep:
            print(f"demo files kept in {root}")
        else:
            remove_demo_dir(root)


def _remove_on_signal(root: Path) -> dict[int, Any]:
    """Remove ``root`` when the terminal goes away (SIGHUP) or we are told to stop (SIGTERM),
    then die of that signal as we would have; returns the handlers to put back."""

    def handler(signum: int, _frame: Any) -> None:
        remove_demo_dir(root)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous: dict[int, Any] = {}
    for signum in (signal.SIGHUP, signal.SIGTERM):
        previous[signum] = signal.signal(signum, handler)
    return previous


def remove_stale_demo_dirs(tmp: Path | None = None) -> list[Path]:
    """Remove ``phasewatch-demo-<pid>-*`` directories left by a demo that was killed (its
    process is gone); only our own real directories, never through a symlink."""
    removed = []
    for path in Path(tmp or tempfile.gettempdir()).glob(f"{TEMP_PREFIX}*-*"):
        pid = path.name[len(TEMP_PREFIX) :].split("-", 1)[0]
        try:
            st = path.lstat()
        except OSError:
            continue
        if not pid.isdigit() or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            continue
        if _alive(int(pid)):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, it is someone else's
        return True
    return True


class DemoApp(PhasewatchApp):
    """The dashboard, telling the autopilot (``presence``) when a human is at it: the time of
    the last key or click, and whether anything is open over the data screens."""

    def __init__(self, *args: Any, announce: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.presence = Presence()
        self.announce = announce

    def on_ready(self) -> None:
        super().on_ready()
        if self.announce:  # the autopilot says so at start: no decision comes as a surprise
            self.notify(self.announce, title="demo autopilot", markup=False, timeout=15)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown | events.MouseScrollDown):
            self.presence.last_activity = time.monotonic()
        await super().on_event(event)
        stack = self.screen_stack if self.is_running else []
        self.presence.busy = len(stack) > 1
        if stack:  # (none while the app shuts down)
            self.presence.screen = getattr(stack[-1], "NAME", "")


def _dashboard(args: argparse.Namespace, root: Path) -> int:
    app: DemoApp | None = None

    def log(message: str) -> None:
        if app is not None and app.is_running:
            app.call_from_thread(app.notify, message, title="demo", markup=False)

    runner = DemoRunner(
        args, root, log, finished="demo: every player finished; the dashboard stays open (q quits)"
    )
    announce = None
    if runner.autopilot is not None:
        announce = (
            f"The autopilot answers a gate, an escalation or the plan after {args.autopilot:g} s "
            "with nobody at the keyboard (any key restarts the wait). It never resumes a gate "
            "you paused, nor approves the plan while you read it. --autopilot 0: you answer "
            "everything."
        )
    app = DemoApp(
        root,
        read_only=args.read_only,
        demo=runner,
        freeze_startup=True,
        announce=announce,
        config=args.config_loaded,
    )
    if runner.autopilot is not None:
        runner.autopilot.presence = app.presence
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
            report = audit_project(root, config=args.config_loaded or None)
            snap = report.snapshots[0] if report.snapshots else None
            where = snap.workflow.current_phase if snap and snap.workflow else "no active workflow"
            counts = report.summary
            print(
                f"  v{snap.version if snap else '?'} {where}: "
                f"{plural(counts['error'], 'error')}, {plural(counts['warning'], 'warning')}, "
                f"{counts['info']} info",
                flush=True,
            )
    except KeyboardInterrupt:
        runner.stop()
        return 130
    print("demo: the final check of the directory:", flush=True)
    print_report(audit_project(root, config=args.config_loaded or None))
    return 0
