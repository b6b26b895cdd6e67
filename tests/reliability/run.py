"""``make reliability``: the writer against a racing owner, a second writer and planted links.

Prints, per case: cases tried, crashes, hangs, data lost, misreports; exits 1 on any of the last
four. ``RELIABILITY_SCALE=small`` runs a CI-sized pass. Not part of pytest: it measures.

* ``owner-race``: an owner emulation (read, modify, truncate+write, no lock, random gaps) races
  the writer's decisions. *Data lost*: an owner write missing from the file and not reported by
  a race outcome; a decision reported kept (``version_after`` set) missing from the file.
  *Misreport*: a decision reported not kept that is in the file.
* ``slow-owner``: an owner whose read-modify-write takes up to 200 ms (it read before our write
  and writes its old copy after the writer's own look-again) against decisions watched with
  ``confirm`` for a second. *Data lost*: a decision reported ``applied`` that is not in the final
  file (a revert nobody was told of). *Misreport*: one reported ``reverted`` that is in it.
* ``two-writers``: two phasewatch processes bump counters; any lost bump is data lost.
* ``links``: state/journal/temp/lock/progress linked outside, a FIFO at each; anything written
  outside is data lost, an ``applied`` through a link a misreport, a blocked call a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from phasewatch.core import decide, protocol

SMALL = os.environ.get("RELIABILITY_SCALE") == "small"
HERE = Path(__file__).resolve().parent

OWNER = r"""
import json, random, sys, time
path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(seed)
done = 0
while done < count:
    time.sleep(random.uniform(0, 0.004))
    try:
        with open(path, encoding="utf-8") as fh:
            state = json.loads(fh.read())
    except ValueError:
        continue
    state["counters"]["owner_writes"] += 1
    aw = state["active_workflow"]
    aw.setdefault("supervised_review", {"phase": "06", "status": "gate_presented"})
    state["state_version"] += 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(state, indent=2))
    done += 1
"""


def _state() -> dict:
    return {
        "state_version": 1,
        "counters": {"owner_writes": 0},
        "active_workflow": {"review_history": [], "phases": ["06"], "current_phase": "06",
                            "supervised_review": {"phase": "06", "status": "gate_presented"}},
    }  # fmt: skip


def _project(tmp: Path, program: str) -> tuple[Path, Path]:
    (tmp / ".isdlc").mkdir()
    path = tmp / ".isdlc" / "state.json"
    path.write_text(json.dumps(_state(), indent=2))
    script = tmp / "program.py"
    script.write_text(program)
    return path, script


def owner_race(tmp: Path) -> dict[str, int]:
    owner_writes = 300 if SMALL else 1200
    path, script = _project(tmp, OWNER)
    owner = subprocess.Popen([sys.executable, str(script), str(path), str(owner_writes), "3"])
    tried = kept = reported_races = crashes = 0
    while owner.poll() is None:
        try:
            seen = json.loads(path.read_text())
        except ValueError:
            continue
        if "supervised_review" not in seen["active_workflow"]:
            continue
        try:
            result = decide.decide_review(path, "continue", seen=seen, who="reliability")
        except Exception:  # a crash is what this counts
            crashes += 1
            continue
        tried += 1
        kept += result.version_after is not None and result.outcome == "applied"
        reported_races += result.outcome == "race"
    owner.wait(timeout=120)
    final = json.loads(path.read_text())
    history = len(final["active_workflow"]["review_history"])
    lost_owner = owner_writes - final["counters"]["owner_writes"]
    # an owner write lost counts as data lost unless a race outcome reported it
    lost = max(0, lost_owner - reported_races) + max(0, kept - history)
    misreports = max(0, history - kept - reported_races)
    return {"cases": tried, "crashes": crashes, "hangs": 0, "data lost": lost,
            "misreports": misreports, "owner writes": owner_writes,
            "owner writes lost (reported)": lost_owner, "decisions kept": kept}  # fmt: skip


SLOW_OWNER = r"""
import json, random, sys, time
path, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(seed)
done = 0
while done < count:
    try:
        with open(path, encoding="utf-8") as fh:
            state = json.loads(fh.read())
    except ValueError:
        time.sleep(0.001)
        continue
    time.sleep(random.uniform(0, 0.2))  # a hook thinking between its read and its write
    state["counters"]["owner_writes"] += 1
    aw = state["active_workflow"]
    aw.setdefault("supervised_review", {"phase": "06", "status": "gate_presented"})
    state["state_version"] += 1
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(state, indent=2))
    done += 1
