"""``?``: every key binding, generated from the bindings themselves (app, the screen underneath
and its focused widget), never hand-written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


def binding_rows(
    app, screen, screens: Mapping[str, type] | None = None
) -> list[tuple[str, str, str]]:
    """(keys, description, where) for every binding active on ``screen`` plus the app's own
    and the bindings of each screen class in ``screens`` (name -> class: the data screens, so
    keys of other screens are listed too)."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(binding: Binding, where: str) -> None:
        if binding.action in {"noop"}:
            return
        keys = app.get_key_display(binding)
        desc = binding.description or binding.tooltip or binding.action
        ident = (keys, binding.action)
        if ident in seen:
            return
        seen.add(ident)
        rows.append((keys, desc, where))

    def normalise(bindings: Iterable) -> Iterable[Binding]:
        for b in bindings:
            if isinstance(b, Binding):
                yield from b.make_bindings([b])
            elif isinstance(b, tuple):
                yield from Binding.make_bindings([b])

    for _key, active in screen.active_bindings.items():
        node = active.node
        where = "app" if node is app else type(node).__name__
        add(active.binding, where)
    for b in normalise(type(app).BINDINGS):
        add(b, "app")
    for name, cls in (screens or {}).items():
        for b in normalise(cls.BINDINGS):
            add(b, name)
    return rows


class HelpScreen(ModalScreen[None]):
    """Lists every binding; ``escape``/``?``/``q`` closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > #help { width: 90%; max-width: 100; height: 85%; border: round $primary;
        background: $surface; padding: 0 1; }
    HelpScreen DataTable { height: 1fr; }
    """

    def __init__(self, rows: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help") as box:
            box.border_title = "Keys"
            yield Static(
                Text("Every key binding, from the bindings in force. Ctrl+P: command palette."),
                markup=False,
            )
            yield DataTable(id="help-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_column(Text("key"), key="key")
        table.add_column(Text("action"), key="action")
        table.add_column(Text("where"), key="where")
        for keys, desc, where in self.rows:
            table.add_row(Text(keys, style="bold"), Text(desc), Text(where))
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
