"""Textual's private API, in one place: everything phasewatch uses of Textual that Textual does
not document, under names of our own. Nothing else in ``widgets/`` or ``tui/`` names a private
Textual attribute.

Checked on Textual 8.2.0 (the floor in ``pyproject.toml``: ``make test-lowest`` installs it) and
8.2.8. ``tests/test_textual_compat.py`` holds every name in :data:`PRIVATE` (and the parameters
of each private method called or overridden, :data:`SIGNATURES`) to the installed Textual:
``make test-lowest`` runs it at the floor, ``make test`` at the newest version the range allows,
so a Textual that renames one fails there, not on a user's screen. ``tests/test_widget_table.py``
holds the tables' drawing to Textual's own (``make test``). Why each one is used:

- the tables (``widgets/_table.py``): Textual keys its render caches by an update count and
  measures new rows only when idle; :class:`TableInternals` reads the count, drops the caches,
  measures at once and draws a one-line cell with Textual's own cache key and styles;
- the app (``tui/app.py``): Textual restyles the whole app when a screen's CSS generation is
  older than the app's; :func:`css_generation` and :func:`mark_styled` tell it a screen just
  built is styled already (docs/design.md#tui).
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.dom import DOMNode
from textual.widgets import DataTable

#: Every private name used, by the class that has it (instance attributes included).
PRIVATE: dict[str, tuple[str, ...]] = {
    "textual.widgets.DataTable": (
        "_update_count",
        "_header_row_key",
        "_row_locations",
        "_column_locations",
        "_show_hover_cursor",
        "_pseudo_class_state",
        "_cell_render_cache",
        "_row_render_cache",
        "_row_renderable_cache",
        "_line_cache",
        "_updated_cells",
        "_new_rows",
        "_require_update_dimensions",
        "_render_cell",
        "_get_styles_to_render_cell",
        "_get_row_renderables",
        "_update_column_widths",
        "_update_dimensions",
        "_clear_caches",
    ),
    "textual.app.App": ("_css_update_count",),
    "textual.screen.Screen": ("_css_update_count",),
}
#: The parameters (after ``self``) of each private method called or overridden.
SIGNATURES: dict[str, tuple[str, ...]] = {
    "_render_cell": ("row_index", "column_index", "base_style", "width", "cursor", "hover"),
    "_get_styles_to_render_cell": (
        "is_header_cell",
        "is_row_label_cell",
        "is_fixed_style_cell",
        "hover",
        "cursor",
        "show_cursor",
        "show_hover_cursor",
        "has_css_foreground_priority",
        "has_css_background_priority",
    ),
    "_get_row_renderables": ("row_index",),
    "_update_column_widths": ("updated_cells",),
    "_update_dimensions": ("new_rows",),
    "_clear_caches": (),
}

CellLines = list[list[Segment]]


def css_generation(node: DOMNode) -> int:
    """The CSS generation ``node`` (the app, or a screen) was last styled at."""
    return node._css_update_count  # type: ignore[attr-defined]  # (App, Screen)


def mark_styled(screen: DOMNode, generation: int) -> None:
    """Tell Textual ``screen`` is styled with the stylesheet of ``generation``."""
    screen._css_update_count = generation  # type: ignore[attr-defined]  # (Screen)


class TableInternals(DataTable[Any]):
    """A ``DataTable`` whose private parts phasewatch uses have names of our own: subclasses
    override :meth:`draw_cell` and :meth:`dimensions_updated` (Textual's ``_render_cell`` and
    ``_update_dimensions``, which Textual calls) and read the rest through the methods below."""

    @property
    def generation(self) -> int:
        """Textual's update count: every added row, changed cell, sort and resize bumps it, and
        every render cache is keyed by it."""
        return self._update_count

    def drop_render_caches(self) -> None:
        """Empty the render caches (keyed by the update count; see :attr:`generation`)."""
        self._cell_render_cache.clear()
        self._row_render_cache.clear()
        self._row_renderable_cache.clear()
        self._line_cache.clear()

    def clear_caches(self) -> None:
        """Every cache, the measured layout's included (Textual's own clear)."""
        self._clear_caches()

    def cell_cache_key(
        self, row_index: int, column_index: int, base_style: Style, cursor: bool, hover: bool
    ) -> tuple[Any, ...] | None:
        """The key Textual's cell cache files this cell's render under (None: not a keyed
        cell, which Textual's own drawing handles)."""
        header = row_index == -1
        row_key = self._header_row_key if header else self._row_locations.get_key(row_index)
        column_key = self._column_locations.get_key(column_index)
        if row_key is None or column_key is None:
            return None
        return (
            row_key,
            column_key,
            base_style,
            cursor,
            hover,
            self._show_hover_cursor,
            self._update_count,
            self._pseudo_class_state,
        )

    def cached_cell(self, key: tuple[Any, ...]) -> CellLines | None:
        return self._cell_render_cache.get(key)

    def cache_cell(self, key: tuple[Any, ...], lines: CellLines) -> None:
        self._cell_render_cache[key] = lines

    def cell_styles(
        self, header: bool, fixed: bool, hover: bool, cursor: bool
    ) -> tuple[Style, Style]:
        """The (component, post) styles Textual draws a data or header cell with."""
        return self._get_styles_to_render_cell(
            header,
            False,
            fixed,
            hover,
            cursor,
            self.show_cursor,
            self._show_hover_cursor,
            self.cursor_foreground_priority == "css",
            self.cursor_background_priority == "css",
        )

    def row_cells(self, row_index: int) -> list[Any]:
        """The renderables of row ``row_index`` (-1: the header), as Textual draws them."""
        return list(self._get_row_renderables(row_index).cells)

    def row_height_at(self, row_index: int) -> int | None:
        """The height of the row at ``row_index`` (None: no such row)."""
        row = self.rows.get(self._row_locations.get_key(row_index))  # type: ignore[arg-type]
        return None if row is None else row.height

    def measure_pending(self) -> None:
        """Measure the cells and rows changed since the last measure, as Textual does when the
        app is next idle."""
        if self._updated_cells:
            cells = self._updated_cells.copy()
            self._updated_cells.clear()
            self._update_column_widths(cells)
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            rows = self._new_rows.copy()
            self._new_rows.clear()
            self._update_dimensions(rows)

    def dimensions_stale(self) -> None:
        """Make the next :meth:`measure_pending` lay the table out again."""
        self._require_update_dimensions = True

    # -- Textual's hooks, under our names

    def _render_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> CellLines:
        return self.draw_cell(row_index, column_index, base_style, width, cursor, hover)

    def draw_cell(
        self,
        row_index: int,
        column_index: int,
        base_style: Style,
        width: int,
        cursor: bool = False,
        hover: bool = False,
    ) -> CellLines:
        """One cell's lines (override); Textual's drawing."""
        return super()._render_cell(row_index, column_index, base_style, width, cursor, hover)

    def _update_dimensions(self, new_rows: Any) -> None:
        self.dimensions_updated(new_rows)

    def dimensions_updated(self, new_rows: Any) -> None:
        """Lay out ``new_rows`` (override); Textual's layout."""
        super()._update_dimensions(new_rows)
