"""``e``: pending escalations (type, hook, phase, age) with the full multi-line ``detail`` of the
selected one, and the three answers, with the letters the escalation's own text offers
(``[R] Retry [S] Skip [C] Cancel``): ``r`` Retry; ``s`` Skip, which overrides a hook's block, so
it asks for a confirmation; ``c`` Cancel workflow (asks for a reason, then a confirmation). An
answer applies to every pending escalation (the protocol clears the whole array); it is written
by ``core.decide.decide_escalation`` with ``seen=`` the state document on screen. A key within a
moment of the screen appearing, or of the list changing, does nothing (KeyGuard)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core.protocol import parse_iso
from phasewatch.core.review import escalation_key
from phasewatch.core.session import SessionUpdate
from phasewatch.core.snapshot import Snapshot
from phasewatch.widgets._table import LiveTable
from phasewatch.widgets.footer import KeyFooter
from phasewatch.widgets.header import format_elapsed
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import DataTable, Static

from .console_base import ConsoleScreen
from .dialogs import ConfirmDialog, TextPromptDialog

if TYPE_CHECKING:
    from ..console import ReviewConsole


class EscalationsScreen(ConsoleScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "answer('retry')", "Retry phase"),
        Binding("s", "skip", "Skip (override)…"),
        Binding("c", "cancel_workflow", "Cancel workflow…"),
        Binding("R", "answer('retry')", "Retry phase", show=False),
        Binding("S", "skip", "Skip (override)…", show=False),
        Binding("C", "cancel_workflow", "Cancel workflow…", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, console: ReviewConsole, select: int | None = None, **kwargs: Any) -> None:
        super().__init__(console, **kwargs)
        self.snap: Snapshot | None = None
        self.keys: list[str] = []
        self.select = select

    def compose(self) -> Iterable[Widget]:
        with Vertical(id="esc") as box:
            box.border_title = "Pending escalations"
            yield Static("", id="esc-head", markup=False)
            yield LiveTable(id="esc-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="esc-detail-box") as detail:
                detail.border_title = "Detail"
                yield Static("", id="esc-detail", markup=False)
        yield KeyFooter()

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#esc-table", DataTable)

    @property
    def pending(self) -> list[Any]:
        return list(self.snap.state.pending_escalations) if self.snap is not None else []

    @property
    def detail_text(self) -> str:
        return str(self.query_one("#esc-detail", Static).render())

    def render_data(self, update: SessionUpdate) -> None:
        self.snap = self.console.snapshot(update)
        pending = self.pending
        table = self.table
        if not table.columns:
            for label in ("type", "hook", "phase", "age", "first line"):
                table.add_column(Text(label), key=label)
        keys = [escalation_key(i, e) for i, e in enumerate(pending)]
        now = self.console.now()
        if keys != self.keys:
            if self.keys:  # the list changed under the user: keys typed for the old one
                self.guard.arm()
            row = table.cursor_row
            table.clear()
            for key, esc in zip(keys, pending, strict=True):
                first = (esc.detail or "").strip().split("\n", 1)[0]
                table.add_row(
                    Text(esc.type or "?"),
                    Text(esc.hook or "?"),
                    Text(esc.phase or "?"),
                    Text(self._age(esc.timestamp, now)),
                    Text(first[:80]),
                    key=key,
                )
            self.keys = keys
            if self.select is not None and 0 <= self.select < len(keys):
                row, self.select = self.select, None
            if keys:
                table.move_cursor(row=min(max(row, 0), len(keys) - 1))
        head = Text()
        if not pending:
            head.append("No pending escalations.", style="bold")
        else:
            head.append(f"{len(pending)} pending", style="bold")
            head.append(
                ": an answer applies to all of them (the protocol clears the list). "
                "Retry re-runs the phase, Skip overrides the block and continues, Cancel "
                "archives the workflow as cancelled."
            )
        if self.read_only:
            head.append("\nRead-only mode: answers are disabled.", style="bold")
        self.query_one("#esc-head", Static).update(head)
        self._show_detail()

    @staticmethod
    def _age(stamp: str | None, now: Any) -> str:
        moment = parse_iso(stamp)
        if moment is None:
            return stamp or "—"
        return format_elapsed((now - moment).total_seconds())

    def _show_detail(self) -> None:
        pending = self.pending
        row = self.table.cursor_row if pending else -1
        body = self.query_one("#esc-detail", Static)
        if not (0 <= row < len(pending)):
            body.update(Text(""))
            return
        esc = pending[row]
        text = Text()
        text.append(f"{esc.type or '?'} · {esc.hook or '?'} · {esc.phase or '?'}", style="bold")
        text.append(f"   at {esc.timestamp or '—'}\n\n")
        text.append(esc.detail or "(no detail)")
        body.update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_detail()

    # ------------------------------------------------------------------ answers
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("answer", "skip", "cancel_workflow"):
            if self.read_only:
                return False
            return bool(self.pending)  # nothing pending: the keys are not offered at all
        return True

    def action_answer(self, action: str) -> None:
        if self.snap is None or not self.pending:
            self.app.notify("No pending escalations.", markup=False, timeout=3)
            return
        if self.guard.refuses(self):
            return
        self.console.decide_escalation(self.snap, action, asker=self)

    def action_skip(self) -> None:
        """Skip overrides what a hook blocked, like Cancel it is confirmed first (y)."""
        snap = self.snap
        if snap is None or not self.pending:
            self.app.notify("No pending escalations.", markup=False, timeout=3)
            return
        if self.console.refuse_read_only("skip") or self.guard.refuses(self):
            return
        message = Text("Skip overrides the block: every pending escalation is cleared and the ")
        message.append("workflow goes on without what the hook asked for (")
        message.append(", ".join(sorted({e.hook or "?" for e in self.pending})), style="bold")
        message.append(").\n\nRetry re-runs the phase instead.")
        dialog = ConfirmDialog(
            "Skip the blocked phase?",
            message,
            yes="Skip (override)",
            no="Keep the block",
            guard=self.console.key_guard(),
        )

        def confirmed(yes: bool | None) -> None:
            if yes:
                self.console.decide_escalation(snap, "skip", asker=self)

        self.app.push_screen(dialog, confirmed)

    def action_cancel_workflow(self) -> None:
        snap = self.snap
        if snap is None or not self.pending:
            self.app.notify("No pending escalations.", markup=False, timeout=3)
            return
        if self.console.refuse_read_only("cancel workflow") or self.guard.refuses(self):
            return

        def confirmed(yes: bool | None, reason: str) -> None:
            if yes:
                self.console.decide_escalation(snap, "cancel", reason=reason, asker=self)

        def reasoned(reason: str | None) -> None:
            if not reason:
                return
            message = Text("The active workflow is archived in workflow_history as cancelled, ")
            message.append("with the reason:\n\n")
            message.append(reason, style="bold")
            message.append("\n\nThis cannot be undone from phasewatch.")
            dialog = ConfirmDialog(
                "Cancel the workflow?",
                message,
                yes="Cancel the workflow",
                no="Keep the workflow",
                guard=self.console.key_guard(),
            )
            self.app.push_screen(dialog, lambda yes: confirmed(yes, reason))

        prompt = TextPromptDialog(
            "Cancel workflow",
            "Why is the workflow cancelled? (recorded as cancellation_reason)",
            "reason",
        )
        prompt.close_hint = "Escape: back, the workflow is kept"
        self.app.push_screen(prompt, reasoned)
