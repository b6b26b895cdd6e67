"""The TddScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.core.systems import TDD
from phasewatch.widgets.tdd_board import TddBoard
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import DataTable

from .panels import PanelScreen


class TddScreen(PanelScreen):
    """Key ``5``. The TDD plugin's plan: task header, approval state (and the legacy lock), the
    true remaining slices next to what the plugin's stop hook would decide (flagged when they
    differ), the slices and the plan's findings. Data: ``update.system(TDD)`` (its ``data``, a
    ``core.tdd.TddPlan``, carries the hook's verdict); re-set only when its ``rev`` moved."""

    EMPTY = "No .tdd-progress.md in this project (the TDD plugin writes it at the project root)."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "next_unfinished", "Next unfinished slice"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.sets = 0  # set_plan calls (tests)
        self._rev = -1  # the TDD plan load rendered (SystemView.rev)

    def compose_main(self) -> Iterable[Widget]:
        yield TddBoard(id="tdd-board")

    @property
    def main_widget(self) -> Widget:
        return self.board

    @property
    def board(self) -> TddBoard:
        return self.query_one("#tdd-board", TddBoard)

    def apply_update(self, update: SessionUpdate) -> None:
        view = update.system(TDD)
        if self._rendered and view.rev == self._rev:
            return
        self._rev = view.rev
        plan = view.data
        findings = list(view.findings)
        self.board.set_plan(plan, findings=findings)
        self.sets += 1
        self.show_empty(self.EMPTY if plan is None and not findings else None)

    def action_next_unfinished(self) -> None:
        plan = self.board.plan
        slices = list(getattr(plan, "slices", None) or [])
        table: DataTable[Any] = self.board.table
        if not slices or not table.row_count:
            return
        start = table.cursor_row
        shown = min(len(slices), table.row_count)
        for step in range(1, shown + 1):
            i = (start + step) % shown
            if not slices[i].finished:
                table.move_cursor(row=i)
                table.focus()
                return
        later = next((s for s in slices[shown:] if not s.finished), None)
        if later is not None:
            self.notify(
                f"No unfinished slice among the {shown:,} shown; the next is {later.label} "
                f"(line {later.line_no}).",
                markup=False,
                timeout=5,
            )
            return
        self.notify("Every slice is finished.", markup=False, timeout=3)


# ---------------------------------------------------------------------------- 6 plugins
