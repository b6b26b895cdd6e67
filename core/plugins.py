"""The Plugin Freedom System's state files (FORMATS.md section 3, seed 002).

Readers for ``PLUGINS.md`` (older layout: registry table plus a ``### <Name>`` full entry per
plugin; newer layout: the table only, each entry in ``plugins/<Name>/NOTES.md``), for
``plugins/<Name>/.continue-here.md`` (YAML front matter plus Markdown sections) and for the
contract files whose sha256 checksums the handoff records. :func:`load_registry` merges them into
one :class:`PluginRecord` per plugin and audits them with the ``PLG-*`` rules; it never raises.

Parser choice: PyYAML, used only to *compose* the front matter into nodes with ``BaseLoader``
(no implicit type resolution, no object construction). Every scalar stays the literal text the
agent wrote (``4.10`` stays ``"4.10"``, ``2025-11-13`` stays a string, ``0o7`` is not an int), so
the seed's validation rules can judge what is actually in the file; each field is typed here.
"""

from __future__ import annotations

import calendar
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Literal

import yaml

from .findings import Finding, Rule, Severity, make, rule
from .sources import Project, read_text
from .text import clean, shorten

# ---------------------------------------------------------------------------- rules

_S = "seed 002"


def _plg(id: str, sev: Severity, title: str, seed: str, fix: str) -> Rule:
    return rule(id, sev, title, seed=seed, fix=fix, scope="plugins")


R_UNREADABLE = _plg(
    "PLG-UNREADABLE",
    Severity.ERROR,
    "A plugin-system file exists but cannot be read.",
    "FORMATS 3",
    "Check the file's permissions and that it is a regular file.",
)
R_REGISTRY_MISSING = _plg(
    "PLG-REGISTRY-MISSING",
    Severity.WARNING,
    "Plugins have .continue-here.md handoffs but PLUGINS.md is missing.",
    f"{_S} 1.2",
    "Restore PLUGINS.md (git) or recreate its registry table.",
)
R_TABLE_MISSING = _plg(
    "PLG-TABLE-MISSING",
    Severity.WARNING,
    "PLUGINS.md has no registry table (a `| Plugin Name | Status | ... |` header).",
    f"{_S} 1.2 Location 1",
    "Add the registry table: | Plugin Name | Status | Version | Last Updated |.",
)
R_TABLE_ROW = _plg(
    "PLG-TABLE-ROW",
    Severity.WARNING,
    "A registry table row is malformed (no plugin name, or cells missing).",
    f"{_S} 1.2 Location 1",
    "Give the row one cell per header column.",
)
R_DUPLICATE = _plg(
    "PLG-DUPLICATE",
    Severity.WARNING,
    "A plugin appears twice in the registry table or has two full entries.",
    f"{_S} 1.2",
    "Keep one row and one entry per plugin; merge the duplicates.",
)
R_ENTRY_MISSING = _plg(
    "PLG-ENTRY-MISSING",
    Severity.WARNING,
    "A registry table row has no full entry (### section or plugins/<Name>/NOTES.md).",
    f"{_S} 1.2 Location 2",
    "Add the plugin's full entry (update both locations together).",
)
R_UNREGISTERED = _plg(
    "PLG-UNREGISTERED",
    Severity.WARNING,
    "A plugin has a full entry, NOTES.md or handoff but no registry table row.",
    f"{_S} 1.2 Location 1",
    "Add the plugin's row to the PLUGINS.md table (update both locations together).",
)
R_STATUS_DRIFT = _plg(
    "PLG-STATUS-DRIFT",
    Severity.ERROR,
    "Registry table status differs from the full entry status (after normalisation).",
    f"{_S} 1.2 rule 1, 4.1 PLUGINS.md drift",
    "Update both locations together: set the table row to the full entry's status "
    "(the full entry is canonical).",
)
R_STATUS_UNKNOWN = _plg(
    "PLG-STATUS-UNKNOWN",
    Severity.WARNING,
    "A status is empty, not one of the valid values, or its emoji contradicts its words.",
    f"{_S} 1.2 Valid status emoji values",
    "Use 💡 Ideated, 💡 Ideated (Draft Params), 🚧 Stage N[.M], ✅ Working or 📦 Installed.",
)
R_VERSION_DRIFT = _plg(
    "PLG-VERSION-DRIFT",
    Severity.WARNING,
    "Registry table version differs from the full entry version.",
    f"{_S} 1.2 rule 2",
    "Update both locations together.",
)
R_DATE_DRIFT = _plg(
    "PLG-DATE-DRIFT",
    Severity.WARNING,
    "Last Updated differs between the registry table and the full entry.",
    f"{_S} 1.2 rule 3",
    "Update both locations together (same date in the table and the entry).",
)
R_DATE_FORMAT = _plg(
    "PLG-DATE-FORMAT",
    Severity.INFO,
    "A date is not written YYYY-MM-DD (it was understood anyway).",
    f"{_S} 1.2, FORMATS 3 (mixed date formats)",
    "Write dates as YYYY-MM-DD.",
)
R_DATE_INVALID = _plg(
    "PLG-DATE-INVALID",
    Severity.WARNING,
    "A date cannot be understood (unparseable, impossible or ambiguous day/month order).",
    f"{_S} 1.2, FORMATS 3 (mixed date formats)",
    "Write dates as YYYY-MM-DD.",
)
R_TIMELINE_ORDER = _plg(
    "PLG-TIMELINE-ORDER",
    Severity.WARNING,
    "A Lifecycle Timeline entry is dated before an earlier entry (not chronological).",
    f"{_S} 1.2 rule 4",
    "Keep the timeline in chronological order (append new entries at the end).",
)
R_TIMELINE_FORMAT = _plg(
    "PLG-TIMELINE-FORMAT",
    Severity.WARNING,
    "A Lifecycle Timeline entry does not use `- **YYYY-MM-DD (Stage N):** text`.",
    f"{_S} 1.2 rule 5",
    "Write timeline entries as `- **YYYY-MM-DD (Stage N):** description`.",
)
R_NOTES_BULLET = _plg(
    "PLG-NOTES-BULLET",
    Severity.INFO,
    "An entry writes `- **Status:**` as a bullet; the system's own drift check misses it.",
    "FORMATS 3 (NOTES.md bullet bug)",
    "Write `**Status:** ...` at the start of the line, without the `- ` bullet.",
)
R_CH_FRONTMATTER = _plg(
    "PLG-CH-FRONTMATTER",
    Severity.ERROR,
    ".continue-here.md has no YAML front matter (or it is never closed).",
    f"{_S} 1.1, FORMATS 3",
    "Start the file with a `---` line, the YAML fields, then a closing `---` line.",
)
R_CH_YAML = _plg(
    "PLG-CH-YAML",
    Severity.ERROR,
    ".continue-here.md front matter is not valid YAML, or not a mapping of fields.",
    f"{_S} 1.1 rule 1",
    "Fix the YAML syntax (or restore: git checkout HEAD~1 -- the file).",
)
R_CH_FIELD_MISSING = _plg(
    "PLG-CH-FIELD-MISSING",
    Severity.WARNING,
    "A required front-matter field (plugin, stage, status, last_updated) is missing.",
    f"{_S} 1.1 Required YAML fields, 7.1",
    "Add the field to the front matter.",
)
R_CH_PLUGIN = _plg(
    "PLG-CH-PLUGIN",
    Severity.ERROR,
    "The front matter's `plugin` does not match the plugin's directory name.",
    f"{_S} 1.1 rule 2",
    "Set `plugin:` to the directory name exactly.",
)
R_CH_STAGE = _plg(
    "PLG-CH-STAGE",
    Severity.ERROR,
    "`stage` is not an integer 0-6.",
    f"{_S} 1.1 rule 3",
    "Set `stage:` to the integer stage number (phases go in `phase:`).",
)
R_CH_PHASE = _plg(
    "PLG-CH-PHASE",
    Severity.WARNING,
    "`phase` is neither null nor `N.M`, or its N is not the current stage.",
    f"{_S} 1.1 rule 4",
    'Set `phase:` to null or "N.M" with N = stage (e.g. "3.2").',
)
R_CH_DATE = _plg(
    "PLG-CH-DATE",
    Severity.WARNING,
    "`last_updated` is not an ISO date YYYY-MM-DD (date only, no time).",
    f"{_S} 1.1 rule 5",
    "Write `last_updated: YYYY-MM-DD`.",
)
R_CH_COMPLEXITY = _plg(
    "PLG-CH-COMPLEXITY",
    Severity.WARNING,
    "`complexity_score` is not a number 1.0-5.0 (or null after Stage 0 completed).",
    f"{_S} 1.1 rule 6",
    "Copy the complexity score from plan.md (1.0-5.0).",
)
R_CH_PHASED = _plg(
    "PLG-CH-PHASED",
    Severity.WARNING,
    "`phased_implementation` is not a boolean (or null after Stage 0 completed).",
    f"{_S} 1.1 rule 7",
    "Set `phased_implementation:` to true or false (from plan.md).",
)
R_CH_CHECKSUM_FORMAT = _plg(
    "PLG-CH-CHECKSUM-FORMAT",
    Severity.WARNING,
    "A contract checksum is not `sha256:<64 hex digits>` or null.",
    f"{_S} 1.1 rule 8",
    "Recompute: shasum -a 256 plugins/<Name>/.ideas/<file>.md, written as sha256:<hex>.",
)
R_CH_SECTION = _plg(
    "PLG-CH-SECTION",
    Severity.WARNING,
    "A required Markdown section is missing from .continue-here.md.",
    f"{_S} 1.1 rule 9",
    "Add the section (## Current State, Completed So Far, Next Steps, Build Artifacts, "
    "Testing Checklist, Context to Preserve).",
)
R_CH_STATUS = _plg(
    "PLG-CH-STATUS",
    Severity.WARNING,
    "`status` is not in_progress, complete or workflow_complete.",
    f"{_S} 1.1 Valid status values",
    "Set `status:` to in_progress, complete or workflow_complete.",
)
R_STAGE_DRIFT = _plg(
    "PLG-STAGE-DRIFT",
    Severity.WARNING,
    ".continue-here.md stage/phase disagrees with the registry status.",
    f"{_S} 3.4, 5.1; FORMATS 3 (drift)",
    "Update .continue-here.md and PLUGINS.md together for the stage actually reached.",
)
R_CH_STALE = _plg(
    "PLG-CH-STALE",
    Severity.WARNING,
    "The registry says Working/Installed but a .continue-here.md handoff is still open.",
    f"{_S} 2.5 Note, FORMATS 3 (deleted at Working)",
    "Finish or close the workflow: delete the handoff, or set the registry back to its stage.",
)
R_CH_DATE_DRIFT = _plg(
    "PLG-CH-DATE-DRIFT",
    Severity.INFO,
    ".continue-here.md last_updated differs from the registry's Last Updated.",
    f"{_S} 3.3, 3.4",
    "Update the handoff and the registry together, with the same date.",
)
R_CH_ABSENT = _plg(
    "PLG-CH-ABSENT",
    Severity.INFO,
    "The registry says a stage is in progress but the plugin has no .continue-here.md.",
    f"{_S} 2.1, FORMATS 3",
    "Regenerate the handoff so the workflow can be resumed.",
)
R_CONTRACT_TAMPERED = _plg(
    "PLG-CONTRACT-TAMPERED",
    Severity.ERROR,
    "A contract file changed after its checksum was recorded (tampering).",
    f"{_S} 3.2, 4.1 Contract checksums changed, 4.4",
    "git checkout HEAD -- plugins/<Name>/.ideas/  (or, if the change was intended, "
    "recompute the checksums)",
)
R_CONTRACT_MISSING = _plg(
    "PLG-CONTRACT-MISSING",
    Severity.WARNING,
    "A checksum is recorded for a contract file that no longer exists.",
    f"{_S} 3.2, 4.4",
    "git checkout HEAD -- plugins/<Name>/.ideas/",
)
R_CONTRACT_UNSEALED = _plg(
    "PLG-CONTRACT-UNSEALED",
    Severity.INFO,
    "A contract file exists but no checksum is recorded for it (tampering goes unnoticed).",
    f"{_S} 3.2, 6.1 Migration",
    "Record its checksum in contract_checksums (seed 6.2 migration).",
)
R_NUMBERING_MIXED = _plg(
    "PLG-NUMBERING-MIXED",
    Severity.INFO,
    "A plugin's files mix the contract's stage numbering (0,2-6) and the current one (0-3).",
    "FORMATS 3 (stage numbering)",
    "Migrate the plugin's state to one numbering; stage labels may be misread meanwhile.",
)

