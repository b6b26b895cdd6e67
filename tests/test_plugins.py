"""Plugin Freedom System readers and PLG-* rules (FORMATS.md 3, seed 002)."""

from __future__ import annotations

import shutil
import sys
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.findings import Severity
from phasewatch.core.plugins import (
    PluginRecord,
    TableRow,
    fix_mojibake,
    load_registry,
    load_yaml_literal,
    normalise_status,
    parse_continue_here,
    parse_date,
    parse_notes_md,
    parse_plugins_md,
    summary_json,
    system_words,
)
from phasewatch.core.rules import all_rules
from phasewatch.core.sources import Project
from phasewatch.core.text import clean

from tests import unprivileged
from tests.helpers.plugins import (
    CONTRACTS,
    SECTIONS,
    TABLE,
    handoff,
    hostile_project,
    sha,
    write,
)

# ---------------------------------------------------------------------------- fixtures

MOJI = {e: e.encode("utf-8").decode("cp1252") for e in ("🚧", "💡", "✅", "📦")}

MK_ENTRY = """\
### MinimalKick
**Status:** {status}
**Version:** 1.0.0
**Created:** 2025-11-10
**Type:** Synth

**Description:**
A kick drum synth.

**Lifecycle Timeline:**
{timeline}

**Last Updated:** {updated}
"""

MK_TIMELINE = """\
- **2025-11-10:** Creative brief created
- **2025-11-11 (Stage 0):** Research & Planning complete - Complexity 5.0
- **2025-11-12 (Stage 2):** Foundation complete - build system operational
- **2025-11-13 (Stage 3.2):** Phase 3.2 complete - envelope"""

GK_ENTRY = """\
### GainKnob
**Status:** ✅ Working
**Version:** 1.0.0

**Lifecycle Timeline:**
- **2025-11-01 (Stage 0):** Research & Planning complete
- **2025-11-12 (Stage 5):** Validation complete - ready for installation

**Last Updated:** 2025-11-12

### TapeAge
**Status:** 💡 Ideated (Draft Params)

**Lifecycle Timeline:**
- **2025-11-10:** Creative brief created

**Last Updated:** 2025-11-10
"""


def full_layout(
    root: Path,
    *,
    table_mk: str = "| MinimalKick | 🚧 Stage 3.2 | 1.0.0 | 2025-11-13 |",
    status: str = "🚧 Stage 3.2",
    timeline: str = MK_TIMELINE,
    updated: str = "2025-11-13",
    ch: str | None = None,
    contracts: bool = True,
) -> Project:
    rows = "\n".join(
        [
            table_mk,
            "| GainKnob | ✅ Working | 1.0.0 | 2025-11-12 |",
            "| TapeAge | 💡 Ideated (Draft Params) | - | 2025-11-10 |",
        ]
    )
    entries = MK_ENTRY.format(status=status, timeline=timeline, updated=updated)
    text = TABLE.format(rows=rows) + "\n## Entries\n\n" + entries + "\n" + GK_ENTRY
    write(root, "PLUGINS.md", text)
    write(root, "plugins/MinimalKick/.continue-here.md", handoff() if ch is None else ch)
    if contracts:
        for fname, body in CONTRACTS.values():
            write(root, f"plugins/MinimalKick/.ideas/{fname}", body)
    return Project(root=root)


def ids(findings) -> list[str]:
    return sorted(f.rule_id for f in findings)


def only(findings, rule_id: str):
    hits = [f for f in findings if f.rule_id == rule_id]
    assert len(hits) == 1, [(f.rule_id, f.path, f.message) for f in findings]
    return hits[0]


# ---------------------------------------------------------------------------- normalisation


@pytest.mark.parametrize(
    ("raw", "kind", "stage", "phase", "draft"),
    [
        ("🚧 Stage 3.2", "stage", 3, "3.2", False),
        (f"{MOJI['🚧']} Stage 3.2", "stage", 3, "3.2", False),
        ("**🚧 Stage 2**", "stage", 2, None, False),
        ("- 🚧  stage   4", "stage", 4, None, False),
        ("Stage 3 Phase 2", "stage", 3, "3.2", False),
        ("💡 Ideated (Draft Params)", "ideated", None, None, True),
        (f"{MOJI['💡']} Ideated", "ideated", None, None, False),
        ("✅ Working", "working", None, None, False),
        (f"**{MOJI['✅']} Working**", "working", None, None, False),
        (f"{MOJI['📦']} Installed", "installed", None, None, False),
        ("ð\x9f§ Stage 4", "stage", 4, None, False),  # latin-1 mojibake, C1 bytes lost
        ("Archived", "unknown", None, None, False),
        ("", "empty", None, None, False),
    ],
)
def test_normalise_status(raw, kind, stage, phase, draft):
    s = normalise_status(raw)
    assert (s.kind, s.stage, s.phase, s.draft) == (kind, stage, phase, draft)


def test_status_display_and_emoji_conflict():
    assert normalise_status(f"{MOJI['🚧']} Stage 3.2").display == "🚧 Stage 3.2"
    assert normalise_status("💡 Ideated (Draft Params)").display == "💡 Ideated (Draft Params)"
    assert normalise_status("✅ Stage 3").emoji_conflict
    assert not normalise_status("Stage 3").emoji_conflict
    assert normalise_status("🚧 Stage 3").key == normalise_status("**Stage 3**").key
    assert normalise_status("🚧 Stage 3").key != normalise_status("🚧 Stage 3.1").key


def test_fix_mojibake_repairs_emoji_and_leaves_text():
    assert fix_mojibake("ðŸš§ Stage 2 â†’ âœ… Working") == "🚧 Stage 2 → ✅ Working"
    assert fix_mojibake("plain, café, naïve") == "plain, café, naïve"


@given(st.text())
def test_fix_mojibake_inverts_cp1252_mojibake(text):
    table = {b: bytes([b]).decode("cp1252", errors="ignore") or chr(b) for b in range(256)}
    moji = "".join(table[b] if b >= 0x80 else chr(b) for b in text.encode("utf-8", "replace"))
    assert fix_mojibake(moji) == text.encode("utf-8", "replace").decode("utf-8")


@pytest.mark.parametrize(
    ("raw", "value", "form"),
    [
        ("2025-11-13", date(2025, 11, 13), "iso"),
        ("**2025-11-13**", date(2025, 11, 13), "iso"),
        ("2025/11/13", date(2025, 11, 13), "other"),
        ("13-11-2025", date(2025, 11, 13), "other"),
        ("11/13/2025", date(2025, 11, 13), "other"),
        ("2025-11-13T10:00:00Z", date(2025, 11, 13), "datetime"),
        ("Nov 13, 2025", date(2025, 11, 13), "other"),
        ("13 November 2025", date(2025, 11, 13), "other"),
        ("Sept 3rd, 2025", date(2025, 9, 3), "other"),
        ("2025-11-13 (Stage 2 complete)", date(2025, 11, 13), "other"),
        ("03/04/2025", None, "ambiguous"),
        ("2025-02-30", None, "invalid"),
        ("soon", None, "invalid"),
        ("", None, "empty"),
    ],
)
def test_parse_date(raw, value, form):
    parsed = parse_date(raw)
    assert (parsed.value, parsed.form) == (value, form)


