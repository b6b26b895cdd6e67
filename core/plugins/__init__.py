"""The Plugin Freedom System's state files (docs/formats.md#plugin-freedom-system).

Readers for ``PLUGINS.md`` (older layout: registry table plus a ``### <Name>`` full entry per
plugin; newer layout: the table only, each entry in ``plugins/<Name>/NOTES.md``), for
``plugins/<Name>/.continue-here.md`` (YAML front matter plus Markdown sections) and for the
contract files whose sha256 checksums the handoff records. :func:`load_registry` merges them into
one :class:`PluginRecord` per plugin and audits them with the ``PLG-*`` rules; it never raises.

Modules: :mod:`.registry_md` (the table), :mod:`.entry` (full entries, NOTES.md, timeline),
:mod:`.handoff` and :mod:`.handoff_fields` (``.continue-here.md``), :mod:`.checksums`,
:mod:`.checks`, :mod:`.checks_dates` and :mod:`.checks_handoff` (the rules, run by the shared
runner), :mod:`.summary` (``check --json``). The agreement with the real system is tested on a
corpus taken from its repository (``tests/conformance/plugins``).
"""

from __future__ import annotations

from ..findings import Finding, make
from ..log import internal_failure
from ..sources import Project
from ..text import shorten
from . import rules
from .checksums import ChecksumState
from .dates import ParsedDate, parse_date
from .entry import Entry, PluginTimelineEntry, parse_notes_md
from .frontmatter import load_yaml_literal
from .handoff import REQUIRED_SECTIONS, ContinueHere, parse_continue_here
from .handoff_fields import CONTRACT_FILES, STAGE_MARKERS, VALID_CH_STATUS
from .load import load
from .markdown import fix_mojibake
from .model import STAGE_NAMES, DriftCell, PluginRecord, Registry
from .names import rel
from .registry_md import PluginsMd, TableRow, parse_plugins_md
from .rules import R_UNREADABLE
from .status import Status, normalise_status, system_words
from .summary import summary_json

__all__ = [
    "CONTRACT_FILES",
    "REQUIRED_SECTIONS",
    "STAGE_MARKERS",
    "STAGE_NAMES",
    "VALID_CH_STATUS",
    "ChecksumState",
    "ContinueHere",
    "DriftCell",
    "Entry",
    "ParsedDate",
    "PluginRecord",
    "PluginTimelineEntry",
    "PluginsMd",
    "Registry",
    "Status",
    "TableRow",
    "audit_plugins",
    "fix_mojibake",
    "load_registry",
    "load_yaml_literal",
    "normalise_status",
    "parse_continue_here",
    "parse_date",
    "parse_notes_md",
    "parse_plugins_md",
    "rules",
    "summary_json",
    "system_words",
]


def load_registry(project: Project) -> Registry:
    """Read PLUGINS.md, every NOTES.md and .continue-here.md, and audit them. Never raises."""
    try:
        return load(project)
    except Exception as exc:  # last resort: the dashboard must keep running on any input
        internal_failure(__name__, "auditing the plugin registry raised", exc)
        finding = make(
            R_UNREADABLE,
            source=rel(project, project.plugins_md),
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
