"""The three-location matrix: one row per phase, the three places that say where the workflow is.

Columns: ``phases[k].status`` (detail), ``phase_status[k]`` (summary), the pointers, headed
``now A I T`` (``A`` = ``active_workflow.current_phase``, ``I`` =
``phases[current_phase_index]``, ``T`` = top-level ``current_phase``; ``▶`` when any of them
says this phase is current) and ``active_agent``. Every cell named by
:attr:`PhaseLocations.disagree` is drawn in the error style; the explanations of the
highlighted row are shown under the table.

Plain data in (:class:`~core.locations.PhaseLocations`), keyed incremental updates out: rows are
added/removed by phase key and only changed cells are rewritten; the table is rebuilt only when
the phase order itself changed. Every string is a Rich ``Text`` (never markup).

A state of more than :data:`~widgets._window.WINDOW_ROWS` phases is held as a window of rows
around the phase that matters, moved by the cursor keys past its edge, with a line under the
table saying which rows of how many it shows (``widgets/_window.py``); only the window's cells
are built.
"""

from __future__ import annotations

from collections.abc import Sequence

from phasewatch.core.locations import AGENT, DETAIL, POINTERS, SUMMARY, PhaseLocations
from phasewatch.widgets._table import add_columns
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist

from ._style import CURRENT, DISAGREES, glyph, same_text, show_in, status_style, theme_styles
from ._window import KEYS_HINT, Window, WindowedTable

#: The pointers' column: which of the three fields says the workflow is now at this phase (its
#: cells put each letter under the header's).
POINTERS_HEADER = "now A I T"
COLUMNS: tuple[tuple[str, str], ...] = (
    ("phase", "phase"),
    ("detail", "phases[k].status"),
    ("summary", "phase_status[k]"),
    ("pointers", POINTERS_HEADER),
    ("agent", "active_agent"),
)


def pointer_text(row: PhaseLocations) -> str:
    """``  ▶ A I T`` compactly: a letter for each pointer that names this phase, ``·`` otherwise,
    each under its letter in :data:`POINTERS_HEADER`."""
    marks = [
        "A" if row.aw_current else "·",
        "I" if row.index_current else "·",
        "T" if row.top_current else "·",
    ]
    return (f"  {CURRENT} " if row.is_current else "    ") + " ".join(marks)


def row_cells(row: PhaseLocations, styles: dict[str, Style]) -> tuple[Text, ...]:
    bad = row.columns()
    err = styles["error-cell"]
    pos = "  " if row.position is None else f"{row.position:>2}"
    phase = Text.assemble(
        (pos + " ", styles["muted"]),
        (glyph(row.status) + " ", status_style(row.status, styles)),
        (row.key, styles["error"] if bad else (styles["accent"] if row.is_current else "")),
        (f" {DISAGREES}" if bad else "", styles["error"]),
    )
    detail_text = row.detail if row.has_record else "(no record)"
    detail = Text(
        detail_text or "—", style=err if DETAIL in bad else status_style(row.detail, styles)
    )
    summary = Text(
        row.summary or "—", style=err if SUMMARY in bad else status_style(row.summary, styles)
    )
    pointers = Text(
        pointer_text(row),
        style=err if POINTERS in bad else (styles["accent"] if row.is_current else styles["muted"]),
    )
    if row.agent is None:
        agent = Text("—" if not row.is_current else "(none)", style=styles["muted"])
    else:
        agent = Text(row.agent, style=err if AGENT in bad else "")
    return (phase, detail, summary, pointers, agent)


#: The pointer letters in plain words (the column's header is :data:`POINTERS_HEADER`).
POINTER_LEGEND = (
    "A: active_workflow.current_phase, I: current_phase_index (one past a phase just "
    "completed: I stays on it), T: the top-level current_phase"
)

#: Each column in plain words, by column key (the headers are the file's own names, so they can
#: be searched for in state.json; the ``?`` help lists these under the headers).
COLUMN_MEANINGS: dict[str, str] = {
    "phase": "position in the workflow, status glyph and phase key",
    "detail": "the phase's own record, phases.<phase>.status",
    "summary": "the workflow's summary map, active_workflow.phase_status.<phase>",
    "pointers": f"{CURRENT} when one of three fields says this phase is current; " + POINTER_LEGEND,
    "agent": "active_agent: who the state says runs the current phase",
}


def column_legend() -> list[tuple[str, str]]:
    """(header, meaning) of every column, in the table's order."""
    return [(label, COLUMN_MEANINGS[key]) for key, label in COLUMNS]


def explain(row: PhaseLocations | None) -> Text:
    text = _explain(row)
    if row is not None and row.is_current:
        text.append("\n  now here, per ", style="bold")
        text.append(POINTER_LEGEND)
    return text


def _explain(row: PhaseLocations | None) -> Text:
    if row is None:
        return Text("No phase selected.")
    if not row.disagree and row.legal:  # the cells differ, legally (core.locations says why)
        return Text.assemble((row.key, "bold"), ": the locations differ; ", row.legal)
    if not row.disagree and not row.has_record and row.position is not None:
        return Text.assemble(
            (row.key, "bold"),
            ": no phases[k] record yet (by design: the framework writes it when a step first "
            "writes the phase); the other locations agree.",
        )
    if not row.disagree:
        return Text.assemble((row.key, "bold"), ": all three locations agree.")
    parts: list[str | tuple[str, str]] = [(row.key, "bold"), " disagrees:"]
    seen: set[str] = set()
    for column, why in row.disagree:
        if why in seen:
            continue
        seen.add(why)
        parts.append("\n")
        parts.append((f"  {column}: ", "bold"))
        parts.append(why)
    return Text.assemble(*parts)


