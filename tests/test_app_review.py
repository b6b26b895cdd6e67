"""Pilot tests of the supervised review console: the gate panel, escalations, plan approval,
the attention queue and read-only mode. Most are driven by the simulator playing a real
workflow into a temp dir and WAITING for the decision the app writes (``auto_decide=False``)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core.decide import journal_path, read_journal
from phasewatch.core.simulate import SimConfig, Simulator, StepEvent
from phasewatch.tui.app import PhasewatchApp
from phasewatch.tui.screens.attention import AttentionScreen
from phasewatch.tui.screens.dialogs import ConfirmDialog, RefusalDialog, TextPromptDialog
from phasewatch.tui.screens.escalations import EscalationsScreen
from phasewatch.tui.screens.plan import PlanScreen
from phasewatch.tui.screens.review import GatePanel
from phasewatch.widgets.header import OverviewHeader
from textual.containers import Vertical
from textual.widgets import Input

from tests import factories as F
from tests.helpers.app import (
    footer_keys,
    record_calls,
    screen_text,
    wait_until,
    write_state,
)
from tests.helpers.app import make_app as shared_make_app

SIZE = (140, 44)
STATE = Path(".isdlc") / "state.json"
FIXTURES = Path(__file__).parent / "fixtures" / "tdd"


# ---------------------------------------------------------------------------- helpers


class SimThread:
    """A simulator running in a background thread; its step events are recorded."""

    def __init__(self, root: Path, **kw: Any) -> None:
        self.events: list[StepEvent] = []
        config: dict[str, Any] = {
            "workflow": "build",
            "fast": True,
            "auto_decide": False,
            "supervised": True,
            "escalate": None,
            "seed": 1,
        }
        config.update(kw)
        self.sim = Simulator(SimConfig(directory=root, on_event=self.events.append, **config))
        self.result: Any = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        self.result = self.sim.run()

    def start(self) -> SimThread:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.sim.stop()
        self.thread.join(10)

    def seen(self, name: str, phase: str | None = None, count: int = 1) -> bool:
        hits = [e for e in list(self.events) if e.name == name and phase in (None, e.phase)]
        return len(hits) >= count

    def wait(self, name: str, phase: str | None = None, timeout: float = 15.0) -> None:
        """Block until the simulator emitted ``name`` (before the app starts)."""
        deadline = time.monotonic() + timeout
        while not self.seen(name, phase):
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise AssertionError(f"simulator never reached {name} {phase}")
            self.thread.join(0.01)


@pytest.fixture
def simulate():
    running: list[SimThread] = []

    def start(root: Path, **kw: Any) -> SimThread:
        sim = SimThread(root, **kw).start()
        running.append(sim)
        return sim

    yield start
    for sim in running:
        sim.stop()


def read_state(root: Path) -> dict[str, Any]:
    """The document on disk (the owner writes non-atomically: retry a torn read)."""
    for _ in range(200):
        try:
            return json.loads((root / STATE).read_bytes())
        except ValueError:
            threading.Event().wait(0.005)
    raise AssertionError("state.json stayed unreadable")


def journal(root: Path) -> list[dict[str, Any]]:
    return read_journal(journal_path(root))


def make_app(root: Path, *, arm_delay: float = 0.0, **kwargs: Any) -> PhasewatchApp:
    """The app, its key guards off unless ``arm_delay`` (the guard tests drive a fake clock)."""
    return shared_make_app(root, arm_delay=arm_delay, **kwargs)


def gate_open(app: PhasewatchApp, phase: str, redo: int = 0) -> Callable[[], bool]:
    def check() -> bool:
        screen = app.screen
        return (
            isinstance(screen, GatePanel)
            and screen.view.phase == phase
            and screen.view.redo_count == redo
            and screen.current
        )

    return check


def gate_waits(app: PhasewatchApp, phase: str, redo: int = 0) -> Callable[[], bool]:
    def check() -> bool:
        view = app.review.waiting_gate()
        return view is not None and view.phase == phase and view.redo_count == redo

    return check


async def open_gate(pilot, app: PhasewatchApp, phase: str, redo: int = 0) -> GatePanel:
    """Wait for the gate to be waiting (announced, never opened by itself), then press g.
    A panel the user still has open (the next gate arrived before the last decision's result
    closed it) shows the new gate in place: that one is used."""
    await wait_until(pilot, gate_waits(app, phase, redo))
    if not gate_open(app, phase, redo)():
        await pilot.press("g")
    await wait_until(pilot, gate_open(app, phase, redo))
    panel = app.screen
    assert isinstance(panel, GatePanel)
    return panel


async def open_escalations(pilot, app: PhasewatchApp) -> EscalationsScreen:
    """Press e once it is offered; the screen, showing the one pending escalation."""
    await wait_until(pilot, lambda: "e" in footer_keys(app))
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(app.screen, EscalationsScreen))
    screen = app.screen
    assert isinstance(screen, EscalationsScreen)
    await wait_until(pilot, lambda: len(screen.keys) == 1)
    return screen


def review(doc: dict[str, Any]) -> dict[str, Any] | None:
    aw = doc.get("active_workflow") or {}
    return aw.get("supervised_review")


# ---------------------------------------------------------------------------- the gate panel


async def test_gate_is_announced_opened_with_g_and_continue_lets_the_workflow_proceed(
    tmp_path: Path, simulate
) -> None:
    sim = simulate(tmp_path)
    sim.wait("gate", "05-test-strategy")
    app = make_app(tmp_path)
    toasts, bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, gate_waits(app, "05-test-strategy"))
        await wait_until(pilot, lambda: bool(bells))
        assert "g" in footer_keys(app) and not isinstance(app.screen, GatePanel)  # offered
        panel = await open_gate(pilot, app, "05-test-strategy")
        await wait_until(pilot, lambda: panel.summary_loaded)
        summary = (tmp_path / ".isdlc" / "reviews" / "phase-05-summary.md").read_text()
        assert panel.summary_text is not None and panel.summary_text.strip() == summary.strip()
        text = panel.text
        assert "05-test-strategy" in text and "gate_presented" in text
        assert "wall clock" in text and "Artifacts" in text
        # on screen, not only in the model: nothing clipped (once the panel is painted)
        lines = ("Timing", "wall clock", "Summary", "Artifacts", "Findings")
        await wait_until(pilot, lambda: all(line in screen_text(app) for line in lines))
        assert bells and any("05-test-strategy" in t["message"] for t in toasts)
        assert all(t.get("markup") is False for t in toasts)
        assert {"c", "r", "d"} <= footer_keys(app) and "u" not in footer_keys(app)

        await pilot.press("c")
        await wait_until(pilot, lambda: sim.seen("decision:continue", "05-test-strategy"))
        await wait_until(pilot, lambda: sim.seen("3c-prime", "06-implementation"))
        entries = [e for e in journal(tmp_path) if e["action"] == "review continue"]
        assert len(entries) == 1
        assert entries[0]["outcome"] == "applied" and entries[0]["via"] == "tui"
        history = read_state(tmp_path)["active_workflow"]["review_history"]
        assert history[0]["phase"] == "05-test-strategy" and history[0]["action"] == "continue"
        # the next presentation is a new gate: announced once more, opened by the user
        await wait_until(pilot, gate_waits(app, "06-implementation"))
        await wait_until(pilot, lambda: len(bells) >= 2)
        await open_gate(pilot, app, "06-implementation")


async def test_review_then_resume(tmp_path: Path, simulate) -> None:
    sim = simulate(tmp_path)
    sim.wait("gate", "05-test-strategy")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_gate(pilot, app, "05-test-strategy")
        await pilot.press("r")
        await wait_until(pilot, lambda: panel.view.status == "reviewing")
        doc = read_state(tmp_path)
        assert review(doc)["status"] == "reviewing" and review(doc)["paused_at"]
        await wait_until(pilot, lambda: sim.seen("decision:review", "05-test-strategy"))
        # the panel stayed open and now offers Resume instead of Continue/Review
        assert app.screen is panel
        keys = footer_keys(app)
        assert "u" in keys and "c" not in keys and "r" not in keys
        assert not sim.seen("3c-prime", "06-implementation")  # the gate stays blocked
        await pilot.press("u")
        await wait_until(pilot, lambda: sim.seen("decision:resume", "05-test-strategy"))
        await wait_until(pilot, lambda: sim.seen("3c-prime", "06-implementation"))
        entry = read_state(tmp_path)["active_workflow"]["review_history"][0]
        assert entry["action"] == "review" and entry["paused_at"] and entry["resumed_at"]
        actions = [e["action"] for e in journal(tmp_path)]
        assert actions == ["review review", "review resume"]


async def test_redo_with_guidance_reruns_the_phase_and_presents_again(
    tmp_path: Path, simulate
) -> None:
    sim = simulate(tmp_path)
    sim.wait("gate", "05-test-strategy")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "05-test-strategy")
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, TextPromptDialog))
        await pilot.press("enter")  # empty guidance is refused, the dialog stays
        assert isinstance(app.screen, TextPromptDialog)
        await pilot.press(*"cover [the] edge cases")
        await pilot.press("enter")
        await wait_until(pilot, lambda: sim.seen("decision:redo", "05-test-strategy"))
        redo = next(e for e in sim.events if e.name == "decision:redo")
        sr = review(redo.state or {})
        assert sr is not None and sr["status"] == "redo_pending" and sr["redo_count"] == 1
        assert sr["redo_guidance_history"] == ["cover [the] edge cases"]
        # the phase re-runs (3c-prime again) and the gate is presented again: a new panel
        await wait_until(pilot, lambda: sim.seen("3c-prime", "05-test-strategy", count=2))
        await open_gate(pilot, app, "05-test-strategy", redo=1)
        history = read_state(tmp_path)["active_workflow"]["review_history"]
        assert history[-1]["action"] == "redo"
        assert history[-1]["guidance"] == "cover [the] edge cases"
        assert "cover [the] edge cases" in app.screen.text  # shown as text, not markup


async def test_redo_is_hidden_at_the_limit_and_the_gate_is_announced_once(tmp_path: Path) -> None:
    state = F.build_state()  # 06-implementation gate presented
    state = F.setpath(state, "active_workflow.supervised_review.redo_count", 3)
    state = F.setpath(
        state, "active_workflow.supervised_review.redo_guidance_history", ["a", "b", "c"]
    )
    write_state(tmp_path / STATE, state)
    app = make_app(tmp_path)
    toasts, bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "06-implementation", redo=3)
        keys = footer_keys(app)
        assert "c" in keys and "d" not in keys
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, GatePanel)  # no guidance dialog
        assert "redo limit reached (3/3)" in app.screen.text
        # closing and further updates of the same presentation announce nothing again
        await pilot.press("escape")
        assert not isinstance(app.screen, GatePanel)
        applied = app.updates_applied
        write_state(tmp_path / STATE, F.setpath(F.bump(state), "project.description", "touched"))
        await wait_until(pilot, lambda: app.updates_applied > applied)
        await pilot.pause()
        assert not isinstance(app.screen, GatePanel)
        assert len(bells) == 1
        assert sum("Review gate" in t["message"] for t in toasts) == 1
        assert "g to decide" in next(t["message"] for t in toasts if "Review gate" in t["message"])
        assert "w" in footer_keys(app) and app.screen.active_bindings["g"].enabled
        await pilot.press("g")  # brings it back
        await wait_until(pilot, gate_open(app, "06-implementation", redo=3))
    assert journal(tmp_path) == []


async def test_a_conflict_shows_the_refusal_and_writes_nothing(tmp_path: Path, simulate) -> None:
    sim = simulate(tmp_path)
    sim.wait("gate", "05-test-strategy")
    app = make_app(tmp_path, watch=False)  # one read: the panel keeps what the user looked at
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "05-test-strategy")
        looked = read_state(tmp_path)
        changed = F.setpath(F.bump(looked), "project.description", "changed behind the panel")
        write_state(tmp_path / STATE, changed)
        before = (tmp_path / STATE).read_bytes()
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, RefusalDialog))
        dialog = app.screen
        assert isinstance(dialog, RefusalDialog)
        assert "refused-conflict" in dialog.text
        assert f"v{changed['state_version']}" in dialog.text  # the CURRENT state
        assert (tmp_path / STATE).read_bytes() == before
        [entry] = journal(tmp_path)
        assert entry["outcome"] == "refused-conflict" and entry["version_after"] is None
        assert not sim.seen("decision:continue")
        await pilot.press("escape")
        assert isinstance(app.screen, GatePanel)


# ---------------------------------------------------------------------------- escalations


async def test_escalation_retry_then_skip(tmp_path: Path, simulate) -> None:
    sim = simulate(tmp_path, supervised=False, escalate=["06-implementation"])
    sim.wait("escalation", "06-implementation")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_escalations(pilot, app)
        detail = read_state(tmp_path)["pending_escalations"][0]["detail"]
        assert "\n" in detail
        for line in detail.strip().splitlines():
            assert line.strip() in screen.detail_text
        assert {"r", "s", "c"} <= footer_keys(app)  # the letters the escalation text offers
        await pilot.press("r")
        await wait_until(pilot, lambda: sim.seen("decision:retry", "06-implementation"))
        doc = next(e for e in sim.events if e.name == "decision:retry").state or {}
        assert doc["active_workflow"]["recovery_action"]["type"] == "retry"
        assert doc["pending_escalations"] == []
        # the re-run is blocked again (block_attempts=2): a new escalation on the same screen
        await wait_until(pilot, lambda: sim.seen("escalation", "06-implementation", count=2))
        await wait_until(
            pilot,
            lambda: screen.pending and screen.pending[0].type == "corridor_blocked",
        )
        await pilot.press("s")  # Skip overrides a block: confirmed first, like Cancel
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await wait_until(pilot, lambda: "Keep the block (n)" in screen_text(app))
        assert not sim.seen("decision:skip", "06-implementation")
        await pilot.press("y")
        await wait_until(pilot, lambda: sim.seen("decision:skip", "06-implementation"))
        await wait_until(pilot, lambda: sim.seen("3c-prime", "16-quality-loop"))
        actions = [(e["action"], e["outcome"]) for e in journal(tmp_path)]
        assert actions == [("escalation retry", "applied"), ("escalation skip", "applied")]
        await wait_until(pilot, lambda: not screen.pending)


async def test_escalation_cancel_asks_a_reason_and_confirmation(tmp_path: Path, simulate) -> None:
    sim = simulate(tmp_path, supervised=False, escalate=["06-implementation"])
    sim.wait("escalation", "06-implementation")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "e" in footer_keys(app))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EscalationsScreen))
        await wait_until(pilot, lambda: bool(app.screen.pending))
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, TextPromptDialog))
        await wait_until(pilot, lambda: "Escape: back, the workflow is kept" in screen_text(app))
        assert "Escape: cancel" not in screen_text(app)
        await pilot.press(*"wrong approach")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await wait_until(pilot, lambda: "Keep the workflow (n)" in screen_text(app))
        await pilot.press("y")
        await wait_until(pilot, lambda: sim.result is not None)
        assert sim.result.status == "cancelled"
        doc = read_state(tmp_path)
        assert doc["active_workflow"] is None and doc["pending_escalations"] == []
        last = doc["workflow_history"][-1]
        assert last["status"] == "cancelled" and last["cancellation_reason"] == "wrong approach"
        [entry] = journal(tmp_path)
        assert entry["action"] == "escalation cancel" and entry["params"] == {
            "reason": "wrong approach"
        }


# ---------------------------------------------------------------------------- plan approval


def unapproved_plan(root: Path, *, lock: bool, created: str = "2026-03-02") -> bytes:
    text = (FIXTURES / "planner.md").read_text(encoding="utf-8")
    text = text.replace("**Approved:** 2026-03-02T14:03:11Z\n", "")
    text = text.replace("**Created:** 2026-03-02", f"**Created:** {created}")
    data = text.encode("utf-8")
    (root / ".tdd-progress.md").write_bytes(data)
    if lock:
        (root / ".tdd-plan-locked").touch()
    return data


async def open_plan(pilot, app: PhasewatchApp) -> PlanScreen:
    await wait_until(pilot, lambda: "a" in footer_keys(app))
    await pilot.press("a")
    await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen) and app.screen.applied)
    screen = app.screen
    assert isinstance(screen, PlanScreen)
    return screen


async def test_plan_approval_inserts_only_the_marker_and_removes_the_lock(
    tmp_path: Path,
) -> None:
    before = unapproved_plan(tmp_path, lock=True)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot, app)
        assert "NOT approved" in screen.note_text and "x" in footer_keys(app)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: not (tmp_path / ".tdd-plan-locked").exists())
        after = (tmp_path / ".tdd-progress.md").read_bytes()
        anchor = b"**Last Updated:** 2026-03-04T10:15:00Z\n"
        cut = before.index(anchor) + len(anchor)
        assert after.startswith(before[:cut]) and after.endswith(before[cut:])
        inserted = after[cut : len(after) - len(before) + cut]
        assert inserted.startswith(b"**Approved:** ") and inserted.count(b"\n") == 1
        await wait_until(pilot, lambda: "The plan is approved" in screen.note_text)
        assert "x" not in footer_keys(app)
        # an approved plan is not offered for approval again: a does nothing
        assert "a" not in footer_keys(app)
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen
        assert (tmp_path / ".tdd-progress.md").read_bytes() == after
    outcomes = [(e["action"], e["outcome"]) for e in journal(tmp_path)]
    assert outcomes == [("approve", "applied")]


async def test_a_plan_rewritten_after_you_looked_is_not_approved(tmp_path: Path) -> None:
    """The planner rewrites the plan while the confirmation is open: the approval is for the
    plan on screen, so the writer refuses (conflict), writes nothing and says why."""
    unapproved_plan(tmp_path, lock=True)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plan(pilot, app)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        progress = tmp_path / ".tdd-progress.md"
        rewritten = progress.read_bytes().replace(b"## Slice 1:", b"## Slice 1 (replanned):", 1)
        assert rewritten != progress.read_bytes()
        progress.write_bytes(rewritten)
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, RefusalDialog))
        assert "changed since you looked" in app.screen.text
        assert progress.read_bytes() == rewritten  # the other writer's bytes, untouched
        assert (tmp_path / ".tdd-plan-locked").exists()
    outcomes = [(e["action"], e["outcome"]) for e in journal(tmp_path)]
    assert outcomes == [("approve", "refused-conflict")]


async def test_discard_only_removes_the_lock(tmp_path: Path) -> None:
    before = unapproved_plan(tmp_path, lock=True)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_plan(pilot, app)
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("n")  # declined: nothing happens
        await pilot.pause()
        assert (tmp_path / ".tdd-plan-locked").exists() and journal(tmp_path) == []
        await pilot.press("x")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: not (tmp_path / ".tdd-plan-locked").exists())
        assert (tmp_path / ".tdd-progress.md").read_bytes() == before
        await wait_until(pilot, lambda: not screen.lock_present)
        assert "x" not in footer_keys(app) and "NOT approved" in screen.note_text
    [entry] = journal(tmp_path)
    assert entry["action"] == "approve --discard" and entry["outcome"] == "applied"


async def test_plan_approval_releases_the_tdd_simulator(tmp_path: Path, simulate) -> None:
    sim = simulate(tmp_path, workflow="tdd", supervised=False, tdd_lock=True)
    sim.wait("tdd-plan")
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_plan(pilot, app)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.press("y")
        await wait_until(pilot, lambda: sim.seen("decision:approve"))
        await wait_until(pilot, lambda: sim.seen("tdd-slice"))
        assert not (tmp_path / ".tdd-plan-locked").exists()


# ---------------------------------------------------------------------------- read-only


async def test_read_only_shows_but_never_writes(tmp_path: Path) -> None:
    state = F.escalate(F.build_state(), "gate_blocked", phase="06-implementation")
    write_state(tmp_path / STATE, state)
    unapproved_plan(tmp_path, lock=True)
    before = (tmp_path / STATE).read_bytes()
    app = make_app(tmp_path, read_only=True)
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "06-implementation")
        assert not {"c", "r", "u", "d"} & footer_keys(app)
        assert "Read-only mode" in app.screen.text and "06-implementation" in app.screen.text
        await pilot.press("c", "r", "d")
        await pilot.pause()
        assert isinstance(app.screen, GatePanel)
        await pilot.press("escape")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EscalationsScreen))
        assert not {"r", "s", "c"} & footer_keys(app)
        await wait_until(pilot, lambda: bool(app.screen.detail_text))
        await pilot.press("s", "c")
        await pilot.pause()
        assert isinstance(app.screen, EscalationsScreen)
        await pilot.press("escape", "a")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen))
        assert not {"a", "x"} & footer_keys(app)
        await pilot.press("a", "x")
        await pilot.pause()
        assert isinstance(app.screen, PlanScreen)
        # the action itself refuses too (e.g. from the command palette)
        view = app.review.waiting_gate()
        assert view is not None
        app.review.decide_gate(view, "continue", asker=app)
        await pilot.pause()
        said = " ".join(t["message"] for t in toasts)
        assert "to answer" not in said and "to decide" not in said and "e to view" in said
    assert app.review.results == []
    assert (tmp_path / STATE).read_bytes() == before
    assert (tmp_path / ".tdd-plan-locked").exists()
    assert not journal_path(tmp_path).exists()


# ---------------------------------------------------------------------------- attention queue


async def test_attention_queue_lists_everything_oldest_first(tmp_path: Path) -> None:
    state = F.build_state()  # gate 06-implementation presented (completed ~ 11:00)
    completed = state["phases"]["06-implementation"]["timing"]["completed_at"]
    state = F.bump(state)
    state["pending_escalations"] = [
        {
            "type": "constitution_blocked",
            "hook": "constitution-validator",
            "phase": "06-implementation",
            "detail": "CONSTITUTION BLOCKED\nArticle II\nArticle IX",
            "timestamp": "2026-03-04T08:00:00.000Z",
        }
    ]
    write_state(tmp_path / STATE, state)
    unapproved_plan(tmp_path, lock=False, created="2026-03-04T08:30:00Z")
    assert completed > "2026-03-04T08:30:00Z"
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "06-implementation")
        await pilot.press("escape")
        header = app.data_screens["overview"].query_one(OverviewHeader).text
        assert "REVIEW GATE" in header and "1 ESCALATION" in header
        assert "PLAN NOT APPROVED" in header
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, AttentionScreen))
        screen = app.screen
        assert isinstance(screen, AttentionScreen)
        await wait_until(pilot, lambda: len(screen.items) == 3)
        assert [i.kind for i in screen.items] == ["escalation", "plan", "gate"]
        assert screen.items[2].since_raw == completed
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, EscalationsScreen))
        # from any screen: the queue again, then the gate item opens the gate panel
        await pilot.press("w")
        await wait_until(pilot, lambda: isinstance(app.screen, AttentionScreen))
        await wait_until(pilot, lambda: len(app.screen.items) == 3)
        await pilot.press("down", "down", "enter")
        await wait_until(pilot, gate_open(app, "06-implementation"))
        await pilot.press("escape", "w")
        await wait_until(pilot, lambda: isinstance(app.screen, AttentionScreen))
        await wait_until(pilot, lambda: len(app.screen.items) == 3)
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PlanScreen))


# ---------------------------------------------------------------------------- no decision by accident


def no_gate(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` before its gate was presented (the review block not written yet)."""
    return F.setpath(F.bump(state, -1), "active_workflow.supervised_review", None)


