"""The owner of ``state.json`` as the iSDLC framework writes it (a program, not a test).

``python owner.py PATH VARIANT COUNT SEED LOG`` makes COUNT writes, then exits. Every write is
the Phase-Loop Controller's: it reads the state (its *stale copy*), thinks (a sub-agent at
work), then writes the file as it is now with ``active_workflow`` (``phase_status``,
``current_phase``, ``current_phase_index``, ``supervised_review``, ``review_history``) and
``pending_escalations`` taken from its copy, moved one step on:

* no gate: complete the current phase (both status maps) and present its review gate; when the
  gate was answered (no gate, phase completed), start the next phase (a new key: each gate is
  about its own phase);
* a gate ``redo_pending``: re-run the phase and record the redo in ``review_history``
  (``{phase, action: "redo", redo_count, guidance, timestamp}``), present the gate again;
* a gate presented or under review: wait (a heartbeat in the workflow);
* now and then a new escalation (``gate_blocked``) is appended.

Anything a decision wrote between the read and the write is undone by it; a decision written
before the read is carried on. How it writes (VARIANT ``<how>-<think>``):

* how ``truncating``: ``writeState``: read the version on disk, store disk + 1, truncate the
  file and write ``JSON.stringify(state, null, 2)`` (no trailing newline) in two chunks;
* how ``atomic``: the framework's other writer (``writeState(root, state)``): a temp file
  renamed into place, the version bumped by hand from its copy (stale: it can equal ours);
* how ``node`` / ``node-atomic``: the same two, by the framework's own ``writeState`` in
  ``$ISDLC_CHECKOUT/src/claude/hooks/lib/common.cjs`` (a node child, ``owner_node.cjs``);
* think ``fast`` (up to 4 ms between read and write, up to 20 ms between writes) or ``slow``
  (up to 200 ms between read and write, up to 100 ms between writes).

Each write appends ``[read_at, written_at]`` (``time.monotonic()``, one clock for every process
on the machine) to LOG: the judge tells a revert later than the confirm window (an owner slower
than the watch, the documented gap) from a misreport.
"""

from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

THINK = {"fast": 0.004, "slow": 0.2}  # at most, between reading its copy and writing it
GAP = {"fast": 0.02, "slow": 0.1}  # at most, between one write and the next read
HOOKS_LIB = Path("src") / "claude" / "hooks" / "lib" / "common.cjs"


def stringify(state: Any) -> bytes:
    """``JSON.stringify(state, null, 2)`` for the states this program writes (no floats)."""
    return json.dumps(state, indent=2, ensure_ascii=False).encode()


def initial_state() -> dict[str, Any]:
    first = "p0000-implementation"
    return {
        "state_version": 1,
        "schema_version": 1,
        "current_phase": first,
        "active_agent": "software-developer",
        "counters": {"owner_writes": 0},
        "phases": {first: {"status": "in_progress", "started": None, "completed": None}},
        "active_workflow": {
            "type": "build",
            "slug": "reliability",
            "artifact_folder": "REQ-0001-reliability",
            "started_at": "2026-01-01T00:00:00.000Z",
            "phases": [first],
            "current_phase": first,
            "current_phase_index": 0,
            "phase_status": {first: "in_progress"},
            "review_history": [],
            "flags": {"supervised": True},
        },
        "pending_escalations": [],
        "workflow_history": [],
        "supervised_mode": {"enabled": True, "review_phases": "all"},
    }


def now_iso() -> str:
    t = time.time()
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
    return f"{stamp}.{int(t * 1000) % 1000:03d}Z"


