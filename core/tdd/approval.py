"""The plan approval marker, tested exactly as the TDD plugin's stop hook tests it.

The hook (``hooks/check-tdd-progress.sh``) asks ``grep -qiE '^\\*{0,2}Approved:\\*{0,2}'`` of the
raw file: at most two asterisks, then ``Approved:`` in any case, at the very start of a line. No
bullet, no indentation, no ``**Approved**:``; a UTF-8 byte-order mark defeats it on line 1. This
module is the one place that test lives: the dashboard, ``check`` and ``approve`` all ask it, so
they cannot disagree with the hook (or with each other) about whether a plan is approved.

grep reads bytes, so these functions do too. A line ends at ``\\n``; a NUL byte also ends one,
because GNU grep treats a file holding NULs as binary and splits its lines at them. A ``\\r`` does
not end a line. The letters of ``approved`` have no non-ASCII case variants in a UTF-8 locale, so
an ASCII case-insensitive match is exact.
"""

from __future__ import annotations

import re

# The hook's regex, anchored at a line start (re.M: after \n) or just after a NUL (see above).
_MARKER = re.compile(rb"(?:^|(?<=\x00))\*{0,2}approved:", re.I | re.M)
# Lines a person would read as a marker but the hook does not accept (bullets, indentation,
# `**Approved**:`, `__Approved__:`, a byte-order mark): shown as "not approval", never counted.
_LOOKALIKE = re.compile(
    rb"^(?:\xef\xbb\xbf)?[ \t]*(?:[-*+][ \t]+)?[*_]{0,3}approved[*_]{0,3}[ \t]*:", re.I | re.M
)


def find_approval(raw: bytes) -> tuple[int, bytes] | None:
    """The first accepted marker: (0-based line index, the bytes after ``Approved:``), or None.

    The value runs to the end of the line (or the NUL that ends grep's line).
    """
    m = _MARKER.search(raw)
    if m is None:
        return None
    end = len(raw)
    for stop in (raw.find(b"\n", m.end()), raw.find(b"\x00", m.end())):
        if stop != -1:
            end = min(end, stop)
    return raw.count(b"\n", 0, m.start()), raw[m.end() : end]


def approval_line(raw: bytes) -> int | None:
    """0-based index of the first line the stop hook accepts as approval; None if none does."""
    found = find_approval(raw)
    return None if found is None else found[0]


def lookalike_line(raw: bytes) -> int | None:
    """0-based index of the first line that looks like a marker but the hook rejects; else None.

    Lines before an accepted marker only: once the plan is approved a lookalike no longer matters.
    """
    accepted = approval_line(raw)
    for m in _LOOKALIKE.finditer(raw):
        index = raw.count(b"\n", 0, m.start())
        if accepted is not None and index >= accepted:
            return None
        if _MARKER.match(raw, m.start()) is None:
            return index
    return None
