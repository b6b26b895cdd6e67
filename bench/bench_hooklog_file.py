"""A million-line hook log on disk, opened by the real app: what a user waits for.

Writes ``.isdlc/hook-activity.log`` (1,000,000 JSON lines, ~170 MB, the owner's shape) next to
the bench state file, starts :class:`tui.app.PhasewatchApp` headless (watching, as ``phasewatch
<dir>`` does), switches to the Hooks screen at once and stamps (``time.perf_counter`` from just
before the app is built; imports excluded):

* the first frame with the state's data (the overview does not wait for the log);
* the first row of a hook record rendered for the screen, the log's last line rendered (its
  first screen: the view follows the end, and a large log is read from there), and the whole
  log in the view;
* the longest single session refresh during the load (how long a state change can wait behind
  the log), and the state write -> overview latency measured once mid-load;
* RSS after the load and the peak (VmHWM).

    .venv/bin/python bench/bench_hooklog_file.py [lines]
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import _project  # noqa: E402  (bench/ is on sys.path as the script dir)
from phasewatch.core.simulate.files import render_state, write_truncate  # noqa: E402
from phasewatch.tui.app import PhasewatchApp  # noqa: E402
from phasewatch.widgets.header import OverviewHeader  # noqa: E402

from tests.factories import feature_state  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1_000_000
TARGETS = {"first_screen_s": 1.0, "rss_mb": 300.0}
HOOKS = ["gate-blocker", "iteration-corridor", "phase-loop-controller", "delegation-gate"]
EVENTS = ["same-phase-bypass"] * 6 + ["allow"] * 3 + ["block", "warn", "skip"]
PHASES = ["05-test-strategy", "06-implementation", "16-quality-loop", None]


def write_log(path: Path, n: int) -> None:
    rng = random.Random(3)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            v = rng.randrange(2000)
            record = {
                "ts": f"2026-03-04T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.418Z",
                "hook": HOOKS[i % len(HOOKS)],
                "event": EVENTS[i % len(EVENTS)],
                "phase": PHASES[i // 997 % len(PHASES)],
                "agent": "software-developer",
                "reason": f"V7: state_version {v} < disk {v + 2}" if i % 3 else None,
            }
            f.write(json.dumps(record, separators=(",", ":")) + "\n")


def proc_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def report(name: str, value: float, unit: str, key: str) -> None:
    target = TARGETS[key]
    print(
        f"{name:<44} {value:8.2f} {unit:<3} target {target:g} {unit:<3} ratio {value / target:5.2f}"
    )


async def main(root: Path) -> None:
    marks: dict[str, float] = {}
    refreshes: list[float] = []
    t0 = time.perf_counter()
    app = PhasewatchApp(root)
    async with app.run_test(size=(120, 36)):
        session = None
        while session is None:
            await asyncio.sleep(0.005)
            session = app.session
        original = session.refresh

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                refreshes.append(time.perf_counter() - t)

        session.refresh = timed  # type: ignore[method-assign]
        app.action_show("hooks")  # not Pilot.press: it waits for an idle app, which a load never is
        screen = app.data_screens["hooks"]
        view = screen.log_view
        render_line = view.render_line

        def stamped(y: int):  # a row of a record rendered for the screen = painted
            if "newest" not in marks and view.total:
                marks.setdefault("first", time.perf_counter() - t0)
                row = int(view.scroll_y) + y
                if row < view.shown and view.record_fields(view.record_at(row))["line_no"] == N:
                    marks["newest"] = time.perf_counter() - t0
            return render_line(y)

        view.render_line = stamped  # type: ignore[method-assign]
        wrote = False
        deadline = time.perf_counter() + 150
        while time.perf_counter() < deadline:
            now = time.perf_counter() - t0
            if "data" not in marks and app.first_data_seconds is not None:
                marks["data"] = app.first_data_seconds
            counted = app.last_update.hooks.total if app.last_update is not None else 0
            if not wrote and counted >= N // 2:  # a state change in the middle of the load
                wrote = True
                doc = feature_state()
                doc["state_version"] = 999_999
                header = app.data_screens["overview"].query_one(OverviewHeader)
                t = time.perf_counter()
                write_truncate(root / ".isdlc" / "state.json", render_state(doc))
                while (
                    "999999" not in header.text.replace(",", "") and time.perf_counter() < deadline
                ):
                    await asyncio.sleep(0.002)
                marks["write"] = time.perf_counter() - t
            if counted >= N:  # every line parsed, counted and audited
                marks["all"] = time.perf_counter() - t0
                break
            await asyncio.sleep(0.005 if now < 2 else 0.05)
        rss, hwm = proc_mb("VmRSS"), proc_mb("VmHWM")
    print(
        f"hook log of {N:,} lines ({(root / '.isdlc' / 'hook-activity.log').stat().st_size / 1e6:.0f} MB), the app watching, Hooks screen shown at once"
    )
    print(f"  first frame with the state's data           {marks.get('data', float('nan')):8.2f} s")
    print(
        f"  first hook records painted                  {marks.get('first', float('nan')):8.2f} s"
    )
    report(
        "the log's last line painted (first screen)",
        marks.get("newest", float("nan")),
        "s",
        "first_screen_s",
    )
    print(
        f"  whole log counted (view, counts, findings)  {marks.get('all', float('nan')):8.2f} s   ({N / marks.get('all', float('nan')):,.0f} lines/s)"
    )
    print(
        f"  longest session refresh during the load     {max(refreshes) * 1000:8.0f} ms  ({len(refreshes)} refreshes)"
    )
    print(f"  time inside session refreshes (worker)      {sum(refreshes):8.2f} s")
    print(
        f"  state write -> overview, mid-load           {marks.get('write', float('nan')) * 1000:8.0f} ms"
    )
    report("RSS after the load", rss, "MB", "rss_mb")
    print(f"  peak RSS (VmHWM)                            {hwm:8.1f} MB")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="pw-biglog-") as tmp:
        root = Path(tmp)
        _project.make_project(root)
        t = time.perf_counter()
        write_log(root / ".isdlc" / "hook-activity.log", N)
        print(f"(writing the log took {time.perf_counter() - t:.1f} s, not counted)")
        asyncio.run(main(root))
