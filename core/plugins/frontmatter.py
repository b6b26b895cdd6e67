"""YAML front matter read as literal text (``.continue-here.md``, docs/formats.md#handoff-file).

PyYAML is used only to *compose* the front matter into nodes with ``BaseLoader`` (no implicit
type resolution, no object construction). Every scalar stays the literal text the agent wrote
(``4.10`` stays ``"4.10"``, ``2025-11-13`` stays a string, ``0o7`` is not an int), so the rules
can judge what is actually in the file; each field is typed by :mod:`.handoff_fields`.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..log import internal_failure
from ..text import shorten

_NULLS = {"null", "Null", "NULL", "~", ""}


class _TooBig(Exception):
    pass


def _node_value(node: yaml.Node, budget: list[int], depth: int, dups: list[str]) -> Any:
    """Node -> Python with every scalar kept as its literal text; plain null/~/empty -> None."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 40:
        raise _TooBig
    if isinstance(node, yaml.ScalarNode):
        if node.style is None and node.value in _NULLS:
            return None
        return str(node.value)
    if isinstance(node, yaml.SequenceNode):
        return [_node_value(n, budget, depth + 1, dups) for n in node.value]
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for k, v in node.value:
            key = str(k.value if isinstance(k, yaml.ScalarNode) else f"<{k.id} key>")
            if key in out and depth == 0:
                dups.append(key)
            out[key] = _node_value(v, budget, depth + 1, dups)
        return out
    return None


def load_yaml_literal(text: str) -> tuple[Any, str | None, list[str]]:
    """Compose YAML without resolving types: (value, error, duplicate top-level keys)."""
    dups: list[str] = []
    try:
        node = yaml.compose(text, Loader=yaml.BaseLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        return None, f"{exc.problem or exc.context or 'invalid YAML'}{where}", dups
    except Exception as exc:  # a third-party parser on untrusted text: report, never raise
        internal_failure(__name__, "the YAML parser raised", exc)
        return None, f"{type(exc).__name__}: {shorten(str(exc), 120)}", dups
    if node is None:
        return None, None, dups
    try:
        return _node_value(node, [20000], 0, dups), None, dups
    except (_TooBig, RecursionError):
        return None, "front matter too large or too deeply nested", dups


def scalar(value: Any) -> str | None:
    """A front-matter value as text; None for null, mappings and lists."""
    if value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def yaml_bool(value: Any) -> bool | str | None:
    """``true``/``false`` -> bool, null -> None, anything else -> ``"invalid"``."""
    if value is None:
        return None
    low = str(value).strip().lower()
    if low == "true":
        return True
    if low == "false":
        return False
    return "invalid"


def yaml_float(value: Any) -> float | None:
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None
