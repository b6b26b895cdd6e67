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

The hook greps the whole file, however large, so :class:`HookCounter` takes the bytes in chunks
and keeps only the line being read (a line longer than ``long_line`` is kept as its first and
last few dozen characters, with each run of spaces counted as one: none of the three patterns
can tell a run from a single space, and none spans more than a few dozen characters).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from typing import Literal

from msgspec import Struct

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


class StopHookView(Struct, frozen=True):
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


def _matching_lines(pattern: re.Pattern[str], text: str, first: int = 1) -> list[int]:
    """The ``\\n`` line number of each grep line (split at ``\\n`` and NUL) that matches:
    one entry per grep line, so two NUL-separated matches on one line give two entries.
    ``first``: the number of the text's first line."""
    out: list[int] = []
    line, grep_line, pos, last = first, 0, 0, -1
    for m in pattern.finditer(text):
        newlines = text.count("\n", pos, m.start())
        line += newlines
        grep_line += newlines + text.count("\x00", pos, m.start())
        pos = m.start()
        if grep_line != last:
            out.append(line)
            last = grep_line
    return out


_RUN = re.compile(f"{_SPACE}+")
_KEEP = 64  # characters kept of each end of a long line: every match is far shorter


class _LongLine:
    """One grep line too long to keep: its first and last ``_KEEP`` characters (runs of spaces
    squeezed to one) and whether a terminal Status has been seen in between."""

    def __init__(self) -> None:
        self.decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
        self.head = ""
        self.tail = ""
        self.terminal = False

    def feed(self, raw: bytes, final: bool = False) -> None:
        text = self.decoder.decode(raw, final)
        if len(self.head) < _KEEP:
            self.head = _RUN.sub(" ", self.head + text)[:_KEEP]
        window = _RUN.sub(" ", self.tail + text)
        self.terminal = self.terminal or HOOK_TERMINAL_RE.search(window) is not None
        self.tail = window[-_KEEP:]


class HookCounter:
    """The hook's three greps over a file fed in chunks (see the module docstring)."""

    def __init__(self, long_line: int = 1 << 20) -> None:
        self.long_line = long_line
        self.line = 1  # the \n line the carried bytes belong to
        self.carry = b""
        self.long: _LongLine | None = None
        self.approved = False
        self.slices: list[int] = []
        self.terminals: list[int] = []

    def feed(self, chunk: bytes) -> HookCounter:
        if self.long is not None:
            end = chunk.find(b"\n")
            self._feed_long(chunk if end == -1 else chunk[:end], end != -1)
            if end == -1:
                return self
            self.line += 1
            chunk = chunk[end + 1 :]
        data, self.carry = self.carry + chunk, b""
        end = data.rfind(b"\n")
        if end != -1:
            self._lines(data[: end + 1])
            data = data[end + 1 :]
        if len(data) > self.long_line:
            self._feed_long(data, False)
        else:
            self.carry = data
        return self

    def view(self) -> StopHookView:
        """The verdict on everything fed (the last line need not end in a newline)."""
        if self.long is not None:
            self._feed_long(b"", True)
        elif self.carry:
            self._lines(self.carry)
        self.carry = b""
        return StopHookView(self.approved, tuple(self.slices), tuple(self.terminals))

    def _lines(self, raw: bytes) -> None:
        """Whole lines (or the file's last one): the three greps at once."""
        text = raw.decode("utf-8", errors="surrogateescape")
        self.approved = self.approved or approval_line(raw) is not None
        self.slices += _matching_lines(HOOK_SLICE_RE, text, self.line)
        self.terminals += _matching_lines(HOOK_TERMINAL_RE, text, self.line)
        self.line += raw.count(b"\n")

    def _feed_long(self, raw: bytes, line_ends: bool) -> None:
        """Bytes of a line too long to keep; each NUL ends a grep line (binary mode)."""
        parts = raw.split(b"\x00")
        for i, part in enumerate(parts):
            if self.long is None:
                self.long = _LongLine()
            last = i == len(parts) - 1
            self.long.feed(part, final=not last or line_ends)
            if not last or line_ends:
                self._end_long(self.long)
                self.long = None

    def _end_long(self, long: _LongLine) -> None:
        head = long.head.encode("utf-8", errors="surrogateescape")
        self.approved = self.approved or approval_line(head) is not None
        if HOOK_SLICE_RE.match(long.head):
            self.slices.append(self.line)
        if long.terminal:
            self.terminals.append(self.line)


def stop_hook_view(raw: bytes | str) -> StopHookView:
    """What the hook computes on a progress file's bytes (a ``str`` is encoded as UTF-8)."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", errors="replace")
    # invalid UTF-8 becomes lone surrogates, which no class above contains: they match nothing
    return HookCounter().feed(raw).view()


def stream_hook_view(chunks: Iterable[bytes]) -> StopHookView:
    """The same verdict on a file read in chunks (one longer than phasewatch's read cap)."""
    counter = HookCounter()
    for chunk in chunks:
        counter.feed(chunk)
    return counter.view()
