"""Home/End and g/G in every list (issue 42): the first and the last row of a table, and `g`
still opens the review gate while one waits (the app's own `g`)."""

from __future__ import annotations

from typing import ClassVar

from phasewatch.widgets._table import LiveTable
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType


class _App(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("g", "console('gate')", "Review gate")]
    gate_waits = False

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    def compose(self) -> ComposeResult:
        yield LiveTable(cursor_type="row")

    def on_mount(self) -> None:
        table = self.query_one(LiveTable)
        table.add_column("n")
        for n in range(50):
            table.add_row(str(n))
        table.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "console":
            return self.gate_waits
        return super().check_action(action, parameters)

    def action_console(self, name: str) -> None:
        self.opened.append(name)


async def test_home_end_g_and_shift_g_reach_the_first_and_last_row():
    app = _App()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiveTable)
        await pilot.press("end")
        assert table.cursor_row == 49
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("G")
        assert table.cursor_row == 49
        await pilot.press("g")
        assert table.cursor_row == 0 and app.opened == []


async def test_g_opens_the_review_gate_while_one_waits():
    app = _App()
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(LiveTable)
        await pilot.press("G")
        app.gate_waits = True
        await pilot.press("g")
        assert app.opened == ["gate"] and table.cursor_row == 49  # the gate, not the top
        await pilot.press("home")
        assert table.cursor_row == 0
