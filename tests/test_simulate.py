"""The workflow player: fault-free runs audit clean at every step, each fault trips its rule,
decisions written to the file by someone else are honoured, and the CLI / threading API work."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.hooklog import HookLogTailer, audit_hook_log, read_hook_log
from phasewatch.core.simulate import (
    FAULTS,
    Fault,
    FaultError,
    SimConfig,
    SimulationError,
    Simulator,
    StepEvent,
    register_fault,
    stringify,
)
from phasewatch.core.simulate.run import run_from_args
from phasewatch.core.snapshot import Snapshot, evaluate
from phasewatch.core.sources import StateReader, discover, read_json
from phasewatch.core.tdd import load_tdd
from phasewatch.tui.cli import _simulate_parser

STATE = ".isdlc/state.json"
NODE = shutil.which("node")


def collect(tmp_path: Path, **kw: Any) -> tuple[Simulator, list[StepEvent]]:
    events: list[StepEvent] = []
    config = SimConfig(tmp_path, fast=True, on_event=events.append, **kw)
    sim = Simulator(config)
    sim.run()
    return sim, events


def audited(events: list[StepEvent]) -> list[tuple[StepEvent, Snapshot]]:
    """Every state document written or observed, evaluated in order (with transitions)."""
    out: list[tuple[StepEvent, Snapshot]] = []
    prev: Snapshot | None = None
    for event in events:
        if event.state is None:
            continue
        prev = evaluate(event.state, STATE, prev)
        out.append((event, prev))
    return out


def errors(snapshot: Snapshot) -> list[Finding]:
    return [f for f in snapshot.findings if f.severity == Severity.ERROR]


# ---------------------------------------------------------------------------- fault-free runs


@pytest.mark.parametrize(("workflow", "seed"), [("feature", 1), ("fix", 2), ("build", 3)])
def test_fault_free_run_audits_clean_at_every_step(
    tmp_path: Path, workflow: str, seed: int
) -> None:
    disk: dict[int, bytes] = {}

    def on_event(event: StepEvent) -> None:
        if event.state is not None:
            disk[event.seq] = (tmp_path / STATE).read_bytes()

    sim = Simulator(
        SimConfig(
            tmp_path, workflow=workflow, fast=True, seed=seed, auto_decide=True,
            supervised=True, on_event=on_event,
        )
    )  # fmt: skip
    events: list[StepEvent] = []
    sim.config.on_event = lambda e: (on_event(e), events.append(e))
    summary = sim.run()
    assert summary.status == "completed"

    checked = audited(events)
    # every write is a state write except one review summary per gate (a redo gives one more)
    assert len(checked) == summary.writes - (len(sim.phases) + 1)
    for event, snap in checked:
        assert errors(snap) == [], (event.line(), errors(snap))

    # the bytes on disk are JSON.stringify(state, null, 2), no trailing newline
    for event, _ in checked:
        assert disk[event.seq] == stringify(event.state, 2).encode("utf-8")
    # each write stores disk + 1
    versions = [e.state["state_version"] for e, _ in checked]
    assert versions == list(range(versions[0], versions[0] + len(versions)))

    names = [e.name for e in events]
    phases = sim.phases
    assert names.count("3e") == len(phases) + 1  # one redo
    assert {"decide:continue", "decide:review", "decide:resume", "decide:redo",
            "decide:retry", "decide:skip"} <= set(names)  # fmt: skip
    _check_protocol_writes(checked, phases)

    final = json.loads((tmp_path / STATE).read_text("utf-8"))
    assert final["active_workflow"] is None
    entry = final["workflow_history"][-1]
    assert entry["status"] == "completed" and entry["phases"] == list(phases)
    # the framework's shapes (collectPhaseSnapshots): held to its own output in test_archive.py
    assert [s["key"] for s in entry["phase_snapshots"]] == list(phases)
    assert all(isinstance(s["duration_minutes"], int) for s in entry["phase_snapshots"])
    assert entry["metrics"]["total_phases"] == len(phases)
    assert entry["metrics"]["phases_completed"] == len(phases)
    assert isinstance(entry["metrics"]["total_duration_minutes"], int)
    assert [h["action"] for h in entry["review_history"]].count("redo") == 1
    for key in phases:  # isdlc.md STEP 3e: whole minutes
        assert isinstance(final["phases"][key]["timing"]["wall_clock_minutes"], int)
    for key in phases:
        assert (tmp_path / ".isdlc" / "reviews" / f"phase-{key[:2]}-summary.md").is_file()


def _check_protocol_writes(checked: list[tuple[StepEvent, Snapshot]], phases: list[str]) -> None:
    """STEP 3c-prime and STEP 3e write exactly what FORMATS says, nothing of the next phase."""
    prev: dict[str, Any] | None = None
    for event, _ in checked:
        doc = event.state
        assert doc is not None
        aw = doc.get("active_workflow")
        if event.name == "init":
            assert aw["current_phase_index"] == 0 and aw["current_phase"] == phases[0]
            # the orchestrator's MODE init-only: every phase pending until STEP 3c-prime
            assert aw["phase_status"] == dict.fromkeys(phases, "pending")
            assert doc["phases"] == {
                k: {"status": "pending", "started": None, "completed": None,
                    "gate_passed": None, "artifacts": []}
                for k in phases
            }  # fmt: skip
        elif event.name == "3c-prime":
            k = event.phase
            assert doc["phases"][k]["status"] == aw["phase_status"][k] == "in_progress"
            assert aw["current_phase"] == doc["current_phase"] == k
            assert doc["phases"][k]["started"] and doc["phases"][k]["timing"]["started_at"]
            if prev and prev["phases"][k]["started"]:
                assert doc["phases"][k]["started"] == prev["phases"][k]["started"]
        elif event.name == "3e":
            k = event.phase
            pa = prev["active_workflow"]
            redo = (pa.get("supervised_review") or {}).get("status") == "redo_pending"
            assert doc["phases"][k]["status"] == aw["phase_status"][k] == "completed"
            assert 0 < len(doc["phases"][k]["summary"]) <= 150
            assert aw["current_phase_index"] == pa["current_phase_index"] + (0 if redo else 1)
            assert aw["current_phase"] == pa["current_phase"] == k
            i = phases.index(k)
            if i + 1 < len(phases):
                nxt = phases[i + 1]
                assert doc["phases"][nxt] == prev["phases"][nxt]
                assert aw["phase_status"][nxt] == pa["phase_status"][nxt]
        prev = doc


def test_redo_of_the_last_phase_is_legal(tmp_path: Path) -> None:
    # the index stays at len(phases) while the last phase re-runs (redo never moves it back)
    sim, events = collect(tmp_path, workflow="build", seed=4, auto_decide=True, supervised=True)
    assert sim.player.redo_phase == sim.phases[-1]
    assert all(errors(snap) == [] for _, snap in audited(events))


def test_tdd_run_waits_for_approval_and_audits_clean(tmp_path: Path) -> None:
    seen: list[tuple[str, list[Finding]]] = []

    def on_event(event: StepEvent) -> None:
        if event.path in (".tdd-progress.md", ".tdd-plan-locked"):
            _plan, findings = load_tdd(discover(tmp_path))
            seen.append((event.name, findings))

    sim = Simulator(
        SimConfig(tmp_path, workflow="tdd", fast=True, seed=5, auto_decide=True, tdd_lock=True,
                  on_event=on_event)
    )  # fmt: skip
    assert sim.run().status == "completed"
    names = [name for name, _ in seen]
    assert names.index("tdd-plan") < names.index("decide:approve") < names.index("tdd-unlock")
    assert names.index("tdd-unlock") < names.index("tdd-slice")
    for name, findings in seen:
        assert [f.rule_id for f in findings if f.severity == Severity.ERROR] == [], name
    text = (tmp_path / ".tdd-progress.md").read_text("utf-8")
    lines = text.splitlines()
    updated = next(i for i, x in enumerate(lines) if x.startswith("**Last Updated:**"))
    assert lines[updated + 1].startswith("**Approved:** 20")
    assert not (tmp_path / ".tdd-plan-locked").exists()
    plan, _ = load_tdd(discover(tmp_path))
    assert plan is not None and plan.slices and all(s.finished for s in plan.slices)
    assert list((tmp_path / "planning").glob("*_*.md"))


def test_runs_are_reproducible_from_the_seed(tmp_path: Path) -> None:
    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
        }

    kw = {"workflow": "fix", "seed": 11, "auto_decide": True, "supervised": ["01", "06"]}
    collect(tmp_path / "a", **kw)
    collect(tmp_path / "b", **kw)
    collect(tmp_path / "c", **{**kw, "seed": 12})
    a, b, c = files(tmp_path / "a"), files(tmp_path / "b"), files(tmp_path / "c")
    assert set(a) == {STATE, ".isdlc/hook-activity.log", ".isdlc/reviews/phase-01-summary.md",
                      ".isdlc/reviews/phase-06-summary.md"}  # fmt: skip
    assert a == b
    assert a[STATE] != c[STATE]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_state_file_is_byte_identical_to_node_json_stringify(tmp_path: Path) -> None:
    collect(tmp_path, workflow="build", seed=3, auto_decide=True, supervised=True)
    data = (tmp_path / STATE).read_bytes()
    script = (
        "const fs=require('fs');"
        "process.stdout.write(JSON.stringify(JSON.parse(fs.readFileSync(0,'utf8')),null,2))"
    )
    node = subprocess.run([NODE, "-e", script], input=data, capture_output=True, check=True)
    assert node.stdout == data


# ---------------------------------------------------------------------------- faults


FAULT_RULES = [
    ("stale-write", "feature", {"TR-VERSION-DOWN"}, {"HOOK-STALE-WRITE"}),
    ("regress", "build", {"TR-INDEX-DOWN", "TR-STATUS-DOWN", "TR-CURRENT-BACK"},
     {"HOOK-REGRESSION"}),
    ("next-activated", "fix", {"TR-NEXT-ACTIVATED"}, set()),
    ("half-applied", "build", {"SYNC-STATUS"}, set()),
    ("escalation-burst", "build", {"ESC-CAP", "ESC-DUPLICATE"}, set()),
]  # fmt: skip


@pytest.mark.parametrize(("fault", "workflow", "state_rules", "log_rules"), FAULT_RULES)
def test_each_fault_trips_its_rule(
    tmp_path: Path, fault: str, workflow: str, state_rules: set[str], log_rules: set[str]
) -> None:
    sim, events = collect(
        tmp_path, workflow=workflow, seed=7, auto_decide=True, supervised=True, faults=[fault]
    )
    summary = sim.summary
    assert summary is not None and summary.status == "completed"
    assert [f["fired"] for f in summary.faults] == [1]
    hit = {
        f.rule_id for event, snap in audited(events) if event.fault == fault for f in snap.findings
    }
    assert state_rules <= hit
    assert set(FAULTS[fault].rules) >= state_rules | log_rules
    if log_rules:
        log = read_hook_log(tmp_path / ".isdlc" / "hook-activity.log")
        found = {f.rule_id for f in audit_hook_log(log.records, ".isdlc/hook-activity.log")}
        assert log_rules <= found


def test_a_fault_free_run_trips_none_of_those_rules(tmp_path: Path) -> None:
    _sim, events = collect(tmp_path, workflow="build", seed=7, auto_decide=True, supervised=True)
    fired = {f.rule_id for _, snap in audited(events) for f in snap.findings}
    watched = {r for _, _, rules, _ in FAULT_RULES for r in rules}
    assert fired & watched == set()
    log = read_hook_log(tmp_path / ".isdlc" / "hook-activity.log")
    found = {f.rule_id for f in audit_hook_log(log.records, ".isdlc/hook-activity.log")}
    assert (
        found & {"HOOK-STALE-WRITE", "HOOK-REGRESSION", "HOOK-INVALID-LINE", "HOOK-SCHEMA"} == set()
    )


@pytest.mark.parametrize(("seed", "mode"), [(1, "cut"), (2, "empty")])
def test_torn_write_is_read_as_torn_mid_write(tmp_path: Path, seed: int, mode: str) -> None:
    reader = StateReader(tmp_path / STATE, STATE)
    seen: list[tuple[str, Any]] = []

    def on_event(event: StepEvent) -> None:
        if event.name == "torn":
            raw = (tmp_path / STATE).read_bytes()
            result, data, findings = reader.read()
            seen.append((mode, (len(raw), result.status, data, [f.rule_id for f in findings])))
        elif event.state is not None:
            reader.read()  # the last good version the reader keeps

    sim = Simulator(
        SimConfig(tmp_path, workflow="build", fast=True, seed=seed, auto_decide=True,
                  faults=["torn"], on_event=on_event)
    )  # fmt: skip
    assert sim.run().status == "completed"
    assert len(seen) == 1
    size, status, data, rules = seen[0][1]
    assert status == "torn" and rules == ["READ-TORN"]
    assert data is not None and data["active_workflow"]  # the last good document is kept
    assert (size == 0) == (mode == "empty")
    assert read_json(tmp_path / STATE).ok  # whole again after the pause


def test_rotation_burst_is_followed_by_a_tailer_without_loss(tmp_path: Path) -> None:
    log_path = tmp_path / ".isdlc" / "hook-activity.log"
    tailer = HookLogTailer(log_path)
    records: list[Any] = []
    flags = {"rotated": 0, "reset": 0}
    inodes: set[int] = set()

    def on_event(event: StepEvent) -> None:
        res = tailer.poll()
        records.extend(res.records)
        flags["rotated"] += res.rotated
        flags["reset"] += res.reset
        if log_path.exists():
            inodes.add(os.stat(log_path).st_ino)

    sim = Simulator(
        SimConfig(tmp_path, workflow="build", fast=True, seed=2, auto_decide=True,
                  faults=["rotation-burst"], on_event=on_event)
    )  # fmt: skip
    summary = sim.run()
    res = tailer.read_all()
    records.extend(res.records)
    assert summary.rotations >= 1 and flags["rotated"] >= 1 and flags["reset"] == 0
    assert len(inodes) == 1  # rotated in place
    burst = [int(r.reason.rsplit("#", 1)[1].split()[0]) for r in records
             if r.reason and "re-delegation #" in r.reason]  # fmt: skip
    assert burst == list(range(1, len(burst) + 1))  # nothing lost, nothing repeated
    assert len(records) == summary.hook_lines
    assert len(log_path.read_text("utf-8").splitlines()) < 1000


@pytest.mark.parametrize(("lock", "expected"), [
    (False, {"TDD-UNAPPROVED-PROGRESS"}),
    (True, {"TDD-UNAPPROVED-PROGRESS", "TDD-LOCK-PROGRESS"}),
])  # fmt: skip
def test_tdd_unapproved_fault(tmp_path: Path, lock: bool, expected: set[str]) -> None:
    found: set[str] = set()

    def on_event(event: StepEvent) -> None:
        if event.name == "tdd-slice":
            _plan, findings = load_tdd(discover(tmp_path))
            found.update(f.rule_id for f in findings)

    sim = Simulator(
        SimConfig(tmp_path, workflow="tdd", fast=True, seed=1, faults=["tdd-unapproved"],
                  tdd_lock=lock, on_event=on_event)
    )  # fmt: skip
    assert sim.run().status == "completed"  # no approval was ever given: it did not wait
    assert expected <= found
    assert "Approved" not in (tmp_path / ".tdd-progress.md").read_text("utf-8")


def test_fault_targets_and_names_are_checked(tmp_path: Path) -> None:
    sim = Simulator(SimConfig(tmp_path, workflow="build", fast=True, seed=1,
                              faults=["regress@06-implementation"]))  # fmt: skip
    assert sim.faults[0].phase == "06-implementation"
    with pytest.raises(FaultError, match="cannot hit"):
        Simulator(SimConfig(tmp_path, workflow="build", faults=["regress@08-code-review"]))
    with pytest.raises(FaultError, match="unknown fault"):
        Simulator(SimConfig(tmp_path, workflow="build", faults=["no-such-fault"]))
    with pytest.raises(FaultError, match="does not apply"):
        Simulator(SimConfig(tmp_path, workflow="tdd", faults=["regress"]))


def test_another_module_can_register_a_fault(tmp_path: Path) -> None:
    class Marker(Fault):
        name = "test-marker"
        description = "writes a marker file when the run starts"
        systems = frozenset({"isdlc", "tdd", "plugins"})

        def setup(self, sim: Simulator) -> None:
            self.phase = None

        def after(self, sim: Simulator, point: str, phase: str | None):  # type: ignore[override]
            if point == "start" and not self.fired:
                self.fired += 1
                path = sim.root / "PLUGINS.md"
                path.write_text("| Plugin Name | Status | Version | Last Updated |\n")
                yield sim.emit_file("fault:test-marker", path, fault=self.name)

    register_fault(Marker)
    try:
        sim, events = collect(tmp_path, workflow="build", seed=1, auto_decide=True,
                              faults=["test-marker"])  # fmt: skip
        assert events[0].name == "fault:test-marker" and (tmp_path / "PLUGINS.md").exists()
        assert sim.summary is not None and sim.summary.status == "completed"
    finally:
        FAULTS.pop("test-marker", None)


def test_escalations_are_deduplicated_and_capped(tmp_path: Path) -> None:
    sim = Simulator(SimConfig(tmp_path, workflow="build", fast=True, seed=1))
    run = sim.player
    sim.state = {"pending_escalations": []}
    base = {"type": "gate_blocked", "hook": "gate-blocker", "phase": "06-implementation",
            "detail": "GATE BLOCKED\nline two"}  # fmt: skip
    assert run.add_escalation({**base, "timestamp": "2026-03-04T09:00:00.000Z"})
    assert not run.add_escalation({**base, "timestamp": "2026-03-04T09:00:59.000Z"})
    assert run.add_escalation({**base, "timestamp": "2026-03-04T09:01:00.500Z"})
    for i in range(25):
        assert run.add_escalation({**base, "phase": f"p{i}", "timestamp": "2026-03-04T10:00Z"})
    pending = sim.state["pending_escalations"]
    assert len(pending) == 20 and pending[0]["phase"] == "p5" and pending[-1]["phase"] == "p24"


# ---------------------------------------------------------------------------- decisions


def _read(path: Path) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None  # caught mid-write (the owner writes non-atomically): try again
    return doc if isinstance(doc, dict) else None


def _human_write(path: Path, doc: dict[str, Any]) -> None:
    """A human tool's write: version + 1, 2-space JSON, atomic replace."""
    doc["state_version"] = int(doc.get("state_version") or 0) + 1
    tmp = path.with_name(".state.json.tmp")
    tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


