"""Untrusted text: every string that comes from a file passes through here once, at ingestion.

Terminal escape sequences (CSI, OSC, DCS, ...), C0/C1 control characters and bidirectional
overrides are removed; tab and newline are kept. The result is still *plain text*: the UI never
parses it as markup (docs/design.md#untrusted-text).
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
# Lone surrogates too: they come from JSON ``\ud800`` escapes and cannot be printed or encoded.
_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
# What _CONTROLS matches, as it can reach a string of a UTF-8 JSON document: strict JSON forbids
# raw C0 characters in strings, so only an escape (``\b \f \r \uXXXX``) or a raw DEL, C1 or
# bidirectional character can. Each pattern has a literal prefix, which ``re`` finds with a fast
# scan (one alternation of them all is ten times slower on a 5 MB document).
_JSON_ESCAPE = re.compile(rb"\\[bfru]")
_JSON_RAW_UNCLEAN = tuple(
    re.compile(p).search
    for p in (rb"\xc2[\x80-\x9f]", rb"\xe2\x80[\x8e\x8f\xaa-\xae]", rb"\xe2\x81[\xa6-\xa9]")
)


def clean(text: str) -> str:
    """Return ``text`` without escape sequences or control characters (``\\t``/``\\n`` kept)."""
    if text.isprintable():  # fast path: the overwhelmingly common case
        return text
    return _CONTROLS.sub("", _ESCAPES.sub("", text))


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
    recursive pass over a 5 MB state costs several times its parse). False may be a false alarm
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
