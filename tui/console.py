"""The supervised review console: the part of :class:`tui.app.PhasewatchApp` that opens the
gate panel, keeps the attention queue and writes decisions (a mixin, so app.py only gains a
base class, a few bindings and two calls).

Gate detection and de-duplication: after every :class:`~core.session.SessionUpdate`,
:meth:`ReviewConsole.review_update` takes the shown project's gate
(:func:`core.review.presented_gate`, status ``gate_presented``). Its identity is
``GateView.key`` = (project id, workflow identity (type, slug, artifact folder, started_at),
phase, redo_count). When that key differs from the last one announced, the console rings the
bell, shows a toast and pushes the :class:`~tui.screens.review.GatePanel` (unless one is open:
it is updated in place). The same presentation never re-opens the panel (a controller restart
re-offering the gate keeps the key); a redo re-presents with ``redo_count + 1``, a new key.
``g`` brings a dismissed panel back while a gate waits.

Decisions: each goes through ``core.decide`` in a thread worker (``@work(thread=True)``) with
``seen=`` the document the user looked at. Applied -> toast and the watcher is told the write
was ours (``Watcher.expect_own_write``); anything else -> an error toast AND a
:class:`~tui.screens.dialogs.RefusalDialog` with the message and the current state summary.
In read-only mode every write action is hidden and refuses with a message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from phasewatch.core import decide
from phasewatch.core.review import (
    AttentionItem,
    GateView,
    attention_items,
    escalation_key,
    gate_view,
)
from phasewatch.core.session import SessionUpdate
from phasewatch.core.snapshot import Snapshot
from phasewatch.core.sources import FileStamp
from textual import work
from textual.app import SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from .bindings import refresh_bindings_if_changed
from .screens import load
from .screens.console_base import ConsoleScreen

if TYPE_CHECKING:
    from .screens.review import GatePanel

#: App-level bindings. Each console key has a visible binding (shown in the footer only when
#: something is waiting there) and a hidden twin that always works.
CONSOLE_BINDINGS: list[Binding] = [
    Binding("w", "console('attention')", "Waiting"),
    Binding("w", "console_any('attention')", "Waiting for a human", show=False),
    Binding("g", "gate", "Review gate", show=False),
    Binding("e", "console('escalations')", "Escalations"),
    Binding("e", "console_any('escalations')", "Escalations", show=False),
    Binding("a", "console('plan')", "Plan approval"),
    Binding("a", "console_any('plan')", "Plan approval", show=False),
]

#: name -> "module:Class"; imported when first opened (nothing waits at most start-ups).
CONSOLE_SCREENS: dict[str, str] = {
    "attention": "phasewatch.tui.screens.attention:AttentionScreen",
    "escalations": "phasewatch.tui.screens.escalations:EscalationsScreen",
    "plan": "phasewatch.tui.screens.plan:PlanScreen",
}


def console_screen_class(name: str) -> type[ConsoleScreen] | None:
    where = CONSOLE_SCREENS.get(name)
    if where is None:
        return None
    return load(where)


def _gate_panel_class() -> type[GatePanel]:
    from .screens.review import GatePanel

    return GatePanel


Done = Callable[[decide.DecisionResult], None] | None


class ReviewConsole:
    """Mixin for :class:`tui.app.PhasewatchApp` (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.gate_announced: tuple[Any, ...] | None = None
        self.escalations_announced: set[str] = set()
        self.attention: list[AttentionItem] = []
        self.decision_results: list[decide.DecisionResult] = []
        self.deciding = 0
        super().__init__(*args, **kwargs)

    # ------------------------------------------------------------------ reading
    def shown_snapshot(self) -> Snapshot | None:
        update: SessionUpdate | None = self.last_update  # type: ignore[attr-defined]
        return update.snapshot(self.project_id) if update is not None else None  # type: ignore[attr-defined]

    def state_path(self, snap: Snapshot) -> Path:
        update: SessionUpdate = self.last_update  # type: ignore[attr-defined]
        return update.project.root / snap.source

    def waiting_gate(self) -> GateView | None:
        view = gate_view(self.shown_snapshot())
        return view if view is not None and view.waiting else None

    def gate_panel(self) -> GatePanel | None:
        stack = self.screen_stack  # type: ignore[attr-defined]
        if len(stack) < 2:  # only the data screen: no panel (and no need to import its module)
            return None
        panel_class = _gate_panel_class()
        for screen in reversed(stack):
            if isinstance(screen, panel_class):
                return screen
        return None

    # ------------------------------------------------------------------ updates
    def review_update(self, update: SessionUpdate | None) -> None:
        """Called by the app after every update (and after a project switch)."""
        if update is None:
            return
        snap = update.snapshot(self.project_id)  # type: ignore[attr-defined]
        view = gate_view(snap)
        self.attention = attention_items(snap, update.tdd_plan)
        panel = self.gate_panel()
        if panel is not None:
            panel.set_view(view)  # the newest gate (a new presentation replaces the old one)
        if view is not None and view.status == "gate_presented" and view.key != self.gate_announced:
            self.gate_announced = view.key
            self.bell()  # type: ignore[attr-defined]
            self.notify(  # type: ignore[attr-defined]
                f"Review gate: {view.phase} waits for your decision (c continue, r review, "
                "d redo).",
                title="Supervised review",
                severity="warning",
                markup=False,
                timeout=8,
            )
            if self.gate_panel() is None:
                self.push_screen(_gate_panel_class()(view, update.project))  # type: ignore[attr-defined]
        self._announce_escalations(snap)
        for screen in self.screen_stack:  # type: ignore[attr-defined]
            if isinstance(screen, ConsoleScreen):
                screen.show_data(update)
        refresh_bindings_if_changed(self, CONSOLE_BINDINGS)  # type: ignore[arg-type]

    def _announce_escalations(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        new = []
        for i, esc in enumerate(snap.state.pending_escalations):
            key = f"{snap.project_id}|{escalation_key(i, esc)}"
            if key not in self.escalations_announced:
                self.escalations_announced.add(key)
                new.append(esc)
        if new:
            self.bell()  # type: ignore[attr-defined]
            phases = ", ".join(sorted({str(e.phase or "?") for e in new}))
            self.notify(  # type: ignore[attr-defined]
                f"{len(new)} new escalation(s) at {phases}: press e to answer.",
                title="Escalation",
                severity="error",
                markup=False,
                timeout=8,
            )

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "gate":
            return self.waiting_gate() is not None
        if action == "console":
            name = str(parameters[0]) if parameters else ""
            top = self.screen  # type: ignore[attr-defined]
            if isinstance(top, ConsoleScreen) and name == top.NAME:
                return False  # already there
            return self._relevant(name)
        return super().check_action(action, parameters)  # type: ignore[misc]

    def _relevant(self, name: str) -> bool:
        kinds = {i.kind for i in self.attention}
        if name == "attention":
            return bool(self.attention)
        if name == "escalations":
            return "escalation" in kinds
        if name == "plan":
            return "plan" in kinds
        return False

    def action_gate(self) -> None:
        view = self.waiting_gate()
        if view is None:
            self.notify("No review gate is waiting.", markup=False, timeout=3)  # type: ignore[attr-defined]
            return
        panel = self.gate_panel()
        if panel is not None:
            if panel is not self.screen:  # type: ignore[attr-defined]
                self.notify("The gate panel is already open.", markup=False, timeout=3)  # type: ignore[attr-defined]
            return
        self.push_screen(_gate_panel_class()(view, self.last_update.project))  # type: ignore[attr-defined]

    def action_console(self, name: str) -> None:
        self.open_console(name)

    def action_console_any(self, name: str) -> None:
        self.open_console(name)

    def open_console(self, name: str, **kwargs: Any) -> None:
        cls = console_screen_class(name)
        if cls is None:
            return
        top = self.screen  # type: ignore[attr-defined]
        if isinstance(top, cls) and not kwargs:
            return
        screen = cls(**kwargs)
        if isinstance(top, ConsoleScreen):
            self.switch_screen(screen)  # type: ignore[attr-defined]
        else:
            self.push_screen(screen)  # type: ignore[attr-defined]

    def open_attention_item(self, item: AttentionItem) -> None:
        """Open the panel or screen that answers ``item``."""
        if item.kind == "gate":
            top = self.screen  # type: ignore[attr-defined]
            if isinstance(top, ConsoleScreen):
                self.pop_screen()  # type: ignore[attr-defined]
            self.action_gate()
        elif item.kind == "escalation":
            self.open_console("escalations", select=item.index)
        elif item.kind == "plan":
            self.open_console("plan")

    # ------------------------------------------------------------------ decisions
    def refuse_read_only(self, what: str) -> bool:
        if self.read_only:  # type: ignore[attr-defined]
            self.notify(  # type: ignore[attr-defined]
                f"Read-only mode: {what} is disabled.", severity="warning", markup=False
            )
            return True
        return False

    def decide_gate(
        self, view: GateView, action: str, *, guidance: str | None = None, on_done: Done = None
    ) -> None:
        """Answer the review gate ``view`` shows (``seen`` = the document it came from)."""
        self._decide_state(
            f"review {action}", view.source, view.raw, decide.decide_review, action, on_done,
            guidance=guidance,
        )  # fmt: skip

    def decide_escalation_answer(
        self, snap: Snapshot, action: str, *, reason: str | None = None, on_done: Done = None
    ) -> None:
        self._decide_state(
            f"escalation {action}", snap.source, snap.raw, decide.decide_escalation, action,
            on_done, reason=reason,
        )  # fmt: skip

    def _decide_state(
        self,
        label: str,
        source: str,
        seen: dict[str, Any] | None,
        writer: Callable[..., decide.DecisionResult],
        action: str,
        on_done: Done,
        **options: Any,
    ) -> None:
        """A decision on a state file: ``writer(path, action, seen=..., **options)`` through the
        one decision writer, compared against ``seen``, the document the user looked at."""
        if self.refuse_read_only(label):
            return
        path = self.state_path_for(source)

        def call() -> decide.DecisionResult:
            return writer(path, action, seen=seen, via="tui", **options)

        self.submit_decision(label, call, path, on_done)

    def decide_plan(
        self, *, discard: bool = False, expect_sha256: str | None = None, on_done: Done = None
    ) -> None:
        """Approve the plan (or discard its lock). ``expect_sha256``: the digest of the plan the
        user looked at; the writer refuses when the file no longer has those bytes."""
        what = "discard the plan lock" if discard else "plan approval"
        if self.refuse_read_only(what):
            return
        progress = self.last_update.project.tdd_progress  # type: ignore[attr-defined]

        def call() -> decide.DecisionResult:
            return decide.decide_approval(
                progress, discard=discard, expect_sha256=expect_sha256, via="tui"
            )

        self.submit_decision(
            "approve --discard" if discard else "approve",
            call,
            None if discard else progress,
            on_done,
        )

    def state_path_for(self, source: str) -> Path:
        return self.last_update.project.root / source  # type: ignore[attr-defined]

    def submit_decision(
        self,
        label: str,
        call: Callable[[], decide.DecisionResult],
        own_path: Path | None,
        on_done: Done,
    ) -> None:
        self.deciding += 1
        self._decision_worker(label, call, own_path, on_done)

    @work(thread=True, group="decide", exit_on_error=False)
    def _decision_worker(
        self,
        label: str,
        call: Callable[[], decide.DecisionResult],
        own_path: Path | None,
        on_done: Done,
    ) -> None:
        try:
            result = call()
        except Exception as exc:  # core.decide reports I/O errors itself; this is a bug guard
            result = decide.DecisionResult("error", f"{type(exc).__name__}: {exc}", action=label)
        stamp = FileStamp.of(own_path) if result.ok and own_path is not None else None
        self.call_from_thread(  # type: ignore[attr-defined]
            self._decision_done, label, result, own_path, stamp, on_done
        )

    def _decision_done(
        self,
        label: str,
        result: decide.DecisionResult,
        own_path: Path | None,
        stamp: FileStamp | None,
        on_done: Done,
    ) -> None:
        self.deciding -= 1
        self.decision_results.append(result)
        if result.ok:
            watcher = getattr(self, "watcher", None)
            if watcher is not None and own_path is not None:
                watcher.expect_own_write(own_path, stamp)
            self.notify(result.message, title=f"{label}: applied", markup=False, timeout=6)  # type: ignore[attr-defined]
        else:
            self.notify(  # type: ignore[attr-defined]
                result.message,
                title=f"{label}: {result.outcome}",
                severity="error",
                markup=False,
                timeout=10,
            )
            from .screens.dialogs import RefusalDialog

            self.push_screen(  # type: ignore[attr-defined]
                RefusalDialog(
                    f"{label}: {result.outcome} — nothing was decided",
                    result.message,
                    result.state_summary,
                    decide.describe_summary(result.state_summary)
                    if result.state_summary
                    else "(the file could not be read)",
                )
            )
        if on_done is not None:
            on_done(result)

    # ------------------------------------------------------------------ palette
    def console_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Waiting for a human",
            "Gates, escalations, unapproved plans (w)",
            self._cmd("attention"),
        )
        yield SystemCommand("Escalations", "Pending escalations (e)", self._cmd("escalations"))
        yield SystemCommand("Plan approval", "The TDD plan and its approval (a)", self._cmd("plan"))
        yield SystemCommand("Review gate", "Bring back the gate panel (g)", self.action_gate)

    def _cmd(self, name: str) -> Callable[[], None]:
        return lambda: self.open_console(name)
