"""The tables' render caches hold renders of the table as it is now, however often it changes
(widgets/_table.py): Textual keys them by an update count that every change bumps, and kept the
older ones until its LRU caps (10,000 cells, 1,000 rows and lines) were full."""

from __future__ import annotations

import pytest
from phasewatch.widgets._table import LiveTable, MeasuredTable
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

ROWS, COLUMNS = 8, 4


class TableApp(App[None]):
    def __init__(self, table: DataTable[Text]) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        yield self.table

    def on_mount(self) -> None:
        for c in range(COLUMNS):
            self.table.add_column(Text(f"c{c}"), key=f"c{c}")
        for r in range(ROWS):
            self.table.add_row(*(Text(f"{r}.{c}") for c in range(COLUMNS)), key=f"r{r}")


def cached_counts(table: DataTable[Text]) -> set[int]:
    """The update counts the cell renders were made at (the key's 7th field)."""
    return {key[6] for key in table._cell_render_cache.keys()}  # noqa: SIM118 (not iterable)


async def change_cells(table: DataTable[Text], pilot, times: int) -> None:
    for k in range(times):
        table.update_cell(f"r{k % ROWS}", "c1", Text(f"v{k}"))
        table.move_cursor(row=k % ROWS)
        await pilot.pause()


@pytest.mark.parametrize("kind", [LiveTable, MeasuredTable])
async def test_a_live_table_keeps_only_the_renders_of_its_current_update(kind) -> None:
    table = kind(cursor_type="row")
    app = TableApp(table)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        await change_cells(table, pilot, 60)
        await pilot.pause()
        table.refresh()
        await pilot.pause()
        assert cached_counts(table) <= {table._update_count}
        # every cell shown at most in a few cursor states, not once per update
        assert len(table._cell_render_cache) <= 3 * (ROWS + 1) * COLUMNS
        assert len(table._line_cache) <= 3 * (ROWS + 1)
        assert table.get_cell("r3", "c1").plain == "v59"
        shown = app.export_screenshot()
        assert "v59" in shown and "v52" in shown  # the last pass over the rows, as it is now


async def test_textuals_own_table_keeps_the_renders_of_every_update() -> None:
    """What the tables above fix (if this starts failing, Textual dropped stale renders
    itself and LiveTable can go)."""
    table: DataTable[Text] = DataTable(cursor_type="row")
    app = TableApp(table)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        await change_cells(table, pilot, 60)
        assert len(cached_counts(table)) > 30
