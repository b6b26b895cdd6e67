"""Key press -> screen during a write storm, in a real terminal: phasewatch against a minimal
Textual app under the same storm, in one run (issue 14: p99 <= 150 ms).

The storm is a writer process: ``state.json`` written the owner's way 100 times a second
(``state_version`` = disk + 1, truncate then write) and 5,000 hook log lines a second (50 every
10 ms, each appended on its own as ``logHookEvent`` does, the log rewritten in place with its
newest 500 lines once past 1 MiB: ``core.simulate.files``). It reports the rates it reached.

Each program runs in a tmux pane (120x36; see ``_tmux.py``) on the project. After 2 s of storm
the keys ``2`` and ``1`` are sent alternately, ``GAP_S`` apart (phasewatch: its hook screen and
its overview; the minimal app: two screens); a key's latency runs from just before
``tmux send-keys`` until the pane's first line shows the other screen, looked at every 3 ms
(a look runs a tmux client, ~2 ms). Also the CPU each program used during the storm (user+sys,
``/proc``) and its RSS as the keys start and once they end (the tables' stale renders once
held ~17 MB after 400 writes). Medians, p99 and the ratio to the minimal app go to the screen
and to ``bench/results/storm-<time>.json``.

    .venv/bin/python bench/bench_storm.py [keys]
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _results import stats  # noqa: E402
from _tmux import Pane, tmux, tmux_missing, warm_up  # noqa: E402

KEYS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 60
GAP_S = 0.3
STATE_PER_S = 100
LINES_PER_TICK = 50  # every 10 ms: 5,000 lines a second
TICK_S = 0.01
LOOK_S = 0.003
PHASEWATCH = str(Path(sys.executable).with_name("phasewatch"))
# the first line of each screen (phasewatch: the hook screen's title bar; the overview's
# project line starts with the workflow mark)
SCREENS = {
    "phasewatch": {"2": re.compile(r"Hook activity"), "1": re.compile(r"^ ◆ ")},
    "minimal": {"2": re.compile(r"screen-two"), "1": re.compile(r"screen-one")},
}

MINIMAL_APP = """
from textual.app import App
from textual.screen import Screen
from textual.widgets import Footer, Static
class One(Screen):
    def compose(self):
        yield Static("screen-one")
        yield Footer()
class Two(Screen):
    def compose(self):
        yield Static("screen-two")
        yield Footer()
class Minimal(App):
    MODES = {"one": One, "two": Two}
    DEFAULT_MODE = "one"
    BINDINGS = [("1", "switch_mode('one')", "One"), ("2", "switch_mode('two')", "Two")]
Minimal().run()
"""


def writer(project: Path, seconds: float) -> None:
    """The storm, for ``seconds``; prints what it wrote (JSON) at the end."""
    from phasewatch.core.simulate.files import HookLog, write_state

    state_path = project / ".isdlc" / "state.json"
    state = json.loads(state_path.read_bytes())
    log = HookLog(project / ".isdlc" / "hook-activity.log")
    start = time.monotonic()
    tick = writes = 0
    while (now := time.monotonic()) < start + seconds:
        if tick % max(1, round(1 / (STATE_PER_S * TICK_S))) == 0:
            write_state(state_path, state)
            writes += 1
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        for i in range(LINES_PER_TICK):
            log.append(
                stamp,
                "phase-loop-controller",
                "same-phase-bypass",
                "05-test-strategy",
                "test-design-engineer",
                f"storm {tick}.{i}",
            )
        tick += 1
        time.sleep(max(0.0, start + tick * TICK_S - time.monotonic()))
    took = now - start
    print(
        json.dumps(
            {
                "seconds": took,
                "state_writes_per_s": writes / took,
                "log_lines_per_s": log.lines_written / took,
                "rotations": log.rotations,
            }
        )
    )


def first_screen(pane: Pane, pattern: re.Pattern[str], timeout: float = 30) -> float:
    """Seconds from the start until the pane's first line matches ``pattern`` (exits if not)."""
    shown = pane.wait(pattern, timeout, first_line_only=True)
    if shown is None:
        raise SystemExit(f"{pane.name}: its first screen did not show within {timeout:.0f} s")
    return shown


def press_keys(
    pane: Pane,
    screens: dict[str, re.Pattern[str]],
    keys: int,
    gap_s: float = GAP_S,
    until: Callable[[str], bool] | None = None,
) -> tuple[list[float], int]:
    """Send ``2`` and ``1`` in turns, ``gap_s`` apart, ``keys`` of them; each key's latency runs
    from just before ``tmux send-keys`` until the pane's first line shows that key's screen
    (looked at every ``LOOK_S``). ``until``: called with the whole screen after each key that
    was answered; True ends the keys early. The latencies and the keys never answered (2 s)."""
    latencies, missed = [], 0
    for k in range(keys):
        key = "2" if k % 2 == 0 else "1"
        sent = time.monotonic()
        pane.keys(key)
        seen = pane.wait(screens[key], 2, every=LOOK_S, first_line_only=True)
        if seen is None:
            missed += 1
        else:
            latencies.append(seen - (sent - pane.t0))
            if until is not None and until(pane.screen()):
                break
        time.sleep(max(0.0, gap_s - (time.monotonic() - sent)))
    return latencies, missed


