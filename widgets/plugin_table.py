"""The Plugin Freedom System registry as a live table (docs/formats.md#registry).

:class:`PluginTable` takes a :class:`core.plugins.Registry` (it never reads a file) and shows one
row per plugin, keyed by the plugin's name: the registry table's status, the full entry's status,
the ``.continue-here.md`` stage/phase (with the stage numbering in use), its next action, the last
update, the contract checksums and the number of findings. Cells that disagree with another place
(a :class:`core.plugins.DriftCell`) are highlighted in the colour of the finding's severity; the
pane under the table explains the selected row (each drift's reason and every finding).

:meth:`PluginTable.update_registry` is incremental: rows are added and removed by key and only
the cells whose text or style changed are updated (never a rebuild per event).

Every string from a file reaches the screen as ``rich.text.Text`` (never parsed as markup).
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field
from phasewatch.core.findings import Finding, Severity, sort_findings
from phasewatch.core.plugins import PluginRecord, Registry, Status, fix_mojibake
from phasewatch.core.text import shorten
from phasewatch.widgets._table import LiveTable
from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.coordinate import Coordinate
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static

from ._style import theme_styles

# (key, label) in display order
COLUMNS: tuple[tuple[str, str], ...] = (
    ("plugin", "Plugin"),
    ("table_status", "Table status"),
    ("entry_status", "Entry status"),
    ("stage", "Handoff stage"),
    ("next_action", "Next action"),
    ("last_updated", "Last updated"),
    ("checksums", "Contracts"),
    ("findings", "Findings"),
)
COLUMN_KEYS = tuple(k for k, _ in COLUMNS)

DIM = Style(dim=True)


class Palette(Struct, frozen=True, eq=False):
    """The table's colours, from the app's theme (``_style.theme_styles``: dark and light)."""

    styles: dict[str, Style]

    def drift(self, severity: Severity) -> Style:
        """A cell that disagrees with another place: reversed, in its finding's severity."""
        return self.styles[f"{severity}-cell"]

    def severity(self, severity: Severity) -> Style:
        return self.styles[str(severity)]

    @property
    def ok(self) -> Style:
        return self.styles["success"]


BOLD = Style(bold=True)

# DriftCell.column -> the table cells it highlights, and the rules whose severity colours them.
DRIFT_CELLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "status": (("table_status", "entry_status"), ("PLG-STATUS-DRIFT",)),
    "version": (("plugin",), ("PLG-VERSION-DRIFT",)),
    "last_updated": (("last_updated",), ("PLG-DATE-DRIFT", "PLG-CH-DATE-DRIFT")),
    "stage": (("stage",), ("PLG-STAGE-DRIFT",)),
    "handoff": (("stage",), ("PLG-CH-STALE",)),
}
LAYOUTS = {"full-entries": "full entries", "table-only": "table only", "none": "no registry"}
# in words a newcomer reads: which stage numbers the plugins' files use (docs/formats.md)
NUMBERINGS = {
    "contract-0-6": "stages numbered 0, 2-6 (the older plans)",
    "current-0-3": "stages numbered 0-3",
    "unknown": "stage numbering unknown",
}
SHORT_NUMBERING = {"contract-0-6": "of 0-6", "current-0-3": "of 0-3"}
CELL_WIDTH = 40
EMPTY_MESSAGE = (
    "No plugin registry: no PLUGINS.md and no plugins/*/.continue-here.md in this project."
)


def _worst(findings: list[Finding], rules: tuple[str, ...]) -> Severity | None:
    found = [f.severity for f in findings if f.rule_id in rules]
    return min(found, key=lambda s: s.rank, default=None)


def status_text(status: Status | None) -> str:
    """A status as shown: the canonical words for known ones, the file's words otherwise."""
    if status is None:
        return "—"
    if status.kind in ("unknown", "empty"):
        raw = " ".join(fix_mojibake(status.raw).replace("**", "").split())
        return raw or "(empty)"
    return status.display


def drift_severities(rec: PluginRecord) -> dict[str, Severity]:
    """Cell key -> the severity it is highlighted with (the worst drift touching it)."""
    out: dict[str, Severity] = {}
    for cell in rec.drift:
        keys, rules = DRIFT_CELLS.get(cell.column, (("plugin",), ()))
        sev = _worst(rec.findings, rules) or Severity.WARNING
        for key in keys:
            if key not in out or sev.rank < out[key].rank:
                out[key] = sev
    return out


def _cell(value: str, style: Style | None = None) -> Text:
    return Text(shorten(value, CELL_WIDTH), style=style or "", no_wrap=True, overflow="ellipsis")


