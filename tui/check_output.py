"""Plain/colour text output of ``phasewatch check`` (rich, never textual; file text is never
parsed as markup: every value goes in as ``Text``)."""

from __future__ import annotations

import json
import sys
from typing import Any

from phasewatch.core.findings import Finding, Rule, Severity
from phasewatch.core.report import Report
from phasewatch.core.tdd import summary_line
from rich.console import Console
from rich.table import Table
from rich.text import Text

STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}
LABEL = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}


def _console() -> Console:
    return Console(file=sys.stdout, highlight=False, markup=False, emoji=False, soft_wrap=True)


def _value(value: Any) -> str:
    if isinstance(value, str):
        return repr(value) if value == "" or value != value.strip() else value
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def print_report(report: Report, *, quiet: bool = False) -> None:
    console = _console()
    project = report.project
    if not quiet:
        head = Text("phasewatch check ", style="bold")
        head.append(str(project.root))
        head.append(f"  [{', '.join(project.systems)}]", style="dim")
        console.print(head)
        for snap in report.snapshots:
            line = Text("  ")
            line.append(snap.source, style="bold")
            if snap.version is not None:
                line.append(f"  v{snap.version}")
            wf = snap.workflow
            if wf is not None:
                line.append(f"  {wf.type or '?'}")
                if wf.artifact_folder:
                    line.append(f" {wf.artifact_folder}")
                if wf.current_phase:
                    line.append(f"  at {wf.current_phase}")
            elif snap.read_status == "ok":
                line.append("  no active workflow", style="dim")
            if snap.read_status != "ok":
                line.append(f"  ({snap.read_status})", style="red")
            console.print(line)
        if report.hook_records:
            console.print(Text(f"  .isdlc/hook-activity.log  {report.hook_records} records"))
        if report.tdd is not None:
            console.print(Text(f"  .tdd-progress.md  {summary_line(report.tdd)}"))
        for severity in Severity:
            group = [f for f in report.findings if f.severity == severity]
            if group:
                console.print()
                console.print(Text(f"{LABEL[severity]} ({len(group)})", style=STYLE[severity]))
                for finding in group:
                    _print_finding(console, finding)
    counts = report.summary
    console.print()
    tail = Text()
    for sev in Severity:
        n = counts[str(sev)]
        tail.append(f"{n} {sev}{'s' if n != 1 else ''}", style=STYLE[sev] if n else "dim")
        tail.append("  ")
    verdict = {0: "clean", 1: "findings", 2: "cannot read"}[report.exit_code()]
    tail.append(f"-> {verdict}", style="bold")
    console.print(tail)


def _print_finding(console: Console, f: Finding) -> None:
    line = Text("  ")
    line.append(f.rule_id, style=STYLE[f.severity])
    line.append("  ")
    line.append(f.source, style="dim")
    line.append(" ")
    line.append(f.path, style="bold")
    console.print(line)
    console.print(Text(f"      {f.message}"))
    if f.expected is not None or f.actual is not None:
        console.print(
            Text(f"      expected: {_value(f.expected)}   actual: {_value(f.actual)}", style="dim")
        )
    if f.hint:
        console.print(Text(f"      fix: {f.hint}", style="green"))


def print_rules_table(rules: list[Rule]) -> None:
    console = _console()
    table = Table(show_lines=False, header_style="bold", expand=False)
    for col in ("id", "severity", "scope", "what it means", "from", "how to fix"):
        table.add_column(col, overflow="fold")
    for r in rules:
        table.add_row(
            Text(r.id, style=STYLE[r.severity]),
            Text(str(r.severity)),
            Text(r.scope),
            Text(r.title),
            Text(r.seed),
            Text(r.fix),
        )
    console.print(table)
    console.print(Text(f"{len(rules)} rules"))
