"""HookLogView with a million records: ingestion, scroll step, filter change, memory.

Headless (``App.run_test``). Records arrive in batches as a tailer delivers them (one append per
poll). Prints numbers and their ratio to the targets (ratio <= 1 is on target). Not a test.

The first screen of a 1M-line log is not measured here: the app reads a large log from its end
and shows the newest lines long before the whole log is held (``bench_hooklog_file.py`` times
that from the file on disk). Holding all of it, from memory, is timed here as a throughput.

    .venv/bin/python bench/bench_hooklog_view.py [records]
"""

from __future__ import annotations

import asyncio
import gc
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from phasewatch.core.hooklog import HookRecord  # noqa: E402
from phasewatch.widgets.hooklog_view import HookLogView  # noqa: E402
from textual.app import App, ComposeResult  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1_000_000
BATCH = 50_000  # about one 8 MiB tailer poll
TARGETS = {"scroll_step_ms": 100.0, "filter_ms": 100.0, "rss_mb": 300.0}

HOOKS = [
    "gate-blocker",
    "iteration-corridor",
    "constitution-validator",
    "phase-loop-controller",
    "state-write-validator",
    "log-skill-usage",
    "delegation-gate",
    "test-watcher",
]
EVENTS = ["same-phase-bypass"] * 6 + ["allow"] * 3 + ["block", "warn", "skip", "timeout_warning"]
PHASES = ["05-test-strategy", "06-implementation", "16-quality-loop", "08-code-review", None]
AGENTS = ["software-developer", "test-design-engineer", "quality-loop-engineer", "qa-engineer"]
REASONS = [
    "V7: state_version {a} < disk {b}",
    "V8: phase_index {c} < disk {d}",
    "Phase status is 'pending', expected 'in_progress'",
    "intra-phase call {a}",
    "tests failing: {c} of {a} (iteration {d})",
    None,
]