def test_yaml_scalars_stay_literal():
    value, error, dups = load_yaml_literal(
        "last_updated: 2025-11-13\nphase: 4.10\nstage: 0o7\nb: 'null'\nc: null\nd:\nstage: 1"
    )
    assert error is None and dups == ["stage"]
    assert value == {
        "last_updated": "2025-11-13",
        "phase": "4.10",
        "stage": "1",
        "b": "null",
        "c": None,
        "d": None,
    }
    assert load_yaml_literal("a: !!python/object/apply:os.system ['echo hi']")[1] is None
    assert load_yaml_literal("a: [1, 2")[1] is not None


# ---------------------------------------------------------------------------- PLUGINS.md readers


def test_parse_older_layout_table_entries_and_timeline():
    text = (
        TABLE.format(rows="| MinimalKick | 🚧 Stage 3.2 | 1.0.0 | 2025-11-13 |")
        + "\n"
        + MK_ENTRY.format(status="🚧 Stage 3.2", timeline=MK_TIMELINE, updated="2025-11-13")
    )
    md = parse_plugins_md(text)
    assert [r.name for r in md.rows] == ["MinimalKick"]
    row = md.rows[0]
    assert (row.status.stage, row.status.phase, row.version) == (3, "3.2", "1.0.0")
    assert row.last_updated.value == date(2025, 11, 13)
    [entry] = md.entries
    assert entry.status.phase == "3.2" and entry.version == "1.0.0"
    assert entry.last_updated.value == date(2025, 11, 13)
    assert [t.stage for t in entry.timeline] == [None, "0", "2", "3.2"]
    assert all(t.problem is None for t in entry.timeline)
    assert entry.timeline[3].line == text.splitlines().index(MK_TIMELINE.splitlines()[3]) + 1


def test_table_columns_by_header_name_extra_columns_bold_links():
    text = """\
|  Status | **Plugin** | Type | Updated | Version |
| :---: | --- | --- | ---: | --- |
| **🚧 Stage 2** | [TapeAge](plugins/TapeAge/) | FX | Nov 13, 2025 | v1.1 |
| ✅ Working | `GainKnob` | Util | 2025/11/12 |
"""
    md = parse_plugins_md(text)
    assert [r.name for r in md.rows] == ["TapeAge", "GainKnob"]
    assert md.rows[0].status.stage == 2 and md.rows[0].version == "v1.1"
    assert md.rows[0].last_updated.value == date(2025, 11, 13)
    assert md.rows[1].version is None and md.rows[1].cells["Type"] == "Util"
    # GainKnob is a cell short; Status before the name: read here, misread by the system
    assert [f.rule_id for f in md.findings] == ["PLG-TABLE-COLUMNS", "PLG-TABLE-ROW"]


def test_names_keep_symbols_but_lose_decoration():
    md = parse_plugins_md(
        "| Plugin Name | Status |\n|---|---|\n| **C++Verb** 🎛️ | 🚧 Stage 2 |\n"
        "| `Tape-Age.2` | 🚧 Stage 2 |\n"
    )
    assert [r.name for r in md.rows] == ["C++Verb", "Tape-Age.2"]


