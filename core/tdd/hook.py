"""What the TDD plugin's stop hook (``hooks/check-tdd-progress.sh``) decides on a progress file.

The hook, run when a Claude Code session tries to end:

1. no ``.tdd-progress.md``: allow;
2. no approval marker (``grep -qiE '^\\*{0,2}Approved:\\*{0,2}'``): allow (an unapproved plan
   may exit; see :mod:`.approval`);
3. ``TOTAL`` = lines matching ``grep -ciE '^\\s*##\\s*(slice|step)\\s+[0-9]'``, ``TERMINAL`` =
   lines matching ``grep -ciE 'status:\\*{0,2}\\s*(pass|done|complete|fail|skip)'``;
   ``TOTAL`` 0: allow;
4. ``REMAINING = TOTAL - TERMINAL``: block when positive ("TDD session has N of M slices
   remaining."), else allow.

:func:`stop_hook_view` is the one computation of that: the TDD screen, the plan approval screen
and ``check`` all show its result. It runs on the raw bytes, as grep does, and reproduces GNU
grep in a UTF-8 locale (measured character by character, see ``tests/conformance/tdd``):

- a line ends at ``\\n`` and, in a file holding a NUL (grep's binary mode), at each NUL;
- ``\\s`` is the locale's ``[[:space:]]``: ASCII space, tab, VT, FF, CR and the Unicode spaces
  U+1680, U+2000-U+2006, U+2008-U+200A, U+2028, U+2029, U+205F, U+3000; not the no-break spaces
  U+00A0, U+2007, U+202F;
- ``-i`` folds ASCII case, plus ``ſ`` (U+017F) for ``s`` and ``ı`` (U+0131) for ``i``;
- bytes that are not UTF-8 match nothing (they cannot be a space or a letter).

In the C locale only the ASCII characters count; everything else is identical.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .approval import approval_line

Decision = Literal["allow", "block"]

# [[:space:]] in a glibc UTF-8 locale, minus the newline that ends grep's line (and NUL).
_SPACE = "[ \\t\\x0b\\x0c\\r\\u1680\\u2000-\\u2006\\u2008-\\u200a\\u2028\\u2029\\u205f\\u3000]"
_FOLD = {"s": "[sSſ]", "i": "[iIı]"}


def _caseless(word: str) -> str:
    """``slice`` -> ``[sSſ][lL][iIı][cC][eE]``: grep -i's folding, spelled out (Python's own
    ``re.I`` also folds the Kelvin sign into ``k``, which grep does not)."""
    return "".join(_FOLD.get(c, f"[{c}{c.upper()}]") for c in word)


def _words(*words: str) -> str:
    return "(?:" + "|".join(_caseless(w) for w in words) + ")"


_LINE_START = "(?:^|(?<=\\x00))"  # with re.M: after a newline, or after a NUL (binary mode)
HOOK_SLICE_RE = re.compile(
    f"{_LINE_START}{_SPACE}*##{_SPACE}*{_words('slice', 'step')}{_SPACE}+[0-9]", re.M
)
HOOK_TERMINAL_RE = re.compile(
    f"{_caseless('status')}:\\*{{0,2}}{_SPACE}*{_words('pass', 'done', 'complete', 'fail', 'skip')}"
)


@dataclass(frozen=True, slots=True)
class StopHookView:
    """The hook's inputs and its verdict. Line numbers are 1-based ``\\n`` lines."""

    approved: bool  # its approval grep succeeds
    slice_lines: tuple[int, ...] = ()  # lines its slice grep counts (TOTAL)
    terminal_lines: tuple[int, ...] = ()  # lines its terminal-status grep counts (TERMINAL)

    @property
    def total(self) -> int:
        return len(self.slice_lines)

    @property
    def terminal(self) -> int:
        return len(self.terminal_lines)

    @property
    def remaining(self) -> int:
        """``TOTAL - TERMINAL`` (0 with no slice heading, where the hook stops counting); may be
        negative when more lines look terminal than there are headings."""
        return self.total - self.terminal if self.total else 0

    @property
    def decision(self) -> Decision:
        return "block" if self.approved and self.remaining > 0 else "allow"

    @property
    def blocks_stop(self) -> bool:
        return self.decision == "block"

    @property
    def reason(self) -> str:
        """Why it decides so, in the hook's own terms (for the screens and ``check``)."""
        if not self.approved:
            return "the plan has no Approved: marker at a line start"
        if not self.total:
            return "no `## Slice N` / `## Step N` line"
        return (
            f"{self.total} slice line(s) - {self.terminal} terminal Status line(s) = "
            f"{self.remaining} remaining"
        )


def _matching_lines(pattern: re.Pattern[str], text: str) -> tuple[int, ...]:
    """The ``\\n`` line number of each grep line (split at ``\\n`` and NUL) that matches:
    one entry per grep line, so two NUL-separated matches on one line give two entries."""
    out: list[int] = []
    line, grep_line, pos, last = 1, 0, 0, -1
    for m in pattern.finditer(text):
        newlines = text.count("\n", pos, m.start())
        line += newlines
        grep_line += newlines + text.count("\x00", pos, m.start())
        pos = m.start()
        if grep_line != last:
            out.append(line)
            last = grep_line
    return tuple(out)


def stop_hook_view(raw: bytes | str) -> StopHookView:
    """What the hook computes on a progress file's bytes (a ``str`` is encoded as UTF-8)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="replace")
    # invalid UTF-8 becomes lone surrogates, which no class above contains: they match nothing
    text = raw.decode("utf-8", errors="surrogateescape")
    return StopHookView(
        approved=approval_line(raw) is not None,
        slice_lines=_matching_lines(HOOK_SLICE_RE, text),
        terminal_lines=_matching_lines(HOOK_TERMINAL_RE, text),
    )