class Human(threading.Thread):
    """Answers gates and escalations by editing state.json, from another thread."""

    def __init__(self, path: Path, ts: str = "2026-03-04T12:00:00.000Z") -> None:
        super().__init__(daemon=True)
        self.reviewing_since = 0.0
        self.path = path
        self.ts = ts
        self.done = threading.Event()
        self.answered: list[tuple[str, str]] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while not self.done.is_set():
                doc = _read(self.path)
                if doc is not None and self.decide(doc):
                    continue
                time.sleep(0.003)
        except BaseException as exc:  # surfaced by the test
            self.error = exc

    def decide(self, doc: dict[str, Any]) -> bool:
        aw = doc.get("active_workflow")
        if not isinstance(aw, dict):
            return False
        pending = doc.get("pending_escalations") or []
        if pending:
            phase = pending[-1]["phase"]
            retries = sum(1 for p, a in self.answered if p == phase and a == "retry")
            if retries == 0:
                aw["recovery_action"] = {"type": "retry", "phase": phase, "timestamp": self.ts}
                record = doc["phases"][phase]
                record["retry_count"] = int(record.get("retry_count") or 0) + 1
                action = "retry"
            else:
                action = "skip"
            doc["pending_escalations"] = []
            return self._write(doc, phase, action)
        review = aw.get("supervised_review")
        if not isinstance(review, dict):
            return False
        phase, status = review["phase"], review["status"]
        history = aw.setdefault("review_history", [])
        if status == "gate_presented" and phase == "06-implementation":
            review.update(status="reviewing", paused_at=self.ts)
            self.reviewing_since = time.monotonic()
            return self._write(doc, phase, "review")
        if status == "reviewing":
            if time.monotonic() - self.reviewing_since < 0.2:
                return False  # reading the artifacts takes a moment
            history.append({"phase": phase, "action": "review", "paused_at": review["paused_at"],
                            "resumed_at": self.ts, "timestamp": self.ts})  # fmt: skip
            review.update(status="completed", resumed_at=self.ts)
            return self._write(doc, phase, "resume")
        if status == "gate_presented" and phase == "16-quality-loop" and not review["redo_count"]:
            review["redo_count"] = 1
            review["redo_guidance_history"].append("Raise mutation coverage on the retry path")
            review["status"] = "redo_pending"
            doc["phases"][phase]["status"] = "in_progress"
            aw["phase_status"][phase] = "in_progress"
            return self._write(doc, phase, "redo")
        if status == "gate_presented":
            history.append({"phase": phase, "action": "continue", "timestamp": self.ts})
            del aw["supervised_review"]
            return self._write(doc, phase, "continue")
        return False

    def _write(self, doc: dict[str, Any], phase: str, action: str) -> bool:
        _human_write(self.path, doc)
        self.answered.append((phase, action))
        return True


