"""The ``phasewatch`` command.

``phasewatch [PATH]`` opens the dashboard; the headless commands (``check``, the decisions,
``simulate``) never import textual, so scripts start fast. ``demo`` runs the simulator into a
temporary directory and opens the dashboard on it. :data:`COMMAND_TABLE`, at the end, is the one
list of commands: the dispatch, ``--help``'s list and the completion tree are made from it.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from phasewatch.core import memory
from phasewatch.core.config_file import config_to_read
from phasewatch.core.text import clean, json_safe
from phasewatch.tui.config_flags import _dashboard_config, _theme_problem

if TYPE_CHECKING:
    from phasewatch.core.decide.command import Kind as DecisionKind

#: How the commands' list in ``phasewatch --help`` is laid out (see :data:`COMMAND_TABLE`).
HELP_LIST = """commands:
{}

Run `phasewatch COMMAND --help` for a command's options. Every command takes --log FILE
(or PHASEWATCH_LOG=FILE): phasewatch's internal failures, with their tracebacks, appended to
FILE for a bug report; nothing is logged otherwise."""


class _Version(argparse.Action):
    """``--version`` (the version is read from the installed metadata only when asked)."""

    def __call__(self, parser, namespace, values, option_string=None):
        import phasewatch

        print(f"phasewatch {phasewatch.__version__}")
        parser.exit()


def _dashboard_parser(with_path: bool = True) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch",
        description="Live dashboard and supervised review console for phased agent workflows.",
        epilog=HELP_LIST.format("\n".join(f"  {c.usage:<34}{c.about}" for c in COMMAND_TABLE)),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if with_path:
        p.add_argument("path", nargs="?", default=None, help="project directory (default: cwd)")
    p.add_argument("--project", help="monorepo project id to open first")
    p.add_argument("--read-only", action="store_true", help="hide every write action")
    p.add_argument("--config", type=Path, default=None, help="config file (default: XDG)")
    p.add_argument(
        "--notify-cmd",
        metavar="CMD",
        default=None,
        help="run CMD with the event as JSON on stdin when a human is needed",
    )
    p.add_argument("--no-notify", action="store_true", help="no desktop notification or command")
    p.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    p.add_argument(
        "--log", metavar="FILE", help="append internal failures' tracebacks to FILE (any command)"
    )
    return p


def _check_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch check",
        description="Audit the project's workflow files once and print every finding.",
        epilog="exit codes: 0 clean, 1 error findings (--strict: warnings too), 2 cannot read / usage",
    )
    p.add_argument("path", nargs="?", default=None, help="project directory (default: cwd)")
    p.add_argument("--json", action="store_true", help="machine-readable output (schema 1)")
    p.add_argument(
        "--format",
        choices=("text", "json", "sarif", "github"),
        default=None,
        help="text (default), json (= --json), sarif (SARIF 2.1.0 for code scanning), "
        "github (workflow commands: annotations in GitHub Actions)",
    )
    p.add_argument("--config", type=Path, default=None, help="config file (rule overrides)")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument("--rules", action="store_true", help="list every rule and exit")
    p.add_argument("--markdown", action="store_true", help="with --rules: a Markdown table")
    p.add_argument(
        "--verbose", "-v", action="store_true", help="with --rules: where each rule comes from"
    )
    p.add_argument("--quiet", "-q", action="store_true", help="only the summary line")
    p.add_argument(
        "--against",
        metavar="FILE",
        default=None,
        help="an earlier copy of state.json (a file, a pipe such as <(git show "
        "HEAD:.isdlc/state.json), or - for stdin): also judge the state as a write over it",
    )
    return p


def _no_pydantic_plugins() -> None:
    """Tell pydantic this process has no plugins, unless the user set its own switch.

    The first time pydantic builds a validator it looks for plugins among the installed
    packages' entry points: it imports ``importlib.metadata`` (a share of a ``check``'s time:
    docs/performance.md#the-command-line) to find none. phasewatch's models are its own business, so the ``phasewatch``
    process answers "none" in the place of pydantic's loader. With ``PYDANTIC_DISABLE_PLUGINS``
    set (even empty) pydantic's loader runs and does as it says. The command's choice only:
    ``phasewatch.core`` imported into someone's program leaves pydantic as it is."""
    name = "pydantic.plugin._loader"
    if "PYDANTIC_DISABLE_PLUGINS" in os.environ or name in sys.modules:
        return
    loader = types.ModuleType(name, "No pydantic plugins in the phasewatch command.")
    loader.get_plugins = tuple  # type: ignore[attr-defined]  # get_plugins() -> ()
    sys.modules[name] = loader


