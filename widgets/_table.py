"""DataTables that keep no renders they can never use again (:class:`LiveTable`), and repaint
rows measured after they were first painted (:class:`MeasuredTable`).

Textual 8.2's ``DataTable`` measures new rows when idle (``_update_dimensions``); the tables
here measure them at once instead (:meth:`MeasuredTable.measure_now`). Rows painted before that
are cached at the old column widths (an auto-width column starts at its label's
width), and the caches are cleared only for auto-height rows: a table filled while the screen
settles kept showing its columns cut to their labels ("sev rule where message" -> 3, 4, 5 and 7
cells) until something else invalidated them.

Textual's render caches are keyed by the table's update count, which every added row, changed
cell, sort and resize bumps, so each update leaves every render made before it unreachable in
LRU caches of up to 10,000 cells and 1,000 rows and lines: a live table holds them all. A
dashboard of 400 state writes kept the matrix's caches full: headless, the process grew
86.7 -> 110.2 MB; with :class:`LiveTable`, which drops them when the count moves on,
85.6 -> 91.9 MB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable


class LiveTable(DataTable[Any]):
    """A DataTable that keeps no render it can never use again (see the module's docstring):
    every table here that is updated while it is shown."""

    _rendered_at = -1  # the update count the render caches hold renders of

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._update_count != self._rendered_at:
            self._rendered_at = self._update_count
            self._drop_stale_renders()
        return super().render_lines(crop)

    def _drop_stale_renders(self) -> None:
        """Empty the caches whose keys hold the update count (every entry is of an older one)."""
        self._cell_render_cache.clear()
        self._row_render_cache.clear()
        self._row_renderable_cache.clear()
        self._line_cache.clear()


class MeasuredTable(LiveTable):
    def measure_now(self) -> None:
        """Measure the rows and cells added or changed since the last measure now, as Textual's
        DataTable does when the app is next idle. Until then it paints an auto-height table
        without its new rows: the dashboard's first data frame showed the location matrix's
        header alone, its rows one frame (~15 ms) later. Call it once a batch of changes is
        made, so the frame that follows shows them whole."""
        if self._updated_cells:
            cells = self._updated_cells.copy()
            self._updated_cells.clear()
            self._update_column_widths(cells)
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            rows = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(rows)

    def _update_dimensions(self, new_rows: Any) -> None:
        before = [c.get_render_width(self) for c in self.columns.values()]
        super()._update_dimensions(new_rows)
        if [c.get_render_width(self) for c in self.columns.values()] != before:
            self._clear_caches()
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
