"""tui/decisions.py, the review console's decision service, without an app: real files, the real
writer, the service's own calls in the order the console makes them (begin on the app's thread,
write and confirm in a worker, finish after). In flight, already applied, a repair whose file
moved (planned again), undo, and the confirm watch's verdicts."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from phasewatch.core.decide import dumps
from phasewatch.core.review import gate_view, repair_offer
from phasewatch.core.snapshot import evaluate
from phasewatch.tui.decisions import Decision, DecisionService, Notice, Written

from tests import factories as F
from tests.helpers.app import write_state
from tests.helpers.repair import orchestration, stale, state

STATE = Path(".isdlc") / "state.json"


def gate_project(root: Path) -> Any:
    """A project whose state presents a review gate; the gate view the panel would show."""
    doc = F.build_state()
    (root / ".isdlc").mkdir()
    (root / STATE).write_text(dumps(doc), encoding="utf-8")
    view = gate_view(evaluate(json.loads((root / STATE).read_text()), str(STATE)))
    assert view is not None and view.waiting
    return view


def seen(raw: dict[str, Any], *rules: str) -> Any:
    findings = tuple(SimpleNamespace(rule_id=r) for r in rules)
    return SimpleNamespace(project_id="p", source=str(STATE), raw=raw, findings=findings)


def stale_project(root: Path) -> tuple[Any, dict[str, Any]]:
    """Phase 2 seen at v7, then a sub-agent's copy from phase 1 (v8): the stale-write offer."""
    newer, bad = state(2, 7), stale(state(2, 7), state(1))
    write_state(root / STATE, bad)
    timeline = [seen(newer), seen(bad, "TR-STATUS-DOWN", "TR-INDEX-DOWN")]
    offer = repair_offer(seen(bad, "TR-STATUS-DOWN", "TR-INDEX-DOWN"), timeline)
    assert offer is not None and offer.can_apply
    return offer, bad


def run(service: DecisionService, decision: Decision) -> Any:
    """What the console does with one decision: admit, write (the worker), finish."""
    begun = service.begin(decision)
    assert not isinstance(begun, Notice), begun
    written = service.write(decision, begun)
    assert isinstance(written, Written)
    return service.finish(decision, written.result)


def repaired(root: Path, seconds: float) -> tuple[DecisionService, Decision, Any, Any]:
    """A stale-write repair applied through the service, its confirm watch started."""
    offer, bad = stale_project(root)
    service = DecisionService(read_only=False)
    service.confirm_seconds = seconds
    decision = service.repair(root, offer)
    run(service, decision)
    stop = service.watching(decision, service.results[-1])
    assert stop is not None and not stop()
    return service, decision, stop, bad


def test_read_only_refuses_before_anything_is_written(tmp_path: Path) -> None:
    view = gate_project(tmp_path)
    before = (tmp_path / STATE).read_bytes()
    service = DecisionService(read_only=True)
    begun = service.begin(service.gate(tmp_path, view, "continue"))
    assert (
        isinstance(begun, Notice) and begun.message == "Read-only mode: gate: continue is disabled."
    )
    assert not service.in_flight and (tmp_path / STATE).read_bytes() == before


def test_a_look_in_flight_is_not_submitted_twice(tmp_path: Path) -> None:
    view = gate_project(tmp_path)
    service = DecisionService(read_only=False)
    first = service.gate(tmp_path, view, "continue")
    assert service.begin(first) is None  # admitted, nothing applied on this look before
    assert service.busy("repair stale-write") is not None  # a repair waits meanwhile
    again = service.begin(service.gate(tmp_path, view, "continue"))  # same look, same press
    assert isinstance(again, Notice) and again.message == "gate: continue: already being written."
    written = service.write(first, None)
    assert written is not None and written.result.ok, written
    finished = service.finish(first, written.result)
    assert finished.notice.title == "gate: continue: applied" and finished.watch
    assert not service.in_flight and service.busy("repair stale-write") is None


def test_a_second_press_on_an_applied_look_is_already_applied_not_a_write(tmp_path: Path) -> None:
    view = gate_project(tmp_path)
    service = DecisionService(read_only=False)
    decision = service.gate(tmp_path, view, "continue")
    assert run(service, decision).notice.title == "gate: continue: applied"
    after = (tmp_path / STATE).read_bytes()
    applied = service.begin(service.gate(tmp_path, view, "continue"))
    assert applied is service.applied[decision.seen] and applied is not None
    assert service.write(decision, applied) is None  # the file still holds our write
    notice = service.repeated(decision, applied)
    assert "already applied" in notice.message and not service.in_flight
    # another decision on the same look: what the user looked at is no longer the file
    redo = service.gate(tmp_path, view, "redo", "other")
    assert service.begin(redo) is applied and service.write(redo, applied) is None
    notice = service.repeated(redo, applied)
    assert notice.message.startswith("review continue was just applied (v")
    assert notice.message.endswith(
        ": gate: redo was not written. Look again once the view updates."
    )
    assert (tmp_path / STATE).read_bytes() == after
    assert len(service.results) == 1


