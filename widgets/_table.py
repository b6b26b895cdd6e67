"""DataTables that keep no renders they can never use again (:class:`LiveTable`), and repaint
rows measured after they were first painted (:class:`MeasuredTable`).

Textual 8.2's ``DataTable`` measures new rows when idle; the tables
here measure them at once instead (:meth:`MeasuredTable.measure_now`). Rows painted before that
are cached at the old column widths (an auto-width column starts at its label's
width), and the caches are cleared only for auto-height rows: a table filled while the screen
settles kept showing its columns cut to their labels ("sev rule where message" -> 3, 4, 5 and 7
cells) until something else invalidated them.

Textual's render caches are keyed by the table's update count, which every added row, changed
cell, sort and resize bumps, so each update leaves every render made before it unreachable in
LRU caches of up to 10,000 cells and 1,000 rows and lines: a live table holds them all, and
:class:`LiveTable` drops them when the count moves on (docs/performance.md#tables).

A cell is rendered through Rich's general layout (``Styled(Padding(cell))`` into
``console.render_lines``: measure, wrap, pad, split into lines), a large part of the
dashboard's first data frame. Every cell here is one line of ``Text`` in a row one line high, which
:func:`one_line` renders straight to the same segments (see :meth:`LiveTable.draw_cell`);
any other cell takes Textual's way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from ._textual import TableInternals

_NULL = Style.null()
#: Characters that end the fast path: line breaks and tabs (Rich lays them out), and the two
#: Rich measures with their neighbours (a zero-width joiner hides the next character, VS16
#: widens the one before), where cutting a text in pieces would measure it otherwise.
_NOT_ONE_LINE = ("\n", "\t", "\u200d", "\ufe0f")


def one_line(
    cell: Text, width: int, padding: int, pre: Style, post: Style, console: Console
) -> list[Segment]:
    """The segments of a one-line ``cell`` in a ``width``-cell column, as Textual's table draws
    it (``Styled(Padding(cell, (0, padding)), pre, post)``, no wrapping, one line high): the
    text cut as Rich cuts it (the whole text at once: where a combining mark follows the cut,
    Rich cuts a cell earlier than cutting its pieces would) and padded to the width inside the
    padding, ``pre`` under and ``post`` over every segment. Only for cells
    :meth:`LiveTable._one_line_cell` admits."""
    inner = width - 2 * padding
    if cell.cell_len > inner:
        cell = cell.copy()
        cell.truncate(inner, overflow="fold")  # (fold and crop cut one line alike)
    if not cell.plain:
        segments = []
    elif cell.spans:
        segments = list(cell.render(console))
    else:  # (Text.render leaves the text's own style to the spans Rich's layout makes of it)
        style = console.get_style(cell.style, default=_NULL) if cell.style else None
        segments = [Segment(cell.plain, style)]
    line = Segment.adjust_line_length(segments, inner, style=_NULL)
    if padding:
        space = Segment(" " * padding, _NULL)
        line = [space, *line, space]
    return list(Segment.apply_style(line, pre, post))


class LiveTable(TableInternals):
    """A DataTable that keeps no render it can never use again (see the module's docstring):
    every table here that is updated while it is shown.

    Every list's first and last row: ``Home``/``End`` (Textual's move the cursor across
    columns, which a row cursor has none of: the keys did nothing), ``g``/``G`` as in less,
    lazygit and k9s. ``g`` yields to the app's own ``g`` (the review gate) while a gate waits.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "first_row", "First", show=False),
        Binding("end", "last_row", "Last", show=False),
        Binding("g", "first_row('g')", "First", show=False),
        Binding("G", "last_row", "Last", show=False),
    ]

    _rendered_at = -1  # the update count the render caches hold renders of

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "first_row" and parameters:  # `g` while a review gate waits: the gate's
            return not self.app.check_action("console", ("gate",))
        return super().check_action(action, parameters)

    def action_first_row(self, _key: str = "") -> None:
        if self.cursor_type in ("row", "cell") and self.row_count:
            self.move_cursor(row=0)
        else:
            self.scroll_home()

    def action_last_row(self) -> None:
        if self.cursor_type in ("row", "cell") and self.row_count:
            self.move_cursor(row=self.row_count - 1)
        else:
            self.scroll_end()

    def render_lines(self, crop: Region) -> list[Strip]:
        if self.generation != self._rendered_at:
            self._rendered_at = self.generation
            self.drop_render_caches()
        return super().render_lines(crop)

    def draw_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> list[list[Segment]]:
        """One cell's lines: a one-line Text by :func:`one_line`, cached as Textual caches its
        own renders (same key, same styles, so a render found there is whichever way made it);
        any other cell as Textual renders it."""
        key = self.cell_cache_key(row_index, column_index, base_style, cursor, hover)
        if key is None:
            return super().draw_cell(row_index, column_index, base_style, width, cursor, hover)
        lines = self.cached_cell(key)
        if lines is not None:
            return lines
        cell = self._one_line_cell(row_index, column_index, width)
        if cell is None:
            return super().draw_cell(row_index, column_index, base_style, width, cursor, hover)
        header = row_index == -1
        fixed = not header and (row_index < self.fixed_rows or column_index < self.fixed_columns)
        component, post = self.cell_styles(header, fixed, hover, cursor)
        pre = base_style + Style.from_meta({"row": row_index, "column": column_index})
        line = one_line(cell, width, self.cell_padding, pre + component, post, self.app.console)
        lines = [line]
        self.cache_cell(key, lines)
        return lines

    def _one_line_cell(self, row_index: int, column_index: int, width: int) -> Text | None:
        """The cell, when it is one line of Text (none of ``_NOT_ONE_LINE``, cut not wrapped, not
        justified) in a row (or header) one line high and a column wider than its padding."""
        if column_index < 0 or width <= 2 * self.cell_padding:
            return None
        height = self.header_height if row_index == -1 else self.row_height_at(row_index)
        if height != 1:
            return None
        cells = self.row_cells(row_index)
        cell = cells[column_index] if column_index < len(cells) else None
        if type(cell) is not Text:
            return None
        options = self.app.console_options
        if (cell.justify or options.justify or "default") != "default":
            return None
        if (cell.overflow or options.overflow or "fold") not in ("fold", "crop"):
            return None
        plain = cell.plain
        if any(c in plain for c in _NOT_ONE_LINE):
            return None
        return cell