# ---------------------------------------------------------------------------- text helpers

# Mojibake: UTF-8 bytes read as cp1252 (latin-1 where cp1252 has no character).
_CP1252 = {}
for _b in range(0x80, 0x100):
    try:
        _CP1252[bytes([_b]).decode("cp1252")] = _b
    except UnicodeDecodeError:
        _CP1252[chr(_b)] = _b


def _cls(lo: int, hi: int) -> str:
    return "".join(re.escape(ch) for ch, b in _CP1252.items() if lo <= b <= hi)


_CONT = f"[{_cls(0x80, 0xBF)}]"
_MOJIBAKE = re.compile(
    f"[{_cls(0xC2, 0xDF)}]{_CONT}|[{_cls(0xE0, 0xEF)}]{_CONT}{{2}}|[{_cls(0xF0, 0xF4)}]{_CONT}{{3}}"
)


def fix_mojibake(text: str) -> str:
    """Repair UTF-8 text that was decoded as cp1252 ('ðŸš§' -> '🚧'); other text unchanged."""

    def repl(m: re.Match[str]) -> str:
        try:
            return bytes(_CP1252[c] for c in m.group()).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return m.group()

    return _MOJIBAKE.sub(repl, text)


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def _strip_md(text: str) -> str:
    """Drop links' targets, bold/italic/code markers and surrounding space."""
    text = _LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return " ".join(text.split())


def _name(text: str) -> str:
    """A plugin name from a cell or heading: markup and leading/trailing symbols removed."""
    text = _strip_md(fix_mojibake(text))
    return re.sub(r"^[^\w(+.-]+|[^\w)+.-]+$", "", text)


def _ascii_words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9.() ]+", " ", text.lower()).split())


# ---------------------------------------------------------------------------- status


StatusKind = Literal["ideated", "stage", "working", "installed", "unknown", "empty"]
_EMOJI = {"💡": "ideated", "🚧": "stage", "✅": "working", "📦": "installed"}
_KIND_EMOJI = {v: k for k, v in _EMOJI.items()}


@dataclass(frozen=True, slots=True)
class Status:
    """A registry status, normalised: emoji (also as mojibake), bold, bullets, case removed."""

    raw: str
    kind: StatusKind
    stage: int | None = None
    phase: str | None = None  # "3.2" for "🚧 Stage 3.2"
    draft: bool = False  # "💡 Ideated (Draft Params)"
    emoji: str | None = None  # the status emoji found, repaired
    text: str = ""  # canonical words, e.g. "Stage 3.2", "Ideated (Draft Params)"

    @property
    def key(self) -> tuple[Any, ...]:
        """What must be equal for two locations to agree (seed 1.2 rule 1)."""
        if self.kind in ("unknown", "empty"):
            return (self.kind, self.text.casefold())
        return (self.kind, self.stage, self.phase, self.draft)

    @property
    def display(self) -> str:
        emoji = _KIND_EMOJI.get(self.kind)
        return f"{emoji} {self.text}" if emoji else self.text

    @property
    def emoji_conflict(self) -> bool:
        return bool(self.emoji and self.kind in _KIND_EMOJI and _EMOJI.get(self.emoji) != self.kind)


_STAGE_RE = re.compile(r"\bstage\s*(\d{1,3})(?:\.(\d{1,3}))?(?:\s*(?:phase|p)\s*(\d{1,3}))?")


def normalise_status(raw: str | None) -> Status:
    """``"**🚧 Stage 3.2**"`` -> Status(kind="stage", stage=3, phase="3.2"); never raises."""
    raw = raw or ""
    fixed = fix_mojibake(raw)
    emoji = next((ch for ch in fixed if ch in _EMOJI), None)
    plain = re.sub(r"^\s*(?:[-*+]\s+)+", "", fixed)
    plain = plain.replace("**", "").replace("__", "").replace("`", "")
    words = _ascii_words(plain)
    readable = " ".join(re.sub(r"[^\w.()/:,' -]+", " ", plain).split())
    if not words:
        return Status(raw, "empty", emoji=emoji, text=readable)
    m = _STAGE_RE.search(words)
    if m:
        stage = int(m.group(1))
        phase = f"{stage}.{int(m.group(2))}" if m.group(2) else None
        if m.group(3) and not phase:
            phase = f"{stage}.{int(m.group(3))}"
        return Status(raw, "stage", stage, phase, emoji=emoji, text=f"Stage {phase or stage}")
    if "ideat" in words:
        draft = "draft" in words
        text = "Ideated (Draft Params)" if draft else "Ideated"
        return Status(raw, "ideated", draft=draft, emoji=emoji, text=text)
    if re.search(r"\bworking\b", words):
        return Status(raw, "working", emoji=emoji, text="Working")
    if re.search(r"\binstalled\b", words):
        return Status(raw, "installed", emoji=emoji, text="Installed")
    return Status(raw, "unknown", emoji=emoji, text=readable)


# ---------------------------------------------------------------------------- dates

DateForm = Literal["iso", "datetime", "other", "ambiguous", "invalid", "empty"]

_MONTHS: dict[str, int] = {}
for _i in range(1, 13):
    _MONTHS[calendar.month_name[_i].lower()] = _i
    _MONTHS[calendar.month_abbr[_i].lower()] = _i
