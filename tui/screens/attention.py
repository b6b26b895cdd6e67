"""``w``: everything waiting for a human in one list, oldest first: review gates (since the
phase completed, or since the review paused), pending escalations (their timestamp) and an
unapproved TDD plan (created / last updated). Enter opens the panel or screen that answers the
selected item. The list is :func:`core.review.attention_items` (the app keeps it current)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core.review import AttentionItem, attention_items
from phasewatch.core.session import SessionUpdate
from phasewatch.core.systems import TDD
from phasewatch.widgets._table import LiveTable
from phasewatch.widgets.footer import KeyFooter
from phasewatch.widgets.header import format_elapsed
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import DataTable, Static

from .console_base import ConsoleScreen

if TYPE_CHECKING:
    from ..console import ReviewConsole


class AttentionScreen(ConsoleScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open_item", "Open"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, console: ReviewConsole, **kwargs: Any) -> None:
        super().__init__(console, **kwargs)
        self.items: list[AttentionItem] = []

    def compose(self) -> Iterable[Widget]:
        with Vertical(id="attention") as box:
            box.border_title = "Waiting for a human (oldest first)"
            yield Static("", id="attention-head", markup=False)
            yield LiveTable(id="attention-table", cursor_type="row", zebra_stripes=True)
        yield KeyFooter()

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#attention-table", DataTable)

    def render_data(self, update: SessionUpdate) -> None:
        items = attention_items(self.console.snapshot(update), update.system(TDD).data)
        table = self.table
        if not table.columns:
            for label in ("kind", "waiting", "since", "what", "detail"):
                table.add_column(Text(label), key=label)
        if [i.key for i in items] != [i.key for i in self.items] or items != self.items:
            row = table.cursor_row
            table.clear()
            now = self.console.now()
            for item in items:
                since = item.since
                age = format_elapsed((now - since).total_seconds()) if since else "—"
                table.add_row(
                    Text(item.kind.upper(), style="bold"),
                    Text(age),
                    Text(item.since_raw or "—"),
                    Text(item.title),
                    Text(item.detail),
                    key=item.key,
                )
            if items:
                table.move_cursor(row=min(max(row, 0), len(items) - 1))
        self.items = items
        head = Text(
            f"{len(items)} item(s)" if items else "Nothing waits for a human.", style="bold"
        )
        if items:
            head.append("   Enter opens the selected one.")
        self.query_one("#attention-head", Static).update(head)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_item":
            return True if self.items else None
        return True

    def action_open_item(self) -> None:
        row = self.table.cursor_row
        if not (0 <= row < len(self.items)):
            return
        self.console.open_item(self.items[row])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_item()
