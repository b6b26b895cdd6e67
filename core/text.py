"""Untrusted text: every string that comes from a file passes through here once, at ingestion.

Terminal escape sequences (CSI, OSC, DCS, ...), C0/C1 control characters, and the characters that
reorder or hide text (bidirectional controls U+202A-202E, U+2066-2069, U+200E/F, U+061C; zero-width
U+200B-200D, U+2060, U+FEFF; tag characters U+E0000-E007F; the line and paragraph separators
U+2028/9) are removed; tab and newline are kept. The result is still *plain text*: the UI never
parses it as markup (docs/design.md#untrusted-text). Where a line is a unit (``check``'s
output, a CI log where a line starting ``::`` is a command), :func:`one_line` also shows each
newline as ``⏎``. The same applies to file and directory names.
"""

from __future__ import annotations

import re
from typing import Any

# ESC-introduced sequences first (so their payload goes too), then lone control characters.
_ESCAPES = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]?                    # CSI ... final byte
    | \x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?  # OSC/DCS/SOS/PM/APC ... terminator
    | \x9b[0-?]*[ -/]*[@-~]?                      # 8-bit CSI
    | [\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?  # 8-bit string sequences
    | \x1b[ -/]*[0-~]?                            # other two-byte escapes, lone ESC
    """,
    re.VERBOSE,
)
# The characters that reorder or hide text, or end a line for some readers (see the docstring).
HIDDEN = (
    "\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff\U000e0000-\U000e007f"
)
# Lone surrogates too: they come from JSON ``\ud800`` escapes and cannot be printed or encoded.
_CONTROLS = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{HIDDEN}\ud800-\udfff]")
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{HIDDEN}]")
# What _CONTROLS matches, as it can reach a string of a UTF-8 JSON document: strict JSON forbids
# raw C0 characters in strings, so only an escape (``\b \f \r \uXXXX``) or a raw DEL, C1 or
# bidirectional character can. Each pattern has a literal prefix, which ``re`` finds with a fast
# scan (one alternation of them all is much slower: docs/performance.md#reading-and-planning).
_JSON_ESCAPE = re.compile(rb"\\[bfru]")
_JSON_RAW_UNCLEAN = tuple(
    re.compile(p).search
    for p in (
        rb"\xc2[\x80-\x9f]",  # C1
        rb"\xd8\x9c",  # U+061C
        rb"\xe2\x80[\x8b-\x8f\xa8-\xae]",  # U+200B-200F, U+2028-202E
        rb"\xe2\x81[\xa0\xa6-\xa9]",  # U+2060, U+2066-2069
        rb"\xef\xbb\xbf",  # U+FEFF
        rb"\xf3\xa0[\x80\x81]",  # U+E0000-E007F
        rb"\xed[\xa0-\xbf]",  # a surrogate's bytes (invalid UTF-8 a lenient parser may keep)
    )
)


def clean(text: str) -> str:
    """Return ``text`` without escape sequences or control characters (``\\t``/``\\n`` kept)."""
    if text.isprintable():  # fast path: the overwhelmingly common case
        return text
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


def one_line(text: str) -> str:
    """:func:`clean` ``text``, each newline shown as ``⏎``: it cannot start a line of its own."""
    text = clean(text)
    return text.replace("\n", "⏎") if "\n" in text else text


def json_safe(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters :func:`clean`
    removes that JSON leaves raw (DEL, C1, :data:`HIDDEN`) spelled as ``\\uXXXX`` escapes: the
    data stay exact, a terminal or log sees nothing it acts on. Only valid inside strings, where
    json put them."""

    def escape(m: re.Match[str]) -> str:
        c = ord(m.group())
        if c <= 0xFFFF:
            return f"\\u{c:04x}"
        c -= 0x10000
        return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"

    return _UNSAFE_IN_JSON.sub(escape, text)


def clean_json(value: Any) -> Any:
    """Recursively clean every string (keys too) in a parsed JSON value."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean(k) if isinstance(k, str) else k: clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    return value


def json_is_clean(raw: bytes) -> bool:
    """True when no string (or key) of the JSON document ``raw`` can hold anything :func:`clean`
    removes, so the parsed document needs no :func:`clean_json` pass (the common case: a
    recursive pass over a large state costs several times its parse). False may be a false alarm
    (an escaped backslash before ``u``), never the reverse."""
    if b"\x7f" in raw or _JSON_ESCAPE.search(raw):
        return False
    return raw.isascii() or not any(search(raw) for search in _JSON_RAW_UNCLEAN)


def decode(data: bytes) -> str:
    """Decode file bytes as UTF-8 (BOM tolerated, invalid bytes replaced) and clean them."""
    return clean(data.decode("utf-8-sig", errors="replace"))


def shorten(text: str, width: int = 80) -> str:
    """One line, at most ``width`` characters, for tables and messages."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: max(0, width - 1)] + "…"


def plural(n: int, word: str) -> str:
    """``1 warning``, ``2 warnings``."""
    return f"{n} {word}{'' if n == 1 else 's'}"