_MONTHS["sept"] = 9
_MON = "|".join(sorted(_MONTHS, key=len, reverse=True))


@dataclass(frozen=True, slots=True)
class ParsedDate:
    raw: str
    value: date | None
    form: DateForm
    note: str = ""

    @property
    def exact(self) -> bool:
        return self.form == "iso"

    def __str__(self) -> str:
        return self.value.isoformat() if self.value else self.raw


def _mk(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except (ValueError, OverflowError):
        return None


_ISO_EXACT = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_ISO_DT = re.compile(r"(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}:\d{2}\S*)")
_YMD = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_XYY = re.compile(r"(?<!\d)(\d{1,2})[-/.](\d{1,2})[-/.](\d{4})(?!\d)")
_MDY = re.compile(rf"\b({_MON})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MON})\.?,?\s+(\d{{4}})\b", re.I)


def parse_date(raw: str | None) -> ParsedDate:
    """Understand the date formats agents write; say when one is not YYYY-MM-DD or is unclear.

    ``2025-11-13`` is exact; ``2025/11/13``, ``13-11-2025``, ``Nov 13, 2025``, ``13 November
    2025`` and ISO datetimes are understood (form "other"/"datetime"); ``03/04/2025`` is
    ambiguous (no value). Never raises.
    """
    raw = raw or ""
    text = _strip_md(raw)
    if not text:
        return ParsedDate(raw, None, "empty")
    m = _ISO_EXACT.fullmatch(text)
    if m:
        value = _mk(int(m[1]), int(m[2]), int(m[3]))
        if value is None:
            return ParsedDate(raw, None, "invalid", f"{text} is not a real date")
        return ParsedDate(raw, value, "iso")
    m = _ISO_DT.match(text)
    if m and (value := _mk(int(m[1]), int(m[2]), int(m[3]))):
        return ParsedDate(raw, value, "datetime", "a datetime where a date is expected")
    m = _YMD.search(text)
    if m:
        value = _mk(int(m[1]), int(m[2]), int(m[3]))
        if value and _ISO_EXACT.fullmatch(m.group()):
            return ParsedDate(raw, value, "other", f"extra text around the date {m.group()}")
        if value:
            return ParsedDate(raw, value, "other", "year-month-day, not written YYYY-MM-DD")
        return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    m = _XYY.search(text)
    if m:
        a, b, y = int(m[1]), int(m[2]), int(m[3])
        dmy, mdy = _mk(y, b, a), _mk(y, a, b)
        if dmy and mdy and dmy != mdy:
            return ParsedDate(
                raw,
                None,
                "ambiguous",
                f"{m.group()} could be {dmy.isoformat()} (day first) or {mdy.isoformat()}",
            )
        value = dmy or mdy
        if value:
            order = "day-month-year" if value == dmy else "month-day-year"
            return ParsedDate(raw, value, "other", f"{order}, not written YYYY-MM-DD")
        return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    m = _MDY.search(text)
    if m:
        value = _mk(int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        if value:
            return ParsedDate(raw, value, "other", "month name, not written YYYY-MM-DD")
        return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    m = _DMY.search(text)
    if m:
        value = _mk(int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        if value:
            return ParsedDate(raw, value, "other", "month name, not written YYYY-MM-DD")
        return ParsedDate(raw, None, "invalid", f"{m.group()} is not a real date")
    return ParsedDate(raw, None, "invalid", "not a date")


# ---------------------------------------------------------------------------- PLUGINS.md model


@dataclass(slots=True)
class TableRow:
    name: str
    line: int
    status: Status
    version: str | None = None
    last_updated: ParsedDate | None = None
    cells: dict[str, str] = field(default_factory=dict)  # every column, by header text


@dataclass(slots=True)
class TimelineEntry:
    index: int
    line: int
    raw: str
    date: ParsedDate | None
    stage: str | None  # "3" / "3.2" from "(Stage 3.2)"
    text: str
    problem: str | None = None  # why it is not `- **YYYY-MM-DD (Stage N):** text`


@dataclass(slots=True)
class Entry:
    """A plugin's full entry: a ``### Name`` section of PLUGINS.md or ``plugins/Name/NOTES.md``."""

    name: str
    source: str
    line: int
    fields: dict[str, str] = field(default_factory=dict)  # lower-cased key -> raw value
    field_lines: dict[str, int] = field(default_factory=dict)
    bulleted: list[str] = field(default_factory=list)  # fields written as `- **Key:**`
    timeline: list[TimelineEntry] = field(default_factory=list)

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


@dataclass(slots=True)
class PluginsMd:
    rows: list[TableRow] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    tables: int = 0
    findings: list[Finding] = field(default_factory=list)


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_ALIGN = re.compile(r"^\s*:?-+:?\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_FIELD_BOLD = re.compile(r"^\*\*\s*([^*]+?)\s*(?::\s*\*\*|\*\*\s*:)\s*(.*)$")
_FIELD_PLAIN = re.compile(
    r"^(status|version|last updated|created|type|lifecycle timeline|timeline)\s*:\s*(.*)$", re.I
)
_KNOWN_FIELDS = {"status", "version", "last updated", "created", "type", "description"}
_TIMELINE_KEYS = {"lifecycle timeline", "timeline"}


def _cells(line: str) -> list[str]:
    text = line.strip().replace("\\|", "\x00")
    if text.startswith("|"):
        text = text[1:]
    if text.endswith("|"):
        text = text[:-1]
    return [c.replace("\x00", "|").strip() for c in text.split("|")]


def _column(header: str) -> str | None:
    words = _ascii_words(_strip_md(header)).replace("(", "").replace(")", "").strip()
    if words in ("plugin name", "plugin", "name", "plugins", "plugin name (dir)"):
        return "name"
    if words.startswith("status") or words == "state":
        return "status"
    if words.startswith("version") or words == "ver":
        return "version"
    if "updated" in words or words in ("last update", "date", "modified", "last modified"):
        return "last_updated"
    return None


def _field(line: str) -> tuple[str, str, bool] | None:
    """``**Key:** value`` / ``- **Key:** value`` / ``Key: value`` -> (key, value, bulleted)."""
    bulleted = False
    body = line.strip()
    m = _BULLET.match(body)
    if m:
        bulleted, body = True, m.group(1).strip()
    fm = _FIELD_BOLD.match(body)
    if fm:
        return " ".join(fm.group(1).lower().split()), fm.group(2).strip(), bulleted
    fm = _FIELD_PLAIN.match(body)
    if fm:
        return " ".join(fm.group(1).lower().split()), fm.group(2).strip(), bulleted
    return None


_TL_STRICT = re.compile(r"^\*\*(\d{4}-\d{2}-\d{2})(?: \(Stage (\d+(?:\.\d+)?)\))?:\*\* \S")
_TL_BOLD = re.compile(r"^\*\*\s*(.+?)\s*\*\*\s*:?\s*(.*)$")
_TL_PLAIN = re.compile(r"^([^:]{4,40}?)\s*:\s*(.*)$")
_TL_STAGE = re.compile(r"\(\s*([^)]*)\)\s*:?\s*$")


def _timeline_entry(index: int, line_no: int, body: str) -> TimelineEntry:
    raw = body
    strict = _TL_STRICT.match(body)
    m = _TL_BOLD.match(body) or _TL_PLAIN.match(body)
    if not m:
        return TimelineEntry(index, line_no, raw, None, None, body, "no `**date:**` head")
    head, text = m.group(1), m.group(2).strip()
    stage = None
    sm = _TL_STAGE.search(head)
    stage_words = ""
    if sm:
        stage_words = sm.group(1)
        head = head[: sm.start()]
        st = _STAGE_RE.search(_ascii_words(stage_words))
        stage = (st.group(1) + (f".{st.group(2)}" if st.group(2) else "")) if st else None
    head = head.rstrip(" :")
    parsed = parse_date(head)
    problem = None
    if parsed.value is None:
        problem = f"date {head!r}: {parsed.note or parsed.form}"
    elif not parsed.exact:
        problem = f"date {head!r} is not YYYY-MM-DD ({parsed.note})"
    elif sm and stage is None:
        problem = f"({stage_words}) is not `(Stage N)`"
    elif not strict:
        problem = "not written `- **YYYY-MM-DD (Stage N):** text`"
    return TimelineEntry(index, line_no, raw, parsed, stage, text, problem)


class _EntryReader:
    """Feeds lines of one entry; knows when it is inside the Lifecycle Timeline list."""

    def __init__(self, entry: Entry) -> None:
        self.entry = entry
        self.in_timeline = False

    def feed(self, line_no: int, line: str) -> None:
        entry = self.entry
        stripped = line.strip()
        if not stripped:
            return
        heading = _HEADING.match(stripped)
        if heading:
            self.in_timeline = "timeline" in heading.group(2).lower()
            return
        parsed = _field(stripped)
        bullet = _BULLET.match(stripped)
        if self.in_timeline and bullet:
            if parsed and parsed[0] in _KNOWN_FIELDS:
                self.in_timeline = False
            else:
                idx = len(entry.timeline)
                entry.timeline.append(_timeline_entry(idx, line_no, bullet.group(1).strip()))
                return
        elif self.in_timeline and not bullet:
            self.in_timeline = False
        if parsed is None:
            return
        key, value, bulleted = parsed
        if key in _TIMELINE_KEYS:
            self.in_timeline = True
            return
        if key in entry.fields:
            return  # first one wins (the seed's grep reads the first)
        entry.fields[key] = value
        entry.field_lines[key] = line_no
        if bulleted and key in _KNOWN_FIELDS:
            entry.bulleted.append(key)


def _lines(text: str) -> Iterable[tuple[int, str, bool]]:
    """(line number, line, inside a fenced code block)."""
    fenced = False
    for no, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            yield no, line, True
            continue
        yield no, line, fenced


def parse_plugins_md(text: str, source: str = "PLUGINS.md") -> PluginsMd:
    """Parse the registry table(s) and the ``### Name`` full entries. Never raises."""
    out = PluginsMd()
    lines = list(_lines(text or ""))
    # --- tables: a header row with a name and a status column, then rows until a non-row line
    columns: list[str | None] | None = None
    headers: list[str] = []
    for no, line, fenced in lines:
        is_row = not fenced and "|" in line and line.strip() != ""
        if not is_row:
            columns = None
            continue
        cells = _cells(line)
        if columns is None:
            cols = [_column(c) for c in cells]
            if "name" in cols and "status" in cols:
                columns, headers = cols, cells
                out.tables += 1
            continue
        if all(_ALIGN.match(c) or not c for c in cells):
            continue
        values: dict[str, str] = {}
        for col, value in zip(columns, cells, strict=False):
            if col and col not in values:
                values[col] = value
        name = _name(values.get("name", ""))
        if not name:
            out.findings.append(
                make(
                    R_TABLE_ROW,
                    source=source,
                    path=f"table.line{no}",
                    expected="a plugin name",
                    actual=shorten(line),
                    message=f"{source} line {no}: registry row without a plugin name.",
                )
            )
            continue
        if len(cells) < len(columns):
            out.findings.append(
                make(
                    R_TABLE_ROW,
                    source=source,
                    path=f"table[{name}]",
                    expected=f"{len(columns)} cells",
                    actual=f"{len(cells)} cells",
                    message=f"{source} line {no}: row for {name} has fewer cells than the header.",
                )
            )
        lu = values.get("last_updated")
        out.rows.append(
            TableRow(
                name=name,
                line=no,
                status=normalise_status(values.get("status")),
                version=_strip_md(values["version"]) if "version" in values else None,
                last_updated=parse_date(lu) if lu is not None else None,
                cells={h: c for h, c in zip(headers, cells, strict=False)},
            )
        )
    # --- full entries: ### sections (## too, when they carry a **Status:** field)
    current: _EntryReader | None = None
    level = 0
    candidates: list[tuple[int, _EntryReader]] = []
    for no, line, fenced in lines:
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading and len(heading.group(1)) <= 3:
            current = None
            lvl = len(heading.group(1))
            name = _name(heading.group(2))
            if lvl >= 2 and name:
                current = _EntryReader(Entry(name=name, source=source, line=no))
                level = lvl
                candidates.append((level, current))
            continue
        if current is not None:
            current.feed(no, line)
    table_names = {r.name.casefold() for r in out.rows}
    for lvl, reader in candidates:
        entry = reader.entry
        has_status = "status" in entry.fields
        if has_status or (lvl == 3 and entry.name.casefold() in table_names):
            out.entries.append(entry)
    return out


def parse_notes_md(text: str, name: str, source: str) -> Entry:
    """A newer-layout entry: the whole NOTES.md, fields possibly written as ``- `` bullets."""
    entry = Entry(name=name, source=source, line=1)
    reader = _EntryReader(entry)
    for no, line, fenced in _lines(text or ""):
        if not fenced:
            reader.feed(no, line)
    return entry


# ---------------------------------------------------------------------------- .continue-here.md

REQUIRED_SECTIONS = (
    "Current State",
    "Completed So Far",
    "Next Steps",
    "Build Artifacts",
    "Testing Checklist",
    "Context to Preserve",
)
# A resuming agent cannot work without these; the others are legitimately empty early on
# (the seed's own Stage 0 example has no Build Artifacts or Testing Checklist).
_ESSENTIAL_SECTIONS = {"Current State", "Completed So Far", "Next Steps"}
CONTRACT_FILES = {
    "creative_brief": "creative-brief.md",
    "parameter_spec": "parameter-spec.md",
    "architecture": "architecture.md",
    "plan": "plan.md",
}
VALID_CH_STATUS = ("in_progress", "complete", "workflow_complete")
_NULLS = {"null", "Null", "NULL", "~", ""}
_SHA = re.compile(r"sha256:([0-9a-fA-F]{64})")
_PHASE = re.compile(r"(\d+)\.(\d+)")
Numbering = Literal["contract-0-6", "current-0-3", "unknown"]


class _TooBig(Exception):
    pass


def _node_value(node: yaml.Node, budget: list[int], depth: int, dups: list[str]) -> Any:
    """Node -> Python with every scalar kept as its literal text; plain null/~/empty -> None."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 40:
        raise _TooBig
    if isinstance(node, yaml.ScalarNode):
        if node.style is None and node.value in _NULLS:
            return None
        return str(node.value)
    if isinstance(node, yaml.SequenceNode):
        return [_node_value(n, budget, depth + 1, dups) for n in node.value]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else f"<{k.id} key>"
            key = str(key)
            if key in out and depth == 0:
                dups.append(key)
            out[key] = _node_value(v, budget, depth + 1, dups)
        return out
    return None


def load_yaml_literal(text: str) -> tuple[Any, str | None, list[str]]:
    """Compose YAML without resolving types: (value, error, duplicate top-level keys)."""
    dups: list[str] = []
    try:
        node = yaml.compose(text, Loader=yaml.BaseLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        return None, f"{exc.problem or exc.context or 'invalid YAML'}{where}", dups
    except Exception as exc:  # a third-party parser on untrusted text: report, never raise
        return None, f"{type(exc).__name__}: {shorten(str(exc), 120)}", dups
    if node is None:
        return None, None, dups
    try:
        return _node_value(node, [20000], 0, dups), None, dups
    except (_TooBig, RecursionError):
        return None, "front matter too large or too deeply nested", dups


@dataclass(slots=True)
class ContinueHere:
    """``plugins/<Name>/.continue-here.md``: raw fields plus typed ones (None when invalid)."""

    source: str
    directory: str
    front_matter: dict[str, Any] | None = None  # literal text values
    front_matter_line_end: int = 0
    error: str | None = None
    plugin: str | None = None
    stage: int | None = None
    phase: str | None = None
    status: str | None = None
    last_updated: ParsedDate | None = None
    complexity_score: float | None = None
    phased_implementation: bool | None = None
    orchestration_mode: bool | None = None
    next_action: str | None = None
    next_phase: str | None = None
    contract_checksums: dict[str, Any] | None = None
    sections: list[str] = field(default_factory=list)  # heading texts, in order
    missing_sections: list[str] = field(default_factory=list)

    def raw(self, key: str) -> Any:
        return (self.front_matter or {}).get(key)

    def has(self, key: str) -> bool:
        return self.front_matter is not None and key in self.front_matter

    @property
    def stage0_done(self) -> bool:
        """Past Stage 0 (null complexity/phased are then no longer allowed)."""
        if self.stage is None:
            return False
        return self.stage > 0 or self.status in ("complete", "workflow_complete")


def _bool(value: Any) -> bool | str | None:
    if value is None:
        return None
    low = str(value).strip().lower()
    if low == "true":
        return True
    if low == "false":
        return False
    return "invalid"


def _float(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def _section_title(heading: str) -> str:
    return _ascii_words(_strip_md(fix_mojibake(heading)))


def parse_continue_here(
    text: str, directory: str, source: str | None = None
) -> tuple[ContinueHere, list[Finding]]:
    """Parse and validate (seed 1.1 rules 1-9) one handoff file. Never raises."""
    source = source or f"plugins/{directory}/.continue-here.md"
    ch = ContinueHere(source=source, directory=directory)
    findings: list[Finding] = []

    def add(
        r: Rule,
        path: str,
        message: str,
        expected: Any = None,
        actual: Any = None,
        severity: Severity | None = None,
        hint: str | None = None,
    ) -> None:
        findings.append(
            make(
                r,
                source=source,
                path=path,
                message=message,
                expected=expected,
                actual=actual,
                severity=severity,
                hint=hint,
            )
        )

    lines = (text or "").splitlines()
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    body_from = 0
    if start < len(lines) and lines[start].rstrip() == "---":
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].rstrip() in ("---", "...")),
            None,
        )
        if end is None:
            add(
                R_CH_FRONTMATTER,
                "front_matter",
                f"{source}: front matter is never closed (no second `---` line).",
                "--- ... ---",
                "unclosed",
            )
            ch.error = "unclosed front matter"
        else:
            body_from = end + 1
            ch.front_matter_line_end = end + 1
            value, error, dups = load_yaml_literal("\n".join(lines[start + 1 : end]))
            if error:
                ch.error = error
                add(
                    R_CH_YAML,
                    "front_matter",
                    f"{source}: invalid YAML: {error}.",
                    "valid YAML",
                    error,
                )
            elif not isinstance(value, dict):
                ch.error = "not a mapping"
                add(
                    R_CH_YAML,
                    "front_matter",
                    f"{source}: front matter is not a mapping of fields.",
                    "mapping",
                    type(value).__name__ if value is not None else "empty",
                )
            else:
                ch.front_matter = value
                for key in dict.fromkeys(dups):
                    add(
                        R_CH_YAML,
                        f"front_matter.{key}",
                        f"{source}: `{key}` is given twice; readers disagree on which one counts.",
                        "one value",
                        "duplicate key",
                        severity=Severity.WARNING,
                    )
    else:
        ch.error = "no front matter"
        add(
            R_CH_FRONTMATTER,
            "front_matter",
            f"{source}: no YAML front matter; the workflow cannot be resumed from it.",
            "--- YAML ---",
            shorten(lines[start]) if start < len(lines) else "empty file",
        )

    # --- Markdown sections (rule 9); checked whenever there is a body to check
    fenced = False
    for line in lines[body_from:]:
        if _FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else _HEADING.match(line)
        if m:
            ch.sections.append(_strip_md(m.group(2)))
    titles = [_section_title(s) for s in ch.sections]
    for required in REQUIRED_SECTIONS:
        want = required.lower()
        if not any(t == want or t.startswith((want + " ", want + ":")) for t in titles):
            ch.missing_sections.append(required)
    if ch.front_matter is not None or ch.sections:
        for missing in ch.missing_sections:
            essential = missing in _ESSENTIAL_SECTIONS
            add(
                R_CH_SECTION,
                f'sections["{missing}"]',
                f"{source}: no `## {missing}` section.",
                missing,
                None,
                severity=None if essential else Severity.INFO,
            )

    fm = ch.front_matter
    if fm is None:
        return ch, findings
    _type_fields(ch, add)
    return ch, findings


def _scalar(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, (dict, list)):
        return None
    return str(value)


def _type_fields(ch: ContinueHere, add: Any) -> None:
    source = ch.source
    for key in ("plugin", "stage", "status", "last_updated"):
        if not ch.has(key):
            add(
                R_CH_FIELD_MISSING,
                f"front_matter.{key}",
                f"{source}: required field `{key}` is missing.",
                key,
                None,
            )

    # rule 2: plugin == directory name
    if ch.has("plugin"):
        plugin = _scalar(ch.raw("plugin"))
        ch.plugin = plugin
        if plugin != ch.directory:
            near = plugin is not None and plugin.strip().casefold() == ch.directory.casefold()
            add(
                R_CH_PLUGIN,
                "front_matter.plugin",
                f"{source}: plugin is {plugin!r} but the directory is {ch.directory!r}.",
                ch.directory,
                plugin,
                severity=Severity.WARNING if near else None,
            )

    # rule 3: stage integer 0-6
    if ch.has("stage"):
        raw = ch.raw("stage")
        text = _scalar(raw)
        if text is not None and re.fullmatch(r"\d{1,3}", text.strip()):
            ch.stage = int(text.strip())
            if ch.stage > 6:
                add(
                    R_CH_STAGE,
                    "front_matter.stage",
                    f"{source}: stage {ch.stage} is out of range 0-6.",
                    "integer 0-6",
                    text,
                )
                ch.stage = None
        else:
            hint = None
            if text and _PHASE.fullmatch(text.strip()):
                hint = f'stage is the integer part: stage: {text.split(".")[0]}, phase: "{text}"'
            add(
                R_CH_STAGE,
                "front_matter.stage",
                f"{source}: stage {raw!r} is not an integer 0-6.",
                "integer 0-6",
                raw,
                hint=hint,
            )

    # rule 4: phase null or N.M (and N = stage)
    if ch.has("phase"):
        raw = ch.raw("phase")
        text = _scalar(raw)
        if raw is None or text == "null":
            ch.phase = None
        elif text is not None and _PHASE.fullmatch(text.strip()):
            ch.phase = text.strip()
            major = int(ch.phase.split(".")[0])
            if ch.stage is not None and major != ch.stage:
                add(
                    R_CH_PHASE,
                    "front_matter.phase",
                    f"{source}: phase {ch.phase} does not belong to stage {ch.stage}.",
                    f"{ch.stage}.M",
                    ch.phase,
                )
        else:
            add(
                R_CH_PHASE,
                "front_matter.phase",
                f"{source}: phase {raw!r} is neither null nor N.M.",
                'null or "N.M"',
                raw,
            )

    # status value
    if ch.has("status"):
        raw = ch.raw("status")
        text = _scalar(raw)
        ch.status = text
        if text not in VALID_CH_STATUS:
            guess = re.sub(r"[\s-]+", "_", (text or "").strip().lower())
            sev = Severity.INFO if guess in VALID_CH_STATUS else None
            add(
                R_CH_STATUS,
                "front_matter.status",
                f"{source}: status {raw!r} is not one of {', '.join(VALID_CH_STATUS)}.",
                "|".join(VALID_CH_STATUS),
                raw,
                severity=sev,
            )
            if sev is not None:
                ch.status = guess

    # rule 5: last_updated YYYY-MM-DD
    if ch.has("last_updated"):
        raw = ch.raw("last_updated")
        parsed = parse_date(_scalar(raw))
        ch.last_updated = parsed
        if not parsed.exact:
            why = parsed.note or parsed.form
            add(
                R_CH_DATE,
                "front_matter.last_updated",
                f"{source}: last_updated {raw!r} is not YYYY-MM-DD ({why}).",
                "YYYY-MM-DD",
                raw,
            )

    # rule 6: complexity_score
    raw = ch.raw("complexity_score")
    if raw is not None:
        number = _float(_scalar(raw))
        if number is None or not 1.0 <= number <= 5.0:
            add(
                R_CH_COMPLEXITY,
                "front_matter.complexity_score",
                f"{source}: complexity_score {raw!r} is not a number 1.0-5.0.",
                "1.0-5.0",
                raw,
                severity=Severity.ERROR,
            )
        else:
            ch.complexity_score = number
    elif ch.stage0_done:
        absent = not ch.has("complexity_score")
        add(
            R_CH_COMPLEXITY,
            "front_matter.complexity_score",
            f"{source}: complexity_score is "
            f"{'missing' if absent else 'null'} after Stage 0 completed.",
            "1.0-5.0",
            None,
            severity=Severity.INFO if absent else None,
        )

    # rule 7: phased_implementation
    raw = ch.raw("phased_implementation")
    typed = _bool(raw)
    if typed == "invalid":
        word = str(raw).strip().lower()
        yaml11 = word in ("yes", "no", "on", "off", "y", "n")
        add(
            R_CH_PHASED,
            "front_matter.phased_implementation",
            f"{source}: "
            f"phased_implementation {raw!r} is not true/false"
            + (" (a YAML 1.1 boolean some readers take as a string)" if yaml11 else "")
            + ".",
            "true|false|null",
            raw,
            severity=None if yaml11 else Severity.ERROR,
        )
        if yaml11:
            ch.phased_implementation = word in ("yes", "on", "y")
    elif typed is None:
        if ch.stage0_done:
            absent = not ch.has("phased_implementation")
            add(
                R_CH_PHASED,
                "front_matter.phased_implementation",
                f"{source}: "
                f"phased_implementation is {'missing' if absent else 'null'} after Stage 0 "
                "completed.",
                "true|false",
                None,
                severity=Severity.INFO if absent else None,
            )
    else:
        ch.phased_implementation = typed  # type: ignore[assignment]

    mode = _bool(ch.raw("orchestration_mode"))
    ch.orchestration_mode = mode if isinstance(mode, bool) else None
    ch.next_action = _scalar(ch.raw("next_action"))
    ch.next_phase = _scalar(ch.raw("next_phase"))

    # rule 8: checksum form
    sums = ch.raw("contract_checksums")
    if ch.has("contract_checksums") and not isinstance(sums, dict):
        if sums is not None:
            add(
                R_CH_CHECKSUM_FORMAT,
                "front_matter.contract_checksums",
                f"{source}: contract_checksums is not a mapping of file -> checksum.",
                "mapping",
                _scalar(sums) or type(sums).__name__,
            )
    elif isinstance(sums, dict):
        ch.contract_checksums = sums
        for key in CONTRACT_FILES:
            if key not in sums:
                continue
            value = sums[key]
            text = _scalar(value)
            if value is None or text == "null":
                continue
            if text is None or not _SHA.fullmatch(text.strip()):
                add(
                    R_CH_CHECKSUM_FORMAT,
                    f"contract_checksums.{key}",
                    f"{source}: checksum "
                    f"for {CONTRACT_FILES[key]} is {shorten(str(value), 60)!r}, not "
                    "sha256:<64 hex>.",
                    "sha256:<64 hex>",
                    shorten(str(value), 80),
                )


# ---------------------------------------------------------------------------- the merged record


@dataclass(slots=True)
class ChecksumState:
    key: str  # creative_brief | parameter_spec | architecture | plan
    file: str  # relative path of the contract file
    state: Literal[
        "ok", "mismatch", "missing-file", "missing-checksum", "malformed", "null", "unreadable"
    ]
    recorded: str | None = None
    actual: str | None = None  # "sha256:<hex>" of the file on disk


@dataclass(slots=True)
class DriftCell:
    """One disagreement between two places that should say the same thing."""

    column: str  # status | version | last_updated | stage | handoff
    left: str | None  # the registry table (or registry, for handoff comparisons)
    right: str | None  # the full entry (or the handoff)
    left_source: str
    right_source: str
    reason: str


STAGE_NAMES: dict[str, dict[int, str]] = {
    "contract-0-6": {
        0: "Research & Planning",
        2: "Foundation",
        3: "Audio engine (DSP)",
        4: "UI",
        5: "Validation",
        6: "Complete",
    },
    "current-0-3": {0: "Research", 1: "Foundation", 2: "DSP", 3: "GUI"},
}


@dataclass(slots=True)
class PluginRecord:
    name: str
    directory: str | None = None  # plugins/<dir> when it exists
    table: TableRow | None = None
    entry: Entry | None = None
    handoff: ContinueHere | None = None
    checksums: list[ChecksumState] = field(default_factory=list)
    drift: list[DriftCell] = field(default_factory=list)
    numbering: Numbering = "unknown"
    numbering_evidence: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def status(self) -> Status | None:
        """The registry status: the full entry's (canonical, seed 4.4), else the table's."""
        if self.entry is not None and self.entry.status is not None:
            return self.entry.status
        return self.table.status if self.table is not None else None

    @property
    def stage(self) -> int | None:
        s = self.status
        if s is not None and s.kind == "stage":
            return s.stage
        return self.handoff.stage if self.handoff else None

    @property
    def phase(self) -> str | None:
        s = self.status
        if s is not None and s.phase:
            return s.phase
        return self.handoff.phase if self.handoff else None

    @property
    def stage_name(self) -> str | None:
        stage = self.stage
        if stage is None or self.status is None or self.status.kind != "stage":
            return None
        names = STAGE_NAMES.get(self.numbering)
        if names is not None:
            return names.get(stage)
        both = {STAGE_NAMES[n].get(stage) for n in STAGE_NAMES} - {None}
        return both.pop() if len(both) == 1 else None

    @property
    def version(self) -> str | None:
        if self.entry is not None and self.entry.version:
            return _strip_md(self.entry.version)
        return self.table.version if self.table else None

    @property
    def last_updated(self) -> date | None:
        dates = [
            d.value
            for d in (
                self.entry.last_updated if self.entry else None,
                self.table.last_updated if self.table else None,
                self.handoff.last_updated if self.handoff else None,
            )
            if d is not None and d.value is not None
        ]
        return max(dates) if dates else None

    @property
    def tampered(self) -> bool:
        return any(c.state == "mismatch" for c in self.checksums)

    @property
    def worst(self) -> Severity | None:
        return min((f.severity for f in self.findings), key=lambda s: s.rank, default=None)


@dataclass(slots=True)
class Registry:
    layout: Literal["full-entries", "table-only", "none"]
    plugins: list[PluginRecord] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    numbering: Numbering = "unknown"

    def get(self, name: str) -> PluginRecord | None:
        return next((p for p in self.plugins if p.name == name), None)


# ---------------------------------------------------------------------------- loading + audit


def _children(directory: Path) -> dict[str, Path]:
    try:
        return {clean(p.name): p for p in sorted(directory.iterdir()) if p.is_dir()}
    except OSError:
        return {}


def _find_dir(name: str, dirs: dict[str, Path]) -> str | None:
    if name in dirs:
        return name
    folded = [d for d in dirs if d.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None


def _sha256(path: Path) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None
    return "sha256:" + digest.hexdigest()


def _read(path: Path, rel: str, findings: list[Finding]) -> str | None:
    text, error = read_text(path)
    if text is None and error != "file not found":
        findings.append(
            make(
                R_UNREADABLE,
                source=rel,
                path="$",
                expected="a readable text file",
                actual=error,
                message=f"{rel}: cannot be read ({error}).",
            )
        )
    return text


def load_registry(project: Project) -> Registry:
    """Read PLUGINS.md, every NOTES.md and .continue-here.md, and audit them. Never raises."""
    try:
        return _load(project)
    except Exception as exc:  # last resort: the dashboard must keep running on any input
        finding = make(
            R_UNREADABLE,
            source=project.rel(project.plugins_md),
            path="$",
            expected="a registry phasewatch can read",
            actual=f"{type(exc).__name__}: {shorten(str(exc), 120)}",
            message="The plugin registry could not be audited (phasewatch bug: please report).",
            hint="Report this with the PLUGINS.md and .continue-here.md that caused it.",
        )
        return Registry(layout="none", findings=[finding])


def audit_plugins(project: Project) -> list[Finding]:
    """The ``PLG-*`` findings for ``phasewatch check``."""
    return load_registry(project).findings


def _load(project: Project) -> Registry:
    findings: list[Finding] = []
    md_rel = project.rel(project.plugins_md)
    md_text = _read(project.plugins_md, md_rel, findings) if project.plugins_md.exists() else None
    parsed = parse_plugins_md(md_text, md_rel) if md_text is not None else PluginsMd()
    findings += parsed.findings
    dirs = _children(project.plugins_dir)

    if md_text is not None and parsed.tables == 0:
        findings.append(
            make(
                R_TABLE_MISSING,
                source=md_rel,
                path="table",
                expected="| Plugin Name | Status | Version | Last Updated |",
                actual=None,
                message=f"{md_rel} has no registry table.",
            )
        )
    layout: Literal["full-entries", "table-only", "none"] = (
        "full-entries" if parsed.entries else "table-only" if parsed.rows else "none"
    )

    records: dict[str, PluginRecord] = {}

    def record(name: str) -> PluginRecord:
        key = name.casefold()
        if key not in records:
            records[key] = PluginRecord(name=name)
        return records[key]

    for row in parsed.rows:
        rec = record(row.name)
        if rec.table is not None:
            findings.append(
                make(
                    R_DUPLICATE,
                    source=md_rel,
                    path=f"table[{row.name}]",
                    expected="one row",
                    actual=f"lines {rec.table.line} and {row.line}",
                    message=f"{md_rel}: {row.name} has two registry rows "
                    f"(lines {rec.table.line} and {row.line}); the first is used.",
                )
            )
            continue
        rec.table = row
    for entry in parsed.entries:
        rec = record(entry.name)
        if rec.entry is not None:
            findings.append(
                make(
                    R_DUPLICATE,
                    source=md_rel,
                    path=f"### {entry.name}",
                    expected="one full entry",
                    actual=f"lines {rec.entry.line} and {entry.line}",
                    message=f"{md_rel}: {entry.name} has two full entries; the first is used.",
                )
            )
            continue
        rec.entry = entry
    # plugin directories holding state files
    for d, path in dirs.items():
        if (path / ".continue-here.md").is_file() or (path / "NOTES.md").is_file():
            key = d.casefold()
            if key not in records and _find_dir(d, dirs) == d:
                record(d)

    for rec in records.values():
        rec.directory = _find_dir(rec.name, dirs)
        if rec.directory is None:
            continue
        base = dirs[rec.directory]
        if rec.entry is None and (base / "NOTES.md").is_file():
            rel = project.rel(base / "NOTES.md")
            text = _read(base / "NOTES.md", rel, findings)
            if text is not None:
                rec.entry = parse_notes_md(text, rec.name, rel)
        ch_path = base / ".continue-here.md"
        if ch_path.exists():
            rel = project.rel(ch_path)
            text = _read(ch_path, rel, findings)
            if text is not None:
                rec.handoff, ch_findings = parse_continue_here(text, rec.directory, rel)
                rec.findings += ch_findings
                rec.checksums, sum_findings = _checksums(project, rec, base)
                rec.findings += sum_findings

    if md_text is None and any(r.handoff for r in records.values()):
        findings.append(
            make(
                R_REGISTRY_MISSING,
                source=md_rel,
                path="$",
                expected="PLUGINS.md",
                actual="missing",
                message=f"{md_rel} is missing but plugins have .continue-here.md handoffs.",
            )
        )

    registry = Registry(layout=layout, plugins=list(records.values()))
    for rec in registry.plugins:
        _numbering(rec)
    known = {r.numbering for r in registry.plugins} - {"unknown"}
    registry.numbering = known.pop() if len(known) == 1 else "unknown"
    for rec in registry.plugins:
        if rec.numbering == "unknown" and not rec.numbering_evidence:
            rec.numbering = registry.numbering
        rec.findings += _audit_record(rec, registry, md_rel, md_text is not None)
        findings += rec.findings
    registry.findings = findings
    return registry


def _checksums(
    project: Project, rec: PluginRecord, base: Path
) -> tuple[list[ChecksumState], list[Finding]]:
    ch = rec.handoff
    states: list[ChecksumState] = []
    findings: list[Finding] = []
    if ch is None or ch.front_matter is None:
        return states, findings
    sums = ch.contract_checksums
    ideas = base / ".ideas"
    ideas_rel = project.rel(ideas) + "/"
    restore = f"git checkout HEAD -- {ideas_rel}"
    if sums is None:
        present = [f for f in CONTRACT_FILES.values() if (ideas / f).is_file()]
        for key, fname in CONTRACT_FILES.items():
            exists = (ideas / fname).is_file()
            states.append(
                ChecksumState(
                    key, project.rel(ideas / fname), "missing-checksum" if exists else "null"
                )
            )
        if present and not ch.has("contract_checksums"):
            findings.append(
                make(
                    R_CONTRACT_UNSEALED,
                    source=ch.source,
                    path="front_matter.contract_checksums",
                    expected="contract_checksums for " + ", ".join(present),
                    actual=None,
                    message=f"{ch.source}: no contract_checksums (an old-format handoff); "
                    "changes to the contract files cannot be detected.",
                )
            )
        return states, findings
    for key, fname in CONTRACT_FILES.items():
        path = ideas / fname
        rel = project.rel(path)
        exists = path.is_file()
        if key not in sums or sums[key] is None or _scalar(sums[key]) == "null":
            state: Any = "missing-checksum" if exists else "null"
            recorded = None
            if exists:
                findings.append(
                    make(
                        R_CONTRACT_UNSEALED,
                        source=ch.source,
                        path=f"contract_checksums.{key}",
                        expected="sha256:<hex>",
                        actual=None if key not in sums else "null",
                        message=f"{ch.source}: {rel} exists but no checksum is recorded for it.",
                    )
                )
            states.append(ChecksumState(key, rel, state, recorded))
            continue
        recorded = _scalar(sums[key])
        m = _SHA.fullmatch((recorded or "").strip())
        if not m:
            states.append(ChecksumState(key, rel, "malformed", shorten(str(sums[key]), 80)))
            continue
        want = "sha256:" + m.group(1).lower()
        if not path.exists():
            states.append(ChecksumState(key, rel, "missing-file", want))
            findings.append(
                make(
                    R_CONTRACT_MISSING,
                    source=ch.source,
                    path=f"contract_checksums.{key}",
                    expected=want,
                    actual="missing file",
                    message=f"{ch.source}: a checksum is recorded for {rel}, which is missing.",
                    hint=restore,
                )
            )
            continue
        actual = _sha256(path)
        if actual is None:
            states.append(ChecksumState(key, rel, "unreadable", want))
            findings.append(
                make(
                    R_UNREADABLE,
                    source=rel,
                    path="$",
                    expected="a readable contract file",
                    actual="unreadable",
                    message=f"{rel}: cannot be read to verify its checksum.",
                )
            )
            continue
        if actual != want:
            states.append(ChecksumState(key, rel, "mismatch", want, actual))
            findings.append(
                make(
                    R_CONTRACT_TAMPERED,
                    source=ch.source,
                    path=f"contract_checksums.{key}",
                    expected=want,
                    actual=actual,
                    message=f"{rel}: contract changed after checksum (recorded in {ch.source}).",
                    hint=f"{restore}  (or, if the change was intended, recompute the "
                    "checksums in .continue-here.md)",
                )
            )
        else:
            states.append(ChecksumState(key, rel, "ok", want, actual))
    return states, findings


def _numbering(rec: PluginRecord) -> None:
    """Infer which stage numbering the plugin's files use, and why."""
    contract: list[str] = []
    current: list[str] = []

    def judge(stage: int | None, phase: str | None, where: str) -> None:
        if stage == 1:
            current.append(f"Stage 1 in {where}")
        elif stage is not None and stage >= 4:
            contract.append(f"Stage {stage} in {where}")
        if phase:
            major = phase.split(".")[0]
            if major == "2":
                current.append(f"phase {phase} in {where}")
            elif major in ("4", "5"):
                contract.append(f"phase {phase} in {where}")

    for label, status in (
        ("the registry table", rec.table.status if rec.table else None),
        ("the full entry", rec.entry.status if rec.entry else None),
    ):
        if status is not None and status.kind == "stage":
            judge(status.stage, status.phase, label)
    if rec.entry:
        for t in rec.entry.timeline:
            if t.stage:
                major, _, minor = t.stage.partition(".")
                judge(int(major), t.stage if minor else None, f"timeline[{t.index}]")
    ch = rec.handoff
    if ch is not None:
        judge(ch.stage, ch.phase, ".continue-here.md")
        nxt = ch.next_phase if ch.next_phase and _PHASE.fullmatch(ch.next_phase) else None
        judge(None, nxt, ".continue-here.md next_phase")
    if contract and current:
        rec.numbering = "unknown"
    elif contract:
        rec.numbering = "contract-0-6"
    elif current:
        rec.numbering = "current-0-3"
    rec.numbering_evidence = [f"contract-0-6: {e}" for e in contract] + [
        f"current-0-3: {e}" for e in current
    ]


def _audit_record(
    rec: PluginRecord, registry: Registry, md_rel: str, have_md: bool
) -> list[Finding]:
    out: list[Finding] = []
    name = rec.name
    table, entry, ch = rec.table, rec.entry, rec.handoff
    tpath = f"table[{name}]"
    entry_label = entry.source if entry else ""
    if entry is not None and entry.in_plugins_md:
        entry_label = f"{entry.source} ### {name}"

    def drift(column: str, left: Any, right: Any, ls: str, rs: str, reason: str) -> None:
        rec.drift.append(
            DriftCell(
                column,
                None if left is None else str(left),
                None if right is None else str(right),
                ls,
                rs,
                reason,
            )
        )

    # --- presence in both locations
    if have_md and table is not None and entry is None:
        where = (
            f"a `### {name}` section"
            if registry.layout == "full-entries"
            else f"plugins/{rec.directory or name}/NOTES.md"
        )
        out.append(
            make(
                R_ENTRY_MISSING,
                source=md_rel,
                path=tpath,
                expected=where,
                actual=None,
                message=f"{name} is in the registry table but has no full entry ({where}).",
                hint="Add the full entry; update both locations together.",
            )
        )
    if have_md and table is None and (entry is not None or ch is not None):
        found = entry.source if entry else ch.source if ch else ""
        out.append(
            make(
                R_UNREGISTERED,
                source=md_rel,
                path=tpath,
                expected="a table row",
                actual=None,
                message=f"{name} has {found} but no row in the {md_rel} registry table.",
            )
        )

    # --- statuses are valid
    for status, src, path in (
        (table.status if table else None, md_rel, f"{tpath}.status"),
        (entry.status if entry else None, entry.source if entry else "", None),
    ):
        if status is None:
            continue
        path = path or (entry.where("Status") if entry else "")
        if status.kind in ("unknown", "empty") or status.emoji_conflict:
            why = (
                "is empty"
                if status.kind == "empty"
                else f"has emoji {status.emoji} but says {status.text}"
                if status.emoji_conflict
                else "is not a known status"
            )
            out.append(
                make(
                    R_STATUS_UNKNOWN,
                    source=src,
                    path=path,
                    expected="a valid status",
                    actual=status.raw,
                    message=f"{name}: status {status.raw!r} {why}.",
                )
            )
    if entry is not None and entry.status is None and table is not None:
        out.append(
            make(
                R_STATUS_UNKNOWN,
                source=entry.source,
                path=entry.where("Status"),
                expected="**Status:** ...",
                actual=None,
                message=f"{name}: the full entry has no **Status:** line.",
                hint="Add `**Status:** <status>` matching the table row.",
            )
        )
    if entry is not None:
        for key in entry.bulleted:
            if key != "status":
                continue
            out.append(
                make(
                    R_NOTES_BULLET,
                    source=entry.source,
                    path=entry.where("Status"),
                    expected="**Status:** ...",
                    actual=f"- **Status:** {entry.fields.get('status', '')}",
                    message=f"{entry.source} line "
                    f"{entry.field_lines.get('status')}: `- **Status:**` is a bullet; the "
                    "system's drift check will not find it (phasewatch reads it).",
                )
            )

    # --- table vs entry (status, version, last updated)
    if table is not None and entry is not None:
        es = entry.status
        if es is not None and table.status.key != es.key:
            drift(
                "status",
                table.status.display,
                es.display,
                md_rel,
                entry_label,
                "the status words differ after removing emoji and bold",
            )
            out.append(
                make(
                    R_STATUS_DRIFT,
                    source=md_rel,
                    path=f"{tpath}.status",
                    expected=es.display,
                    actual=table.status.display,
                    message=f"{name}: table says {table.status.display!r}, "
                    f"{entry_label} says {es.display!r}.",
                )
            )
        tv, ev = table.version, entry.version
        if tv and ev and _norm_version(tv) != _norm_version(ev):
            drift("version", tv, ev, md_rel, entry_label, "versions differ")
            out.append(
                make(
                    R_VERSION_DRIFT,
                    source=md_rel,
                    path=f"{tpath}.version",
                    expected=_strip_md(ev),
                    actual=tv,
                    message=f"{name}: table version {tv!r}, {entry_label} says {_strip_md(ev)!r}.",
                )
            )
        td, ed = table.last_updated, entry.last_updated
        if td and ed and td.value and ed.value and td.value != ed.value:
            drift("last_updated", td.value, ed.value, md_rel, entry_label, "dates differ")
            out.append(
                make(
                    R_DATE_DRIFT,
                    source=md_rel,
                    path=f"{tpath}.last_updated",
                    expected=ed.value.isoformat(),
                    actual=td.value.isoformat(),
                    message=f"{name}: Last Updated {td.raw!r} in the table, "
                    f"{ed.raw!r} in {entry_label}.",
                )
            )

    # --- every registry date is understood
    dates: list[tuple[ParsedDate | None, str, str]] = [
        (table.last_updated if table else None, md_rel, f"{tpath}.last_updated"),
    ]
    if entry is not None:
        dates.append((entry.last_updated, entry.source, entry.where("Last Updated")))
        if "created" in entry.fields:
            dates.append(
                (parse_date(entry.fields["created"]), entry.source, entry.where("Created"))
            )
    for parsed, src, path in dates:
        if parsed is None or parsed.form == "iso":
            continue
        if parsed.value is None:
            out.append(
                make(
                    R_DATE_INVALID,
                    source=src,
                    path=path,
                    expected="YYYY-MM-DD",
                    actual=parsed.raw,
                    message=f"{name}: date {parsed.raw!r} cannot be "
                    f"read ({parsed.note or parsed.form}).",
                )
            )
        else:
            out.append(
                make(
                    R_DATE_FORMAT,
                    source=src,
                    path=path,
                    expected=parsed.value.isoformat(),
                    actual=parsed.raw,
                    message=f"{name}: date {parsed.raw!r} read as "
                    f"{parsed.value.isoformat()} ({parsed.note}).",
                )
            )

    # --- timeline: format and order
    if entry is not None:
        latest: TimelineEntry | None = None
        for t in entry.timeline:
            path = entry.where(f"Lifecycle Timeline[{t.index}]")
            if t.problem:
                sev = Severity.INFO if t.date and t.date.exact else None
                out.append(
                    make(
                        R_TIMELINE_FORMAT,
                        source=entry.source,
                        path=path,
                        expected="- **YYYY-MM-DD (Stage N):** text",
                        actual=shorten(t.raw),
                        message=f"{entry.source} line {t.line}: timeline entry {t.problem}.",
                        severity=sev,
                    )
                )
            if t.date is None or t.date.value is None:
                continue
            if latest is not None and latest.date and latest.date.value > t.date.value:
                out.append(
                    make(
                        R_TIMELINE_ORDER,
                        source=entry.source,
                        path=path,
                        expected=f">= {latest.date.value.isoformat()}",
                        actual=t.date.value.isoformat(),
                        message=f"{entry.source} line "
                        f"{t.line}: {t.date.value.isoformat()} comes after "
                        f"{latest.date.value.isoformat()} (line {latest.line}).",
                    )
                )
            else:
                latest = t

    # --- handoff vs registry
    status = rec.status
    reg_src = md_rel if (entry is None or entry.in_plugins_md) else entry.source
    if ch is not None and ch.front_matter is not None and status is not None:
        reg = status.display
        if status.kind == "stage" and ch.stage is not None:
            if ch.stage != status.stage:
                drift("stage", reg, f"stage: {ch.stage}", reg_src, ch.source, "stage differs")
                out.append(
                    make(
                        R_STAGE_DRIFT,
                        source=ch.source,
                        path="front_matter.stage",
                        expected=status.stage,
                        actual=ch.stage,
                        message=f"{name}: "
                        f".continue-here.md is at stage {ch.stage}, the registry says "
                        f"{reg!r}.",
                    )
                )
            elif status.phase and ch.phase and status.phase != ch.phase:
                drift("stage", reg, f"phase: {ch.phase}", reg_src, ch.source, "phase differs")
                out.append(
                    make(
                        R_STAGE_DRIFT,
                        source=ch.source,
                        path="front_matter.phase",
                        expected=status.phase,
                        actual=ch.phase,
                        message=f"{name}: "
                        f".continue-here.md is at phase {ch.phase}, the registry says "
                        f"{reg!r}.",
                    )
                )
        elif status.kind == "ideated" and ch.stage is not None:
            early = ch.stage == 0 and ch.status == "in_progress"
            if not early:
                drift(
                    "stage",
                    reg,
                    f"stage: {ch.stage}",
                    reg_src,
                    ch.source,
                    "registry still says Ideated",
                )
                out.append(
                    make(
                        R_STAGE_DRIFT,
                        source=ch.source,
                        path="front_matter.stage",
                        expected="no handoff yet (or 🚧 Stage 0 in the registry)",
                        actual=ch.stage,
                        message=f"{name}: the registry says {reg!r} "
                        f"but .continue-here.md is at stage {ch.stage} "
                        f"({ch.status}).",
                        severity=Severity.INFO if ch.stage == 0 else None,
                    )
                )
        elif status.kind in ("working", "installed"):
            # seed 2.5: Working + workflow_complete is legitimate until install (contract
            # numbering); the current system deletes the handoff on reaching Working.
            legit = (
                status.kind == "working"
                and ch.status == "workflow_complete"
                and rec.numbering != "current-0-3"
            )
            if not legit:
                expected = (
                    "workflow_complete (or no handoff)"
                    if status.kind == "working" and rec.numbering != "current-0-3"
                    else "no .continue-here.md"
                )
                drift(
                    "handoff",
                    reg,
                    f"status: {ch.status}",
                    reg_src,
                    ch.source,
                    "handoff still present",
                )
                out.append(
                    make(
                        R_CH_STALE,
                        source=ch.source,
                        path="front_matter.status",
                        expected=expected,
                        actual=ch.status,
                        message=f"{name}: the "
                        f"registry says {reg!r} but .continue-here.md is still here "
                        f"(stage {ch.stage}, {ch.status}).",
                        severity=None if ch.status == "in_progress" else Severity.INFO,
                    )
                )
        ld = _registry_date(rec)
        cd = ch.last_updated.value if ch.last_updated else None
        if ld is not None and cd is not None and ld != cd:
            newer = "the handoff is newer" if cd > ld else "the registry is newer"
            drift("last_updated", ld, cd, reg_src, ch.source, newer)
            out.append(
                make(
                    R_CH_DATE_DRIFT,
                    source=ch.source,
                    path="front_matter.last_updated",
                    expected=ld.isoformat(),
                    actual=cd.isoformat(),
                    message=f"{name}: "
                    f".continue-here.md last_updated {cd.isoformat()}, registry "
                    f"{ld.isoformat()} ({newer}).",
                )
            )
    if (
        ch is None
        and status is not None
        and status.kind == "stage"
        and rec.directory is not None
        and not (status.stage == 0 and rec.numbering != "current-0-3")
    ):
        out.append(
            make(
                R_CH_ABSENT,
                source=f"plugins/{rec.directory}/.continue-here.md",
                path="$",
                expected=".continue-here.md",
                actual="missing",
                message=f"{name}: the registry says {status.display!r} but there is "
                "no handoff to resume from.",
            )
        )

    if rec.numbering == "unknown" and len({e.split(":")[0] for e in rec.numbering_evidence}) > 1:
        out.append(
            make(
                R_NUMBERING_MIXED,
                source=reg_src if table or entry else (ch.source if ch else md_rel),
                path=f"{name}.numbering",
                expected="one numbering",
                actual="; ".join(rec.numbering_evidence),
                message=f"{name}: files mix stage numberings: {'; '.join(rec.numbering_evidence)}.",
            )
        )
    return out


def _registry_date(rec: PluginRecord) -> date | None:
    for d in (
        rec.entry.last_updated if rec.entry else None,
        rec.table.last_updated if rec.table else None,
    ):
        if d is not None and d.value is not None:
            return d.value
    return None


def _norm_version(v: str) -> str:
    return _strip_md(v).lower().lstrip("v").strip()
