"""The supervised review console as a service: one :class:`ReviewConsole` object, held by the
app as ``app.review`` and handed to every console screen it opens (typed, no ``getattr``).

Announcing, never deciding: after every :class:`~core.session.SessionUpdate` the app calls
:meth:`ReviewConsole.update`. A newly presented gate (``GateView.key`` = project, workflow
identity, phase, redo count) or a new escalation rings the bell and shows one short toast; the
footer and the attention queue (``w``) offer it. Nothing is pushed over the screen the user is
on and focus never moves: typing into a search box while a gate arrives stays typing. The user
opens the gate panel (``g``), the escalations (``e``) or the plan (``a``); there a deciding key
pressed within :data:`ARM_DELAY_S` of the panel appearing (or of what it decides on changing)
does nothing (:class:`KeyGuard`).

Writing: every decision goes through :meth:`ReviewConsole.submit`, the one place read-only mode
is enforced (the flag is a required constructor argument: there is no default to fail open
to). The writer (``core.decide``) runs in a thread worker with ``seen=`` what the user looked
at; the worker posts :class:`DecisionDone` to the screen that asked (it bubbles to the app,
which hands it back to :meth:`ReviewConsole.finish`). Applied -> a toast and the watcher is told
the write was ours; then the file is watched :attr:`ReviewConsole.confirm_seconds` more
(``core.confirm``), and an owner write that puts the old content back is reported REVERTED (an
error toast and the bell, journaled). Anything else -> an error toast and a
:class:`~tui.screens.dialogs.RefusalDialog`. A second press on what we already applied a
decision to (the panel still shows the version before our write) is answered "already applied"
without writing: it is our own write, not a conflict.

Repair (docs/formats.md#repair): when the shown state has a stale write or location drift that
:func:`core.review.repair_offer` can plan, ``x`` opens its preview
(:class:`~tui.screens.dialogs.RepairDialog`); only its explicit ``W`` submits the plan, through
:meth:`ReviewConsole.submit` like any decision, and never while another decision or repair is
being written. The confirm watch then says whether the repair was kept or reverted; ``z`` undoes
it (``core.decide.undo_repair``, refused once anyone wrote after it). Nothing repairs by itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace
from phasewatch.core.confirm import DEFAULT_SECONDS, still_holds
from phasewatch.core.log import internal_failure
from phasewatch.core.notify import Event, Notifier
from phasewatch.core.systems import TDD
from phasewatch.core.text import clean, shorten
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message_pump import MessagePump
from textual.notifications import SeverityLevel
from textual.screen import Screen

from .bindings import refresh_bindings_if_changed
from .messages import Decision, DecisionDone, DecisionKept, DecisionReverted
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


def _digest(document: object) -> str:
    """Identity of the document a decision was taken on (two presses on one look share it)."""
    import hashlib  # (here: OpenSSL's loading is not the first frame's business)

    text = json.dumps(document, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _decide() -> Any:
    """:mod:`core.decide` (the writer), imported on first use, in the decision's worker (the
    ``write_*`` functions below): a dashboard that only watches never loads it
    (docs/performance.md#decisions)."""
    from phasewatch.core import decide

    return decide


# The writer's functions the console calls, typed, each importing its part of core.decide in the
# decision's worker thread (never on the UI thread): a Decision's ``call`` is one of these.


def write_review(
    path: Path, action: str, *, seen: dict[str, Any] | None, guidance: str | None
) -> decide.DecisionResult:
    from phasewatch.core.decide.review import decide_review

    return decide_review(path, action, guidance=guidance, seen=seen, via="tui")


def write_escalation(
    path: Path, action: str, *, seen: dict[str, Any] | None, reason: str | None
) -> decide.DecisionResult:
    from phasewatch.core.decide.escalation import decide_escalation

    return decide_escalation(path, action, reason=reason, seen=seen, via="tui")


def write_approval(
    progress: Path, *, discard: bool, expect_sha256: str | None
) -> decide.DecisionResult:
    from phasewatch.core.decide.approval import decide_approval

    return decide_approval(progress, discard=discard, expect_sha256=expect_sha256, via="tui")


def write_repair(path: Path, plan: decide.RepairPlan) -> decide.DecisionResult:
    from phasewatch.core.decide.repair import apply_repair

    return apply_repair(path, plan, via="tui")


def write_undo(path: Path) -> decide.DecisionResult:
    from phasewatch.core.decide.repair import undo_repair

    return undo_repair(path, via="tui")


def _review() -> Any:
    """:mod:`core.review` (what waits for a human), imported on first use (see :func:`_decide`)."""
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
        self._read_only = bool(read_only)
        self.clock = clock
        self.own_write = own_write
        #: Monotonic clock and delay of the key guards (tests replace them).
        self.monotonic: Callable[[], float] = time.monotonic
        self.arm_delay = ARM_DELAY_S
        #: How long a decision's file is watched after ``applied`` (``core.confirm``).
        self.confirm_seconds = DEFAULT_SECONDS
        self.last_update: SessionUpdate | None = None
        self.project_id: str | None = None
        self.attention: list[AttentionItem] = []
        self.results: list[decide.DecisionResult] = []
        self._gate_announced: tuple[Any, ...] | None = None
        self._escalations_announced: set[str] = set()
        self._in_flight: set[tuple[str, object]] = set()
        self._applied: dict[tuple[str, object], decide.DecisionResult] = {}
        self._watching: dict[Path, object] = {}  # file -> the one confirm watch that is current
        self._notify_timer: Any = None  # flushes the notifications the rate limit held
        #: The repair the shown state calls for (``x``), recomputed with every update.
        self.offer: RepairOffer | None = None
        #: Our newest applied repair while it may still be undone (``z``): the file, the version
        #: it wrote, the plan.
        self.undoable: tuple[Path, int | None, Any] | None = None
        self._plans: dict[tuple[str, object], Any] = {}  # seen -> the repair plan submitted
        #: a repair was refused because a field it planned or read moved: the next update's
        #: plan is shown again (never written without a new W)
        self._replan = False

    @property
    def read_only(self) -> bool:
        return self._read_only

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
        if self._replan and self.offer is not None and self.offer.plan.changes:
            self._replan = False  # a repair refused because the file moved: the new plan
            self.open_repair()
        if self.undoable is not None and snap is not None:
            version = snap.version
            written = self.undoable[1]
            if version is not None and written is not None and version > written:
                self.undoable = None  # someone wrote after the repair: undo would overwrite it
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
    def refuse_read_only(self, what: str) -> bool:
        """True (and a message) in read-only mode: the one check every write passes."""
        if self._read_only:
            self.app.notify(
                f"Read-only mode: {what} is disabled.", severity="warning", markup=False
            )
        return self._read_only

    def decide_gate(
        self, view: GateView, action: str, *, guidance: str | None = None, asker: MessagePump
    ) -> None:
        """Answer the review gate ``view`` shows (``seen`` = the document it came from)."""
        self._decide_state(
            f"review {action}", view.source, view.raw, asker,
            lambda path: write_review(path, action, seen=view.raw, guidance=guidance),
        )  # fmt: skip

    def decide_escalation(
        self, snap: Snapshot, action: str, *, reason: str | None = None, asker: MessagePump
    ) -> None:
        self._decide_state(
            f"escalation {action}", snap.source, snap.raw, asker,
            lambda path: write_escalation(path, action, seen=snap.raw, reason=reason),
        )  # fmt: skip

    def _decide_state(
        self,
        label: str,
        source: str,
        seen: dict[str, Any] | None,
        asker: MessagePump,
        write: Callable[[Path], decide.DecisionResult],
    ) -> None:
        """A decision on a state file: ``write(path)`` (a ``write_*`` function, which the
        writer compares against ``seen``)."""
        if self.last_update is None:
            return
        path = self.last_update.project.root / source
        call = partial(write, path)
        self.submit(Decision(label, call, path, (str(path), _digest(seen))), asker)

    def decide_plan(
        self, *, asker: MessagePump, plan_sha256: str | None, discard: bool = False
    ) -> None:
        """Approve the plan (or discard its lock). ``plan_sha256``: the digest of the plan the
        user looked at; an approval is refused by the writer when the file no longer has those
        bytes."""
        if self.last_update is None:
            return
        progress = self.last_update.project.tdd_progress
        expect = None if discard else plan_sha256
        call = partial(write_approval, progress, discard=discard, expect_sha256=expect)
        label = "approve --discard" if discard else "approve"
        own = None if discard else progress
        self.submit(Decision(label, call, own, (str(progress), plan_sha256)), asker)

    # ------------------------------------------------------------------ repairing
    def _busy(self, what: str) -> bool:
        """True (and a message) while any decision or repair is being written: a repair waits."""
        if self._in_flight:
            self.app.notify(
                f"{what}: refused, another decision or repair is being written. "
                "Look again when it is done.",
                severity="warning",
                markup=False,
                timeout=5,
            )
        return bool(self._in_flight)

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
        path = self.last_update.project.root / offer.source
        call = partial(write_repair, path, offer.plan)
        seen = (str(path), _digest(offer.plan.to_json()))
        self._plans[seen] = offer.plan
        self.submit(Decision(offer.plan.action, call, path, seen), asker)

    def open_undo(self) -> None:
        """Ask, then put back what our newest repair replaced (``core.decide.undo_repair``)."""
        undoable = self.undoable
        if undoable is None:
            self.app.notify("No repair to undo.", markup=False, timeout=3)
            return
        path, version, plan = undoable
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
                call = partial(write_undo, path)
                decision = Decision("repair undo", call, path, (str(path), ("undo", version)))
                self.submit(decision, self.app.screen)

        dialog = ConfirmDialog(
            "Undo the repair?", "\n".join(lines), yes="Undo", guard=self.key_guard()
        )
        self.app.push_screen(dialog, answered)

    def submit(self, decision: Decision, asker: MessagePump) -> None:
        """Run ``decision`` in a thread worker, unless read-only mode refuses it or it repeats a
        decision on the same look (in flight, or already applied: our own write, which the
        worker first looks for in the file)."""
        if self.refuse_read_only(decision.shown):
            return
        if decision.seen in self._in_flight:
            self.app.notify(f"{decision.shown}: already being written.", markup=False, timeout=3)
            return
        applied = self._applied.get(decision.seen)
        self._in_flight.add(decision.seen)
        self.app.run_worker(
            partial(self._write, decision, asker, applied),
            thread=True,
            group="decide",
            name=f"decide {decision.label}",
            exit_on_error=False,
        )

    def _repeat(self, decision: Decision, applied: decide.DecisionResult) -> None:
        version = f" (v{applied.version_after})" if applied.version_after is not None else ""
        if applied.action == decision.label:
            message = f"{decision.shown}: already applied{version}; nothing more to write."
        else:
            message = (
                f"{applied.action} was just applied{version} to what you are looking at: "
                f"{decision.shown} was not written. Look again once the view updates."
            )
        self.app.notify(message, markup=False, timeout=5)

    def _repeated(self, decision: Decision, applied: decide.DecisionResult) -> None:
        """App thread: the same look pressed again, and the file still holds what we wrote."""
        self._in_flight.discard(decision.seen)
        self._repeat(decision, applied)

    def _write(
        self, decision: Decision, asker: MessagePump, applied: decide.DecisionResult | None
    ) -> None:
        """Worker thread: write, stamp our own file, report back as a message. A decision
        already applied on this look is not written again while the file still holds it
        (:func:`core.confirm.still_holds`, the decision's own test); once the file no longer
        holds it, the press goes to the writer like any other (which says so)."""
        if applied is not None:
            footprint, own = applied.footprint, decision.own_path
            if footprint is None or own is None or still_holds(own, footprint):
                self.app.call_from_thread(self._repeated, decision, applied)
                return
        try:
            result = decision.call()
        except Exception as exc:  # core.decide reports I/O errors itself; this is a bug guard
            internal_failure(__name__, f"the decision {decision.label!r} raised", exc)
            result = _decide().DecisionResult(
                "error", f"{type(exc).__name__}: {exc}", action=decision.label
            )
        own = decision.own_path
        from phasewatch.core.sources import FileStamp

        stamp = FileStamp.of(own) if result.ok and own is not None else None
        target = asker if asker.is_attached else self.app
        target.post_message(DecisionDone(decision, result, stamp))

    def finish(self, done: DecisionDone) -> None:
        """App thread: record the result, tell the watcher, toast or explain the refusal."""
        decision, result = done.decision, done.result
        self._in_flight.discard(decision.seen)
        self.results.append(result)
        if result.ok:
            self._applied[decision.seen] = result
            self._repaired(decision, result)
            if decision.own_path is not None:
                self.own_write(decision.own_path, done.stamp)
                self._watch_for_revert(decision, result)
            self.app.notify(
                clean(result.message),
                title=clean(f"{decision.shown}: applied"),
                markup=False,
                timeout=5,
            )
            return
        if decision.label == "repair undo" and self.undoable is not None:
            self.undoable = None  # refused (someone wrote after it): the dashboard stops offering
            refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)
        elif (
            decision.label.startswith("repair ")
            and result.outcome == _decide().CONFLICT
            and "in flight" not in result.message
        ):
            self._replan = True  # the file moved: plan again from it and show the new plan
            self.app.notify(
                "The file changed since the plan was made: nothing was written. The repair "
                "is planned again from the file as it is now and shown again.",
                title=clean(f"{decision.shown}: planned again"),
                markup=False,
                timeout=8,
            )
            return
        self.app.notify(
            clean(result.message),
            title=clean(f"{decision.shown}: {result.outcome}"),
            severity="error",
            markup=False,
            timeout=8,
        )
        from .screens.dialogs import RefusalDialog

        summary = result.state_summary
        line = _decide().describe_summary(summary) if summary else "(the file could not be read)"
        nothing = "written" if decision.label.startswith("repair ") else "decided"
        title = clean(f"{decision.shown}: {result.outcome} — nothing was {nothing}")
        self.app.push_screen(RefusalDialog(title, result.message, summary, line))

    def _watch_for_revert(self, decision: Decision, result: decide.DecisionResult) -> None:
        """Keep looking at the file for :attr:`confirm_seconds`: an owner that read it before
        our write and writes its old copy later undoes the decision, and the user is told."""
        if result.footprint is None or decision.own_path is None or self.confirm_seconds <= 0:
            return
        path, app = decision.own_path, self.app
        token = object()
        self._watching[path] = token  # our next decision on this file ends this watch

        def stop() -> bool:
            return not app.is_running or self._watching.get(path) is not token

        def watch() -> None:
            watched = replace(result)  # the result shown in the UI is never mutated here
            _decide().confirm(path, watched, self.confirm_seconds, via="tui", stop=stop)
            if watched.outcome == _decide().REVERTED:
                app.post_message(DecisionReverted(decision, watched))
            elif decision.label.startswith("repair ") and watched.confirmation is not None:
                app.post_message(DecisionKept(decision, watched))

        app.run_worker(
            watch, thread=True, group="confirm", name=f"confirm {decision.label}",
            exit_on_error=False,
        )  # fmt: skip

    def reverted(self, message: DecisionReverted) -> None:
        """App thread: the decision is no longer in the file. Say so loudly (a toast and the
        bell, focus left where it is) and forget it as applied: pressing again decides again."""
        decision, result = message.decision, message.result
        self.results.append(result)
        self._applied.pop(decision.seen, None)
        if self.undoable is not None and self.undoable[0] == decision.own_path:
            self.undoable = None  # the repair is no longer in the file: nothing to undo
            refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)
        self.app.bell()
        self.app.notify(
            clean(result.message),
            title=clean(f"{decision.shown}: REVERTED"),
            severity="error",
            markup=False,
            timeout=20,
        )

    def _repaired(self, decision: Decision, result: decide.DecisionResult) -> None:
        """App thread: an applied repair can be undone (``z``); an applied undo ends that."""
        if not decision.label.startswith("repair ") or decision.own_path is None:
            return
        if decision.label == "repair undo":
            self.undoable = None
        else:
            plan = self._plans.pop(decision.seen, None)
            self.undoable = (decision.own_path, result.version_after, plan)
        refresh_bindings_if_changed(self.app, CONSOLE_BINDINGS)

    def kept(self, message: DecisionKept) -> None:
        """App thread: the repair's confirm window ended with the repair still in the file."""
        decision, result = message.decision, message.result
        confirmation = result.confirmation
        if confirmation is not None and confirmation.verdict == "held":
            version = f" (v{confirmation.version})" if confirmation.version is not None else ""
            what = f"the owner wrote again{version} and kept it"
        else:
            what = f"nobody wrote within {self.confirm_seconds:g} s"
        self.app.notify(
            f"Still in the file: {what}.",
            title=clean(f"{decision.shown}: kept"),
            markup=False,
            timeout=5,
        )

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