def test_crlf_and_bom_registry_reads_the_same(tmp_path):
    project = full_layout(tmp_path)
    text = (tmp_path / "PLUGINS.md").read_text(encoding="utf-8")
    write(tmp_path, "PLUGINS.md", b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert load_registry(project).findings == []


def test_code_fences_are_not_read_as_registry():
    text = "```markdown\n| Plugin Name | Status |\n|---|---|\n| Fake | 🚧 Stage 2 |\n```\n"
    md = parse_plugins_md(text)
    assert md.rows == [] and md.tables == 0


def test_notes_md_with_bullet_fields():
    text = """\
# TapeAge

- **Status:** 🚧 Stage 1
- **Version:** 0.1.0
- **Last Updated:** 2025-11-13

## Lifecycle Timeline
- **2025-11-12 (Stage 0):** Research complete
- **2025-11-13 (Stage 1):** Foundation complete
"""
    entry = parse_notes_md(text, "TapeAge", "plugins/TapeAge/NOTES.md")
    assert entry.status.stage == 1 and entry.version == "0.1.0"
    assert entry.last_updated.value == date(2025, 11, 13)
    assert entry.bulleted == ["status", "version", "last updated"]
    assert [t.stage for t in entry.timeline] == ["0", "1"]
    assert entry.where("Status") == "Status"


# ---------------------------------------------------------------------------- whole registry


def test_consistent_full_layout_has_no_findings(tmp_path):
    reg = load_registry(full_layout(tmp_path))
    assert reg.layout == "full-entries"
    assert reg.findings == [], [(f.rule_id, f.path, f.message) for f in reg.findings]
    mk = reg.get("MinimalKick")
    assert mk is not None
    assert (mk.status.display, mk.stage, mk.phase, mk.version) == (
        "🚧 Stage 3.2",
        3,
        "3.2",
        "1.0.0",
    )
    assert mk.last_updated == date(2025, 11, 13)
    assert [c.state for c in mk.checksums] == ["ok"] * 4
    assert mk.handoff.phase == "3.2" and mk.handoff.complexity_score == 5.0
    assert mk.drift == [] and not mk.tampered
    assert [p.name for p in reg.plugins] == ["MinimalKick", "GainKnob", "TapeAge"]
    # GainKnob's timeline mentions Stage 5: the contract's numbering
    assert reg.get("GainKnob").numbering == "contract-0-6"


def test_status_drift_table_vs_entry(tmp_path):
    project = full_layout(tmp_path, table_mk="| MinimalKick | 🚧 Stage 3.1 | 1.0.0 | 2025-11-13 |")
    reg = load_registry(project)
    f = only(reg.findings, "PLG-STATUS-DRIFT")
    assert f.severity == Severity.ERROR and f.source == "PLUGINS.md"
    assert f.path == "table[MinimalKick].status"
    assert (f.expected, f.actual) == ("🚧 Stage 3.2", "🚧 Stage 3.1")
    assert "update both locations together" in f.hint.lower()
    [cell] = reg.get("MinimalKick").drift
    assert cell.column == "status" and cell.left == "🚧 Stage 3.1"


def test_mojibake_and_bold_do_not_count_as_drift(tmp_path):
    row = f"| MinimalKick | **{MOJI['🚧']} Stage 3.2** | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="Stage 3.2"))
    assert reg.findings == []


@pytest.mark.parametrize(
    "cell",
    ["**MinimalKick**", "[MinimalKick](plugins/MinimalKick/)", "minimalkick", "`MinimalKick`"],
)
def test_a_row_the_systems_grep_cannot_find_is_flagged(tmp_path, cell):
    """The system looks a row up as `grep "^| Name |"` (generated cases: variants.json shapes)."""
    row = f"| {cell} | 🚧 Stage 3.2 | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="Stage 3.2"))
    f = only(reg.findings, "PLG-ROW-UNFOUND")
    assert f.severity == Severity.WARNING and "| MinimalKick |" in f.message
    assert [x.rule_id for x in reg.findings if x.severity != Severity.INFO] == ["PLG-ROW-UNFOUND"]


def test_last_updated_drift_and_date_formats(tmp_path):
    row = "| MinimalKick | 🚧 Stage 3.2 | 1.0.0 | 2025/11/12 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, updated="Nov 13, 2025"))
    drift = only(reg.findings, "PLG-DATE-DRIFT")
    assert (drift.expected, drift.actual) == ("2025-11-13", "2025-11-12")
    formats = [f for f in reg.findings if f.rule_id == "PLG-DATE-FORMAT"]
    assert {f.path for f in formats} == {
        "table[MinimalKick].last_updated",
        "### MinimalKick.Last Updated",
    }
    assert all(f.severity == Severity.INFO for f in formats)
    # the handoff (2025-11-13) agrees with the canonical entry, so no PLG-CH-DATE-DRIFT
    assert "PLG-CH-DATE-DRIFT" not in ids(reg.findings)


def test_ambiguous_and_unparseable_dates_are_reported_not_compared(tmp_path):
    row = "| MinimalKick | 🚧 Stage 3.2 | 1.0.0 | 03/04/2025 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, updated="last tuesday"))
    bad = [f for f in reg.findings if f.rule_id == "PLG-DATE-INVALID"]
    assert len(bad) == 2 and "could be" in bad[0].message + bad[1].message
    assert "PLG-DATE-DRIFT" not in ids(reg.findings)


def test_handoff_date_differs_from_registry(tmp_path):
    reg = load_registry(full_layout(tmp_path, ch=handoff(last_updated="2025-11-14")))
    f = only(reg.findings, "PLG-CH-DATE-DRIFT")
    assert (f.expected, f.actual, f.severity) == ("2025-11-13", "2025-11-14", Severity.INFO)
    assert "handoff is newer" in f.message


def test_version_drift(tmp_path):
    row = "| MinimalKick | 🚧 Stage 3.2 | 1.1.0 | 2025-11-13 |"
    f = only(load_registry(full_layout(tmp_path, table_mk=row)).findings, "PLG-VERSION-DRIFT")
    assert (f.expected, f.actual) == ("1.0.0", "1.1.0")


def test_timeline_out_of_order(tmp_path):
    timeline = MK_TIMELINE.replace("2025-11-12 (Stage 2)", "2025-11-09 (Stage 2)")
    f = only(load_registry(full_layout(tmp_path, timeline=timeline)).findings, "PLG-TIMELINE-ORDER")
    assert f.path == "### MinimalKick.Lifecycle Timeline[2]"
    assert (f.expected, f.actual) == (">= 2025-11-11", "2025-11-09")
    assert f.severity == Severity.WARNING


@pytest.mark.parametrize(
    ("dates", "updater"),
    [
        (["2025-11-20", "2025-11-10", "2025-11-11"], True),  # one entry put under the heading
        (["2025-11-21", "2025-11-20", "2025-11-10", "2025-11-11"], True),
        (["2025-11-12", "2025-11-11", "2025-11-10"], True),  # newest first throughout
        (["2025-11-11", "2025-11-10", "2025-11-12"], False),  # newest is last: not the updater
        (["2025-11-10", "2025-11-12", "2025-11-11"], False),
    ],
)
def test_timeline_newest_first_is_the_systems_updater(tmp_path, dates, updater):
    """The system's updatePluginTimeline puts each new entry right under the heading (`sed
    "/^## Lifecycle Timeline$/a ..."`; generated cases: variants.json `updater-timeline`)."""
    timeline = "\n".join(f"- **{d} (Stage 1):** step" for d in dates)
    f = only(load_registry(full_layout(tmp_path, timeline=timeline)).findings, "PLG-TIMELINE-ORDER")
    assert f.severity == (Severity.INFO if updater else Severity.WARNING)
    assert ("updatePluginTimeline" in f.message) == updater


def test_timeline_malformed_entries(tmp_path):
    timeline = (
        MK_TIMELINE
        + "\n- Shipped a bugfix\n- **13/11/2025 (Stage 3):** typo\n"
        + ("- **2025-11-14 (v1.0.1):** improvement")
    )
    reg = load_registry(full_layout(tmp_path, timeline=timeline))
    fmt = [f for f in reg.findings if f.rule_id == "PLG-TIMELINE-FORMAT"]
    assert [(f.path.rsplit("[")[-1], f.severity) for f in fmt] == [
        ("4]", Severity.WARNING),  # no date at all
        ("5]", Severity.WARNING),  # not YYYY-MM-DD
    ]  # `(v1.0.1)` is the real NOTES.md template's version entry: no finding
    assert "PLG-TIMELINE-ORDER" not in ids(reg.findings)  # 13/11/2025 parsed, in order


def test_entry_missing_and_unregistered(tmp_path):
    project = full_layout(tmp_path)
    text = (tmp_path / "PLUGINS.md").read_text(encoding="utf-8")
    write(tmp_path, "PLUGINS.md", text.replace("### GainKnob", "### GainKnob2"))
    reg = load_registry(project)
    assert only(reg.findings, "PLG-ENTRY-MISSING").path == "table[GainKnob]"
    assert only(reg.findings, "PLG-UNREGISTERED").path == "table[GainKnob2]"


def test_duplicate_rows(tmp_path):
    row = "| MinimalKick | 🚧 Stage 3.2 | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row + "\n" + row))
    assert only(reg.findings, "PLG-DUPLICATE").path == "table[MinimalKick]"


def test_unknown_status_and_emoji_conflict(tmp_path):
    row = "| MinimalKick | ✅ Stage 3.2 | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="On hold"))
    unknown = [f for f in reg.findings if f.rule_id == "PLG-STATUS-UNKNOWN"]
    assert {f.path for f in unknown} == {"table[MinimalKick].status", "### MinimalKick.Status"}
    assert "PLG-STATUS-DRIFT" in ids(reg.findings)


def test_table_only_layout_with_notes_md(tmp_path):
    write(
        tmp_path, "PLUGINS.md", TABLE.format(rows="| TapeAge | 🚧 Stage 1 | 0.1.0 | 2025-11-13 |")
    )
    write(
        tmp_path,
        "plugins/TapeAge/NOTES.md",
        # the real NOTES.md shape: the system's template and its sed updater write the bullet
        "# TapeAge Notes\n\n## Status\n- **Current Status:** 🚧 Stage 1\n- **Version:** 0.1.0\n",
    )
    reg = load_registry(Project(root=tmp_path))
    assert reg.layout == "table-only" and reg.numbering == "current-0-3"
    rec = reg.get("TapeAge")
    assert rec.entry.source == "plugins/TapeAge/NOTES.md" and rec.numbering == "current-0-3"
    assert rec.entry.status.display == "🚧 Stage 1" and rec.stage_name == "Foundation"
    # no handoff while a stage is in progress (current numbering keeps one until Working)
    assert only(reg.findings, "PLG-CH-ABSENT").source == "plugins/TapeAge/.continue-here.md"
    assert ids(reg.findings) == ["PLG-CH-ABSENT"]


@pytest.mark.parametrize(
    ("line", "system_reads"),
    [
        ("- **Current Status:** 🚧 Stage 1", True),  # the system's template and updater form
        ("- **Current Status:** 💡 Stage 1", True),  # another emoji, same words: not drift
        ("**Current Status:** 🚧 Stage 1", False),  # its check reads it, its updater cannot
        ("- **Current Status**: 🚧 Stage 1", False),
        ("* **Current Status:** 🚧 Stage 1", False),
        ("  - **Current Status:** 🚧 Stage 1", False),
        ("- **Current Status:**🚧 Stage 1", False),
        ("**Status:** 🚧 Stage 1", False),
        ("- **Status:** 🚧 Stage 1", False),
        ("- **Current Status:** 🚧 Stage 1\n- **Current Status:** 🚧 Stage 1", False),
    ],
)
def test_notes_md_status_line_shapes(tmp_path, line, system_reads):
    """phasewatch reads every shape; the ones the system's own check and updater cannot use
    are flagged as the system flags them (a warning: drift at its next check or update)."""
    write(tmp_path, "PLUGINS.md", TABLE.format(rows="| TapeAge | 🚧 Stage 1 | - | 2025-11-13 |"))
    write(tmp_path, "plugins/TapeAge/NOTES.md", f"# TapeAge Notes\n\n## Status\n{line}\n")
    write(tmp_path, "plugins/TapeAge/.continue-here.md", "")
    reg = load_registry(Project(root=tmp_path))
    assert reg.get("TapeAge").entry.status.text == "Stage 1"
    assert not {"PLG-STATUS-UNKNOWN", "PLG-STATUS-DRIFT", "PLG-NOTES-BULLET"} & {
        f.rule_id for f in reg.findings if f.severity != Severity.INFO
    }
    form = [f for f in reg.findings if f.rule_id == "PLG-NOTES-STATUS-FORM"]
    assert not form if system_reads else [f.severity for f in form] == [Severity.WARNING]
    if form:
        assert form[0].source == "plugins/TapeAge/NOTES.md" and "state-management.md" in (
            form[0].message
        )


@pytest.mark.parametrize(
    ("header", "row", "flagged"),
    [
        (
            "| Plugin Name | Status | Version | Last Updated |",
            "| TapeAge | 🚧 Stage 1 | - | 2025-11-13 |",
            False,
        ),
        (
            "| Plugin Name | Status | Last Updated | Version |",
            "| TapeAge | 🚧 Stage 1 | 2025-11-13 | - |",
            False,
        ),
        (
            "| Plugin Name | Version | Status | Last Updated |",
            "| TapeAge | - | 🚧 Stage 1 | 2025-11-13 |",
            True,
        ),
        (
            "| Status | Plugin Name | Version | Last Updated |",
            "| 🚧 Stage 1 | TapeAge | - | 2025-11-13 |",
            True,
        ),
    ],
)
def test_reordered_table_columns_are_not_drift(tmp_path, header, row, flagged):
    """Columns are read by header: no status drift. The system reads the status as the second
    cell of the row that starts `| Name |`, so a table where they moved is flagged once."""
    write(tmp_path, "PLUGINS.md", f"# Registry\n\n{header}\n|---|---|---|---|\n{row}\n")
    write(tmp_path, "plugins/TapeAge/NOTES.md", "## Status\n- **Current Status:** 🚧 Stage 1\n")
    write(tmp_path, "plugins/TapeAge/.continue-here.md", "")
    reg = load_registry(Project(root=tmp_path))
    assert "PLG-STATUS-DRIFT" not in ids(reg.findings)
    columns = [f for f in reg.findings if f.rule_id == "PLG-TABLE-COLUMNS"]
    assert [f.severity for f in columns] == ([Severity.WARNING] if flagged else [])


def test_another_emoji_with_the_same_words_is_at_most_info(tmp_path):
    write(tmp_path, "PLUGINS.md", TABLE.format(rows="| TapeAge | 📦 Working | - | 2025-11-13 |"))
    write(tmp_path, "plugins/TapeAge/NOTES.md", "## Status\n- **Current Status:** ✅ Working\n")
    reg = load_registry(Project(root=tmp_path))
    assert [f.rule_id for f in reg.findings if f.severity != Severity.INFO] == []
    assert only(reg.findings, "PLG-STATUS-UNKNOWN").severity == Severity.INFO


def test_bulleted_status_in_plugins_md_entry_is_missed_by_the_system(tmp_path):
    entry = "### TapeAge\n- **Status:** 🚧 Stage 1\n"
    text = TABLE.format(rows="| TapeAge | 🚧 Stage 1 | - | 2025-11-13 |") + "\n" + entry
    write(tmp_path, "PLUGINS.md", text)
    bullet = only(load_registry(Project(root=tmp_path)).findings, "PLG-NOTES-BULLET")
    assert bullet.severity == Severity.INFO and bullet.path == "### TapeAge.Status"


def test_table_only_layout_drift_against_notes_md(tmp_path):
    write(
        tmp_path, "PLUGINS.md", TABLE.format(rows="| TapeAge | 🚧 Stage 2 | 0.1.0 | 2025-11-13 |")
    )
    write(tmp_path, "plugins/TapeAge/NOTES.md", "**Status:** 🚧 Stage 2.1\n")
    write(tmp_path, "plugins/Orphan/NOTES.md", "**Status:** 💡 Ideated\n")
    reg = load_registry(Project(root=tmp_path))
    f = only(reg.findings, "PLG-STATUS-DRIFT")
    assert "plugins/TapeAge/NOTES.md" in f.message and f.expected == "🚧 Stage 2.1"
    assert only(reg.findings, "PLG-UNREGISTERED").path == "table[Orphan]"
    assert "PLG-ENTRY-MISSING" not in ids(reg.findings)


def test_table_only_row_without_notes(tmp_path):
    write(tmp_path, "PLUGINS.md", TABLE.format(rows="| TapeAge | 💡 Ideated | - | 2025-11-13 |"))
    f = only(load_registry(Project(root=tmp_path)).findings, "PLG-ENTRY-MISSING")
    assert "NOTES.md" in f.message


def test_no_registry_table_and_missing_registry(tmp_path):
    write(tmp_path, "PLUGINS.md", "# Plugins\n\nNothing here yet.\n")
    reg = load_registry(Project(root=tmp_path))
    assert reg.layout == "none" and ids(reg.findings) == ["PLG-TABLE-MISSING"]
    (tmp_path / "PLUGINS.md").unlink()
    write(tmp_path, "plugins/MinimalKick/.continue-here.md", handoff())
    for fname, body in CONTRACTS.values():
        write(tmp_path, f"plugins/MinimalKick/.ideas/{fname}", body)
    reg = load_registry(Project(root=tmp_path))
    assert ids(reg.findings) == ["PLG-REGISTRY-MISSING"]
    assert reg.get("MinimalKick").handoff.stage == 3


def test_table_names_cannot_escape_the_plugins_directory(tmp_path):
    write(tmp_path / "outside", ".continue-here.md", "---\nplugin: x\n---\n")
    write(
        tmp_path / "root",
        "PLUGINS.md",
        TABLE.format(rows="| ../../outside | 🚧 Stage 2 | 1 | 2025-11-13 |"),
    )
    write(tmp_path / "root", "plugins/.keep", "")
    reg = load_registry(Project(root=tmp_path / "root"))
    assert all(p.handoff is None and p.directory is None for p in reg.plugins)


UNREADABLE_REGISTRY = """
import sys
from pathlib import Path
from phasewatch.core.plugins import load_registry
from phasewatch.core.sources import Project
root = Path(sys.argv[1])
path = root / "PLUGINS.md"
path.write_text("| Plugin Name | Status |\\n", encoding="utf-8")
path.chmod(0)
findings = load_registry(Project(root=root)).findings
path.chmod(0o644)
print(" ".join(f.rule_id for f in findings))
"""


def test_unreadable_plugins_md():
    """Run unprivileged (tests/unprivileged.py: root reads a file of mode 000)."""
    work = unprivileged.workdir()
    try:
        proc = unprivileged.run(UNREADABLE_REGISTRY, str(work))
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split().count("PLG-UNREADABLE") == 1, proc.stdout
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_plugins_md_that_is_a_directory_is_a_finding(tmp_path):
    (tmp_path / "PLUGINS.md").mkdir()
    assert only(load_registry(Project(root=tmp_path)).findings, "PLG-UNREADABLE")


# ---------------------------------------------------------------------------- .continue-here.md


def check(text: str, directory: str = "MinimalKick"):
    return parse_continue_here(text, directory)


def test_valid_handoff_passes_every_rule():
    ch, findings = check(handoff())
    assert findings == []
    assert (ch.plugin, ch.stage, ch.phase, ch.status) == ("MinimalKick", 3, "3.2", "complete")
    assert ch.last_updated.value == date(2025, 11, 13) and ch.phased_implementation is True
    assert ch.missing_sections == [] and ch.next_phase == "3.3"
    assert ch.front_matter["last_updated"] == "2025-11-13"  # literal text, not a date


def test_rule1_invalid_yaml_and_not_a_mapping():
    ch, findings = check("---\nplugin: [MinimalKick\nstage: 3\n---\n" + SECTIONS)
    f = only(findings, "PLG-CH-YAML")
    assert f.severity == Severity.ERROR and "line" in f.message and ch.front_matter is None
    assert only(check("---\n- a\n- b\n---\n" + SECTIONS)[1], "PLG-CH-YAML").expected == "mapping"
    dup = only(check(handoff().replace("stage: 3\n", "stage: 3\nstage: 4\n"))[1], "PLG-CH-YAML")
    assert dup.severity == Severity.WARNING and dup.path == "front_matter.stage"


def test_missing_and_unclosed_front_matter():
    ch, findings = check("# Stage 2 complete\n\n" + SECTIONS)
    f = only(findings, "PLG-CH-FRONTMATTER")
    assert f.severity == Severity.ERROR and ch.front_matter is None
    assert ids(findings) == ["PLG-CH-FRONTMATTER"]  # sections are all there
    f = only(check("---\nplugin: MinimalKick\nstage: 3\n")[1], "PLG-CH-FRONTMATTER")
    assert f.actual == "unclosed"
    assert ids(check("")[1]) == ["PLG-CH-FRONTMATTER"]


def test_rule2_plugin_matches_directory():
    f = only(check(handoff(plugin="OtherKick"))[1], "PLG-CH-PLUGIN")
    assert (f.expected, f.actual, f.severity) == ("MinimalKick", "OtherKick", Severity.ERROR)
    assert only(check(handoff(plugin="minimalkick"))[1], "PLG-CH-PLUGIN").severity == (
        Severity.WARNING
    )


@pytest.mark.parametrize("stage", ["ideate", "7", "0o7", '"3.2"', "[3]", "-1"])
def test_rule3_stage_integer_0_to_6(stage):
    ch, findings = check(handoff(stage=stage, phase=None))
    f = only(findings, "PLG-CH-STAGE")
    # a word (an undocumented workflow marker like `ui_design`) is a warning, a number an error
    word = stage == "ideate"
    assert f.severity == (Severity.WARNING if word else Severity.ERROR) and ch.stage is None
    if stage == '"3.2"':
        assert "phase" in f.hint


@pytest.mark.parametrize("stage", ["0", "3", "6", "ideation", "improvement_planning", "mockup"])
def test_rule3_stage_in_range_passes(stage):
    ch, findings = check(handoff(stage=stage, phase="null", next_phase="null"))
    assert "PLG-CH-STAGE" not in ids(findings)
    assert ch.stage_label == stage


def test_real_ideation_handoff_is_valid():
    """The plugin-ideation skill's handoff (new-plugin-workflow.md), as the real system writes it."""
    text = (
        "---\nplugin: MinimalKick\nstage: ideation\nstatus: creative_brief_complete\n"
        "last_updated: 2025-11-12 14:30:00\n---\n\n# Resume Point\n\n"
        "## Current State: Creative Brief Complete\n\ntext\n\n## Completed So Far\n\n"
        "**Ideation:** ✓ Complete\n\n## Next Steps\n\n1. Create UI mockup\n\n"
        "## Context to Preserve\n\n**Key Decisions:**\n"
    )
    ch, findings = check(text)
    assert findings == [] and ch.stage_marker == "ideation" and ch.last_updated.value is not None


def test_rule4_phase_format_and_stage():
    ch, findings = check(handoff(phase="4.10", stage="4"))
    assert ch.phase == "4.10" and "PLG-CH-PHASE" not in ids(findings)  # 4.10 is not 4.1
    assert only(check(handoff(phase="phase two"))[1], "PLG-CH-PHASE").actual == "phase two"
    assert "belong to stage 3" in only(check(handoff(phase="4.1"))[1], "PLG-CH-PHASE").message
    assert "PLG-CH-PHASE" not in ids(check(handoff(phase="null"))[1])
    assert "PLG-CH-PHASE" not in ids(check(handoff(phase="~"))[1])


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2025-11-13", True),
        ('"2025-11-13"', True),
        ("2025-11-13T10:00:00Z", True),  # the real templates stamp a time
        ("2025-11-13 10:00:00", True),
        ("13/11/2025", False),
        ("yesterday", False),
        ("2025-13-01", False),
    ],
)
def test_rule5_last_updated_iso_date(value, ok):
    findings = check(handoff(last_updated=value))[1]
    assert ("PLG-CH-DATE" not in ids(findings)) is ok