def test_decisions_written_by_another_thread_are_honoured(tmp_path: Path) -> None:
    events: list[StepEvent] = []
    sim = Simulator(
        SimConfig(tmp_path, workflow="build", fast=True, seed=3, supervised=True,
                  escalate=["06-implementation"], on_event=events.append, decision_timeout=20)
    )  # fmt: skip
    human = Human(tmp_path / STATE)
    human.start()
    try:
        summary = sim.run()
    finally:
        human.done.set()
        human.join(5)
    assert human.error is None
    assert summary.status == "completed"
    assert human.answered == [
        ("05-test-strategy", "continue"),
        ("06-implementation", "retry"),
        ("06-implementation", "skip"),
        ("06-implementation", "review"),
        ("06-implementation", "resume"),
        ("16-quality-loop", "redo"),
        ("16-quality-loop", "continue"),
        ("08-code-review", "continue"),
    ]
    observed = [(e.name, e.phase) for e in events if e.external]
    assert [name.split(":")[1] for name, _ in observed] == [a for _, a in human.answered]

    for event, snap in audited(events):
        assert errors(snap) == [], (event.line(), errors(snap))

    # the redo re-ran 16-quality-loop: 3c-prime again (retries + 1, started kept), 3e without
    # moving the index, a redo entry, then the gate again
    redo_at = next(i for i, e in enumerate(events) if e.name == "decision:redo")
    after = [e for e in events[redo_at:] if e.state is not None]
    activate = next(e for e in after if e.name == "3c-prime")
    complete = next(e for e in after if e.name == "3e")
    gate = next(e for e in after if e.name == "gate")
    first_start = next(e for e in events if e.name == "3c-prime" and e.phase == "16-quality-loop")
    rec = activate.state["phases"]["16-quality-loop"]
    assert rec["started"] == first_start.state["phases"]["16-quality-loop"]["started"]
    assert rec["timing"]["retries"] == 1
    aw = complete.state["active_workflow"]
    assert aw["current_phase_index"] == 3 and aw["review_history"][-1]["action"] == "redo"
    assert aw["review_history"][-1]["guidance"] == "Raise mutation coverage on the retry path"
    assert gate.state["active_workflow"]["supervised_review"]["status"] == "gate_presented"
    assert gate.state["active_workflow"]["supervised_review"]["redo_count"] == 1

    # retry re-ran 06 (retries bumped); skip completed it without a passed gate
    history = json.loads((tmp_path / STATE).read_text("utf-8"))["workflow_history"][-1]
    snap06 = next(s for s in history["phase_snapshots"] if s["key"] == "06-implementation")
    assert snap06["status"] == "completed" and snap06["gate_passed"] is None
    assert snap06["timing"]["retries"] == 1
    actions = [(h["phase"], h["action"]) for h in history["review_history"]]
    assert ("06-implementation", "review") in actions and ("16-quality-loop", "redo") in actions


