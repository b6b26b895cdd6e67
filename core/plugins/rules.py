"""Every rule the plugin-registry audit can raise, registered once at import.

Ids are stable and grouped by what they compare:

- ``PLG-`` table/entry rules: the registry table and a plugin's full entry
  (docs/formats.md#registry)
- ``PLG-CH-*`` the ``.continue-here.md`` handoff (docs/formats.md#handoff-file) and it against the
  registry
- ``PLG-CONTRACT-*`` contract files against the checksums the handoff recorded
  (docs/formats.md#contract-checksums)

A check that crashes is reported as the shared ``AUDIT-INTERNAL`` (see :mod:`core.audit.rules`).
"""

from __future__ import annotations

from ..findings import Rule, Severity, rule


def _plg(id: str, sev: Severity, title: str, seed: str, fix: str) -> Rule:
    return rule(id, sev, title, seed=seed, fix=fix, scope="plugins")


R_UNREADABLE = _plg(
    "PLG-UNREADABLE",
    Severity.ERROR,
    "A plugin-system file exists but cannot be read.",
    "docs/formats.md#plugin-freedom-system",
    "Check the file's permissions and that it is a regular file.",
)
R_REGISTRY_MISSING = _plg(
    "PLG-REGISTRY-MISSING",
    Severity.WARNING,
    "Plugins have .continue-here.md handoffs but PLUGINS.md is missing.",
    "docs/formats.md#registry",
    "Restore PLUGINS.md (git) or recreate its registry table.",
)
R_TABLE_MISSING = _plg(
    "PLG-TABLE-MISSING",
    Severity.WARNING,
    "PLUGINS.md has no registry table (a `| Plugin Name | Status | ... |` header).",
    "docs/formats.md#registry (table)",
    "Add the registry table: | Plugin Name | Status | Version | Last Updated |.",
)
R_TABLE_ROW = _plg(
    "PLG-TABLE-ROW",
    Severity.WARNING,
    "A registry table row is malformed (no plugin name, or cells missing).",
    "docs/formats.md#registry (table)",
    "Give the row one cell per header column.",
)
R_TOO_MANY = _plg(
    "PLG-TOO-MANY",
    Severity.WARNING,
    "PLUGINS.md holds more table rows or entries than phasewatch reads: the rest are counted, "
    "not read or audited.",
    "docs/formats.md#registry",
    "A registry lists tens of plugins: look for a generator gone wrong or a pasted table.",
)
R_DUPLICATE = _plg(
    "PLG-DUPLICATE",
    Severity.WARNING,
    "A plugin appears twice in the registry table or has two full entries.",
    "docs/formats.md#registry",
    "Keep one row and one entry per plugin; merge the duplicates.",
)
R_ENTRY_MISSING = _plg(
    "PLG-ENTRY-MISSING",
    Severity.WARNING,
    "A registry table row has no full entry (### section or plugins/<Name>/NOTES.md).",
    "docs/formats.md#registry (full entry or NOTES.md)",
    "Add the plugin's full entry (update both locations together).",
)
R_UNREGISTERED = _plg(
    "PLG-UNREGISTERED",
    Severity.WARNING,
    "A plugin has a full entry, NOTES.md or handoff but no registry table row.",
    "docs/formats.md#registry (table)",
    "Add the plugin's row to the PLUGINS.md table (update both locations together).",
)
R_STATUS_DRIFT = _plg(
    "PLG-STATUS-DRIFT",
    Severity.ERROR,
    "Registry table status differs from the full entry status (in meaning, or in the words the system's own check compares).",
    "docs/formats.md#drift (status)",
    "Update both locations together: set the table row to the full entry's status "
    "(the full entry is canonical).",
)
R_STATUS_UNKNOWN = _plg(
    "PLG-STATUS-UNKNOWN",
    Severity.WARNING,
    "A status is empty, not one of the valid values, or its emoji contradicts its words.",
    "docs/formats.md#status-words",
    "Use 💡 Ideated, 💡 Ideated (Draft Params), 🚧 Stage N[.M], ✅ Working or 📦 Installed; NOTES.md writes `- **Current Status:** <status>`.",
)
R_VERSION_DRIFT = _plg(
    "PLG-VERSION-DRIFT",
    Severity.WARNING,
    "Registry table version differs from the full entry version (`-` and `N/A` both mean none).",
    "docs/formats.md#drift (version)",
    "Update both locations together.",
)
R_DATE_DRIFT = _plg(
    "PLG-DATE-DRIFT",
    Severity.WARNING,
    "Last Updated differs between the registry table and the full entry.",
    "docs/formats.md#drift (Last Updated)",
    "Update both locations together (same date in the table and the entry).",
)
R_DATE_FORMAT = _plg(
    "PLG-DATE-FORMAT",
    Severity.INFO,
    "A date is not written YYYY-MM-DD (it was understood anyway).",
    "docs/formats.md#registry (dates)",
    "Write dates as YYYY-MM-DD.",
)
R_DATE_INVALID = _plg(
    "PLG-DATE-INVALID",
    Severity.WARNING,
    "A date cannot be understood (unparseable, impossible or ambiguous day/month order).",
    "docs/formats.md#registry (dates)",
    "Write dates as YYYY-MM-DD.",
)
R_TIMELINE_ORDER = _plg(
    "PLG-TIMELINE-ORDER",
    Severity.WARNING,
    "A Lifecycle Timeline entry is dated before an earlier entry (not chronological).",
    "docs/formats.md#registry (Lifecycle Timeline)",
    "Keep one order: oldest first, or newest first under the heading (where the system's "
    "updatePluginTimeline puts new entries).",
)
R_TIMELINE_FORMAT = _plg(
    "PLG-TIMELINE-FORMAT",
    Severity.WARNING,
    "A Lifecycle Timeline entry does not use `- **YYYY-MM-DD (Stage N):** text`.",
    "docs/formats.md#registry (Lifecycle Timeline)",
    "Write timeline entries as `- **YYYY-MM-DD (Stage N):** description`.",
)
R_NOTES_BULLET = _plg(
    "PLG-NOTES-BULLET",
    Severity.INFO,
    "A PLUGINS.md `### Name` entry writes `- **Status:**` as a bullet; the system's grep misses it.",
    "verifyStateIntegrity in state-management.md (docs/formats.md#registry)",
    "Write `**Status:** ...` at the start of the line, without the `- ` bullet.",
)
R_NOTES_STATUS_FORM = _plg(
    "PLG-NOTES-STATUS-FORM",
    Severity.WARNING,
    "A NOTES.md status line the system's own check and updater cannot use (another shape, or "
    "more than one).",
    "plugin-workflow references/state-management.md (updatePluginStatus, "
    "validateRegistryConsistency); docs/tdd-and-plugins.md",
    "Write exactly one `- **Current Status:** <status>` line (the system's template form).",
)
R_ROW_UNFOUND = _plg(
    "PLG-ROW-UNFOUND",
    Severity.WARNING,
    'A registry row the system cannot find: it looks a plugin up with `grep "^| Name |"`, so '
    "a name written as a link, in bold or code, in another case, or with tabs is never updated "
    "and its check reports drift.",
    "plugin-workflow references/state-management.md (updatePluginStatus, "
    "validateRegistryConsistency); docs/tdd-and-plugins.md",
    "Write the row as `| Name | Status | ...`: the directory's name, one space each side.",
)
R_TABLE_COLUMNS = _plg(
    "PLG-TABLE-COLUMNS",
    Severity.WARNING,
    "The registry table does not start `| Plugin Name | Status |`: the system reads both by "
    "position.",
    "plugin-workflow references/state-management.md (awk -F'|' '{print $3}'); "
    "docs/tdd-and-plugins.md",
    "Put the plugin name in the first column and the status in the second.",
)
R_CH_FRONTMATTER = _plg(
    "PLG-CH-FRONTMATTER",
    Severity.ERROR,
    ".continue-here.md has no YAML front matter (or it is never closed).",
    "docs/formats.md#handoff-file",
    "Start the file with a `---` line, the YAML fields, then a closing `---` line.",
)
R_CH_YAML = _plg(
    "PLG-CH-YAML",
    Severity.ERROR,
    ".continue-here.md front matter is not valid YAML, or not a mapping of fields.",
    "docs/formats.md#handoff-file (contract rule 1)",
    "Fix the YAML syntax (or restore: git checkout HEAD~1 -- the file).",
)
R_CH_FIELD_MISSING = _plg(
    "PLG-CH-FIELD-MISSING",
    Severity.WARNING,
    "A required front-matter field (plugin, stage, status, last_updated) is missing.",
    "docs/formats.md#handoff-file (front matter)",
    "Add the field to the front matter.",
)
R_CH_PLUGIN = _plg(
    "PLG-CH-PLUGIN",
    Severity.ERROR,
    "The front matter's `plugin` does not match the plugin's directory name.",
    "docs/formats.md#handoff-file (contract rule 2)",
    "Set `plugin:` to the directory name exactly.",
)
R_CH_STAGE = _plg(
    "PLG-CH-STAGE",
    Severity.ERROR,
    "`stage` is neither an integer 0-6 nor a stage marker (ideation, improvement_planning, mockup).",
    "docs/formats.md#handoff-file (contract rule 3); docs/formats.md#stage-numbering",
    "Set `stage:` to the integer stage number (phases go in `phase:`).",
)
R_CH_PHASE = _plg(
    "PLG-CH-PHASE",
    Severity.WARNING,
    "`phase` is neither null nor `N.M`, or its N is not the current stage.",
    "docs/formats.md#handoff-file (contract rule 4)",
    'Set `phase:` to null or "N.M" with N = stage (e.g. "3.2").',
)
R_CH_DATE = _plg(
    "PLG-CH-DATE",
    Severity.WARNING,
    "`last_updated` is not YYYY-MM-DD or an ISO timestamp (YYYY-MM-DD HH:MM:SS).",
    "docs/formats.md#handoff-file (contract rule 5)",
    "Write `last_updated: YYYY-MM-DD HH:MM:SS` (the real templates' form) or YYYY-MM-DD.",
)
R_CH_COMPLEXITY = _plg(
    "PLG-CH-COMPLEXITY",
    Severity.WARNING,
    "`complexity_score` is not a number 1.0-5.0 (or null after Stage 0 completed).",
    "docs/formats.md#handoff-file (contract rule 6)",
    "Copy the complexity score from plan.md (1.0-5.0).",
)
R_CH_PHASED = _plg(
    "PLG-CH-PHASED",
    Severity.WARNING,
    "`phased_implementation` is not a boolean (or null after Stage 0 completed).",
    "docs/formats.md#handoff-file (contract rule 7)",
    "Set `phased_implementation:` to true or false (from plan.md).",
)
R_CH_CHECKSUM_FORMAT = _plg(
    "PLG-CH-CHECKSUM-FORMAT",
    Severity.WARNING,
    "A contract checksum is not `sha256:<64 hex digits>` or null.",
    "docs/formats.md#contract-checksums",
    "Recompute: shasum -a 256 plugins/<Name>/.ideas/<file>.md, written as sha256:<hex>.",
)
R_CH_SECTION = _plg(
    "PLG-CH-SECTION",
    Severity.INFO,
    "A Markdown section a resuming agent needs is missing from .continue-here.md.",
    "docs/formats.md#handoff-file (body)",
    "Add the section (## Current State, ## Completed So Far, ## Next Steps).",
)
R_CH_STATUS = _plg(
    "PLG-CH-STATUS",
    Severity.WARNING,
    "`status` is not one the system writes or reads (in_progress, complete, workflow_complete, paused, blocked, ready, creative_brief_complete, improvement_brief_complete).",
    "docs/formats.md#handoff-file (status)",
    "Set `status:` to in_progress, complete or workflow_complete (or paused/blocked/ready).",
)
R_STAGE_DRIFT = _plg(
    "PLG-STAGE-DRIFT",
    Severity.WARNING,
    ".continue-here.md stage/phase disagrees with the registry status.",
    "docs/formats.md#drift (handoff stage)",
    "Update .continue-here.md and PLUGINS.md together for the stage actually reached.",
)
R_CH_STALE = _plg(
    "PLG-CH-STALE",
    Severity.WARNING,
    "The registry says Working/Installed but a .continue-here.md handoff is still open.",
    "docs/formats.md#stage-numbering (the handoff is deleted at Working)",
    "Finish or close the workflow: delete the handoff, or set the registry back to its stage.",
)
R_CH_DATE_DRIFT = _plg(
    "PLG-CH-DATE-DRIFT",
    Severity.INFO,
    ".continue-here.md last_updated differs from the registry's Last Updated.",
    "docs/formats.md#drift (Last Updated)",
    "Update the handoff and the registry together, with the same date.",
)
R_CH_ABSENT = _plg(
    "PLG-CH-ABSENT",
    Severity.INFO,
    "The registry says a stage is in progress but the plugin has no .continue-here.md.",
    "docs/formats.md#handoff-file",
    "Regenerate the handoff so the workflow can be resumed.",
)
R_CONTRACT_TAMPERED = _plg(
    "PLG-CONTRACT-TAMPERED",
    Severity.ERROR,
    "A contract file changed after its checksum was recorded (tampering).",
    "docs/formats.md#contract-checksums",
    "git checkout HEAD -- plugins/<Name>/.ideas/  (or, if the change was intended, "
    "recompute the checksums)",
)
R_CONTRACT_MISSING = _plg(
    "PLG-CONTRACT-MISSING",
    Severity.WARNING,
    "A checksum is recorded for a contract file that no longer exists.",
    "docs/formats.md#contract-checksums",
    "git checkout HEAD -- plugins/<Name>/.ideas/",
)
R_CONTRACT_UNSEALED = _plg(
    "PLG-CONTRACT-UNSEALED",
    Severity.INFO,
    "A contract file exists but no checksum is recorded for it (tampering goes unnoticed).",
    "docs/formats.md#contract-checksums",
    "Record its checksum in contract_checksums (seed 6.2 migration).",
)
R_NUMBERING_MIXED = _plg(
    "PLG-NUMBERING-MIXED",
    Severity.INFO,
    "A plugin's files mix the contract's stage numbering (0,2-6) and the current one (0-3).",
    "docs/formats.md#stage-numbering",
    "Migrate the plugin's state to one numbering; stage labels may be misread meanwhile.",
)