def test_rule6_complexity_score():
    assert "PLG-CH-COMPLEXITY" not in ids(check(handoff(complexity_score="1"))[1])
    f = only(check(handoff(complexity_score="7.5"))[1], "PLG-CH-COMPLEXITY")
    assert f.severity == Severity.ERROR
    assert only(check(handoff(complexity_score="high"))[1], "PLG-CH-COMPLEXITY")
    f = only(check(handoff(complexity_score="null"))[1], "PLG-CH-COMPLEXITY")
    assert f.severity == Severity.WARNING and "after Stage 0" in f.message
    f = only(check(handoff(complexity_score=None))[1], "PLG-CH-COMPLEXITY")
    assert f.severity == Severity.INFO  # absent: the seed's own examples omit it
    before = handoff(
        stage="0",
        phase="null",
        status="in_progress",
        complexity_score="null",
        phased_implementation="null",
        next_phase="null",
    )
    assert "PLG-CH-COMPLEXITY" not in ids(check(before)[1])
    assert "PLG-CH-PHASED" not in ids(check(before)[1])


def test_rule7_phased_implementation():
    f = only(check(handoff(phased_implementation="maybe"))[1], "PLG-CH-PHASED")
    assert f.severity == Severity.ERROR
    ch, findings = check(handoff(phased_implementation="yes"))
    assert only(findings, "PLG-CH-PHASED").severity == Severity.WARNING
    assert ch.phased_implementation is True
    assert only(check(handoff(phased_implementation="null"))[1], "PLG-CH-PHASED")
    assert "PLG-CH-PHASED" not in ids(check(handoff(phased_implementation="False"))[1])


