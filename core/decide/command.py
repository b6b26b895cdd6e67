"""The decision commands' work, without their parsing (``tui/cli.py`` parses the arguments into
a :class:`Command`): find the file, read what the user is deciding on, write, optionally watch
the confirm window, print the result. No textual import: these start fast and run anywhere.

Exit codes: 0 applied, 3 refused-conflict, race or reverted (look again and retry), 2
refused-invalid / nothing to decide / unknown project / a permission problem, 1 I/O error.

``phasewatch repair`` (:func:`run_repair`) keeps them: 0 applied, and also nothing to repair
and ``--dry-run`` (the plan printed; ``--json``: ``outcome`` ``dry-run`` or
``nothing-to-repair``); 2 a plan of only what cannot be known, not confirmed, or not on a
terminal without ``--yes``; 3 and 1 as above. ``--undo`` puts back the newest repair's values
(refused, 3, when the file changed since it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TextIO

from msgspec import Struct

from ..sources import discover, find_root, project_id_problem, read_json
from ..text import clean, json_safe
from .approval import decide_approval
from .codec import deep_room
from .escalation import decide_escalation
from .files import _pauses
from .journal import confirm
from .outcomes import CONFLICT, INVALID, UNSETTLED_SECONDS, DecisionResult
from .plans import RepairPlan, plan_locations, plan_stale_write
from .repair import apply_repair, undo_repair
from .review import decide_review
from .summary import describe_summary
from .writer import Options

Kind = Literal["review", "escalation", "approve"]


class Command(Struct, frozen=True):
    """One ``phasewatch review|escalation|approve`` invocation."""

    kind: Kind
    action: str | None = None  # the answer (review, escalation)
    path: str | None = None  # project directory or the file itself
    project: str | None = None  # monorepo project id
    expect_version: int | None = None
    guidance: str | None = None  # review redo
    reason: str | None = None  # escalation cancel
    discard: bool = False  # approve: only remove the lock
    expect_sha256: str | None = None  # approve
    confirm_seconds: float = 0.0
    json: bool = False
    who: str | None = None

    @property
    def label(self) -> str:
        return self.kind if self.action is None else f"{self.kind} {self.action}"


class _Usage(Exception):
    pass


def resolve_state(path: str | None, project_id: str | None) -> Path:
    """The state file a decision is about: ``path`` itself when it is a ``.json`` file, else
    the (monorepo: ``project_id`` or default) project's state under the discovered root."""
    if project_id is not None and (problem := project_id_problem(project_id)) is not None:
        raise _Usage(problem)
    if path is not None and Path(path).is_file() and path.endswith(".json"):
        return Path(path)
    project = discover(path)
    if not project.states:
        raise _Usage(f"no .isdlc/state.json under {project.root}")
    if project_id is not None:
        for source in project.states:
            if source.project_id == project_id:
                return source.path
        known = ", ".join(s.project_id or "(root)" for s in project.states)
        raise _Usage(f"unknown project {project_id!r} (known: {known})")
    default = project.state_for(None)
    assert default is not None
    return default.path


def _seen(state: Path, expect_version: int | None) -> dict[str, Any] | None:
    read = read_json(state)
    if not read.ok or read.data is None:
        return None  # the writer reports the file's problem (and journals it)
    seen = dict(read.data)
    if expect_version is not None:
        seen["state_version"] = expect_version
    return seen


def _decide(command: Command) -> tuple[DecisionResult, Path]:
    """Write the decision; the result and the file it is about."""
    if command.kind == "approve":
        if command.path is not None and Path(command.path).is_file():
            progress = Path(command.path)
        else:
            progress = find_root(command.path) / ".tdd-progress.md"
        result = decide_approval(
            progress,
            discard=command.discard,
            expect_sha256=command.expect_sha256,
            who=command.who,
            via="cli",
        )
        return result, progress
    state = resolve_state(command.path, command.project)
    options: Options = {
        "expect_version": command.expect_version,
        "seen": _seen(state, command.expect_version),
        "who": command.who,
        "via": "cli",
    }
    assert command.action is not None  # the parser requires it for review and escalation
    if command.kind == "review":
        return decide_review(state, command.action, guidance=command.guidance, **options), state
    return decide_escalation(state, command.action, reason=command.reason, **options), state


