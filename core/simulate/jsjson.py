"""``JSON.stringify`` in Python, byte for byte, for the value types state files hold.

The owner writes ``JSON.stringify(state, null, 2)``. Python's ``json.dumps`` differs in small
ways that matter for a byte-exact replay: floats (``1.0`` vs ``1``, ``1e-07`` vs ``1e-7``,
``1e+16`` vs ``10000000000000000``), ``NaN``/``Infinity`` (JS writes ``null``), lone surrogates
(JS escapes them) and the order of integer-like keys (JS puts them first, ascending).
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}
_MAX_ARRAY_INDEX = 2**32 - 2


def js_number(value: int | float) -> str:
    """ECMAScript ``Number::toString`` (what ``JSON.stringify`` prints for a finite number)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        if abs(value) < 10**21:
            return str(value)
        value = float(value)  # JS would hold it as a double and print it in exponent form
    if math.isnan(value) or math.isinf(value):
        return "null"
    if value == 0:
        return "0"  # also -0
    sign = "-" if value < 0 else ""
    # repr() is the shortest round-tripping decimal, the same digits JS chooses.
    _sign, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped
    k = len(digits)
    n = exponent + k  # value = 0.d1d2...dk * 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"
    return sign + text


def js_string(text: str) -> str:
    """A JSON string literal as ``JSON.stringify`` writes it (well-formed, non-ASCII raw)."""
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _is_array_index(key: str) -> bool:
    return (
        key.isascii()
        and key.isdigit()
        and (key == "0" or key[0] != "0")
        and (int(key) <= _MAX_ARRAY_INDEX)
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
    items = [(_key_text(k), v) for k, v in obj.items()]
    if not any(_is_array_index(k) for k, _ in items):
        return items
    # JS objects enumerate integer-like keys first, ascending, then strings in insertion order.
    indexed = sorted((kv for kv in items if _is_array_index(kv[0])), key=lambda kv: int(kv[0]))
    return indexed + [kv for kv in items if not _is_array_index(kv[0])]


def js_json_dumps(value: Any, indent: int | None = None) -> str:
    """``JSON.stringify(value, null, indent)``; ``indent=None`` gives the compact form."""
    parts: list[str] = []
    _encode(value, parts, indent, 0, set())
    return "".join(parts)


def _encode(value: Any, out: list[str], indent: int | None, depth: int, seen: set[int]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(js_string(value))
    elif isinstance(value, int | float):
        out.append(js_number(value))
    elif isinstance(value, dict | list | tuple):
        marker = id(value)
        if marker in seen:
            raise ValueError("Converting circular structure to JSON")
        seen.add(marker)
        if isinstance(value, dict):
            entries: list[tuple[str | None, Any]] = list(_ordered_items(value))
            opener, closer = "{", "}"
        else:
            entries = [(None, v) for v in value]
            opener, closer = "[", "]"
        if not entries:
            out.append(opener + closer)
        else:
            out.append(opener)
            inner = "\n" + " " * (indent * (depth + 1)) if indent else ""
            for i, (key, item) in enumerate(entries):
                if i:
                    out.append(",")
                out.append(inner)
                if key is not None:
                    out.append(js_string(key))
                    out.append(": " if indent else ":")
                _encode(item, out, indent, depth + 1, seen)
            if indent:
                out.append("\n" + " " * (indent * depth))
            out.append(closer)
        seen.discard(marker)
    else:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
