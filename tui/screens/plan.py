"""``a``: the TDD plan (task, slices, approval state, lock) and its approval.

``a`` Approve (after a confirmation) -> ``core.decide.decide_approval``: inserts the
``**Approved:**`` marker (every other byte kept) and removes ``.tdd-plan-locked`` after.
``x`` Discard lock, offered only while the lock exists and only through a confirmation: removes
the lock and nothing else (the plan stays unapproved). ``a`` is not offered for an approved plan
(and core refuses it). Read-only mode hides both. The confirmation ignores a key typed within a
moment of it appearing (KeyGuard); a plan rewritten on screen re-arms the screen's guard.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.core.systems import TDD
from phasewatch.widgets.footer import KeyFooter
from phasewatch.widgets.tdd_board import TddBoard
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from .console_base import ConsoleScreen
from .dialogs import ConfirmDialog

if TYPE_CHECKING:
    from ..console import ReviewConsole


class PlanScreen(ConsoleScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve plan…"),
        Binding("x", "discard", "Discard lock…"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, console: ReviewConsole, **kwargs: Any) -> None:
        super().__init__(console, **kwargs)
        self.plan: Any = None

    def compose(self) -> Iterable[Widget]:
        yield TddBoard(id="plan-board")
        yield Static("", id="plan-note", markup=False)
        yield KeyFooter()

    @property
    def note_text(self) -> str:
        return str(self.query_one("#plan-note", Static).render())

    @property
    def lock_present(self) -> bool:
        return bool(getattr(self.plan, "lock_exists", False))

    def render_data(self, update: SessionUpdate) -> None:
        view = update.system(TDD)
        plan = view.data
        if self.plan is not None and getattr(plan, "sha256", None) != self.plan.sha256:
            self.guard.arm()  # another plan under the user's eyes
        self.plan = plan
        self.query_one("#plan-board", TddBoard).set_plan(plan, findings=list(view.findings))
        note = Text()
        if plan is None:
            note.append("No .tdd-progress.md in this project: nothing to approve.")
        elif plan.is_approved:
            note.append("The plan is approved", style="bold")
            note.append(f" ({plan.approved or 'no timestamp'}).")
            if self.lock_present:
                note.append(" The lock file is still there: x discards it.")
        else:
            note.append("The plan is NOT approved. ", style="bold")
            note.append("a approves it: writes **Approved:** <now> after **Last Updated:** ")
            note.append("(nothing else changes) and then removes .tdd-plan-locked.")
            if self.lock_present:
                note.append(" x only removes the lock (the plan stays unapproved).")
        if self.read_only:
            note.append("\nRead-only mode: approval is disabled.", style="bold")
        self.query_one("#plan-note", Static).update(note)

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "approve":
            if self.read_only or self.is_approved:
                return False
            return True if self.plan is not None else None
        if action == "discard":
            return not self.read_only and self.lock_present
        return True

    @property
    def is_approved(self) -> bool:
        return bool(getattr(self.plan, "is_approved", False))

    def action_approve(self) -> None:
        if self.console.refuse_read_only("plan approval"):
            return
        if self.plan is None or self.is_approved:
            why = "already approved" if self.plan is not None else "no TDD plan to approve"
            self.app.notify(f"Plan approval: {why}.", markup=False, timeout=3)
            return
        if self.guard.refuses(self):
            return
        seen = getattr(self.plan, "sha256", None)  # the bytes on screen now, not at confirmation
        message = Text("Approve the TDD plan ")
        message.append(str(getattr(self.plan, "task", None) or "(no task name)"), style="bold")
        message.append(
            "?\n\nWrites one line, **Approved:** <now>, into .tdd-progress.md (every other byte "
            "kept), then removes .tdd-plan-locked if present."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.console.decide_plan(plan_sha256=seen, asker=self)

        dialog = ConfirmDialog(
            "Approve plan", message, yes="Approve", guard=self.console.key_guard()
        )
        self.app.push_screen(dialog, confirmed)

    def action_discard(self) -> None:
        if self.console.refuse_read_only("discarding the lock") or self.guard.refuses(self):
            return
        if not self.lock_present:
            self.app.notify("No .tdd-plan-locked: nothing to discard.", markup=False, timeout=3)
            return
        seen = getattr(self.plan, "sha256", None)
        message = Text(
            "Remove .tdd-plan-locked WITHOUT approving the plan?\n\n"
            ".tdd-progress.md is not touched; the plan stays unapproved."
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.console.decide_plan(plan_sha256=seen, discard=True, asker=self)

        dialog = ConfirmDialog(
            "Discard the plan lock", message, yes="Remove lock", guard=self.console.key_guard()
        )
        self.app.push_screen(dialog, confirmed)
