"""``phasewatch check`` for CI: SARIF 2.1.0 (code scanning) and GitHub workflow commands.

Both are built from the same :class:`~phasewatch.core.report.Report` as the text and JSON output.
Every string that came from a file is passed through :func:`~phasewatch.core.text.clean` (no
escape sequence reaches a CI log; a workflow command is one line, its newlines escaped), SARIF
URIs are percent-encoded (RFC 3986: a name with a space, ``%``, ``#`` or non-ASCII letters still
names its file), and every result names a file and a line: code scanning shows a result without
``region.startLine`` nowhere.

Lines: a finding's ``path`` is a JSON path into a state file (``phases.06-x.status``,
``workflow_history[3].status``), a line (``line 12``), or a place in a Markdown file
(``table[Name].version``, ``front_matter.stage``, ``slice 3.status``). :func:`line_of` is the
one mapping from a path to a line: it walks the JSON document (a list element is its own line)
or searches the Markdown step by step; what it cannot find is the deepest step found, else 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from msgspec import Struct

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
# a segment of a finding's path: ["quoted key"], [index], [name] (a table row), or a bare key
_PATH_SEGMENT = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\]|\[([^\]]*)\]|([^.\[\]]+)')
_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_JSON_DECODER = json.JSONDecoder()


class Segment(Struct, frozen=True):
    """One step of a finding's path: an object key, a list index, or a named row."""

    key: str | None = None
    index: int | None = None
    row: str | None = None  # ``table[Name]``: the Markdown table row of ``Name``


def path_segments(path: str) -> list[Segment]:
    """``a.b[2]["c.d"].e`` -> key a, key b, index 2, key c.d, key e (``$`` is the root)."""
    segments: list[Segment] = []
    for quoted, index, row, bare in _PATH_SEGMENT.findall(path or ""):
        if quoted:
            try:
                segments.append(Segment(key=json.loads(f'"{quoted}"')))
            except ValueError:
                segments.append(Segment(key=quoted))
        elif index:
            segments.append(Segment(index=int(index)))
        elif row:
            segments.append(Segment(row=row.strip()))
        elif bare.strip() and bare.strip() != "$":
            segments.append(Segment(key=bare.strip()))
    return segments


def path_keys(path: str) -> list[str]:
    """The object keys of a finding's path, in order (list indexes left out):
    ``a.b[2]["c.d"].e`` -> ``["a", "b", "c.d", "e"]``."""
    return [s.key for s in path_segments(path) if s.key is not None]


def line_of(text: str, path: str) -> int:
    """The 1-based line of ``path`` in ``text``; 1 when unknown. The one mapping of a finding's
    path to a line (SARIF regions, workflow commands).

    ``line N`` in the path is line N. In a JSON document, the line of the deepest step of the
    path that the document holds: an object key's line, a list element's own line (the document
    is walked, values skipped by the standard decoder, so ``a[3]`` is the fourth element, and a
    repeated key is its last occurrence as in ``JSON.parse``). In Markdown, see
    :func:`_markdown_offset`."""
    named = _LINE_IN_PATH.search(path or "")
    if named:
        return max(1, int(named.group(1)))
    segments = path_segments(path)
    if text.lstrip()[:1] in ("{", "["):
        found = _json_offset(text, segments)
    else:
        found = _markdown_offset(text, segments)
    return text.count("\n", 0, found) + 1 if found > 0 else 1


def _space(text: str, pos: int) -> int:
    match = _JSON_SPACE.match(text, pos)
    return match.end() if match else pos


def _json_offset(text: str, segments: list[Segment]) -> int:
    """Offset of the deepest step of the path found in the JSON ``text`` (-1: none). A torn or
    invalid document is walked as far as it goes."""
    found, pos = -1, _space(text, 0)
    try:
        for segment in segments:
            if segment.index is not None:
                at = _json_element(text, pos, segment.index)
            elif segment.key is not None:
                at = _json_member(text, pos, segment.key)
            else:
                return found
            if at is None:
                return found
            found, pos = at
    except (ValueError, IndexError, RecursionError):  # torn or invalid: as far as it went
        pass
    return found


def _json_element(text: str, pos: int, index: int) -> tuple[int, int] | None:
    """(offset, offset) of element ``index`` of the array at ``pos``."""
    if text[pos : pos + 1] != "[":
        return None
    pos = _space(text, pos + 1)
    for _ in range(index):
        if text[pos : pos + 1] in ("]", ""):
            return None
        _value, pos = _JSON_DECODER.raw_decode(text, pos)
        pos = _space(text, pos)
        if text[pos : pos + 1] != ",":
            return None
        pos = _space(text, pos + 1)
    return None if text[pos : pos + 1] in ("]", "") else (pos, pos)


