"""The plugin under audit, as every per-plugin check sees it."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from ..checks import Emitter
from ..findings import Rule
from .model import DriftCell, PluginRecord, Registry

# How the real system compares two statuses (plugin-workflow's validateRegistryConsistency).
SYSTEM_CHECK = (
    "the system's own check (validateRegistryConsistency) keeps only ASCII letters, digits and "
    "spaces (`sed 's/[^a-zA-Z0-9 ]//g' | xargs`) and compares the rest exactly"
)


class Ctx(Struct):
    """One plugin under audit, with the labels its findings use."""

    rec: PluginRecord
    registry: Registry
    md_rel: str
    have_md: bool

    @property
    def name(self) -> str:
        return self.rec.name

    @property
    def tpath(self) -> str:
        return f"table[{self.rec.name}]"

    @property
    def entry_label(self) -> str:
        entry = self.rec.entry
        if entry is None:
            return ""
        return f"{entry.source} ### {self.rec.name}" if entry.in_plugins_md else entry.source

    @property
    def reg_src(self) -> str:
        """Where the registry status comes from: PLUGINS.md, or the NOTES.md entry."""
        entry = self.rec.entry
        return self.md_rel if (entry is None or entry.in_plugins_md) else entry.source

    def flag(
        self,
        em: Emitter,
        cell: tuple[str, Any, Any, str],
        r: Rule,
        path: str,
        message: str,
        **finding: Any,
    ) -> None:
        """A drift against the handoff: the cell (column, registry, handoff value, reason) for
        the dashboard and the finding, at the handoff."""
        column, left, right, reason = cell
        ch = self.rec.handoff
        source = ch.source if ch is not None else self.md_rel
        self.drift(column, left, right, self.reg_src, source, reason)
        em.add(r, path, message, source=source, **finding)

    def drift(self, column: str, left: Any, right: Any, ls: str, rs: str, reason: str) -> None:
        self.rec.drift.append(
            DriftCell(
                column,
                None if left is None else str(left),
                None if right is None else str(right),
                ls,
                rs,
                reason,
            )
        )
