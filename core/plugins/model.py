"""The merged picture of one plugin (:class:`PluginRecord`) and of the registry (:class:`Registry`),
plus which stage numbering a plugin's files use (the contract's 0,2-6 or the current 0-3:
docs/formats.md#stage-numbering).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from msgspec import Struct, field

from ..findings import Finding, Severity
from .entry import Entry
from .handoff import ContinueHere
from .handoff_fields import PHASE
from .markdown import strip_md
from .registry_md import TableRow
from .status import Status

Numbering = Literal["contract-0-6", "current-0-3", "unknown"]
# What the real system writes for "no version yet": `-` in the table, `N/A` in NOTES.md.
_NO_VERSION = {"", "-", "–", "—", "n/a", "na", "none", "tbd"}


def clean_version(raw: str | None) -> str | None:
    """A version as written (bold removed), or None for the real system's "no version" marks."""
    if raw is None:
        return None
    text = strip_md(raw)
    return None if text.casefold() in _NO_VERSION else text


def version_key(raw: str) -> str:
    """What two versions must share to agree: ``v1.0.0`` and ``1.0.0`` are one version."""
    return strip_md(raw).lower().lstrip("v").strip()


class ChecksumState(Struct):
    key: str  # creative_brief | parameter_spec | architecture | plan
    file: str  # relative path of the contract file
    state: Literal[
        "ok", "mismatch", "missing-file", "missing-checksum", "malformed", "null", "unreadable"
    ]  # (checksums.ChecksumStateName)
    recorded: str | None = None
    actual: str | None = None  # "sha256:<hex>" of the file on disk


class DriftCell(Struct):
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


class PluginRecord(Struct):
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
        """The registry status: the full entry's (canonical: docs/formats.md#registry), else the
        table's."""
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
        """The version, None when no place gives one (``-`` and ``N/A`` say "no version")."""
        for raw in (
            self.entry.version if self.entry else None,
            self.table.version if self.table else None,
        ):
            version = clean_version(raw)
            if version is not None:
                return version
        return None

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


class Registry(Struct):
    layout: Literal["full-entries", "table-only", "none"]
    plugins: list[PluginRecord] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    numbering: Numbering = "unknown"

    def get(self, name: str) -> PluginRecord | None:
        return next((p for p in self.plugins if p.name == name), None)


def registry_date(rec: PluginRecord) -> date | None:
    """The registry's Last Updated: the full entry's, else the table's."""
    for d in (
        rec.entry.last_updated if rec.entry else None,
        rec.table.last_updated if rec.table else None,
    ):
        if d is not None and d.value is not None:
            return d.value
    return None


class _Evidence:
    """Which stage numbering a plugin's stage and phase numbers betray, and where."""

    def __init__(self) -> None:
        self.contract: list[str] = []
        self.current: list[str] = []

    def judge(
        self, stage: int | None, phase: str | None, where: str, history: bool = False
    ) -> None:
        # Stage 1 was Planning in the system's own 0-6 era (its timelines say
        # "(Stage 1): Planning"): in a timeline, history, it says nothing about the numbering
        if stage == 1 and not history:
            self.current.append(f"Stage 1 in {where}")
        elif stage is not None and stage >= 4:
            self.contract.append(f"Stage {stage} in {where}")
        major = phase.split(".")[0] if phase else None
        if major == "2":
            self.current.append(f"phase {phase} in {where}")
        elif major in ("4", "5"):
            self.contract.append(f"phase {phase} in {where}")


def _registry_evidence(rec: PluginRecord, ev: _Evidence) -> None:
    for label, status in (
        ("the registry table", rec.table.status if rec.table else None),
        ("the full entry", rec.entry.status if rec.entry else None),
    ):
        if status is not None and status.kind == "stage":
            ev.judge(status.stage, status.phase, label)
    for t in rec.entry.timeline if rec.entry else ():
        if t.stage:
            major, _, minor = t.stage.partition(".")
            ev.judge(int(major), t.stage if minor else None, f"timeline[{t.index}]", history=True)


def infer_numbering(rec: PluginRecord) -> None:
    """Infer which stage numbering the plugin's files use, and why."""
    ev = _Evidence()
    _registry_evidence(rec, ev)
    ch = rec.handoff
    if ch is not None:
        ev.judge(ch.stage, ch.phase, ".continue-here.md")
        nxt = ch.next_phase if ch.next_phase and PHASE.fullmatch(ch.next_phase) else None
        ev.judge(None, nxt, ".continue-here.md next_phase")
    if ev.contract and ev.current:
        rec.numbering = "unknown"
    elif ev.contract:
        rec.numbering = "contract-0-6"
    elif ev.current:
        rec.numbering = "current-0-3"
    rec.numbering_evidence = [f"contract-0-6: {e}" for e in ev.contract] + [
        f"current-0-3: {e}" for e in ev.current
    ]