async def test_typing_into_the_hook_search_while_a_gate_arrives_decides_nothing(
    tmp_path: Path,
) -> None:
    gated = F.build_state()
    write_state(tmp_path / STATE, no_gate(gated))
    app = make_app(tmp_path, arm_delay=0.5)
    toasts, bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.press("2")
        await wait_until(pilot, lambda: app.screen.name == "hooks")
        hooks = app.screen
        await pilot.press("slash")
        search = hooks.query_one("#hooklog-search", Input)
        await wait_until(pilot, lambda: search.has_focus)
        await pilot.press("c", "a")
        write_state(tmp_path / STATE, gated)  # the gate is presented while the user types
        await wait_until(pilot, gate_waits(app, "06-implementation"))
        await pilot.press("c", "h", "e")
        await pilot.pause()
        assert search.value == "cache" and search.has_focus
        assert app.screen is hooks and len(app.screen_stack) == 1  # nothing pushed over it
        assert bells and any("Review gate 06-implementation" in t["message"] for t in toasts)
        # the deliberate path still works: leave the box, open the panel, wait, decide
        await pilot.press("escape")  # leaves the search box
        assert not search.has_focus
        await pilot.press("g")
        await wait_until(pilot, gate_open(app, "06-implementation"))
        app.review.arm_delay = 0
        await pilot.press("c")
        await wait_until(pilot, lambda: bool(app.review.results))
    assert [(e["action"], e["outcome"]) for e in journal(tmp_path)] == [
        ("review continue", "applied")
    ]


