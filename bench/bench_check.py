"""`phasewatch check` on a 7.5 MB state, against reading the same file with `json.load`.

Both are timed from process start (a fresh interpreter each run, wall clock, medians), so the
ratio includes start-up and imports: the part a script calling `phasewatch check` pays. Goal
(issue 27 item 2): ratio <= 2. The state is the real-size project's (bench/_project.py: one the
framework's own code wrote) with its ``history`` and ``skill_usage_log`` arrays grown to 7.5 MB,
written the owner's way (``JSON.stringify(x, null, 2)``). The rows run interleaved."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)
from _project import make_project  # noqa: E402

TARGET_BYTES = 7_500_000
GOAL = 2.0


def grow_state(state_path: Path, target: int = TARGET_BYTES) -> int:
    """Append realistic entries to the state's logs until the file holds ``target`` bytes."""
    from phasewatch.core.simulate.files import render_state, write_truncate

    state = json.loads(state_path.read_bytes())
    history, skills = state["history"], state["skill_usage_log"]
    seed_h, seed_s = history[-1], skills[-1]
    base_h, base_s = len(history), len(skills)

    def grow(n: int) -> int:
        del history[base_h:], skills[base_s:]
        for i in range(n):
            history.append({**seed_h, "action": f"{seed_h['action']} (iteration {i})"})
            skills.append({**seed_s, "skill_id": f"TEST-{i % 997:03d}"})
        return len(render_state(state))

    size, n = len(render_state(state)), 1000
    grown = grow(n)
    n = max(0, round(n * (target - size) / max(1, grown - size)))  # entries grow linearly
    grow(n)
    data = render_state(state)
    write_truncate(state_path, data)
    return len(data)


def timed(cmd: list[str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        samples.append(time.perf_counter() - t0)
    return samples


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        state_path = make_project(Path(tmp))
        (state_path.parent / "hook-activity.log").unlink()  # the state alone is measured
        size = grow_state(state_path)
        project = str(state_path.parent.parent)
        load = f"import json; json.load(open({str(state_path)!r}))"
        rows = {
            "python -c pass": [py, "-c", "pass"],
            "python -c json.load": [py, "-c", load],
            "phasewatch check": [py, "-m", "phasewatch", "check", project],
            "phasewatch check --json": [py, "-m", "phasewatch", "check", project, "--json"],
        }
        _results.cached_bytecode()
        for cmd in rows.values():
            timed(cmd, 1)  # fills the cache
        samples: dict[str, list[float]] = {name: [] for name in rows}
        for _ in range(args.runs):  # interleaved: a shared machine's slow spell hits every row
            for name, cmd in rows.items():
                samples[name] += timed(cmd, 1)
        medians = {name: statistics.median(times) for name, times in samples.items()}
    print(
        f"state.json {size / 1e6:.1f} MB, medians of {args.runs} interleaved runs from process start"
    )
    base = medians["python -c json.load"]
    for name, seconds in medians.items():
        print(f"  {name:<26} {seconds * 1000:7.1f} ms  {seconds / base:5.2f}x json.load")
    print(f"ratio check / json.load: {medians['phasewatch check'] / base:.2f} (goal <= {GOAL:g})")
    path = _results.save("check", {"state_mb": size / 1e6, "runs": args.runs, "median_s": medians})
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
