"""The Overview header: project, workflow, artifact folder, elapsed time, version, budget,
supervised mode and an attention badge when a review gate or escalations wait.

Plain data in (a :class:`~core.snapshot.Snapshot` and the current time); the text is built as
``Content`` from plain strings (theme variables for colours, never markup from the file).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from phasewatch.core.protocol import parse_iso
from textual.content import Content

from ._clocked import ClockedStatic
from ._style import plain_content

if TYPE_CHECKING:
    from phasewatch.core.snapshot import Snapshot

Part = Content | str | tuple[str, str]


def format_elapsed(seconds: float | None, *, short: bool = False) -> str:
    """The one duration formatter (header, pipeline, history, console): days, hours, minutes,
    seconds, the two largest units that matter. ``short`` drops the spaces and the seconds
    past ten minutes, for narrow cells: ``45s``, ``2m30s``, ``12m``, ``3h07m``, ``270d12h``
    (long: ``12m 05s``, ``3h 07m 05s``, ``270d 12h 03m``)."""
    if seconds is None:
        return "—"
    seconds = round(seconds)
    if seconds < 0:
        return "-" + format_elapsed(-seconds, short=short)
    d, rest = divmod(seconds, 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    if short:
        if d:
            return f"{d}d{h:02d}h"
        if h:
            return f"{h}h{m:02d}m"
        if m >= 10:
            return f"{m}m"
        return f"{m}m{s:02d}s" if m else f"{s}s"
    if d:
        return f"{d}d {h:02d}h {m:02d}m"
    if h:
        return f"{h}h {m:02d}m {s:02d}s"
    return f"{m}m {s:02d}s"


def format_minutes(minutes: float | None) -> str:
    """``minutes`` (a ``wall_clock_minutes``-like field) in :func:`format_elapsed`'s short form;
    ``?`` when unknown."""
    return "?" if minutes is None else format_elapsed(minutes * 60, short=True)


def elapsed_since(started: str | None, now: datetime) -> float | None:
    moment = parse_iso(started)
    return None if moment is None else (now - moment).total_seconds()


def attention_parts(snap: Snapshot | None, plan_waiting: bool = False) -> list[Part]:
    """Badges for what waits for a human: the review gate (presented or under review), the
    number of pending escalations and an unapproved TDD plan (``w`` lists them all)."""
    parts: list[Part] = []
    if snap is None:
        return [(" ⚑ PLAN NOT APPROVED ", "bold reverse $warning")] if plan_waiting else []
    wf = snap.workflow
    review = wf.supervised_review if wf is not None else None
    if review is not None and review.status == "gate_presented":
        parts += [(" ⚑ REVIEW GATE ", "bold reverse $warning"), " ", Content(review.phase or "?")]
    elif review is not None and review.status == "reviewing":
        parts += [(" ⚑ UNDER REVIEW ", "bold reverse $warning"), " ", Content(review.phase or "?")]
    escalations = len(snap.state.pending_escalations)
    if escalations:
        if parts:
            parts.append("  ")
        label = f" ⚑ {escalations} ESCALATION{'S' if escalations != 1 else ''} "
        parts.append((label, "bold reverse $error"))
    if plan_waiting:
        if parts:
            parts.append("  ")
        parts.append((" ⚑ PLAN NOT APPROVED ", "bold reverse $warning"))
    return parts


def header_content(
    snap: Snapshot | None,
    now: datetime,
    fallback_name: str = "",
    plan_waiting: bool = False,
    hint: str = "",
) -> Content:
    """Two lines; without an iSDLC state (``snap`` None) the second is ``hint``: where the
    project's other data is, or how to see phasewatch at work."""
    if snap is None:
        waiting: list[Part] = ["   ", *attention_parts(None, plan_waiting)] if plan_waiting else []
        hinted: list[Part] = ["\n", (hint, "$text-accent")] if hint else []
        return Content.assemble(
            ("◆ ", "bold $primary"),
            plain_content(fallback_name or "phasewatch"),
            ("  no .isdlc/state.json", "$text-muted"),
            *waiting,
            *hinted,
        )
    state = snap.state
    wf = snap.workflow
    name = (state.project.name if state.project and state.project.name else None) or fallback_name
    name_part = plain_content(name or "(unnamed project)").stylize("bold")
    line1: list[Part] = [("◆ ", "bold $primary"), name_part]
    if snap.project_id:  # a directory name
        line1 += [("  project ", "$text-muted"), plain_content(snap.project_id)]
    if wf is None:
        line1.append(("  no active workflow", "$text-muted"))
    else:
        line1 += [
            "  ",
            (wf.type or "?", "bold $secondary"),
            "  ",
            Content(wf.artifact_folder or "—"),
        ]
    badge = attention_parts(snap, plan_waiting)
    if badge:
        line1 += ["   ", *badge]
    line2: list[Part] = [
        ("v", "$text-muted"),
        (str(snap.version if snap.version is not None else "—"), "bold"),
    ]
    if wf is not None:
        line2 += [
            ("  elapsed ", "$text-muted"),
            (format_elapsed(elapsed_since(wf.started_at, now)), "bold"),
        ]
        budget = wf.budget_status
        style = {"on_track": "$success", "approaching": "$warning", "exceeded": "bold $error"}.get(
            budget or "", "$text-muted"
        )
        line2 += [("  budget ", "$text-muted"), (budget or "—", style)]
    mode = state.supervised_mode
    on = mode is not None and mode.enabled is True
    line2 += [("  supervised ", "$text-muted"), ("on" if on else "off", "bold" if on else "")]
    if wf is not None and wf.description:
        desc = " ".join(wf.description.split())
        line2 += [("  │ ", "$text-muted"), Content(desc)]
    return Content.assemble(*line1, "\n", *line2)


class OverviewHeader(ClockedStatic):
    """Two lines; :meth:`show` sets the data, :meth:`tick` only moves the clock."""

    DEFAULT_CSS = """
    OverviewHeader { height: 2; padding: 0 1; background: $boost; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._fallback = ""
        self._plan_waiting = False
        self._hint = ""

    def show(
        self,
        snap: Snapshot | None,
        now: datetime,
        fallback_name: str = "",
        plan_waiting: bool = False,
        hint: str = "",
    ) -> None:
        self._snap, self._now, self._fallback = snap, now, fallback_name
        self._plan_waiting, self._hint = plan_waiting, hint
        self._render_now()

    def content_at(self, now: datetime) -> Content:
        return header_content(self._snap, now, self._fallback, self._plan_waiting, self._hint)