def _stage_cell(rec: PluginRecord) -> str:
    ch = rec.handoff
    if ch is None:
        kind = rec.status.kind if rec.status else None
        return "— (closed)" if kind in ("working", "installed") else "—"
    if ch.front_matter is None:
        return "? no front matter" if ch.error == "no front matter" else "? unreadable YAML"
    where = ch.phase or (str(ch.stage) if ch.stage is not None else "unknown")
    of = f" {SHORT_NUMBERING[rec.numbering]}" if rec.numbering in SHORT_NUMBERING else ""
    return f"stage {where}{of} · {ch.status or 'no status'}"


def _checksum_cell(rec: PluginRecord, pal: Palette) -> tuple[str, Style | None]:
    states = {c.state for c in rec.checksums}
    if not states:
        return "—", DIM
    if "mismatch" in states:
        return "✗ tampered", pal.drift(Severity.ERROR)
    for state in ("missing-file", "malformed", "unreadable"):
        if state in states:
            word = "missing" if state == "missing-file" else state
            return f"? {word}", pal.drift(Severity.WARNING)
    if "missing-checksum" in states:
        return "no checksum yet", pal.severity(Severity.INFO)
    return "✓ ok", pal.ok


def build_cells(rec: PluginRecord, pal: Palette) -> dict[str, Text]:
    """The row of one plugin: column key -> Text (file text never parsed as markup)."""
    hot = drift_severities(rec)

    def style(key: str, default: Style | None = None) -> Style | None:
        return pal.drift(hot[key]) if key in hot else default

    ch = rec.handoff
    next_action = "—"
    if ch is not None and (ch.next_action or ch.next_phase):
        next_action = ch.next_action or "—"
        if ch.next_phase:
            next_action += f" → {ch.next_phase}"
    updated = rec.last_updated.isoformat() if rec.last_updated else "—"
    sums, sums_style = _checksum_cell(rec, pal)
    worst = rec.worst
    count = len(rec.findings)
    return {
        "plugin": _cell(rec.name, style("plugin", BOLD)),
        "table_status": _cell(
            status_text(rec.table.status if rec.table else None), style("table_status")
        ),
        "entry_status": _cell(
            status_text(rec.entry.status if rec.entry else None), style("entry_status")
        ),
        "stage": _cell(_stage_cell(rec), style("stage")),
        "next_action": _cell(next_action),
        "last_updated": _cell(updated, style("last_updated")),
        "checksums": _cell(sums, sums_style),
        "findings": _cell(str(count), pal.severity(worst) if worst else DIM),
    }


#: Plugins held as rows at most (the first ones, in the registry's order): a registry lists tens;
#: past a screenful the header says how many more there are
#: (docs/performance.md#files-at-their-read-caps).
ROWS_SHOWN = 1000


def _sig(text: Text) -> tuple[Any, ...]:
    return (text.plain, str(text.style), tuple(text.spans))


def header_text(registry: Registry | None, pal: Palette) -> Text:
    text = Text("Plugins", style=BOLD)
    if registry is None:
        text.append("  no registry", style=DIM)
        return text
    drift = sum(len(r.drift) for r in registry.plugins)
    parts = [
        LAYOUTS.get(registry.layout, registry.layout),
        NUMBERINGS.get(registry.numbering, registry.numbering),
        f"{len(registry.plugins):,} plugin{'s' if len(registry.plugins) != 1 else ''}",
    ]
    if len(registry.plugins) > ROWS_SHOWN:
        parts.append(f"{len(registry.plugins) - ROWS_SHOWN:,} more not shown")
    text.append("  " + " · ".join(parts) + " · ")
    text.append(f"{drift} drift", style=pal.drift(Severity.ERROR) if drift else pal.ok)
    worst = min((f.severity for f in registry.findings), key=lambda s: s.rank, default=None)
    text.append(" · ")
    count = len(registry.findings)
    text.append(
        f"{count} finding{'s' if count != 1 else ''}",
        style=pal.severity(worst) if worst else pal.ok,
    )
    return text


def _finding_lines(text: Text, findings: list[Finding], pal: Palette) -> None:
    for f in sort_findings(findings):
        text.append("\n  ")
        text.append(f"{str(f.severity).upper():<7}", style=pal.severity(f.severity))
        text.append(f" {f.rule_id}", style=BOLD)
        text.append(f"  {f.source} › {f.place}" if f.place else f"  {f.source}", style=DIM)
        text.append(f"\n      {f.message}")
        if f.hint:
            text.append(f"\n      fix: {f.hint}", style=DIM)


