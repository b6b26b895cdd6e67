"""Decision outcomes, their exit codes and the result every decision returns."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

from ..confirm import Confirmation
from .claims import Footprint

Outcome = Literal["applied", "refused-conflict", "refused-invalid", "error", "race", "reverted"]
APPLIED: Outcome = "applied"
CONFLICT: Outcome = "refused-conflict"
INVALID: Outcome = "refused-invalid"
ERROR: Outcome = "error"
RACE: Outcome = "race"
#: Applied, then undone by the owner's next write within the confirm window (``core.confirm``).
REVERTED: Outcome = "reverted"

#: Process exit codes. ``race`` (our bytes did not survive) is a conflict: look again, retry.
EXIT_CODES: dict[str, int] = {
    APPLIED: 0, CONFLICT: 3, RACE: 3, REVERTED: 3, INVALID: 2, ERROR: 1
}  # fmt: skip

REVIEW_ACTIONS = ("continue", "review", "resume", "redo")
ESCALATION_ACTIONS = ("retry", "skip", "cancel")
MAX_WORKFLOW_HISTORY = 50
STALE_TEMP_SECONDS = 600
#: After a replace, the file is read again this long after the rename: a writer that read the
#: file just before our rename and writes right after it (a hook's read-modify-write) shows up.
SETTLE_SECONDS = 0.025
#: How long the look-again waits for a file another writer is in the middle of writing
#: (truncated, not yet whole) before calling the decision's fate uncertain. A writer that
#: truncates and is then descheduled on a busy machine can take far longer than its write.
UNSETTLED_SECONDS = 2.0
JOURNAL_NAME = "phasewatch-decisions.jsonl"


class DecisionResult(Struct):
    outcome: Outcome
    message: str
    version_before: int | None = None
    version_after: int | None = None
    state_summary: dict[str, Any] = field(default_factory=dict)
    journal_error: str | None = None
    action: str = ""
    target: str = ""
    #: What an applied write left in the file (for :func:`core.confirm.watch`); None otherwise.
    footprint: Footprint | None = None
    #: The confirm window's verdict, when the caller watched (``--confirm-seconds``).
    confirmation: Confirmation | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == APPLIED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    def to_json(self) -> dict[str, Any]:
        """The stable document of ``--json`` (schema 1)."""
        return {
            "schema": 1,
            "action": self.action,
            "target": self.target,
            "outcome": self.outcome,
            "message": self.message,
            "version_before": self.version_before,
            "version_after": self.version_after,
            "state": self.state_summary,
            "journal_error": self.journal_error,
            "confirmation": None
            if self.confirmation is None
            else {
                "verdict": self.confirmation.verdict,
                "seconds": round(self.confirmation.seconds, 3),
                "state_version": self.confirmation.version,
            },
        }


class _Refusal(Exception):
    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message
