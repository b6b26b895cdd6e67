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
from bisect import bisect_left
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from msgspec import Struct

from .findings import Finding, Rule, Severity
from .report import Report
from .sources import read_bytes
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
    path to a line (SARIF regions, workflow commands): :func:`lines_of` with one path."""
    return lines_of(text, [path])[0]


def lines_of(text: str, paths: list[str]) -> list[int]:
    """The 1-based line of each path in ``text`` (1 when unknown), in one pass over the text:
    the cost is linear in the text and the paths, however many findings a file has
    (docs/performance.md#check-output-formats).

    ``line N`` in the path is line N. In a JSON document, the line of the deepest step of the
    path that the document holds: an object key's line, a list element's own line (the document
    is walked, values skipped by the standard decoder, so ``a[3]`` is the fourth element, and a
    repeated key is its last occurrence as in ``JSON.parse``). In Markdown, see
    :meth:`_Markdown.offset`."""
    lines = [0] * len(paths)
    todo: list[tuple[int, list[Segment]]] = []
    for i, path in enumerate(paths):
        named = _LINE_IN_PATH.search(path or "")
        if named:
            lines[i] = max(1, int(named.group(1)))
        else:
            todo.append((i, path_segments(path)))
    if not todo:
        return lines
    if text.lstrip()[:1] in ("{", "["):
        offsets = _json_offsets(text, [segments for _, segments in todo])
    else:
        markdown = _Markdown(text, [segments for _, segments in todo])
        offsets = [markdown.offset(segments) for _, segments in todo]
    line_at = _offset_lines(text, offsets)
    for (i, _), found in zip(todo, offsets, strict=True):
        lines[i] = line_at[found] if found > 0 else 1
    return lines


def _offset_lines(text: str, offsets: Iterable[int]) -> dict[int, int]:
    """The 1-based line of each offset, counting the text's newlines once, in order."""
    line_at: dict[int, int] = {}
    line, prev = 1, 0
    for offset in sorted(set(offsets)):
        if offset > 0:
            line += text.count("\n", prev, offset)
            prev = offset
            line_at[offset] = line
    return line_at


def _space(text: str, pos: int) -> int:
    match = _JSON_SPACE.match(text, pos)
    return match.end() if match else pos


class _Step:
    """A node of the paths' trie: where its key or element was last seen (``found``), in which
    visit of its parent (a repeated key starts a new visit, so only the last one counts)."""

    __slots__ = ("found", "items", "keys", "parent_visit", "visit")

    def __init__(self) -> None:
        self.keys: dict[str, _Step] = {}
        self.items: dict[int, _Step] = {}
        self.found = -1
        self.visit = 0
        self.parent_visit = -1

    def child(self, segment: Segment) -> _Step | None:
        if segment.index is not None:
            return self.items.get(segment.index)
        return self.keys.get(segment.key) if segment.key is not None else None


class _Stop(Exception):
    """The document is torn or invalid here: what was found before it stands."""


class _JsonWalk:
    """One walk over a JSON document, descending only into the values some path names and
    skipping the rest with the standard decoder: each character is read once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.visits = 1

    def enter(self, parent: _Step, child: _Step, at: int) -> None:
        self.visits += 1
        child.found, child.visit, child.parent_visit = at, self.visits, parent.visit

    def value(self, node: _Step, pos: int) -> int:
        """Walk the value at ``pos`` (no space before it); its end."""
        text = self.text
        opening = text[pos : pos + 1]
        if opening == "{" and node.keys:
            return self.members(node, pos)
        if opening == "[" and node.items:
            return self.elements(node, pos)
        return _JSON_DECODER.raw_decode(text, pos)[1]

    def members(self, node: _Step, pos: int) -> int:
        text = self.text
        pos = _space(text, pos + 1)
        if text[pos : pos + 1] == "}":
            return pos + 1
        while text[pos : pos + 1] == '"':
            key_at = pos
            name, pos = _JSON_DECODER.raw_decode(text, pos)
            pos = _space(text, pos)
            if text[pos : pos + 1] != ":":
                raise _Stop
            pos = _space(text, pos + 1)
            child = node.keys.get(name)
            if child is None:
                pos = _JSON_DECODER.raw_decode(text, pos)[1]
            else:
                self.enter(node, child, key_at)
                pos = self.value(child, pos)
            pos = _space(text, pos)
            if text[pos : pos + 1] == "}":
                return pos + 1
            if text[pos : pos + 1] != ",":
                raise _Stop
            pos = _space(text, pos + 1)
        raise _Stop

    def elements(self, node: _Step, pos: int) -> int:
        text = self.text
        pos = _space(text, pos + 1)
        if text[pos : pos + 1] == "]":
            return pos + 1
        index = 0
        while text[pos : pos + 1] not in ("]", ""):
            child = node.items.get(index)
            if child is None:
                pos = _JSON_DECODER.raw_decode(text, pos)[1]
            else:
                self.enter(node, child, pos)
                pos = self.value(child, pos)
            pos = _space(text, pos)
            if text[pos : pos + 1] == "]":
                return pos + 1
            if text[pos : pos + 1] != ",":
                raise _Stop
            pos, index = _space(text, pos + 1), index + 1
        raise _Stop


def _json_offsets(text: str, paths: list[list[Segment]]) -> list[int]:
    """Offset of the deepest step of each path found in the JSON ``text`` (-1: none). A torn or
    invalid document is walked as far as it goes."""
    root = _Step()
    root.visit = 1
    for segments in paths:
        node = root
        for segment in segments:
            if segment.index is not None:
                node = node.items.setdefault(segment.index, _Step())
            elif segment.key is not None:
                node = node.keys.setdefault(segment.key, _Step())
            else:
                break  # a Markdown row: not a JSON step
    try:
        _JsonWalk(text).value(root, _space(text, 0))
    except (_Stop, ValueError, IndexError, RecursionError):  # torn or invalid: as far as it went
        pass
    offsets = []
    for segments in paths:
        node, found = root, -1
        for segment in segments:
            child = node.child(segment)
            if child is None or child.found < 0 or child.parent_visit != node.visit:
                break
            node, found = child, child.found
        offsets.append(found)
    return offsets


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\n)---[ \t]*(?:\r?\n|\Z)", re.S)


class _Markdown:
    """The steps of many paths searched in one Markdown text. Every table row, ``#`` heading and
    label a path names is indexed in one pass over the lines (name -> the offsets of the lines
    that hold it, in order), so each step is a lookup, whatever the number of paths; a list's
    items are found once for each place a list is looked for."""

    def __init__(self, text: str, paths: list[list[Segment]]) -> None:
        self.text = text
        self.memo: dict[tuple[Segment, ...], tuple[int, int, int]] = {}
        self.lists: dict[tuple[int, int], list[int]] = {}
        self.rows: dict[str, list[int]] = {}
        self.headings: dict[tuple[str, str], list[int]] = {}
        self.labels: dict[str, list[int]] = {}
        for segments in paths:
            for segment in segments:
                if segment.row is not None and "|" not in segment.row:
                    self.rows.setdefault(segment.row, [])
                elif segment.key is not None and segment.key.startswith("#"):
                    self.headings.setdefault(_heading_key(segment.key), [])
                elif segment.key is not None:
                    self.labels.setdefault(_fold(segment.key), [])
        self.lengths = sorted({len(name) for name in self.labels})
        self._index()

    def _index(self) -> None:
        rows, headings, labels, lengths = self.rows, self.headings, self.labels, self.lengths
        for at, line in _lines(self.text, 0, len(self.text)):
            if rows and "|" in line:
                cell = _ROW_CELL.match(line)
                if cell is not None and cell.group(1).strip() in rows:
                    rows[cell.group(1).strip()].append(at)
            if line[:1] == "#":
                heading = _HEADING.match(line)
                if heading is not None and heading.groups() in headings:
                    headings[heading.groups()].append(at)  # type: ignore[index]
            if lengths and _labels_in(line, labels, lengths):
                for name in _labels_in(line, labels, lengths):
                    labels[name].append(at)

    def offset(self, segments: list[Segment]) -> int:
        """Offset of the deepest step of the path found (-1: none), each step searched on the
        lines after the previous one's:

        * ``front_matter.key``: the line ``key:`` inside the leading ``---`` block;
        * ``table[Name]``: the table row whose first cell is ``Name`` (it holds every field:
          the steps after it stay on it);
        * ``### Name``, ``sections["Name"]``, ``slice N``: the heading that names it;
        * a bare ``key``: the next line that starts with it as a label (``key:``, ``**Key:**``,
          ``- **Key:**``) or a heading that starts with it (``### Slice 3: ...``), in any
          case;
        * ``[n]``: the n-th item (from 0) of the list right after the previous step (none: the
          previous step's line)."""
        text, memo = self.text, self.memo
        found, pos, limit, start = -1, 0, len(text), 0
        for known in range(len(segments), 0, -1):  # paths share first steps: each searched once
            hit = memo.get(tuple(segments[:known]))
            if hit is not None:
                (found, pos, limit), start = hit, known
                break
        for number in range(start, len(segments)):
            segment = segments[number]
            if pos < 0:
                return found  # an earlier step ended the search
            if segment.key == "front_matter" and number == 0:
                front = _FRONT_MATTER.match(text)
                if front is None:
                    pos = -1
                else:
                    found, pos, limit = 0, front.start(1), front.end(1)
            elif segment.key in ("header", "table", "sections") and number == 0:
                pass  # a structural name, not written in the file
            else:
                at = self.step(pos, limit, segment)
                if at is None or segment.row is not None:  # not there / the row holds its fields
                    found, pos = (found if at is None else at), -1
                else:
                    found = at
                    pos = text.find("\n", at)
                    pos = limit if pos < 0 else pos + 1
            memo[tuple(segments[: number + 1])] = (found, pos, limit)
        return found

    def step(self, pos: int, limit: int, segment: Segment) -> int | None:
        if segment.index is not None:  # the list that starts right after the previous step
            items = self.items(pos, limit)
            return items[segment.index] if segment.index < len(items) else None
        if segment.row is not None:
            if segment.row in self.rows:
                return _next(self.rows[segment.row], pos, limit)
            row = re.compile(r"^\s*\|\s*" + re.escape(segment.row) + r"\s*\|")
            return _first(self.text, pos, limit, row)
        name = segment.key or ""
        if name.startswith("#"):
            return _next(self.headings[_heading_key(name)], pos, limit)
        # the index holds the lines whose letters fold alike; the name's own pattern decides
        offsets, text = self.labels[_fold(name)], self.text
        label = _label_pattern(name)
        for i in range(bisect_left(offsets, pos), len(offsets)):
            at = offsets[i]
            if at >= limit:
                break
            end = text.find("\n", at, limit)
            if label.match(text[at : limit if end < 0 else end]):
                return at
        return None

    def items(self, pos: int, limit: int) -> list[int]:
        """The offsets of the items of the list that starts at ``pos``."""
        found = self.lists.get((pos, limit))
        if found is None:
            found = self.lists[pos, limit] = []
            for at, line in _lines(self.text, pos, limit):
                if _BULLET.match(line):
                    found.append(at)
                elif line.strip() and (found or not line[:1].isspace()):
                    break  # the list ended (an indented continuation line belongs to it)
        return found


_ROW_CELL = re.compile(r"\s*\|([^|]*)\|")
_HEADING = re.compile(r"(#+)\s+(.*?)\s*$")
_LABEL_LEAD = re.compile(r"[\s>*_|+-]*")
_HEADING_LEAD = re.compile(r"#{1,6}")
_LABEL_TAIL = re.compile(r"(?![\w-])[\s*_]*:")
_WORD_NEXT = re.compile(r"[\w-]")
_SPACE_CHARS = re.compile(r"\s*")


def _heading_key(name: str) -> tuple[str, str]:
    """A ``### Name`` step as the heading index holds it: (its marks, its text)."""
    return name.split()[0], name.lstrip("#").strip()


def _label_pattern(name: str) -> re.Pattern[str]:
    """A line that starts with ``name`` as a label or a heading's first words, in any case."""
    word = re.escape(name) + r"(?![\w-])"
    return re.compile(r"^[\s>*_|+-]*" + word + r"[\s*_]*:|^#{1,6}\s+" + word, re.IGNORECASE)


# Letters folded so that two strings a case-insensitive pattern matches alike fold alike: ASCII
# in lower case, the four other letters such a pattern matches with an ASCII one as that letter
# (found by trying every code point), and every other letter with a case as one mark (the
# pattern then decides). Characters without case stay themselves.
_ASCII_FOLD = {c: chr(c).lower() for c in range(128)}
_SPECIAL_FOLD = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


def _fold(text: str) -> str:
    if text.isascii():
        return text.translate(_ASCII_FOLD)
    return "".join(
        c.lower()
        if c.isascii()
        else _SPECIAL_FOLD.get(c) or ("\x00" if c.lower() != c or c.upper() != c else c)
        for c in text
    )


def _labels_in(line: str, labels: dict[str, list[int]], lengths: list[int]) -> list[str]:
    """The folded names of ``labels`` that ``line`` may start as a label (``key:``,
    ``**Key:**``, ``- key:``) or as a heading's first words (``### Slice 3: ...``)."""
    found: list[str] = []
    lead = _LABEL_LEAD.match(line)
    for start in range(lead.end() + 1 if lead else 1):  # the lead's marks may begin a name
        for size in lengths:
            name = _fold(line[start : start + size])
            if name in labels and name not in found and _LABEL_TAIL.match(line, start + size):
                found.append(name)
    marks = _HEADING_LEAD.match(line)
    if marks is not None:
        space = _SPACE_CHARS.match(line, marks.end())
        for start in range(marks.end() + 1, (space.end() if space else 0) + 1):
            for size in lengths:
                end = start + size
                name = _fold(line[start:end])
                if name in labels and name not in found and not _WORD_NEXT.match(line, end):
                    found.append(name)
    return found


def _next(offsets: list[int], pos: int, limit: int) -> int | None:
    """The first of ``offsets`` (ascending) in ``[pos, limit)``."""
    i = bisect_left(offsets, pos)
    return offsets[i] if i < len(offsets) and offsets[i] < limit else None


def _lines(text: str, pos: int, limit: int) -> Iterable[tuple[int, str]]:
    while pos < limit:
        end = text.find("\n", pos, limit)
        end = limit if end < 0 else end
        yield pos, text[pos:end]
        pos = end + 1


def _first(text: str, pos: int, limit: int, pattern: re.Pattern[str]) -> int | None:
    return next((at for at, line in _lines(text, pos, limit) if pattern.match(line)), None)


def _reader(root: Path, cap: int = 8 * 1024 * 1024) -> Callable[[str], str]:
    """Text of a project file by relative path, read once (capped; "" when unreadable). Only
    its lines are counted, it is never shown: not cleaned (cleaning was most of a SARIF log's
    cost over JSON's: docs/performance.md#the-command-line)."""
    cache: dict[str, str] = {}

    def read(rel: str) -> str:
        if rel not in cache:
            raw, _error = read_bytes(root / rel, max_bytes=cap)
            cache[rel] = "" if raw is None else raw.decode("utf-8-sig", errors="replace")
        return cache[rel]

    return read


def _located(report: Report) -> Iterable[tuple[Finding, str, int]]:
    """Each finding with its file and line: the lines of one file's findings are found together
    (:func:`lines_of`, one pass over the file)."""
    read = _reader(Path(report.project.root))
    by_source: dict[str, list[int]] = {}
    for i, finding in enumerate(report.findings):
        if finding.source:
            by_source.setdefault(finding.source, []).append(i)
    lines = [1] * len(report.findings)
    for source, indexes in by_source.items():
        found = lines_of(read(source), [report.findings[i].path for i in indexes])
        for i, line in zip(indexes, found, strict=True):
            lines[i] = line
    uris = {source: Path(source).as_posix() for source in by_source}
    for finding, line in zip(report.findings, lines, strict=True):
        yield finding, uris.get(finding.source, "."), line


def _text(finding: Finding) -> str:
    parts = [clean(finding.message)]
    if finding.place:  # (none for the whole file: the annotation is on the file itself)
        parts.append(f"at {clean(finding.place)}")
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