def _json_member(text: str, pos: int, key: str) -> tuple[int, int] | None:
    """(offset of the key, offset of its value) of ``key`` (its last occurrence) in the object
    at ``pos``."""
    if text[pos : pos + 1] != "{":
        return None
    pos = _space(text, pos + 1)
    last = None
    while text[pos : pos + 1] == '"':
        key_at = pos
        name, pos = _JSON_DECODER.raw_decode(text, pos)
        pos = _space(text, pos)
        if text[pos : pos + 1] != ":":
            break
        pos = _space(text, pos + 1)
        if name == key:
            last = (key_at, pos)
        try:
            _value, pos = _JSON_DECODER.raw_decode(text, pos)
        except ValueError:  # torn after it: the key found so far stands
            break
        pos = _space(text, pos)
        if text[pos : pos + 1] != ",":
            break
        pos = _space(text, pos + 1)
    return last


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\n)---[ \t]*(?:\r?\n|\Z)", re.S)


def _markdown_offset(text: str, segments: list[Segment]) -> int:
    """Offset of the deepest step of the path found in Markdown ``text`` (-1: none), each step
    searched on the lines after the previous one's:

    * ``front_matter.key``: the line ``key:`` inside the leading ``---`` block;
    * ``table[Name]``: the table row whose first cell is ``Name`` (it holds every field: the
      steps after it stay on it);
    * ``### Name``, ``sections["Name"]``, ``slice N``: the heading that names it;
    * a bare ``key``: the next line that starts with it as a label (``key:``, ``**Key:**``,
      ``- **Key:**``) or a heading that starts with it (``### Slice 3: ...``);
    * ``[n]``: the n-th item (from 0) of the list right after the previous step (none: the
      previous step's line)."""
    front = _FRONT_MATTER.match(text)
    limit = len(text)
    found, pos = -1, 0
    for number, segment in enumerate(segments):
        if segment.key == "front_matter" and number == 0:
            if front is None:
                return found
            found, pos, limit = 0, front.start(1), front.end(1)
            continue
        if segment.key in ("header", "table", "sections") and number == 0:
            continue  # a structural name, not written in the file
        at = _markdown_step(text, pos, limit, segment)
        if at is None:
            return found
        found = at
        if segment.row is not None:
            return found  # the row holds its fields
        pos = text.find("\n", at)
        pos = limit if pos < 0 else pos + 1
    return found


def _markdown_step(text: str, pos: int, limit: int, segment: Segment) -> int | None:
    if segment.index is not None:  # the list that starts right after the previous step
        seen = 0
        for at, line in _lines(text, pos, limit):
            if _BULLET.match(line):
                if seen == segment.index:
                    return at
                seen += 1
            elif line.strip() and (seen or not line[:1].isspace()):
                return None  # the list ended (an indented continuation line belongs to it)
        return None
    if segment.row is not None:
        row = re.compile(r"^\s*\|\s*" + re.escape(segment.row) + r"\s*\|")
        return _first(text, pos, limit, row)
    name = segment.key or ""
    if name.startswith("#"):
        heading = re.compile(r"^" + re.escape(name.split()[0]) + r"\s+" + re.escape(
            name.lstrip("#").strip()) + r"\s*$")  # fmt: skip
        return _first(text, pos, limit, heading)
    word = re.escape(name) + r"(?![\w-])"
    label = re.compile(r"^[\s>*_|+-]*" + word + r"[\s*_]*:|^#{1,6}\s+" + word, re.IGNORECASE)
    return _first(text, pos, limit, label)


def _lines(text: str, pos: int, limit: int) -> Iterable[tuple[int, str]]:
    while pos < limit:
        end = text.find("\n", pos, limit)
        end = limit if end < 0 else end
        yield pos, text[pos:end]
        pos = end + 1


def _first(text: str, pos: int, limit: int, pattern: re.Pattern[str]) -> int | None:
    return next((at for at, line in _lines(text, pos, limit) if pattern.match(line)), None)


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
        # SARIF's name is an identifier distinct from the id (the SARIF Multitool warns when
        # they are equal): SYNC-CURRENT -> SyncCurrent
        "name": "".join(part.capitalize() for part in rule.id.split("-")),
        "shortDescription": {"text": clean(rule.title)},
        "fullDescription": {
            "text": f"{clean(rule.title).rstrip('.')}. Source: {clean(rule.seed)}."
        },
        "help": {"text": clean(rule.fix)},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"scope": rule.scope},
    }


def to_sarif(
    report: Report, rules: list[Rule], version: str, *, failure: str | None = None
) -> dict[str, Any]:
    """The report as one SARIF 2.1.0 log: one run, every registered rule, one result a
    finding (a finding's own severity may differ from its rule's default: it is ``level``).
    ``failure``: why nothing could be checked (no workflow files), said in the run's
    invocation, so a CI step that uploads the log still gets a valid one."""
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
    run: dict[str, Any] = {
        "tool": {"driver": driver},
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if failure is not None:
        run["invocations"] = [
            {
                "executionSuccessful": False,
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": clean(failure)}}
                ],
            }
        ]
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


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
