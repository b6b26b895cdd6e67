"""Command-line decisions (no textual import: these start fast and run anywhere).

    phasewatch review continue|review|resume|redo [PATH] [--guidance TEXT] [--project ID]
    phasewatch escalation retry|skip|cancel [PATH] [--reason TEXT] [--project ID]
    phasewatch approve [PATH] [--discard]

Common options: ``--expect-version N`` (refuse unless the file is still at that version; without
it the current file is read and its version and fields are what the decision is checked
against), ``--expect-sha256`` for approve, ``--json`` (schema 1 document), ``--who``.

Exit codes: 0 applied, 3 refused-conflict or race (look again and retry), 2 refused-invalid /
nothing to decide / unknown project, 1 error (I/O failure).

``tui/cli.py`` wires these in with ``add_*_arguments(subparser)`` and ``run_*(args)``;
``python -m core.decide_cli ...`` runs them standalone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from . import decide
from .sources import discover, find_root, read_json


def _common(parser: argparse.ArgumentParser, *, versioned: bool = True) -> None:
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        help="project directory (or the state file itself); default: $CLAUDE_PROJECT_DIR or cwd",
    )
    if versioned:
        parser.add_argument(
            "--project", default=None, help="monorepo project id (default: the default project)"
        )
        parser.add_argument(
            "--expect-version",
            type=int,
            default=None,
            metavar="N",
            help="refuse unless state_version is still N",
        )
    parser.add_argument(
        "--confirm-seconds",
        type=float,
        default=0.0,
        metavar="S",
        help="after applying, watch the file S seconds: exit 3 (reverted) when the owner's next "
        "write puts the old content back (default 0: do not wait)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document (schema 1)")
    parser.add_argument("--who", default=None, help="who decides (default: user@host)")


def add_review_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("action", choices=decide.REVIEW_ACTIONS, help="the gate answer")
    _common(parser)
    parser.add_argument("--guidance", default=None, help="what the redo should change (redo)")
    parser.set_defaults(decide_runner=run_review)
    return parser


def add_escalation_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("action", choices=decide.ESCALATION_ACTIONS, help="the answer")
    _common(parser)
    parser.add_argument("--reason", default=None, help="why the workflow is cancelled (cancel)")
    parser.set_defaults(decide_runner=run_escalation)
    return parser


def add_approve_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    _common(parser, versioned=False)
    parser.add_argument(
        "--discard", action="store_true", help="only remove .tdd-plan-locked (no approval)"
    )
    parser.add_argument(
        "--expect-sha256", default=None, metavar="HEX", help="refuse unless the file is unchanged"
    )
    parser.set_defaults(decide_runner=run_approve)
    return parser


class _Usage(Exception):
    pass


def resolve_state(path: str | None, project_id: str | None) -> Path:
    """The state file a decision is about: ``path`` itself when it is a ``.json`` file, else
    the (monorepo: ``project_id`` or default) project's state under the discovered root."""
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
    source = project.state_for(None)
    assert source is not None
    return source.path


def _finish(
    result: decide.DecisionResult, path: Path, args: argparse.Namespace, out: TextIO
) -> int:
    """Watch the confirm window (``--confirm-seconds``), then print the result."""
    decide.confirm(path, result, args.confirm_seconds, who=args.who, via="cli")
    return _emit(result, args.json, out)


def _emit(result: decide.DecisionResult, as_json: bool, out: TextIO) -> int:
    if as_json:
        out.write(json.dumps(result.to_json(), ensure_ascii=False, indent=2) + "\n")
    else:
        versions = ""
        if result.version_after is not None:
            versions = f" (state_version {result.version_before} -> {result.version_after})"
        out.write(f"{result.outcome}: {result.action}: {result.message}{versions}\n")
        if result.state_summary:
            out.write(f"  now: {decide.describe_summary(result.state_summary)}\n")
        conf = result.confirmation
        if conf is not None and not conf.reverted:
            held = {
                "held": "the owner has written since and kept it",
                "unchanged": "nobody wrote the file since",
            }[conf.verdict]
            out.write(f"  confirmed: {held} ({conf.seconds:.2f} s watched)\n")
    return result.exit_code


def _usage_error(action: str, message: str, as_json: bool, out: TextIO) -> int:
    result = decide.DecisionResult(decide.INVALID, message, action=action)
    return _emit(result, as_json, out)


def _seen(state: Path, expect_version: int | None) -> dict[str, Any] | None:
    read = read_json(state)
    if not read.ok or read.data is None:
        return None  # the writer reports the file's problem (and journals it)
    seen = dict(read.data)
    if expect_version is not None:
        seen["state_version"] = expect_version
    return seen


def run_review(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    action = f"review {args.action}"
    try:
        state = resolve_state(args.path, args.project)
    except _Usage as exc:
        return _usage_error(action, str(exc), args.json, out)
    result = decide.decide_review(
        state,
        args.action,
        guidance=args.guidance,
        expect_version=args.expect_version,
        seen=_seen(state, args.expect_version),
        who=args.who,
        via="cli",
    )
    return _finish(result, state, args, out)


def run_escalation(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    action = f"escalation {args.action}"
    try:
        state = resolve_state(args.path, args.project)
    except _Usage as exc:
        return _usage_error(action, str(exc), args.json, out)
    result = decide.decide_escalation(
        state,
        args.action,
        reason=args.reason,
        expect_version=args.expect_version,
        seen=_seen(state, args.expect_version),
        who=args.who,
        via="cli",
    )
    return _finish(result, state, args, out)


def run_approve(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if args.path is not None and Path(args.path).is_file():
        progress = Path(args.path)
    else:
        root = find_root(args.path)
        progress = root / ".tdd-progress.md"
    result = decide.decide_approval(
        progress,
        discard=args.discard,
        expect_sha256=args.expect_sha256,
        who=args.who,
        via="cli",
    )
    return _finish(result, progress, args, out)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="phasewatch", description="phasewatch decisions")
    sub = parser.add_subparsers(dest="command", required=True)
    add_review_arguments(sub.add_parser("review", help="answer the supervised review gate"))
    add_escalation_arguments(sub.add_parser("escalation", help="answer pending escalations"))
    add_approve_arguments(sub.add_parser("approve", help="approve the TDD plan"))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.decide_runner(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