CANCEL_SCRIPT = """
import json, os, sys
path = sys.argv[1]
doc = json.loads(open(path, encoding="utf-8").read())
aw = doc["active_workflow"]
doc.setdefault("workflow_history", []).append({
    "type": aw["type"], "description": aw["description"], "artifact_folder": aw["artifact_folder"],
    "status": "cancelled", "started_at": aw["started_at"], "cancelled_at": "2026-03-04T12:00:00.000Z",
    "cancellation_reason": "Cancelled at the escalation prompt", "phases": aw["phases"],
})
doc["active_workflow"] = None
doc["pending_escalations"] = []
doc["state_version"] += 1
tmp = path + ".tmp"
open(tmp, "w", encoding="utf-8").write(json.dumps(doc, indent=2, ensure_ascii=False))
os.replace(tmp, path)
"""


def test_cancel_written_by_another_process_ends_the_run(tmp_path: Path) -> None:
    events: list[StepEvent] = []

    def on_event(event: StepEvent) -> None:
        events.append(event)
        if event.name == "escalation":
            subprocess.run([sys.executable, "-c", CANCEL_SCRIPT, str(tmp_path / STATE)], check=True)

    sim = Simulator(
        SimConfig(tmp_path, workflow="fix", fast=True, seed=1, escalate=["06-implementation"],
                  on_event=on_event, decision_timeout=20)
    )  # fmt: skip
    summary = sim.run()
    assert summary.status == "cancelled"
    assert events[-1].name == "decision:cancel" and events[-1].external
    doc = json.loads((tmp_path / STATE).read_text("utf-8"))
    assert doc["active_workflow"] is None
    assert doc["workflow_history"][-1]["status"] == "cancelled"
    assert all(errors(snap) == [] for _, snap in audited(events))


