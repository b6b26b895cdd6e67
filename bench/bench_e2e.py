"""End to end, side by side, in a real terminal: phasewatch against lnav, toolong, a minimal
Textual app, a 2 s poller and the file-event floor, in ONE run (the machine is shared: only the
ratios between tools measured in the same minute mean much).

Each program runs in a tmux pane (120x36) and is timed from just before tmux starts it; the screen
is read with ``tmux capture-pane`` every few ms:

* a generated 1M-line hook log (the owner's shape, ~170 MB; its last line's hook is
  ``last-line-hook``): the newest line on screen (phasewatch gets the key ``2`` at once, its
  hook screen); for phasewatch also the whole log read (its notes say ``(1,000,000 lines).``),
  a rare-string filter typed after that (until ``0 of`` shows) and its RSS (VmRSS/VmHWM);
  lnav and toolong have read the whole file when they show its end, their RSS is read then too;
* start-up to first paint: phasewatch on the real-size project (its first frame: the footer's
  ``Overview``; then its data: the project's name) and a minimal Textual app;
* state write -> seen: watchfiles (the app's debounce and step) against a 2 s poller.

Python programs run from a bytecode cache, as installed (one uncounted start of each fills it).

Programs not installed (lnav: ``apt-get install lnav``; toolong: ``pip install toolong`` in any
venv, found on PATH or as ``$TOOLONG``) are skipped with a note. Medians (and p99 where there are
enough samples) go to the screen and to ``bench/results/e2e-<time>.json``.

    .venv/bin/python bench/bench_e2e.py [lines] [runs]
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _project import DATA_MARKS  # noqa: E402  (the project's name and its matrix rows)
from _results import stats  # noqa: E402
from _tmux import Pane, tmux, tmux_missing  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 3
MARK = "last-line-hook"
RARE = "zzz-rare"
PHASEWATCH = str(Path(sys.executable).with_name("phasewatch"))
TOOLONG = os.environ.get("TOOLONG") or shutil.which("tl") or "/tmp/hl_toolong/bin/tl"


def make_log(root: Path, n: int) -> Path:
    """The project: a state file and an ``n``-line log (cached by size under /tmp)."""
    from bench_hooklog_file import write_log  # the owner's shape, seeded
    from phasewatch.core.simulate.files import render_state, write_truncate

    from tests.factories import feature_state

    isdlc = root / ".isdlc"
    isdlc.mkdir(parents=True, exist_ok=True)
    write_truncate(isdlc / "state.json", render_state(feature_state()))
    log = isdlc / "hook-activity.log"
    if not log.exists():
        write_log(log, n - 1)
        last = {
            "ts": "2026-12-31T23:59:59.999Z",
            "hook": MARK,
            "event": "allow",
            "phase": None,
            "agent": None,
            "reason": "the newest line",
        }
        with log.open("a") as f:
            f.write(json.dumps(last, separators=(",", ":")) + "\n")
    return log


# ---------------------------------------------------------------------------- runs


def run_phasewatch(root: Path) -> dict[str, Any]:
    pane = Pane("pw", [PHASEWATCH, str(root)])
    try:
        pane.keys("2")  # the hook screen (typed ahead: read when the app starts)
        newest = pane.wait(re.escape("23:59:59.999"), 60)
        whole = pane.wait(re.escape(f"({N:,} lines)."), 300, every=0.025)
        mem = pane.memory()
        filt = None
        if whole is not None:
            pane.keys("/")
            time.sleep(0.3)
            t = time.monotonic()
            pane.keys(RARE, literal=True)
            end = pane.wait(r"(^|\s)0 of [\d,]+ records\s+\(filtered\)", 60)
            filt = None if end is None else end - (t - pane.t0)
        return {"newest_line_s": newest, "whole_log_s": whole, "filter_rare_s": filt, **mem}
    finally:
        pane.close()


def run_reference(name: str, argv: list[str]) -> dict[str, Any]:
    pane = Pane(name, argv)
    try:
        newest = pane.wait(re.escape(MARK), 120)
        time.sleep(0.5)
        return {"newest_line_s": newest, "whole_log_s": newest, **pane.memory()}
    finally:
        pane.close()


def run_startup(
    argv: list[str], text: str, name: str, data: tuple[str, ...] = ()
) -> dict[str, Any]:
    """Until ``text`` shows (the first frame); then, with ``data``, until every one of those
    shows too (the project's data: a slow read is painted after a first frame)."""
    pane = Pane(name, argv)
    try:
        first = pane.wait(re.escape(text), 30)
        got = {"first_paint_s": first}
        if data:
            seen = [pane.wait(re.escape(mark), 30) for mark in data]  # one after the other:
            got["first_data_s"] = None if None in seen else seen[-1]  # the last is the latest
        time.sleep(0.3)
        return {**got, **pane.memory()}
    finally:
        pane.close()


MINIMAL_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static
class Minimal(App):
    def compose(self):
        yield Header()
        yield Static("minimal-app-ready")
        yield Footer()
Minimal().run()
"""


def event_latencies(n: int = 20) -> dict[str, list[float]]:
    """Write -> seen for watchfiles (the app's debounce and step) and a 2 s poller."""
    import asyncio

    from phasewatch.core.watch import DEFAULT_DEBOUNCE_MS, DEFAULT_STEP_MS
    from watchfiles import awatch

    tmp = Path(tempfile.mkdtemp(prefix="pw-events-"))
    target = tmp / "state.json"
    target.write_text("0")
    writes: list[float] = []
    seen_events: list[float] = []
    seen_poll: list[float] = []
    stop = threading.Event()

    def poller() -> None:
        last = target.stat().st_mtime_ns
        while not stop.is_set():
            time.sleep(2.0)
            st = target.stat().st_mtime_ns
            if st != last:
                last = st
                seen_poll.append(time.monotonic())

    async def watch() -> None:
        async for _ in awatch(
            tmp, debounce=DEFAULT_DEBOUNCE_MS, step=DEFAULT_STEP_MS, stop_event=stop_async
        ):
            seen_events.append(time.monotonic())

    async def main() -> None:
        task = asyncio.create_task(watch())
        await asyncio.sleep(0.5)
        import random

        rng = random.Random(5)
        for i in range(n):
            await asyncio.sleep(rng.uniform(2.1, 2.6))
            writes.append(time.monotonic())
            target.write_text(str(i))
        await asyncio.sleep(2.5)
        stop_async.set()
        stop.set()
        await task

    stop_async = asyncio.Event()
    thread = threading.Thread(target=poller, daemon=True)
    thread.start()
    asyncio.run(main())
    thread.join(3)
    shutil.rmtree(tmp, ignore_errors=True)

    def match(seen: list[float]) -> list[float]:
        out = []
        for w in writes:
            later = [s for s in seen if s >= w]
            if later:
                out.append((later[0] - w) * 1000)
        return out

    return {"event_floor_ms": match(seen_events), "poller_2s_ms": match(seen_poll)}


# ---------------------------------------------------------------------------- report


def fmt(value: float | None, unit: str) -> str:
    return "—" if value is None else f"{value:.2f} {unit}" if unit == "s" else f"{value:.0f} {unit}"


def main() -> None:
    if tmux_missing():
        return
    root = Path(tempfile.gettempdir()) / f"phasewatch-e2e-{N}"
    t = time.perf_counter()
    log = make_log(root, N)
    print(f"log: {N:,} lines, {log.stat().st_size / 1e6:.0f} MB ({time.perf_counter() - t:.1f} s)")
    small = Path(tempfile.mkdtemp(prefix="pw-small-"))
    from _project import make_project

    make_project(small)
    tools: dict[str, list[str] | None] = {
        "lnav": ["lnav", str(log)] if shutil.which("lnav") else None,
        "toolong": [TOOLONG, str(log)] if Path(TOOLONG).exists() else None,
    }
    results: dict[str, Any] = {"phasewatch": [], "startup_phasewatch": [], "startup_minimal": []}
    notes = []
    for name, argv in tools.items():
        if argv is None:
            notes.append(f"{name} not installed: skipped")
        else:
            results[name] = []
    minimal = small / "minimal_app.py"
    minimal.write_text(MINIMAL_APP)
    _results.cached_bytecode()  # as installed (one uncounted start of each program fills it)
    tmux("new-session", "-d", "-s", "keep", "sleep 100000", check=True)
    try:
        run_startup([PHASEWATCH, str(small)], "Overview", "warm-pw")
        run_startup([sys.executable, str(minimal)], "minimal-app-ready", "warm-min")
        if tools["toolong"] is not None:
            run_startup([TOOLONG, str(minimal)], "minimal", "warm-tl")
        rounds(results, tools, root, small, minimal)
    finally:
        tmux("kill-server", capture_output=True)
    results["events"] = event_latencies()
    summary = summarize(results)
    print_table(summary, notes)
    save(results, summary, notes)
    shutil.rmtree(small, ignore_errors=True)


def rounds(
    results: dict[str, Any],
    tools: dict[str, list[str] | None],
    root: Path,
    small: Path,
    minimal: Path,
) -> None:
    for k in range(RUNS):  # interleaved: each round measures every program in the same minute
        # the two start-ups first (after a quiet moment, in turns: neither always starts right
        # after the other or after a large log's program was ended)
        time.sleep(0.5)
        startups = [
            (
                "startup_phasewatch",
                lambda: run_startup([PHASEWATCH, str(small)], "Overview", "pws", DATA_MARKS),
            ),
            (
                "startup_minimal",
                lambda: run_startup([sys.executable, str(minimal)], "minimal-app-ready", "min"),
            ),
        ]
        for key, run in startups[:: 1 if k % 2 == 0 else -1]:
            results[key].append(run())
        results["phasewatch"].append(run_phasewatch(root))
        for name, argv in tools.items():
            if argv is not None:
                results[name].append(run_reference(name, argv))


def save(results: dict[str, Any], summary: dict[str, Any], notes: list[str]) -> None:
    path = _results.save(
        "e2e", {"lines": N, "runs": RUNS, "notes": notes, "summary": summary, "raw": results}
    )
    print(
        f"\nresults: {path.relative_to(ROOT)}  (load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} CPUs: a shared machine, numbers are noisy)"
    )


def summarize(results: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, runs in results.items():
        if name == "events":
            out[name] = {k: stats(v) for k, v in runs.items()}
            continue
        keys = {k for run in runs for k in run}
        out[name] = {k: stats([run.get(k) for run in runs]) for k in sorted(keys)}
    return out


def print_table(s: dict[str, Any], notes: list[str]) -> None:
    def med(tool: str, key: str) -> float | None:
        return s.get(tool, {}).get(key, {}).get("median")

    def ratio(a: float | None, b: float | None) -> str:
        return "" if a is None or b is None or not b else f"{a / b:.2f}x"

    rows = [
        ("1M-line log: newest line on screen", "newest_line_s", "s"),
        ("the whole log read (counts, filters ready)", "whole_log_s", "s"),
        ("RSS with the log loaded (MB)", "VmRSS", "MB"),
        ("peak RSS (MB)", "VmHWM", "MB"),
    ]
    refs = [t for t in ("lnav", "toolong") if t in s]
    print(f"\n{'':<44}{'phasewatch':>12}" + "".join(f"{t:>12}{'ratio':>8}" for t in refs))
    for label, key, unit in rows:
        pw = med("phasewatch", key)
        line = f"{label:<44}{fmt(pw, unit):>12}"
        for t in refs:
            line += f"{fmt(med(t, key), unit):>12}{ratio(pw, med(t, key)):>8}"
        print(line)
    print(
        f"{'filter for a rare string, whole log':<44}{fmt(med('phasewatch', 'filter_rare_s'), 's'):>12}"
    )
    a, b = med("startup_phasewatch", "first_paint_s"), med("startup_minimal", "first_paint_s")
    print(
        f"{'start-up to first paint':<44}{fmt(a, 's'):>12}  minimal Textual app "
        f"{fmt(b, 's')}  ratio {ratio(a, b)}"
    )
    print(
        f"{'start-up to the project data on screen':<44}"
        f"{fmt(med('startup_phasewatch', 'first_data_s'), 's'):>12}"
    )
    a, b = med("startup_phasewatch", "VmRSS"), med("startup_minimal", "VmRSS")
    print(
        f"{'idle RSS (real-size project)':<44}{fmt(a, 'MB'):>12}  minimal Textual app "
        f"{fmt(b, 'MB')}  ratio {ratio(a, b)}"
    )
    ev = s["events"]
    print(
        f"{'file write -> seen (no app)':<44} watchfiles median "
        f"{fmt(ev['event_floor_ms']['median'], 'ms')} p99 {fmt(ev['event_floor_ms']['p99'], 'ms')}"
        f"; 2 s poller median {fmt(ev['poller_2s_ms']['median'], 'ms')} "
        f"p99 {fmt(ev['poller_2s_ms']['p99'], 'ms')}"
    )
    for note in notes:
        print("note:", note)


if __name__ == "__main__":
    main()