def make_batch(start: int, n: int, rng: random.Random) -> list[HookRecord]:
    out = []
    for i in range(start, start + n):
        tmpl = REASONS[i % len(REASONS)]
        v = rng.randrange(2000)
        reason = None if tmpl is None else tmpl.format(a=v, b=v + 2, c=v % 9, d=v % 9 + 1)
        s = i // 10
        out.append(
            HookRecord(
                ts=f"2026-03-{4 + s // 86400 % 20:02d}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:"
                f"{s % 60:02d}.{i % 1000:03d}Z",
                hook=HOOKS[rng.randrange(len(HOOKS))],
                event=EVENTS[rng.randrange(len(EVENTS))],
                phase=PHASES[i // 997 % len(PHASES)],
                agent=AGENTS[i // 1499 % len(AGENTS)],
                reason=reason,
                line_no=i + 1,
                offset=i * 150,
            )
        )
    return out


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Harness(App):
    def compose(self) -> ComposeResult:
        yield HookLogView()


def report(name: str, value: float, unit: str, target_key: str) -> None:
    target = TARGETS[target_key]
    print(
        f"{name:<44} {value:10.1f} {unit:<3} target {target:g} {unit:<3} ratio {value / target:5.2f}"
    )


async def main() -> None:
    rng = random.Random(7)
    base = rss_mb()
    app = Harness()
    async with app.run_test(size=(120, 40)) as pilot:
        view = app.query_one(HookLogView)
        await pilot.pause()
        await _load(pilot, view, rng, base)
        await _scroll(pilot, view)
        await _filter(app, pilot, view)


async def _load(pilot: Pilot, view: HookLogView, rng: random.Random, base: float) -> None:
    """All records in batches, then in one append: ingest, first paint and memory."""
    gen = ingest = 0.0
    t_all = time.perf_counter()
    for start in range(0, N, BATCH):
        t = time.perf_counter()
        records = make_batch(start, min(BATCH, N - start), rng)
        gen += time.perf_counter() - t
        t = time.perf_counter()
        view.append(records)
        ingest += time.perf_counter() - t
        del records
    t = time.perf_counter()
    await pilot.pause()
    first_paint = time.perf_counter() - t
    total = time.perf_counter() - t_all - gen
    gc.collect()
    print(
        f"records {view.total:,} in batches of {BATCH:,}; generating them took {gen:.2f} s (not counted)"
    )
    print(f"  append (ingest + index)                     {ingest * 1000:10.1f} ms")
    print(f"  first paint after the last append           {first_paint * 1000:10.1f} ms")
    label = f"all {view.total:,} records held + painted"
    print(f"{label:<44} {total:10.2f} s   ({view.total / total:,.0f} records/s)")
    rss = rss_mb()
    report("RSS after loading", rss, "MB", "rss_mb")
    print(f"  (RSS before loading {base:.0f} MB; the app and textual included)")

    # single batch of 1M (a caller holding a whole log at once)
    view.clear()
    gc.collect()
    big = make_batch(0, N, rng)
    t = time.perf_counter()
    view.append(big)
    await pilot.pause()
    single = time.perf_counter() - t
    del big
    gc.collect()
    label = f"  one append of {N:,} + paint"
    print(f"{label:<44} {single:10.2f} s")


async def _scroll(pilot: Pilot, view: HookLogView) -> None:
    """Page up from the end, through the widget and through Pilot, and a cold page's render."""
    # scrolling: page up from the end (cold rows every step), repaint awaited
    view.focus()
    steps = []
    for _ in range(30):
        t = time.perf_counter()
        view.action_page_up()
        await pilot.pause()
        steps.append((time.perf_counter() - t) * 1000)
    report(
        "scroll step (page up -> repaint), median",
        statistics.median(steps),
        "ms",
        "scroll_step_ms",
    )
    print(f"  max {max(steps):.1f} ms")
    keys, noop = [], []
    for _ in range(10):
        t = time.perf_counter()
        await pilot.press("pageup")
        await pilot.pause()
        keys.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await pilot.press("x")  # unbound key: Pilot's own cost per key press
        await pilot.pause()
        noop.append((time.perf_counter() - t) * 1000)
    print(
        f"  through Pilot.press('pageup'): median {statistics.median(keys):.1f} ms "
        f"(an unbound key costs {statistics.median(noop):.1f} ms in Pilot alone)"
    )
    # pure render cost of a cold page (what the compositor asks of the widget)
    h = view.scrollable_content_region.height
    cold = []
    for k in range(20):
        view.scroll_to(y=k * 40_000 + 12_345, animate=False, immediate=True, force=True)
        t = time.perf_counter()
        for y in range(h):
            view.render_line(y)
        cold.append((time.perf_counter() - t) * 1000)
    print(f"  render a cold page of {h} rows, median      {statistics.median(cold):10.2f} ms")


async def _filter(app: Harness, pilot: Pilot, view: HookLogView) -> None:
    """Filter changes over all records, each awaited until repainted."""
    # filter changes over all records
    cases = [
        ("events={block}", {"events": {"block"}}),
        (
            "hooks={gate-blocker}, phases={06}",
            {"hooks": {"gate-blocker"}, "phases": {"06-implementation"}},
        ),
        ("text='state_version 41'", {"text": "state_version 41"}),
        ("text='e' (matches almost everything)", {"text": "e"}),
        ("events={block,warn} + text='disk'", {"events": {"block", "warn"}, "text": "disk"}),
        ("no filter", {}),
    ]
    worst = 0.0
    for label, kwargs in cases:
        runs = []
        for _ in range(3):
            view.set_filter(hooks={"(reset)"})
            await pilot.pause()
            t = time.perf_counter()
            view.set_filter(**kwargs)  # a text filter runs in a thread: wait for it
            await app.workers.wait_for_complete()
            await pilot.pause()
            runs.append((time.perf_counter() - t) * 1000)
        ms = statistics.median(runs)
        worst = max(worst, ms)
        print(f"  filter {label:<38} {ms:8.1f} ms  (max {max(runs):6.1f})  shown {view.shown:>9,}")
    report("filter change + repaint (worst median above)", worst, "ms", "filter_ms")


if __name__ == "__main__":
    asyncio.run(main())
