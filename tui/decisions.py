"""The review console's decisions as a service: what to write, whether to write it, and what the
writer's answer means, with no screen and no textual (``tests/test_layering.py`` pins both).
:class:`~tui.console.ReviewConsole` keeps the navigation and presentation: it builds a request
here, runs :meth:`DecisionService.write` in a thread worker, and shows the :class:`Notice`,
:class:`Refusal` or :class:`Finished` it gets back. ``tests/test_decision_service.py`` drives
this module on real files without an app.

The life of one decision (docs/design.md#decisions):

* a request (:meth:`DecisionService.gate`, :meth:`~DecisionService.escalation`,
  :meth:`~DecisionService.plan`, :meth:`~DecisionService.repair`, :meth:`~DecisionService.undo`)
  is a :class:`Decision`: the action's name as journaled, a call to one typed ``write_*``
  function below, the file it writes and ``seen``, what the user looked at;
* :meth:`DecisionService.begin` refuses it in read-only mode or while the same look is being
  written (*in flight*), else marks it in flight;
* :meth:`DecisionService.write` (worker thread) answers a second press on a look we already
  applied a decision to with "already applied" while the file still holds our write
  (:func:`core.confirm.still_holds`), else calls the writer;
* :meth:`DecisionService.finish` records the answer: applied (a repair becomes undoable, the
  confirm watch starts), a repair refused because its file moved (*replanned*: the next update's
  plan is shown again, never written without a new confirmation), or a refusal to explain;
* :meth:`DecisionService.confirm` (worker thread) watches the file after an applied write; an
  owner write that put the old content back is *reverted* (the decision is forgotten as
  applied, an undoable repair is no longer undoable).

The writer (``core.decide``) is imported by the ``write_*`` functions, in the decision's worker:
a dashboard that only watches never loads it (docs/performance.md#decisions).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from msgspec import Struct
from msgspec.structs import replace
from phasewatch.core.confirm import DEFAULT_SECONDS, still_holds
from phasewatch.core.log import internal_failure
from phasewatch.core.text import clean

if TYPE_CHECKING:
    from phasewatch.core.decide.outcomes import DecisionResult
    from phasewatch.core.decide.plans import RepairPlan
    from phasewatch.core.review import GateView, RepairOffer
    from phasewatch.core.snapshot import Snapshot
    from phasewatch.core.sources import FileStamp

#: What the user looked at: the file and its content's identity (two presses on one look share it).
Seen = tuple[str, object]
Severity = Literal["information", "warning", "error"]


class Decision(Struct, frozen=True):
    """One request to the writer. ``seen`` identifies what the user looked at (the state file
    and its version, or the plan file and its digest): two requests on the same ``seen`` are
    the same look, and the second one after an applied write would be refused against our own
    write."""

    label: str  # the writer's action name ("review continue"), as journaled
    call: Callable[[], DecisionResult]
    own_path: Path | None
    seen: Seen

    @property
    def shown(self) -> str:
        """The label in plain words for toasts: ``gate: review`` (not ``review review``)."""
        kind, _, rest = self.label.partition(" ")
        return f"gate: {rest}" if kind == "review" and rest else self.label

    @property
    def is_repair(self) -> bool:
        """A repair or its undo (``repair stale-write``, ``repair location``, ``repair undo``)."""
        return self.label.startswith("repair ")


class Notice(Struct, frozen=True):
    """A message for the user (a toast). ``None`` fields are left to the toast's defaults."""

    message: str
    title: str | None = None
    severity: Severity | None = None
    timeout: float | None = None


class Refusal(Struct, frozen=True):
    """A write the writer refused, explained (the console's refusal dialog): ``summary`` is
    the file's state as the writer read it, ``line`` that summary in words."""

    title: str
    message: str
    summary: dict[str, Any]
    line: str


class Undoable(Struct, frozen=True):
    """Our newest applied repair while it may still be undone: the file, the ``state_version``
    it wrote, the plan."""

    path: Path
    version: int | None
    plan: RepairPlan | None


class Finished(Struct, frozen=True):
    """What :meth:`DecisionService.finish` made of the writer's answer. ``watch``: start the
    confirm watch on the decision's file; ``undo_changed``: whether a repair is undoable
    changed (the keys the footer offers)."""

    notice: Notice
    refusal: Refusal | None = None
    watch: bool = False
    undo_changed: bool = False


