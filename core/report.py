"""One-shot audit of a whole project: what ``phasewatch check`` prints and scripts consume."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from .findings import Finding, Severity, sort_findings, summarize
from .snapshot import Snapshot, evaluate
from .sources import Project, ReadResult, discover, read_finding, read_json
from .systems import registered

if TYPE_CHECKING:
    from .config import Config

# Read failures that mean "could not audit this file": exit code 2, not 1.
UNREADABLE_RULES = frozenset(
    {"READ-INVALID", "READ-UNREADABLE", "READ-TOO-LARGE", "READ-NOT-OBJECT", "READ-TORN"}
)


class Report(Struct):
    project: Project
    snapshots: list[Snapshot] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    hook_records: int = 0
    #: Each registered system's summary (``System.summary``: the TDD plan's counts, one object
    #: per plugin...) by name, in registry order; None: the system is not used here.
    parts: dict[str, object] = field(default_factory=dict)
    #: ``check --against``: ``{"source", "state_version"}`` of the earlier copy the state was
    #: judged as a write over; None without it.
    against: dict[str, Any] | None = None

    @property
    def summary(self) -> dict[str, int]:
        return summarize(self.findings)

    @property
    def unreadable(self) -> bool:
        return any(f.rule_id in UNREADABLE_RULES for f in self.findings)

    def exit_code(self, strict: bool = False) -> int:
        if self.unreadable:
            return 2
        worst = {Severity.ERROR} | ({Severity.WARNING} if strict else set())
        return 1 if any(f.severity in worst for f in self.findings) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": 1,
            "root": str(self.project.root),
            "systems": self.project.systems,
            "projects": [_snapshot_json(s) for s in self.snapshots],
            "findings": [f.to_json() for f in self.findings],
            **{key.name: self.parts.get(key.name) for key in registered()},
            **({"against": self.against} if self.against is not None else {}),
            "summary": self.summary,
        }


def _snapshot_json(snap: Snapshot) -> dict[str, Any]:
    wf = snap.workflow
    return {
        "id": snap.project_id,
        "source": snap.source,
        "read_status": snap.read_status,
        "state_version": snap.version,
        "workflow": None
        if wf is None
        else {
            "type": wf.type,
            "artifact_folder": wf.artifact_folder,
            "current_phase": wf.current_phase,
            "current_phase_index": wf.current_phase_index,
            "phases": wf.phases,
        },
    }


def audit_project(
    path: str | os.PathLike[str] | None = None,
    *,
    retries: int = 10,
    config: Config | None = None,
    against: ReadResult | None = None,
) -> Report:
    """Discover the project at ``path`` and audit every file once. Never raises on bad files.
    ``config``: the user's, applied once to every finding (a rule that is off is gone).
    ``against``: an earlier copy of the (first) state, parsed: the state is also judged as a
    write over it, with the transition rules (``check --against``)."""
    project = discover(path)
    report = Report(project=project)
    findings: list[Finding] = list(project.findings)
    for n, source in enumerate(project.states):
        rel = project.rel(source.path)
        # shared: the framework's views (core.observe) read the same file unchanged
        result = read_json(source.path, retries=retries, delay=0.05, share=True)
        extra = [] if result.ok else [read_finding(result, rel)]
        before = None
        if against is not None and n == 0 and against.data is not None:
            before = evaluate(against.data, rel, read=against)
            report.against = {"source": str(against.path), "state_version": before.version}
        snap = evaluate(
            result.data,
            rel,
            before,
            project_id=source.project_id,
            read=result,
            extra=extra,
            fresh=result.ok,
        )
        report.snapshots.append(snap)
        findings += snap.findings
    findings += _hook_log(project, report)
    for key in registered():
        report.parts[key.name] = None
        if key.present(project):
            system = key.system()
            loaded = system.load(project, list, known=False)
            if loaded is not None:
                report.parts[key.name] = system.summary(loaded.data)
                findings += loaded.findings
    if config is not None:
        from .config import apply_config

        findings = apply_config(findings, config)
    report.findings = sort_findings(findings)
    return report


def _hook_log(project: Project, report: Report) -> list[Finding]:
    if not os.path.exists(project.hook_log):  # False, not an error, in an unsearchable dir
        return []
    from .hooklog import HookAudit, iter_batches

    audit = HookAudit()
    for batch in iter_batches(project.hook_log):  # streamed: a part of the log at a time
        audit.add(batch)
    report.hook_records = audit.records
    current = next((s.workflow.current_phase for s in report.snapshots if s.workflow), None)
    return audit.findings(project.rel(project.hook_log), current_phase=current)