def _registry_lines(text: Text, rec: PluginRecord) -> None:
    text.append("\nRegistry: ")
    text.append(status_text(rec.status))
    if rec.stage_name:
        text.append(f" ({rec.stage_name})")
    if rec.version:
        text.append(f" · version {rec.version}")
    if rec.last_updated:
        text.append(f" · last updated {rec.last_updated.isoformat()}")
    text.append(f" · {NUMBERINGS.get(rec.numbering, rec.numbering)}", style=DIM)
    ch = rec.handoff
    text.append("\nHandoff: ")
    if ch is None:
        text.append("no .continue-here.md", style=DIM)
        return
    text.append(_stage_cell(rec))
    if ch.next_action:
        text.append(f" · next: {ch.next_action}")
    if ch.next_phase:
        text.append(f" → {ch.next_phase}")
    if ch.complexity_score is not None:
        text.append(f" · complexity {ch.complexity_score:.1f}")
    if ch.phased_implementation is not None:
        text.append(" (phased)" if ch.phased_implementation else " (single pass)")


def _contract_lines(text: Text, rec: PluginRecord, pal: Palette) -> None:
    if not rec.checksums:
        return
    text.append("\nContracts: ")
    for i, c in enumerate(rec.checksums):
        if i:
            text.append(" · ")
        mark, st = {
            "ok": ("✓", pal.ok),
            "mismatch": ("✗", pal.severity(Severity.ERROR)),
            "null": ("–", DIM),
        }.get(c.state, ("?", pal.severity(Severity.WARNING)))
        text.append(f"{mark} {c.key} {c.state}", style=st)
        if c.state == "mismatch":
            text.append(
                f" (recorded {shorten(c.recorded or '', 19)}, now {shorten(c.actual or '', 19)})"
            )


def _drift_lines(text: Text, rec: PluginRecord, pal: Palette) -> None:
    text.append(f"\n\nDrift ({len(rec.drift)})", style=BOLD)
    hot = drift_severities(rec)
    for cell in rec.drift:
        keys = DRIFT_CELLS.get(cell.column, (("plugin",), ()))[0]
        sev = hot.get(keys[0], Severity.WARNING)
        text.append("\n  ")
        text.append(f" {cell.column} ", style=pal.drift(sev))
        text.append(" ")
        text.append(cell.left if cell.left is not None else "—")
        text.append(f" ({cell.left_source})", style=DIM)
        text.append(" ≠ ")
        text.append(cell.right if cell.right is not None else "—")
        text.append(f" ({cell.right_source})", style=DIM)
        text.append(f"\n      {cell.reason}")


def _registry_only(registry: Registry | None, pal: Palette) -> Text:
    text = Text("Select a plugin to see why its cells are highlighted.", style=DIM)
    if registry is not None:
        own = [f for f in registry.findings if not any(f in p.findings for p in registry.plugins)]
        if own:
            text.append(f"\n\nRegistry findings ({len(own)})", style=BOLD)
            _finding_lines(text, own, pal)
    return text


def detail_text(rec: PluginRecord | None, registry: Registry | None, pal: Palette) -> Text:
    """The explanation of one plugin's row: drift reasons, findings, contracts, handoff."""
    if rec is None:
        return _registry_only(registry, pal)
    text = Text(rec.name, style=BOLD)
    if rec.directory:
        text.append(f"  plugins/{rec.directory}", style=DIM)
    _registry_lines(text, rec)
    _contract_lines(text, rec, pal)
    if rec.drift:
        _drift_lines(text, rec, pal)
    if rec.findings:
        text.append(f"\n\nFindings ({len(rec.findings)})", style=BOLD)
        _finding_lines(text, rec.findings, pal)
    if not rec.drift and not rec.findings:
        text.append("\n\nNo drift, no findings.", style=pal.ok)
    return text