def test_an_applied_look_the_owner_undid_goes_to_the_writer_again(tmp_path: Path) -> None:
    view = gate_project(tmp_path)
    before = (tmp_path / STATE).read_bytes()
    service = DecisionService(read_only=False)
    decision = service.gate(tmp_path, view, "continue")
    run(service, decision)
    owner = json.loads(before)
    owner["state_version"] += 2  # the owner's stale copy, written back later
    (tmp_path / STATE).write_text(dumps(owner), encoding="utf-8")
    applied = service.begin(decision)
    written = service.write(decision, applied)
    assert written is not None  # not answered from memory: the writer looked
    finished = service.finish(decision, written.result)
    assert written.result.outcome == "refused-conflict"
    assert "NOT in the file" in written.result.message
    assert finished.refusal is not None and "nothing was decided" in finished.refusal.title


def test_a_repair_whose_file_moved_is_planned_again_never_written(tmp_path: Path) -> None:
    offer, bad = stale_project(tmp_path)
    service = DecisionService(read_only=False)
    decision = service.repair(tmp_path, offer)
    moved = dict(bad, state_version=bad["state_version"] + 1, current_phase="elsewhere")
    write_state(tmp_path / STATE, moved)  # the owner wrote after the plan was made
    finished = run(service, decision)
    assert service.results[-1].outcome == "refused-conflict"
    assert finished.refusal is None and not finished.watch
    assert finished.notice.title == "repair stale-write: planned again"
    assert json.loads((tmp_path / STATE).read_bytes()) == moved  # nothing written
    assert service.replan and service.undoable is None
    assert not service.updated(moved["state_version"], None)  # no plan yet: keep waiting
    again, _bad = stale_project(tmp_path)
    assert service.updated(moved["state_version"], again)  # the new plan is shown, once
    assert not service.replan and not service.updated(moved["state_version"], again)


def test_an_applied_repair_is_undone(tmp_path: Path) -> None:
    offer, bad = stale_project(tmp_path)
    service = DecisionService(read_only=False)
    assert service.undo() is None
    finished = run(service, service.repair(tmp_path, offer))
    assert finished.undo_changed and finished.watch, finished
    assert orchestration(json.loads((tmp_path / STATE).read_bytes())) == orchestration(state(2))
    undoable = service.undoable
    assert undoable is not None and undoable.plan is offer.plan and undoable.version == 9
    assert not service.updated(9, None) and service.undoable is undoable  # our own write
    undo = service.undo()
    assert undo is not None and undo.label == "repair undo"
    finished = run(service, undo)
    assert service.results[-1].ok and finished.undo_changed and service.undoable is None
    assert orchestration(json.loads((tmp_path / STATE).read_bytes())) == orchestration(bad)


def test_an_undo_after_someone_else_wrote_is_refused_and_withdrawn(tmp_path: Path) -> None:
    offer, _bad = stale_project(tmp_path)
    service = DecisionService(read_only=False)
    run(service, service.repair(tmp_path, offer))
    later = json.loads((tmp_path / STATE).read_bytes())
    later["state_version"] += 1
    later["project"]["name"] = "renamed by the owner"
    write_state(tmp_path / STATE, later)  # not read yet: the undo is still offered
    undo = service.undo()
    assert undo is not None
    finished = run(service, undo)
    assert service.results[-1].outcome == "refused-conflict"
    assert finished.refusal is not None and "nothing was written" in finished.refusal.title
    assert finished.undo_changed and service.undoable is None
    assert json.loads((tmp_path / STATE).read_bytes()) == later
    # read before the undo was asked for: the update alone withdraws it
    service.undoable = None
    run(service, service.repair(tmp_path, stale_project(tmp_path)[0]))
    assert service.undoable is not None
    assert not service.updated(service.undoable.version + 1, None) and service.undoable is None


def test_the_confirm_watch_says_kept_when_nobody_wrote(tmp_path: Path) -> None:
    service, decision, stop, _bad = repaired(tmp_path, 0.2)
    result = service.results[-1]
    confirmed = service.confirm(decision, result, stop)
    assert confirmed is not None and confirmed[0] == "kept"
    assert confirmed[1] is not result and result.confirmation is None  # the shown one untouched
    assert service.kept(decision, confirmed[1]).message == (
        "Still in the file: nobody wrote within 0.2 s."
    )
    assert service.watching(decision, result) is not None and stop()  # a newer watch took over


def test_the_confirm_watch_reports_an_owner_revert(tmp_path: Path) -> None:
    service, decision, stop, bad = repaired(tmp_path, 30)
    result = service.results[-1]
    assert service.undoable is not None

    def owner() -> None:
        time.sleep(0.1)
        write_state(tmp_path / STATE, dict(bad, state_version=10))  # its stale copy again

    writer = threading.Thread(target=owner)
    writer.start()
    confirmed = service.confirm(decision, result, stop)
    writer.join()
    assert confirmed is not None and confirmed[0] == "reverted"
    notice, changed = service.reverted(decision, confirmed[1])
    assert notice.title == "repair stale-write: REVERTED" and notice.severity == "error"
    assert changed and service.undoable is None and decision.seen not in service.applied
    assert service.results[-1].outcome == "reverted"


def test_a_gate_decision_that_held_has_nothing_to_report(tmp_path: Path) -> None:
    view = gate_project(tmp_path)
    service = DecisionService(read_only=False)
    service.confirm_seconds = 0.1
    decision = service.gate(tmp_path, view, "continue")
    run(service, decision)
    stop = service.watching(decision, service.results[-1])
    assert stop is not None
    assert service.confirm(decision, service.results[-1], stop) is None
    service.confirm_seconds = 0
    assert service.watching(decision, service.results[-1]) is None  # the watch is off