def _command(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The command ``argv`` names (the dashboard when it names none) and its arguments."""
    if argv and argv[0] in COMMANDS:
        return argv[0], list(argv[1:])
    return "dashboard", list(argv)


def _did_you_mean(args: Sequence[str]) -> str | None:
    """The command a mistyped first word was probably meant to be (it is no directory)."""
    import difflib

    word = args[0] if args else ""
    if not word or word.startswith("-") or os.path.exists(word):
        return None
    near = difflib.get_close_matches(word.lower(), COMMANDS, n=1, cutoff=0.6)
    return near[0] if near else None


def run() -> int:
    """The ``phasewatch`` process (the script and ``python -m phasewatch``): :func:`main`, and
    after a ``check``, which writes no file, no tidying of the heap on the way out. The
    interpreter's exit would search every object it made (pydantic's schemas, the parsed state)
    for garbage cycles to free, one at a time, for a process about to end
    (docs/performance.md#the-command-line). Frozen, the collector skips them; the exit still flushes and runs its handlers.
    The dashboard's start-up runs with the collector paused (see ``freeze_startup`` in
    tui/startup.py)."""
    argv = sys.argv[1:]
    command = _command(_log_option(argv)[1])[0]
    if COMMANDS[command].pauses_collector:
        # the imports' share of the start-up too; the app starts it again once its data shows
        memory.pause_collector()
    code = main(argv)
    if command in ("check", "dashboard"):  # the dashboard: a state of 32,000 phases, 0.5 s
        gc.freeze()
    return code


def _log_option(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """The file ``--log FILE`` (or ``--log=FILE``) names anywhere before ``--``, which every
    command takes, and the arguments without it; the last one wins."""
    rest, path, args = [], None, list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            rest += [arg, *args]
            break
        if arg == "--log" and args:
            path = args.pop(0)
        elif arg.startswith("--log="):
            path = arg.removeprefix("--log=")
        else:
            rest.append(arg)
    return path, rest


def _start_log(path: str | None) -> bool:
    """Log to ``path`` (``--log``) or ``PHASEWATCH_LOG``'s file; False after saying why the file
    cannot be opened. Without either nothing is logged anywhere (core/log.py). The file is
    handed on in ``PHASEWATCH_LOG`` (absolute), so the processes this one starts (``serve``'s
    dashboards) log to it too."""
    from phasewatch.core.log import ENV, from_environment

    where = path if path is not None else from_environment()
    if where is None:
        return True
    from phasewatch.core.log import log_to

    try:
        log_to(where)
    except OSError as exc:
        name = "--log" if path is not None else ENV
        reason = exc.strerror or type(exc).__name__
        print(f"phasewatch: {name}: cannot write {clean(where)}: {reason}", file=sys.stderr)
        return False
    os.environ[ENV] = os.path.abspath(where)
    return True


def main(argv: Sequence[str] | None = None) -> int:
    _no_pydantic_plugins()
    log, argv = _log_option(sys.argv[1:] if argv is None else argv)
    if not _start_log(log):
        return 2
    command, args = _command(argv)
    if command == "dashboard" and (near := _did_you_mean(args)):
        print(
            f"phasewatch: {clean(args[0])!r} is neither a command nor a directory; "
            f"did you mean `phasewatch {near}`?",
            file=sys.stderr,
        )
        return 2
    try:
        return COMMANDS[command].run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `phasewatch check | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


# ------------------------------------------------------------------------------ check


def dumps(doc: Any) -> str:
    """``doc`` as indented JSON that is safe to print on a terminal: the data stay exact (names
    with escapes included), every control character is a JSON escape (json does C0 itself)."""
    return json_safe(json.dumps(doc, ensure_ascii=False, indent=2, default=str))


def cmd_check(argv: list[str]) -> int:
    args = _check_parser().parse_args(argv)
    args.json = args.json or args.format == "json"
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
    config = None
    if config_to_read(args.config):  # (the defaults change nothing: pydantic's Config unbuilt)
        config = _check_config(args.config)
        if config is None:
            return 2
    against = None
    if args.against is not None:
        against = _read_against(args.against)
        if isinstance(against, str):
            if args.json:
                print(dumps({"schema": 1, "error": against}))
            else:
                print(against, file=sys.stderr)
            return 2
    from phasewatch.core.report import audit_project

    report = audit_project(args.path, config=config, against=against)
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
            if args.format == "sarif":  # still a valid log: a CI step may upload it
                _print_ci_format(report, "sarif", failure=msg)
            print(msg, file=sys.stderr)
        return 2
    if args.format in ("sarif", "github"):
        _print_ci_format(report, args.format)
    elif args.json:
        doc = report.to_json()
        doc["exit_code"] = report.exit_code(args.strict)
        print(dumps(doc))
    else:
        from phasewatch.tui.check_output import print_report

        print_report(report, quiet=args.quiet, strict=args.strict)
    return report.exit_code(args.strict)


def _read_against(name: str):
    """``check --against``'s copy, parsed as the state is (a ReadResult), or the error message."""
    from phasewatch.core.files.read import ReadRefused, read_given
    from phasewatch.core.sources import MAX_JSON_BYTES, parse_document

    where = "standard input" if name == "-" else clean(name)
    try:
        raw = read_given(name, cap=MAX_JSON_BYTES)
    except ReadRefused as exc:
        return f"phasewatch check: --against {where}: {exc.reason}"
    result = parse_document(Path(name), raw)
    if not result.ok:
        return f"phasewatch check: --against {where}: not a state to compare with ({result.error})"
    return result