class UpdateStats(Struct):
    """What one :meth:`PluginTable.update_registry` changed."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[tuple[str, str]] = field(default_factory=list)  # (plugin, column key)

    @property
    def touched_rows(self) -> set[str]:
        return {*self.added, *self.removed, *(row for row, _ in self.changed)}


class PluginTable(Widget):
    """Plugin registry table + detail pane; feed it with :meth:`update_registry`."""

    DEFAULT_CSS = """
    PluginTable {
        height: 1fr;
        layout: vertical;
    }
    PluginTable > #plugins-header {
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    PluginTable > DataTable {
        height: 1fr;
    }
    PluginTable > #plugins-detail-scroll {
        height: 14;
        border-top: solid $primary;
        padding: 0 1;
    }
    PluginTable > #plugins-empty {
        height: 1fr;
        content-align: center middle;
        color: $text-muted;
    }
    """

    class Highlighted(Message):
        """The cursor moved to a plugin's row."""

        def __init__(self, table: PluginTable, plugin: str) -> None:
            super().__init__()
            self.table = table
            self.plugin = plugin

        @property
        def control(self) -> PluginTable:
            return self.table

    class Selected(Highlighted):
        """A plugin's row was chosen (Enter or click on the highlighted row)."""

    def __init__(
        self,
        registry: Registry | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._registry = registry
        self._records: dict[str, PluginRecord] = {}
        self._cells: dict[str, dict[str, tuple[Any, ...]]] = {}
        self._selected: str | None = None
        self._detail_sig: tuple[Any, ...] | None = None
        self.last_update = UpdateStats()

    # ------------------------------------------------------------------ compose

    def compose(self) -> ComposeResult:
        yield Static(header_text(None, self._palette()), id="plugins-header")
        table: DataTable[Text] = LiveTable(id="plugins-table", cursor_type="row")
        for key, label in COLUMNS:
            table.add_column(Text(label), key=key)
        yield table
        with VerticalScroll(id="plugins-detail-scroll"):
            yield Static(detail_text(None, None, self._palette()), id="plugins-detail")
        yield Static(Text(EMPTY_MESSAGE), id="plugins-empty")

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._restyle())
        self._apply()

    def _palette(self) -> Palette:
        return Palette(theme_styles(self.app))

    def _restyle(self) -> None:
        self._detail_sig = None  # the cells' signatures hold their styles: changed ones repaint
        self._apply()

    # ------------------------------------------------------------------ public API

    @property
    def registry(self) -> Registry | None:
        return self._registry

    @property
    def selected(self) -> str | None:
        """The plugin whose row has the cursor (None when the table is empty)."""
        return self._selected

    @property
    def table(self) -> DataTable[Text]:
        return self.query_one("#plugins-table", DataTable)

    def record(self, plugin: str) -> PluginRecord | None:
        return self._records.get(plugin)

    def update_registry(self, registry: Registry | None) -> UpdateStats:
        """Show ``registry``: add/remove rows by plugin name, update only the changed cells."""
        self._registry = registry
        if not self.is_mounted:
            return UpdateStats()
        return self._apply()

    def select_plugin(self, plugin: str) -> bool:
        """Move the cursor to ``plugin``'s row; False if there is no such row."""
        if plugin not in self._cells:
            return False
        table = self.table
        table.move_cursor(row=table.get_row_index(plugin))
        self._set_selected(plugin)
        return True

    # ------------------------------------------------------------------ internals

    def _apply(self) -> UpdateStats:
        registry = self._registry
        stats = UpdateStats()
        table = self.table
        shown = registry.plugins[:ROWS_SHOWN] if registry is not None else []
        records = {r.name: r for r in shown}
        pal = self._palette()
        with self.app.batch_update():
            for name in [n for n in self._cells if n not in records]:
                table.remove_row(name)
                del self._cells[name]
                stats.removed.append(name)
            for name, rec in records.items():
                cells = build_cells(rec, pal)
                sigs = {k: _sig(v) for k, v in cells.items()}
                old = self._cells.get(name)
                if old is None:
                    table.add_row(*(cells[k] for k in COLUMN_KEYS), key=name)
                    stats.added.append(name)
                else:
                    for key in COLUMN_KEYS:
                        if old[key] != sigs[key]:
                            table.update_cell(name, key, cells[key], update_width=True)
                            stats.changed.append((name, key))
                self._cells[name] = sigs
            self._records = records
            self.query_one("#plugins-header", Static).update(header_text(registry, pal))
            empty = not records
            self.query_one("#plugins-empty", Static).display = empty
            if empty:
                message = (
                    EMPTY_MESSAGE
                    if registry is None or registry.layout == "none"
                    else ("PLUGINS.md lists no plugins yet.")
                )
                self.query_one("#plugins-empty", Static).update(Text(message))
            table.display = not empty
            self.query_one("#plugins-detail-scroll").display = not empty
            current = None
            if table.row_count:
                row = min(max(table.cursor_row, 0), table.row_count - 1)
                current = table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value
            self._set_selected(current)
        self.last_update = stats
        return stats

    def _set_selected(self, plugin: str | None) -> None:
        self._selected = plugin
        rec = self._records.get(plugin) if plugin else None
        text = detail_text(rec, self._registry, self._palette())
        sig = (plugin, text.plain, tuple(text.spans))
        if sig != self._detail_sig:
            self._detail_sig = sig
            self.query_one("#plugins-detail", Static).update(text)

    @on(DataTable.RowHighlighted, "#plugins-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        plugin = event.row_key.value
        if plugin is None or plugin not in self._records:
            return
        changed = plugin != self._selected
        self._set_selected(plugin)
        if changed:
            self.post_message(self.Highlighted(self, plugin))

    @on(DataTable.RowSelected, "#plugins-table")
    def _selected_row(self, event: DataTable.RowSelected) -> None:
        event.stop()
        plugin = event.row_key.value
        if plugin is not None and plugin in self._records:
            self.post_message(self.Selected(self, plugin))