async def test_a_key_right_after_the_panel_opens_does_nothing(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, F.build_state())
    app = make_app(tmp_path, arm_delay=0.5)
    ticks = [100.0]
    app.review.monotonic = lambda: ticks[0]
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_gate(pilot, app, "06-implementation")
        await pilot.press("c", "r", "d")  # "gc..." typed in one go: too soon, ignored
        await pilot.pause()
        assert app.screen is panel and app.review.results == [] and journal(tmp_path) == []
        ticks[0] += 0.6  # a deliberate press, after the panel has been seen
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[0].ok and review(read_state(tmp_path))["status"] == "reviewing"


async def test_a_second_press_after_our_own_write_is_already_applied(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, F.build_state())
    app = make_app(tmp_path, watch=False)  # the panel keeps showing the version it decided on
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_gate(pilot, app, "06-implementation")
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
        after = (tmp_path / STATE).read_bytes()
        await pilot.press("r")  # the same look again: our own write, not a conflict
        await pilot.pause()
        assert app.screen is panel and not isinstance(app.screen, RefusalDialog)
        assert any("already applied" in t["message"] for t in toasts)
        assert (tmp_path / STATE).read_bytes() == after
    assert [(e["action"], e["outcome"]) for e in journal(tmp_path)] == [
        ("review review", "applied")
    ]


