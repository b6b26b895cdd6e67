from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from msgspec import Struct

from ..text import clean, shorten


class DocumentError(ValueError):
    def __init__(self, message: str, pos: int, torn: bool = False) -> None:
        super().__init__(message)
        self.pos = pos
        self.torn = torn


class LiteralStr(str):
    """A string (or key) whose spelling on disk differs from ``JSON.stringify``'s."""

    literal: str


class LiteralInt(int):
    literal: str


class LiteralFloat(float):
    literal: str


def _with_literal(cls: type, value: Any, literal: str) -> Any:
    obj = cls(value)
    obj.literal = literal
    return obj


_JS_ESCAPE = re.compile('[\\x00-\\x1f"\\\\\ud800-\udfff]')
_SURROGATE = re.compile("[\ud800-\udfff]")
_JS_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def js_string(text: str) -> str:
    """``JSON.stringify`` of a string (lone surrogates escaped, non-ASCII kept)."""
    if _SURROGATE.search(text):  # a high+low pair is one character to JS: join them first
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return (
        '"'
        + _JS_ESCAPE.sub(lambda m: _JS_SHORT.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
        + '"'
    )


def js_number(value: float | int) -> str:
    """``JSON.stringify`` of a number: ECMAScript ``Number::toString`` (``null`` for NaN and the
    infinities). An integer is held as JS holds it, a double: exact below 2**53, else rounded.
    The one number formatter (the simulator's JSON writer uses it too)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        return "null"
    if value == 0:
        return "0"  # also -0
    # repr() is the shortest round-tripping decimal: the digits JS chooses.
    _sign, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    k = len(stripped)
    n = exponent + k  # value = 0.d1d2...dk * 10^n
    if k <= n <= 21:
        text = stripped + "0" * (n - k)
    elif 0 < n <= 21:
        text = stripped[:n] + "." + stripped[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + stripped
    else:
        mantissa = stripped if k == 1 else stripped[0] + "." + stripped[1:]
        text = f"{mantissa}e{'+' if n > 1 else '-'}{abs(n - 1)}"
    return ("-" if value < 0 else "") + text


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
#: containers nested deeper than this are refused: the reader's limit (msgspec's, see
#: :data:`core.sources.MAX_JSON_NESTING`), so the writer takes every state ``check`` reads
MAX_NESTING = 998
#: the recursion limit while a document that deep is handled: parse, dumps, plain, the claims
#: and the planners each take one to three frames a level (docs/design.md#deep-documents)
_RECURSION_LIMIT = 6 * MAX_NESTING + 2000
_room = threading.Lock()
_room_users = [0, 0]  # how many are inside deep_room(), the limit before the first


@contextmanager
def deep_room() -> Iterator[None]:
    """Room on the stack for a document nested :data:`MAX_NESTING` deep: raises the recursion
    limit (Python 3.11+ keeps Python-to-Python calls off the C stack) while anyone is inside,
    and puts it back when the last one leaves."""
    with _room:
        if _room_users[0] == 0:
            _room_users[1] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_room_users[1], _RECURSION_LIMIT))
        _room_users[0] += 1
    try:
        yield
    finally:
        with _room:
            _room_users[0] -= 1
            if _room_users[0] == 0:
                try:
                    sys.setrecursionlimit(_room_users[1])
                except RecursionError:  # a thread is still deep: leave the room raised
                    pass


def parse_document(text: str) -> Any:
    """Parse strict JSON (as ``JSON.parse`` would, but refusing duplicate keys), keeping the
    literal spelling of every string, key and number that ``JSON.stringify`` would spell
    differently. Raises :class:`DocumentError`."""
    n = len(text)
    scan: Callable[[str, int, bool], tuple[str, int]]
    scan = json.decoder.scanstring  # type: ignore[attr-defined]  # public at runtime, not in typeshed

    def ws(i: int) -> int:  # past the whitespace at i ([ \t\n\r]* always matches)
        m = _WS.match(text, i)
        return m.end() if m else i

    def fail(msg: str, pos: int) -> DocumentError:
        return DocumentError(msg, pos, torn=pos >= len(text.rstrip()))

    def string(i: int) -> tuple[str, int]:
        try:
            value, end = scan(text, i + 1, True)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Unterminated string"):  # ran off the end
                raise DocumentError(exc.msg, exc.pos, torn=True) from None
            raise fail(exc.msg, exc.pos) from None
        lit = text[i:end]
        if js_string(value) != lit:
            value = _with_literal(LiteralStr, value, lit)
        return value, end

    def value_at(i: int, depth: int) -> tuple[Any, int]:
        if i >= n:
            raise fail("unexpected end of document", i)
        c = text[i]
        if c == '"':
            return string(i)
        if depth >= MAX_NESTING and c in "{[":
            raise DocumentError(f"nested more than {MAX_NESTING} deep", i)
        if c == "{":
            obj: dict[str, Any] = {}
            i = ws(i + 1)
            if i < n and text[i] == "}":
                return obj, i + 1
            while True:
                if i >= n or text[i] != '"':
                    raise fail("expected a property name", i)
                key, i = string(i)
                if key in obj:
                    raise DocumentError(f"duplicate key {shorten(clean(key), 40)!r}", i)
                i = ws(i)
                if i >= n or text[i] != ":":
                    raise fail("expected ':'", i)
                i = ws(i + 1)
                obj[key], i = value_at(i, depth + 1)
                i = ws(i)
                if i < n and text[i] == ",":
                    i = ws(i + 1)
                    continue
                if i < n and text[i] == "}":
                    return obj, i + 1
                raise fail("expected ',' or '}'", i)
        if c == "[":
            arr: list[Any] = []
            i = ws(i + 1)
            if i < n and text[i] == "]":
                return arr, i + 1
            while True:
                item, i = value_at(i, depth + 1)
                arr.append(item)
                i = ws(i)
                if i < n and text[i] == ",":
                    i = ws(i + 1)
                    continue
                if i < n and text[i] == "]":
                    return arr, i + 1
                raise fail("expected ',' or ']'", i)
        for word, val in (("null", None), ("true", True), ("false", False)):
            if text.startswith(word, i):
                return val, i + len(word)
            if word.startswith(text[i:n]):
                raise fail("unexpected end of document", n)
        m = _NUMBER.match(text, i)
        if not m:
            raise fail(f"unexpected character {c!r}", i)
        lit = m.group()
        if m.group(1) or m.group(2):
            num: Any = float(lit)
            if num in (float("inf"), float("-inf")) or js_number(num) != lit:
                num = _with_literal(LiteralFloat, num, lit)
        else:
            num = int(lit)
            if js_number(num) != lit:  # -0, or beyond 2**53 (JS would round it)
                num = _with_literal(LiteralInt, num, lit)
        return num, m.end()

    i = ws(0)
    with deep_room():
        value, i = value_at(i, 0)
    i = ws(i)
    if i != n:
        raise DocumentError("extra data after the document", i)
    return value


class Style(Struct, frozen=True):
    """How a JSON file is laid out: ``indent`` None = compact, ``lead``/``tail`` = whitespace
    before the document and after it (the owner writes no trailing newline)."""

    indent: str | None = "  "
    newline: str = "\n"
    lead: str = ""
    tail: str = ""


_INDENT = re.compile(r"[\[{][ \t]*(\r?\n)([ \t]+)\S")


def detect_style(text: str) -> Style:
    body = text.strip(" \t\r\n")
    start = len(text) - len(text.lstrip(" \t\r\n"))
    lead, tail = text[:start], text[start + len(body) :]
    m = _INDENT.search(body)
    if m:
        return Style(m.group(2), m.group(1), lead, tail)
    if "\n" in body:
        return Style("  ", "\r\n" if "\r\n" in body else "\n", lead, tail)
    return Style(None if len(body) > 2 else "  ", "\n", lead, tail)


_MAX_ARRAY_INDEX = 2**32 - 2


def _is_array_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and int(key) <= _MAX_ARRAY_INDEX
    )


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if key is None:
        return "null"
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int | float):
        return js_number(key)
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


def _ordered_items(obj: dict[Any, Any]) -> list[tuple[str, Any]]:
    """A JS object's own keys in the order ``JSON.stringify`` writes them: integer-like keys
    first, ascending, then the others in insertion order."""
    items = [(_key_text(k), v) for k, v in obj.items()]
    if not any(_is_array_index(k) for k, _ in items):
        return items
    indexed = sorted((kv for kv in items if _is_array_index(kv[0])), key=lambda kv: int(kv[0]))
    return indexed + [kv for kv in items if not _is_array_index(kv[0])]


def stringify(value: Any, indent: int | None = None) -> str:
    """``JSON.stringify(value, null, indent)``; ``indent=None`` (or 0) gives the compact form."""
    return dumps(value, Style(" " * indent if indent else None))


def dumps(value: Any, style: Style = Style()) -> str:
    """``JSON.stringify(value, null, indent)`` + the style's lead/tail, literals kept."""
    out: list[str] = [style.lead]
    indent, nl = style.indent, style.newline
    colon = ":" if indent is None else ": "
    open_containers: set[int] = set()

    def emit(v: Any, level: int) -> None:
        if isinstance(v, dict | list | tuple):
            if id(v) in open_containers:
                raise TypeError("Converting circular structure to JSON")
            open_containers.add(id(v))
            emit_container(v, level)
            open_containers.discard(id(v))
        else:
            emit_scalar(v)

    def emit_scalar(v: Any) -> None:
        if v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, LiteralStr | LiteralInt | LiteralFloat):
            out.append(v.literal)
        elif isinstance(v, str):
            out.append(js_string(v))
        elif isinstance(v, int | float):
            out.append(js_number(v))
        else:
            raise TypeError(f"Object of type {type(v).__name__} is not JSON serializable")

    def emit_container(v: dict[Any, Any] | list[Any] | tuple[Any, ...], level: int) -> None:
        entries: list[tuple[str | None, Any]]
        if isinstance(v, dict):
            entries, opener, closer = list(_ordered_items(v)), "{", "}"
        else:
            entries, opener, closer = [(None, item) for item in v], "[", "]"
        if not entries:
            out.append(opener + closer)
            return
        out.append(opener)
        inner = None if indent is None else nl + indent * (level + 1)
        for n, (k, item) in enumerate(entries):
            if n:
                out.append(",")
            if inner:
                out.append(inner)
            if k is not None:
                out.append(k.literal if isinstance(k, LiteralStr) else js_string(k))
                out.append(colon)
            emit(item, level + 1)
        if indent is not None:
            out.append(nl + indent * level)
        out.append(closer)

    with deep_room():
        emit(value, 0)
    out.append(style.tail)
    return "".join(out)


def plain(value: Any) -> Any:
    """A copy with plain ``str``/``int``/``float`` (for summaries and ``json.dumps``)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def parse_state_bytes(raw: bytes) -> dict[str, Any]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DocumentError("the file starts with a byte-order mark (JSON.parse rejects it)", 0)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not UTF-8 at byte {exc.start}", exc.start) from None
    doc = parse_document(text)
    if not isinstance(doc, dict):
        raise DocumentError(f"top level is {type(doc).__name__}, not an object", 0)
    return doc


def valid_state_bytes(raw: bytes) -> bool:
    try:
        parse_state_bytes(raw)
    except DocumentError:
        return False
    return True


def reread(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        return parse_state_bytes(data)
    except DocumentError:
        return None
