"""``JSON.stringify`` in Python, byte for byte, for the value types state files hold.

The owner writes ``JSON.stringify(state, null, 2)``. Python's ``json.dumps`` differs in small
ways that matter for a byte-exact replay: floats (``1.0`` vs ``1``, ``1e-07`` vs ``1e-7``,
``1e+16`` vs ``10000000000000000``), ``NaN``/``Infinity`` (JS writes ``null``), lone surrogates
(JS escapes them) and the order of integer-like keys (JS puts them first, ascending).
"""

from __future__ import annotations

from typing import Any

from ..decide import js_number, js_string  # the one JSON.stringify number and string formatter

__all__ = ["js_json_dumps", "js_number", "js_string"]

_MAX_ARRAY_INDEX = 2**32 - 2


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