def print_rules(as_json: bool, markdown: bool, *, references: bool = False) -> int:
    from phasewatch.core.rules import all_rules

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
        print(f"phasewatch: {clean(args.path)}: no such directory", file=sys.stderr)
        return 2
    if args.project is not None:
        from phasewatch.core.sources import project_id_problem

        problem = project_id_problem(args.project)
        if problem is not None:
            print(f"phasewatch: --project: {problem}", file=sys.stderr)
            return 2
    config = _dashboard_config(args)
    if config is False:
        return 2
    from phasewatch.tui.dashboard import run_dashboard

    return run_dashboard(
        args.path, read_only=args.read_only, project_id=args.project, config=config
    )


def cmd_demo(argv: list[str]) -> int:
    from phasewatch.tui.demo import main as demo_main

    return demo_main(argv)


def cmd_simulate(argv: list[str]) -> int:
    from phasewatch.core.simulate.run import run_from_args

    return run_from_args(_simulate_parser().parse_args(argv))


def _simulate_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch simulate",
        description="Play a workflow into DIR the way the real controller and hooks write it.",
    )
    _simulate_options(p)
    return p


def _simulate_options(parser: argparse.ArgumentParser) -> None:
    from phasewatch.core.simulate.types import WORKFLOW_CHOICES

    parser.add_argument("directory", metavar="DIR", nargs="?", help="project directory to write")
    parser.add_argument(
        "--workflow",
        choices=(*WORKFLOW_CHOICES, "plugins"),
        default="feature",
        help="default: feature; 'plugins' walks a plugin registry (PLUGINS.md) through its stages",
    )
    parser.add_argument(
        "--plugins",
        default="MinimalKick,GainKnob",
        metavar="A,B",
        help="with --workflow plugins: the plugin names (default: MinimalKick,GainKnob)",
    )
    parser.add_argument(
        "--faults",
        default="",
        metavar="A,B",
        help="comma-separated faults to inject, each optionally name@phase-key (see --list-faults)",
    )
    parser.add_argument("--fast", action="store_true", help="no pauses, virtual clock")
    parser.add_argument("--seed", type=int, default=None, help="reproduce a run")
    parser.add_argument(
        "--speed", type=float, default=1.0, help="pace factor (default 1.0: ~1.5 min)"
    )
    parser.add_argument(
        "--auto-decide",
        action="store_true",
        help="answer review gates, escalations and plan approval automatically",
    )
    parser.add_argument(
        "--supervised", action="store_true", help="enable supervised_mode (review gates)"
    )
    parser.add_argument(
        "--review-phases",
        default=None,
        metavar="03,06",
        help="review only these phase prefixes (implies --supervised)",
    )
    parser.add_argument(
        "--escalate",
        default="auto",
        metavar="PHASES",
        help="phases whose gate blocks: auto (one, by seed), none, or comma-separated keys",
    )
    parser.add_argument(
        "--tdd-lock", action="store_true", help="tdd: also the legacy .tdd-plan-locked marker"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="start on top of an existing state.json that has no active workflow",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="give up waiting for a decision after N s"
    )
    parser.add_argument("--list-faults", action="store_true", help="list the faults and exit")


