"""``PLUGINS.md``: the registry table(s) and, in the older layout, a ``### Name`` full entry per
plugin (docs/formats.md#registry). The newer layout keeps only the table; each entry is then
``plugins/<Name>/NOTES.md`` (:mod:`.entry`).
"""

from __future__ import annotations

import re

from msgspec import Struct, field

from ..findings import Finding, Rule, Severity, make
from ..text import shorten
from .dates import ParsedDate, parse_date
from .entry import Entry, EntryReader
from .markdown import HEADING, ascii_words, numbered_lines, plugin_name, strip_md
from .rules import R_TABLE_COLUMNS, R_TABLE_ROW
from .status import Status, normalise_status

_ALIGN = re.compile(r"^\s*:?-+:?\s*$")
#: Table rows, and entries, read at most (each kind): a registry lists tens of plugins; one at
#: the 8 MiB read cap holds up to 390,000 rows, 93 s and 1.7 GB in the dashboard when each was
#: a plugin (docs/performance.md#files-at-their-read-caps). The rest are counted
#: (``PLG-TOO-MANY``), not read.
MAX_PLUGINS = 10_000
_ROW_ONLY = " \t|:-"  # an alignment row is made of these alone


class TableRow(Struct):
    """One registry table row: the plugin's name, its status, version and date as written."""

    name: str
    line: int
    status: Status
    version: str | None = None
    last_updated: ParsedDate | None = None
    cells: dict[str, str] = field(default_factory=dict)  # every column, by header text
    raw: str = ""  # the line as written
    # the status cell as the system's `awk -F'|'` cuts it: a pipe ends it, escaped (`\|`) or not
    system_status: str = ""

    def found_by_system(self, name: str) -> bool:
        """The system's own lookup, ``grep "^| ${PLUGIN_NAME} |" PLUGINS.md``, finds this row."""
        return self.raw.startswith(f"| {name} |")


class PluginsMd(Struct):
    """What PLUGINS.md holds: its table rows, its ``### Name`` entries, and reader findings."""

    rows: list[TableRow] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    tables: int = 0
    findings: list[Finding] = field(default_factory=list)
    rows_past_cap: int = 0  # table rows after the first MAX_PLUGINS: counted, not read
    entries_past_cap: int = 0  # headings after the first MAX_PLUGINS candidates: the same


def _cells(line: str) -> list[str]:
    text = line.strip().replace("\\|", "\x00")
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.replace("\x00", "|").strip() for c in text.split("|")]


def _column(header: str) -> str | None:
    words = ascii_words(strip_md(header)).replace("(", "").replace(")", "").strip()
    if words in ("plugin name", "plugin", "name", "plugins", "plugin name dir"):
        return "name"
    if words.startswith("status") or words == "state":
        return "status"
    if words.startswith("version") or words == "ver":
        return "version"
    if "updated" in words or words in ("last update", "date", "modified", "last modified"):
        return "last_updated"
    return None