def test_auto_decide_answers_tdd_approval_while_a_human_one_waits(tmp_path: Path) -> None:
    approved = threading.Event()

    def on_event(event: StepEvent) -> None:
        if event.name == "tdd-plan":

            def approve() -> None:
                path = tmp_path / ".tdd-progress.md"
                text = path.read_text("utf-8").replace(
                    "\n**Last Updated:**", "\n**approved:** 2026-03-04\n**Last Updated:**", 1
                )
                path.write_text(text, "utf-8")
                approved.set()

            threading.Timer(0.05, approve).start()

    sim = Simulator(SimConfig(tmp_path, workflow="tdd", fast=True, seed=2, on_event=on_event,
                              decision_timeout=20))  # fmt: skip
    assert sim.run().status == "completed" and approved.is_set()
    lines = (tmp_path / ".tdd-progress.md").read_text("utf-8").splitlines()
    assert "**Approved:** 2026-03-04" in lines  # kept (re-rendered after Last Updated)


def test_tdd_player_tolerates_the_lock_already_removed_by_the_approver(tmp_path: Path) -> None:
    """phasewatch's approval removes .tdd-plan-locked right after writing the marker; the player
    checks for the lock and then removes it (`rm -f`): the lock may be gone in between. Pinned by
    a lock path that always claims to exist while the decision writer really removes the file."""
    from phasewatch.core import decide

    class AlwaysThere(type(tmp_path)):  # the window between exists() and unlink()
        def exists(self, *args: Any, **kwargs: Any) -> bool:
            return True

    def on_event(event: StepEvent) -> None:
        if event.name == "tdd-plan":
            sim.player.lock = AlwaysThere(sim.player.lock)
            result = decide.decide_approval(tmp_path / ".tdd-progress.md", via="test")
            assert result.outcome == "applied" and not (tmp_path / ".tdd-plan-locked").is_file()

    sim = Simulator(SimConfig(tmp_path, workflow="tdd", fast=True, seed=2, tdd_lock=True,
                              on_event=on_event, decision_timeout=20))  # fmt: skip
    assert sim.run().status == "completed"


