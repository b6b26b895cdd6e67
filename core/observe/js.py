"""JavaScript's reading of a parsed JSON value, where the framework's views depend on it:
truthiness (``a || b``), ``new Date(x).getTime()``, ``Math.round`` and the order of an
object's keys. docs/observability.md#how-the-framework-reads says where each is used."""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from typing import Any, TypeGuard

_ISO = re.compile(
    r"^\d{4}-\d{2}(?:-\d{2})?(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?$"
)
_INDEX = re.compile(r"^(?:0|[1-9]\d{0,9})$")


def truthy(value: Any) -> bool:
    """JavaScript's truthiness of a JSON value (``[]`` and ``{}`` are true, ``0`` and ``""`` not)."""
    if value is None or value is False or value == "":
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    return True


def first(*values: Any) -> Any:
    """``a || b || c``: the first truthy value, else the last."""
    for value in values[:-1]:
        if truthy(value):
            return value
    return values[-1]


def get(obj: Any, key: str) -> Any:
    """``obj?.key`` on a parsed JSON value (undefined -> None)."""
    return obj.get(key) if isinstance(obj, dict) else None


def number(value: Any) -> TypeGuard[float]:
    """A JSON number (not a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def date_ms(value: Any) -> float:
    """``new Date(value).getTime()`` for the values a writer puts there: an ISO 8601 string
    (date-only: UTC; a time without an offset: local time, as JavaScript), or a number of
    milliseconds. Anything else is NaN (JavaScript's lenient non-ISO forms included)."""
    if number(value):
        return float(value)
    if not isinstance(value, str) or not _ISO.match(value):
        return math.nan
    try:
        text = value[:-1] + "+00:00" if value.endswith("Z") else value
        if len(value) <= 10:  # date only: UTC
            parts = [int(p) for p in value.split("-")] + [1]
            return datetime(parts[0], parts[1], parts[2], tzinfo=UTC).timestamp() * 1000
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return math.nan
    return math.floor(parsed.timestamp() * 1000)


def gt(a: Any, b: Any) -> bool:
    """``a > b`` for two strings (code unit order) or two numbers; anything else False."""
    if isinstance(a, str) and isinstance(b, str):
        return a.encode("utf-16-be") > b.encode("utf-16-be")
    if number(a) and number(b):
        return bool(a > b)
    return False


def js_round(x: float) -> int:
    """``Math.round``: halves go up."""
    return math.floor(x + 0.5)


def key_order(keys: list[str]) -> list[str]:
    """The order of an object's keys as built by insertion: integer-like keys first, ascending."""
    ints = sorted((k for k in keys if _INDEX.match(k) and int(k) < 2**32 - 1), key=int)
    return ints + [k for k in keys if not (_INDEX.match(k) and int(k) < 2**32 - 1)]


def text(value: Any) -> str:
    """``String(value)`` / a template literal's ``${value}`` for a JSON value."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else text(v) for v in value)
    return str(value)
