"""Parse ``.isdlc/hook-activity.log`` lines into :class:`HookRecord` (docs/formats.md#hook-log).

JSON Lines, each line compact JSON with exactly the keys ``ts, hook, event, phase, agent, reason``
in that order (missing values ``null``). :func:`parse_line` is the reference parser (any input,
never raises); :func:`parse_fast` gives the same record for every line, decoding the owner's exact
shape with a typed ``msgspec`` struct (the faster: docs/performance.md#the-hook-log) and handing
anything else to :func:`parse_line`. Many lines at once: :func:`.batch.parse_block`.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from typing import Any, NamedTuple

import msgspec

from ..log import internal_failure
from ..protocol import HOOK_EVENTS, parse_iso
from ..text import clean, shorten

KEYS = ("ts", "hook", "event", "phase", "agent", "reason")
_KEYS_LIST = list(KEYS)
_KEY_SET = frozenset(KEYS)

MAX_LINE = 1024 * 1024  # a longer "line" is reported invalid and skipped up to its newline
RAW_KEEP = 500  # characters of an invalid line kept in ``raw``
# The largest log the owner's rotation leaves (it rewrites the log to its newest 500 lines once an
# append takes it past 1 MiB), with room for long lines and a late rotation. A log up to this size
# is copied into the store as it is read, and parsed, counted and searched line by line without
# numpy (:mod:`.columns`); one that outgrew it is the stress case, handled with numpy.
KEEP_BYTES = 4 * 1024 * 1024

_JSON = json.JSONDecoder(strict=False)
_TS_FAST = re.compile(
    r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,6})?Z\Z"
)
_intern = sys.intern


class HookRecord(NamedTuple):
    """One line of the log. A named tuple, not a frozen dataclass: a million are built when a
    large log is read, and this is five times cheaper to build."""

    ts: str | None
    hook: str | None
    event: str | None
    phase: str | None
    agent: str | None
    reason: str | None
    line_no: int = 0  # 1-based physical line number within the tailer's stream
    offset: int = 0  # byte offset of the line in the file when it was read
    valid: bool = True
    error: str | None = None  # why the line is invalid
    raw: str | None = None  # cleaned original line (invalid lines only), cut to RAW_KEEP
    notes: tuple[str, ...] = ()  # oddities of a usable line (unknown event, extra key, ...)

    @property
    def time(self) -> datetime | None:
        return parse_iso(self.ts)


def _invalid(text: str, error: str, line_no: int, offset: int) -> HookRecord:
    raw = clean(text)
    if len(raw) > RAW_KEEP:
        raw = raw[:RAW_KEEP] + "…"
    # (the reason is interned: a log of junk lines holds a few distinct ones, once each)
    return HookRecord(
        None, None, None, None, None, None, line_no, offset, False, _intern(error), raw
    )


def _field(value: Any, key: str, notes: list[str]) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = clean(value)
        # the few-valued fields are interned: a million records share a handful of strings
        return _intern(value) if key != "reason" and key != "ts" and len(value) < 80 else value
    notes.append(f"wrong type: {key} is {type(value).__name__}, not a string (ignored)")
    return None


def _interned(
    ts: str | None,
    hook: str | None,
    event: str,
    phase: str | None,
    agent: str | None,
    reason: str | None,
    line_no: int,
    offset: int,
) -> HookRecord:
    """A usable line's record, its few-valued fields interned (records of one log share them)."""
    h, e, p, a = (None if v is None else _intern(v) for v in (hook, event, phase, agent))
    return HookRecord(ts, h, e, p, a, reason, line_no, offset)