# ---------------------------------------------------------------------------- threads, guards


def test_stop_ends_a_run_in_a_background_thread(tmp_path: Path) -> None:
    at_gate = threading.Event()

    def on_event(event: StepEvent) -> None:
        if event.name == "gate":
            at_gate.set()

    sim = Simulator(SimConfig(tmp_path, workflow="build", speed=200, seed=1, supervised=True,
                              on_event=on_event))  # fmt: skip
    thread = threading.Thread(target=sim.run, daemon=True)
    thread.start()
    assert at_gate.wait(20)  # paced, then waiting for a human decision
    sim.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert sim.summary is not None and sim.summary.status == "stopped"

    sim2 = Simulator(SimConfig(tmp_path / "slow", workflow="feature", speed=0.01, seed=1))
    thread = threading.Thread(target=sim2.run, daemon=True)
    thread.start()
    time.sleep(0.05)
    sim2.stop()  # interrupts a long pause
    thread.join(5)
    assert not thread.is_alive() and sim2.summary is not None
    assert sim2.summary.status == "stopped"


def test_existing_state_is_never_overwritten_without_reuse(tmp_path: Path) -> None:
    collect(tmp_path, workflow="build", seed=1, auto_decide=True)
    before = json.loads((tmp_path / STATE).read_text("utf-8"))
    with pytest.raises(SimulationError, match="already exists"):
        Simulator(SimConfig(tmp_path, workflow="build"))
    collect(tmp_path, workflow="fix", seed=2, auto_decide=True, reuse=True)
    after = json.loads((tmp_path / STATE).read_text("utf-8"))
    assert after["state_version"] > before["state_version"]
    assert after["workflow_history"][:-1] == before["workflow_history"]
    assert after["workflow_history"][-1]["type"] == "fix"

    doc = dict(after, active_workflow={"type": "feature", "phases": []})
    (tmp_path / STATE).write_text(json.dumps(doc, indent=2))
    with pytest.raises(SimulationError, match="active workflow"):
        Simulator(SimConfig(tmp_path, workflow="fix", reuse=True, fast=True)).run()


