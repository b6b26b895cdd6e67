"""A plugin's full entry: a ``### Name`` section of PLUGINS.md (older layout) or the whole
``plugins/<Name>/NOTES.md`` (newer layout), with its fields and its Lifecycle Timeline.

The real NOTES.md files write their fields as bullets, ``- **Current Status:** 🚧 Stage 2``
(the system's own template and its ``sed`` updater both need that shape); older entries write
``**Status:** 🚧 **Stage 2**``. Both are read, and ``current status`` is the ``status`` field.
"""

from __future__ import annotations

import re

from msgspec import Struct, field

from .dates import ParsedDate, parse_date
from .markdown import BULLET, HEADING, ascii_words, numbered_lines
from .status import STAGE_RE, Status, normalise_status

_FIELD_BOLD = re.compile(r"^\*\*\s*([^*]+?)\s*(?::\s*\*\*|\*\*\s*:)\s*(.*)$")
_FIELD_PLAIN = re.compile(
    r"^(status|current status|version|last updated|created|type|lifecycle timeline|timeline)"
    r"\s*:\s*(.*)$",
    re.I,
)
_ALIASES = {"current status": "status"}
# The one NOTES.md status line the system can maintain: its template and its updater's
# `sed "s/^- \*\*Current Status:\*\* .*$/…/"` (plugin-workflow references/state-management.md)
SYSTEM_STATUS_LINE = re.compile(r"^- \*\*Current Status:\*\* ")
# What the system's grep and sed match, code fences or not (they read lines, not Markdown)
_SYSTEM_READS = re.compile(r"^(?:- )?\*\*Current Status:\*\*")
KNOWN_FIELDS = {"status", "version", "last updated", "created", "type", "description"}
_TIMELINE_KEYS = {"lifecycle timeline", "timeline"}

_TL_STRICT = re.compile(r"^\*\*(\d{4}-\d{2}-\d{2})(?: \(([^)]*)\))?:\*\* \S")
_TL_BOLD = re.compile(r"^\*\*\s*(.+?)\s*\*\*\s*:?\s*(.*)$")
_TL_PLAIN = re.compile(r"^([^:]{4,40}?)\s*:\s*(.*)$")
_TL_LABEL = re.compile(r"\(\s*([^)]*)\)\s*:?\s*$")
_VERSION_LABEL = re.compile(r"v?\d+(?:\.\d+){1,3}(?:[-+.\w]*)")


class PluginTimelineEntry(Struct):
    """One Lifecycle Timeline item; ``problem`` says why it is not the system's format."""

    index: int
    line: int
    raw: str
    date: ParsedDate | None
    stage: str | None  # "3" / "3.2" from "(Stage 3.2)" or "(Stage 3 Phase 3.2)"
    text: str
    problem: str | None = None  # why it is not `- **YYYY-MM-DD (Stage N):** text`


class Entry(Struct):
    """A plugin's full entry: a ``### Name`` section of PLUGINS.md or ``plugins/Name/NOTES.md``."""

    name: str
    source: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)  # lower-cased key -> raw value
    field_lines: dict[str, int] = field(default_factory=dict)
    bulleted: list[str] = field(default_factory=list)  # fields written as `- **Key:**`
    status_lines: list[tuple[int, str]] = field(default_factory=list)  # every status line, raw
    timeline: list[PluginTimelineEntry] = field(default_factory=list)

    @property
    def in_plugins_md(self) -> bool:
        return not self.source.endswith("NOTES.md")

    @property
    def status(self) -> Status | None:
        raw = self.fields.get("status")
        return None if raw is None else normalise_status(raw)

    @property
    def version(self) -> str | None:
        return self.fields.get("version")

    @property
    def last_updated(self) -> ParsedDate | None:
        raw = self.fields.get("last updated")
        return None if raw is None else parse_date(raw)

    def where(self, key: str) -> str:
        """Finding path for a field: ``### Foo.Status`` or (NOTES.md) ``Status``."""
        return f"### {self.name}.{key}" if self.in_plugins_md else key


