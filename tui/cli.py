"""The ``phasewatch`` command.

``phasewatch [PATH]`` opens the dashboard; the other commands (``check``, ``simulate``,
``review``, ``escalation``, ``approve``) are headless and never import textual, so scripts start
fast. ``demo`` runs the simulator into a temporary directory and opens the dashboard on it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from phasewatch.core.text import clean

COMMANDS = ("check", "simulate", "demo", "review", "escalation", "approve", "dashboard")

EPILOG = """commands:
  phasewatch [PATH]                 open the live dashboard (default: current directory)
  phasewatch check [PATH]           audit once; exit 0 clean, 1 findings, 2 cannot read
  phasewatch demo                   simulated workflow with injected faults, in the dashboard
  phasewatch simulate DIR           drive a directory like a real agent workflow would
  phasewatch review ACTION [PATH]   answer the supervised review gate (continue|review|resume|redo)
  phasewatch escalation ACTION      answer pending escalations (retry|skip|cancel)
  phasewatch approve [PATH]         approve the TDD plan (--discard removes the lock only)

Run `phasewatch COMMAND --help` for a command's options."""


def _dashboard_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch",
        description="Live dashboard and supervised review console for phased agent workflows.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("path", nargs="?", default=None, help="project directory (default: cwd)")
    p.add_argument("--project", help="monorepo project id to open first")
    p.add_argument("--read-only", action="store_true", help="hide every write action")
    p.add_argument("--version", action="version", version="phasewatch 0.1.0")
    return p


def _check_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch check",
        description="Audit the project's workflow files once and print every finding.",
        epilog="exit codes: 0 clean, 1 error findings (--strict: warnings too), 2 cannot read / usage",
    )
    p.add_argument("path", nargs="?", default=None, help="project directory (default: cwd)")
    p.add_argument("--json", action="store_true", help="machine-readable output (schema 1)")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument("--rules", action="store_true", help="list every rule and exit")
    p.add_argument("--markdown", action="store_true", help="with --rules: a Markdown table")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="with --rules: where each rule comes from"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="only the summary line")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args and args[0] in COMMANDS else "dashboard"
    if args and args[0] in COMMANDS:
        args = args[1:]
    handlers: dict[str, Callable[[list[str]], int]] = {
        "check": cmd_check,
        "dashboard": cmd_dashboard,
        "demo": cmd_demo,
        "simulate": cmd_simulate,
        "review": lambda a: _decide("review", a),
        "escalation": lambda a: _decide("escalation", a),
        "approve": lambda a: _decide("approve", a),
    }
    try:
        return handlers[command](args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `phasewatch check | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


# ------------------------------------------------------------------------------ check

#: Characters ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal may act on (C1
#: controls such as the 8-bit CSI, bidirectional overrides); JSON spells them ``\\u00XX``.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def dumps(doc: Any) -> str:
    """``doc`` as indented JSON that is safe to print on a terminal: the data stay exact (names
    with escapes included), every control character is a JSON escape (json does C0 itself)."""
    text = json.dumps(doc, ensure_ascii=False, indent=2, default=str)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def cmd_check(argv: list[str]) -> int:
    args = _check_parser().parse_args(argv)
    if args.rules:
        return print_rules(args.json, args.markdown, references=args.verbose)
    if args.path is not None and not os.path.exists(args.path):
        # a directory or a file in the project (``PATH/.isdlc/state.json``, like ``review``)
        msg = f"phasewatch check: {clean(args.path)}: no such file or directory"
        if args.json:
            print(dumps({"schema": 1, "error": msg}))
        else:
            print(msg, file=sys.stderr)
        return 2
    from phasewatch.core.report import audit_project

    report = audit_project(args.path)
    if not report.project.systems:
        msg = (
            f"phasewatch check: no workflow files under {clean(str(report.project.root))} "
            "(.isdlc/, .tdd-progress.md, PLUGINS.md). Try `phasewatch demo` to see one."
        )
        if args.json:
            doc = report.to_json()
            doc["error"] = msg
            print(dumps(doc))
        else:
            print(msg, file=sys.stderr)
        return 2
    if args.json:
        doc = report.to_json()
        doc["exit_code"] = report.exit_code(args.strict)
        print(dumps(doc))
    else:
        from phasewatch.tui.check_output import print_report

        print_report(report, quiet=args.quiet, strict=args.strict)
    return report.exit_code(args.strict)


def print_rules(as_json: bool, markdown: bool, *, references: bool = False) -> int:
    from phasewatch.core.findings import all_rules

    rules = all_rules()
    if as_json:
        print(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "severity": str(r.severity),
                        "scope": r.scope,
                        "title": r.title,
                        "seed": r.seed,
                        "fix": r.fix,
                    }
                    for r in rules
                ],
                indent=2,
            )
        )
    elif markdown:
        print(rules_markdown(rules, references=references))
    else:
        from phasewatch.tui.check_output import print_rules_table

        print_rules_table(rules, references=references)
    return 0


def rules_markdown(rules, *, references: bool = True) -> str:
    """The rule table in Markdown; ``references``: with the "from" column (the README keeps it:
    docs may cite the format sections; the terminal shows it only with ``--verbose``)."""

    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    head = ["id", "severity", "what it means", *(["from"] if references else []), "how to fix"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rules:
        cells = [f"`{r.id}`", str(r.severity), esc(r.title)]
        cells += [*([esc(r.seed)] if references else []), esc(r.fix)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ dashboard


def cmd_dashboard(argv: list[str]) -> int:
    args = _dashboard_parser().parse_args(argv)
    if args.path is not None and not os.path.isdir(args.path):
        print(f"phasewatch: {args.path}: no such directory", file=sys.stderr)
        return 2
    from phasewatch.tui.dashboard import run_dashboard

    return run_dashboard(args.path, read_only=args.read_only, project_id=args.project)


def cmd_demo(argv: list[str]) -> int:
    from phasewatch.tui.demo import main as demo_main

    return demo_main(argv)


def cmd_simulate(argv: list[str]) -> int:
    from phasewatch.core.simulate.cli import add_arguments, run_from_args

    p = argparse.ArgumentParser(
        prog="phasewatch simulate",
        description="Play a workflow into DIR the way the real controller and hooks write it.",
    )
    add_arguments(p)
    return run_from_args(p.parse_args(argv))


def _decide(kind: str, argv: list[str]) -> int:
    from phasewatch.core import decide_cli

    p = argparse.ArgumentParser(prog=f"phasewatch {kind}")
    add = {
        "review": decide_cli.add_review_arguments,
        "escalation": decide_cli.add_escalation_arguments,
        "approve": decide_cli.add_approve_arguments,
    }[kind]
    add(p)
    args = p.parse_args(argv)
    return args.decide_runner(args)


if __name__ == "__main__":
    raise SystemExit(main())
