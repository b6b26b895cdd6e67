"""The per-plugin registry rules (table vs full entry): small check functions over one :class:`~.model.PluginRecord`, run by
the shared rule runner (a check that raises becomes ``AUDIT-INTERNAL``, the others still run).

Each check compares two places that should say the same thing (registry table, full entry,
handoff), records a :class:`~.model.DriftCell` for the dashboard and emits the finding.
"""

from __future__ import annotations

from ..checks import Emitter
from ..findings import Severity
from ..text import shorten
from ._ctx import SYSTEM_CHECK, Ctx
from .model import clean_version, version_key
from .rules import (
    R_DATE_DRIFT,
    R_ENTRY_MISSING,
    R_NOTES_BULLET,
    R_NUMBERING_MIXED,
    R_ROW_UNFOUND,
    R_STATUS_DRIFT,
    R_STATUS_UNKNOWN,
    R_UNREGISTERED,
    R_VERSION_DRIFT,
)
from .status import Status, system_words


def check_presence(em: Emitter, c: Ctx) -> None:
    """Both locations hold the plugin (docs/formats.md#registry: update both together)."""
    rec, table, entry, ch = c.rec, c.rec.table, c.rec.entry, c.rec.handoff
    if c.have_md and table is not None and entry is None:
        where = (
            f"a `### {c.name}` section"
            if c.registry.layout == "full-entries"
            else f"plugins/{rec.directory or c.name}/NOTES.md"
        )
        em.add(
            R_ENTRY_MISSING,
            c.tpath,
            f"{c.name} is in the registry table but has no full entry ({where}).",
            source=c.md_rel,
            expected=where,
            actual=None,
            hint="Add the full entry; update both locations together.",
        )
    if c.have_md and table is None and (entry is not None or ch is not None):
        found = entry.source if entry else ch.source if ch else ""
        em.add(
            R_UNREGISTERED,
            c.tpath,
            f"{c.name} has {found} but no row in the {c.md_rel} registry table.",
            source=c.md_rel,
            expected="a table row",
            actual=None,
        )


def check_row_found(em: Emitter, c: Ctx) -> None:
    """The system finds a row with ``grep "^| ${PLUGIN_NAME} |" PLUGINS.md`` (its updater and its
    check, plugin-workflow references/state-management.md): any other spelling of the name cell
    is a row it never updates, and its check then compares an empty table status."""
    rec, table = c.rec, c.rec.table
    if table is None or not table.raw:
        return
    name = rec.directory or rec.name
    if table.found_by_system(name):
        return
    em.add(
        R_ROW_UNFOUND,
        c.tpath,
        f"{c.md_rel} line {table.line}: the system looks {name}'s row up as `| {name} |` and "
        f"does not find `{shorten(table.raw.strip(), 60)}`: its updatePluginStatus cannot write "
        "the row and its validateRegistryConsistency reports drift.",
        source=c.md_rel,
        expected=f"| {name} | ...",
        actual=shorten(table.raw.strip(), 80),
    )


def _unknown_why(status: Status) -> str | None:
    if status.kind == "empty":
        return "is empty"
    if status.emoji_conflict:
        return f"has emoji {status.emoji} but says {status.text}"
    return "is not a known status" if status.kind == "unknown" else None


def check_status_values(em: Emitter, c: Ctx) -> None:
    """Every status is one of the system's values; a full entry has one."""
    table, entry = c.rec.table, c.rec.entry
    places: list[tuple[Status | None, str, str]] = [
        (table.status if table else None, c.md_rel, f"{c.tpath}.status"),
        (
            entry.status if entry else None,
            entry.source if entry else "",
            entry.where("Status") if entry else "",
        ),
    ]
    for status, src, path in places:
        why = _unknown_why(status) if status is not None else None
        if status is not None and why:
            # the system compares words only (emoji dropped): another emoji is never its drift
            em.add(
                R_STATUS_UNKNOWN,
                path,
                f"{c.name}: status {status.raw!r} {why}"
                + (" (the system's own check ignores emoji)." if status.emoji_conflict else "."),
                source=src,
                expected="a valid status",
                actual=status.raw,
                severity=Severity.INFO if status.emoji_conflict else None,
            )
    if entry is not None and entry.status is None and table is not None:
        field = "- **Current Status:**" if not entry.in_plugins_md else "**Status:**"
        em.add(
            R_STATUS_UNKNOWN,
            entry.where("Status"),
            f"{c.name}: the full entry has no {field} line.",
            source=entry.source,
            expected=f"{field} ...",
            actual=None,
            hint=f"Add `{field} <status>` matching the table row.",
        )