def test_rule8_checksum_format():
    sums = "\n  creative_brief: sha256:abc123...\n  parameter_spec: null\n  plan: 'null'"
    findings = check(handoff(contract_checksums=sums))[1]
    f = only(findings, "PLG-CH-CHECKSUM-FORMAT")
    assert f.path == "contract_checksums.creative_brief"
    assert only(check(handoff(contract_checksums="abc"))[1], "PLG-CH-CHECKSUM-FORMAT")


def test_rule9_required_sections():
    sections = "## Current State: Stage 0 complete\n\n## Completed So Far\n\n## Next Steps\n"
    ch, findings = check(handoff(sections=sections))
    assert ch.missing_sections == ["Build Artifacts", "Testing Checklist", "Context to Preserve"]
    # the real system's own templates have none of these three: not reported
    assert "PLG-CH-SECTION" not in ids(findings)
    f = only(
        check(
            handoff(
                sections="## Completed So Far\n## Next Steps\n## Build Artifacts\n"
                "## Testing Checklist\n## Context to Preserve\n"
            )
        )[1],
        "PLG-CH-SECTION",
    )
    # the real handoffs are free-form Markdown: a missing section is information
    assert f.severity == Severity.INFO and f.path == 'sections["Current State"]'


def test_status_value_and_required_fields():
    for status in ("workflow_complete", "paused", "creative_brief_complete"):
        assert "PLG-CH-STATUS" not in ids(check(handoff(status=status))[1])
    f = only(check(handoff(status="mockup_v2_in_progress"))[1], "PLG-CH-STATUS")
    assert f.severity == Severity.INFO and "coin" in f.message  # a word the real agents coin
    f = only(check(handoff(status='"done, mostly"'))[1], "PLG-CH-STATUS")
    assert f.severity == Severity.WARNING
    ch, findings = check(handoff(status="in-progress"))
    assert only(findings, "PLG-CH-STATUS").severity == Severity.INFO
    assert ch.status == "in_progress"
    findings = check(handoff(plugin=None, last_updated=None))[1]
    missing = [f.path for f in findings if f.rule_id == "PLG-CH-FIELD-MISSING"]
    assert missing == ["front_matter.plugin", "front_matter.last_updated"]


