"""``?``: every key, grouped by the screen it works on, the decision keys first (review gate,
escalations, plan approval), then the keys that work everywhere, then each data screen's own.

Generated from the bindings themselves (never hand-written): the app passes the sections as
``(title, bindings)`` pairs (:meth:`tui.app.PhasewatchApp.help_sections`). Within a section, one
row per action: hidden twins and upper-case aliases join the row of the key they double
(``c, C  Continue``). Generic scrolling keys of tables and lists are summed up in one line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

#: (keys, description, section title)
Row = tuple[str, str, str]
KEY_WIDTH = 10
MOVING = "↑ ↓ PgUp PgDn Home End move in tables and lists; Tab moves between panes."
PALETTE = "Ctrl+P: every action by name (command palette)."


def section_rows(app: App[object], title: str, bindings: Iterable[BindingType]) -> list[Row]:
    """One row per action of ``bindings`` (first description that says most wins)."""
    merged: dict[str, tuple[list[str], str]] = {}
    by_key: dict[str, str] = {}
    for binding in Binding.make_bindings(bindings):
        if binding.action == "noop":
            continue
        key = app.get_key_display(binding)
        desc = binding.description or binding.tooltip or binding.action
        # a twin (same key, other action) or an alias (same action, other key) shares the row
        ident = by_key.get(key, binding.action)
        keys, best = merged.get(ident, ([], ""))
        if key not in keys:
            keys.append(key)
        merged[ident] = (keys, desc if len(desc) > len(best) else best)
        by_key[key] = ident
    return [(", ".join(keys), desc, title) for keys, desc in merged.values()]


def help_rows(app: App[Any], sections: Sequence[tuple[str, Iterable[BindingType]]]) -> list[Row]:
    rows: list[Row] = []
    for title, bindings in sections:
        rows += section_rows(app, title, bindings)
    return rows


def help_text(rows: Sequence[Row]) -> Text:
    """The sections as text: a bold title line, then ``key  description`` lines, then what the
    Overview's columns and every screen's symbols mean."""
    from phasewatch.widgets._style import symbol_legend
    from phasewatch.widgets.location_matrix import column_legend

    text = Text()
    title = None
    for keys, desc, where in rows:
        if where != title:
            if title is not None:
                text.append("\n")
            text.append(where, style="bold underline")
            text.append("\n")
            title = where
        text.append(f"  {keys:<{KEY_WIDTH}}", style="bold")
        text.append(f" {desc}\n")
    legends = (
        ("Overview: where is the workflow? (the columns)", column_legend()),
        ("What the symbols mean", symbol_legend()),
    )
    for heading, pairs in legends:
        text.append("\n")
        text.append(heading, style="bold underline")
        text.append("\n")
        for name, meaning in pairs:
            text.append(f"  {name:<{KEY_WIDTH}}", style="bold")
            text.append(f" {meaning}\n")
    text.append("\n")
    text.append(MOVING, style="dim")
    return text


class HelpScreen(ModalScreen[None]):
    """Lists every key by screen; ``escape``/``?``/``q`` closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, rows: list[Row]) -> None:
        super().__init__()
        self.rows = rows

    def compose(self) -> ComposeResult:
        with Vertical(id="help") as box:
            box.border_title = "Keys"
            box.border_subtitle = "Escape closes"
            yield Static(Text(PALETTE), id="help-head", markup=False)
            with VerticalScroll(id="help-scroll"):
                yield Static(help_text(self.rows), id="help-text", markup=False)

    def on_mount(self) -> None:
        self.query_one("#help-scroll").focus()

    @property
    def text(self) -> str:
        """Everything the screen lists, as plain text (tests)."""
        return PALETTE + "\n" + help_text(self.rows).plain

    def action_close(self) -> None:
        self.dismiss(None)