"""


def slow_owner(tmp: Path) -> dict[str, int]:
    owner_writes = 40 if SMALL else 400
    path, script = _project(tmp, SLOW_OWNER)
    owner = subprocess.Popen([sys.executable, str(script), str(path), str(owner_writes), "5"])
    outcomes: list[tuple[str, str]] = []  # (the decision's timestamp, its final outcome)
    crashes = 0
    real_now = protocol.now_iso
    try:
        while owner.poll() is None:
            try:
                seen = json.loads(path.read_text())
            except ValueError:
                continue
            if "supervised_review" not in seen["active_workflow"]:
                time.sleep(0.002)
                continue
            stamp = f"{real_now()}#{len(outcomes)}"  # each decision's entry, told apart
            protocol.now_iso = lambda stamp=stamp: stamp
            try:
                result = decide.decide_review(path, "continue", seen=seen, who="reliability")
                decide.confirm(path, result, 1.0)
            except Exception:  # a crash is what this counts
                crashes += 1
                continue
            outcomes.append((stamp, result.outcome))
    finally:
        protocol.now_iso = real_now
    owner.wait(timeout=120)
    final = json.loads(path.read_text())["active_workflow"]["review_history"]
    present = {entry.get("timestamp") for entry in final}
    applied = [stamp for stamp, outcome in outcomes if outcome == "applied"]
    reverted = [stamp for stamp, outcome in outcomes if outcome == "reverted"]
    return {"cases": len(outcomes), "crashes": crashes, "hangs": 0,
            "data lost": sum(s not in present for s in applied),
            "misreports": sum(s in present for s in reverted),
            "applied and held": sum(s in present for s in applied),
            "reported reverted": len(reverted)}  # fmt: skip


WRITER = r"""
import sys
from phasewatch.core import decide
path, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def bump(doc):
    doc["counters"][tag] = doc["counters"].get(tag, 0) + 1
    return "bumped"
bad = sum(decide.apply_update(path, bump, action="bump", settle=0).outcome != "applied"
          for _ in range(n))
print(bad)
"""


def two_writers(tmp: Path) -> dict[str, int]:
    n = 50 if SMALL else 250
    path, script = _project(tmp, WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), str(path), str(n), t],
                              stdout=subprocess.PIPE, text=True) for t in "ab"]  # fmt: skip
    outs = [p.communicate(timeout=300)[0] for p in procs]
    crashes = sum(p.returncode != 0 for p in procs)
    final = json.loads(path.read_text())["counters"]
    refused = sum(int(o or 0) for o in outs)
    lost = 2 * n - refused - final.get("a", 0) - final.get("b", 0)
    return {"cases": 2 * n, "crashes": crashes, "hangs": 0, "data lost": lost, "misreports": 0}


def links(tmp: Path) -> dict[str, int]:
    outside = tmp / "outside.txt"
    cases = lost = misreports = hangs = 0
    for name in ("state.json", decide.JOURNAL_NAME, "phasewatch.lock", "tmp", "fifo"):
        root = tmp / name.replace(".", "_")
        (root / ".isdlc").mkdir(parents=True)
        state = root / ".isdlc" / "state.json"
        state.write_text(json.dumps(_state(), indent=2))
        outside.write_text(json.dumps(_state(), indent=2))
        before = outside.read_bytes()
        target = decide.temp_path(state) if name == "tmp" else root / ".isdlc" / name
        if name == "fifo":
            state.unlink()
            os.mkfifo(state)
        else:
            target.unlink(missing_ok=True)
            target.symlink_to(outside)
        started = time.monotonic()
        result = decide.decide_review(state, "continue")
        hangs += time.monotonic() - started > 10
        cases += 1
        lost += outside.read_bytes() != before
        misreports += name == "state.json" and result.outcome == "applied"
    return {"cases": cases, "crashes": 0, "hangs": hangs, "data lost": lost,
            "misreports": misreports}  # fmt: skip


def main() -> int:
    failed = False
    for case in (owner_race, slow_owner, two_writers, links):
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            try:
                counts = case(Path(tmp))
            except Exception as exc:
                counts = {"cases": 0, "crashes": 1, "hangs": 0, "data lost": 0, "misreports": 0}
                print(f"{case.__name__}: {type(exc).__name__}: {exc}")
        took = time.monotonic() - started
        bad = sum(counts[k] for k in ("crashes", "hangs", "data lost", "misreports"))
        failed |= bad > 0
        shown = ", ".join(f"{k} {v}" for k, v in counts.items())
        print(f"{case.__name__:12} {'FAIL' if bad else 'ok':4} {shown} ({took:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
