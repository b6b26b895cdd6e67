"""The tables' render caches hold renders of the table as it is now, however often it changes
(widgets/_table.py): Textual keys them by an update count that every change bumps, and kept the
older ones until its LRU caps (10,000 cells, 1,000 rows and lines) were full."""

from __future__ import annotations

import random

import pytest
from phasewatch.widgets._table import LiveTable, MeasuredTable
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
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


# ------------------------------------------------------------------ one-line cells


def normalised(lines: list[list[Segment]]) -> list[list[tuple[str, Style | None]]]:
    """What a terminal shows of ``lines``: adjacent segments of one style merged, empty ones
    dropped (Rich and the fast path may cut a line into differently sized pieces)."""
    return [
        [(s.text, s.style) for s in Segment.simplify(s for s in line if s.text)] for line in lines
    ]


#: Letters of every width and kind: ASCII, CJK (2 cells), emoji, combining marks, zero-width
#: and bidi controls, markup-looking brackets; and, now and then, the ones that take Textual's
#: way (widgets/_table.py: ``_NOT_ONE_LINE``).
ALPHABET = "ab Z09-_.:/[]()✓⚠▶·—éÉ漢字한😀\u0301\u200b\u202e\u2066"
RARE = "\n\t\u200d\ufe0f"
STYLES = ["", "bold", "red", "dim italic", "on blue", "reverse", "underline green", "#ff8800"]


def random_text(rng: random.Random) -> Text:
    plain = "".join(
        rng.choice(RARE if rng.random() < 0.01 else ALPHABET) for _ in range(rng.randrange(0, 40))
    )
    text = Text(plain, style=rng.choice(STYLES), overflow=rng.choice([None, "fold", "crop"]))
    for _ in range(rng.randrange(0, 4)):
        start = rng.randrange(0, len(plain) + 1)
        end = rng.randrange(start, len(plain) + 1)
        text.stylize(rng.choice(STYLES), start, end)
    return text


async def test_one_line_cells_render_as_textuals_table_renders_them() -> None:
    """LiveTable's fast path against Textual's own rendering of the same cell, in the same
    table (header and body cells, cursor and hover, fixed columns, widths from too narrow to
    wide, both cell paddings), on 1,200 random cells: what the terminal shows is the same."""
    rng = random.Random(2711)
    table = LiveTable(cursor_type="cell", fixed_columns=1)
    app = TableApp(table)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        checked = fast = 0
        for _ in range(100):
            table.clear(columns=True)
            table.cell_padding = rng.choice([0, 1, 1, 2])
            for c in range(COLUMNS):
                table.add_column(random_text(rng), key=f"c{c}")
            for r in range(3):
                table.add_row(*(random_text(rng) for _ in range(COLUMNS)), key=f"r{r}")
            table._pseudo_class_state = table.get_pseudo_class_state()
            for row in (-1, 0, 1, 2):
                for column in range(COLUMNS):
                    width = rng.randrange(0, 30)
                    base = rng.choice([Style(), Style(color="white", bgcolor="black")])
                    cursor, hover = rng.random() < 0.3, rng.random() < 0.3
                    fast += table._one_line_cell(row, column, width) is not None
                    table._cell_render_cache.clear()
                    ours = table._render_cell(row, column, base, width, cursor, hover)
                    table._cell_render_cache.clear()
                    theirs = DataTable._render_cell(table, row, column, base, width, cursor, hover)
                    assert normalised(ours) == normalised(theirs), (row, column, width)
                    checked += 1
        assert checked == 1_600 and fast > 1_000  # most cells took the fast path


async def test_other_cells_take_textuals_way() -> None:
    """Multi-line, tabbed, justified, ellipsised, non-Text cells and taller rows: not one line
    of Text, so Textual renders them. (A str cell is Text once Textual's formatter has read it.)"""
    table = LiveTable()
    app = TableApp(table)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        table.clear(columns=True)
        table.add_columns("a", "b", "c", "d", "e")
        table.add_row(
            Text("two\nlines"),
            Text("a\ttab"),
            Text("right", justify="right"),
            Text("a long cell cut", overflow="ellipsis"),
            Padding(Text("padded"), (0, 1)),
            key="odd",
        )
        table.add_row(*(Text("x") for _ in range(5)), key="tall", height=2)
        await pilot.pause()
        for row in (0, 1):
            for column in range(5):
                assert table._one_line_cell(row, column, 10) is None, (row, column)
        assert table._one_line_cell(-1, 0, 10) is not None  # the header: plain labels
        assert table._one_line_cell(-1, 0, 2) is None  # no room inside the padding
