"""The read side of the supervised review console: what waits for a human, and what the review
gate panel shows (docs/formats.md#supervised-review-gate, #escalations, #approval-marker).

Pure data built from a :class:`~core.snapshot.Snapshot` and the parsed TDD plan; the only file
this module reads is the phase's review summary (:func:`read_review_summary`), through
:func:`core.sources.read_text` (cleaned text, size-capped). Nothing here imports textual: the UI
gets plain values and strings and renders them as text, never as markup.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct

from .findings import Finding, sort_findings
from .protocol import MAX_REDOS, parse_iso
from .snapshot import Snapshot
from .sources import Project, read_text
from .text import clean, shorten

if TYPE_CHECKING:
    from .tdd.model import TddPlan

#: Gate statuses that wait for a human: presented (C/R/D) and paused for review (resume/redo).
WAITING_GATE = ("gate_presented", "reviewing")
SUMMARY_MAX_BYTES = 512 * 1024
_PREFIX = re.compile(r"^(\d{2})(?:-|$)")
_SEGMENT = re.compile(r"[.\[\]]")
_KIND_ORDER = {"gate": 0, "escalation": 1, "plan": 2}


# ---------------------------------------------------------------------------- summary file


def review_summary_path(project: Project, phase_key: str) -> Path | None:
    """``.isdlc/reviews/phase-NN-summary.md`` (NN = the key's 2-digit prefix); None when the
    key has no 2-digit prefix."""
    match = _PREFIX.match(phase_key or "")
    if match is None:
        return None
    return project.reviews_dir / f"phase-{match.group(1)}-summary.md"


def read_review_summary(project: Project, phase_key: str) -> str | None:
    """The phase's review summary as cleaned text (control characters stripped), or None when
    the file is missing or unreadable."""
    path = review_summary_path(project, phase_key)
    if path is None:
        return None
    text, _error = read_text(path, max_bytes=SUMMARY_MAX_BYTES)
    return text


# ---------------------------------------------------------------------------- the gate


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return clean(str(value))


def _artifact(value: Any) -> str:
    if isinstance(value, dict):
        for k in ("path", "file", "name"):
            if isinstance(value.get(k), str):
                return clean(value[k])
    return clean(str(value))


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def workflow_identity(snap: Snapshot) -> tuple[str | None, ...]:
    wf = snap.workflow
    if wf is None:
        return ()
    return (wf.type, wf.slug, wf.artifact_folder, wf.started_at)


def phase_findings(snap: Snapshot, phase: str) -> list[Finding]:
    """Standing findings whose JSON path names ``phase`` as one of its segments."""
    return sort_findings([f for f in snap.findings if phase in _SEGMENT.split(f.path)])


class GateView(Struct, frozen=True):
    """Everything the gate panel shows about one supervised review gate."""

    project_id: str
    source: str  # state file, relative to the project root
    phase: str
    status: str  # gate_presented | reviewing | redo_pending | completed | anything else
    redo_count: int
    version: int | None
    workflow: tuple[str | None, ...]
    paused_at: str | None = None
    guidance: tuple[str, ...] = ()
    phase_status: str | None = None
    phase_summary: str | None = None
    started: str | None = None
    completed: str | None = None
    wall_clock_minutes: float | None = None
    retries: int | None = None
    retry_count: int | None = None
    artifacts: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    raw: dict[str, Any] | None = None

    @property
    def key(self) -> tuple[Any, ...]:
        """Identity of one presentation: a redo presents the same phase again with a higher
        ``redo_count``, a new workflow has another identity."""
        return (self.project_id, self.workflow, self.phase, self.redo_count)

    @property
    def waiting(self) -> bool:
        return self.status in WAITING_GATE

    @property
    def can_continue(self) -> bool:
        return self.status == "gate_presented"

    @property
    def can_review(self) -> bool:
        return self.status == "gate_presented"

    @property
    def can_resume(self) -> bool:
        return self.status == "reviewing"

    @property
    def can_redo(self) -> bool:
        return self.waiting and self.redo_count < MAX_REDOS

    @property
    def since(self) -> str | None:
        """When it started waiting: paused_at while under review, else the phase's completion."""
        if self.status == "reviewing" and self.paused_at:
            return self.paused_at
        return self.completed


def gate_view(snap: Snapshot | None) -> GateView | None:
    """The review gate of ``snap`` (any status), or None when there is none."""
    if snap is None or snap.workflow is None:
        return None
    sr = snap.workflow.supervised_review
    if sr is None or not isinstance(sr.phase, str) or not sr.phase:
        return None
    phase = sr.phase
    record = snap.state.phases.get(phase)
    timing = record.timing if record is not None else None
    redo = _int(sr.redo_count) or 0
    return GateView(
        project_id=snap.project_id,
        source=snap.source,
        phase=clean(phase),
        status=clean(sr.status or "?"),
        redo_count=redo,
        version=snap.version,
        workflow=workflow_identity(snap),
        paused_at=_text(sr.paused_at),
        guidance=tuple(clean(str(g)) for g in sr.redo_guidance_history if g is not None),
        phase_status=_text(record.status) if record else None,
        phase_summary=_text(record.summary) if record else None,
        started=_text((timing.started_at if timing else None) or (record and record.started)),
        completed=_text(
            (timing.completed_at if timing else None) or (record and record.completed_time)
        ),
        wall_clock_minutes=timing.wall_clock_minutes if timing else None,
        retries=timing.retries if timing else None,
        retry_count=record.retry_count if record else None,
        artifacts=tuple(_artifact(a) for a in (record.artifacts if record else [])),
        findings=tuple(phase_findings(snap, phase)),
        raw=snap.raw,
    )


def presented_gate(snap: Snapshot | None) -> GateView | None:
    """The gate when its status is ``gate_presented`` (what opens the panel), else None."""
    view = gate_view(snap)
    return view if view is not None and view.status == "gate_presented" else None


# ---------------------------------------------------------------------------- attention queue


AttentionKind = Literal["gate", "escalation", "plan"]


class AttentionItem(Struct, frozen=True):
    """One thing waiting for a human: a review gate, a pending escalation, an unapproved plan."""

    kind: AttentionKind
    key: str  # identity within the queue
    since_raw: str | None
    title: str
    detail: str
    project_id: str = ""
    index: int | None = None  # escalations: position in pending_escalations

    @property
    def since(self) -> datetime | None:
        return parse_iso(self.since_raw)


def escalation_key(index: int, entry: Any) -> str:
    return (
        "|".join(str(getattr(entry, k, None) or "") for k in ("type", "hook", "phase", "timestamp"))
        + f"|{index}"
    )


def attention_items(snap: Snapshot | None, tdd_plan: TddPlan | None = None) -> list[AttentionItem]:
    """Everything that waits for a human, oldest first (items without a time last)."""
    items: list[AttentionItem] = []
    pid = snap.project_id if snap is not None else ""
    view = gate_view(snap)
    if view is not None and view.waiting:
        what = "presented" if view.status == "gate_presented" else "under review"
        items.append(
            AttentionItem(
                "gate",
                "gate|" + view.phase,
                view.since,
                f"Review gate {view.phase} ({what})",
                shorten(view.phase_summary or f"redo {view.redo_count}/{MAX_REDOS}", 100),
                pid,
            )
        )
    if snap is not None:
        for i, esc in enumerate(snap.state.pending_escalations):
            first = (esc.detail or "").strip().split("\n", 1)[0]
            items.append(
                AttentionItem(
                    "escalation",
                    "escalation|" + escalation_key(i, esc),
                    _text(esc.timestamp),
                    clean(f"Escalation {esc.type or '?'} · {esc.hook or '?'} · {esc.phase or '?'}"),
                    shorten(clean(first), 100),
                    pid,
                    index=i,
                )
            )
    if tdd_plan is not None and not getattr(tdd_plan, "is_approved", True):
        slices = len(getattr(tdd_plan, "slices", None) or [])
        lock = " · .tdd-plan-locked present" if getattr(tdd_plan, "lock_exists", False) else ""
        since = getattr(tdd_plan, "created", None) or getattr(tdd_plan, "last_updated", None)
        items.append(
            AttentionItem(
                "plan",
                "plan",
                _text(since),
                clean(f"TDD plan not approved: {getattr(tdd_plan, 'task', None) or '(no task)'}"),
                f"{slices} slice(s){lock}",
                pid,
            )
        )
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(items, key=lambda it: (it.since or far, _KIND_ORDER.get(it.kind, 9)))


# ---------------------------------------------------------------------------- repair offer

#: The location rules (docs/formats.md#three-locations) and the phase-loop shapes the
#: framework's steps never leave (docs/formats.md#phase-loop) that a location repair may fix.
LOCATION_RULE_PREFIXES = ("SYNC-", "LOOP-")


class RepairOffer(Struct, frozen=True):
    """A repair the console may offer (never applies): the plan (:mod:`core.decide.plans`),
    the findings that raised it, and the state file, relative to the project root. ``plan``
    with no changes: the drift is real but its right value cannot be known; nothing is
    offered to write."""

    plan: Any  # core.decide.plans.RepairPlan (imported on first use: the writer's package)
    rule_ids: tuple[str, ...]
    source: str
    project_id: str = ""

    @property
    def can_apply(self) -> bool:
        return bool(self.plan.changes)


def repair_offer(snap: Snapshot | None, timeline: Any = ()) -> RepairOffer | None:
    """The repair the shown state calls for, or None (see :class:`RepairOfferer`, which keeps
    the last answer for a caller asking after every update)."""
    return RepairOfferer().offer(snap, timeline)


#: Stale steps in a row the offer looks back over for the version to plan against.
STALE_RUN = 3


class RepairOfferer:
    """:meth:`offer` after every update, planning again only when its inputs changed: the
    planners diff whole documents (docs/performance.md#reading-and-planning), the update loop
    must not pay
    that for a file nobody wrote. Inputs are compared by identity (the session hands out the
    same parsed document until the file changes)."""

    def __init__(self) -> None:
        self._inputs: tuple[Any, ...] = ()
        self._offer: RepairOffer | None = None

    def offer(self, snap: Snapshot | None, timeline: Any = ()) -> RepairOffer | None:
        """A stale write first: the newest step of this file in ``timeline`` (the session's
        observations, oldest first) that tripped a stale-write rule (``core.audit.stale_write``),
        planned from the version seen just before it to the file now, or, where that version
        was itself a stale copy, from the one before the run (a later write that moved the
        fields on again leaves nothing to plan). Else the location drift of the state now, when a
        ``SYNC-*`` finding stands."""
        if snap is None or not isinstance(snap.raw, dict):
            return None
        mine = [
            o
            for o in timeline
            if o.project_id == snap.project_id and o.source == snap.source and o.raw is not None
        ]
        from .audit import stale_write  # (loaded with the snapshots' audit already)

        # the newest run of steps that tripped one, newest first: the second of two stale
        # copies in a row is planned against the version before the first
        stale: list[tuple[Any, ...]] = []
        for i in range(len(mine) - 1, 0, -1):
            rules = tuple(sorted({f.rule_id for f in stale_write(mine[i].findings)}))
            if not rules:
                if stale:
                    break
                continue
            stale.append((mine[i - 1].raw, rules))
            if len(stale) == STALE_RUN:
                break
        sync = tuple(
            sorted(
                {f.rule_id for f in snap.findings if f.rule_id.startswith(LOCATION_RULE_PREFIXES)}
            )
        )
        inputs = (snap.raw, snap.project_id, snap.source, *(x for c in stale for x in c), sync)
        if len(inputs) == len(self._inputs) and all(
            a is b if isinstance(a, dict) else a == b
            for a, b in zip(inputs, self._inputs, strict=True)
        ):
            return self._offer
        self._inputs, self._offer = inputs, self._plan(snap, snap.raw, stale, sync)
        return self._offer

    @staticmethod
    def _plan(
        snap: Snapshot,
        now: dict[str, Any],
        stale: list[tuple[Any, ...]],
        sync: tuple[str, ...],
    ) -> RepairOffer | None:
        if not (stale or sync):
            return None  # nothing to repair: the planner stays unloaded
        from .decide.codec import deep_room
        from .decide.plans import plan_locations, plan_stale_write

        with deep_room():  # a state nested as deep as the reader takes (codec.MAX_NESTING)
            for before, rules in stale:
                plan = plan_stale_write(before, now)
                if plan is not None and plan.stale:  # (not: the file only moved on since)
                    return RepairOffer(plan, rules, snap.source, snap.project_id)
            if sync:
                plan = plan_locations(now)
                if plan is not None:
                    return RepairOffer(plan, sync, snap.source, snap.project_id)
        return None