def check_status_bullet(em: Emitter, c: Ctx) -> None:
    """Older layout: the system greps ``^**Status:**`` under ``### Name``; a bullet hides it.

    (NOTES.md is the opposite: the system writes ``- **Current Status:**`` and its updater's
    ``sed`` needs the bullet, so a bullet there is the real format, not a finding.)
    """
    entry = c.rec.entry
    if entry is None or not entry.in_plugins_md or "status" not in entry.bulleted:
        return
    em.add(
        R_NOTES_BULLET,
        entry.where("Status"),
        f"{entry.source} line {entry.field_lines.get('status')}: `- **Status:**` is a bullet; "
        "the system's drift check will not find it (phasewatch reads it).",
        source=entry.source,
        expected="**Status:** ...",
        actual=f"- **Status:** {entry.fields.get('status', '')}",
    )


def check_status_drift(em: Emitter, c: Ctx) -> None:
    """Table status vs full entry status: in meaning, then in the system's own words."""
    table, entry = c.rec.table, c.rec.entry
    es = entry.status if entry else None
    if table is None or es is None:
        return
    ts = table.status
    # the system's words for the table: its awk cell, which an escaped pipe `\|` ends
    t_words = system_words(table.system_status) if table.raw else ts.system_words
    if ts.key != es.key:
        c.drift(
            "status",
            ts.display,
            es.display,
            c.md_rel,
            c.entry_label,
            "the status words differ after removing emoji and bold",
        )
        em.add(
            R_STATUS_DRIFT,
            f"{c.tpath}.status",
            f"{c.name}: table says {ts.display!r}, {c.entry_label} says {es.display!r}.",
            source=c.md_rel,
            expected=es.display,
            actual=ts.display,
        )
    elif t_words != es.system_words:
        c.drift(
            "status",
            ts.raw.strip(),
            es.raw.strip(),
            c.md_rel,
            c.entry_label,
            f"same status, but {SYSTEM_CHECK}: {t_words!r} != {es.system_words!r}",
        )
        em.add(
            R_STATUS_DRIFT,
            f"{c.tpath}.status",
            f"{c.name}: table says {ts.raw.strip()!r}, {c.entry_label} says {es.raw.strip()!r}: "
            "the same status in meaning, but drift for the system's own check "
            f"(validateRegistryConsistency), which compares {t_words!r} with "
            f"{es.system_words!r}.",
            source=c.md_rel,
            expected=es.raw.strip(),
            actual=ts.raw.strip(),
            severity=Severity.WARNING,
            hint="Write the status identically in both places (drop or copy the label).",
        )


def check_version_drift(em: Emitter, c: Ctx) -> None:
    """Table version vs full entry version; ``-`` and ``N/A`` both mean "no version"."""
    table, entry = c.rec.table, c.rec.entry
    if table is None or entry is None or table.version is None or entry.version is None:
        return
    tv, ev = clean_version(table.version), clean_version(entry.version)
    if tv is None and ev is None:
        return
    if tv is not None and ev is not None and version_key(tv) == version_key(ev):
        return
    shown_t, shown_e = tv or "no version", ev or "no version"
    c.drift("version", shown_t, shown_e, c.md_rel, c.entry_label, "versions differ")
    em.add(
        R_VERSION_DRIFT,
        f"{c.tpath}.version",
        f"{c.name}: table version {table.version!r}, {c.entry_label} says {entry.version!r}.",
        source=c.md_rel,
        expected=shown_e,
        actual=shown_t,
    )


def check_date_drift(em: Emitter, c: Ctx) -> None:
    table, entry = c.rec.table, c.rec.entry
    td = table.last_updated if table else None
    ed = entry.last_updated if entry else None
    if not (td and ed and td.value and ed.value) or td.value == ed.value:
        return
    c.drift("last_updated", td.value, ed.value, c.md_rel, c.entry_label, "dates differ")
    em.add(
        R_DATE_DRIFT,
        f"{c.tpath}.last_updated",
        f"{c.name}: Last Updated {td.raw!r} in the table, {ed.raw!r} in {c.entry_label}.",
        source=c.md_rel,
        expected=ed.value.isoformat(),
        actual=td.value.isoformat(),
    )


def check_numbering(em: Emitter, c: Ctx) -> None:
    rec = c.rec
    if rec.numbering != "unknown" or len({e.split(":")[0] for e in rec.numbering_evidence}) < 2:
        return
    ch = rec.handoff
    src = c.reg_src if rec.table or rec.entry else (ch.source if ch else c.md_rel)
    evidence = "; ".join(rec.numbering_evidence)
    em.add(
        R_NUMBERING_MIXED,
        f"{c.name}.numbering",
        f"{c.name}: files mix stage numberings: {evidence}.",
        source=src,
        expected="one numbering",
        actual=evidence,
    )


RECORD_CHECKS = (
    check_presence,
    check_row_found,
    check_status_values,
    check_status_bullet,
    check_status_drift,
    check_version_drift,
    check_date_drift,
)
