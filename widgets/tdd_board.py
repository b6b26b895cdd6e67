"""The TDD plugin's ``.tdd-progress.md`` as a board: task header, approval state, slices, and the
true remaining count next to what the plugin's stop hook would decide.

Takes a parsed plan (``core.tdd.TddPlan``) and derives both numbers from it (the plan carries the
hook's verdict, ``plan.hook``), so every screen showing the board shows the same computation;
never reads the file. Every string is file text and goes in as ``rich.text.Text``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from phasewatch.core.findings import Finding, sort_findings
from phasewatch.core.tdd.hook import StopHookView
from phasewatch.core.tdd.model import TddPlan
from phasewatch.core.tdd.summary import true_remaining as count_remaining
from phasewatch.core.text import shorten
from phasewatch.widgets._table import LiveTable
from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ._style import theme_styles

#: A status's glyph and colour role in ``_style.theme_styles`` (the app's theme: dark and light).
STATUS_GLYPH = {
    "pending": ("○", "muted"),
    "in_progress": ("◐", "warning"),
    "done": ("●", "success"),
    "pass": ("✓", "success"),
    "fail": ("✗", "error"),
    "skip": ("↷", "muted"),
    "unknown": ("?", "info"),
}
CYCLE = ("RED", "GREEN", "REFACTOR")
#: Slices held in the table at most: a real plan has a few dozen; a file at the read cap can
#: hold 125,000, which no one reads on a screen and which cost 78 s and 539 MB as rows
#: (docs/performance.md#files-at-their-read-caps). The rest are counted, not shown.
ROWS_SHOWN = 1000


def status_cell(status: str | None, raw: str | None, styles: dict[str, Style]) -> Text:
    word = status or "unknown"
    glyph, role = STATUS_GLYPH.get(word, STATUS_GLYPH["unknown"])
    style = styles[role]
    text = Text(f"{glyph} ", style=style)
    text.append(word.replace("_", " "), style=style)
    if word == "unknown" and raw:
        text.append(f" ({shorten(raw, 20)})", style="dim")
    return text


#: How plans write "no slice" in Depends on / Blocks: shown as the one dash for nothing.
_NOTHING = frozenset({"none", "n/a", "-", "—", "nothing", ""})


def _numbers(values: Any, raw: Any) -> str:
    if isinstance(values, list | tuple) and values:
        return ", ".join(str(v) for v in values)
    text = str(raw).strip() if raw else ""
    return "—" if text.strip("*_ .").lower() in _NOTHING else shorten(text, 24)


class TddBoard(Vertical):
    """Task header, approval banner, remaining counts, slice table and findings."""

    DEFAULT_CSS = """
    TddBoard {
        height: 1fr;
        & > #tdd-header { height: auto; padding: 0 1; }
        & > #tdd-approval { height: auto; padding: 0 1; text-style: bold; }
        & > #tdd-approval.-unapproved { background: $error; color: $text; }
        & > #tdd-approval.-approved { color: $text-success; }
        & > #tdd-counts { height: auto; padding: 0 1; }
        & > #tdd-counts.-mismatch { background: $warning-muted; }
        & > DataTable { height: 1fr; min-height: 4; }
        & > #tdd-more { height: auto; padding: 0 1; }
        & > #tdd-findings { height: auto; max-height: 8; padding: 0 1; }
    }
    """

    def __init__(
        self, *, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.plan: Any = None
        self.true_remaining: int | None = None
        self.hook: StopHookView | None = None
        self.findings: list[Finding] = []
        self.lock_present: bool | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="tdd-header", markup=False)
        yield Static("", id="tdd-approval", markup=False)
        yield Static("", id="tdd-counts", markup=False)
        yield LiveTable(id="tdd-slices", cursor_type="row", zebra_stripes=True)
        yield Static("", id="tdd-more", markup=False)
        yield Static("", id="tdd-findings", markup=False)

    def on_mount(self) -> None:
        table = self.table
        for label, key in (
            ("#", "number"),
            ("slice", "name"),
            ("status", "status"),
            ("RED", "RED"),
            ("GREEN", "GREEN"),
            ("REFACTOR", "REFACTOR"),
            ("depends", "depends"),
            ("blocks", "blocks"),
        ):
            table.add_column(label, key=key)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._refresh_all())
        self._refresh_all()

    @property
    def table(self) -> DataTable[Any]:
        return self.query_one("#tdd-slices", DataTable)

    @property
    def hook_remaining(self) -> int | None:
        """The hook's count as it acts on it (a negative count lets the session stop, like 0)."""
        return None if self.hook is None else max(0, self.hook.remaining)

    @property
    def counts_differ(self) -> bool:
        return (
            self.true_remaining is not None
            and self.hook_remaining is not None
            and self.true_remaining != self.hook_remaining
        )

    def set_plan(
        self,
        plan: TddPlan | None,
        *,
        findings: Sequence[Finding] = (),
        lock_present: bool | None = None,
    ) -> None:
        """Show ``plan`` (None: no progress file). ``lock_present`` defaults to the plan's
        ``lock_exists``."""
        self.plan = plan
        self.true_remaining = None if plan is None else count_remaining(plan)
        self.hook = None if plan is None else plan.hook
        self.findings = sort_findings(list(findings))
        if lock_present is None and plan is not None:
            lock_present = bool(getattr(plan, "lock_exists", False))
        self.lock_present = lock_present
        if self.is_mounted:
            self._refresh_all()

    # ----------------------------------------------------------------- render
    def _refresh_all(self) -> None:
        plan = self.plan
        styles = theme_styles(self.app)
        self.query_one("#tdd-header", Static).update(self._header_text(plan, styles))
        approval = self.query_one("#tdd-approval", Static)
        approval.update(self._approval_text(plan))
        approved = plan is not None and _approved(plan)
        approval.set_class(plan is not None and not approved, "-unapproved")
        approval.set_class(approved, "-approved")
        counts = self.query_one("#tdd-counts", Static)
        counts.update(self._counts_text(styles))
        counts.set_class(self.counts_differ, "-mismatch")
        self._render_slices(plan, styles)
        self.query_one("#tdd-findings", Static).update(self._findings_text(styles))

    @staticmethod
    def _header_text(plan: Any, styles: dict[str, Style]) -> Text:
        if plan is None:
            return Text("no .tdd-progress.md in this project", style="dim")
        text = Text()
        text.append("TDD task ", style="bold")
        text.append(str(getattr(plan, "task", None) or "(no task name)"))
        text.append("\nstatus ")
        status = getattr(plan, "header_status", None)
        raw = getattr(plan, "header_status_raw", None)
        text.append_text(
            status_cell(status, raw, styles) if status or raw else Text("—", style="dim")
        )
        text.append("   created ")
        text.append(str(getattr(plan, "created", None) or "—"))
        text.append("   last updated ")
        text.append(str(getattr(plan, "last_updated", None) or "—"))
        return text

    def _approval_text(self, plan: Any) -> Text:
        if plan is None:
            return Text("")
        text = Text()
        if _approved(plan):
            value = getattr(plan, "approved", None)
            text.append("✓ Approved")
            text.append(f" at {value}" if value else " (marker without a timestamp)")
        else:
            text.append("✗ NOT APPROVED: no slice should be implemented before approval")
            lookalike = getattr(plan, "approval_lookalike_line_no", None)
            if lookalike is not None:
                text.append(f"   (line {lookalike} looks like a marker, but the plugin's hook ")
                text.append("only accepts `**Approved:**` at the very start of a line)")
        if self.lock_present:
            text.append("   .tdd-plan-locked present")
            if _approved(plan):
                text.append(" (should have been removed on approval)")
        elif self.lock_present is False:
            text.append("   no lock file", style="dim")
        return text

    def _counts_text(self, styles: dict[str, Style]) -> Text:
        warn = styles["warning"]
        text = Text()
        text.append("remaining slices ", style="bold")
        text.append("?" if self.true_remaining is None else str(self.true_remaining), style="bold")
        text.append("   stop hook: ")
        if self.hook is None:
            text.append("?", style="bold")
            return text
        verb = "blocks the stop" if self.hook.blocks_stop else "lets the session stop"
        text.append(verb, style="bold")
        if not self.hook.approved:
            text.append(" (plan not approved)")
        text.append(", counts ")
        text.append(str(self.hook_remaining), style=warn if self.counts_differ else "bold")
        if self.counts_differ:
            text.append("   ⚠ DIFFERENT: ", style=warn)
            if not self.hook.approved:
                text.append("once the plan is approved, ", style=warn)
            text.append("the hook ", style=warn)
            assert self.true_remaining is not None and self.hook_remaining is not None
            if self.hook_remaining < self.true_remaining:
                text.append("would let the session stop with work left", style=warn)
            else:
                text.append("would keep the session going after the work is done", style=warn)
        elif self.true_remaining is not None and self.hook_remaining is not None:
            text.append("   (agree)", style="dim")
        return text

    def _render_slices(self, plan: Any, styles: dict[str, Style]) -> None:
        table = self.table
        row = table.cursor_row  # keep the user's place across a re-read of the file
        table.clear()
        slices = getattr(plan, "slices", None) or []
        more = self.query_one("#tdd-more", Static)
        more.update(_more_text(len(slices), getattr(plan, "cut_at", None)))
        more.display = len(slices) > ROWS_SHOWN or getattr(plan, "cut_at", None) is not None
        for i, s in enumerate(slices[:ROWS_SHOWN]):
            phases = getattr(s, "phases", None) or {}
            cycle = [Text(shorten(str(phases.get(p) or "—"), 12)) for p in CYCLE]
            table.add_row(
                Text(str(getattr(s, "number", "?"))),
                Text(shorten(str(getattr(s, "name", "") or ""), 34)),
                status_cell(getattr(s, "status", None), getattr(s, "status_raw", None), styles),
                *cycle,
                Text(_numbers(getattr(s, "depends_on", None), getattr(s, "depends_raw", None))),
                Text(_numbers(getattr(s, "blocks", None), getattr(s, "blocks_raw", None))),
                key=f"{i}:{getattr(s, 'number', '?')}",
            )
        if 0 < row < table.row_count:
            table.move_cursor(row=row, animate=False)

    def _findings_text(self, styles: dict[str, Style]) -> Text:
        text = Text()
        for i, f in enumerate(self.findings):
            if i:
                text.append("\n")
            text.append(f.rule_id, style=styles.get(str(f.severity), ""))
            text.append(" ")
            text.append(f.message)
        return text


def _more_text(total: int, cut_at: int | None) -> Text:
    """What the table leaves out: the slices past :data:`ROWS_SHOWN`, the bytes past the cap."""
    text = Text(style="bold")
    if total > ROWS_SHOWN:
        text.append(
            f"{total - ROWS_SHOWN:,} more slices not shown (the first {ROWS_SHOWN:,} of "
            f"{total:,}; the counts above are over all of them)"
        )
    if cut_at is not None:
        text.append("\n" if total > ROWS_SHOWN else "")
        text.append(
            f"the file is over the read cap: slices are read from its first {cut_at:,} bytes "
            "(the stop hook's verdict is on the whole file)"
        )
    return text


def _approved(plan: Any) -> bool:
    value = getattr(plan, "is_approved", None)
    if isinstance(value, bool):
        return value
    return getattr(plan, "approved", None) is not None
