"""Overview (key ``1``): header, phase pipeline, the three-location matrix and the live findings.

Layout: header and pipeline on top; below, the location matrix and the findings side by side
when the terminal is wide (>= 120 columns), stacked in a scrolling body when it is narrow.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from phasewatch.core.findings import Severity
from phasewatch.core.systems import PLUGINS, TDD
from phasewatch.core.text import clean, shorten
from phasewatch.widgets.findings_list import FindingsList, Item, by_severity, events, standing
from phasewatch.widgets.header import OverviewHeader
from phasewatch.widgets.location_matrix import LocationMatrix
from phasewatch.widgets.pipeline import Pipeline
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget

from . import DATA_SCREENS
from .base import UpdateScreen

if TYPE_CHECKING:
    from phasewatch.core.session import RecentEvent, SessionUpdate
    from phasewatch.core.snapshot import Snapshot

WIDE = 150  # columns from which the matrix and the findings sit side by side
MAX_EVENTS_SHOWN = 50
NOTIFY_WIDTH = 90  # characters of a toast's text (two lines of a 48-column toast)
NOTIFY_SECONDS = 5


def screen_key(name: str) -> int:
    """The number key of the data screen ``name`` (its place in DATA_SCREENS)."""
    return list(DATA_SCREENS).index(name) + 1


def other_screen(update: SessionUpdate) -> str | None:
    """The data screen to open at start when the project has no iSDLC state but a TDD plan
    (``tdd``) or a plugin registry (``plugins``); None otherwise."""
    if update.project.states:
        return None
    if update.system(TDD).data is not None:
        return "tdd"
    if _has_registry(update):
        return "plugins"
    return None


def _has_registry(update: SessionUpdate) -> bool:
    registry = update.system(PLUGINS).data
    return registry is not None and bool(registry.plugins or registry.findings)


def other_data_hint(update: SessionUpdate) -> str:
    """What the overview says when there is no iSDLC state: which key shows the data there
    is, or how to see phasewatch at work."""
    if update.project.states:
        return ""
    found = []
    if update.system(TDD).data is not None:
        found.append(f"the TDD plan (press {screen_key('tdd')})")
    if _has_registry(update):
        found.append(f"the plugin registry (press {screen_key('plugins')})")
    if found:
        return "No iSDLC workflow here. See " + " and ".join(found) + "."
    return (
        "No workflow files here (.isdlc/, .tdd-progress.md, PLUGINS.md). "
        "To see phasewatch at work: phasewatch demo"
    )


class OverviewScreen(UpdateScreen):
    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self._shown_project: object = object()  # project the widgets currently show
        #: What the findings list was last made of (see :meth:`_findings_unchanged`).
        self._findings_from: tuple[object, ...] = ()
        self.notified: list[str] = []  # notifications sent (tests)

    def compose_body(self) -> Iterable[Widget]:
        yield OverviewHeader(id="header")
        yield Pipeline(id="pipeline")
        with VerticalScroll(id="overview-body"):
            with Vertical(id="left-pane") as left:
                left.border_title = "Where is the workflow? (3 locations)"
                yield LocationMatrix(id="matrix")
            with Vertical(id="right-pane") as right:
                right.border_title = "Findings"
                yield FindingsList(id="findings")

    def on_mount(self) -> None:
        self._layout(self.app.size.width)

    def on_resize(self) -> None:
        self._layout(self.size.width or self.app.size.width)

    def _layout(self, width: int) -> None:
        body = self.query_one("#overview-body")
        body.set_class(width >= WIDE, "wide")

    # ------------------------------------------------------------------ updates

    def apply_update(self, update: SessionUpdate) -> None:
        pid = self.project_id
        snap = update.snapshot(pid)
        now = self.now()
        switched = self._shown_project != pid
        first = switched or self.applied == 0
        self._shown_project = pid
        fallback = update.project.root.name
        plan = update.system(TDD).data
        plan_waiting = plan is not None and not getattr(plan, "is_approved", True)
        header = self.query_one("#header", OverviewHeader)
        header.show(snap, now, fallback, plan_waiting, other_data_hint(update))
        self.query_one("#pipeline", Pipeline).show(snap, now)
        self.query_one("#matrix", LocationMatrix).show(snap.rows if snap is not None else [])
        recent = update.events_for(pid)
        unchanged = self._findings_unchanged(update, snap, recent)  # (remembers them too)
        if unchanged and not first:
            return  # (a refresh of the hook log alone: 96,000 findings were listed again)
        findings = update.findings_for(pid)  # the config is applied by the session
        recent_items = events((e.seq, e.state_version, e.finding) for e in reversed(recent))
        items = by_severity(standing(findings) + recent_items[:MAX_EVENTS_SHOWN])
        flist = self.query_one("#findings", FindingsList)
        added = flist.show(items, emphasise_new=not first)
        # the standing findings and what the newest write itself did (its transition findings)
        newest = update.versions.get(snap.project_id) if snap is not None else None
        counts = {str(s): 0 for s in Severity}
        for f in [*findings, *(e.finding for e in recent if e.seq == newest)]:
            counts[str(f.severity)] += 1
        right = self.query_one("#right-pane")
        right.border_title = (
            f"Findings  ✖ {counts['error']}  ▲ {counts['warning']}  · {counts['info']}"
            + (f"  ⟲ {len(recent)} recent" if recent else "")
        )
        if not first:
            self._notify_new(added)

    def _findings_unchanged(
        self, update: SessionUpdate, snap: Snapshot | None, recent: list[RecentEvent]
    ) -> bool:
        """Whether the findings list would be made of the very same findings as last time:
        the same lists (the session replaces a list that changes, never edits it), the same
        systems' revisions, the same recent events (docs/performance.md#dashboard-size)."""
        inputs: tuple[object, ...] = (
            update.project.findings,
            snap.findings if snap is not None else None,
            update.hooks.findings,
            update.versions.get(snap.project_id) if snap is not None else None,
            *((name, view.rev) for name, view in update.systems.items()),
            *recent,
        )
        before, self._findings_from = self._findings_from, inputs
        return len(before) == len(inputs) and all(
            a is b or (isinstance(a, tuple | int) and a == b)
            for a, b in zip(before, inputs, strict=True)
        )

    def _notify_new(self, added: list[Item]) -> None:
        """One short toast for the new error and warning findings of an update (the list
        itself shows them in full, emphasised)."""
        loud = [i for i in added if i.finding.severity != Severity.INFO]
        if not loud:
            return
        errors = sum(1 for i in loud if i.finding.severity == Severity.ERROR)
        if len(loud) == 1:
            f = loud[0].finding
            title = clean(f"{'⟲ ' if loud[0].event is not None else ''}{f.rule_id}")
            text = shorten(f.message, NOTIFY_WIDTH)
        else:
            title = clean(f"{len(loud)} new findings" + (f" ({errors} errors)" if errors else ""))
            rules = dict.fromkeys(i.finding.rule_id for i in loud)
            text = shorten(", ".join(rules), NOTIFY_WIDTH)
        self.notified.append(text)
        self.app.notify(
            text,
            title=title,
            severity="error" if errors else "warning",
            markup=False,
            timeout=NOTIFY_SECONDS,
        )

    def tick(self, now: datetime) -> None:
        if not self.is_mounted:
            return
        self.query_one("#header", OverviewHeader).tick(now)
        self.query_one("#pipeline", Pipeline).tick(now)

    def project_changed(self) -> None:
        if self.last_update is not None and self.is_mounted:
            self._apply(self.last_update)
