"""The writer against a live owner (contention) and against SIGKILL (crash safety)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from phasewatch.core import decide
from phasewatch.core.confirm import watch
from phasewatch.core.decide.claims import holds
from phasewatch.core.sources import read_json

from tests.helpers.decide import feature_state, load

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX process semantics")

# The owner, the way FORMATS describes it: read state.json, change something, writeState()
# (read the version on disk, store disk + 1, truncate and write JSON.stringify(state, null, 2)).
# It also presents the next review gate whenever none is pending, as the controller does after
# a phase completes (each gate about its own phase: the same phase's gate presented again after
# a continue would undo it). One refinement keeps the *owner's* own window small and honest: if the
# version on disk moved between its read and its write, it redoes the change (the V7 rule: a
# write based on a stale read is refused). Without it the owner would silently overwrite
# anybody, and no writer on earth could prevent that. One write in twenty stalls between the
# truncate and the write, as a process on a busy machine does (a CI run once caught the writer
# reading such an empty file as "the decision is NOT in the file").
OWNER = r"""
import json, os, random, sys, time
path, count, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
random.seed(int(sys.argv[4]))
stop = sys.argv[5]  # writes past ``count`` go on (up to 10x) until this file exists

def read():
    while True:
        try:
            with open(path, encoding="utf-8") as fh:
                return json.loads(fh.read())
        except ValueError:
            time.sleep(0.0001)

written = []
while len(written) < count or (not os.path.exists(stop) and len(written) < 10 * count):
    time.sleep(random.uniform(0, 0.008))
    state = read()
    version = state["state_version"]
    state["counters"]["owner_writes"] += 1
    aw = state["active_workflow"]
    if "supervised_review" not in aw:
        aw["supervised_review"] = {"phase": f"06-implementation-{len(written)}",
                                   "status": "gate_presented",
                                   "paused_at": None, "resumed_at": None, "redo_count": 0,
                                   "redo_guidance_history": []}
    if read()["state_version"] != version:
        continue
    state["state_version"] = version + 1
    with open(path, "w", encoding="utf-8") as fh:  # its check and its open stay adjacent
        if random.random() < 0.05:  # descheduled between its truncate and its write
            time.sleep(random.uniform(0.03, 0.12))
        fh.write(json.dumps(state, indent=2, ensure_ascii=False))
    written.append(version + 1)
with open(log, "w") as fh:
    json.dump(written, fh)
