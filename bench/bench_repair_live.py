"""A stale-write repair beside a live workflow: attempts, applied, refused, plans made.

Method
------
* A temp project holds a mid-workflow state (tests/factories: a feature workflow at
  06-implementation, 9 phases, a real-size record per phase).
* A HOOK PROCESS writes the state the owner's way (read, change, ``state_version`` + 1,
  truncate-then-write: ``core.simulate.files``) every 0.15-1 s (seeded): it appends a
  ``history`` entry and a ``skill_usage_log`` entry, as the framework's hooks do between
  phase steps.
* Each ROUND writes a sub-agent's stale copy (the workflow at 04-design, its own
  ``state_version``) over the file, then runs ``phasewatch repair --against SEEN --yes --json``
  as the user would (a new process), SEEN being the file just before the stale write. The round
  counts the outcome and how many plans the command made (``planned again``: a field it planned
  or read moved before its write).

Before this round's fix the compare-and-swap held ``state_version`` too, and beside a hook that
writes every second every attempt was refused. Prints the counts. Not a test.

    .venv/bin/python bench/bench_repair_live.py [rounds]
"""

from __future__ import annotations

import copy
import json
import multiprocessing as mp
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from phasewatch.core.simulate.files import render_state, write_truncate  # noqa: E402

from tests import factories  # noqa: E402


def hook(path: str, stop: mp.Event, seed: int) -> None:  # type: ignore[valid-type]
    rng = random.Random(seed)
    n = 0
    while not stop.is_set():  # type: ignore[attr-defined]
        time.sleep(rng.uniform(0.15, 1.0))
        try:
            doc = json.loads(Path(path).read_text())
        except (OSError, ValueError):
            continue  # caught mid-write: the next beat
        n += 1
        stamp = f"2099-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        doc.setdefault("history", []).append({"timestamp": stamp, "action": f"hook {n}"})
        doc.setdefault("skill_usage_log", []).append({"timestamp": stamp, "skill_id": f"S{n}"})
        doc["state_version"] = int(doc.get("state_version") or 0) + 1
        write_truncate(Path(path), render_state(doc))


def read(path: Path) -> dict:
    """The file, read again while the hook is half-way through a write."""
    for _ in range(100):
        try:
            return json.loads(path.read_text())
        except ValueError:
            time.sleep(0.005)
    raise RuntimeError("the file stayed unreadable")


def main(rounds: int = 20) -> None:
    steps = dict(factories.walk("feature"))
    good, old = steps["3c-prime 06-implementation"], steps["3c-prime 04-design"]
    root = Path(tempfile.mkdtemp(prefix="pw-repair-live-"))
    (root / ".isdlc").mkdir()
    state = root / ".isdlc" / "state.json"
    write_truncate(state, render_state(good))
    stop = mp.Event()
    writer = mp.Process(target=hook, args=(str(state), stop, 7), daemon=True)
    writer.start()
    counts: Counter[str] = Counter()
    plans: list[int] = []
    seconds: list[float] = []
    try:
        for _ in range(rounds):
            time.sleep(0.3)
            seen = read(state)
            (root / "seen.json").write_text(json.dumps(seen))
            stale = copy.deepcopy(old)  # the sub-agent's copy, its own (older) version
            write_truncate(state, render_state(stale))
            t0 = time.monotonic()
            run = subprocess.run(
                [sys.executable, "-m", "phasewatch", "repair", str(root), "--against",
                 str(root / "seen.json"), "--yes"],
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            seconds.append(time.monotonic() - t0)
            plans.append(1 + run.stdout.count("planned again"))
            outcome = {0: "applied", 3: "refused (conflict)"}.get(run.returncode, "other")
            counts[outcome] += 1
            if outcome == "other":
                print(run.stdout[-500:], run.stderr[-500:])
            # the controller puts its state back for the next round (whatever the repair did)
            doc = read(state)
            back = copy.deepcopy(good)
            back["state_version"] = int(doc["state_version"]) + 1
            write_truncate(state, render_state(back))
    finally:
        stop.set()
        writer.join(5)
    print(f"repair beside a hook writing every 0.15-1 s: {rounds} attempts")
    for key in ("applied", "refused (conflict)", "other"):
        print(f"  {key:20} {counts[key]}")
    print(f"  plans made per attempt: max {max(plans)}, total {sum(plans)}")
    print(f"  seconds per attempt (process start to exit): median "
          f"{sorted(seconds)[len(seconds) // 2]:.2f}, max {max(seconds):.2f}")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
