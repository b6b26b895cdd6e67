"""The dashboard with a TDD plan and a plugin registry at their read caps, in a real terminal.

Each file is generated at its read cap (8 MiB, :data:`core.tdd.reader.TDD_MAX_BYTES` and
``core.sources.read_text``'s), the shortest slices and rows the readers take: ``.tdd-progress.md``
with ~125,000 slices, ``PLUGINS.md`` with ~165,000 table rows (and a second registry of the
shortest rows, ~390,000). phasewatch starts in a tmux pane (120x36) and gets the key of the
file's screen at once (``5`` TDD, ``6`` plugins); from process start, the bench times the
screen's data (the board's "N more ... not shown" line) and reads the process's peak RSS
(VmHWM) then. A second start gets ``q`` one second in, while the file is read: the time until
the process is gone.

Goals (issue 41): data or a clear refusal within 10 s and 300 MB; ``q`` within 2 s. Results go
to ``bench/results/readcaps-<time>.json``.

    .venv/bin/python bench/bench_read_caps.py [runs]
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _results import stats  # noqa: E402
from _tmux import Pane, tmux_missing, warm_up  # noqa: E402

CAP = 8 * 1024 * 1024
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
PHASEWATCH = str(Path(sys.executable).with_name("phasewatch"))
TIMEOUT_S = 60.0
QUIT_AFTER_S = 1.0


def _fill(path: Path, head: list[str], item: Any) -> int:
    """``head`` then ``item(i)`` for i = 1, 2, ... until the file passes the cap; the count."""
    out, size, i = list(head), sum(len(x.encode()) + 1 for x in head), 0
    while size <= CAP + 4096:
        i += 1
        text = item(i)
        out.append(text)
        size += len(text.encode()) + 1
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return i


def make_tdd(root: Path) -> int:
    root.mkdir(parents=True, exist_ok=True)
    head = ["# TDD Task: a plan at the read cap", "", "**Approved:** 2026-12-01T09:00:00Z", ""]
    return _fill(
        root / ".tdd-progress.md",
        head,
        lambda i: f"## Slice {i}: s{i}\n**Status:** {'done' if i % 3 else 'pending'}\n",
    )


def make_plugins(root: Path, short: bool) -> int:
    root.mkdir(parents=True, exist_ok=True)
    (root / "plugins").mkdir(exist_ok=True)
    head = ["# Plugin Registry", "", "| Plugin Name | Status | Version | Last Updated |"]
    head.append("|---|---|---|---|")
    if short:
        return _fill(root / "PLUGINS.md", head, lambda i: f"|P{i}|✅ Working|")
    return _fill(
        root / "PLUGINS.md",
        head,
        lambda i: f"| Plugin{i} | ✅ Working | 1.0.{i % 10} | 2026-01-{1 + i % 28:02d} |",
    )


DATA = re.compile(r"more (?:slices )?not shown")


def _peak(pane: Pane) -> float | None:
    return pane.memory().get("VmHWM")


def show_data(root: Path, key: str) -> dict[str, Any]:
    pane = Pane(f"caps-{key}", [PHASEWATCH, str(root)])
    try:
        pane.wait("Overview", 20, every=0.02)
        pane.keys(key)
        took = pane.wait(DATA, TIMEOUT_S, every=0.05)
        peak = _peak(pane)
        if took is None:
            print(pane.screen())
        return {"data_s": took, "peak_mb": peak}
    finally:
        pane.close()


def quit_while_loading(root: Path, key: str) -> float | None:
    """Seconds from ``q`` until the process is gone (None: not within 10 s)."""
    pane = Pane(f"quit-{key}", [PHASEWATCH, str(root)])
    try:
        pane.wait("Overview", 20, every=0.02)
        pane.keys(key)
        time.sleep(QUIT_AFTER_S)
        t = time.monotonic()
        pane.keys("q")
        end = t + 10
        while time.monotonic() < end:
            if not Path(f"/proc/{pane.pid}").exists() or _zombie(pane.pid):
                return time.monotonic() - t
            time.sleep(0.01)
        return None
    finally:
        pane.close()


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def main() -> None:
    if tmux_missing():
        return
    _results.cached_bytecode()
    with tempfile.TemporaryDirectory(prefix="pw-caps-") as tmp:  # 3 files of 8 MiB, removed
        measure_all(Path(tmp))


def measure_all(base: Path) -> None:
    cases = {
        "tdd": (make_tdd(base / "tdd"), base / "tdd", "5", "slices"),
        "plugins": (make_plugins(base / "pfs", False), base / "pfs", "6", "rows"),
        "plugins_short": (make_plugins(base / "short", True), base / "short", "6", "rows"),
    }
    warm_up("caps", [PHASEWATCH, str(base / "tdd")])
    got: dict[str, dict[str, list[Any]]] = {
        k: {"data_s": [], "peak_mb": [], "quit_s": []} for k in cases
    }
    for _ in range(RUNS):  # interleaved: the machine is shared
        for name, (_n, root, key, _what) in cases.items():
            shown = show_data(root, key)
            got[name]["data_s"].append(shown["data_s"])
            got[name]["peak_mb"].append(shown["peak_mb"])
            got[name]["quit_s"].append(quit_while_loading(root, key))
    summary = {}
    for name, (n, _root, _key, what) in cases.items():
        s = {k: stats(v) for k, v in got[name].items()}
        summary[name] = {"items": n, "what": what, **s}
        print(
            f"{name:14} {n:>8,} {what}: data {s['data_s']['median']} s "
            f"(max {s['data_s']['max']}), peak {s['peak_mb']['median']} MB "
            f"(max {s['peak_mb']['max']}), q {s['quit_s']['median']} s (max {s['quit_s']['max']})"
        )
    path = _results.save(
        "readcaps", {"runs": RUNS, "cap_bytes": CAP, "summary": summary, "raw": got}
    )
    print(f"-> {path}")


if __name__ == "__main__":
    main()