class Written(Struct, frozen=True):
    """The writer's answer in the worker, with our file's stamp when it was applied (the
    watcher is told the change is ours)."""

    result: DecisionResult
    stamp: FileStamp | None


Verdict = Literal["reverted", "kept"]


# The writer's functions the console calls, typed, each importing its part of core.decide in the
# decision's worker thread (never on the UI thread): a Decision's ``call`` is one of these.


def write_review(
    path: Path, action: str, *, seen: dict[str, Any] | None, guidance: str | None
) -> DecisionResult:
    from phasewatch.core.decide.review import decide_review

    return decide_review(path, action, guidance=guidance, seen=seen, via="tui")


def write_escalation(
    path: Path, action: str, *, seen: dict[str, Any] | None, reason: str | None
) -> DecisionResult:
    from phasewatch.core.decide.escalation import decide_escalation

    return decide_escalation(path, action, reason=reason, seen=seen, via="tui")


def write_approval(progress: Path, *, discard: bool, expect_sha256: str | None) -> DecisionResult:
    from phasewatch.core.decide.approval import decide_approval

    return decide_approval(progress, discard=discard, expect_sha256=expect_sha256, via="tui")


def write_repair(path: Path, plan: RepairPlan) -> DecisionResult:
    from phasewatch.core.decide.repair import apply_repair

    return apply_repair(path, plan, via="tui")


def write_undo(path: Path) -> DecisionResult:
    from phasewatch.core.decide.repair import undo_repair

    return undo_repair(path, via="tui")