async def test_the_gate_panel_states_one_status_and_q_quits(tmp_path: Path) -> None:
    state = F.build_state()
    write_state(tmp_path / STATE, state)
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_gate(pilot, app, "06-implementation")
        assert "gate_presented" in panel.text
        decided = F.setpath(F.bump(state), "active_workflow.supervised_review", None)
        write_state(tmp_path / STATE, decided)  # decided elsewhere
        await wait_until(pilot, lambda: not panel.current)
        assert "no longer waiting" in panel.text and "gate_presented" not in panel.text
        assert "gate_presented" not in screen_text(app)
        await pilot.press("q")
        await wait_until(pilot, lambda: not app.is_running)


# ---------------------------------------------------------------------------- markup and escapes

HOSTILE = ("[/]", "[@click=app.quit]x[/]", "[@click=screen.dismiss('evil')]y[/]")


async def test_hostile_phase_keys_in_titles_stay_text(tmp_path: Path) -> None:
    """The Redo dialog's title carries the phase key: markup there ran an attacker's action
    when clicked, ``[/]`` crashed. Every dialog title is literal text, escapes removed."""
    key = "06-impl[@click=screen.dismiss('evil')]y[/][/]\x1b]52;c;ZXZpbA==\x07"
    state = F.setpath(F.build_state(), "active_workflow.supervised_review.phase", key)
    write_state(tmp_path / STATE, state)
    app = make_app(tmp_path)
    quits: list[int] = []

    async def fake_quit() -> None:
        quits.append(1)

    app.action_quit = fake_quit  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.review.waiting_gate() is not None)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GatePanel))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, TextPromptDialog))
        dialog = app.screen
        await pilot.pause()
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg and "52;c" not in svg
        shown = screen_text(app)
        assert "Redo 06-impl[@click=screen.dismiss('evil')]y[/][/]" in shown
        box = dialog.query_one(Vertical)
        for x in range(0, box.size.width, 2):  # click along the title line
            await pilot.click(Vertical, offset=(x, 0))
        await pilot.pause()
        assert app.screen is dialog and quits == [] and journal(tmp_path) == []


