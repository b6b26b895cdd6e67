"""NOTES.md status lines as the Plugin Freedom System itself uses them.

The system keeps a plugin's status in two places and maintains the NOTES.md one with a ``sed``
that rewrites only ``- **Current Status:** …`` lines (``updatePluginStatus``); its drift check
(``validateRegistryConsistency``) greps ``**Current Status:**`` lines and joins every one it
finds. phasewatch reads other shapes too, but a status line in another shape is never updated,
and a second one is joined into the compared value: at the system's next update or check the
registry drifts. Both functions are in plugin-workflow's ``references/state-management.md``
(see docs/tdd-and-plugins.md for the commit and the system's own inconsistency: its check
expects no bullet, while its template and its updater write one).
"""

from __future__ import annotations

from ..checks import Emitter
from ..text import shorten
from ._ctx import Ctx
from .entry import SYSTEM_STATUS_LINE
from .rules import R_NOTES_STATUS_FORM

REFERENCE = "plugin-workflow references/state-management.md"


def check_notes_status_form(em: Emitter, c: Ctx) -> None:
    entry = c.rec.entry
    if entry is None or entry.in_plugins_md or not entry.status_lines:
        return
    lines = entry.status_lines
    if len(lines) == 1 and SYSTEM_STATUS_LINE.match(lines[0][1]):
        return
    odd = [(n, line) for n, line in lines if not SYSTEM_STATUS_LINE.match(line)]
    if odd:
        n, line = odd[0]
        why = (
            f"line {n} `{shorten(line.strip(), 80)}` is not `- **Current Status:** …`, the only "
            "shape the system's updatePluginStatus rewrites (and, unbulleted, the only one its "
            "validateRegistryConsistency greps)"
        )
    else:
        why = (
            f"{len(lines)} status lines (line {', '.join(str(n) for n, _ in lines)}): the "
            "system's validateRegistryConsistency joins them into one value"
        )
    em.add(
        R_NOTES_STATUS_FORM,
        entry.where("Status"),
        f"{c.name}: {why}; the system will report drift at its next update or check ({REFERENCE}).",
        source=entry.source,
        expected="one `- **Current Status:** <status>` line",
        actual=shorten(lines[0][1].strip(), 80),
    )


NOTES_CHECKS = (check_notes_status_form,)
