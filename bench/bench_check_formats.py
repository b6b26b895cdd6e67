"""`phasewatch check` in every output format, against `--format json` on the same project.

Issue 41 item 1: every format within 3x json (SARIF and GitHub commands name each finding's line,
found in one pass over the file: core/export.py ``lines_of``). Timed from process start (a fresh
interpreter each run, wall clock, medians of interleaved runs), on:

* ``phases-N``: a state of N phases plus N/2 stale ``phases`` records the workflow does not run
  (each one a finding with its own path), written the owner's way;
* ``state-7.5MB``: the real-size project's state grown to 7.5 MB (bench/bench_check.py);
* ``plugins-N``: a plugin registry of N rows (bench/bench_audit_scale.py), one finding a few rows.

Run: ``.venv/bin/python bench/bench_check_formats.py [--runs 3] [--phases 1000 4000]``."""

from __future__ import annotations

import argparse
import copy
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
from bench_audit_scale import big_state, registry_md  # noqa: E402
from bench_check import grow_state  # noqa: E402

GOAL = 3.0
FORMATS = ("json", "text", "sarif", "github")


def wide_state(n: int) -> dict:
    """``n`` phases run, ``n // 2`` stale records beside them: a finding with its own path each."""
    state = big_state(n)
    template = next(iter(state["phases"].values()))
    for k in range(n // 2):
        state["phases"][f"{k:06d}-stale"] = dict(copy.deepcopy(template), status="completed")
    return state


def projects(tmp: Path, phases: list[int], rows: list[int]) -> dict[str, Path]:
    from phasewatch.core.simulate.files import render_state

    made: dict[str, Path] = {}
    for n in phases:
        root = tmp / f"phases-{n}"
        (root / ".isdlc").mkdir(parents=True)
        (root / ".isdlc" / "state.json").write_bytes(render_state(wide_state(n)))
        made[f"phases-{n}"] = root
    state_path = make_project(tmp / "real")
    (state_path.parent / "hook-activity.log").unlink()
    grow_state(state_path)
    made["state-7.5MB"] = state_path.parent.parent
    for n in rows:
        root = tmp / f"plugins-{n}"
        (root / "plugins").mkdir(parents=True)
        (root / "PLUGINS.md").write_text(registry_md(n))
        made[f"plugins-{n}"] = root
    return made


def run(cmd: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, check=False)
    return time.perf_counter() - t0, len(done.stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phases", type=int, nargs="*", default=[1000, 4000])
    parser.add_argument("--rows", type=int, nargs="*", default=[20000])
    args = parser.parse_args(argv)
    py = sys.executable
    _results.cached_bytecode()
    results: dict[str, dict[str, float]] = {}
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, root in projects(Path(tmp), args.phases, args.rows).items():
            cmds = {f: [py, "-m", "phasewatch", "check", str(root), "--format", f] for f in FORMATS}
            findings = len(
                json.loads(subprocess.run(cmds["json"], capture_output=True).stdout)["findings"]
            )
            for cmd in cmds.values():
                run(cmd)  # fills the bytecode cache
            samples: dict[str, list[float]] = {f: [] for f in FORMATS}
            for _ in range(args.runs):  # interleaved: a slow spell of a shared machine hits all
                for f, cmd in cmds.items():
                    samples[f].append(run(cmd)[0])
            medians = {f: statistics.median(s) for f, s in samples.items()}
            results[name] = medians
            base = medians["json"]
            cells = "  ".join(f"{f} {medians[f]:6.2f} s {medians[f] / base:4.2f}x" for f in FORMATS)
            print(f"{name:<14} {findings:>6} findings  {cells}", flush=True)
            worst = max(worst, *(m / base for m in medians.values()))
    print(f"worst ratio to --format json: {worst:.2f} (goal <= {GOAL:g}); medians of {args.runs}")
    path = _results.save("check_formats", {"runs": args.runs, "median_s": results, "worst": worst})
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