def run(command: Command, out: TextIO | None = None) -> int:
    """Decide, watch the confirm window (``confirm_seconds``), print; the exit code."""
    out = out or sys.stdout
    try:
        result, path = _decide(command)
    except _Usage as exc:
        return emit(DecisionResult(INVALID, str(exc), action=command.label), command.json, out)
    confirm(path, result, command.confirm_seconds, who=command.who, via="cli")
    return emit(result, command.json, out)


def emit(result: DecisionResult, as_json: bool, out: TextIO) -> int:
    """Print ``result`` (text, or the ``--json`` document); its exit code."""
    if as_json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
        return result.exit_code
    versions = ""
    if result.version_after is not None:
        versions = f" (state_version {result.version_before} -> {result.version_after})"
    out.write(f"{result.outcome}: {result.action}: {result.message}{versions}\n")
    if result.state_summary:
        out.write(f"  now: {describe_summary(result.state_summary)}\n")
    conf = result.confirmation
    if conf is not None and not conf.reverted:
        held = {
            "held": "the owner has written since and kept it",
            "unchanged": "nobody wrote the file since",
        }[conf.verdict]
        out.write(f"  confirmed: {held} ({conf.seconds:.2f} s watched)\n")
    return result.exit_code


# ----------------------------------------------------------------------------- repair


class RepairCommand(Struct, frozen=True):
    """One ``phasewatch repair`` invocation (docs/formats.md#repair)."""

    path: str | None = None
    project: str | None = None
    against: str | None = None  # an earlier copy of the state: plan a stale-write repair
    dry_run: bool = False
    yes: bool = False
    undo: bool = False
    confirm_seconds: float = 0.0
    json: bool = False
    who: str | None = None


def _read_raw(path: Path) -> dict[str, Any]:
    """A state file parsed as ``check`` reads it (:func:`~core.sources.read_json`, its values
    as on disk, nothing cleaned: a plan's values are compared with the file's own);
    :class:`_Usage` when it cannot be. A read cut by a write under way (empty, or the document
    ends early) is read again until the write completes, for :data:`.outcomes.UNSETTLED_SECONDS`
    at most, then refused saying so."""
    shown = clean(str(path))
    for _ in _pauses():
        read = read_json(path, retries=0)
        if read.status != "torn":
            break
    if read.status == "ok" and read.data is not None:
        return read.exact if read.exact is not None else read.data
    why = clean(read.error or read.status)
    if read.status == "torn":
        raise _Usage(
            f"{shown} was still being written (or cut) after {UNSETTLED_SECONDS:g} s of "
            f"looking ({why}); nothing planned. Try again once its writer is done."
        )
    if read.status == "not_object":
        raise _Usage(f"{shown} is not a JSON object; nothing planned")
    if read.status in ("missing", "too_large", "unreadable"):
        raise _Usage(f"cannot read {shown}: {why}")
    raise _Usage(f"{shown} is not valid JSON ({why}); nothing planned")


def _on_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask(question: str) -> bool:
    """The question on stderr (stdout may be a ``--json`` document), the answer from stdin."""
    sys.stderr.write(question)
    sys.stderr.flush()
    try:
        return sys.stdin.readline().strip().lower() in ("y", "yes")
    except (OSError, ValueError):
        return False


#: How many times a repair is planned again when the file's planned or read fields changed
#: between the plan and the write (a live workflow beside it), before it is given up.
REPLANS = 5


