"""Live findings: a DataTable keyed by :attr:`Finding.key`, severity-coloured, plus a detail pane.

Standing findings (what the files say now) and recent events (transition findings, which exist
only in the one snapshot where the transition happened) share the table; events are marked ``⟲``
and carry the state version they led to. Events of one rule at one place share a row (the newest,
and how many): a writer storming the file shows one ``TR-VERSION-JUMP`` row that counts, not a
row per refresh (the timeline screen lists every event). Rows are added/removed by key and only
changed cells are rewritten; the order (severity, rule, path) is restored with
``DataTable.sort`` when rows are added. New rows, and event rows with a newer event, are
emphasised for a few seconds.

Plain data in: :class:`~core.findings.Finding` objects (and ``(key, version, finding)`` tuples for
events). Every string is a Rich ``Text`` or plain ``Content``: never markup.

More than :data:`~widgets._window.WINDOW_ROWS` rows (30,000 findings of a 10,000-phase state) are
ordered here and held as a window, moved by the cursor keys past its edge, with a line saying
which rows of how many are held (``widgets/_window.py``); only the window's cells are built.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, NamedTuple

from phasewatch.core.findings import Finding, get_rule
from phasewatch.widgets._table import add_columns
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import DataTable, Static
from textual.widgets.data_table import CellDoesNotExist, ColumnKey, RowDoesNotExist

from ._style import (
    EVENT,
    SEVERITY_GLYPH,
    UNKNOWN,
    plain,
    plain_content,
    same_text,
    show_in,
    theme_styles,
)
from ._window import KEYS_HINT, Window, WindowedTable

COLUMNS: tuple[tuple[str, str], ...] = (
    ("sev", "sev"),
    ("rule", "rule"),
    ("path", "where"),
    ("message", "message"),
)
NEW_SECONDS = 4.0
#: The "where" cell's widest (its end is kept: the key that differs); the detail pane has it whole.
WHERE_WIDTH = 36
#: The message cell takes the width the other columns leave (cut with "…"; the detail pane has
#: it whole), and at least this much.
MESSAGE_MIN_WIDTH = 20
_RANK = {"error": 0, "warning": 1, "info": 2}


class Item(NamedTuple):
    """One row: a standing finding (``event`` None) or a recent event (its version)."""

    key: str
    finding: Finding
    event: int | None = None  # timeline seq of the (newest) transition (events only)
    version: int | None = None  # state_version the transition led to
    count: int = 1  # type: ignore[assignment]  # a field shadowing tuple.count (fine at runtime)


def finding_key(f: Finding) -> str:
    return "\x1f".join(f.key)


def standing(findings: Iterable[Finding]) -> list[Item]:
    return [Item(finding_key(f), f) for f in findings]


def events(items: Iterable[tuple[int, int | None, Finding]]) -> list[Item]:
    """``(seq, state_version, finding)`` triples, newest first -> event rows: one per rule and
    place (source, path), the newest event's, with how many there were."""
    rows: dict[str, Item] = {}
    for seq, v, f in items:
        key = "\x1f".join(("event", f.rule_id, f.source, f.path))
        row = rows.get(key)
        rows[key] = Item(key, f, seq, v) if row is None else row._replace(count=row.count + 1)
    return list(rows.values())


def by_severity(items: Iterable[Item]) -> list[Item]:
    """Errors first, then warnings, then information; within one severity the recent events
    before the standing findings, each group in its own order (the sort is stable). A stale
    write's error so stands on top of a list of infos and warnings, visible without scrolling."""
    return sorted(items, key=lambda i: (i.finding.severity.rank, i.event is None))


def _value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def detail_content(item: Item | None) -> Content:
    """The detail pane for one row: every field of the finding, in plain words (where a rule
    comes from is for ``check --rules --verbose`` and the docs, not the screen)."""
    if item is None:
        return Content("No finding selected.")
    f = item.finding
    try:
        rule = get_rule(f.rule_id)
        title, scope = rule.title, rule.scope
    except KeyError:
        title, scope = "", ""
    sev = str(f.severity)
    lines: list[tuple[str, str]] = [
        ("rule", f"{f.rule_id}" + (f" — {title}" if title else "")),
        ("severity", sev + (f" ({scope})" if scope else "")),
        ("source", f.source),
        ("path", f.place or "the whole file"),
        ("expected", _value(f.expected)),
        ("actual", _value(f.actual)),
        ("message", f.message),
        ("what to do", f.hint),
    ]
    if item.event is not None:
        seen = f"; {item.count} such events this session" if item.count > 1 else ""
        lines.insert(0, ("event", f"transition to v{item.version} (timeline #{item.event}){seen}"))
    parts: list[Content | str | tuple[str, str]] = []
    for i, (label, value) in enumerate(lines):
        if i:
            parts.append("\n")
        style = (
            f"bold ${'error' if sev == 'error' else 'warning' if sev == 'warning' else 'primary'}"
        )
        parts.append((f"{label:>10} ", style if label == "rule" else "bold"))
        parts.append(plain_content(value))
    return Content.assemble(*parts)


