"""Plain/colour text output of ``phasewatch check`` (rich, never textual; file text is never
parsed as markup: every value goes in as ``Text``, and every name (the root, a file, a directory
or project id from a listing) is cleaned of escapes first: a directory can be named
``ESC ]52;c;...``, and ``check`` writes to terminals as well as pipes)."""

from __future__ import annotations

import json
import sys
from typing import Any

from phasewatch.core.findings import Finding, Rule, Severity
from phasewatch.core.report import Report
from phasewatch.core.tdd import summary_line
from phasewatch.core.text import clean, plural
from rich.console import Console
from rich.table import Table
from rich.text import Text

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
LABEL = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}


def _console() -> Console:
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


def plain(text: object, style: str = "") -> Text:
    """``text`` as a Rich ``Text`` cleaned of escapes and control characters (never markup)."""
    return Text(clean(str(text)), style=style)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if value == "" or value != value.strip() else value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def print_report(report: Report, *, quiet: bool = False, strict: bool = False) -> None:
    """The findings grouped by severity, then one verdict line that says what the exit code
    (``report.exit_code(strict)``) says."""
    console = _console()
    if not quiet:
        _print_head(console, report)
        for severity in Severity:
            group = [f for f in report.findings if f.severity == severity]
            if group:
                console.print()
                console.print(Text(f"{LABEL[severity]} ({len(group)})", style=STYLE[severity]))
                for finding in group:
                    _print_finding(console, finding)
    console.print()
    console.print(verdict_line(report, strict))


def verdict_line(report: Report, strict: bool = False) -> Text:
    """``1 error  2 warnings  0 infos  -> findings`` (``--strict``: warnings fail too)."""
    counts = report.summary
    tail = Text()
    for sev in Severity:
        n = counts[str(sev)]
        tail.append(plural(n, str(sev)), style=STYLE[sev] if n else "dim")
        tail.append("  ")
    code = report.exit_code(strict)
    verdict = {0: "clean", 1: "findings", 2: "cannot read"}[code]
    if code == 1 and strict and not counts[str(Severity.ERROR)]:
        verdict = "warnings fail under --strict"
    tail.append(f"-> {verdict}", style="bold")
    return tail




def _print_head(console: Console, report: Report) -> None:
    project = report.project
    head = Text("phasewatch check ", style="bold")
    head.append_text(plain(project.root))
    head.append(f"  [{', '.join(project.systems)}]", style="dim")
    console.print(head)
    for snap in report.snapshots:
        line = Text("  ")
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
    if report.hook_records:
        console.print(Text(f"  .isdlc/hook-activity.log  {plural(report.hook_records, 'record')}"))
    if report.tdd is not None:
        console.print(_plan_line(report.tdd))
    if report.plugins is not None:
        console.print(Text(f"  PLUGINS.md  {plural(len(report.plugins), 'plugin')}"))


def _plan_line(summary: dict[str, Any]) -> Text:
    """The TDD plan's summary; unapproved, what to do about it (implementing an unapproved plan
    is the mistake the approval step exists to catch, so ``check`` says so even without a
    finding)."""
    line = Text("  .tdd-progress.md  ", style="bold")
    line.append(summary_line(summary), style="" if summary["approved"] else "yellow")
    if not summary["approved"]:
        line.append(": read the plan, then `phasewatch approve` (or key a in the dashboard)")
    return line


def _print_finding(console: Console, f: Finding) -> None:
    line = Text("  ")
    line.append(f.rule_id, style=STYLE[f.severity])
    line.append("  ")
    line.append_text(plain(f.source, "dim"))
    line.append(" ")
    line.append_text(plain(f.path, "bold"))
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
    console = _console()
    table = Table(show_lines=False, header_style="bold", expand=False)
    columns = ["id", "severity", "scope", "what it means", "how to fix"]
    if references:
        columns.insert(4, "from")
    for col in columns:
        table.add_column(col, overflow="fold")
    for r in rules:
        cells = [Text(r.id, style=STYLE[r.severity]), Text(str(r.severity)), Text(r.scope)]
        cells += [Text(r.title), *([Text(r.seed)] if references else []), Text(r.fix)]
        table.add_row(*cells)
    console.print(table)
    console.print(Text(f"{len(rules)} rules"))