def run_repair(
    command: RepairCommand,
    out: TextIO | None = None,
    ask: Callable[[str], bool] | None = None,
) -> int:
    """Plan, preview, confirm, apply (or undo) one repair; the exit code. ``ask``: the
    confirmation question when not ``--yes`` (default: on a terminal, ``input``; elsewhere
    refused). A write refused because a field the plan changes or reads moved in the meantime
    is planned again from the file as it is now, shown again (and, without ``--yes``, asked
    again), up to :data:`REPLANS` times."""
    out = out or sys.stdout
    label = "repair undo" if command.undo else "repair"
    try:
        state = resolve_state(command.path, command.project)
        # read as check reads (outside the room below: the reader's own depth limit holds)
        seen = None if command.undo or command.against is None else _read_raw(Path(command.against))
    except _Usage as exc:
        return emit(DecisionResult(INVALID, str(exc), action=label), command.json, out)
    if command.undo:
        with deep_room():  # room for a state nested as deep as check reads (MAX_NESTING)
            return emit(undo_repair(state, who=command.who, via="cli"), command.json, out)
    if ask is None and not command.yes and _on_terminal():
        ask = _ask
    shown: RepairPlan | None = None
    for attempt in range(REPLANS + 1):
        try:
            doc = _read_raw(state)
        except _Usage as exc:
            return emit(DecisionResult(INVALID, str(exc), action=label), command.json, out)
        with deep_room():
            plan = plan_stale_write(seen, doc) if seen is not None else plan_locations(doc)
        if plan is None or not plan.changes or command.dry_run:
            return _unapplied(plan, command, out)
        if attempt and not command.json:
            out.write("The file changed since the plan was made; planned again:\n")
        if not command.yes:
            if ask is None:
                why = (
                    "not on a terminal: pass --yes to apply (--dry-run shows the plan); "
                    "nothing written"
                )
                return emit(DecisionResult(INVALID, why, action=plan.action), command.json, out)
            if shown is None or shown.changes != plan.changes:
                _preview(plan, sys.stderr if command.json else out)
                question = f"Write these {len(plan.changes)} field(s) into {clean(state.name)}? "
                if not ask(question + "[y/N] "):
                    result = DecisionResult(
                        INVALID, "not confirmed; nothing written", action=plan.action
                    )
                    return emit(result, command.json, out)
        elif not command.json and (shown is None or shown.changes != plan.changes):
            _preview(plan, out)
        shown = plan
        with deep_room():
            result = apply_repair(state, plan, who=command.who, via="cli")
        if result.outcome != CONFLICT or "in flight" in result.message:
            break
    confirm(state, result, command.confirm_seconds, who=command.who, via="cli")
    if command.json and shown is not None:
        return _report(result, shown, command, out)
    return emit(result, command.json, out)


def _unapplied(plan: RepairPlan | None, command: RepairCommand, out: TextIO) -> int:
    """No write: nothing to repair (exit 0), no safe repair (exit 2, the fields named), or a
    dry run (exit 0)."""
    if plan is None:
        what = (
            "nothing the framework reads differs from that copy"
            if command.against
            else "the locations agree (a write that moved them together shows only against "
            "the copy before it: --against FILE)"
        )
        return _print_plan(None, f"nothing to repair: {what}", command, out)
    if not plan.changes:
        fields = ", ".join(u.label for u in plan.unknown) or "nothing"
        result = DecisionResult(
            INVALID, f"no safe repair ({fields}): nothing written", action=plan.action
        )
        return _report(result, plan, command, out)
    return _print_plan(plan, "dry run: nothing written", command, out)


def _preview(plan: RepairPlan, out: TextIO) -> None:
    for line in plan.describe():  # (cleaned there)
        out.write(line + "\n")


def _report(result: DecisionResult, plan: RepairPlan, command: RepairCommand, out: TextIO) -> int:
    """A result with the plan it came from: in ``--json`` the document's ``plan``, else the
    preview above the result's line."""
    if command.json:
        doc = result.to_json()
        doc["plan"] = plan.to_json()
        out.write(json_safe(json.dumps(doc, ensure_ascii=False, indent=2)) + "\n")
        return result.exit_code
    _preview(plan, out)
    return emit(result, False, out)


def _print_plan(plan: RepairPlan | None, message: str, command: RepairCommand, out: TextIO) -> int:
    """A plan that is not applied (``--dry-run``, or nothing to repair): exit 0."""
    if command.json:
        doc = {
            "schema": 1,
            "action": "repair" if plan is None else plan.action,
            "outcome": "nothing-to-repair" if plan is None else "dry-run",
            "message": message,
            "plan": None if plan is None else plan.to_json(),
        }
        out.write(json_safe(json.dumps(doc, ensure_ascii=False, indent=2)) + "\n")
        return 0
    if plan is not None:
        _preview(plan, out)
    out.write(message + "\n")
    return 0