async def test_every_console_dialog_title_is_literal(tmp_path: Path) -> None:
    write_state(tmp_path / STATE, F.build_state())
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        for title in HOSTILE:
            for dialog in (
                ConfirmDialog(title, title, yes=title, no=title),
                TextPromptDialog(title, title, title),
                RefusalDialog(title, title, {title: [title, {title: title}]}, title),
            ):
                await app.push_screen(dialog)
                await pilot.pause()
                assert title in screen_text(app), (type(dialog).__name__, title)
                assert "\x1b" not in app.export_screenshot()
                await pilot.press("escape")
                await pilot.pause()
        assert app.is_running and len(app.screen_stack) == 1


async def test_a_key_right_after_the_escalations_change_does_nothing(tmp_path: Path) -> None:
    """The list changes under the user (a new escalation): the key typed for the old list is
    not an answer to the new one. After a moment, r (the banner's [R] Retry) answers."""
    base = F.setpath(F.build_state(), "active_workflow.supervised_review", None)
    one = F.escalate(base, "gate_blocked", phase="06-implementation")
    write_state(tmp_path / STATE, one)
    app = make_app(tmp_path, arm_delay=0.5)
    ticks = [100.0]
    app.review.monotonic = lambda: ticks[0]
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_escalations(pilot, app)
        ticks[0] += 1
        write_state(tmp_path / STATE, F.escalate(one, "constitution_blocked", seconds=5))
        await wait_until(pilot, lambda: len(screen.keys) == 2)
        await pilot.press("r")
        await pilot.pause()
        assert app.review.results == [] and journal(tmp_path) == []
        ticks[0] += 1
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
    [entry] = journal(tmp_path)
    assert entry["action"] == "escalation retry" and entry["outcome"] == "applied"


