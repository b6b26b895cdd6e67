"""``phasewatch check`` for CI: SARIF 2.1.0 (code scanning) and GitHub workflow commands.

Both are built from the same :class:`~phasewatch.core.report.Report` as the text and JSON output.
Every string that came from a file is passed through :func:`~phasewatch.core.text.clean` (no
escape sequence reaches a CI log; a workflow command is one line, its newlines escaped), SARIF
URIs are percent-encoded (RFC 3986: a name with a space, ``%``, ``#`` or non-ASCII letters still
names its file), and every result names a file and a line: code scanning shows a result without
``region.startLine`` nowhere.

Lines: a finding's ``path`` is a JSON path into a state file (``phases.06-x.status``,
``workflow_history[3].status``) or, for the Markdown files, may name a line (``line 12``).
:func:`line_of` finds the line of the deepest key of a JSON path that the text holds, scanning
forward key by key (the owners write one key per line); anything else is line 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .findings import Finding, Rule, Severity
from .report import Report
from .sources import read_text
from .text import clean, one_line

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
INFO_URI = "https://github.com/phasewatch/phasewatch"

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}

_LINE_IN_PATH = re.compile(r"\bline (\d+)\b")
_PATH_KEY = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|([^.\[\]]+)|\[\d+\]')


def path_keys(path: str) -> list[str]:
    """The object keys of a finding's JSON path, in order (list indexes left out):
    ``a.b[2]["c.d"].e`` -> ``["a", "b", "c.d", "e"]``."""
    keys: list[str] = []
    for quoted, bare in _PATH_KEY.findall(path or ""):
        if quoted:
            try:
                keys.append(json.loads(f'"{quoted}"'))
            except ValueError:
                keys.append(quoted)
        elif bare and bare != "$":
            keys.append(bare)
    return keys


def line_of(text: str, path: str) -> int:
    """The 1-based line of ``path`` in ``text`` (see the module docstring); 1 when unknown."""
    named = _LINE_IN_PATH.search(path or "")
    if named:
        return max(1, int(named.group(1)))
    offset, found = 0, -1
    for key in path_keys(path):
        at = text.find(json.dumps(key, ensure_ascii=False) + ":", offset)
        if at < 0:
            break
        found, offset = at, at + 1
    return text.count("\n", 0, found) + 1 if found >= 0 else 1


def _reader(root: Path, cap: int = 8 * 1024 * 1024) -> Callable[[str], str]:
    """Text of a project file by relative path, read once (capped; "" when unreadable)."""
    cache: dict[str, str] = {}

    def read(rel: str) -> str:
        if rel not in cache:
            text, _error = read_text(root / rel, max_bytes=cap)
            cache[rel] = text or ""
        return cache[rel]

    return read


def _located(report: Report) -> Iterable[tuple[Finding, str, int]]:
    read = _reader(Path(report.project.root))
    for finding in report.findings:
        uri = Path(finding.source).as_posix() if finding.source else "."
        line = line_of(read(finding.source), finding.path) if finding.source else 1
        yield finding, uri, line


def _text(finding: Finding) -> str:
    parts = [clean(finding.message)]
    if finding.path:
        parts.append(f"at {clean(finding.path)}")
    if finding.expected is not None or finding.actual is not None:
        parts.append(f"expected {_value(finding.expected)}, actual {_value(finding.actual)}")
    if finding.hint:
        parts.append(clean(finding.hint))
    return ". ".join(p.rstrip(".") for p in parts if p) + "."


def _value(value: Any) -> str:
    try:
        return clean(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return clean(str(value))


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.id,
        "shortDescription": {"text": clean(rule.title)},
        "help": {"text": clean(rule.fix)},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"scope": rule.scope},
    }


def to_sarif(report: Report, rules: list[Rule], version: str) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 log: one run, every registered rule, one result a
    finding (a finding's own severity may differ from its rule's default: it is ``level``)."""
    index = {r.id: i for i, r in enumerate(rules)}
    results = []
    for finding, uri, line in _located(report):
        result: dict[str, Any] = {
            "ruleId": finding.rule_id,
            "level": LEVEL[finding.severity],
            "message": {"text": _text(finding)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": quote(uri, safe="/"), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": line},
                    },
                    "logicalLocations": [{"fullyQualifiedName": one_line(finding.path or uri)}],
                }
            ],
            "partialFingerprints": {
                "phasewatch/v1": "|".join((finding.rule_id, one_line(uri), one_line(finding.path)))
            },
        }
        if finding.rule_id in index:
            result["ruleIndex"] = index[finding.rule_id]
        results.append(result)
    driver = {
        "name": "phasewatch",
        "version": version,
        "informationUri": INFO_URI,
        "rules": [_rule_descriptor(r) for r in rules],
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {"tool": {"driver": driver}, "results": results, "columnKind": "unicodeCodePoints"}
        ],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_commands(report: Report) -> list[str]:
    """One workflow command a finding (``::error file=...,line=...,title=...::message``): the
    Actions runner turns each into an annotation on the file."""
    lines = []
    for finding, uri, line in _located(report):
        props = ",".join(
            f"{k}={_escape_property(v)}"
            for k, v in (("file", one_line(uri)), ("line", str(line)), ("title", finding.rule_id))
        )
        lines.append(
            f"::{GITHUB_COMMAND[finding.severity]} {props}::{_escape_data(_text(finding))}"
        )
    return lines
