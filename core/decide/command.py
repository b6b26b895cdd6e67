"""The decision commands' work, without their parsing (``tui/cli.py`` parses the arguments into
a :class:`Command`): find the file, read what the user is deciding on, write, optionally watch
the confirm window, print the result. No textual import: these start fast and run anywhere.

Exit codes: 0 applied, 3 refused-conflict, race or reverted (look again and retry), 2
refused-invalid / nothing to decide / unknown project / a permission problem, 1 I/O error.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from ..sources import discover, find_root, project_id_problem, read_json
from .approval import decide_approval
from .escalation import decide_escalation
from .journal import confirm
from .outcomes import INVALID, DecisionResult
from .review import decide_review
from .summary import describe_summary
from .writer import Options

Kind = Literal["review", "escalation", "approve"]


@dataclass(frozen=True, slots=True)
class Command:
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
