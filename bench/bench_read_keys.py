"""Key press -> screen while phasewatch reads a 1,000,000-line hook log, in a real terminal,
beside a minimal Textual app given the same keys (issue 27, goal 3: the UI answers keys while
it reads, p99 <= 150 ms).

The project is bench_e2e's: a state file and a generated 1M-line log in the owner's shape
(cached under the temporary directory). phasewatch starts on it in a tmux pane (120x36; see
``_tmux.py``); once its first screen shows, the keys ``2`` and ``1`` go in turns, ``GAP_S``
apart (its hook screen, the one reading the log, and its overview), until the hook screen says
the whole log is read (``(1,000,000 lines).``). One start gives the keys of one read; starts
repeat until ``KEYS`` keys were timed. The minimal app (bench_storm's, two screens) gets as many
keys, with nothing to read. A key's latency is timed as in bench_storm. Medians, p99, the
number of starts and each read's length go to the screen and to
``bench/results/readkeys-<time>.json``. Not a test.

    .venv/bin/python bench/bench_read_keys.py [keys]
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _results import stats  # noqa: E402
from _tmux import Pane, tmux, tmux_missing, warm_up  # noqa: E402
from bench_e2e import make_log  # noqa: E402
from bench_storm import MINIMAL_APP, SCREENS, first_screen, press_keys  # noqa: E402

KEYS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 60
LINES = 1_000_000
GAP_S = 0.2
MAX_STARTS = 20
PHASEWATCH = str(Path(sys.executable).with_name("phasewatch"))
WHOLE = re.compile(re.escape(f"({LINES:,} lines)."))


def during_reads(project: Path) -> dict[str, Any]:
    """phasewatch started again and again, keys pressed while it reads, until ``KEYS``."""
    latencies: list[float] = []
    missed, reads = 0, []
    while len(latencies) + missed < KEYS and len(reads) < MAX_STARTS:
        pane = Pane("pw", [PHASEWATCH, str(project)])
        try:
            shown = first_screen(pane, SCREENS["phasewatch"]["1"])
            got, lost = press_keys(
                pane,
                SCREENS["phasewatch"],
                KEYS - len(latencies) - missed,
                GAP_S,
                until=lambda screen: WHOLE.search(screen) is not None,
            )
            whole = time.monotonic() - pane.t0
            latencies += got
            missed += lost
            reads.append({"first_screen_s": shown, "keys": len(got) + lost, "until_s": whole})
        finally:
            pane.close()
    return {"latency_s": latencies, "missed": missed, "reads": reads}


def idle_minimal(app: Path) -> dict[str, Any]:
    pane = Pane("minimal", [sys.executable, str(app)])
    try:
        first_screen(pane, SCREENS["minimal"]["1"])
        latencies, missed = press_keys(pane, SCREENS["minimal"], KEYS, GAP_S)
        return {"latency_s": latencies, "missed": missed}
    finally:
        pane.close()


def main() -> None:
    if tmux_missing():
        return
    root = Path(tempfile.gettempdir()) / f"phasewatch-e2e-{LINES}"  # bench_e2e's, if it ran
    t = time.perf_counter()
    log = make_log(root, LINES)
    print(
        f"log: {LINES:,} lines, {log.stat().st_size / 1e6:.0f} MB ({time.perf_counter() - t:.1f} s)"
    )
    minimal = Path(tempfile.mkdtemp(prefix="pw-readkeys-")) / "minimal_app.py"
    minimal.write_text(MINIMAL_APP)
    _results.cached_bytecode()  # as installed (one uncounted start of each program fills it)
    tmux("new-session", "-d", "-s", "keep", "sleep 100000", check=True)
    try:
        warm_up("pw", [PHASEWATCH, str(root)])
        warm_up("min", [sys.executable, str(minimal)])
        time.sleep(1)
        results = {"phasewatch": during_reads(root), "minimal": idle_minimal(minimal)}
    finally:
        tmux("kill-server", capture_output=True)
        shutil.rmtree(minimal.parent, ignore_errors=True)
    summary = {
        name: {**stats(r["latency_s"]), "missed": r["missed"]} for name, r in results.items()
    }
    reads = results["phasewatch"]["reads"]
    summary["phasewatch"]["starts"] = len(reads)
    summary["phasewatch"]["read_s"] = stats([r["until_s"] for r in reads])
    print_table(summary)
    path = _results.save(
        "readkeys",
        {"keys": KEYS, "gap_s": GAP_S, "lines": LINES, "summary": summary, "raw": results},
    )
    print(f"results: {path.relative_to(ROOT)}")


def print_table(summary: dict[str, Any]) -> None:
    pw, base = summary["phasewatch"], summary["minimal"]

    def ms(v: float | None) -> str:
        return "    —" if v is None else f"{v * 1000:5.0f}"

    print(
        f"{pw['n'] + pw['missed']} keys, {GAP_S * 1000:.0f} ms apart, over {pw['starts']} "
        f"starts of "
        f"phasewatch on a {LINES:,}-line log, each until the whole log was read "
        f"(median {pw['read_s']['median']:.2f} s from start), in tmux 120x36"
    )
    for name, s in (("phasewatch", pw), ("minimal", base)):
        what = "while it reads" if name == "phasewatch" else "idle, same keys"
        print(
            f"  {name:<11} key -> screen median {ms(s['median'])} ms  p99 {ms(s['p99'])} ms  "
            f"max {ms(s['max'])} ms  (missed {s['missed']})  {what}"
        )
    p99 = pw["p99"]
    verdict = "not measured (under 20 keys)" if p99 is None else "met" if p99 <= 0.15 else "not met"
    print(f"goal: phasewatch p99 <= 150 ms while it reads ({verdict})")


if __name__ == "__main__":
    main()
