"""The ``.continue-here.md`` handoff against the registry (docs/formats.md#drift)."""

from __future__ import annotations

from ..checks import Emitter
from ..findings import Severity
from ._ctx import Ctx
from .entry import label_stage
from .handoff import ContinueHere
from .model import registry_date
from .rules import R_CH_ABSENT, R_CH_DATE_DRIFT, R_CH_STALE, R_STAGE_DRIFT
from .status import Status


def _open(c: Ctx) -> tuple[ContinueHere, Status] | None:
    """The handoff and the registry status, when both can be compared."""
    ch, status = c.rec.handoff, c.rec.status
    if ch is None or ch.front_matter is None or status is None:
        return None
    return ch, status


def _drifted(em: Emitter, c: Ctx, field: str, value: object, expected: object) -> None:
    """The handoff's ``field`` (stage/phase) is not where the registry says the plugin is."""
    reg = c.rec.status.display if c.rec.status else "?"
    label = str(value) if isinstance(value, str) and field == "stage" else f"{field} {value}"
    c.flag(
        em,
        ("stage", reg, f"{field}: {value}", f"{field} differs"),
        R_STAGE_DRIFT,
        f"front_matter.{field}",
        f"{c.name}: .continue-here.md is at {label}, the registry says {reg!r}.",
        expected=expected,
        actual=value,
    )


def _stage_drift(em: Emitter, c: Ctx, ch: ContinueHere, status: Status) -> None:
    if ch.stage is None:
        if ch.stage_marker is not None:
            _drifted(em, c, "stage", ch.stage_marker, status.stage)
    elif ch.stage != status.stage:
        _drifted(em, c, "stage", ch.stage, status.stage)
    elif status.phase and ch.phase and status.phase != ch.phase:
        _drifted(em, c, "phase", ch.phase, status.phase)


def _ideated_drift(em: Emitter, c: Ctx, ch: ContinueHere, status: Status) -> None:
    """Registry still Ideated: only an ideation handoff or a Stage 0 in progress agrees."""
    if ch.stage is None or (ch.stage == 0 and ch.status == "in_progress"):
        return
    if status.label and label_stage(status.label) == str(ch.stage):
        return  # "💡 Ideated (Paused at Stage 2)" with a stage-2 handoff: what the label says
    reg = status.display
    message = (
        f"{c.name}: the registry says {reg!r} but .continue-here.md is at stage {ch.stage} "
        f"({ch.status})."
    )
    cell = ("stage", reg, f"stage: {ch.stage}", "registry still says Ideated")
    expected = "no handoff yet (or 🚧 Stage 0 in the registry)"
    severity = Severity.INFO if ch.stage == 0 else None
    c.flag(
        em,
        cell,
        R_STAGE_DRIFT,
        "front_matter.stage",
        message,
        expected=expected,
        actual=ch.stage,
        severity=severity,
    )


def check_handoff_stage(em: Emitter, c: Ctx) -> None:
    """The handoff's stage/phase is the registry's (docs/formats.md#drift)."""
    pair = _open(c)
    if pair is None:
        return
    ch, status = pair
    if status.kind == "stage":
        _stage_drift(em, c, ch, status)
    elif status.kind == "ideated":
        _ideated_drift(em, c, ch, status)


def check_handoff_closed(em: Emitter, c: Ctx) -> None:
    """Working/Installed: the handoff is gone (docs/formats.md#stage-numbering) or says
    workflow_complete (the contract)."""
    pair = _open(c)
    if pair is None or pair[1].kind not in ("working", "installed"):
        return
    ch, status = pair
    contract = c.rec.numbering != "current-0-3"
    if status.kind == "working" and ch.status == "workflow_complete" and contract:
        return
    seed_allows = status.kind == "working" and contract
    reg = status.display
    c.flag(
        em,
        ("handoff", reg, f"status: {ch.status}", "handoff still present"),
        R_CH_STALE,
        "front_matter.status",
        f"{c.name}: the registry says {reg!r} but .continue-here.md is still here "
        f"(stage {ch.stage_label}, {ch.status}).",
        expected="workflow_complete (or no handoff)" if seed_allows else "no .continue-here.md",
        actual=ch.status,
        severity=None if ch.status == "in_progress" else Severity.INFO,
    )


def check_handoff_date(em: Emitter, c: Ctx) -> None:
    pair = _open(c)
    if pair is None:
        return
    ch = pair[0]
    ld = registry_date(c.rec)
    cd = ch.last_updated.value if ch.last_updated else None
    if ld is None or cd is None or ld == cd:
        return
    newer = "the handoff is newer" if cd > ld else "the registry is newer"
    c.flag(
        em,
        ("last_updated", ld, cd, newer),
        R_CH_DATE_DRIFT,
        "front_matter.last_updated",
        f"{c.name}: .continue-here.md last_updated {cd.isoformat()}, registry {ld.isoformat()} "
        f"({newer}).",
        expected=ld.isoformat(),
        actual=cd.isoformat(),
    )


def check_handoff_absent(em: Emitter, c: Ctx) -> None:
    rec, status = c.rec, c.rec.status
    if rec.handoff is not None or status is None or status.kind != "stage" or rec.directory is None:
        return
    if status.stage == 0 and rec.numbering != "current-0-3":
        return
    em.add(
        R_CH_ABSENT,
        "$",
        f"{c.name}: the registry says {status.display!r} but there is no handoff to resume from.",
        source=f"plugins/{rec.directory}/.continue-here.md",
        expected=".continue-here.md",
        actual="missing",
    )


HANDOFF_CHECKS = (
    check_handoff_stage,
    check_handoff_closed,
    check_handoff_date,
    check_handoff_absent,
)