"""


def contention_state() -> dict:
    state = feature_state()
    del state["zz_vendor"]  # the owner's json.dumps is not JSON.stringify for odd floats
    for phase in state["phases"].values():
        phase.get("timing", {}).pop("wall_clock_minutes", None)
    return state


def test_contention_with_a_live_owner(tmp_path: Path) -> None:
    state = contention_state()
    root = tmp_path
    (root / ".isdlc").mkdir()
    path = root / ".isdlc" / "state.json"
    path.write_text(json.dumps(state, indent=2, ensure_ascii=False), encoding="utf-8")
    start_version = state["state_version"]
    start_history = len(state["active_workflow"]["review_history"])
    owner_writes = 300
    script, log = tmp_path / "owner.py", tmp_path / "owner.json"
    script.write_text(OWNER)
    # The owner writes at least owner_writes times, and on until our side has had decisions
    # applied (on a slow machine most of its first 300 writes win every race).
    stop = tmp_path / "enough"
    owner = subprocess.Popen(
        [sys.executable, str(script), str(path), str(owner_writes), str(log), "7", str(stop)]
    )
    kept: list[int] = []  # versions we wrote whose decision is in the file
    # Each applied decision is watched as the dashboard watches it (core.confirm): an owner
    # write computed from a read before our rename can land after the writer's look-again (an
    # owner descheduled between its version check and its open for longer than
    # SETTLE_SECONDS, as on a loaded machine), undoing a decision reported applied. No writer
    # can stop that; the confirm watch must report it (docs/design.md, writing files, step 9).
    watched: list[tuple[decide.DecisionResult, list[str]]] = []
    watchers: list[threading.Thread] = []
    outcomes: dict[str, int] = {}
    orphans = 0  # owner writes that landed on the inode we replaced (reported as races)
    unread = 0  # races whose look-again found the file still mid-write (verdict uncertain)
    races: list[str] = []  # what each race said (printed: a failure shows what happened)
    started = time.perf_counter()
    try:
        while owner.poll() is None:
            seen = read_json(path, retries=0)
            gate = (seen.data or {}).get("active_workflow", {}).get("supervised_review")
            if not seen.ok or not gate or gate.get("status") != "gate_presented":
                time.sleep(0.0003)
                continue
            result = decide.decide_review(path, "continue", seen=seen.data, who="test")
            outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
            if result.version_after is not None:
                kept.append(result.version_after)
            if result.ok and result.footprint is not None:
                verdict: list[str] = []
                watched.append((result, verdict))
                footprint = result.footprint
                thread = threading.Thread(
                    target=lambda f=footprint, v=verdict: v.append(watch(path, f, 3.0).verdict)
                )
                thread.start()
                watchers.append(thread)
            if outcomes.get("applied", 0) >= 5:
                stop.touch()
            if "during the replace" in result.message:
                orphans += 1
            if result.outcome == "race" and "could not be read whole" in result.message:
                unread += 1
            if result.outcome == "race":
                races.append(f"v{result.version_before}->{result.version_after}: {result.message}")
    finally:
        owner.wait(timeout=60)
        for thread in watchers:
            thread.join(30)
    elapsed = time.perf_counter() - started
    assert owner.returncode == 0
    owner_versions = json.loads(log.read_text())
    final = load(path)
    lost_owner = len(owner_versions) - final["counters"]["owner_writes"]
    reverted = [r for r, verdict in watched if verdict == ["reverted"]]
    print(
        f"\ncontention: {elapsed:.2f}s, {len(owner_versions)} owner writes, decisions {outcomes}, "
        f"kept {len(kept)}, owner writes onto the replaced inode {orphans}, owner lost "
        f"{lost_owner}, applied then reverted by a stale owner write {len(reverted)}"
    )
    print("\n".join(races))

    assert outcomes.get("applied", 0) >= 5, outcomes  # the two sides really interleaved
    assert outcomes.get("error", 0) == 0
    # no decision lost silently: every decision reported as kept is in the file; no other,
    # except around an owner write onto the replaced inode (reported as a race): the owner may
    # have read our file before its write was put back, and carry the decision in its next
    # one; or a file still mid-write when the look-again gave up (the verdict: uncertain). A
    # race that said "NOT in the file" must be right (a busy CI run once found one that was not)
    # An applied decision the file no longer holds was reported reverted by its confirm watch,
    # and the owner wrote our version number: its write came from a read before our rename.
    assert all(len(verdict) == 1 for _r, verdict in watched)
    for result, verdict in watched:
        assert result.footprint is not None
        if not holds(result.footprint.claim, final):
            assert verdict == ["reverted"], (result.version_after, verdict)
            assert result.version_after in owner_versions, result.version_after
    history = final["active_workflow"]["review_history"]
    most = start_history + len(kept) + orphans + unread
    assert start_history + len(kept) - len(reverted) <= len(history) <= most
    # no owner write lost silently: only an owner write that landed on the very inode being
    # replaced (microseconds) can be lost, and each such event was reported as a race
    assert 0 <= lost_owner <= orphans
    # state_version: +1 per write, no version written twice except around those events
    written = owner_versions + kept
    assert owner_versions == sorted(set(owner_versions)) and kept == sorted(set(kept))
    assert max(written) == final["state_version"]
    assert set(written) == set(range(start_version + 1, final["state_version"] + 1))
    assert len(written) - len(set(written)) <= orphans + len(reverted)
    if not orphans and not reverted:
        assert sorted(written) == list(range(start_version + 1, final["state_version"] + 1))
    # the journal holds every attempt, with the same outcomes
    logged = [e["outcome"] for e in decide.read_journal(decide.journal_path(root))]
    assert sorted(logged) == sorted(k for k, n in outcomes.items() for _ in range(n))


# A writer that decides as fast as it can (the real writer, a counter as the "decision", no
# settle pause so the kills land inside the write) until it is killed: the invariant state_version - counter == 41 holds for every complete state.
WRITER = r"""
import sys
sys.path.insert(0, sys.argv[3])
from phasewatch.core.decide import apply_update

def bump(doc):
    doc["counters"]["owner_writes"] += 1
    return "bump"

print("ready", flush=True)
while True:
    result = apply_update(sys.argv[1], bump, action="bump", journal=sys.argv[2], settle=0)
    assert result.outcome == "applied", result.message
"""


def test_sigkill_never_leaves_a_broken_file(tmp_path: Path) -> None:
    state = feature_state()
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_bytes(decide.dumps(state).encode())
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    journal = tmp_path / "journal.jsonl"
    rng = random.Random(11)
    previous = 0
    killed: set[str] = set()
    mid_write = 0
    for _ in range(25):
        proc = subprocess.Popen(
            [sys.executable, str(script), str(path), str(journal), str(REPO)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        time.sleep(rng.uniform(0, 0.04))
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        raw = path.read_bytes()
        doc = decide.parse_document(raw.decode("utf-8"))  # always a whole document
        assert raw == decide.dumps(doc).encode()  # in the owner's layout
        counter = doc["counters"]["owner_writes"]
        assert doc["state_version"] - counter == 41  # an old or a new state, never a mix
        assert counter >= previous
        previous = counter
        temps = sorted(p.name for p in path.parent.glob(".state.json.phasewatch-*.tmp"))
        killed.add(f".state.json.phasewatch-{proc.pid}.tmp")
        # never more than one crashed temp: each write first removes those of dead writers
        assert len(temps) <= 1 and set(temps) <= killed
        mid_write += bool(temps)
    assert previous > 0
    # the next write clears the dead writer's temp
    assert decide.apply_update(path, lambda d: "noop", action="noop", journal=journal).ok
    assert not list(path.parent.glob(".state.json.phasewatch-*"))
    print(f"\ncrash: 25 kills ({mid_write} left a temp), {previous} writes survived")