# ---------------------------------------------------------------------------- handoff vs registry


def test_contract_tampering(tmp_path):
    project = full_layout(tmp_path)
    write(tmp_path, "plugins/MinimalKick/.ideas/parameter-spec.md", "# Params\n- decay\n- tone\n")
    reg = load_registry(project)
    f = only(reg.findings, "PLG-CONTRACT-TAMPERED")
    assert f.severity == Severity.ERROR and f.path == "contract_checksums.parameter_spec"
    assert f.source == "plugins/MinimalKick/.continue-here.md"
    assert "contract changed after checksum" in f.message
    assert f.hint.startswith("git checkout HEAD -- plugins/MinimalKick/.ideas/")
    assert f.expected == sha(CONTRACTS["parameter_spec"][1])
    states = {c.key: c.state for c in reg.get("MinimalKick").checksums}
    assert states == {
        "creative_brief": "ok",
        "parameter_spec": "mismatch",
        "architecture": "ok",
        "plan": "ok",
    }
    assert reg.get("MinimalKick").tampered


def test_contract_missing_file_and_unsealed(tmp_path):
    sums = "\n" + "\n".join(
        f"  {k}: {sha(b) if k != 'plan' else 'null'}" for k, (_f, b) in CONTRACTS.items()
    )
    project = full_layout(tmp_path, ch=handoff(contract_checksums=sums))
    (tmp_path / "plugins/MinimalKick/.ideas/architecture.md").unlink()
    reg = load_registry(project)
    f = only(reg.findings, "PLG-CONTRACT-MISSING")
    assert f.severity == Severity.WARNING and f.path == "contract_checksums.architecture"
    f = only(reg.findings, "PLG-CONTRACT-UNSEALED")
    assert f.path == "contract_checksums.plan" and f.severity == Severity.INFO
    states = {c.key: c.state for c in reg.get("MinimalKick").checksums}
    assert states["architecture"] == "missing-file" and states["plan"] == "missing-checksum"


def test_null_plan_checksum_without_plan_file_is_fine(tmp_path):
    sums = "\n" + "\n".join(
        f"  {k}: {sha(b) if k != 'plan' else 'null'}" for k, (_f, b) in CONTRACTS.items()
    )
    project = full_layout(tmp_path, ch=handoff(contract_checksums=sums))
    (tmp_path / "plugins/MinimalKick/.ideas/plan.md").unlink()
    reg = load_registry(project)
    assert reg.findings == []
    assert {c.key: c.state for c in reg.get("MinimalKick").checksums}["plan"] == "null"


def test_old_format_handoff_without_checksums(tmp_path):
    reg = load_registry(full_layout(tmp_path, ch=handoff(contract_checksums=None)))
    f = only(reg.findings, "PLG-CONTRACT-UNSEALED")
    assert f.path == "front_matter.contract_checksums"
    assert ids(reg.findings) == ["PLG-CONTRACT-UNSEALED"]


def test_uppercase_hex_checksum_still_verified(tmp_path):
    sums = "\n" + "\n".join(
        f"  {k}: sha256:{sha(b)[7:].upper()}" for k, (_f, b) in CONTRACTS.items()
    )
    assert load_registry(full_layout(tmp_path, ch=handoff(contract_checksums=sums))).findings == []


def test_stage_drift_between_handoff_and_registry(tmp_path):
    reg = load_registry(full_layout(tmp_path, ch=handoff(stage="2", phase="null")))
    f = only(reg.findings, "PLG-STAGE-DRIFT")
    assert (f.path, f.expected, f.actual) == ("front_matter.stage", 3, 2)
    reg = load_registry(full_layout(tmp_path, ch=handoff(phase='"3.1"')))
    f = only(reg.findings, "PLG-STAGE-DRIFT")
    assert (f.path, f.expected, f.actual) == ("front_matter.phase", "3.2", "3.1")


def test_working_registry_with_open_handoff(tmp_path):
    row = "| MinimalKick | ✅ Working | 1.0.0 | 2025-11-13 |"
    reg = load_registry(
        full_layout(tmp_path, table_mk=row, status="✅ Working", ch=handoff(status="in_progress"))
    )
    f = only(reg.findings, "PLG-CH-STALE")
    assert f.severity == Severity.WARNING and f.actual == "in_progress"


