"""Markdown and text helpers shared by the registry, entry and handoff readers.

Agents write these files by hand: emoji arrive as mojibake, names carry bold and links, fenced
code blocks hold examples that are not state. One definition of each of those facts lives here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Mojibake: UTF-8 bytes read as cp1252 (latin-1 where cp1252 has no character).
_CP1252 = {}
for _b in range(0x80, 0x100):
    try:
        _CP1252[bytes([_b]).decode("cp1252")] = _b
    except UnicodeDecodeError:
        _CP1252[chr(_b)] = _b


def _cls(lo: int, hi: int) -> str:
    return "".join(re.escape(ch) for ch, b in _CP1252.items() if lo <= b <= hi)


_CONT = f"[{_cls(0x80, 0xBF)}]"
_MOJIBAKE = re.compile(
    f"[{_cls(0xC2, 0xDF)}]{_CONT}|[{_cls(0xE0, 0xEF)}]{_CONT}{{2}}|[{_cls(0xF0, 0xF4)}]{_CONT}{{3}}"
)

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(.*)$")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def fix_mojibake(text: str) -> str:
    """Repair UTF-8 text that was decoded as cp1252 ('ðŸš§' -> '🚧'); other text unchanged."""

    def repl(m: re.Match[str]) -> str:
        try:
            return bytes(_CP1252[c] for c in m.group()).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            return m.group()

    return _MOJIBAKE.sub(repl, text)


def strip_md(text: str) -> str:
    """Drop links' targets, bold/italic/code markers and surrounding space."""
    text = _LINK.sub(r"\1", text)
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return " ".join(text.split())


def plugin_name(text: str) -> str:
    """A plugin name from a cell or heading: markup and leading/trailing symbols removed."""
    text = strip_md(fix_mojibake(text))
    return re.sub(r"^[^\w(+.-]+|[^\w)+.-]+$", "", text)


def ascii_words(text: str) -> str:
    """Lower-case ASCII words, digits, dots and parentheses: what status matching looks at."""
    return " ".join(re.sub(r"[^a-z0-9.() ]+", " ", text.lower()).split())


def numbered_lines(text: str) -> Iterable[tuple[int, str, bool]]:
    """(line number, line, inside a fenced code block)."""
    fenced = False
    for no, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            yield no, line, True
            continue
        yield no, line, fenced