async def test_a_decision_the_owner_writes_over_later_is_reported_reverted(tmp_path: Path) -> None:
    """The owner read the file before our write and writes its old copy well after the
    writer's own look-again: the console, still watching, says REVERTED (toast and bell),
    journals it, and a second press decides again instead of 'already applied'."""
    path = tmp_path / STATE
    write_state(path, F.build_state())
    before = json.loads(path.read_bytes())
    app = make_app(tmp_path, watch=False)
    app.review.confirm_seconds = 30
    toasts, bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "06-implementation")
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[-1].ok
        stale = dict(before, state_version=before["state_version"] + 2)
        path.write_text(json.dumps(stale, indent=2))  # the owner's old copy, 1 write later
        await wait_until(pilot, lambda: any("REVERTED" in str(t.get("title")) for t in toasts))
        [toast] = [t for t in toasts if "REVERTED" in str(t.get("title"))]
        assert toast["severity"] == "error" and toast["markup"] is False
        assert "NOT in the file" in toast["message"] and bells
        assert app.review.results[-1].outcome == "reverted"
        assert not app.review._applied  # pressing again is a new decision, not "already applied"
    assert [(e["action"], e["outcome"]) for e in journal(tmp_path)] == [
        ("review review", "applied"),
        ("review review", "reverted"),
    ]


async def test_a_second_press_after_an_unwatched_revert_decides_again(tmp_path: Path) -> None:
    """Issue 25: the console's memory of an applied decision is a record, not proof. The owner
    undid the pause after the watch (here: no watch at all) by writing its old copy with the
    version bumped by hand (41 + 1: the version our write had); pressing again must not say
    'already applied': the writer is asked, and it says the decision is not in the file."""
    path = tmp_path / STATE
    write_state(path, F.build_state())
    before = json.loads(path.read_bytes())
    app = make_app(tmp_path, watch=False)  # the panel keeps showing the version it decided on
    app.review.confirm_seconds = 0
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await open_gate(pilot, app, "06-implementation")
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[-1].ok
        stale = dict(before, state_version=before["state_version"] + 1)
        path.write_text(json.dumps(stale, indent=2))  # the owner's old copy, bumped by hand
        await pilot.press("r")
        await wait_until(pilot, lambda: len(app.review.results) == 2)
        assert not any("already applied" in t["message"] for t in toasts)
        assert "NOT in the file" in app.review.results[-1].message
    assert [(e["action"], e["outcome"]) for e in journal(tmp_path)] == [
        ("review review", "applied"),
        ("review review", "refused-conflict"),
    ]