def _demo_parser() -> argparse.ArgumentParser:
    from phasewatch.tui.demo import build_parser

    return build_parser()


def _decision_options(parser: argparse.ArgumentParser, *, versioned: bool = True) -> None:
    """The options every decision command has."""
    parser.add_argument(
        "path",
        nargs="?",
        default=None,
        help="project directory (or the file itself); default: $CLAUDE_PROJECT_DIR or cwd",
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


def _decide_parser(kind: str) -> argparse.ArgumentParser:
    """``phasewatch review|escalation|approve``: the review gate, escalations, plan approval."""
    from phasewatch.core.decide.outcomes import ESCALATION_ACTIONS, REVIEW_ACTIONS

    p = argparse.ArgumentParser(prog=f"phasewatch {kind}")
    if kind == "review":
        p.add_argument("action", choices=REVIEW_ACTIONS, help="the gate answer")
        _decision_options(p)
        p.add_argument("--guidance", default=None, help="what the redo should change (redo)")
    elif kind == "escalation":
        p.add_argument("action", choices=ESCALATION_ACTIONS, help="the answer")
        _decision_options(p)
        p.add_argument("--reason", default=None, help="why the workflow is cancelled (cancel)")
    else:
        _decision_options(p, versioned=False)
        p.add_argument(
            "--discard", action="store_true", help="only remove .tdd-plan-locked (no approval)"
        )
        p.add_argument(
            "--expect-sha256",
            default=None,
            metavar="HEX",
            help="refuse unless the file is unchanged",
        )
    return p


def _decide(kind: DecisionKind, argv: list[str]) -> int:
    from phasewatch.core.decide.command import Command, run

    args = vars(_decide_parser(kind).parse_args(argv))
    return run(Command(kind=kind, **args))


def _repair_parser() -> argparse.ArgumentParser:
    """``phasewatch repair``: guided repair of location drift or a stale write."""
    p = argparse.ArgumentParser(
        prog="phasewatch repair",
        description="Repair state.json: where the three locations disagree (as the framework's "
        "V9 warns), or, with --against, a write that regressed the orchestration fields. Shows "
        "the plan and asks before writing (--yes: do not ask; needed off a terminal).",
        epilog="exit codes: 0 applied, nothing to repair or --dry-run; 2 nothing that can be "
        "repaired safely, not confirmed, or usage; 3 the file changed (look again), or the "
        "owner's next write reverted it; 1 I/O error",
    )
    _decision_options(p, versioned=False)
    p.add_argument(
        "--project", default=None, help="monorepo project id (default: the default project)"
    )
    p.add_argument(
        "--against",
        default=None,
        metavar="FILE",
        help="an earlier copy of the state: restore what a later write moved back",
    )
    p.add_argument("--dry-run", action="store_true", help="print the plan; write nothing")
    p.add_argument("--yes", action="store_true", help="apply without asking")
    p.add_argument(
        "--undo",
        action="store_true",
        help="put back what the newest repair replaced (only while nobody wrote since)",
    )
    return p


def cmd_repair(argv: list[str]) -> int:
    from phasewatch.core.decide.command import RepairCommand, run_repair

    args = vars(_repair_parser().parse_args(argv))
    return run_repair(RepairCommand(**args))


def _check_config(path: Path | None):
    """The config (agents accepted, per-rule severities); None after printing why it is
    unusable."""
    from phasewatch.core.config import ConfigError, load

    try:
        return load(path)[0]
    except ConfigError as exc:
        print(f"phasewatch check: {exc}", file=sys.stderr)
        return None


def _print_ci_format(report, kind: str, failure: str | None = None) -> None:
    import phasewatch
    from phasewatch.core.export import github_commands, to_sarif
    from phasewatch.core.rules import all_rules

    if kind == "sarif":
        import msgspec

        # the log is our own strings, ints and lists (no NaN, no big ints): msgspec writes the
        # same indented JSON as `dumps` in a tenth of the time (docs/performance.md)
        log = to_sarif(report, all_rules(), phasewatch.__version__, failure=failure)
        print(json_safe(msgspec.json.format(msgspec.json.encode(log), indent=2).decode()))
    else:
        for line in github_commands(report):
            print(line)


# ------------------------------------------------------------------------------ serve, config


def cmd_serve(argv: list[str]) -> int:
    from phasewatch.tui.serve import run

    return run(_serve_parser().parse_args(argv))


def _serve_parser() -> argparse.ArgumentParser:
    from phasewatch.tui.serve import add_arguments

    p = argparse.ArgumentParser(
        prog="phasewatch serve", description="The dashboard in a browser (needs phasewatch[web])."
    )
    add_arguments(p)
    return p


def _config_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="phasewatch config", description="The configuration file.")
    p.add_argument("--show", action="store_true", help="print the effective configuration")
    p.add_argument("--config", type=Path, default=None, help="a config file (default: XDG)")
    return p


