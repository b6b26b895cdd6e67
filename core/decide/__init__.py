"""The write side: supervised review gate, escalation answers and TDD plan approval.

One writer serves the TUI and the command line, following the rules of
docs/design.md#writing-files-other-programs-own:

1. read the file's raw bytes and parse them (strict JSON, no repair; a torn read is retried);
2. compare-and-swap: ``state_version`` and the fields the decision depends on must still be what
   the caller saw (``expect_version``, ``seen``), otherwise nothing is written;
3. change only the fields the protocol names and set ``state_version`` to disk + 1 (1 when the
   disk's is missing, zero or negative: ``writeState``'s rule);
4. write ``.<name>.phasewatch-<pid>.tmp`` in the same directory, fsync, ``os.replace``, fsync the
   directory, keeping the file's mode (and owner where possible) and its formatting;
5. look again: an owner write that landed on the replaced inode is put back at once (our
   decision withdrawn); ``SETTLE_SECONDS`` after the rename the file is read again, and if the
   bytes are not ours each action's *claim* (:mod:`.claims`) tells whether the new content
   still carries the decision (the owner read ours and wrote after it: ``applied``) or not
   (``race``);
6. append one line per attempt (refusals too) to the journal, which is opened first, with an
   ``intent`` line before the rename: a decision the journal cannot record is not made; the
   ``applied`` line carries the decision's claim.

Every file is reached through its directory, opened once from the project root without
following a link (``core.files.write.open_dir``); a file the user may not write is never
replaced, and a replacement keeps the file's owner, group and mode or is not made.

Outcomes and exit codes: ``applied`` 0; ``refused-conflict`` 3 (nothing written); ``race`` 3
(someone wrote around our replace: ``version_after`` is set when the decision is in the file
anyway, None when it is not; look again); ``refused-invalid`` 2 (no gate, wrong status, redo
limit, empty guidance/reason, nothing to decide, file not valid JSON); ``error`` 1 (I/O).

What each decision writes (nothing else; ``state_version`` = disk + 1 always):
- review ``continue`` (status gate_presented): append ``{phase, action: "continue", timestamp}``
  to ``active_workflow.review_history``; delete ``supervised_review``.
- review ``review`` (gate_presented): ``status = "reviewing"``, ``paused_at = now``.
- review ``resume`` (reviewing): append ``{phase, action: "review", timestamp, paused_at,
  resumed_at}`` (``recordReviewAction``'s key order); delete ``supervised_review``.
- review ``redo`` (gate_presented or reviewing, redo_count < 3, guidance): ``redo_count += 1``,
  guidance appended to ``redo_guidance_history``, ``status = "redo_pending"``,
  ``phases[k].status`` and ``phase_status[k]`` = ``in_progress`` (index unchanged).
- escalation ``retry``: what ``workflow-retry.cjs`` does: ``active_workflow.recovery_action =
  {type: "retry", phase, timestamp}``; when ``phases[k]`` exists, ``test_iteration``,
  ``constitutional_validation`` and ``interactive_elicitation`` deleted from it (the first and
  last from its ``iteration_requirements`` too) and ``retry_count += 1`` (created);
  ``pending_escalations = []``.
- escalation ``skip``: ``pending_escalations = []`` only. Marking the task done and starting the
  next phase is the controller's part (docs/formats.md#escalations); ``recovery_action`` has no
  skip type, so the override is recorded in the journal, not invented in the state.
- escalation ``cancel`` (reason): the whole ``active_workflow`` object, plus ``status:
  "cancelled"``, ``cancelled_at``, ``cancellation_reason``, ``phase_snapshots`` and ``metrics``,
  is appended to ``workflow_history`` (pruned to the newest 50); ``active_workflow = null``;
  ``pending_escalations = []``. Top-level ``current_phase``/``active_agent`` are left alone.
  The phase k of an escalation answer is the newest escalation's phase, else the workflow's.

Formatting: the owner writes ``JSON.stringify(state, null, 2)``. The document is parsed with a
small parser that keeps the literal text of every string, number and key whose canonical
``JSON.stringify`` spelling would differ (``1.0``, ``"\\u00e9"``, ``-0``), so every value that is
not ours is written back byte-for-byte. Indent, line ending and whatever follows the closing brace
(trailing newline or not) are detected and kept. A file that was not in that canonical layout is
still written (values intact) and the result says it was reformatted.

Temp files are named ``.<name>.phasewatch-<pid>.tmp``; a write first removes the temps of
processes that are gone (or that are older than ten minutes), so a crash leaves at most one.

The journal is ``<root>/.isdlc/phasewatch-decisions.jsonl`` (``<root>/.phasewatch-decisions.jsonl``
when the project has no ``.isdlc/``, so journaling never makes a TDD-only project look like an
iSDLC one): one compact JSON object per line with ``ts, who, via, action, target, pid,
params, version_before, version_after, outcome, message``; an ``applied`` (and ``intent``) line
adds ``claim``, what the file must hold for the decision to be in it (:mod:`.claims`), and
``sha256``, the digest of the bytes the decision leaves (a repair's undo is allowed only while
the file is still exactly those bytes, :mod:`.repair`; from the ``intent`` line when the writer
was killed before its outcome line). An intent and its outcome share ``action`` and ``pid``.
A line is appended whole or not at all (a short write is cut back); at 4 MiB the journal
rotates to ``<name>.1`` and both generations are read (:mod:`.journal`).

"Kept" and "already applied" are the file's word, not the journal's: :func:`.claims.holds`, one
test per decision kind on the decision's own fields, judges the file after a race, during the
confirm window and on a second press of the same decision (which says "already applied" only
while the file holds it, and otherwise refuses, saying the decision was undone).

The package, one module per part: :mod:`.outcomes` (outcomes, exit codes, the result),
:mod:`.codec` (the literal-keeping JSON parser and ``JSON.stringify`` writer, shared with the
simulator), :mod:`.files` (temp files, the atomic replace and its look-again, where a write may
go), :mod:`.journal`, :mod:`.summary`, :mod:`.writer` (the one compare-and-swap state writer) and
one module per decision kind: :mod:`.review`, :mod:`.escalation`, :mod:`.approval`, and
:mod:`.plans` (guided repair's plans: reading only) and :mod:`.repair` (a plan's write, its undo).

The names below are imported from their part on first use (PEP 562, as Textual's
``textual.widgets`` does): importing one part (the review console plans a repair with
:mod:`.plans`) does not load the writer and every decision kind, which a dashboard that only
watches never needs (docs/performance.md#decisions).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names for type checkers (``as``: exported)
    from . import claims as claims
    from .approval import (
        approval_insertion as approval_insertion,
        approved_text as approved_text,
        decide_approval as decide_approval,
        tdd_summary as tdd_summary,
    )
    from .codec import (
        DocumentError as DocumentError,
        LiteralFloat as LiteralFloat,
        LiteralInt as LiteralInt,
        LiteralStr as LiteralStr,
        Style as Style,
        detect_style as detect_style,
        dumps as dumps,
        js_number as js_number,
        js_string as js_string,
        parse_document as parse_document,
        plain as plain,
    )
    from .escalation import (
        RETRY_CLEARS as RETRY_CLEARS,
        decide_escalation as decide_escalation,
        escalation_phase as escalation_phase,
    )
    from .files import (
        clean_stale_temps as clean_stale_temps,
        temp_path as temp_path,
    )
    from .journal import (
        confirm as confirm,
        default_who as default_who,
        journal_path as journal_path,
        journal_revert as journal_revert,
        read_journal as read_journal,
        revert_message as revert_message,
    )
    from .outcomes import (
        APPLIED as APPLIED,
        CONFLICT as CONFLICT,
        ERROR as ERROR,
        ESCALATION_ACTIONS as ESCALATION_ACTIONS,
        EXIT_CODES as EXIT_CODES,
        INVALID as INVALID,
        JOURNAL_NAME as JOURNAL_NAME,
        MAX_WORKFLOW_HISTORY as MAX_WORKFLOW_HISTORY,
        RACE as RACE,
        REVERTED as REVERTED,
        REVIEW_ACTIONS as REVIEW_ACTIONS,
        SETTLE_SECONDS as SETTLE_SECONDS,
        DecisionResult as DecisionResult,
        Outcome as Outcome,
    )
    from .plans import (
        FieldChange as FieldChange,
        RepairPlan as RepairPlan,
        Unknown as Unknown,
        plan_locations as plan_locations,
        plan_stale_write as plan_stale_write,
    )
    from .repair import (
        apply_repair as apply_repair,
        last_repair as last_repair,
        undo_repair as undo_repair,
    )
    from .review import (
        decide_review as decide_review,
    )
    from .summary import (
        describe_summary as describe_summary,
        fingerprint as fingerprint,
        next_version as next_version,
        state_summary as state_summary,
    )
    from .writer import (
        Change as Change,
        Mutation as Mutation,
        apply_update as apply_update,
    )

#: Each public name and the part that defines it (the imports above say the same to type
#: checkers; tests/test_layering.py checks that the two agree).
_WHERE: dict[str, str] = {
    "APPLIED": "outcomes",
    "CONFLICT": "outcomes",
    "Change": "writer",
    "DecisionResult": "outcomes",
    "DocumentError": "codec",
    "ERROR": "outcomes",
    "ESCALATION_ACTIONS": "outcomes",
    "EXIT_CODES": "outcomes",
    "FieldChange": "plans",
    "INVALID": "outcomes",
    "JOURNAL_NAME": "outcomes",
    "LiteralFloat": "codec",
    "LiteralInt": "codec",
    "LiteralStr": "codec",
    "MAX_WORKFLOW_HISTORY": "outcomes",
    "Mutation": "writer",
    "Outcome": "outcomes",
    "RACE": "outcomes",
    "RETRY_CLEARS": "escalation",
    "REVERTED": "outcomes",
    "REVIEW_ACTIONS": "outcomes",
    "RepairPlan": "plans",
    "SETTLE_SECONDS": "outcomes",
    "Style": "codec",
    "Unknown": "plans",
    "apply_repair": "repair",
    "apply_update": "writer",
    "approval_insertion": "approval",
    "approved_text": "approval",
    "claims": "claims",
    "clean_stale_temps": "files",
    "confirm": "journal",
    "decide_approval": "approval",
    "decide_escalation": "escalation",
    "decide_review": "review",
    "default_who": "journal",
    "describe_summary": "summary",
    "detect_style": "codec",
    "dumps": "codec",
    "escalation_phase": "escalation",
    "fingerprint": "summary",
    "journal_path": "journal",
    "journal_revert": "journal",
    "js_number": "codec",
    "js_string": "codec",
    "last_repair": "repair",
    "next_version": "summary",
    "parse_document": "codec",
    "plain": "codec",
    "plan_locations": "plans",
    "plan_stale_write": "plans",
    "read_journal": "journal",
    "revert_message": "journal",
    "state_summary": "summary",
    "tdd_summary": "approval",
    "temp_path": "files",
    "undo_repair": "repair",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    """A public name, imported from its part on first use (then an ordinary attribute)."""
    part = _WHERE.get(name)
    if part is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{part}")
    value = module if part == name else getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