class MeasuredTable(LiveTable):
    def measure_now(self) -> None:
        """Measure the rows and cells added or changed since the last measure now, as Textual's
        DataTable does when the app is next idle. Until then it paints an auto-height table
        without its new rows: the dashboard's first data frame showed the location matrix's
        header alone, its rows one frame later. Call it once a batch of changes is made, so the
        frame that follows shows them whole."""
        self.measure_pending()

    def fix_column_width(self, key: str, width: int) -> None:
        """Give column ``key`` a fixed ``width`` (cells, padding not included) and lay the
        table out for it now. A fixed column is not measured from its cells: cutting every
        cell of an auto-width column re-measured the whole column once per cut cell."""
        column = self.columns[ColumnKey(key)]
        if not column.auto_width and column.width == width:
            return
        column.auto_width = False
        column.width = width
        self.dimensions_stale()
        self.measure_now()

    def dimensions_updated(self, new_rows: Any) -> None:
        before = [c.get_render_width(self) for c in self.columns.values()]
        super().dimensions_updated(new_rows)
        if [c.get_render_width(self) for c in self.columns.values()] != before:
            self.clear_caches()
            self.refresh()


def add_columns(
    owner: Widget,
    table: DataTable[Any],
    columns: Iterable[tuple[str, str]],
    restyle: Callable[[], None],
) -> None:
    """Keyed columns with plain-text labels, and ``restyle`` run when the theme changes."""
    for key, label in columns:
        table.add_column(Text(label), key=key)
    owner.app.theme_changed_signal.subscribe(owner, lambda _theme: restyle())