def cmd_config(argv: list[str]) -> int:
    from phasewatch.core.config import ConfigError, load, show

    args = _config_parser().parse_args(argv)
    try:
        config, where = load(args.config)
    except ConfigError as exc:
        print(f"phasewatch config: {exc}", file=sys.stderr)
        return 2
    problem = _theme_problem(config)
    if problem:
        print(f"phasewatch config: {clean(str(where))}: {problem}", file=sys.stderr)
        return 2
    print(show(config, where) if args.show else clean(str(where)))
    return 0


# ------------------------------------------------------------------------------ completion

#: Shells ``shtab`` writes a completion script for.
SHELLS = ("bash", "zsh", "tcsh")
COMPLETION_HINT = (  # no release on the index yet: the checkout's or the wheel's extra (README)
    "phasewatch completion needs shtab, the phasewatch[completion] extra: pip install shtab "
    "in phasewatch's environment (or, in a checkout, pip install -e '.[completion]')"
)


def _completion_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="phasewatch completion",
        description="Print a shell completion script, e.g. "
        "`phasewatch completion bash > ~/.local/share/bash-completion/completions/phasewatch`.",
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    return p


def command_parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    """Each command's parser builder: the same functions the commands parse with."""
    return {c.name: c.parser for c in COMMAND_TABLE}