def digest(document: object) -> str:
    """Identity of the document a decision was taken on (two presses on one look share it)."""
    import hashlib  # (here: OpenSSL's loading is not the first frame's business)

    text = json.dumps(document, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _repeat_notice(decision: Decision, applied: DecisionResult) -> Notice:
    version = f" (v{applied.version_after})" if applied.version_after is not None else ""
    if applied.action == decision.label:
        message = f"{decision.shown}: already applied{version}; nothing more to write."
    else:
        message = (
            f"{applied.action} was just applied{version} to what you are looking at: "
            f"{decision.shown} was not written. Look again once the view updates."
        )
    return Notice(message, timeout=5)


class DecisionService:
    """See the module docstring. ``read_only`` refuses every write (a required argument: there
    is no default to fail open to). Every method but :meth:`write` and :meth:`confirm` runs on
    the app's thread."""

    def __init__(self, *, read_only: bool) -> None:
        self._read_only = bool(read_only)
        #: How long a decision's file is watched after ``applied`` (``core.confirm``).
        self.confirm_seconds = DEFAULT_SECONDS
        #: Every answer, in order (reverts included).
        self.results: list[DecisionResult] = []
        #: The looks being written now, and the applied result of each look we wrote.
        self.in_flight: set[Seen] = set()
        self.applied: dict[Seen, DecisionResult] = {}
        #: Our newest applied repair while it may still be undone (``z``).
        self.undoable: Undoable | None = None
        #: A repair was refused because a field it planned or read moved: the next update's
        #: plan is shown again (never written without a new confirmation).
        self.replan = False
        self._plans: dict[Seen, RepairPlan] = {}  # seen -> the repair plan submitted
        self._watching: dict[Path, object] = {}  # file -> the one confirm watch that is current

    @property
    def read_only(self) -> bool:
        return self._read_only

    # ------------------------------------------------------------------ requests
    def gate(
        self, root: Path, view: GateView, action: str, guidance: str | None = None
    ) -> Decision:
        """Answer the review gate ``view`` shows (``seen``: the document it came from)."""
        path = root / view.source
        call = partial(write_review, path, action, seen=view.raw, guidance=guidance)
        return Decision(f"review {action}", call, path, (str(path), digest(view.raw)))

    def escalation(
        self, root: Path, snap: Snapshot, action: str, reason: str | None = None
    ) -> Decision:
        path = root / snap.source
        call = partial(write_escalation, path, action, seen=snap.raw, reason=reason)
        return Decision(f"escalation {action}", call, path, (str(path), digest(snap.raw)))

    def plan(self, progress: Path, plan_sha256: str | None, *, discard: bool = False) -> Decision:
        """Approve the plan (or discard its lock). ``plan_sha256``: the digest of the plan the
        user looked at; an approval is refused by the writer when the file no longer has those
        bytes."""
        expect = None if discard else plan_sha256
        call = partial(write_approval, progress, discard=discard, expect_sha256=expect)
        label = "approve --discard" if discard else "approve"
        own = None if discard else progress
        return Decision(label, call, own, (str(progress), plan_sha256))

    def repair(self, root: Path, offer: RepairOffer) -> Decision:
        """Write ``offer``'s plan (the human confirmed it); the plan is kept for its undo."""
        path = root / offer.source
        seen = (str(path), digest(offer.plan.to_json()))
        self._plans[seen] = offer.plan
        return Decision(offer.plan.action, partial(write_repair, path, offer.plan), path, seen)

    def undo(self) -> Decision | None:
        """Put back what our newest repair replaced (refused by the writer once anyone wrote
        after it); None when nothing is undoable."""
        undoable = self.undoable
        if undoable is None:
            return None
        path = undoable.path
        seen = (str(path), ("undo", undoable.version))
        return Decision("repair undo", partial(write_undo, path), path, seen)

    # ------------------------------------------------------------------ before the write
    def refuse_read_only(self, what: str) -> Notice | None:
        """The one check every write passes: a notice in read-only mode, else None."""
        if self._read_only:
            return Notice(f"Read-only mode: {what} is disabled.", severity="warning")
        return None

    def busy(self, what: str) -> Notice | None:
        """A notice while any decision or repair is being written (a repair waits), else None."""
        if not self.in_flight:
            return None
        return Notice(
            f"{what}: refused, another decision or repair is being written. "
            "Look again when it is done.",
            severity="warning",
            timeout=5,
        )

    def begin(self, decision: Decision) -> Notice | DecisionResult | None:
        """Admit ``decision`` to the writer: a notice when it is refused (read-only mode, or the
        same look in flight); else it is marked in flight and the result is what we already
        applied on this look (None: nothing), for :meth:`write`."""
        refused = self.refuse_read_only(decision.shown)
        if refused is not None:
            return refused
        if decision.seen in self.in_flight:
            return Notice(f"{decision.shown}: already being written.", timeout=3)
        self.in_flight.add(decision.seen)
        return self.applied.get(decision.seen)

    @staticmethod
    def write(decision: Decision, applied: DecisionResult | None) -> Written | None:
        """Worker thread: write and stamp our own file. A decision already applied on this look
        is not written again while the file still holds it (None: say "already applied", with
        :meth:`repeated`); once the file no longer holds it, the press goes to the writer like
        any other (which says so)."""
        if applied is not None:
            footprint, own = applied.footprint, decision.own_path
            if footprint is None or own is None or still_holds(own, footprint):
                return None
        try:
            result = decision.call()
        except Exception as exc:  # core.decide reports I/O errors itself; this is a bug guard
            from phasewatch.core.decide.outcomes import DecisionResult

            internal_failure(__name__, f"the decision {decision.label!r} raised", exc)
            result = DecisionResult("error", f"{type(exc).__name__}: {exc}", action=decision.label)
        own = decision.own_path
        from phasewatch.core.sources import FileStamp

        stamp = FileStamp.of(own) if result.ok and own is not None else None
        return Written(result, stamp)

    def repeated(self, decision: Decision, applied: DecisionResult) -> Notice:
        """The same look pressed again, and the file still holds what we wrote."""
        self.in_flight.discard(decision.seen)
        return _repeat_notice(decision, applied)

    # ------------------------------------------------------------------ after the write
    def finish(self, decision: Decision, result: DecisionResult) -> Finished:
        """Record the writer's answer: what to tell the user, whether to watch the file."""
        self.in_flight.discard(decision.seen)
        self.results.append(result)
        if result.ok:
            self.applied[decision.seen] = result
            changed = self._repaired(decision, result)
            notice = Notice(
                clean(result.message), title=clean(f"{decision.shown}: applied"), timeout=5
            )
            watch = decision.own_path is not None
            return Finished(notice, watch=watch, undo_changed=changed)
        from phasewatch.core.decide.outcomes import CONFLICT

        changed = False
        if decision.label == "repair undo" and self.undoable is not None:
            self.undoable = None  # refused (someone wrote after it): the dashboard stops offering
            changed = True
        elif (
            decision.is_repair and result.outcome == CONFLICT and "in flight" not in result.message
        ):
            self.replan = True  # the file moved: plan again from it and show the new plan
            notice = Notice(
                "The file changed since the plan was made: nothing was written. The repair "
                "is planned again from the file as it is now and shown again.",
                title=clean(f"{decision.shown}: planned again"),
                timeout=8,
            )
            return Finished(notice)
        notice = Notice(
            clean(result.message),
            title=clean(f"{decision.shown}: {result.outcome}"),
            severity="error",
            timeout=8,
        )
        return Finished(notice, refusal=self._refusal(decision, result), undo_changed=changed)

    @staticmethod
    def _refusal(decision: Decision, result: DecisionResult) -> Refusal:
        from phasewatch.core.decide.summary import describe_summary

        summary = result.state_summary
        line = describe_summary(summary) if summary else "(the file could not be read)"
        nothing = "written" if decision.is_repair else "decided"
        title = clean(f"{decision.shown}: {result.outcome} — nothing was {nothing}")
        return Refusal(title, result.message, summary, line)

    def _repaired(self, decision: Decision, result: DecisionResult) -> bool:
        """An applied repair can be undone; an applied undo ends that. True: that changed."""
        if not decision.is_repair or decision.own_path is None:
            return False
        if decision.label == "repair undo":
            self.undoable = None
        else:
            plan = self._plans.pop(decision.seen, None)
            self.undoable = Undoable(decision.own_path, result.version_after, plan)
        return True

    def updated(self, version: int | None, offer: RepairOffer | None) -> bool:
        """A new state was read (``version``: its ``state_version``; ``offer``: the repair it
        calls for): an undoable repair someone wrote after is no longer undoable (undo would
        overwrite their write). True: a refused repair's new plan is to be shown."""
        written = self.undoable.version if self.undoable is not None else None
        if version is not None and written is not None and version > written:
            self.undoable = None
        if self.replan and offer is not None and offer.plan.changes:
            self.replan = False
            return True
        return False

    # ------------------------------------------------------------------ the confirm watch
    def watching(self, decision: Decision, result: DecisionResult) -> Callable[[], bool] | None:
        """Start a confirm watch on an applied decision's file: None when there is nothing to
        watch; else a test that is true once a newer decision on that file took over the
        watch (the watch then stops)."""
        path = decision.own_path
        if result.footprint is None or path is None or self.confirm_seconds <= 0:
            return None
        token = object()
        self._watching[path] = token  # our next decision on this file ends this watch

        def superseded() -> bool:
            return self._watching.get(path) is not token

        return superseded

    def confirm(
        self, decision: Decision, result: DecisionResult, stop: Callable[[], bool]
    ) -> tuple[Verdict, DecisionResult] | None:
        """Worker thread: watch the file for :attr:`confirm_seconds` (``core.decide.confirm``,
        which journals a revert). ``reverted``: an owner that read the file before our write
        put its old copy back; ``kept``: a repair still in the file at the end. None: nothing
        to report (a decision that held, or a watch stopped early). The result shown is never
        mutated here: the verdict comes with a copy."""
        from phasewatch.core.decide.journal import confirm
        from phasewatch.core.decide.outcomes import REVERTED

        path = decision.own_path
        if path is None:
            return None
        watched = replace(result)
        confirm(path, watched, self.confirm_seconds, via="tui", stop=stop)
        if watched.outcome == REVERTED:
            return "reverted", watched
        if decision.is_repair and watched.confirmation is not None:
            return "kept", watched
        return None

    def reverted(self, decision: Decision, result: DecisionResult) -> tuple[Notice, bool]:
        """The decision is no longer in the file: recorded, forgotten as applied (pressing again
        decides again). The notice, and whether a repair stopped being undoable."""
        self.results.append(result)
        self.applied.pop(decision.seen, None)
        changed = self.undoable is not None and self.undoable.path == decision.own_path
        if changed:
            self.undoable = None  # the repair is no longer in the file: nothing to undo
        notice = Notice(
            clean(result.message),
            title=clean(f"{decision.shown}: REVERTED"),
            severity="error",
            timeout=20,
        )
        return notice, changed

    def kept(self, decision: Decision, result: DecisionResult) -> Notice:
        """The repair's confirm window ended with the repair still in the file."""
        confirmation = result.confirmation
        if confirmation is not None and confirmation.verdict == "held":
            version = f" (v{confirmation.version})" if confirmation.version is not None else ""
            what = f"the owner wrote again{version} and kept it"
        else:
            what = f"nobody wrote within {self.confirm_seconds:g} s"
        return Notice(
            f"Still in the file: {what}.", title=clean(f"{decision.shown}: kept"), timeout=5
        )