def advance(stale: dict[str, Any], disk: dict[str, Any], n: int, rng: random.Random) -> dict:
    """The controller's next state: the file now, its workflow and escalations from ``stale``."""
    out = copy.deepcopy(disk)
    aw = copy.deepcopy(stale.get("active_workflow"))
    pending = copy.deepcopy(stale.get("pending_escalations") or [])
    phases = out.setdefault("phases", {})
    if isinstance(aw, dict):
        key = aw["current_phase"]
        gate = aw.get("supervised_review")
        if gate is None and aw["phase_status"].get(key) != "completed":
            aw["phase_status"][key] = "completed"
            phases.setdefault(key, {})["status"] = "completed"
            aw["supervised_review"] = {"phase": key, "status": "gate_presented", "paused_at": None,
                                       "resumed_at": None, "redo_count": 0,
                                       "redo_guidance_history": []}  # fmt: skip
        elif gate is None:  # answered: the next phase
            index = aw["current_phase_index"] + 1
            key = f"p{index:04d}-implementation"
            aw["phases"].append(key)
            aw.update(current_phase=key, current_phase_index=index)
            aw["phase_status"][key] = "in_progress"
            phases[key] = {"status": "in_progress", "started": now_iso(), "completed": None}
        elif gate.get("status") == "redo_pending":  # re-run, record the redo, present again
            aw["phase_status"][key] = "completed"
            phases.setdefault(key, {})["status"] = "completed"
            guidance = (gate.get("redo_guidance_history") or [None])[-1]
            aw["review_history"].append({"phase": key, "action": "redo",
                                         "redo_count": gate.get("redo_count"),
                                         "guidance": guidance, "timestamp": now_iso()})  # fmt: skip
            gate["status"] = "gate_presented"
        aw["heartbeat"] = n  # a sub-agent's trace: the workflow changes on every write
        out["current_phase"] = aw["current_phase"]
        if len(pending) < 3 and rng.random() < 0.12:
            pending.append({"type": "gate_blocked", "hook": "gate-blocker", "phase": key,
                            "detail": f"Gate blocked #{n}:\n- tests failing",
                            "timestamp": now_iso()})  # fmt: skip
    out["active_workflow"] = aw
    out["pending_escalations"] = pending
    out["counters"]["owner_writes"] = out["counters"].get("owner_writes", 0) + 1
    return out


def read(path: str) -> dict[str, Any]:
    while True:
        try:
            with open(path, encoding="utf-8") as fh:
                return json.loads(fh.read())
        except (ValueError, OSError):
            time.sleep(0.0005)  # between the other writer's truncate and its write


def disk_version(path: str) -> int:
    """``writeState``'s read of the version on disk (0 when unreadable or not positive)."""
    try:
        with open(path, encoding="utf-8") as fh:
            version = json.loads(fh.read()).get("state_version")
    except (ValueError, OSError):
        return 0
    return version if isinstance(version, int) and version > 0 else 0


def write_truncating(path: str, state: dict[str, Any]) -> None:
    state = {**state, "state_version": disk_version(path) + 1}
    data = stringify(state)
    with open(path, "r+b", buffering=0) as fh:
        fh.truncate(0)
        fh.write(data[: len(data) // 2])
        fh.write(data[len(data) // 2 :])


def write_atomic(path: str, state: dict[str, Any], stale_version: int) -> None:
    state = {**state, "state_version": stale_version + 1}  # bumped by hand from its copy
    temp = f"{os.path.dirname(path)}/.state-{os.getpid()}.tmp"
    with open(temp, "wb") as fh:
        fh.write(stringify(state))
    os.replace(temp, path)


def node_writer(path: str) -> subprocess.Popen[str] | None:
    checkout = os.environ.get("ISDLC_CHECKOUT", "")
    if not checkout:
        return None
    root = str(Path(path).parent.parent)
    return subprocess.Popen(
        ["node", str(Path(__file__).with_name("owner_node.cjs")), str(Path(checkout) / HOOKS_LIB)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "CLAUDE_PROJECT_DIR": root},
    )  # fmt: skip


def main(path: str, variant: str, count: int, seed: int, log: str) -> None:
    how, think = variant.rsplit("-", 1)
    rng = random.Random(seed)
    node = node_writer(path) if how.startswith("node") else None
    if how.startswith("node") and node is None:
        sys.exit("owner: a node variant needs ISDLC_CHECKOUT")
    times = []
    for n in range(count):
        time.sleep(rng.uniform(0, GAP[think]))
        read_at = time.monotonic()
        stale = read(path)
        time.sleep(rng.uniform(0, THINK[think]))  # the sub-agent at work
        state = advance(stale, read(path), n, rng)
        if how == "truncating":
            write_truncating(path, state)
        elif how == "atomic":
            write_atomic(path, state, stale.get("state_version", 0))
        else:
            assert node is not None and node.stdin is not None and node.stdout is not None
            if how == "node-atomic":
                state["state_version"] = stale.get("state_version", 0) + 1
            node.stdin.write(json.dumps({"how": "async" if how == "node-atomic" else "sync",
                                         "state": state}) + "\n")  # fmt: skip
            node.stdin.flush()
            if node.stdout.readline().strip() != "ok":
                sys.exit("owner: the framework's writeState failed")
        times.append((read_at, time.monotonic()))
    if node is not None:
        node.stdin.close()  # type: ignore[union-attr]
        node.wait(timeout=30)
    Path(log).write_text(json.dumps(times))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