def measure(name: str, argv: list[str], project: Path) -> dict[str, Any]:
    """Start the program, wait for its first screen, run the storm, press the keys."""
    screens = SCREENS[name]
    pane = Pane(name, argv)
    try:
        first_screen(pane, screens["1"])
        storm_s = 2 + KEYS * (GAP_S + 0.2) + 2
        storm = subprocess.Popen(
            [sys.executable, __file__, "--writer", str(project), str(storm_s)],
            stdout=subprocess.PIPE,
            text=True,
        )
        time.sleep(2)
        cpu0, t0 = pane.cpu_seconds(), time.monotonic()
        rss0 = pane.memory().get("VmRSS", float("nan"))
        latencies, missed = press_keys(pane, screens, KEYS)
        cpu = (pane.cpu_seconds() - cpu0) / (time.monotonic() - t0)
        rss = (rss0, pane.memory().get("VmRSS", float("nan")))
        out, _ = storm.communicate(timeout=storm_s + 30)
        rates = json.loads(out.strip().splitlines()[-1]) if out.strip() else {}
        return {
            "latency_s": latencies,
            "missed": missed,
            "cpu_share": cpu,
            "rss_mb": rss,
            "storm": rates,
        }
    finally:
        pane.close()


def main() -> None:
    if tmux_missing():
        return
    from _project import make_project

    _results.cached_bytecode()  # as installed (one uncounted start of each program fills it)
    tmux("new-session", "-d", "-s", "keep", "sleep 100000", check=True)
    results: dict[str, Any] = {}
    try:
        for name in ("phasewatch", "minimal"):
            project = Path(tempfile.mkdtemp(prefix=f"pw-storm-{name}-"))
            make_project(project)
            minimal = project / "minimal_app.py"
            minimal.write_text(MINIMAL_APP)
            argv = (
                [PHASEWATCH, str(project)]
                if name == "phasewatch"
                else [sys.executable, str(minimal)]
            )
            warm_up(name, argv)
            time.sleep(1)
            results[name] = measure(name, argv, project)
            shutil.rmtree(project, ignore_errors=True)
    finally:
        tmux("kill-server", capture_output=True)
    summary = {
        name: {
            **stats(r["latency_s"]),
            "missed": r["missed"],
            "cpu_share": r["cpu_share"],
            "rss_mb": r["rss_mb"],
            "storm": r["storm"],
        }
        for name, r in results.items()
    }
    print_table(summary)
    path = _results.save(
        "storm", {"keys": KEYS, "gap_s": GAP_S, "summary": summary, "raw": results}
    )
    print(f"results: {path.relative_to(ROOT)}")


def print_table(summary: dict[str, Any]) -> None:
    storm = summary["phasewatch"]["storm"]
    print(
        f"storm: {storm.get('state_writes_per_s', 0):.0f} state writes/s, "
        f"{storm.get('log_lines_per_s', 0):,.0f} log lines/s, {storm.get('rotations', 0)} "
        f"log rotations; {KEYS} keys, {GAP_S * 1000:.0f} ms apart, in tmux 120x36"
    )
    base = summary["minimal"]

    def ms(v: float | None) -> str:
        return "    —" if v is None else f"{v * 1000:5.0f}"

    def ratio(a: float | None, b: float | None) -> str:
        return "—" if a is None or not b else f"{a / b:.2f}x"

    for name, s in summary.items():
        vs = (
            ""
            if name == "minimal"
            else (
                f"  ratio p50 {ratio(s['median'], base['median'])} p99 {ratio(s['p99'], base['p99'])}"
            )
        )
        print(
            f"  {name:<11} key -> screen median {ms(s['median'])} ms  p99 {ms(s['p99'])} ms  "
            f"(missed {s['missed']})  CPU {s['cpu_share']:.0%} of a core  "
            f"RSS {s['rss_mb'][0]:.1f} -> {s['rss_mb'][1]:.1f} MB{vs}"
        )
    p99 = summary["phasewatch"]["p99"]
    verdict = "not measured (under 20 keys)" if p99 is None else "met" if p99 <= 0.15 else "not met"
    print(f"goal: phasewatch p99 <= 150 ms ({verdict})")


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--writer":
        writer(Path(sys.argv[2]), float(sys.argv[3]))
    else:
        main()
