"""The supervised review gate panel: a ``ModalScreen`` the user opens with ``g`` when a gate is
presented (a gate is announced, never opened over the screen by itself).

It shows the phase, its review summary (``.isdlc/reviews/phase-NN-summary.md``, read in a thread
by :func:`core.review.read_review_summary`, rendered as Markdown: :func:`summary_body`), the
phase's artifacts, timing
and findings. Keys: ``c`` Continue, ``r`` Review (pause), then ``u`` Resume; ``d`` Redo (asks for
guidance; hidden once ``redo_count`` reaches 3); Escape closes without deciding. Every decision
goes through the console service (:class:`tui.console.ReviewConsole`) to ``core.decide`` in a
thread worker, with ``seen=`` the state document this panel shows. Read-only mode hides every
decision key. The user opens the panel (``g``, or Enter on the gate in ``w``); a deciding key
within a moment of it appearing, or of the gate it shows changing, does nothing (KeyGuard).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core.protocol import MAX_REDOS
from phasewatch.core.review import GateView, read_review_summary, review_summary_path
from phasewatch.core.sources import Project
from phasewatch.core.text import clean
from phasewatch.widgets._style import plain_content
from phasewatch.widgets.footer import KeyFooter
from rich.console import RenderableType
from rich.markdown import Markdown
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..bindings import refresh_bindings_if_changed
from ..messages import DecisionDone
from .dialogs import TextPromptDialog

if TYPE_CHECKING:
    from phasewatch.core.decide import DecisionResult

    from ..console import ReviewConsole

DECISIONS = ("continue", "review", "resume")


def _minutes(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:g} min"


def gate_text(view: GateView, current: bool) -> Text:
    """Head of the panel: phase, status, redo count, version; timing; artifacts; findings."""
    text = Text()
    text.append("Phase ", style="bold")
    text.append(view.phase, style="bold")
    text.append("   status ")
    if current:
        text.append(view.status, style="bold reverse" if view.waiting else "bold")
    else:  # the status last seen would contradict the line below
        text.append("no longer waiting", style="bold")
    text.append(f"   redo {view.redo_count}/{MAX_REDOS}")
    text.append(f"   state v{view.version if view.version is not None else '—'}")
    if view.project_id:
        text.append("   project ")
        text.append(clean(view.project_id))  # a directory name
    if not current:
        text.append(
            "\n⚠ This gate is no longer waiting (decided elsewhere or the workflow moved on)."
        )
    text.append("\n")
    text.append("Timing ", style="bold")
    text.append(f"started {view.started or '—'}   completed {view.completed or '—'}")
    text.append(f"\n       wall clock {_minutes(view.wall_clock_minutes)}")
    text.append(f"   retries {view.retries if view.retries is not None else 0}")
    if view.retry_count:
        text.append(f"   retry_count {view.retry_count}")
    if view.paused_at:
        text.append(f"   paused {view.paused_at}")
    if view.phase_summary:
        text.append("\nSummary ", style="bold")
        text.append(view.phase_summary)
    text.append("\nArtifacts ", style="bold")
    text.append(", ".join(view.artifacts) if view.artifacts else "none recorded")
    if view.guidance:
        text.append("\nRedo guidance so far ", style="bold")
        for i, g in enumerate(view.guidance, 1):
            text.append(f"\n  {i}. ")
            text.append(g)
    text.append("\nFindings ", style="bold")
    if not view.findings:
        text.append("none for this phase", style="dim")
    for f in view.findings:
        text.append("\n  ")
        text.append(f.rule_id, style="bold")
        text.append(f" ({f.severity}) ")
        text.append(f.message)
    return text


class GatePanel(ModalScreen[None]):
    """See the module docstring. ``view`` is the gate as last seen; ``current`` says whether
    the newest state still has it waiting (decision keys are hidden otherwise)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "decide('continue')", "Continue"),
        Binding("r", "decide('review')", "Review (pause)"),
        Binding("u", "decide('resume')", "Resume (continue after review)"),
        Binding("d", "redo", "Redo…"),
        Binding("C", "decide('continue')", "Continue", show=False),
        Binding("R", "decide('review')", "Review", show=False),
        Binding("U", "decide('resume')", "Resume", show=False),
        Binding("D", "redo", "Redo", show=False),
        Binding("escape", "close", "Close"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, console: ReviewConsole, view: GateView, project: Project) -> None:
        super().__init__()
        self.console = console
        self.guard = console.key_guard()
        self.view = view
        self.project = project
        self.current = view.waiting
        self.summary_key: tuple[Any, ...] | None = None
        self.summary_text: str | None = None
        self.summary_loaded = False
        self.results: list[DecisionResult] = []
        self.decided_key: tuple[Any, ...] | None = None  # the presentation last decided on

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        with Vertical(id="gate") as box:
            box.border_title = "Supervised review gate"
            with VerticalScroll(id="gate-head-box"):
                yield Static("", id="gate-head", markup=False)
            with VerticalScroll(id="gate-summary-box") as summary:
                summary.border_title = "Review summary"
                yield Static(Text("loading…", style="dim"), id="gate-summary", markup=False)
            yield Static("", id="gate-note", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        self._render_view()

    def on_screen_resume(self) -> None:
        self.guard.arm()

    @property
    def text(self) -> str:
        """Everything the panel shows, as plain text (tests)."""
        parts = [gate_text(self.view, self.current).plain, self.summary_text or "", self._note()]
        return "\n".join(parts)

    # ------------------------------------------------------------------ data
    def set_view(self, view: GateView | None) -> None:
        """The newest gate of the shown project (None: no gate any more)."""
        if view is None:
            self.current = False
        else:
            if view.key != self.view.key:  # another presentation: keys typed for the old one
                self.guard.arm()
            self.view = view
            self.current = view.waiting
        if self.is_mounted:
            self._render_view()

    def _render_view(self) -> None:
        view = self.view
        self.query_one("#gate-head", Static).update(gate_text(view, self.current))
        self.query_one("#gate-note", Static).update(Text(self._note()))
        if self.summary_key != (view.phase, view.redo_count, view.status):
            self.summary_key = (view.phase, view.redo_count, view.status)
            self._load_summary(view.phase, self.summary_key)
        refresh_bindings_if_changed(self, self.BINDINGS)

    def _note(self) -> str:
        view = self.view
        if self.console.read_only:
            return "Read-only mode: decisions are disabled. Escape closes."
        if not self.current:
            return "Nothing to decide here now. Escape closes."
        keys = []
        if view.can_continue:
            keys.append("c continue")
        if view.can_review:
            keys.append("r review (pause)")
        if view.can_resume:
            keys.append("u resume")
        if view.can_redo:
            keys.append("d redo")
        elif view.waiting:
            keys.append(f"redo limit reached ({view.redo_count}/{MAX_REDOS})")
        return "   ".join(keys) + "   escape close (no decision)"

    @work(thread=True, exclusive=True, group="gate-summary", exit_on_error=False)
    def _load_summary(self, phase: str, key: tuple[Any, ...]) -> None:
        text = read_review_summary(self.project, phase)
        path = review_summary_path(self.project, phase)
        label = self.project.rel(path) if path is not None else "(no review summary file)"
        self.app.call_from_thread(self._show_summary, key, label, text)

    def _show_summary(self, key: tuple[Any, ...], label: str, text: str | None) -> None:
        if key != self.summary_key or not self.is_mounted:
            return
        self.summary_text = text
        self.summary_loaded = True
        box = self.query_one("#gate-summary-box")
        box.border_title = plain_content(f"Review summary · {label}")
        self.query_one("#gate-summary", Static).update(summary_body(label, text))

    # ------------------------------------------------------------------ actions
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action not in ("decide", "redo"):
            return True
        if self.console.read_only or not self.current:
            return False
        view = self.view
        if action == "redo":
            return bool(view.can_redo)
        what = parameters[0] if parameters else None
        allowed = {
            "continue": view.can_continue,
            "review": view.can_review,
            "resume": view.can_resume,
        }.get(str(what), False)
        return bool(allowed)

    def action_decide(self, action: str) -> None:
        if action not in DECISIONS or not self.check_action("decide", (action,)):
            self._refuse_key(action)
            return
        if self.guard.refuses(self):
            return
        self.decided_key = self.view.key
        self.console.decide_gate(self.view, action, asker=self)

    def action_redo(self) -> None:
        if not self.check_action("redo", ()):
            self._refuse_key("redo")
            return
        if self.guard.refuses(self):
            return
        view = self.view
        prompt = Text(
            f"Redo {view.phase} (redo {view.redo_count + 1}/{MAX_REDOS}): what should change? "
            "The guidance is recorded in the state and the phase re-runs."
        )

        def chosen(guidance: str | None) -> None:
            if guidance:
                self.decided_key = view.key
                self.console.decide_gate(view, "redo", guidance=guidance, asker=self)

        dialog = TextPromptDialog(f"Redo {view.phase}", prompt, "guidance for the re-run")
        self.app.push_screen(dialog, chosen)

    def _refuse_key(self, action: str) -> None:
        if self.console.read_only:
            why = "read-only mode"
        elif not self.current:
            why = "the gate is no longer waiting"
        else:
            why = f"not possible while the gate is {self.view.status!r}"
        self.app.notify(f"{action}: {why}.", severity="warning", markup=False, timeout=4)

    @on(DecisionDone)
    def _decided(self, done: DecisionDone) -> None:
        """Close after an applied continue/resume/redo, unless the panel meanwhile shows
        another presentation (the next gate arrived before the result). The message goes on
        to the app (toast, refusal dialog)."""
        result = done.result
        self.results.append(result)
        if (
            result.ok
            and not done.decision.label.endswith("review")
            and self.view.key == self.decided_key
            and self.is_current
        ):
            self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


def summary_body(label: str, text: str | None) -> RenderableType:
    """The review summary rendered as Markdown (headings, lists, tables, code) by Rich's parser,
    which never reads Textual markup; ``hyperlinks=False`` shows a link as text and its address,
    so nothing in the (untrusted, already cleaned) file is clickable."""
    if text is None:
        return Text(f"{label} is missing.", style="dim")
    return Markdown(text, hyperlinks=False)
