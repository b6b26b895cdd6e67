"""The supervised review console: navigation and presentation. One :class:`ReviewConsole`
object, held by the app as ``app.review`` and handed to every console screen it opens (typed,
no ``getattr``); every decision's logic is its :class:`~tui.decisions.DecisionService`
(``self.decisions``), which imports no screen and no textual.

Announcing, never deciding: after every :class:`~core.session.SessionUpdate` the app calls
:meth:`ReviewConsole.update`. A newly presented gate (``GateView.key`` = project, workflow
identity, phase, redo count) or a new escalation rings the bell and shows one short toast; the
footer and the attention queue (``w``) offer it. Nothing is pushed over the screen the user is
on and focus never moves: typing into a search box while a gate arrives stays typing. The user
opens the gate panel (``g``), the escalations (``e``) or the plan (``a``); there a deciding key
pressed within :data:`ARM_DELAY_S` of the panel appearing (or of what it decides on changing)
does nothing (:class:`KeyGuard`).

Writing: every decision goes through :meth:`ReviewConsole.submit`, which asks the service to
admit it (read-only mode and a look already in flight are refused there), runs the write in a
thread worker and posts :class:`DecisionDone` to the screen that asked (it bubbles to the app,
which hands it back to :meth:`ReviewConsole.finish`). What the service makes of the answer is
shown here: applied -> a toast, the watcher is told the write was ours and the file is watched
:attr:`ReviewConsole.confirm_seconds` more (``core.confirm``; an owner write that puts the old
content back is REVERTED: an error toast and the bell). Anything else -> an error toast and a
:class:`~tui.screens.dialogs.RefusalDialog`. A second press on what we already applied a
decision to is answered "already applied" without writing.

Repair (docs/formats.md#repair): when the shown state has a stale write or location drift that
:func:`core.review.repair_offer` can plan, ``x`` opens its preview
(:class:`~tui.screens.dialogs.RepairDialog`); only its explicit ``W`` submits the plan, and never
while another decision or repair is being written. The confirm watch then says whether the
repair was kept or reverted; ``z`` undoes it (``core.decide.undo_repair``, refused once anyone
wrote after it). A repair refused because its file moved is planned again and its new preview
shown at the next update. Nothing repairs by itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from phasewatch.core.notify import Event, Notifier
from phasewatch.core.systems import TDD
from phasewatch.core.text import clean, shorten
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message_pump import MessagePump
from textual.notifications import SeverityLevel
from textual.screen import Screen

from .bindings import refresh_bindings_if_changed
from .decisions import Decision, DecisionService, Notice, Seen, Undoable
from .messages import DecisionDone, DecisionKept, DecisionReverted
from .screens import CONSOLE_SCREENS, load
from .screens.console_base import ConsoleScreen, KeyGuard

if TYPE_CHECKING:
    from phasewatch.core import decide
    from phasewatch.core.review import AttentionItem, GateView, RepairOffer
    from phasewatch.core.session import SessionUpdate
    from phasewatch.core.snapshot import Snapshot
    from phasewatch.core.sources import FileStamp

    from .screens.review import GatePanel

#: A deciding key pressed this soon after its panel appeared (or its subject changed) is ignored.
ARM_DELAY_S = 0.5

#: App-level bindings (``app.action_console``). Each has a visible binding, shown in the footer
#: only when something waits there, and a hidden twin (``'any'``) that always works.
CONSOLE_BINDINGS: list[Binding] = [
    Binding("g", "console('gate')", "Review gate"),
    Binding("w", "console('attention')", "Waiting"),
    Binding("w", "console('attention', 'any')", "Waiting for a human", show=False),
    Binding("e", "console('escalations')", "Escalations"),
    Binding("e", "console('escalations', 'any')", "Escalations", show=False),
    Binding("a", "console('plan')", "Plan approval"),
    Binding("a", "console('plan', 'any')", "Plan approval", show=False),
    Binding("x", "console('repair')", "Repair…"),
    Binding("z", "console('undo-repair')", "Undo repair"),
]


OwnWrite = Callable[[Path, "FileStamp | None"], None]


def _review() -> Any:
    """:mod:`core.review` (what waits for a human), imported on first use: the first frame
    does not need it."""
    from phasewatch.core import review

    return review


def _is_screen(screen: object, where: str) -> bool:
    """``screen`` is the console screen at ``where`` ("module:Class"), without importing it."""
    cls = type(screen)
    return f"{cls.__module__}:{cls.__qualname__}" == where


def _gate_panel_class() -> type[GatePanel]:
    from .screens.review import GatePanel

    return GatePanel


class ReviewConsole:
    """See the module docstring. ``app`` is the dashboard; ``read_only`` refuses every write;
    ``clock`` is the app's wall clock (ages on screen); ``own_write(path, stamp)`` tells the
    watcher a change is ours."""

    def __init__(
        self,
        app: App[Any],
        *,
        read_only: bool,
        clock: Callable[[], datetime],
        own_write: OwnWrite,
        notifier: Notifier | None = None,
    ) -> None:
        self.app = app
        #: Desktop / command notifications when a human is needed (one per waiting item).
        self.notifier = notifier
        #: Every decision's logic (in flight, already applied, confirm, undo, replan).
        self.decisions = DecisionService(read_only=read_only)
        self.clock = clock
        self.own_write = own_write
        #: Monotonic clock and delay of the key guards (tests replace them).
        self.monotonic: Callable[[], float] = time.monotonic
        self.arm_delay = ARM_DELAY_S
        self.last_update: SessionUpdate | None = None
        self.project_id: str | None = None
        self.attention: list[AttentionItem] = []
        self._gate_announced: tuple[Any, ...] | None = None
        self._escalations_announced: set[str] = set()
        self._notify_timer: Any = None  # flushes the notifications the rate limit held
        #: The repair the shown state calls for (``x``), recomputed with every update.
        self.offer: RepairOffer | None = None

    # The service's state, as the screens and tests read it (one owner: the service).
    @property
    def read_only(self) -> bool:
        return self.decisions.read_only

    @property
    def confirm_seconds(self) -> float:
        """How long a decision's file is watched after ``applied`` (``core.confirm``)."""
        return self.decisions.confirm_seconds

    @confirm_seconds.setter
    def confirm_seconds(self, seconds: float) -> None:
        self.decisions.confirm_seconds = seconds

    @property
    def results(self) -> list[decide.DecisionResult]:
        return self.decisions.results

    @property
    def undoable(self) -> Undoable | None:
        """Our newest applied repair while it may still be undone (``z``)."""
        return self.decisions.undoable

    @property
    def _in_flight(self) -> set[Seen]:
        return self.decisions.in_flight

    @property
    def _applied(self) -> dict[Seen, decide.DecisionResult]:
        return self.decisions.applied

    def now(self) -> datetime:
        return self.clock()

    def key_guard(self) -> KeyGuard:
        return KeyGuard(lambda: self.monotonic(), lambda: self.arm_delay)

    # ------------------------------------------------------------------ reading
    def snapshot(self, update: SessionUpdate | None = None) -> Snapshot | None:
        update = update or self.last_update
        return update.snapshot(self.project_id) if update is not None else None

    def waiting_gate(self) -> GateView | None:
        snap = self.snapshot()
        if snap is None:  # no data yet (the footer asks before the core is imported)
            return None
        view = _review().gate_view(snap)
        return view if view is not None and view.waiting else None

    def gate_panel(self) -> GatePanel | None:
        stack = self.app.screen_stack
        if len(stack) < 2:  # only the data screen: no panel (and no need to import its module)
            return None
        panel_class = _gate_panel_class()
        return next((s for s in reversed(stack) if isinstance(s, panel_class)), None)

    # ------------------------------------------------------------------ updates
    def update(self, update: SessionUpdate | None, project_id: str | None) -> None:
        """Called by the app after every update (and after a project switch): refresh the open
        console screens and announce what newly waits. Never opens a panel."""
        if update is None:
            return
        self.last_update, self.project_id = update, project_id
        snap = self.snapshot(update)
        review = _review()
        view = review.gate_view(snap)
        self.attention = review.attention_items(snap, update.system(TDD).data)
        self.offer = update.offer(project_id)  # planned in the session's thread
        if self.decisions.updated(snap.version if snap is not None else None, self.offer):
            self.open_repair()  # a repair refused because the file moved: the new plan
        self._notify_waiting()
        panel = self.gate_panel()
        if panel is not None:
            panel.set_view(view)
        if (
            view is not None
            and view.status == "gate_presented"
            and view.key != self._gate_announced
        ):
            self._gate_announced = view.key
            verb = "view" if self.read_only else "decide"
            self._announce(f"Review gate {view.phase}: g to {verb}.", "warning")
        self._announce_escalations(snap)
        for screen in self.app.screen_stack:
            if isinstance(screen, ConsoleScreen):
                screen.show_data(update)
        refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)

    def _notify_waiting(self) -> None:
        """Hand what waits now (the last update's attention items) to the notifier, which
        notifies only what is new to it."""
        if self.notifier is not None:
            events = []
            for item in self.attention:
                summary = f"{item.title}: {item.detail}" if item.detail else item.title
                events.append(Event(item.kind, item.key, item.project_id, summary))
            self.notifier.notify_all(events)  # many new at once: one notification
            self._schedule_notifications()

    def _schedule_notifications(self) -> None:
        """Held notifications (the rate limit) go out when due: one timer at a time."""
        delay = None if self.notifier is None else self.notifier.due_in()
        if delay is not None and self._notify_timer is None:
            self._notify_timer = self.app.set_timer(max(delay, 0.05), self._flush_notifications)

    def _flush_notifications(self) -> None:
        self._notify_timer = None
        if self.notifier is not None:
            self.notifier.flush()
            self._schedule_notifications()

    def _announce(self, message: str, severity: SeverityLevel) -> None:
        """Bell and one short toast; focus and the screen stay where the user has them."""
        self.app.bell()
        self.app.notify(message, severity=severity, markup=False, timeout=6)

    def _announce_escalations(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        new = []
        for i, esc in enumerate(snap.state.pending_escalations):
            key = f"{snap.project_id}|{_review().escalation_key(i, esc)}"
            if key not in self._escalations_announced:
                self._escalations_announced.add(key)
                new.append(esc)
        if new:
            phases = shorten(clean(", ".join(sorted({str(e.phase or "?") for e in new}))), 60)
            verb = "view" if self.read_only else "answer"
            self._announce(f"{len(new)} escalation(s) at {phases}: e to {verb}.", "error")

    # ------------------------------------------------------------------ opening
    def can_open(self, name: str, always: bool, top: Screen[Any]) -> bool | None:
        """``check_action`` of the app's ``console(name)`` bindings."""
        if name == "gate":
            return self.waiting_gate() is not None
        if name == "repair":
            return self.offer is not None
        if name == "undo-repair":
            return self.undoable is not None
        where = CONSOLE_SCREENS.get(name)
        if where is None or _is_screen(top, where):
            return False  # already there
        return True if always else self._relevant(name)

    def _relevant(self, name: str) -> bool:
        kinds = {i.kind for i in self.attention}
        if name == "attention":
            return bool(self.attention)
        return {"escalations": "escalation", "plan": "plan"}.get(name) in kinds

    @staticmethod
    def _screen_class(name: str) -> type[ConsoleScreen] | None:
        where = CONSOLE_SCREENS.get(name)
        return None if where is None else load(where)

    def open(self, name: str, **kwargs: Any) -> None:
        """Open the console screen ``name`` (or the gate panel for ``"gate"``)."""
        if name == "gate":
            self.open_gate()
            return
        if name == "repair":
            self.open_repair()
            return
        if name == "undo-repair":
            self.open_undo()
            return
        cls = self._screen_class(name)
        top = self.app.screen
        if cls is None or (isinstance(top, cls) and not kwargs):
            return
        screen = cls(self, **kwargs)
        if isinstance(top, ConsoleScreen):
            self.app.switch_screen(screen)
        else:
            self.app.push_screen(screen)

    def open_gate(self) -> None:
        view = self.waiting_gate()
        if view is None or self.last_update is None:
            self.app.notify("No review gate is waiting.", markup=False, timeout=3)
            return
        panel = self.gate_panel()
        if panel is not None:
            if panel is not self.app.screen:
                self.app.notify("The gate panel is already open.", markup=False, timeout=3)
            return
        if isinstance(self.app.screen, ConsoleScreen):
            self.app.pop_screen()
        self.app.push_screen(_gate_panel_class()(self, view, self.last_update.project))

    def open_item(self, item: AttentionItem) -> None:
        """Open the panel or screen that answers ``item``."""
        if item.kind == "gate":
            self.open_gate()
        elif item.kind == "escalation":
            self.open("escalations", select=item.index)
        elif item.kind == "plan":
            self.open("plan")

    # ------------------------------------------------------------------ deciding
    def _show(self, notice: Notice) -> None:
        """A toast of the service's notice (its unset fields are the toast's defaults)."""
        options: dict[str, Any] = {}
        if notice.title is not None:
            options["title"] = notice.title
        if notice.severity is not None:
            options["severity"] = notice.severity
        options["markup"] = False
        if notice.timeout is not None:
            options["timeout"] = notice.timeout
        self.app.notify(notice.message, **options)

    def refuse_read_only(self, what: str) -> bool:
        """True (and a message) in read-only mode: the one check every write passes."""
        notice = self.decisions.refuse_read_only(what)
        if notice is not None:
            self._show(notice)
        return notice is not None

    def decide_gate(
        self, view: GateView, action: str, *, guidance: str | None = None, asker: MessagePump
    ) -> None:
        """Answer the review gate ``view`` shows (``seen`` = the document it came from)."""
        if self.last_update is not None:
            root = self.last_update.project.root
            self.submit(self.decisions.gate(root, view, action, guidance), asker)

    def decide_escalation(
        self, snap: Snapshot, action: str, *, reason: str | None = None, asker: MessagePump
    ) -> None:
        if self.last_update is not None:
            root = self.last_update.project.root
            self.submit(self.decisions.escalation(root, snap, action, reason), asker)

    def decide_plan(
        self, *, asker: MessagePump, plan_sha256: str | None, discard: bool = False
    ) -> None:
        """Approve the plan (or discard its lock). ``plan_sha256``: the digest of the plan the
        user looked at; an approval is refused by the writer when the file no longer has those
        bytes."""
        if self.last_update is not None:
            progress = self.last_update.project.tdd_progress
            self.submit(self.decisions.plan(progress, plan_sha256, discard=discard), asker)

    # ------------------------------------------------------------------ repairing
    def _busy(self, what: str) -> bool:
        """True (and a message) while any decision or repair is being written: a repair waits."""
        notice = self.decisions.busy(what)
        if notice is not None:
            self._show(notice)
        return notice is not None

    def open_repair(self) -> None:
        """The preview of :attr:`offer`; its explicit ``W`` applies it (:meth:`repair`)."""
        offer = self.offer
        if offer is None:
            self.app.notify("Nothing to repair.", markup=False, timeout=3)
            return
        from .screens.dialogs import RepairDialog

        def answered(write: bool | None) -> None:
            if write:
                self.repair(offer, asker=self.app.screen)

        dialog = RepairDialog(offer, read_only=self.read_only, guard=self.key_guard())
        self.app.push_screen(dialog, answered)

    def repair(self, offer: RepairOffer, *, asker: MessagePump) -> None:
        """Write ``offer``'s plan (the human confirmed it) through :meth:`submit`."""
        if self.last_update is None or self._busy(offer.plan.action):
            return
        self.submit(self.decisions.repair(self.last_update.project.root, offer), asker)

    def open_undo(self) -> None:
        """Ask, then put back what our newest repair replaced (``core.decide.undo_repair``)."""
        undoable = self.undoable
        if undoable is None:
            self.app.notify("No repair to undo.", markup=False, timeout=3)
            return
        plan = undoable.plan
        changes = plan.changes if plan is not None else ()
        lines = [f"Put back the {len(changes)} field(s) the repair wrote:"]
        from phasewatch.core.decide.codec import plain
        from phasewatch.core.diff import format_value

        lines += [
            f"  {c.label}: {format_value(plain(c.proposed))} -> {format_value(plain(c.current))}"
            for c in changes
        ]
        lines.append("Refused if anyone wrote to the file after the repair.")
        from .screens.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes and not self._busy("repair undo"):
                decision = self.decisions.undo()
                if decision is not None:
                    self.submit(decision, self.app.screen)

        dialog = ConfirmDialog(
            "Undo the repair?", "\n".join(lines), yes="Undo", guard=self.key_guard()
        )
        self.app.push_screen(dialog, answered)

    # ------------------------------------------------------------------ writing
    def submit(self, decision: Decision, asker: MessagePump) -> None:
        """Run ``decision`` in a thread worker, unless the service refuses it (read-only mode,
        or the same look in flight)."""
        begun = self.decisions.begin(decision)
        if isinstance(begun, Notice):
            self._show(begun)
            return
        self.app.run_worker(
            partial(self._write, decision, asker, begun),
            thread=True,
            group="decide",
            name=f"decide {decision.label}",
            exit_on_error=False,
        )

    def _repeated(self, decision: Decision, applied: decide.DecisionResult) -> None:
        """App thread: the same look pressed again, and the file still holds what we wrote."""
        self._show(self.decisions.repeated(decision, applied))

    def _write(
        self, decision: Decision, asker: MessagePump, applied: decide.DecisionResult | None
    ) -> None:
        """Worker thread: :meth:`DecisionService.write`, reported back as a message."""
        written = self.decisions.write(decision, applied)
        if written is None:
            assert applied is not None
            self.app.call_from_thread(self._repeated, decision, applied)
            return
        target = asker if asker.is_attached else self.app
        target.post_message(DecisionDone(decision, written.result, written.stamp))

    def finish(self, done: DecisionDone) -> None:
        """App thread: record the result, tell the watcher, toast or explain the refusal."""
        decision, result = done.decision, done.result
        finished = self.decisions.finish(decision, result)
        if finished.undo_changed:
            refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)
        if finished.watch and decision.own_path is not None:
            self.own_write(decision.own_path, done.stamp)
            self._watch_for_revert(decision, result)
        self._show(finished.notice)
        refusal = finished.refusal
        if refusal is not None:
            from .screens.dialogs import RefusalDialog

            dialog = RefusalDialog(refusal.title, refusal.message, refusal.summary, refusal.line)
            self.app.push_screen(dialog)

    def _watch_for_revert(self, decision: Decision, result: decide.DecisionResult) -> None:
        """Keep looking at the file for :attr:`confirm_seconds`: an owner that read it before
        our write and writes its old copy later undoes the decision, and the user is told."""
        superseded = self.decisions.watching(decision, result)
        if superseded is None:
            return
        app = self.app

        def stop() -> bool:
            return not app.is_running or superseded()

        def watch() -> None:
            confirmed = self.decisions.confirm(decision, result, stop)
            if confirmed is None:
                return
            verdict, watched = confirmed
            if verdict == "reverted":
                app.post_message(DecisionReverted(decision, watched))
            else:
                app.post_message(DecisionKept(decision, watched))

        app.run_worker(
            watch, thread=True, group="confirm", name=f"confirm {decision.label}",
            exit_on_error=False,
        )  # fmt: skip

    def reverted(self, message: DecisionReverted) -> None:
        """App thread: the decision is no longer in the file. Say so loudly (a toast and the
        bell, focus left where it is); pressing again decides again."""
        notice, changed = self.decisions.reverted(message.decision, message.result)
        if changed:
            refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)
        self.app.bell()
        self._show(notice)

    def kept(self, message: DecisionKept) -> None:
        """App thread: the repair's confirm window ended with the repair still in the file."""
        self._show(self.decisions.kept(message.decision, message.result))

    # ------------------------------------------------------------------ palette
    def commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand(
            "Waiting for a human",
            "Gates, escalations, unapproved plans (w)",
            partial(self.open, "attention"),
        )
        yield SystemCommand(
            "Escalations", "Pending escalations (e)", partial(self.open, "escalations")
        )
        yield SystemCommand(
            "Plan approval", "The TDD plan and its approval (a)", partial(self.open, "plan")
        )
        yield SystemCommand("Review gate", "Open the gate panel (g)", self.open_gate)
