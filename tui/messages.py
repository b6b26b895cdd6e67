"""The messages the app, the review console (:mod:`tui.console`) and their screens share, in
one module below all of them, so no screen imports the console or the app at run time
(``tests/test_layering.py`` fails on an import cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from .decisions import Decision

if TYPE_CHECKING:
    from phasewatch.core import decide
    from phasewatch.core.session import SessionUpdate
    from phasewatch.core.sources import FileStamp


class SessionUpdated(Message):
    """A new :class:`SessionUpdate` from the watcher worker.

    Coalescing: when this message is still queued behind a newer one, Textual asks
    ``older.can_replace(newer)``: an update is the state picture, so the newer says it all (a
    pure test: nothing is folded)."""

    def __init__(self, update: SessionUpdate) -> None:
        super().__init__()
        self.update = update

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SessionUpdated)


class HookLogGrew(Message):
    """The session's hook store gained rows (or was rewritten): viewers read it. Carries
    nothing: the newest says all an older one would (``can_replace`` is a pure test)."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, HookLogGrew)


class DecisionDone(Message):
    """A decision came back from the writer (posted from the worker thread to the screen that
    asked; it bubbles to the app, which hands it to :meth:`ReviewConsole.finish`)."""

    def __init__(
        self, decision: Decision, result: decide.DecisionResult, stamp: FileStamp | None
    ) -> None:
        super().__init__()
        self.decision = decision
        self.result = result
        self.stamp = stamp


class DecisionReverted(Message):
    """An applied decision was undone by the owner's next write within the confirm window
    (posted from the watching worker thread to the app)."""

    def __init__(self, decision: Decision, result: decide.DecisionResult) -> None:
        super().__init__()
        self.decision = decision
        self.result = result


class DecisionKept(Message):
    """An applied repair was still in the file when its confirm window ended (posted from the
    watching worker thread to the app): ``result.confirmation`` says whether anyone wrote."""

    def __init__(self, decision: Decision, result: decide.DecisionResult) -> None:
        super().__init__()
        self.decision = decision
        self.result = result