def test_working_with_workflow_complete_is_legitimate_in_contract_numbering(tmp_path):
    row = "| MinimalKick | ✅ Working | 1.0.0 | 2025-11-13 |"
    ch = handoff(stage="5", phase="null", status="workflow_complete", next_phase="null")
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="✅ Working", ch=ch))
    assert reg.get("MinimalKick").numbering == "contract-0-6"
    assert reg.findings == []
    row = "| MinimalKick | 📦 Installed | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="📦 Installed", ch=ch))
    assert only(reg.findings, "PLG-CH-STALE").severity == Severity.INFO


def test_ideated_registry_with_handoff_past_stage_0(tmp_path):
    row = "| MinimalKick | 💡 Ideated | 1.0.0 | 2025-11-13 |"
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="💡 Ideated"))
    assert only(reg.findings, "PLG-STAGE-DRIFT").severity == Severity.WARNING


def test_ideated_registry_with_stage_0_research_running_is_fine(tmp_path):
    row = "| MinimalKick | 💡 Ideated | 1.0.0 | 2025-11-13 |"
    ch = handoff(
        stage="0",
        phase="null",
        status="in_progress",
        next_phase="null",
        complexity_score="null",
        phased_implementation="null",
    )
    reg = load_registry(full_layout(tmp_path, table_mk=row, status="💡 Ideated", ch=ch))
    assert reg.findings == [], [(f.rule_id, f.message) for f in reg.findings]


def test_numbering_inference(tmp_path):
    # stage 1 in the handoff => the current 0-3 numbering; phase 2.x too
    reg = load_registry(
        full_layout(
            tmp_path,
            table_mk="| MinimalKick | 🚧 Stage 2.1 | 1.0.0 | 2025-11-13 |",
            status="🚧 Stage 2.1",
            timeline=MK_TIMELINE.replace("(Stage 2)", "(Stage 1)").replace(
                "(Stage 3.2)", "(Stage 2.1)"
            ),
            ch=handoff(stage="2", phase='"2.1"', next_phase='"2.2"'),
        )
    )
    mk = reg.get("MinimalKick")
    assert mk.numbering == "current-0-3" and mk.stage_name == "DSP"
    # a timeline's "(Stage 1)" is history (Planning in the system's 0-6 era): not evidence
    assert not any("Stage 1" in e for e in mk.numbering_evidence)
    assert reg.findings == [], [(f.rule_id, f.message) for f in reg.findings]


def test_mixed_numbering_is_reported(tmp_path):
    timeline = MK_TIMELINE + "\n- **2025-11-13 (Stage 2.1):** migrated"
    reg = load_registry(
        full_layout(
            tmp_path, timeline=timeline, ch=handoff(stage="4", phase="null", next_phase="null")
        )
    )
    mk = reg.get("MinimalKick")
    assert mk.numbering == "unknown"
    assert only(reg.findings, "PLG-NUMBERING-MIXED").severity == Severity.INFO


def test_plugin_without_evidence_inherits_registry_numbering(tmp_path):
    reg = load_registry(full_layout(tmp_path))
    mk = reg.get("MinimalKick")
    assert mk.numbering_evidence == [] and reg.numbering == "contract-0-6"  # from GainKnob
    assert mk.numbering == "contract-0-6" and mk.stage_name == "Audio engine (DSP)"


def test_stage_names_for_unknown_numbering_only_when_unambiguous():
    def rec(status: str) -> PluginRecord:
        return PluginRecord("X", table=TableRow("X", 1, normalise_status(status)))

    assert rec("🚧 Stage 3").stage_name is None  # DSP (contract) or GUI (current)
    assert rec("🚧 Stage 0").stage_name is None  # "Research & Planning" vs "Research"
    assert rec("🚧 Stage 4").stage_name == "UI"  # only the contract has a stage 4
    assert rec("✅ Working").stage_name is None


def test_report_includes_plugin_findings(tmp_path):
    from phasewatch.core.report import audit_project

    full_layout(tmp_path, table_mk="| MinimalKick | 🚧 Stage 3.1 | 1.0.0 | 2025-11-13 |")
    assert "PLG-STATUS-DRIFT" in ids(audit_project(tmp_path).findings)


def test_every_plg_rule_is_registered_for_plugins():
    rules = [r for r in all_rules() if r.id.startswith("PLG-")]
    assert len(rules) >= 30
    assert all(r.scope == "plugins" and r.seed and r.fix and r.title for r in rules)


# ---------------------------------------------------------------------------- never raise

FRAGMENTS = [
    "---\n",
    "...\n",
    "plugin: MinimalKick\n",
    "stage: ideation\n",
    "stage: 3\n",
    "phase: 4.10\n",
    "phase: [\n",
    "status: complete\n",
    "last_updated: Nov 13, 2025\n",
    "complexity_score: x\n",
    "contract_checksums:\n",
    "  plan: sha256:zz\n",
    "  - a\n",
    "&a [*a]\n",
    "!!binary x\n",
    "? [k]\n: v\n",
    "## Current State\n",
    "## Next Steps\n",
    "```\n",
    "| Plugin Name | Status |\n",
    "|---|---|\n",
    "| X | 🚧 Stage 2 |\n",
    "| | |\n",
    "### X\n",
    "**Status:** ✅ Working\n",
    "- **Status:** ðŸš§ Stage 1\n",
    "- **Current Status:** 💡 Ideated (Paused at Stage 2)\n",
    "- **Version:** N/A\n",
    "- **2025-11-14 (v1.0.1):** release\n",
    "- **2025-11-12 (Stage 5 Phase 5.1):** gui\n",
    "**Lifecycle Timeline:**\n",
    "- **2025-11-13 (Stage 2):** ok\n",
    "- **03/04/2025 (Stage 9.9.9):**\n",
    "- **:**\n",
    "**Last Updated:** 2025-02-30\n",
    "\\|",
    "|",
    "**",
    "\x00",
    "\ufeff",
    "\t",
    "\r\n",
    "ð",
    "Ÿ",
    "🚧",
]
fragments = st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join)
anything = st.one_of(st.text(max_size=400), fragments)


@settings(max_examples=300)
@given(anything)
def test_plugins_md_parser_never_raises(text):
    md = parse_plugins_md(text)
    for row in md.rows:
        assert row.name and row.status.key is not None
    for entry in md.entries:
        _ = (entry.status, entry.last_updated, entry.timeline)


@settings(max_examples=300)
@given(anything)
def test_notes_md_parser_never_raises(text):
    entry = parse_notes_md(text, "X", "plugins/X/NOTES.md")
    _ = (entry.status, entry.version, entry.last_updated)


@settings(max_examples=300)
@given(st.one_of(anything, fragments.map(lambda t: "---\n" + t + "\n---\n" + t)))
def test_continue_here_parser_never_raises(text):
    ch, findings = parse_continue_here(text, "X")
    assert all(f.rule_id.startswith("PLG-") for f in findings)
    assert ch.stage is None or 0 <= ch.stage <= 6


@settings(max_examples=300)
@given(st.text(max_size=60))
def test_status_and_date_normalisers_never_raise(text):
    normalise_status(text)
    parse_date(text)


