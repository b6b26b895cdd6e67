"""The session timeline: every version of state.json observed, with what changed and which
transition rules fired. Plain data for ``widgets.timeline_view`` (no textual here)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from msgspec import Struct, field

from .diff import changed_paths as _changed_paths
from .diff import summarize_paths
from .findings import Finding, is_transition, sort_findings

NOISE_PATHS = frozenset({"state_version"})  # bumped by every write: left out of summaries


class TimelineEntry(Struct):
    seq: int  # observation number within this session (unique: the row key)
    observed_at: datetime
    state_version: int | None
    changed_paths: list[str] = field(default_factory=list)  # vs the previous observation
    findings: list[Finding] = field(default_factory=list)  # transition findings only
    raw: dict[str, Any] | None = None  # the parsed document (a reference, not a copy)
    note: str = ""  # e.g. "first observation", "read failed: last good data kept"

    def summary(self, limit: int = 3) -> str:
        """``"phases.06-implementation.status, … +3 more"`` (``state_version`` left out)."""
        return summarize_paths(self.changed_paths, limit, ignore=NOISE_PATHS)

    @property
    def rule_ids(self) -> list[str]:
        return list(dict.fromkeys(f.rule_id for f in self.findings))


def make_entry(
    seq: int,
    raw: dict[str, Any] | None,
    previous_raw: dict[str, Any] | None,
    *,
    observed_at: datetime | None = None,
    findings: list[Finding] | None = None,
    state_version: int | None = None,
    note: str = "",
) -> TimelineEntry:
    """Build an entry, diffing ``raw`` against ``previous_raw`` (None: first observation).

    ``findings`` may hold every finding of the snapshot: only transition findings are kept.
    ``state_version`` defaults to the document's own (when it is an int).
    """
    if state_version is None and isinstance(raw, dict):
        version = raw.get("state_version")
        state_version = version if type(version) is int else None
    if previous_raw is None or raw is None:
        paths: list[str] = []
        note = note or ("first observation" if raw is not None else "no document")
    else:
        paths = _changed_paths(previous_raw, raw)
    return TimelineEntry(
        seq=seq,
        observed_at=observed_at or datetime.now(UTC),
        state_version=state_version,
        changed_paths=paths,
        findings=sort_findings([f for f in findings or [] if is_transition(f)]),
        raw=raw,
        note=note,
    )
