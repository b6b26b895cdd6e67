"""Regenerate the README's pictures (`make screenshots`): one SVG per screen, 120x36.

Everything comes from a deterministic simulated run in a temporary directory: the simulators run
with a fixed seed and a virtual clock, the app's clock follows the simulators' clock, the local
time zone is UTC, and the app reads the files after each write the way its watcher would. So the
pictures only change when the product changes.

The story on screen: a finished `fix` workflow (History), then a supervised `feature` workflow with
injected faults (a stale subagent write, a half-applied write, a torn write, a log rotation during
a burst), the overview taken right after the half-applied write (the locations disagree), that
stops at the implementation phase's review gate; a TDD plan being implemented
without approval; and a plugin registry with drift and a tampered contract. Then, in a second
directory, a `feature` workflow in which a sub-agent's old copy moves the workflow back (the
`regress` fault), shown with its Repair preview (`x`).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from phasewatch.core.simulate import SimConfig, Simulator  # noqa: E402
from phasewatch.core.simulate.clock import VirtualClock  # noqa: E402
from phasewatch.core.simulate.plugins import PluginPipeline  # noqa: E402
from phasewatch.tui.app import PhasewatchApp, SessionUpdated  # noqa: E402

SIZE = (120, 36)
SEED = 7
FAULTS = ["stale-write", "half-applied", "torn", "rotation-burst"]


class AppClock:
    """The app's clock: the players' shared virtual time plus a little (a human reads the screen
    a moment after the last write)."""

    def __init__(self, sim_clock: VirtualClock) -> None:
        self.sim_clock = sim_clock

    def __call__(self) -> datetime:
        return self.sim_clock.now() + timedelta(seconds=30)


async def reread(app: PhasewatchApp, pilot) -> None:
    """What the watcher does after a write: refresh the session and post the update."""
    applied = app.updates_applied
    update = await asyncio.to_thread(app.session.refresh, None)
    app.post_message(SessionUpdated(update))
    for _ in range(500):
        if app.updates_applied > applied:
            return
        await pilot.pause(0.01)
    raise RuntimeError("the app did not apply an update")


async def settle(app: PhasewatchApp, pilot) -> None:
    app.clear_notifications()
    for _ in range(3):
        await pilot.pause()


async def wait_for(pilot, check, what: str) -> None:
    for _ in range(500):
        if check():
            return
        await pilot.pause(0.01)
    raise RuntimeError(f"timed out waiting for {what}")


async def shoot(app: PhasewatchApp, pilot, name: str, out: Path) -> None:
    await settle(app, pilot)
    app.save_screenshot(filename=f"{name}.svg", path=str(out))
    print(f"  screenshots/{name}.svg")


async def overview_on_divergence(app: PhasewatchApp, pilot, out: Path) -> None:
    """The overview with the matrix on the first row whose locations disagree."""
    snap = app.last_update.snapshot() if app.last_update is not None else None
    rows = snap.rows if snap is not None else []
    row = next((i for i, r in enumerate(rows) if r.divergent), 0)
    table = app.screen.query_one("#matrix-table")
    table.cursor_blink = False
    table.move_cursor(row=row)
    app.screen.query_one("#findings-table").move_cursor(row=0)  # the most severe finding
    await shoot(app, pilot, "overview", out)


def play_tdd_and_plugins(root: Path, sim_clock: VirtualClock) -> None:
    """Steps 3 and 4 of the scenario, which the dashboard reads once afterwards."""
    # 3. a TDD plan implemented without approval, stopped part-way
    tdd = Simulator(
        SimConfig(
            directory=root,
            workflow="tdd",
            fast=True,
            auto_decide=True,
            seed=SEED,
            reuse=True,
            faults=["tdd-unapproved"],
            clock=sim_clock,
        )
    )
    for step in tdd.steps():
        if "Slice 3: done" in step.detail:
            break
    # 4. the plugin registry, stopped while its drift and a tampered contract stand
    faults = {"plugin-drift", "plugin-tamper"}
    for plugin_step in PluginPipeline(root, faults=faults, seed=SEED, fast=True).steps():
        faults.discard(plugin_step.fault or "")
        if not faults:
            break


async def mark_stale_write(app: PhasewatchApp, pilot) -> None:
    """Mark the stale write and the version before it: the diff shows what the write undid."""
    timeline = app.data_screens["timeline"]
    view = timeline.view  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: len(view.entries) > 3, "timeline entries")
    rows = view.entries
    stale = next(
        (i for i, e in enumerate(rows) if "TR-VERSION-DOWN" in e.rule_ids),
        len(rows) - 1,
    )
    view.table.move_cursor(row=max(0, stale - 1))
    await pilot.press("space")
    view.table.move_cursor(row=stale)
    await pilot.press("space")


async def scenario(root: Path, out: Path) -> None:
    sim_clock = VirtualClock()  # one time line for every player: the logs stay in order
    clock = AppClock(sim_clock)
    # 1. a finished fix workflow, so History has something to show
    Simulator(
        SimConfig(
            directory=root, workflow="fix", fast=True, auto_decide=True, seed=SEED, clock=sim_clock
        )
    ).run()

    app = PhasewatchApp(root, clock=clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.updates_applied > 0, "the first read")
        # this script is the watcher (it reads after every write, deterministically), so the
        # status bar says what a user sees: watching, not "read once"
        app.watch_mode = "watching"
        # 2. the supervised feature workflow with faults, read after every write, up to the
        #    implementation phase's review gate (the player then waits for a decision)
        feature = Simulator(
            SimConfig(
                directory=root,
                workflow="feature",
                faults=FAULTS,
                fast=True,
                auto_decide=True,
                supervised=True,
                seed=SEED,
                reuse=True,
                clock=sim_clock,
            )
        )
        divergence_shot = False
        for step in feature.steps():
            if step.path is not None:
                await reread(app, pilot)
            if step.fault == "half-applied" and step.path is not None and not divergence_shot:
                # the headline: the three locations disagree, highlighted and explained
                await overview_on_divergence(app, pilot, out)
                divergence_shot = True
            if step.name == "gate" and (step.phase or "").startswith("06"):
                break
        play_tdd_and_plugins(root, sim_clock)
        await reread(app, pilot)

        from phasewatch.tui.screens.review import GatePanel

        await wait_for(pilot, lambda: app.review.waiting_gate() is not None, "the review gate")
        await pilot.press("g")  # announced, never opened by itself: the user opens it
        await wait_for(pilot, lambda: isinstance(app.screen, GatePanel), "the review gate panel")
        await wait_for(pilot, lambda: getattr(app.screen, "summary_loaded", True), "the summary")
        await shoot(app, pilot, "review-gate", out)
        await pilot.press("escape")

        await pilot.press("2")
        await shoot(app, pilot, "hooks", out)

        await pilot.press("3")
        await mark_stale_write(app, pilot)
        await shoot(app, pilot, "timeline", out)

        await pilot.press("4")
        await shoot(app, pilot, "history", out)
        await pilot.press("5")
        await shoot(app, pilot, "tdd", out)
        await pilot.press("6")
        await shoot(app, pilot, "plugins", out)
        await pilot.press("w")
        await shoot(app, pilot, "attention", out)


async def repair_scenario(root: Path, out: Path) -> None:
    """A sub-agent's stale copy moves the workflow back; the user opens its Repair preview."""
    from phasewatch.tui.screens.dialogs import RepairDialog

    sim_clock = VirtualClock()
    feature = Simulator(
        SimConfig(
            directory=root,
            workflow="feature",
            faults=["regress"],
            fast=True,
            auto_decide=True,
            supervised=True,
            seed=SEED,
            clock=sim_clock,
        )
    )
    steps = feature.steps()
    for step in steps:  # the project exists once the workflow's first state is written
        if step.state is not None:
            break
    app = PhasewatchApp(root, clock=AppClock(sim_clock), watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.updates_applied > 0, "the first read")
        app.watch_mode = "watching"
        for step in steps:
            if step.path is not None:
                await reread(app, pilot)
            if step.fault == "regress" and step.state is not None:
                break
        feature.stop()
        await wait_for(pilot, lambda: app.review.offer is not None, "the repair offer")
        await pilot.press("x")  # offered, never opened by itself: the user opens it
        await wait_for(pilot, lambda: isinstance(app.screen, RepairDialog), "the repair preview")
        await shoot(app, pilot, "repair", out)


def main() -> int:
    os.environ["TZ"] = "UTC"
    time.tzset()
    out = HERE
    with tempfile.TemporaryDirectory(prefix="phasewatch-shots-") as tmp:
        print(f"simulating into {tmp}")
        asyncio.run(scenario(Path(tmp), out))
    with tempfile.TemporaryDirectory(prefix="phasewatch-shots-") as tmp:
        asyncio.run(repair_scenario(Path(tmp), out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
