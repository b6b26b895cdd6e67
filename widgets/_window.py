"""Lists longer than a person reads: the part of a long list a table holds (a window of at most
``size`` rows), where it moves when a key goes past its edge, and the line that says how much
there is (docs/performance.md#dashboard-size).

A DataTable holds a renderable per cell and measures every row it is given: a row per phase of a
10,000-phase state was seconds of the first frame and most of its memory. The tables that can
grow with a file (the location matrix, the findings list) hold a window instead; the keys that
move the cursor move the window when the cursor is at its edge (:class:`WindowedTable`), so
every row stays reachable from the keyboard. A list that fits shows whole, as before.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from ._table import MeasuredTable

#: Rows a windowed table holds at most (a screen shows 10-40 of them).
WINDOW_ROWS = 200

#: Where a key would take the cursor past the rows held: one row or a page further, or the
#: list's first or last row.
UP, DOWN, PAGE_UP, PAGE_DOWN, FIRST, LAST = "up", "down", "page_up", "page_down", "first", "last"


class Window(Struct):
    """The slice ``[start, start + size)`` of a list of ``total`` rows that a table holds."""

    size: int = WINDOW_ROWS
    start: int = 0
    total: int = 0

    @property
    def end(self) -> int:
        return min(self.total, self.start + self.size)

    @property
    def partial(self) -> bool:
        """Whether some rows are outside the window."""
        return self.total > self.size

    def resize(self, total: int) -> None:
        """The list now has ``total`` rows: keep the window inside it."""
        self.total = total
        self.start = max(0, min(self.start, total - self.size))

    def show(self, index: int) -> None:
        """Move the window so it holds row ``index`` (a quarter of it above the row)."""
        if not self.start <= index < self.end:
            self.start = max(0, min(index - self.size // 4, self.total - self.size))

    def move(self, where: str, index: int) -> int | None:
        """Move the window for a key going ``where`` from row ``index`` (the cursor's, in the
        whole list) past the window's edge; returns the row the cursor goes to (None: the
        list ends there, nothing moved)."""
        step = {UP: -1, DOWN: 1, PAGE_UP: -self.size // 2, PAGE_DOWN: self.size // 2}
        if where == FIRST:
            target = 0
        elif where == LAST:
            target = self.total - 1
        else:
            target = max(0, min(self.total - 1, index + step[where]))
        if target == index or self.start <= target < self.end:
            return None
        if where in (UP, PAGE_UP):
            self.start = max(0, target - self.size + self.size // 4)
        elif where in (DOWN, PAGE_DOWN):
            self.start = max(0, min(target - self.size // 4, self.total - self.size))
        else:
            self.show(target)
        return target

    def note(self, noun: str, how: str) -> str:
        """The line under a partial table: which rows it holds, of how many, and how to move."""
        before, after = self.start, self.total - self.end
        parts = [f"rows {self.start + 1:,}-{self.end:,} of {self.total:,} {noun}"]
        if before:
            parts.append(f"{before:,} before")
        if after:
            parts.append(f"… {after:,} more")
        return " · ".join(parts) + f" ({how})"


#: How the window moves, said under a partial table.
KEYS_HINT = "↑↓ PgUp PgDn past the edge, Home/End"


class WindowedTable(MeasuredTable):
    """A table holding a window of a longer list: a key that would take the cursor past the
    first or last row held calls :attr:`edge` (``where``: one of :data:`UP` ... :data:`LAST`),
    which moves the window and returns True, or returns False (the list ends there, or the
    table holds all of it) and the key does what it does in any table."""

    edge: Callable[[str], bool] | None = None

    def _past(self, where: str, last: bool) -> bool:
        at_edge = not self.row_count or self.cursor_row == (self.row_count - 1 if last else 0)
        return at_edge and self.edge is not None and self.edge(where)

    def action_cursor_up(self) -> None:
        if not self._past(UP, False):
            super().action_cursor_up()

    def action_cursor_down(self) -> None:
        if not self._past(DOWN, True):
            super().action_cursor_down()

    def action_page_up(self) -> None:
        if not self._past(PAGE_UP, False):
            super().action_page_up()

    def action_page_down(self) -> None:
        if not self._past(PAGE_DOWN, True):
            super().action_page_down()

    def action_first_row(self, _key: str = "") -> None:
        if self.edge is None or not self.edge(FIRST):
            super().action_first_row(_key)

    def action_last_row(self) -> None:
        if self.edge is None or not self.edge(LAST):
            super().action_last_row()