@settings(max_examples=40)
@given(md=anything, ch=anything, notes=anything)
def test_load_registry_never_raises(tmp_path_factory, md, ch, notes):
    root = tmp_path_factory.mktemp("reg")
    write(root, "PLUGINS.md", md.encode("utf-8", "surrogatepass"))
    write(root, "plugins/X/.continue-here.md", ch.encode("utf-8", "surrogatepass"))
    write(root, "plugins/X/NOTES.md", notes.encode("utf-8", "surrogatepass"))
    write(root, "plugins/X/.ideas/plan.md", "plan")
    reg = load_registry(Project(root=root))
    assert reg.layout in ("full-entries", "table-only", "none")
    assert not any("phasewatch bug" in f.message for f in reg.findings)


# ---------------------------------------------------------------------------- hostile directory names


def _all_text(reg) -> str:
    parts = []
    for f in reg.findings:
        parts += [f.source, f.path, f.message, str(f.expected), str(f.actual), f.hint or ""]
    for rec in reg.plugins:
        parts += [rec.name, rec.directory or ""]
        parts += [
            x
            for d in rec.drift
            for x in (d.left or "", d.right or "", d.left_source, d.right_source)
        ]
        parts += [c.file for c in rec.checksums]
    return "\n".join(parts)


def test_hostile_directory_names_are_cleaned_everywhere(tmp_path):
    reg = load_registry(hostile_project(tmp_path))
    text = _all_text(reg)
    assert not any(ch in text for ch in "\x1b\x07\x9b")
    names = {r.name for r in reg.plugins}
    # escapes removed, markup kept as literal text (the UI never parses it)
    assert {"Clip", "[@click=app.quit]Click", "[bold red]Loud", "Title"} <= names
    clip = reg.get("Clip")
    assert clip.directory == "Clip" and clip.entry.status.display == "🚧 Stage 2"
    assert "AUDIT-INTERNAL" not in ids(reg.findings)
    assert not [f for f in reg.findings if f.rule_id == "PLG-CH-PLUGIN"]  # cleaned name == plugin
    assert any("plugins/[bold red]Loud/NOTES.md" in f.message for f in reg.findings)


def test_hostile_directory_names_in_check_output(tmp_path, capsys):
    from phasewatch.tui.cli import main

    hostile_project(tmp_path)
    main(["check", str(tmp_path)])
    out = capsys.readouterr().out
    main(["check", "--json", str(tmp_path)])
    doc = capsys.readouterr().out
    for text in (out, doc):
        assert not any(ch in text for ch in "\x1b\x07\x9b")
        assert "[@click=app.quit]Click" in text and "[bold red]Loud" in text


STATUSES = [
    "💡 Ideated",
    "💡 Ideated (Draft Params)",
    "🚧 Stage 1",
    "🚧 Stage 4.2",
    "✅ Working",
    "📦 Installed",
]


@given(st.sampled_from(STATUSES), st.text(alphabet="abcXYZ 12:", min_size=1, max_size=20))
def test_label_suffix_keeps_meaning_but_not_the_system_words(status, label):
    """``🚧 Stage 1 (Foundation)`` means ``🚧 Stage 1``; the system's own check sees drift."""
    plain, labelled = normalise_status(status), normalise_status(f"{status} ({label})")
    assert labelled.key == plain.key
    if any(ch.isalnum() for ch in label):
        assert labelled.system_words != plain.system_words


@given(st.text(max_size=80))
def test_system_words_is_what_the_sed_keeps(text):
    words = system_words(text)
    assert set(words) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ")
    assert words == words.strip() and "  " not in words and system_words(words) == words


@settings(max_examples=60)
@given(
    names=st.lists(
        st.text(min_size=1, max_size=12).filter(
            lambda n: "/" not in n and "\x00" not in n and n not in (".", "..")
        ),
        min_size=1,
        max_size=4,
        unique=True,
    )
)
def test_plugin_directory_names_are_always_clean(tmp_path_factory, names):
    root = tmp_path_factory.mktemp("names")
    made = []
    for name in names:
        try:
            (root / "plugins" / name).mkdir(parents=True)
        except OSError:
            continue  # a name the file system refuses
        (root / "plugins" / name / "NOTES.md").write_text("- **Current Status:** 💡 Ideated\n")
        made.append(name)
    reg = load_registry(Project(root=root))
    for rec in reg.plugins:
        assert rec.name == clean(rec.name) and rec.directory == clean(rec.directory or "")
    for f in reg.findings:
        assert f.source == clean(f.source) and f.message == clean(f.message)
    assert len(reg.plugins) <= len(made)


def test_summary_json_reports_statuses_as_written(tmp_path):
    rows = f"| TapeAge | {MOJI['🚧']} **Stage 1** | - | 2025-11-13 |"
    write(tmp_path, "PLUGINS.md", TABLE.format(rows=rows))
    write(tmp_path, "plugins/TapeAge/NOTES.md", "- **Current Status:** 🚧 Stage 1 (Foundation)\n")
    write(
        tmp_path,
        "plugins/TapeAge/.continue-here.md",
        handoff(plugin="TapeAge", stage="1", phase="null"),
    )
    assert summary_json(load_registry(Project(root=tmp_path))) == [
        {
            "name": "TapeAge",
            "table_status": "🚧 Stage 1",
            "entry_status": "🚧 Stage 1 (Foundation)",
            "handoff_stage": "1",
            "drift": True,  # the label: drift for the system's own check
        }
    ]
    assert summary_json(None) == []


def test_a_registry_past_max_plugins_is_counted_not_read(tmp_path, monkeypatch):
    """A PLUGINS.md at the read cap holds ~390,000 short rows: past MAX_PLUGINS rows (and
    headings) nothing more is read or audited, and PLG-TOO-MANY says how many were left."""
    from phasewatch.core.plugins import registry_md
    from phasewatch.core.plugins.load import load
    from phasewatch.core.sources import discover

    monkeypatch.setattr(registry_md, "MAX_PLUGINS", 50)
    monkeypatch.setattr(sys.modules["phasewatch.core.plugins.load"], "MAX_PLUGINS", 50)
    rows = "".join(f"| P{i} | ✅ Working | 1.0.0 | 2026-01-02 |\n" for i in range(1, 71))
    entries = "".join(f"### E{i}\n**Status:** ✅ Working\n\n" for i in range(1, 58))
    (tmp_path / "PLUGINS.md").write_text(
        "# Plugin Registry\n\n| Plugin Name | Status | Version | Last Updated |\n"
        "|---|---|---|---|\n" + rows + "\n" + entries,
        encoding="utf-8",
    )
    (tmp_path / "plugins").mkdir()
    registry = load(discover(tmp_path))
    names = [p.name for p in registry.plugins]
    assert names[:50] == [f"P{i}" for i in range(1, 51)] and "P51" not in names
    assert [f"E{i}" for i in range(1, 51)] == [n for n in names if n.startswith("E")]
    too_many = [f for f in registry.findings if f.rule_id == "PLG-TOO-MANY"]
    assert [f.message for f in too_many] == [
        "PLUGINS.md: 20 more table rows past the first 50 are not read or audited "
        "(a registry lists tens of plugins).",
        "PLUGINS.md: 7 more headings past the first 50 are not read or audited "
        "(a registry lists tens of plugins).",
    ]
    assert all(f.severity is Severity.WARNING for f in too_many)
