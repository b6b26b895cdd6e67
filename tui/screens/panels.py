"""Screens 2-6: Hook activity, Timeline, History, TDD, Plugins.

Each is an :class:`~tui.screens.base.UpdateScreen`: the app calls ``show_update(update)`` with
every :class:`~core.session.SessionUpdate` (buffered and merged until the screen is first
mounted). Each currently renders a compact plain-text summary of its data into one ``Static``
(``#panel-body``, ``markup=False``), or explains that there is no data yet. The lead replaces
:meth:`compose_body` / :meth:`apply_update` with the dedicated widget (widgets/hooklog_view.py,
diff_view.py, history_view.py, tdd_board.py); the data each needs is named in its docstring.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from core.session import SessionUpdate, TimelineEntry
from widgets.status_bar import clock_text

from .base import UpdateScreen

Part = Content | str | tuple[str, str]


class PanelScreen(UpdateScreen):
    """A titled scrolling body with one Static."""

    EMPTY = "Nothing to show yet."

    def compose_body(self) -> Iterable[Widget]:
        with VerticalScroll(id="panel") as scroll:
            scroll.border_title = self.TITLE
            yield Static(Content(self.EMPTY), id="panel-body", markup=False)

    @property
    def body_text(self) -> str:
        return str(self.query_one("#panel-body", Static).render())

    def set_body(self, content: Content) -> None:
        self.query_one("#panel-body", Static).update(content)


def _lines(rows: Iterable[list[Part]]) -> Content:
    parts: list[Part] = []
    for i, row in enumerate(rows):
        if i:
            parts.append("\n")
        parts.extend(row)
    return Content.assemble(*parts)


class HookActivityScreen(PanelScreen):
    """Key ``2``. Data: ``update.hook_records`` (NEW records, a delta: append them),
    ``hook_tail`` (rotated/truncated/reset/missing/error), ``hook_stats``, ``hook_findings``."""

    NAME = "hooks"
    TITLE = "Hook activity"
    EMPTY = "No hook activity yet: .isdlc/hook-activity.log is missing or empty."
    KEEP = 200

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.records: deque = deque(maxlen=self.KEEP)
        self.total = 0

    def apply_update(self, update: SessionUpdate) -> None:
        self.records.extend(update.hook_records)
        self.total += len(update.hook_records)
        stats = update.hook_stats or {}
        if not self.total and not stats.get("total"):
            self.set_body(Content(self.EMPTY))
            return
        by_event = stats.get("by_event", {})
        rows: list[list[Part]] = [
            [
                ("records ", "bold"),
                str(self.total),
                ("   by event ", "bold"),
                Content(", ".join(f"{k} {v}" for k, v in list(by_event.items())[:8])),
            ]
        ]
        for f in update.hook_findings[:5]:
            rows.append([(f"{f.rule_id} ", "bold $warning"), Content(f.message)])
        rows.append([("latest", "bold")])
        for r in list(self.records)[-15:][::-1]:
            rows.append(
                [
                    Content(r.ts or "—"),
                    "  ",
                    (r.event or "?", "bold"),
                    "  ",
                    Content(r.hook or "—"),
                    "  ",
                    Content(r.phase or ""),
                    "  ",
                    Content(" ".join((r.reason or r.error or "").split())[:160]),
                ]
            )
        self.set_body(_lines(rows))


class TimelineScreen(PanelScreen):
    """Key ``3``. Data: ``update.timeline`` (entries APPENDED, a delta: every distinct state
    content with time, state_version, changed field paths, transition findings and, for recent
    entries, the raw document for diffs), ``timeline_total``."""

    NAME = "timeline"
    TITLE = "Timeline"
    EMPTY = "No state version observed yet in this session."
    KEEP = 2000

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.entries: deque[TimelineEntry] = deque(maxlen=self.KEEP)

    def apply_update(self, update: SessionUpdate) -> None:
        self.entries.extend(update.timeline)
        pid = update.snapshot(self.project_id)
        wanted = pid.project_id if pid is not None else ""
        mine = [e for e in self.entries if e.project_id == wanted]
        if not mine:
            self.set_body(Content(self.EMPTY))
            return
        rows: list[list[Part]] = []
        for e in mine[-40:][::-1]:
            changed = ", ".join(e.changed[:6]) + (" …" if len(e.changed) > 6 else "")
            row: list[Part] = [
                (clock_text(e.at), "$text-muted"),
                "  ",
                (f"v{e.state_version}", "bold"),
                "  ",
                ("first observation" if e.initial else "", "$text-muted"),
                Content(changed),
            ]
            if e.own:
                row.append(("  (ours)", "$success"))
            for f in e.findings:
                row += ["\n      ", (f"⟲ {f.rule_id} ", "bold $error"), Content(f.message)]
            rows.append(row)
        self.set_body(_lines(rows))


class HistoryScreen(PanelScreen):
    """Key ``4``. Data: ``update.snapshot(project_id).state.workflow_history`` (full state)."""

    NAME = "history"
    TITLE = "History"
    EMPTY = "No finished workflow in workflow_history yet."

    def apply_update(self, update: SessionUpdate) -> None:
        snap = update.snapshot(self.project_id)
        history = snap.state.workflow_history if snap is not None else []
        if not history:
            self.set_body(Content(self.EMPTY))
            return
        rows: list[list[Part]] = []
        for h in reversed(history):
            rows.append(
                [
                    (h.status or "?", "bold"),
                    "  ",
                    Content(h.type or "?"),
                    "  ",
                    Content(h.artifact_folder or "—"),
                    "  ",
                    Content(h.completed_at or h.cancelled_at or h.started_at or ""),
                    "  ",
                    Content(" ".join((h.description or "").split())[:100]),
                ]
            )
        self.set_body(_lines(rows))


class TddScreen(PanelScreen):
    """Key ``5``. Data: ``update.tdd_plan`` (``core.tdd.TddPlan`` or None), ``tdd_findings``
    (full state; ``tdd_changed`` says it was re-read)."""

    NAME = "tdd"
    TITLE = "TDD"
    EMPTY = "No TDD plan: .tdd-progress.md is not in this project."

    def apply_update(self, update: SessionUpdate) -> None:
        plan = update.tdd_plan
        if plan is None:
            self.set_body(Content(self.EMPTY))
            return
        rows: list[list[Part]] = [
            [("task ", "bold"), Content(getattr(plan, "task", None) or "—")],
            [
                ("approved ", "bold"),
                "yes" if getattr(plan, "is_approved", False) else ("no", "bold $warning"),
                ("   slices ", "bold"),
                str(len(getattr(plan, "slices", []) or [])),
            ],
        ]
        for s in (getattr(plan, "slices", []) or [])[:30]:
            rows.append([Content(str(getattr(s, "label", "") or getattr(s, "name", "")))])
        for f in update.tdd_findings[:10]:
            rows.append([(f"{f.rule_id} ", "bold $warning"), Content(f.message)])
        self.set_body(_lines(rows))


class PluginsScreen(PanelScreen):
    """Key ``6``. Data: ``update.registry`` (``core.plugins.Registry`` or None) and
    ``plugin_findings`` (full state; ``plugins_changed`` says it was re-read)."""

    NAME = "plugins"
    TITLE = "Plugins"
    EMPTY = "No plugin registry: PLUGINS.md and plugins/*/ are not in this project."

    def apply_update(self, update: SessionUpdate) -> None:
        registry = update.registry
        plugins = list(getattr(registry, "plugins", []) or []) if registry is not None else []
        if registry is None or (not plugins and not update.plugin_findings):
            self.set_body(Content(self.EMPTY))
            return
        rows: list[list[Part]] = [
            [
                ("layout ", "bold"),
                Content(str(getattr(registry, "layout", "?"))),
                ("   plugins ", "bold"),
                str(len(plugins)),
            ]
        ]
        for p in plugins[:40]:
            rows.append([Content(str(getattr(p, "name", "?")))])
        for f in update.plugin_findings[:10]:
            rows.append([(f"{f.rule_id} ", "bold $warning"), Content(f.message)])
        self.set_body(_lines(rows))