def parse_line(line: bytes | str, line_no: int = 0, offset: int = 0) -> HookRecord:
    """Parse one log line (without or with its newline). Never raises.

    Invalid (``valid=False``): not JSON, not an object, no string ``event``. Usable but odd lines
    stay valid and carry ``notes``: unknown event, missing/extra keys, keys out of order, a value of
    the wrong type (dropped), a ``ts`` that is not ISO.
    """
    try:
        if isinstance(line, bytes | bytearray | memoryview):
            text = bytes(line).decode("utf-8", errors="replace")
        elif isinstance(line, str):
            text = line
        else:
            return _invalid(repr(line), f"not a line: {type(line).__name__}", line_no, offset)
        text = text.rstrip("\r\n")
        stripped = text.strip()
        if not stripped:
            return _invalid(text, "empty line", line_no, offset)
        try:
            obj, end = _JSON.raw_decode(stripped)
        except (ValueError, RecursionError) as exc:
            msg = exc.msg if isinstance(exc, json.JSONDecodeError) else type(exc).__name__
            return _invalid(text, f"not JSON: {msg}", line_no, offset)
        if end != len(stripped):
            return _invalid(text, "not JSON: extra data after the value", line_no, offset)
        if not isinstance(obj, dict):
            return _invalid(text, f"not a JSON object: {type(obj).__name__}", line_no, offset)
        event = obj.get("event")
        if not isinstance(event, str) or not event.strip():
            why = "missing" if event is None else f"{type(event).__name__}, not a string"
            if isinstance(event, str):
                why = "empty"
            return _invalid(text, f"event is {why}", line_no, offset)
        notes: list[str] = []
        if list(obj) == _KEYS_LIST:  # fast path: the owner's exact shape, plain strings
            ts, hook, _event, phase, agent, reason = obj.values()
            if (
                (ts is None or (type(ts) is str and _TS_FAST.match(ts)))
                and (hook is None or (type(hook) is str and hook.isprintable()))
                and event.isprintable()
                and (phase is None or (type(phase) is str and phase.isprintable()))
                and (agent is None or (type(agent) is str and agent.isprintable()))
                and (reason is None or (type(reason) is str and reason.isprintable()))
                and event in HOOK_EVENTS
            ):
                return _interned(ts, hook, event, phase, agent, reason, line_no, offset)
        else:
            missing = [k for k in KEYS if k not in obj]
            extra = [clean(str(k)) for k in obj if k not in _KEY_SET]
            if missing:
                notes.append("missing keys: " + ", ".join(missing))
            if extra:
                notes.append("extra keys: " + ", ".join(extra[:5]))
            if not missing and not extra:
                notes.append("key order: keys out of order")
        values = [_field(obj.get(k), k, notes) for k in KEYS]
        if values[2] not in HOOK_EVENTS:
            notes.append(f"unknown event: {shorten(values[2] or '', 40)}")
        if values[0] is not None and parse_iso(values[0]) is None:
            notes.append(f"bad ts: not an ISO timestamp: {shorten(values[0], 40)}")
        ts, hook, event, phase, agent, reason = values
        return HookRecord(
            ts, hook, event, phase, agent, reason, line_no, offset, True, None, None, tuple(notes)
        )
    except Exception as exc:  # defensive: a parser of untrusted bytes must never raise
        internal_failure(__name__, "a hook log line's parser raised", exc)
        return _invalid(str(line)[:RAW_KEEP], f"unparseable: {type(exc).__name__}", line_no, offset)


# ---------------------------------------------------------------------------- fast path

_UNSET = msgspec.UNSET


class _OwnerLine(msgspec.Struct, forbid_unknown_fields=True):
    """The owner's line: the six keys, strings or null (anything else fails to decode)."""

    ts: str | msgspec.UnsetType | None = _UNSET
    hook: str | msgspec.UnsetType | None = _UNSET
    event: str | msgspec.UnsetType | None = _UNSET
    phase: str | msgspec.UnsetType | None = _UNSET
    agent: str | msgspec.UnsetType | None = _UNSET
    reason: str | msgspec.UnsetType | None = _UNSET


_decode_owner = msgspec.json.Decoder(_OwnerLine).decode
_KEY_TOKENS = (b',"hook":', b',"event":', b',"phase":', b',"agent":', b',"reason":')


def _in_key_order(raw: bytes) -> bool:
    """The keys appear in the owner's order. A ``,"`` outside a string is structure (inside
    one the quote would be escaped), and the decoded values are all strings or null, so each
    token found is a top-level key."""
    pos = 0
    for token in _KEY_TOKENS:
        pos = raw.find(token, pos)
        if pos < 0:
            return False
    return True


def _printable(value: str | None) -> bool:
    return value is None or value.isprintable()


def parse_fast(raw: bytes, line_no: int = 0, offset: int = 0) -> HookRecord:
    """:func:`parse_line` of one line without its newline, the same record, faster: a line in
    the owner's exact shape (keys in order, plain strings, a canonical ``ts``, a known event) is
    decoded by ``msgspec``; any other goes to :func:`parse_line`."""
    if raw[:6] == b'{"ts":' and raw[-1:] == b"}" and _in_key_order(raw):
        try:
            x = _decode_owner(raw)
        except (msgspec.DecodeError, ValueError, RecursionError):  # also UnicodeDecodeError;
            # DecodeError is a ValueError only from msgspec 0.19 on (make test-lowest runs 0.18)
            return parse_line(raw, line_no, offset)
        ts, hook, event, phase, agent = x.ts, x.hook, x.event, x.phase, x.agent
        if (
            event in HOOK_EVENTS
            and (ts is None or (ts is not _UNSET and _TS_FAST.match(ts)))
            and hook is not _UNSET
            and phase is not _UNSET
            and agent is not _UNSET
            and x.reason is not _UNSET
            and _printable(hook)
            and _printable(phase)
            and _printable(agent)
            and _printable(x.reason)
        ):
            return _interned(ts, hook, event, phase, agent, x.reason, line_no, offset)
    return parse_line(raw, line_no, offset)


def _overlong(head: bytes, max_line: int, line_no: int, offset: int) -> HookRecord:
    """The record of a line too long to hold (``head``: its start, at least)."""
    text = head[:RAW_KEEP].decode("utf-8", errors="replace")
    return _invalid(text, f"line longer than {max_line} bytes (skipped)", line_no, offset)