def where_text(f: Finding) -> str:
    """The "where" cell: the file and the path in it (its end kept past ``WHERE_WIDTH``)."""
    path = f.place  # the whole file: shown as the file's name alone
    where = path if not f.source else f"{f.source}:{path}" if path else f.source
    if len(where) > WHERE_WIDTH:  # leave the message room at 120 columns
        where = "…" + where[-(WHERE_WIDTH - 1) :]
    return where


def item_order(item: Item) -> tuple[Any, ...]:
    """:func:`_sort_key` of the item's cells, from the item (a window is cut from the items
    in this order, then sorted in the table by its cells)."""
    f = item.finding
    return (item.event is not None, _RANK.get(str(f.severity), 3), f.rule_id, where_text(f))


def _sort_key(sev: Any, rule: Any, path: Any) -> tuple[Any, ...]:
    """Order rows by the plain text of their cells: standing before events, then severity."""
    sev_text = sev.plain if isinstance(sev, Text) else str(sev)
    is_event = sev_text.startswith(EVENT)
    word = sev_text.split()[-1] if sev_text.split() else ""
    return (
        is_event,
        _RANK.get(word, 3),
        rule.plain if isinstance(rule, Text) else str(rule),
        path.plain if isinstance(path, Text) else str(path),
    )


#: ``v`` cycles what the list shows: everything, errors and warnings, errors only.
SEVERITY_FILTERS: tuple[tuple[str, frozenset[str] | None], ...] = (
    ("all findings", None),
    ("errors and warnings", frozenset({"error", "warning"})),
    ("errors only", frozenset({"error"})),
)