def test_cli_prints_one_line_per_step(tmp_path: Path) -> None:
    parser = _simulate_parser()
    out = io.StringIO()
    args = parser.parse_args([str(tmp_path / "p"), "--workflow", "build", "--fast", "--seed",
                              "3", "--auto-decide", "--supervised", "--faults", "half-applied"])  # fmt: skip
    assert run_from_args(args, out) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("simulating a build workflow") and "seed 3" in lines[0]
    assert lines[-1].startswith("completed: build") and "half-applied@" in lines[-1]
    steps = int(lines[-1].split(" steps")[0].rsplit(" ", 1)[1])
    assert len(lines) == steps + 2
    assert any(" 3e " in x and "[half-applied]" in x for x in lines)

    out = io.StringIO()
    assert run_from_args(parser.parse_args(["--list-faults"]), out) == 0
    for name in FAULTS:
        assert name in out.getvalue()
    out = io.StringIO()
    assert run_from_args(parser.parse_args([str(tmp_path / "q"), "--faults", "nope"]), out) == 2
    assert "unknown fault" in out.getvalue()
    assert not (tmp_path / "q" / ".isdlc").exists()


def test_simulate_command_runs_as_a_program_and_core_needs_no_textual(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "phasewatch", "simulate", str(tmp_path), "--workflow", "tdd", "--fast",
         "--seed", "1", "--auto-decide"],
        capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[1],
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "tdd-done" in done.stdout
    probe = "import sys, phasewatch.core.simulate.run; print(sorted(m for m in sys.modules if 'textual' in m))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[1])  # fmt: skip
    assert done.stdout.strip() == "[]", done.stderr


