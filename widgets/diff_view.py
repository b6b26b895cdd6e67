"""A structured diff of two JSON documents: one row per change (path / old / new).

Values come from files: every cell is a ``rich.text.Text`` (never markup). Long values are
shortened; the full value of the highlighted row is shown under the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from phasewatch.core.diff import Change, format_value
from phasewatch.widgets._table import LiveTable
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ._style import theme_styles

#: A change's colour role in ``_style.theme_styles`` (the app's theme: dark and light).
KIND_ROLE = {"added": "success", "removed": "error", "changed": "warning"}
KIND_GLYPH = {"added": "+", "removed": "-", "changed": "~"}
MAX_ROWS = 1000  # a DataTable's rows cost (docs/performance.md#widgets); the rest is one row


class DiffView(Vertical):
    """Rows of path / old / new coloured by kind (added green, removed red, changed yellow)."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        & > #diff-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
        & > DataTable { height: 1fr; }
        & > #diff-detail { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    }
    """

    COLUMNS: ClassVar[tuple[str, ...]] = ("", "path", "old", "new")

    def __init__(
        self,
        *,
        value_width: int = 40,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.value_width = value_width
        self.changes: list[Change] = []
        self.title = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="diff-title", markup=False)
        table: DataTable[Any] = LiveTable(cursor_type="row", zebra_stripes=True)
        yield table
        yield Static("", id="diff-detail", markup=False)

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*self.COLUMNS)
        self._render_changes()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._render_changes())

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one(DataTable)

    def show_changes(self, changes: Sequence[Change], title: str = "") -> None:
        """Show ``changes`` (from :func:`core.diff.diff_json`) under a plain-text ``title``."""
        self.changes = list(changes)
        self.title = title
        if self.is_mounted:
            self._render_changes()

    def clear(self, title: str = "") -> None:
        self.show_changes([], title)

    def _render_changes(self) -> None:
        table = self.table
        table.clear()
        n = len(self.changes)
        title = Text(self.title or "diff")
        title.append(f"  ·  {n} change{'s' if n != 1 else ''}" if n else "  ·  no changes")
        self.query_one("#diff-title", Static).update(title)
        width = self.value_width
        styles = theme_styles(self.app)
        for i, change in enumerate(self.changes[:MAX_ROWS]):
            style = styles[KIND_ROLE.get(change.kind, "plain")]
            old = Text(format_value(change.old, width)) if change.kind != "added" else Text("")
            new = Text(format_value(change.new, width)) if change.kind != "removed" else Text("")
            if change.kind == "removed":
                old.stylize(style)
            elif change.kind == "added":
                new.stylize(style)
            else:
                new.stylize(style)
            table.add_row(
                Text(KIND_GLYPH.get(change.kind, "?"), style=style + Style(bold=True)),
                Text(change.path, style=style),
                old,
                new,
                key=str(i),
            )
        if n > MAX_ROWS:
            table.add_row(Text(""), Text(f"… {n - MAX_ROWS} more changes not listed"), "", "")
        self._show_detail(self.changes[0] if self.changes else None)

    def _show_detail(self, change: Change | None) -> None:
        styles = theme_styles(self.app)
        detail = Text()
        if change is not None:
            detail.append(change.path, style="bold")
            if change.kind != "added":
                detail.append("\nold: ", style=styles["error"])
                detail.append(format_value(change.old, 400))
            if change.kind != "removed":
                detail.append("\nnew: ", style=styles["success"])
                detail.append(format_value(change.new, 400))
        self.query_one("#diff-detail", Static).update(detail)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        key = event.row_key.value
        if key is None or not key.isdigit():
            return
        change = self.changes[int(key)]
        self._show_detail(change)