class _TableReader:
    """Rows of every registry table: a header with a name and a status column, then rows."""

    def __init__(self, out: PluginsMd, source: str) -> None:
        self.out = out
        self.source = source
        self.columns: list[str | None] | None = None
        self.headers: list[str] = []

    def feed(self, no: int, line: str, fenced: bool) -> None:
        if fenced or "|" not in line or not line.strip():
            self.columns = None
            return
        if self.columns is not None and len(self.out.rows) >= MAX_PLUGINS and line.strip(_ROW_ONLY):
            self.out.rows_past_cap += 1  # past the cap: a row (a cell has more than `:-`), counted
            return
        cells = _cells(line)
        if self.columns is None:
            cols = [_column(c) for c in cells]
            if "name" in cols and "status" in cols:
                self.columns, self.headers = cols, cells
                self.out.tables += 1
                self._order(no, cols, cells)
            return
        if not all(_ALIGN.match(c) or not c for c in cells):
            self._row(no, line, cells, self.columns)

    def _row(self, no: int, line: str, cells: list[str], columns: list[str | None]) -> None:
        if len(self.out.rows) >= MAX_PLUGINS:
            self.out.rows_past_cap += 1
            return
        values: dict[str, str] = {}
        for col, value in zip(columns, cells, strict=False):
            if col and col not in values:
                values[col] = value
        name = plugin_name(values.get("name", ""))
        if not name:
            self._bad(
                f"table.line{no}",
                "a plugin name",
                shorten(line),
                f"line {no}: registry row without a plugin name.",
            )
            return
        if len(cells) < len(columns):
            self._bad(
                f"table[{name}]",
                f"{len(columns)} cells",
                f"{len(cells)} cells",
                f"line {no}: row for {name} has fewer cells than the header (the system's own "
                "updatePluginStatus writes rows like this; it reads only the status cell).",
                severity=Severity.INFO,
            )
        lu = values.get("last_updated")
        self.out.rows.append(
            TableRow(
                name=name,
                line=no,
                status=normalise_status(values.get("status")),
                version=strip_md(values["version"]) if "version" in values else None,
                last_updated=parse_date(lu) if lu is not None else None,
                cells=dict(zip(self.headers, cells, strict=False)),
                raw=line,
                system_status=values.get("status", "").split("|")[0],
            )
        )

    def _order(self, no: int, cols: list[str | None], cells: list[str]) -> None:
        """The system reads a row as ``grep "^| Name |"`` and its status as the second cell
        (``awk -F'|' '{print $3}'``): columns read by header here, by position there."""
        if cols[:2] == ["name", "status"]:
            return
        self._bad(
            f"table.line{no}",
            "| Plugin Name | Status | …",
            shorten(" | ".join(cells)),
            f"line {no}: the table's first columns are not Plugin Name, Status; phasewatch "
            "reads them by header (no drift), but the system's validateRegistryConsistency and "
            "updatePluginStatus read and write them by position.",
            R_TABLE_COLUMNS,
        )

    def _bad(
        self,
        path: str,
        expected: str,
        actual: str,
        message: str,
        rule: Rule = R_TABLE_ROW,
        severity: Severity | None = None,
    ) -> None:
        self.out.findings.append(
            make(
                rule,
                source=self.source,
                path=path,
                expected=expected,
                actual=actual,
                message=f"{self.source} {message}",
                severity=severity,
            )
        )


def _entries(
    lines: list[tuple[int, str, bool]], source: str, table_names: set[str], out: PluginsMd
) -> list[Entry]:
    """``### Name`` sections (``##`` too, when they carry a ``**Status:**`` field)."""
    current: EntryReader | None = None
    candidates: list[tuple[int, EntryReader]] = []
    for no, line, fenced in lines:
        if fenced:
            continue
        heading = HEADING.match(line)
        if heading and len(heading.group(1)) <= 3:
            current = None
            level = len(heading.group(1))
            if level >= 2 and len(candidates) >= MAX_PLUGINS:
                out.entries_past_cap += 1
                continue
            name = plugin_name(heading.group(2))
            if level >= 2 and name:
                current = EntryReader(Entry(name=name, source=source, line=no))
                candidates.append((level, current))
            continue
        if current is not None:
            current.feed(no, line)
    return [
        reader.entry
        for level, reader in candidates
        if "status" in reader.entry.fields
        or (level == 3 and reader.entry.name.casefold() in table_names)
    ]


def parse_plugins_md(text: str, source: str = "PLUGINS.md") -> PluginsMd:
    """Parse the registry table(s) and the ``### Name`` full entries. Never raises."""
    out = PluginsMd()
    lines = list(numbered_lines(text or ""))
    tables = _TableReader(out, source)
    for no, line, fenced in lines:
        tables.feed(no, line, fenced)
    out.entries = _entries(lines, source, {r.name.casefold() for r in out.rows}, out)
    return out
