"""One observation of a project's state file: the parsed state, its location matrix and every
finding, plus what changed since the previous observation. This is what the UI renders."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from .findings import Finding, sort_findings
from .locations import PhaseLocations, location_rows
from .models import ActiveWorkflow, State, parse_state
from .sources import ReadResult, StateReader

if TYPE_CHECKING:
    from .audit.seen import Seen


class Snapshot(Struct):
    source: str  # file, relative to the project root
    project_id: str = ""
    read: ReadResult | None = None
    state: State = field(default_factory=State)
    raw: dict[str, Any] | None = None
    findings: list[Finding] = field(default_factory=list)
    rows: list[PhaseLocations] = field(default_factory=list)
    taken_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    seq: int = 0  # observation number within this session
    fresh: bool = True  # False when the read failed and the last good data is shown
    seen: Seen = ()  # each workflow's newest marker so far (core.audit.seen)

    @property
    def version(self) -> int | None:
        return self.state.state_version

    @property
    def workflow(self) -> ActiveWorkflow | None:
        return self.state.active_workflow

    @property
    def read_status(self) -> str:
        return self.read.status if self.read else "missing"

    def row(self, key: str) -> PhaseLocations | None:
        return next((r for r in self.rows if r.key == key), None)


def evaluate(
    data: dict[str, Any] | None,
    source: str,
    previous: Snapshot | None = None,
    *,
    project_id: str = "",
    read: ReadResult | None = None,
    extra: list[Finding] | None = None,
    fresh: bool = True,
) -> Snapshot:
    """Parse and audit one state document (and the transition from ``previous``)."""
    from . import audit  # imported late: audit registers many rules and imports snapshot types

    findings: list[Finding] = list(extra or [])
    seen = previous.seen if previous is not None else ()
    if data is None:
        state = State()
    else:
        state, schema = parse_state(data, source)
        findings += schema
        exact = read.exact if read is not None else None
        findings += audit.audit_state(state, data, source, exact)
        if previous is not None and previous.raw is not None and fresh and previous.raw != data:
            before = previous.read.exact if previous.read is not None else None
            findings += audit.audit_transition(
                previous.state, previous.raw, state, data, source, (before, exact), seen
            )
        if fresh:
            seen = audit.remember(seen, exact if exact is not None else data)
    return Snapshot(
        source=source,
        project_id=project_id,
        read=read,
        state=state,
        raw=data,
        findings=sort_findings(findings),
        rows=location_rows(state),
        seq=(previous.seq + 1) if previous else 0,
        fresh=fresh,
        seen=seen,
    )


def observe(
    reader: StateReader, previous: Snapshot | None = None, project_id: str = ""
) -> Snapshot:
    """Read the file behind ``reader`` and evaluate it (torn reads keep the last good data).

    ``previous`` itself when the read gave the very parse ``previous`` was made of (the file is
    unchanged: ``read_json``'s ``share``): the caller keeps it (docs/performance.md#dashboard-size;
    the watcher's first pass re-read a 32,000-phase state and audited it again, 3 s)."""
    result, data, read_findings = reader.read()
    if previous is not None and result.ok and result is previous.read:
        return previous
    return evaluate(
        data,
        reader.source,
        previous,
        project_id=project_id,
        read=result,
        extra=read_findings,
        fresh=result.ok,
    )
