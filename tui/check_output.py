"""Plain/colour text output of ``phasewatch check`` (never textual; file text is never parsed as
markup: every value goes in as a span of plain text, and every name (the root, a file, a
directory or project id from a listing) is cleaned of escapes first: a directory can be named
``ESC ]52;c;...``, and ``check`` writes to terminals as well as pipes).

A report is built once, as :class:`Line` s of (text, style) spans. On a terminal (or with
``FORCE_COLOR``) rich prints them in colour; in a pipe, where rich would print the same text
without styles, they are written as they are and rich is never imported (a share of a
script's ``check``: docs/performance.md#the-command-line). A test holds the two renderings to the same text."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any

from phasewatch.core.findings import Finding, Rule, Severity
from phasewatch.core.report import Report
from phasewatch.core.systems import registered
from phasewatch.core.text import clean, one_line, plural

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
LABEL = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}


TAB_SIZE = 8  # rich's, so a value with a tab reads the same in a pipe and on a terminal


def _console() -> Console:
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


class Line:
    """One line of output: (text, style) spans, styles in rich's words (``"bold red"``). It is
    one line whatever its text holds: every span is :func:`~core.text.one_line` (cleaned, a
    newline shown as ``⏎``), so file content never starts a line of its own (the output feeds
    the pre-commit hook and CI logs, where a line starting ``::`` is a command)."""

    __slots__ = ("spans",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.spans: list[tuple[str, str]] = [(one_line(text), style)] if text else []

    def append(self, text: str, style: str = "") -> None:
        self.spans.append((one_line(text), style))

    def append_text(self, other: Line) -> None:
        self.spans += other.spans

    @property
    def plain(self) -> str:
        return "".join(text for text, _style in self.spans).expandtabs(TAB_SIZE)

    def rich(self) -> Text:
        from rich.text import Text

        out = Text(tab_size=TAB_SIZE)
        for text, style in self.spans:
            out.append(text, style)
        return out


class Printer:
    """Prints :class:`Line` s: through rich when colour can show (a terminal, ``FORCE_COLOR``),
    else as plain text."""

    def __init__(self, colour: bool | None = None) -> None:
        if colour is None:
            colour = sys.stdout.isatty() or bool(os.environ.get("FORCE_COLOR"))
        self.console = _console() if colour else None

    def print(self, line: Line | None = None) -> None:
        if self.console is not None:
            self.console.print(line.rich() if line is not None else "")
        else:
            sys.stdout.write((line.plain if line is not None else "") + "\n")


def plain(text: object, style: str = "") -> Line:
    """``text`` cleaned of escapes and control characters (never markup), in ``style``."""
    return Line(str(text), style)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if value == "" or value != value.strip() else value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def print_report(
    report: Report, *, quiet: bool = False, strict: bool = False, colour: bool | None = None
) -> None:
    """The findings grouped by severity, then one verdict line that says what the exit code
    (``report.exit_code(strict)``) says. ``colour``: rich's styles (default: on a terminal)."""
    console = Printer(colour)
    if not quiet:
        _print_head(console, report)
        for severity in Severity:
            group = [f for f in report.findings if f.severity == severity]
            if group:
                console.print()
                console.print(Line(f"{LABEL[severity]} ({len(group)})", STYLE[severity]))
                for finding in group:
                    _print_finding(console, finding)
        console.print()
    console.print(verdict_line(report, strict))


def verdict_line(report: Report, strict: bool = False) -> Line:
    """``1 error  2 warnings  0 infos  -> findings`` (``--strict``: warnings fail too); "clean"
    only when nothing but information is left, "no errors" when warnings remain."""
    counts = report.summary
    tail = Line()
    for sev in Severity:
        n = counts[str(sev)]
        tail.append(plural(n, str(sev)), style=STYLE[sev] if n else "dim")
        tail.append("  ")
    code = report.exit_code(strict)
    verdict = {0: "clean", 1: "findings", 2: "cannot read"}[code]
    if code == 0 and counts[str(Severity.WARNING)]:
        verdict = "no errors"
    if code == 1 and strict and not counts[str(Severity.ERROR)]:
        verdict = "warnings fail under --strict"
    tail.append(f"-> {verdict}", style="bold")
    return tail


def _print_head(console: Printer, report: Report) -> None:
    project = report.project
    head = Line("phasewatch check ", "bold")
    head.append_text(plain(project.root))
    head.append(f"  [{', '.join(project.systems)}]", style="dim")
    console.print(head)
    for snap in report.snapshots:
        line = Line("  ")
        line.append_text(plain(snap.source, "bold"))
        if snap.version is not None:
            line.append(f"  v{snap.version}")
        wf = snap.workflow
        if wf is not None:
            line.append_text(plain(f"  {wf.type or '?'}"))
            if wf.artifact_folder:
                line.append_text(plain(f" {wf.artifact_folder}"))
            if wf.current_phase:
                line.append_text(plain(f"  at {wf.current_phase}"))
        elif snap.read_status == "ok":
            line.append("  no active workflow", style="dim")
        if snap.read_status != "ok":
            line.append(f"  ({snap.read_status})", style="red")
        console.print(line)
    if report.against is not None:
        line = Line("  judged as a write over ", "dim")
        line.append_text(plain(report.against["source"]))
        if report.against["state_version"] is not None:
            line.append(f"  v{report.against['state_version']}")
        console.print(line)
    if report.hook_records:
        console.print(Line(f"  .isdlc/hook-activity.log  {plural(report.hook_records, 'record')}"))
    for key in registered():  # each system's line (its module is imported only if it is used)
        summary = report.parts.get(key.name)
        if summary is not None:
            line = Line("  ")
            for text, style in key.system().check_line(summary):
                line.append(text, style)
            console.print(line)


def _print_finding(console: Printer, f: Finding) -> None:
    line = Line("  ")
    line.append(f.rule_id, style=STYLE[f.severity])
    line.append("  ")
    line.append_text(plain(f.source, "dim"))
    if f.place:
        line.append(" ")
        line.append_text(plain(f.place, "bold"))
    console.print(line)
    console.print(plain(f"      {f.message}"))
    if f.expected is not None or f.actual is not None:
        console.print(
            plain(f"      expected: {_value(f.expected)}   actual: {_value(f.actual)}", "dim")
        )
    if f.hint:
        console.print(plain(f"      fix: {f.hint}", "green"))


def print_rules_table(rules: list[Rule], *, references: bool = False) -> None:
    """The rule table in plain words; ``references``: also where each rule comes from (the
    format section or design document: ``--rules --verbose``)."""
    from rich.table import Table
    from rich.text import Text

    console = _console()
    if not console.is_terminal:  # a pipe: one rule a line, tab-separated, ids whole for grep
        for r in rules:
            words = [r.id, str(r.severity), r.scope, r.title, *([r.seed] if references else [])]
            console.file.write("\t".join(clean(w) for w in [*words, r.fix]) + "\n")
        console.file.write(f"{len(rules)} rules\n")
        return
    table = Table(show_lines=False, header_style="bold", expand=False)
    columns = ["id", "severity", "scope", "what it means", "how to fix"]
    if references:
        columns.insert(4, "from")
    for col in columns:  # an id is never broken across lines
        table.add_column(col, overflow="fold", no_wrap=col == "id")
    for r in rules:
        cells = [Text(r.id, style=STYLE[r.severity]), Text(str(r.severity)), Text(r.scope)]
        cells += [Text(r.title), *([Text(r.seed)] if references else []), Text(r.fix)]
        table.add_row(*cells)
    console.print(table)
    console.print(Text(f"{len(rules)} rules"))