def full_parser(directory_hint: Any = None) -> argparse.ArgumentParser:
    """The whole command line as one argparse tree, for completion only: the dashboard's parser
    at the root (its PATH hidden), each command's own parser as a subcommand (``main`` dispatches
    by hand, so that a headless command never builds, or imports, the others). ``directory_hint``,
    when given, is the ``complete`` hint of every project-directory positional."""
    root = _dashboard_parser(with_path=False)  # TAB after `phasewatch` offers the commands
    sub = root.add_subparsers(dest="command", metavar="COMMAND")
    for name, build in command_parsers().items():
        child = build()
        about = child.description or f"phasewatch {name}"
        sub.add_parser(name, parents=[child], add_help=False, help=about, description=about)
    if directory_hint is not None:
        for parser in (root, *sub.choices.values()):
            for action in parser._actions:
                if not action.option_strings and action.dest in ("path", "directory"):
                    action.complete = directory_hint  # type: ignore[attr-defined]  # shtab's hook
    return root


def cmd_completion(argv: list[str]) -> int:
    args = _completion_parser().parse_args(argv)
    try:
        import shtab
    except ImportError:
        print(COMPLETION_HINT, file=sys.stderr)
        return 2
    print(shtab.complete(full_parser(shtab.DIRECTORY), shell=args.shell))
    return 0


# ------------------------------------------------------------------------------ the commands


class Command(NamedTuple):
    """One command: its name, its line in ``--help`` (``usage``, ``about``), what runs it (with
    the arguments after its name) and its parser's builder (the one it parses with)."""

    name: str
    usage: str
    about: str
    run: Callable[[list[str]], int]
    parser: Callable[[], argparse.ArgumentParser]
    #: Start-up with the collector paused (the app's start; see :func:`run`).
    pauses_collector: bool = False


def _decision(
    kind: DecisionKind,
) -> tuple[Callable[[list[str]], int], Callable[[], argparse.ArgumentParser]]:
    return (lambda argv: _decide(kind, argv)), (lambda: _decide_parser(kind))


#: Every command, in ``--help``'s order (the first, the dashboard, also runs without a name).
COMMAND_TABLE = (
    Command("dashboard", "phasewatch [PATH]", "open the live dashboard (default: current directory)",
            cmd_dashboard, _dashboard_parser, pauses_collector=True),
    Command("check", "phasewatch check [PATH]", "audit once; exit 0 clean, 1 findings, 2 cannot read",
            cmd_check, _check_parser),
    Command("demo", "phasewatch demo", "simulated workflow with injected faults, in the dashboard",
            cmd_demo, _demo_parser, pauses_collector=True),
    Command("simulate", "phasewatch simulate DIR", "drive a directory like a real agent workflow would",
            cmd_simulate, _simulate_parser),
    Command("review", "phasewatch review ACTION [PATH]",
            "answer the supervised review gate (continue|review|resume|redo)", *_decision("review")),
    Command("escalation", "phasewatch escalation ACTION",
            "answer pending escalations (retry|skip|cancel)", *_decision("escalation")),
    Command("approve", "phasewatch approve [PATH]",
            "approve the TDD plan (--discard removes the lock only)", *_decision("approve")),
    Command("repair", "phasewatch repair [PATH]",
            "repair location drift, or a stale write (--against FILE)", cmd_repair, _repair_parser),
    Command("serve", "phasewatch serve [PATH]",
            "the dashboard in a browser (loopback, token; phasewatch[web])", cmd_serve, _serve_parser),
    Command("config", "phasewatch config --show", "print the effective configuration",
            cmd_config, _config_parser),
    Command("completion", "phasewatch completion SHELL",
            "print a completion script (bash, zsh, tcsh)", cmd_completion, _completion_parser),
)  # fmt: skip
#: The commands by name.
COMMANDS = {c.name: c for c in COMMAND_TABLE}


if __name__ == "__main__":
    raise SystemExit(main())
