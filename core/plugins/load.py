"""Reading a project's plugin-system files into a :class:`~.model.Registry` and auditing it.

Directory names are cleaned at the listing (:mod:`.names`); file text is cleaned by the readers
(:func:`core.sources.read_text`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..checks import Emitter, run_checks
from ..sources import Project, read_text
from ._ctx import Ctx
from .checks import RECORD_CHECKS, check_numbering
from .checks_dates import DATE_CHECKS
from .checks_handoff import HANDOFF_CHECKS
from .checks_notes import NOTES_CHECKS
from .checksums import check_checksums
from .entry import Entry, parse_notes_md
from .handoff import parse_continue_here
from .model import PluginRecord, Registry, infer_numbering
from .names import find_dir, plugin_dirs, rel
from .registry_md import MAX_PLUGINS, PluginsMd, TableRow, parse_plugins_md
from .rules import R_DUPLICATE, R_REGISTRY_MISSING, R_TABLE_MISSING, R_TOO_MANY, R_UNREADABLE

CHECKS = (*RECORD_CHECKS, *NOTES_CHECKS, *DATE_CHECKS, *HANDOFF_CHECKS, check_numbering)


def read_file(path: Path, source: str, em: Emitter) -> str | None:
    """A file's cleaned text; None (and ``PLG-UNREADABLE`` unless it is absent) otherwise."""
    text, error = read_text(path)
    if text is None and error != "file not found":
        em.add(
            R_UNREADABLE,
            "$",
            f"{source}: cannot be read ({error}).",
            source=source,
            expected="a readable text file",
            actual=error,
        )
    return text


class _Records:
    """One :class:`PluginRecord` per plugin name (case-insensitive), in first-seen order."""

    def __init__(self, em: Emitter, md_rel: str) -> None:
        self.em = em
        self.md_rel = md_rel
        self.by_key: dict[str, PluginRecord] = {}

    def get(self, name: str) -> PluginRecord:
        return self.by_key.setdefault(name.casefold(), PluginRecord(name=name))

    def add_md(self, parsed: PluginsMd) -> None:
        for row in parsed.rows:
            self._place(row.name, "table", row, f"table[{row.name}]", "registry rows")
        for entry in parsed.entries:
            self._place(entry.name, "entry", entry, f"### {entry.name}", "full entries")

    def _place(self, name: str, attr: str, item: TableRow | Entry, path: str, what: str) -> None:
        """Give the plugin its row or entry; a second one is a duplicate (the first is used)."""
        rec = self.get(name)
        first = getattr(rec, attr)
        if first is None:
            setattr(rec, attr, item)
            return
        lines = f"lines {first.line} and {item.line}"
        self.em.add(
            R_DUPLICATE,
            path,
            f"{self.md_rel}: {name} has two {what} ({lines}); the first is used.",
            expected=f"one of the {what}",
            actual=lines,
        )

    def add_dirs(self, dirs: dict[str, Path]) -> None:
        """Plugin directories holding state files are plugins too (even if unregistered)."""
        for name, path in dirs.items():
            has_state = (path / ".continue-here.md").is_file() or (path / "NOTES.md").is_file()
            if has_state and name.casefold() not in self.by_key and find_dir(name, dirs) == name:
                self.get(name)


def _attach(em: Emitter, project: Project, rec: PluginRecord, base: Path) -> None:
    """Read the plugin's NOTES.md (when PLUGINS.md has no entry) and its handoff."""
    notes = base / "NOTES.md"
    if rec.entry is None and notes.is_file():
        source = rel(project, notes)
        text = read_file(notes, source, em)
        if text is not None:
            rec.entry = parse_notes_md(text, rec.name, source)
    ch_path = base / ".continue-here.md"
    if not ch_path.exists():
        return
    source = rel(project, ch_path)
    text = read_file(ch_path, source, em)
    if text is None:
        return
    rec.handoff, found = parse_continue_here(text, rec.directory or rec.name, source)
    sums = Emitter(source)
    rec.checksums = check_checksums(sums, project, rec.handoff, base)
    rec.findings += found + sums.findings


def _read_md(em: Emitter, project: Project, md_rel: str) -> tuple[str | None, PluginsMd]:
    md_text = read_file(project.plugins_md, md_rel, em) if project.plugins_md.exists() else None
    parsed = parse_plugins_md(md_text, md_rel) if md_text is not None else PluginsMd()
    em.findings += parsed.findings
    past = [(parsed.rows_past_cap, "table rows"), (parsed.entries_past_cap, "headings")]
    for count, what in past:
        if count:
            em.add(
                R_TOO_MANY,
                "table" if what == "table rows" else "$",
                f"{md_rel}: {count:,} more {what} past the first {MAX_PLUGINS:,} are not read "
                "or audited (a registry lists tens of plugins).",
                expected=f"at most {MAX_PLUGINS:,} {what}",
                actual=f"{MAX_PLUGINS + count:,} {what}",
            )
    if md_text is not None and parsed.tables == 0:
        em.add(
            R_TABLE_MISSING,
            "table",
            f"{md_rel} has no registry table.",
            expected="| Plugin Name | Status | Version | Last Updated |",
            actual=None,
        )
    return md_text, parsed


def _audit(registry: Registry, md_rel: str, have_md: bool) -> list:
    """Numbering first (the checks read it), then every per-plugin check."""
    for rec in registry.plugins:
        infer_numbering(rec)
    known = {r.numbering for r in registry.plugins} - {"unknown"}
    registry.numbering = known.pop() if len(known) == 1 else "unknown"
    findings = []
    for rec in registry.plugins:
        if rec.numbering == "unknown" and not rec.numbering_evidence:
            rec.numbering = registry.numbering
        rec.findings += run_checks(Emitter(md_rel), CHECKS, Ctx(rec, registry, md_rel, have_md))
        findings += rec.findings
    return findings


def load(project: Project) -> Registry:
    em = Emitter(rel(project, project.plugins_md))
    md_rel = em.source
    md_text, parsed = _read_md(em, project, md_rel)
    dirs = plugin_dirs(project.plugins_dir)
    records = _Records(em, md_rel)
    records.add_md(parsed)
    records.add_dirs(dirs)
    for rec in records.by_key.values():
        rec.directory = find_dir(rec.name, dirs)
        if rec.directory is not None:
            _attach(em, project, rec, dirs[rec.directory])
    if md_text is None and any(r.handoff for r in records.by_key.values()):
        em.add(
            R_REGISTRY_MISSING,
            "$",
            f"{md_rel} is missing but plugins have .continue-here.md handoffs.",
            expected="PLUGINS.md",
            actual="missing",
        )
    layout: Literal["full-entries", "table-only", "none"]
    layout = "full-entries" if parsed.entries else "table-only" if parsed.rows else "none"
    registry = Registry(layout=layout, plugins=list(records.by_key.values()))
    registry.findings = em.findings + _audit(registry, md_rel, md_text is not None)
    return registry
