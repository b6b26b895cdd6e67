"""The dashboard at size (issue 41): states of 1,000 and 10,000 phases and one at the state's
read cap, each opened from process start in a real terminal (tmux, ``bench/_tmux.py``):

* **data**: seconds until the data is on screen (the current phase's row in the location
  matrix, the last of the first frame's parts), and the CPU seconds used by then (the machine
  is shared: wall time varies with its load, CPU time much less);
* **RSS**: the peak (``VmHWM``) when the data shows and 3 s later (the log, the repair offers
  and the watcher's first pass come after the data);
* **q**: seconds from ``q`` to the end of the process, pressed while the state is still read
  (0.5 s after start) and once the data shows.

The goals (issue 41): 10,000 phases within 5 s and 200 MB; at the read cap (or its refusal)
within 10 s and 300 MB; ``q`` within 2 s whatever is loading. Each figure is printed with its
ratio to its goal (< 1: met). The minimal Textual app (``bench/bench_startup.py``'s: a header,
a line, a footer) is measured beside them: the floor any Textual program pays.

The states are ``bench/bench_audit_scale.py``'s (a real phase record repeated, its history and
skill log as long as the phases), written as the framework writes (``JSON.stringify(x, null,
2)``). "cap": the most phases of that shape the 32 MiB read cap (``MAX_JSON_BYTES``) takes;
"over the cap": 5 % more, which the dashboard refuses with a finding. "100k lean": 100,000
phases whose records hold a status only (11 MB, under the cap): the most rows per byte. A state
of more than ``MAX_PHASES`` phases (20,000) is refused too, whatever its size: "cap" and "lean"
measure that refusal.

Run: ``.venv/bin/python bench/bench_dashboard_size.py [SIZE ...]`` (sizes: 1k 10k cap over
lean; default all)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _results import cached_bytecode, save  # noqa: E402
from _tmux import Pane, tmux_missing, warm_up  # noqa: E402
from bench_audit_scale import big_state  # noqa: E402
from bench_startup import MINIMAL_APP, MINIMAL_MARK, phasewatch_cmd  # noqa: E402
from phasewatch.core.sources import MAX_PHASES  # noqa: E402

GOALS = {  # (seconds to data, MB of peak RSS) per size; q: QUIT_GOAL_S at every size
    "10k": (5.0, 200.0),
    "cap": (10.0, 300.0),
    "over": (10.0, 300.0),
    "lean": (10.0, 300.0),
}
QUIT_GOAL_S = 2.0
TIMEOUT_S = 60.0
SETTLE_S = 3.0
QUIT_EARLY_S = 0.5


def state_bytes(state: dict) -> bytes:
    """The state as the framework writes it (``JSON.stringify(state, null, 2)``)."""
    return json.dumps(state, indent=2, ensure_ascii=False).encode()


def cap_phases() -> int:
    """The most phases of ``big_state``'s shape whose state fits the read cap."""
    from phasewatch.core.sources import MAX_JSON_BYTES

    a, b = len(state_bytes(big_state(1000))), len(state_bytes(big_state(2000)))
    per = (b - a) / 1000
    n = int(1000 + (MAX_JSON_BYTES - a) / per)
    while len(state_bytes(big_state(n))) > MAX_JSON_BYTES:
        n -= max(1, n // 200)
    return n


def lean_state(n: int) -> dict:
    """``n`` phases whose records hold a status only (no history or skill log entries)."""
    from tests import factories as F

    state = F.feature_state()
    names = [f"{k:06d}-phase" for k in range(n)]
    state["phases"] = {
        name: {"status": "completed" if k < n - 1 else "in_progress"}
        for k, name in enumerate(names)
    }
    aw = state["active_workflow"]
    aw["phases"] = names
    aw["phase_status"] = {name: state["phases"][name]["status"] for name in names}
    aw["current_phase"] = state["current_phase"] = names[-1]
    aw["current_phase_index"] = n - 1
    return state


def make(where: Path, state: dict) -> int:
    (where / ".isdlc").mkdir(parents=True)
    raw = state_bytes(state)
    (where / ".isdlc" / "state.json").write_bytes(raw)
    return len(raw)


def measure(cmd: list[str], cwd: Path, mark: str) -> dict[str, float | None]:
    """One start until ``mark`` shows, then ``SETTLE_S``; then ``q``."""
    pane = Pane("size", cmd, cwd=cwd)
    out: dict[str, float | None] = {"data": None}
    try:
        out["data"] = pane.wait(mark, TIMEOUT_S, every=0.05)
        out["cpu"] = pane.cpu_seconds()
        out["hwm_data"] = pane.memory().get("VmHWM")
        time.sleep(SETTLE_S)
        out["hwm"] = pane.memory().get("VmHWM")
        out["quit"] = quit_time(pane)
    finally:
        pane.close()
    return out


def running(pid: int) -> bool:
    """Whether ``pid`` still runs: a process that has ended but that tmux has not reaped yet
    (a zombie, for up to 1.5 s here) has ended."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def quit_time(pane: Pane, limit: float = 15.0) -> float | None:
    """Seconds from ``q`` until the process has ended (None: not within ``limit``)."""
    t = time.monotonic()
    pane.keys("q")
    while running(pane.pid) and time.monotonic() - t < limit:
        time.sleep(0.01)
    return None if running(pane.pid) else time.monotonic() - t


def quit_early(cmd: list[str], cwd: Path) -> float | None:
    """``q`` pressed ``QUIT_EARLY_S`` after start: while the state is being read."""
    pane = Pane("early", cmd, cwd=cwd)
    try:
        time.sleep(QUIT_EARLY_S)
        return quit_time(pane)
    finally:
        pane.close()


def fmt(value: float | None, unit: str, goal: float | None = None) -> str:
    if value is None:
        return f"{'—':>8}"
    text = f"{value:7.2f} {unit}" if unit == "s" else f"{value:6.0f} {unit}"
    return text + (f" ({value / goal:.2f}x)" if goal else "")


def main(wanted: list[str]) -> None:
    if tmux_missing():
        return
    cached_bytecode()
    load = os.getloadavg()
    print(f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs)")
    cmd = phasewatch_cmd()
    with tempfile.TemporaryDirectory(prefix="pw-size-") as tmp:
        base = Path(tmp)
        minimal = base / "minimal_app.py"
        minimal.write_text(MINIMAL_APP)
        mini_cmd = [sys.executable, str(minimal)]
        warm_up("pw", cmd)
        warm_up("minimal", mini_cmd)
        mini = measure(mini_cmd, base, MINIMAL_MARK.decode())
        print(
            f"minimal Textual app: on screen {fmt(mini['data'], 's')}, cpu {fmt(mini.get('cpu'), 's')}, "
            f"peak {fmt(mini.get('hwm'), 'MB')}, q {fmt(mini.get('quit'), 's')}"
        )
        cases: list[tuple[str, str, int]] = []
        if "cap" in wanted or "over" in wanted:
            n_cap = cap_phases()
        for name in wanted:
            if name == "1k":
                cases.append(("1k", "big", 1000))
            elif name == "10k":
                cases.append(("10k", "big", 10_000))
            elif name == "cap":
                cases.append(("cap", "big", n_cap))
            elif name == "over":
                cases.append(("over", "big", n_cap + n_cap // 20))
            elif name == "lean":
                cases.append(("lean", "lean", 100_000))
        results: dict[str, dict[str, object]] = {}
        for name, shape, n in cases:
            where = base / name
            size = make(where, big_state(n) if shape == "big" else lean_state(n))
            # past the byte cap, or past the phase cap (core.sources.MAX_PHASES): a refusal
            refused = name == "over" or n > MAX_PHASES
            mark = "READ-TOO-LARGE" if refused else f"{n - 1:06d}-phase"
            got = measure(cmd, where, mark)
            early = quit_early(cmd, where)
            goal_s, goal_mb = GOALS.get(name, (None, None))
            label = f"{name:>4}: {n:>7,} phases, {size / 2**20:5.1f} MiB"
            what = "refusal" if refused else "data"
            print(
                f"{label}  {what} {fmt(got['data'], 's', goal_s)}  cpu {fmt(got.get('cpu'), 's')}"
                f"  peak at data {fmt(got.get('hwm_data'), 'MB')}"
                f", +{SETTLE_S:.0f} s {fmt(got.get('hwm'), 'MB', goal_mb)}"
                f"  q {fmt(got.get('quit'), 's', QUIT_GOAL_S)}"
                f", q while reading {fmt(early, 's', QUIT_GOAL_S)}",
                flush=True,
            )
            results[name] = {
                "phases": n,
                "bytes": size,
                **got,
                "quit_early": early,
                "refused": refused,
            }
        # (read back by bench/readme_table.py for the README's table)
        print(f"-> {save('dashsize', {'cases': results, 'goals': GOALS, 'minimal': mini})}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["1k", "10k", "cap", "over", "lean"])
