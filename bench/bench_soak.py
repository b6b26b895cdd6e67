"""A compressed day beside the dashboard: its RSS as 300,000 hook lines and 2,000 state writes go by.

Issue 41 item 2: a session's memory is capped for every kind of thing it keeps (README
"Bounds"); after warm-up the dashboard grows by at most 30 MB. The writer is this process, as the
owners write: each hook line appended on its own and the log rewritten in place with its newest
500 lines once past 1 MiB (``logHookEvent``, ``core.simulate.files.HookLog``), and
``state.json`` written with ``state_version`` = disk + 1 (``writeState``), each write a new
version (its last history entry rewritten: the timeline keeps every write up to its caps).

phasewatch runs in a tmux pane (120x36, ``_tmux.py``) on the hook screen (key ``2``: its view
holds the rows). Its RSS (``/proc``) is sampled every ``--every`` seconds; the warm-up is the
first tenth of the lines. Printed: the curve, RSS at warm-up's end, the peak after it, the end,
and growth = peak after warm-up - RSS at warm-up's end (goal <= 30 MB).

    make soak                       # 300,000 lines, 2,000 writes, paced over 5 minutes
    .venv/bin/python bench/bench_soak.py --lines 60000 --writes 400 --minutes 1
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _project import DATA_MARK, make_project  # noqa: E402
from _tmux import Pane, tmux, tmux_missing, warm_up  # noqa: E402

PHASEWATCH = str(Path(sys.executable).with_name("phasewatch"))
GOAL_MB = 30.0


def soak(project: Path, lines: int, writes: int, seconds: float, every: float) -> dict:
    from phasewatch.core.simulate.files import HookLog, write_state

    state_path = project / ".isdlc" / "state.json"
    state = json.loads(state_path.read_bytes())
    history = state.setdefault("history", [])
    history.append({})
    log = HookLog(project / ".isdlc" / "hook-activity.log")
    argv = [PHASEWATCH, str(project)]
    warm_up("soak", argv)
    pane = Pane("soak", argv)
    curve: list[tuple[float, int, int, float]] = []
    try:
        if pane.wait(DATA_MARK, timeout=60, every=0.05) is None:
            raise SystemExit("phasewatch showed no data within 60 s")
        pane.keys("2")
        pane.wait("Hook activity", timeout=30, every=0.05)
        per_write = max(1, lines // max(1, writes))
        batch = max(1, lines // max(1, round(seconds / 0.01)))  # lines per 10 ms tick
        start = time.monotonic()
        next_sample = start
        written = state_writes = 0
        while written < lines:
            stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
            for _ in range(min(batch, lines - written)):
                log.append(
                    stamp,
                    "phase-loop-controller",
                    "same-phase-bypass",
                    "06-implementation",
                    "software-developer",
                    f"intra-phase delegation {written}",
                )
                written += 1
                if written % per_write == 0 and state_writes < writes:
                    history[-1] = {"timestamp": stamp, "agent": "soak", "action": f"w{written}"}
                    write_state(state_path, state)
                    state_writes += 1
            now = time.monotonic()
            if now >= next_sample:
                rss = pane.memory().get("VmRSS", float("nan"))
                curve.append((now - start, written, state_writes, rss))
                next_sample = now + every
            time.sleep(max(0.0, start + written / lines * seconds - time.monotonic()))
        time.sleep(every)  # the last lines read
        rss = pane.memory().get("VmRSS", float("nan"))
        curve.append((time.monotonic() - start, written, state_writes, rss))
        alive = pane.screen().strip() != ""
    finally:
        pane.close()
    return {"curve": curve, "rotations": log.rotations, "alive": alive}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=300_000)
    parser.add_argument("--writes", type=int, default=2_000)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--every", type=float, default=5.0, help="seconds between samples")
    args = parser.parse_args(argv)
    if tmux_missing():
        return
    _results.cached_bytecode()
    tmux("new-session", "-d", "-s", "keep", "sleep 100000", check=True)
    project = Path(tempfile.mkdtemp(prefix="pw-soak-"))
    try:
        make_project(project)
        got = soak(project, args.lines, args.writes, args.minutes * 60, args.every)
    finally:
        tmux("kill-server", capture_output=True)
        shutil.rmtree(project, ignore_errors=True)
    curve = got["curve"]
    print(f"{'s':>7} {'hook lines':>11} {'state writes':>13} {'RSS MB':>8}")
    for t, lines, writes, rss in curve:
        print(f"{t:7.1f} {lines:11,} {writes:13,} {rss:8.1f}")
    warm = next((c for c in curve if c[1] >= args.lines // 10), curve[-1])
    after = [c[3] for c in curve if c[0] >= warm[0]]
    peak = max(after)
    growth = peak - warm[3]
    print(
        f"{got['rotations']} rotations at 1 MiB; RSS at warm-up's end ({warm[1]:,} lines) "
        f"{warm[3]:.1f} MB, peak after {peak:.1f}, end {curve[-1][3]:.1f}; "
        f"growth {growth:.1f} MB (goal <= {GOAL_MB:g}){'' if got['alive'] else '; SCREEN EMPTY'}"
    )
    path = _results.save(
        "soak",
        {
            "lines": args.lines,
            "writes": args.writes,
            "seconds": args.minutes * 60,
            "rotations": got["rotations"],
            "curve": curve,
            "warm_mb": warm[3],
            "peak_after_mb": peak,
            "growth_mb": growth,
        },
    )
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
