"""Every version of state.json observed this session, and a diff between any two of them.

The table is keyed by ``TimelineEntry.seq`` and only ever appended to (or a row updated in
place). By default the diff shows the highlighted version against its predecessor; ``space``
marks up to two versions and the diff then compares the two marked ones (older -> newer).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from phasewatch.core.diff import diff_json
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.text import clean
from phasewatch.core.timeline import TimelineEntry
from phasewatch.widgets._table import LiveTable
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, RowDoesNotExist

from ._style import theme_styles
from .diff_view import DiffView


def findings_text(findings: Iterable[Finding], styles: dict[str, Style]) -> Text:
    """Rule ids, each in the colour of its worst severity (``styles``: ``theme_styles``)."""
    worst: dict[str, Severity] = {}
    for f in findings:
        sev = Severity(f.severity)
        if f.rule_id not in worst or sev.rank < worst[f.rule_id].rank:
            worst[f.rule_id] = sev
    text = Text()
    for i, (rule_id, sev) in enumerate(sorted(worst.items(), key=lambda kv: kv[1].rank)):
        if i:
            text.append(" ")
        text.append(rule_id, style=styles.get(str(sev), styles["plain"]))
    return text


class TimelineView(Vertical):
    """Versions table (seq, time, state_version, changed paths, transition findings) + DiffView."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_mark", "Mark", tooltip="Mark a version to compare (two at most)"),
        Binding("escape", "clear_marks", "Clear marks", show=False),
    ]

    DEFAULT_CSS = """
    TimelineView {
        height: 1fr;
        & > #timeline-table { height: 1fr; min-height: 5; }
        & > DiffView { height: 1fr; min-height: 6; border-top: solid $primary-muted; }
    }
    """

    def __init__(
        self,
        *,
        max_entries: int = 2000,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.max_entries = max_entries
        self._entries: dict[int, TimelineEntry] = {}
        self._order: list[int] = []  # seqs in arrival order
        self.marks: list[int] = []  # marked seqs (at most two)
        self._pending: list[TimelineEntry] = []
        self._shown: tuple[int | None, int] | None = None

    def compose(self) -> ComposeResult:
        table: DataTable[Any] = LiveTable(id="timeline-table", cursor_type="row")
        yield table
        yield DiffView()

    def on_mount(self) -> None:
        table = self.table
        table.add_column("", key="mark", width=2)
        table.add_column("#", key="seq")
        table.add_column("time", key="time")
        table.add_column("ver", key="ver")
        table.add_column("findings", key="findings")
        table.add_column("changed", key="changed")
        pending, self._pending = self._pending, []
        self.add_entries(pending)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#timeline-table", DataTable)

    @property
    def diff_view(self) -> DiffView:
        return self.query_one(DiffView)

    @property
    def entries(self) -> list[TimelineEntry]:
        return [self._entries[s] for s in self._order]

    def entry(self, seq: int) -> TimelineEntry | None:
        return self._entries.get(seq)

    # ------------------------------------------------------------------ feed
    def add_entry(self, entry: TimelineEntry) -> None:
        self.add_entries([entry])

    def add_entries(self, entries: Iterable[TimelineEntry]) -> None:
        """Append entries (an entry whose seq is already shown updates its row in place)."""
        entries = list(entries)
        if not self.is_mounted:
            self._pending.extend(entries)
            return
        if not entries:
            return
        table = self.table
        styles = theme_styles(self.app)
        follow = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        with self.app.batch_update():
            for entry in entries:
                key = str(entry.seq)
                cells = self._cells(entry, styles)
                if entry.seq in self._entries:
                    self._entries[entry.seq] = entry
                    for column, value in zip(
                        ("mark", "seq", "time", "ver", "findings", "changed"), cells, strict=True
                    ):
                        table.update_cell(key, column, value)
                    continue
                self._entries[entry.seq] = entry
                self._order.append(entry.seq)
                table.add_row(*cells, key=key)
            while len(self._order) > self.max_entries:
                old = self._order.pop(0)
                self._entries.pop(old, None)
                if old in self.marks:
                    self.marks.remove(old)
                try:
                    table.remove_row(str(old))
                except RowDoesNotExist:
                    pass
            if follow and table.row_count:
                table.move_cursor(row=table.row_count - 1)
        self._update_diff()

    def clear(self) -> None:
        self._entries.clear()
        self._order.clear()
        self.marks.clear()
        self._shown = None
        if self.is_mounted:
            self.table.clear()
            self.diff_view.clear("no versions observed yet")

    # ----------------------------------------------------------------- marks
    def mark(self, seq: int) -> None:
        """Toggle the mark on version ``seq`` (a third mark replaces the oldest)."""
        if seq not in self._entries:
            return
        if seq in self.marks:
            self.marks.remove(seq)
        else:
            self.marks.append(seq)
            if len(self.marks) > 2:
                self.marks.pop(0)
        self._refresh_marks()
        self._update_diff()

    def clear_marks(self) -> None:
        self.marks.clear()
        self._refresh_marks()
        self._update_diff()

    def action_toggle_mark(self) -> None:
        seq = self._cursor_seq()
        if seq is not None:
            self.mark(seq)

    def action_clear_marks(self) -> None:
        self.clear_marks()

    def _refresh_marks(self) -> None:
        table = self.table
        labels = {seq: "AB"[i] for i, seq in enumerate(sorted(self.marks))}
        for seq in self._order:
            table.update_cell(
                str(seq),
                "mark",
                Text(labels.get(seq, ""), style="bold reverse" if seq in labels else ""),
            )

    # ------------------------------------------------------------------ diff
    def _cursor_seq(self) -> int | None:
        table = self.table
        if not table.row_count:
            return None
        try:
            key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
        except CellDoesNotExist:
            return None
        return int(key) if key is not None and key.lstrip("-").isdigit() else None

    def comparison(self) -> tuple[TimelineEntry | None, TimelineEntry] | None:
        """The pair the diff pane shows: two marked versions, else the highlighted one and its
        predecessor."""
        if len(self.marks) == 2:
            a, b = sorted(self.marks, key=self._order.index)
            return self._entries[a], self._entries[b]
        seq = self._cursor_seq()
        if seq is None:
            return None
        i = self._order.index(seq)
        prev = self._entries[self._order[i - 1]] if i > 0 else None
        return prev, self._entries[seq]

    def _update_diff(self) -> None:
        pair = self.comparison()
        if pair is None:
            self._shown = None
            self.diff_view.clear("no versions observed yet")
            return
        old, new = pair
        key = (old.seq if old else None, new.seq)
        if key == self._shown:
            return
        self._shown = key
        label = "marked " if len(self.marks) == 2 else ""
        if old is None:
            first = Text(f"#{new.seq} (v{_ver(new)}): first observation in this session")
            self.diff_view.show_changes([], first.plain)
            return
        changes = [] if old.raw is None or new.raw is None else diff_json(old.raw, new.raw)
        title = clean(f"{label}#{old.seq} (v{_ver(old)}) → #{new.seq} (v{_ver(new)})")
        if old.raw is None or new.raw is None:
            title += " (a document is no longer kept: diff unavailable)"
        self.diff_view.show_changes(changes, title)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is not self.table:
            return
        event.stop()
        self._update_diff()

    # ----------------------------------------------------------------- cells
    def _restyle(self) -> None:
        """The theme changed: the findings column's colours follow it."""
        styles = theme_styles(self.app)
        for seq in self._order:
            entry = self._entries[seq]
            self.table.update_cell(str(seq), "findings", findings_text(entry.findings, styles))

    @staticmethod
    def _cells(entry: TimelineEntry, styles: dict[str, Style]) -> tuple[Text, ...]:
        local = entry.observed_at.astimezone()
        time = f"{local:%H:%M:%S}.{local.microsecond // 1000:03d}"
        summary = entry.summary()
        changed = Text(summary) if summary else Text(entry.note or "no change", style="dim")
        return (
            Text(""),
            Text(str(entry.seq)),
            Text(time),
            Text("?" if entry.state_version is None else str(entry.state_version)),
            findings_text(entry.findings, styles),
            changed,
        )


def _ver(entry: TimelineEntry) -> str:
    return "?" if entry.state_version is None else str(entry.state_version)