def parse_field(line: str) -> tuple[str, str, bool] | None:
    """``**Key:** value`` / ``- **Key:** value`` / ``Key: value`` -> (key, value, bulleted)."""
    bulleted = False
    body = line.strip()
    m = BULLET.match(body)
    if m:
        bulleted, body = True, m.group(1).strip()
    fm = _FIELD_BOLD.match(body) or _FIELD_PLAIN.match(body)
    if fm is None:
        return None
    key = " ".join(fm.group(1).lower().split())
    return _ALIASES.get(key, key), fm.group(2).strip(), bulleted


def label_stage(words: str) -> str | None:
    """``"Stage 5 Phase 5.1"`` -> ``"5.1"``, ``"Paused at Stage 2"`` -> ``"2"``; else None."""
    st = STAGE_RE.search(ascii_words(words))
    if st is None:
        return None
    if st.group(2):
        return f"{st.group(1)}.{st.group(2)}"
    return f"{st.group(1)}.{st.group(3)}" if st.group(3) else st.group(1)


def _timeline_problem(head: str, parsed: ParsedDate, label: str | None, strict: bool) -> str | None:
    if parsed.value is None:
        return f"date {head!r}: {parsed.note or parsed.form}"
    if not parsed.exact:
        return f"date {head!r} is not YYYY-MM-DD ({parsed.note})"
    if label is not None and label_stage(label) is None and not _VERSION_LABEL.fullmatch(label):
        return f"({label}) is not `(Stage N)` or `(vX.Y.Z)`"
    if not strict:
        return "not written `- **YYYY-MM-DD (Stage N):** text`"
    return None


def timeline_entry(index: int, line_no: int, body: str) -> PluginTimelineEntry:
    """One ``- **YYYY-MM-DD (Stage N):** text`` item (also ``(vX.Y.Z)``, or no label)."""
    m = _TL_BOLD.match(body) or _TL_PLAIN.match(body)
    if not m:
        return PluginTimelineEntry(index, line_no, body, None, None, body, "no `**date:**` head")
    head, text = m.group(1), m.group(2).strip()
    label = None
    lm = _TL_LABEL.search(head)
    if lm:
        label = lm.group(1).strip()
        head = head[: lm.start()]
    head = head.rstrip(" :")
    parsed = parse_date(head)
    stage = label_stage(label) if label is not None else None
    problem = _timeline_problem(head, parsed, label, bool(_TL_STRICT.match(body)))
    return PluginTimelineEntry(index, line_no, body, parsed, stage, text, problem)


class EntryReader:
    """Feeds lines of one entry; knows when it is inside the Lifecycle Timeline list."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.in_timeline = False

    def feed(self, line_no: int, line: str) -> None:
        stripped = line.strip()
        if not stripped:
            return
        heading = HEADING.match(stripped)
        if heading:
            self.in_timeline = "timeline" in heading.group(2).lower()
            return
        parsed = parse_field(stripped)
        if self._timeline_item(line_no, stripped, parsed):
            return
        if parsed is not None:
            if parsed[0] == "status":
                self.entry.status_lines.append((line_no, line))
            self._field(line_no, *parsed)

    def _timeline_item(
        self, line_no: int, stripped: str, parsed: tuple[str, str, bool] | None
    ) -> bool:
        if not self.in_timeline:
            return False
        bullet = BULLET.match(stripped)
        if bullet is None or (parsed and parsed[0] in KNOWN_FIELDS):
            self.in_timeline = False
            return False
        timeline = self.entry.timeline
        timeline.append(timeline_entry(len(timeline), line_no, bullet.group(1).strip()))
        return True

    def _field(self, line_no: int, key: str, value: str, bulleted: bool) -> None:
        entry = self.entry
        if key in _TIMELINE_KEYS:
            self.in_timeline = True
            return
        if key in entry.fields:
            return  # first one wins (the system's grep reads the first)
        entry.fields[key] = value
        entry.field_lines[key] = line_no
        if bulleted and key in KNOWN_FIELDS:
            entry.bulleted.append(key)


def parse_notes_md(text: str, name: str, source: str) -> Entry:
    """A newer-layout entry: the whole NOTES.md, fields usually written as ``- `` bullets.

    A status line inside a code fence is read too: the system's own ``grep`` and ``sed`` see it
    (docs/tdd-and-plugins.md)."""
    entry = Entry(name=name, source=source, line=1)
    reader = EntryReader(entry)
    for no, line, fenced in numbered_lines(text or ""):
        if not fenced or _SYSTEM_READS.match(line):
            reader.feed(no, line)
    return entry