class FindingsList(Vertical):
    """Findings table + detail pane. Call :meth:`show`; it returns the rows that are new.

    ``v`` filters by severity (:data:`SEVERITY_FILTERS`); the items hidden are kept and come
    back, not as new rows, when the filter is widened again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "cycle_severity", "Severity filter", tooltip="all / errors+warnings / errors"),
    ]

    DEFAULT_CSS = """
    FindingsList { height: 1fr; }
    FindingsList > DataTable { height: 1fr; min-height: 4; }
    FindingsList > #findings-more { height: 1; padding: 0 1; color: $text-muted; display: none; }
    FindingsList > #findings-more.partial { display: block; }
    FindingsList > #finding-detail {
        height: auto; max-height: 12; padding: 0 1;
        border-top: solid $panel-lighten-2;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._items: dict[str, Item] = {}
        self._cells: dict[str, tuple[Text, ...]] = {}
        self._new: dict[str, Any] = {}  # key -> timer clearing the "new" emphasis
        #: The message column's width in cells (None until the first show); see :meth:`_room`.
        self._message_room: int | None = None
        self.rebuilds = 0
        self.cell_updates = 0
        self.severity_filter = 0  # an index into SEVERITY_FILTERS
        self._given: list[Item] = []  # every item of the last show, before the filter
        self._wanted: dict[str, Item] = {}  # every item the filter keeps (the table: a window)
        self._ordered: list[str] = []  # their keys in the table's order (a partial window)
        self.window = Window()

    def compose(self) -> ComposeResult:
        table = WindowedTable(id="findings-table", cursor_type="row")
        table.edge = self._edge
        yield table
        yield Static("", id="findings-more", markup=False)
        yield Static(detail_content(None), id="finding-detail", markup=False)

    def on_mount(self) -> None:
        add_columns(self, self.table, COLUMNS, self._restyle)

    @property
    def table(self) -> WindowedTable:
        return self.query_one("#findings-table", WindowedTable)

    @property
    def items(self) -> dict[str, Item]:
        return dict(self._items)

    @property
    def keys(self) -> list[str]:
        """Row keys in display order."""
        return [str(row.key.value) for row in self.table.ordered_rows]

    def _cells_for(self, item: Item, styles: dict[str, Style], new: bool) -> tuple[Text, ...]:
        f = item.finding
        message = f.message if item.event is None else f"v{item.version}: {f.message}"
        if item.count > 1:
            message = f"×{item.count}, newest {message}"
        text = plain(" ".join(message.split()), styles["new"] if new else "")
        room = self._message_room
        if room is not None and len(text) > 4 * room:  # (cutting a long text costs its length)
            text.right_crop(len(text) - 4 * room)
        if room is not None and text.cell_len > room:
            text.truncate(room, overflow="ellipsis")
        return (*self._other_cells(item, styles, new), text)

    @staticmethod
    def _other_cells(item: Item, styles: dict[str, Style], new: bool) -> tuple[Text, ...]:
        """The cells before the message: severity, rule and where."""
        f = item.finding
        sev = str(f.severity)
        sev_style = styles.get(sev, styles["plain"])
        mark = EVENT if item.event is not None else SEVERITY_GLYPH.get(sev, UNKNOWN)
        rule_style = sev_style + styles["new"] if new else sev_style
        where = where_text(f)
        return (
            Text(f"{mark} {sev}", style=sev_style),
            plain(f.rule_id, rule_style),
            plain(where, styles["muted"]),
        )

    def show(self, items: Sequence[Item], *, emphasise_new: bool = True) -> list[Item]:
        """Render ``items`` (keyed; only changed cells rewritten). Returns the added items and
        the event rows holding a newer event (both emphasised a few seconds)."""
        self._given = list(items)
        keep = SEVERITY_FILTERS[self.severity_filter][1]
        wanted: dict[str, Item] = {}
        for item in items:
            if keep is None or str(item.finding.severity) in keep:
                wanted.setdefault(item.key, item)
        before = self._wanted
        self._wanted = wanted
        # new findings, and event rows holding a newer event (in the window or not)
        fresh = {
            key
            for key, item in wanted.items()
            if key not in before or before[key].event != item.event
        }
        self.window.resize(len(wanted))
        if self.window.partial:
            self._ordered = [i.key for i in sorted(wanted.values(), key=item_order)]
            if not self.table.has_focus:  # not driven by the user: the most severe on top
                self.window.start = 0
        else:
            self._ordered = []
        self._fill(fresh, emphasise_new)
        return [item for key, item in wanted.items() if key in fresh]

    def _fill(
        self, fresh: set[str] | frozenset[str] = frozenset(), emphasise: bool = False
    ) -> None:
        """Put the window's rows in the table (only changed cells rewritten); the ``fresh`` ones
        (new findings, newer events) emphasised a few seconds if ``emphasise``."""
        table = self.table
        styles = theme_styles(self.app)
        window = self.window
        if window.partial:
            wanted = {k: self._wanted[k] for k in self._ordered[window.start : window.end]}
        else:
            wanted = dict(self._wanted)
        stale = len(set(self._items) - set(wanted))
        if len(self._items) > 50 and stale > 0.8 * len(self._items):
            # most rows are stale: one clear is cheaper than many removals
            table.clear()
            self.rebuilds += 1
            self._cells.clear()
            self._items.clear()
        for key in [k for k in self._items if k not in wanted]:
            table.remove_row(key)
            self._cells.pop(key, None)
            timer = self._new.pop(key, None)
            if timer is not None:
                timer.stop()
        # the rows to add widen their columns: the message's room as it will be (the rows
        # already shown are in the columns' widths)
        self._message_room = self._room(
            [
                self._other_cells(item, styles, False)
                for k, item in wanted.items()
                if k not in self._cells
            ]
        )
        added_rows = False
        for key, item in wanted.items():
            old = self._cells.get(key)
            is_new = key in fresh
            cells = self._cells_for(item, styles, (is_new and emphasise) or key in self._new)
            if old is None:
                table.add_row(*cells, key=key)
                added_rows = True
            if is_new and emphasise:  # a new row, or a newer event in an event row
                timer = self._new.pop(key, None)
                if timer is not None:
                    timer.stop()
                self._new[key] = self.set_timer(NEW_SECONDS, lambda k=key: self._unmark(k))
            if old is not None:
                for (column, _), was, after in zip(COLUMNS, old, cells, strict=True):
                    if not same_text(was, after):
                        table.update_cell(key, column, after)
                        self.cell_updates += 1
            self._cells[key] = cells
        self._items = wanted
        table.measure_now()
        self._fit_messages()
        if added_rows and table.row_count > 1:
            cursor_key = self._cursor_key()
            table.sort("sev", "rule", "path", key=lambda row: _sort_key(*row))
            if cursor_key is not None:
                self._move_to(cursor_key)
        self._update_detail()
        more = self.query_one("#findings-more", Static)
        more.set_class(window.partial, "partial")
        if window.partial:
            show_in(more, Text(window.note("findings", KEYS_HINT + ", v: by severity")))

    def _edge(self, where: str) -> bool:
        """A key went past the edge of the rows held: move the window (see WindowedTable)."""
        if not self.window.partial:
            return False
        key = self._cursor_key()
        index = self._ordered.index(key) if key in self._ordered else self.window.start
        target = self.window.move(where, index)
        if target is None:
            return False
        self._fill()
        self._move_to(self._ordered[target])
        self._update_detail()
        return True

    def action_cycle_severity(self) -> None:
        self.severity_filter = (self.severity_filter + 1) % len(SEVERITY_FILTERS)
        label = SEVERITY_FILTERS[self.severity_filter][0]
        self.show(self._given, emphasise_new=False)
        hidden = len({item.key for item in self._given}) - len(self._wanted)
        more = f" ({hidden} hidden)" if hidden else ""
        self.notify(f"Findings list: {label}{more}", title="v", markup=False, timeout=3)

    def _unmark(self, key: str) -> None:
        self._new.pop(key, None)
        if key in self._items and self.is_mounted:
            self._rewrite([key])

    def _restyle(self) -> None:
        if self.is_mounted:
            self._rewrite(list(self._items))

    def _rewrite(self, keys: Iterable[str]) -> None:
        """Build the cells of rows ``keys`` again (a theme, the emphasis or the message's room
        changed) and rewrite the ones that differ."""
        styles = theme_styles(self.app)
        for key in keys:
            cells = self._cells_for(self._items[key], styles, key in self._new)
            for (column, _), before, after in zip(COLUMNS, self._cells[key], cells, strict=True):
                if not same_text(before, after):
                    self.table.update_cell(key, column, after)
            self._cells[key] = cells

    def on_resize(self) -> None:
        self._fit_messages()

    def _room(self, rows: Sequence[tuple[Text, ...]] = ()) -> int:
        """The message column's width: the table's (the app's before the first layout) less
        the other columns' (as laid out, or as wide as ``rows`` will make them) and a scroll
        bar's, and at least ``MESSAGE_MIN_WIDTH``."""
        table = self.table
        width = table.scrollable_content_region.width or self.app.size.width
        others = 0
        for index, column in enumerate(c for c in table.columns.values() if c.key != "message"):
            widest = max((cells[index].cell_len for cells in rows), default=0)
            others += max(column.get_render_width(table), widest + 2 * table.cell_padding)
        return max(MESSAGE_MIN_WIDTH, width - others - 2 * table.cell_padding - 2)

    def _fit_messages(self) -> None:
        """Cut the messages to the width the other columns leave, so the table needs no
        horizontal scroll bar (one at 120 columns hid a row of three) and renders no cells
        beyond the screen's edge. :meth:`show` cuts them as it builds them; this runs after
        it and after a resize, where the columns came out otherwise."""
        table = self.table
        if ColumnKey("message") not in table.columns:  # (not mounted yet)
            return
        room = self._room()
        if room != self._message_room:
            self._message_room = room
            self._rewrite(list(self._items))
        table.fix_column_width("message", room)

    def _cursor_key(self) -> str | None:
        table = self.table
        if not table.row_count:
            return None
        try:
            return str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)
        except CellDoesNotExist:
            return None

    def _move_to(self, key: str) -> None:
        try:
            index = self.table.get_row_index(key)
        except RowDoesNotExist:
            return
        self.table.move_cursor(row=index, animate=False)

    @property
    def selected(self) -> Item | None:
        key = self._cursor_key()
        return self._items.get(key) if key is not None else None

    def select(self, key: str) -> bool:
        if key not in self._wanted:
            return False
        if key not in self._items:  # outside the window: move it there
            self.window.show(self._ordered.index(key))
            self._fill()
        self._move_to(key)
        self._update_detail()
        return True

    def _update_detail(self) -> None:
        item = self.selected
        show_in(self.query_one("#finding-detail", Static), detail_content(item))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._update_detail()