class LocationMatrix(Vertical):
    """DataTable of :class:`PhaseLocations` plus the explanation of the highlighted row."""

    DEFAULT_CSS = """
    LocationMatrix { height: auto; }
    LocationMatrix > DataTable { height: auto; max-height: 14; }
    LocationMatrix > #matrix-explain { height: auto; max-height: 5; padding: 0 1; }
    LocationMatrix > #matrix-more { height: 1; padding: 0 1; color: $text-muted; display: none; }
    LocationMatrix > #matrix-more.partial { display: block; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._rows: dict[str, PhaseLocations] = {}
        self._cells: dict[str, tuple[Text, ...]] = {}
        self._order: list[str] = []  # the keys of the rows the table holds, in order
        self._all: list[str] = []  # every phase's key, in order
        self.window = Window()
        self.rebuilds = 0  # how many times the table was cleared (tests, bench)
        self.cell_updates = 0

    def compose(self) -> ComposeResult:
        table: WindowedTable = WindowedTable(
            id="matrix-table", cursor_type="row", zebra_stripes=False
        )
        table.edge = self._edge
        yield table
        yield Static("", id="matrix-more", markup=False)
        yield Static("", id="matrix-explain", markup=False)

    def on_mount(self) -> None:
        add_columns(self, self.table, COLUMNS, self._restyle)

    @property
    def table(self) -> WindowedTable:
        return self.query_one("#matrix-table", WindowedTable)

    @property
    def rows(self) -> dict[str, PhaseLocations]:
        return dict(self._rows)

    def cell_text(self, key: str, column: str) -> Text:
        """The Text shown in one cell (for tests and screenshots)."""
        return self._cells[key][[c for c, _ in COLUMNS].index(column)]

    def show(self, rows: Sequence[PhaseLocations]) -> None:
        """Render ``rows`` (keyed by phase key; only changed cells are rewritten).

        Rows that vanished are removed, new rows appended; when the surviving rows are not a
        prefix of the new order (phases reordered or inserted), the table is rebuilt. Past
        :data:`~widgets._window.WINDOW_ROWS` rows, the table holds a window of them: around
        the most interesting row unless the user drives the cursor."""
        unique: dict[str, PhaseLocations] = {}
        for r in rows:  # duplicate keys cannot be row keys: keep the first
            unique.setdefault(r.key, r)
        self._rows = unique
        self._all = list(unique)
        self.window.resize(len(self._all))
        target: str | None = None
        if not self.table.has_focus:  # not driven by the user: follow the most interesting row
            target = next((r.key for r in unique.values() if r.divergent), None)
            target = target or next((r.key for r in unique.values() if r.is_current), None)
            if target is not None and self.window.partial:
                self.window.show(self._all.index(target))
        self._fill()
        if target is not None and target in self._order:
            self.table.move_cursor(row=self._order.index(target), animate=False)
        self._explain_current()

    def _fill(self) -> None:
        """Put the window's rows in the table (only changed cells rewritten)."""
        table = self.table
        styles = theme_styles(self.app)
        window = self.window
        shown = self._all[window.start : window.end] if window.partial else self._all
        wanted = set(shown)
        survivors = [k for k in self._order if k in wanted]
        if shown[: len(survivors)] != survivors:
            table.clear()
            self.rebuilds += 1
            self._cells.clear()
            self._order = []
        else:
            for key in self._order:
                if key not in wanted:
                    table.remove_row(key)
                    self._cells.pop(key, None)
            self._order = survivors
        for key in shown:
            cells = row_cells(self._rows[key], styles)
            old = self._cells.get(key)
            if old is None:
                table.add_row(*cells, key=key)
                self._order.append(key)
            else:
                for (column, _), before, after in zip(COLUMNS, old, cells, strict=True):
                    if not same_text(before, after):
                        table.update_cell(key, column, after, update_width=True)
                        self.cell_updates += 1
            self._cells[key] = cells
        table.measure_now()
        more = self.query_one("#matrix-more", Static)
        more.set_class(window.partial, "partial")
        if window.partial:
            show_in(more, Text(window.note("phases", KEYS_HINT)))

    def _edge(self, where: str) -> bool:
        """A key went past the edge of the rows held: move the window (see WindowedTable)."""
        if not self.window.partial:
            return False
        target = self.window.move(where, self.window.start + self.table.cursor_row)
        if target is None:
            return False
        self._fill()
        self.table.move_cursor(row=target - self.window.start, animate=False)
        self._explain_current()
        return True

    def _restyle(self) -> None:
        if self._rows and self.is_mounted:
            rows = [self._rows[k] for k in self._all]
            self._cells.clear()
            self.table.clear()
            self._order = []
            self.show(rows)

    def _explain_current(self) -> None:
        table = self.table
        row: PhaseLocations | None = None
        if table.row_count:
            try:
                key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
            except CellDoesNotExist:
                key = None
            row = self._rows.get(key) if key is not None else None
        show_in(self.query_one("#matrix-explain", Static), explain(row))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._explain_current()

    def select(self, key: str) -> bool:
        """Move the cursor to the row of phase ``key`` (moving the window to it)."""
        if key not in self._rows:
            return False
        if key not in self._order:
            self.window.show(self._all.index(key))
            self._fill()
        self.table.move_cursor(row=self._order.index(key))
        self._explain_current()
        return True