def test_cancel_at_a_review_gate_with_the_decisions_helper(tmp_path: Path) -> None:
    from phasewatch.core.simulate import decisions

    events: list[StepEvent] = []

    def on_event(event: StepEvent) -> None:
        events.append(event)
        if event.name == "gate" and event.phase == "06-implementation":
            doc = _read(tmp_path / STATE)
            assert doc is not None
            decisions.cancel_workflow(doc, "Scope changed", "2026-03-04T12:00:00.000Z")
            _human_write(tmp_path / STATE, doc)

    sim = Simulator(
        SimConfig(tmp_path, workflow="build", fast=True, seed=1, supervised=True, escalate=None,
                  auto_decide=False, on_event=on_event, decision_timeout=5)
    )  # fmt: skip
    sim.config.auto_decide = False
    # answer 05's gate by hand first, so the run reaches 06's gate
    first = threading.Thread(target=lambda: _continue_first_gate(tmp_path / STATE), daemon=True)
    first.start()
    assert sim.run().status == "cancelled"
    first.join(5)
    doc = json.loads((tmp_path / STATE).read_text("utf-8"))
    entry = doc["workflow_history"][-1]
    assert entry["status"] == "cancelled" and entry["cancellation_reason"] == "Scope changed"
    assert entry["phase_status"]["06-implementation"] == "completed"
    assert all(errors(snap) == [] for _, snap in audited(events))


def _continue_first_gate(path: Path) -> None:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        doc = _read(path)
        review = (doc or {}).get("active_workflow") or {}
        review = review.get("supervised_review") if isinstance(review, dict) else None
        if isinstance(review, dict) and review.get("phase") == "05-test-strategy":
            from phasewatch.core.simulate import decisions

            decisions.gate_continue(doc, "2026-03-04T12:00:00.000Z")
            _human_write(path, doc)
            return
        time.sleep(0.003)
