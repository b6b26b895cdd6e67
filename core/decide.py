"""The write side: supervised review gate, escalation answers and TDD plan approval.

One writer serves the TUI and the command line, following DESIGN.md "Writing files that other
programs own":

1. read the file's raw bytes and parse them (strict JSON, no repair; a torn read is retried);
2. compare-and-swap: ``state_version`` and the fields the decision depends on must still be what
   the caller saw (``expect_version``, ``seen``), otherwise nothing is written;
3. change only the fields the protocol names and set ``state_version`` to disk + 1 (1 when the
   disk's is missing, zero or negative: ``writeState``'s rule);
4. write ``.<name>.phasewatch-<pid>.tmp`` in the same directory, fsync, ``os.replace``, fsync the
   directory, keeping the file's mode (and owner where possible) and its formatting;
5. look again: an owner write that landed on the replaced inode is put back at once (our
   decision withdrawn); ``SETTLE_SECONDS`` after the rename the file is read again, and if the
   bytes are not ours each action's *receipt* tells whether the new content still carries the
   decision (the owner read ours and wrote after it: ``applied``) or not (``race``);
6. append one line per attempt (refusals too) to the journal.

Outcomes and exit codes: ``applied`` 0; ``refused-conflict`` 3 (nothing written); ``race`` 3
(someone wrote around our replace: ``version_after`` is set when the decision is in the file
anyway, None when it is not; look again); ``refused-invalid`` 2 (no gate, wrong status, redo
limit, empty guidance/reason, nothing to decide, file not valid JSON); ``error`` 1 (I/O).

What each decision writes (nothing else; ``state_version`` = disk + 1 always):
- review ``continue`` (status gate_presented): append ``{phase, action: "continue", timestamp}``
  to ``active_workflow.review_history``; delete ``supervised_review``.
- review ``review`` (gate_presented): ``status = "reviewing"``, ``paused_at = now``.
- review ``resume`` (reviewing): append ``{phase, action: "review", timestamp, paused_at,
  resumed_at}`` (``recordReviewAction``'s key order); delete ``supervised_review``.
- review ``redo`` (gate_presented or reviewing, redo_count < 3, guidance): ``redo_count += 1``,
  guidance appended to ``redo_guidance_history``, ``status = "redo_pending"``,
  ``phases[k].status`` and ``phase_status[k]`` = ``in_progress`` (index unchanged).
- escalation ``retry``: what ``workflow-retry.cjs`` does: ``active_workflow.recovery_action =
  {type: "retry", phase, timestamp}``; when ``phases[k]`` exists, ``test_iteration``,
  ``constitutional_validation`` and ``interactive_elicitation`` deleted from it (the first and
  last from its ``iteration_requirements`` too) and ``retry_count += 1`` (created);
  ``pending_escalations = []``.
- escalation ``skip``: ``pending_escalations = []`` only. Marking the task done and starting the
  next phase is the controller's part (seed 003 TS-015); ``recovery_action`` has no skip type,
  so the override is recorded in the journal, not invented in the state.
- escalation ``cancel`` (reason): the whole ``active_workflow`` object, plus ``status:
  "cancelled"``, ``cancelled_at``, ``cancellation_reason``, ``phase_snapshots`` and ``metrics``,
  is appended to ``workflow_history`` (pruned to the newest 50); ``active_workflow = null``;
  ``pending_escalations = []``. Top-level ``current_phase``/``active_agent`` are left alone.
  The phase k of an escalation answer is the newest escalation's phase, else the workflow's.

Formatting: the owner writes ``JSON.stringify(state, null, 2)``. The document is parsed with a
small parser that keeps the literal text of every string, number and key whose canonical
``JSON.stringify`` spelling would differ (``1.0``, ``"\\u00e9"``, ``-0``), so every value that is
not ours is written back byte-for-byte. Indent, line ending and whatever follows the closing brace
(trailing newline or not) are detected and kept. A file that was not in that canonical layout is
still written (values intact) and the result says it was reformatted.

Temp files are named ``.<name>.phasewatch-<pid>.tmp``; a write first removes the temps of
processes that are gone (or that are older than ten minutes), so a crash leaves at most one.

The journal is ``<root>/.isdlc/phasewatch-decisions.jsonl`` (``<root>/.phasewatch-decisions.jsonl``
when the project has no ``.isdlc/``, so journaling never makes a TDD-only project look like an
iSDLC one): one compact JSON object per line with ``ts, who, via, action, target, params,
version_before, version_after, outcome, message``.
"""

from __future__ import annotations

import contextlib
import copy
import getpass
import hashlib
import json
import os
import re
import socket
import stat
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from .archive import archived, js_truthy
from .confirm import Confirmation, Footprint, approval_footprint, state_footprint, watch
from .files.lock import writer_lock
from .files.read import MAX_BYTES, ReadRefused, read_regular
from .files.read import _read_fd as read_capped
from .files.write import (
    WriteRefused,
    append_line,
    check_target,
    create_exclusive,
    fsync_dir,
    inside,
    open_regular,
)
from .protocol import MAX_REDOS, now_iso
from .tdd.approval import approval_line
from .text import clean, clean_json, shorten

# ---------------------------------------------------------------------------- outcomes

Outcome = Literal["applied", "refused-conflict", "refused-invalid", "error", "race", "reverted"]
APPLIED: Outcome = "applied"
CONFLICT: Outcome = "refused-conflict"
INVALID: Outcome = "refused-invalid"
ERROR: Outcome = "error"
RACE: Outcome = "race"
#: Applied, then undone by the owner's next write within the confirm window (``core.confirm``).
REVERTED: Outcome = "reverted"

#: Process exit codes. ``race`` (our bytes did not survive) is a conflict: look again, retry.
EXIT_CODES: dict[str, int] = {
    APPLIED: 0, CONFLICT: 3, RACE: 3, REVERTED: 3, INVALID: 2, ERROR: 1
}  # fmt: skip

REVIEW_ACTIONS = ("continue", "review", "resume", "redo")
ESCALATION_ACTIONS = ("retry", "skip", "cancel")
MAX_WORKFLOW_HISTORY = 50
STALE_TEMP_SECONDS = 600
#: After a replace, the file is read again this long after the rename: a writer that read the
#: file just before our rename and writes right after it (a hook's read-modify-write) shows up.
SETTLE_SECONDS = 0.025
JOURNAL_NAME = "phasewatch-decisions.jsonl"


@dataclass(slots=True)
class DecisionResult:
    outcome: Outcome
    message: str
    version_before: int | None = None
    version_after: int | None = None
    state_summary: dict[str, Any] = field(default_factory=dict)
    journal_error: str | None = None
    action: str = ""
    target: str = ""
    #: What an applied write left in the file (for :func:`core.confirm.watch`); None otherwise.
    footprint: Footprint | None = field(default=None, repr=False)
    #: The confirm window's verdict, when the caller watched (``--confirm-seconds``).
    confirmation: Confirmation | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == APPLIED

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    def to_json(self) -> dict[str, Any]:
        """The stable document of ``--json`` (schema 1)."""
        return {
            "schema": 1,
            "action": self.action,
            "target": self.target,
            "outcome": self.outcome,
            "message": self.message,
            "version_before": self.version_before,
            "version_after": self.version_after,
            "state": self.state_summary,
            "journal_error": self.journal_error,
            "confirmation": None
            if self.confirmation is None
            else {
                "verdict": self.confirmation.verdict,
                "seconds": round(self.confirmation.seconds, 3),
                "state_version": self.confirmation.version,
            },
        }


class _Refusal(Exception):
    def __init__(self, outcome: Outcome, message: str) -> None:
        super().__init__(message)
        self.outcome = outcome
        self.message = message


# ---------------------------------------------------------------------------- JSON, literally


class DocumentError(ValueError):
    def __init__(self, message: str, pos: int, torn: bool = False) -> None:
        super().__init__(message)
        self.pos = pos
        self.torn = torn


class LiteralStr(str):
    """A string (or key) whose spelling on disk differs from ``JSON.stringify``'s."""

    literal: str


class LiteralInt(int):
    literal: str


class LiteralFloat(float):
    literal: str


def _with_literal(cls: type, value: Any, literal: str) -> Any:
    obj = cls(value)
    obj.literal = literal
    return obj


_JS_ESCAPE = re.compile('[\\x00-\\x1f"\\\\\ud800-\udfff]')
_SURROGATE = re.compile("[\ud800-\udfff]")
_JS_SHORT = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def js_string(text: str) -> str:
    """``JSON.stringify`` of a string (lone surrogates escaped, non-ASCII kept)."""
    if _SURROGATE.search(text):  # a high+low pair is one character to JS: join them first
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return (
        '"'
        + _JS_ESCAPE.sub(lambda m: _JS_SHORT.get(m.group(), f"\\u{ord(m.group()):04x}"), text)
        + '"'
    )


def js_number(value: float | int) -> str:
    """``JSON.stringify`` of a number: ECMAScript ``Number::toString`` (``null`` for NaN and the
    infinities). An integer is held as JS holds it, a double: exact below 2**53, else rounded.
    The one number formatter (the simulator's JSON writer uses it too)."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        if abs(value) < 2**53:
            return str(value)
        value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        return "null"
    if value == 0:
        return "0"  # also -0
    # repr() is the shortest round-tripping decimal: the digits JS chooses.
    _sign, digit_tuple, exponent = Decimal(repr(abs(value))).as_tuple()
    assert isinstance(exponent, int)
    digits = "".join(map(str, digit_tuple)).lstrip("0")
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    k = len(stripped)
    n = exponent + k  # value = 0.d1d2...dk * 10^n
    if k <= n <= 21:
        text = stripped + "0" * (n - k)
    elif 0 < n <= 21:
        text = stripped[:n] + "." + stripped[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + stripped
    else:
        mantissa = stripped if k == 1 else stripped[0] + "." + stripped[1:]
        text = f"{mantissa}e{'+' if n > 1 else '-'}{abs(n - 1)}"
    return ("-" if value < 0 else "") + text


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_MAX_DEPTH = 400


def parse_document(text: str) -> Any:
    """Parse strict JSON (as ``JSON.parse`` would, but refusing duplicate keys), keeping the
    literal spelling of every string, key and number that ``JSON.stringify`` would spell
    differently. Raises :class:`DocumentError`."""
    n = len(text)
    scan = json.decoder.scanstring

    def fail(msg: str, pos: int) -> DocumentError:
        return DocumentError(msg, pos, torn=pos >= len(text.rstrip()))

    def string(i: int) -> tuple[str, int]:
        try:
            value, end = scan(text, i + 1, True)
        except json.JSONDecodeError as exc:
            if exc.msg.startswith("Unterminated string"):  # ran off the end
                raise DocumentError(exc.msg, exc.pos, torn=True) from None
            raise fail(exc.msg, exc.pos) from None
        lit = text[i:end]
        if js_string(value) != lit:
            value = _with_literal(LiteralStr, value, lit)
        return value, end

    def value_at(i: int, depth: int) -> tuple[Any, int]:
        if depth > _MAX_DEPTH:
            raise DocumentError("nested too deeply", i)
        if i >= n:
            raise fail("unexpected end of document", i)
        c = text[i]
        if c == '"':
            return string(i)
        if c == "{":
            obj: dict[str, Any] = {}
            i = _WS.match(text, i + 1).end()
            if i < n and text[i] == "}":
                return obj, i + 1
            while True:
                if i >= n or text[i] != '"':
                    raise fail("expected a property name", i)
                key, i = string(i)
                if key in obj:
                    raise DocumentError(f"duplicate key {shorten(clean(key), 40)!r}", i)
                i = _WS.match(text, i).end()
                if i >= n or text[i] != ":":
                    raise fail("expected ':'", i)
                i = _WS.match(text, i + 1).end()
                obj[key], i = value_at(i, depth + 1)
                i = _WS.match(text, i).end()
                if i < n and text[i] == ",":
                    i = _WS.match(text, i + 1).end()
                    continue
                if i < n and text[i] == "}":
                    return obj, i + 1
                raise fail("expected ',' or '}'", i)
        if c == "[":
            arr: list[Any] = []
            i = _WS.match(text, i + 1).end()
            if i < n and text[i] == "]":
                return arr, i + 1
            while True:
                item, i = value_at(i, depth + 1)
                arr.append(item)
                i = _WS.match(text, i).end()
                if i < n and text[i] == ",":
                    i = _WS.match(text, i + 1).end()
                    continue
                if i < n and text[i] == "]":
                    return arr, i + 1
                raise fail("expected ',' or ']'", i)
        for word, val in (("null", None), ("true", True), ("false", False)):
            if text.startswith(word, i):
                return val, i + len(word)
            if word.startswith(text[i:n]):
                raise fail("unexpected end of document", n)
        m = _NUMBER.match(text, i)
        if not m:
            raise fail(f"unexpected character {c!r}", i)
        lit = m.group()
        if m.group(1) or m.group(2):
            num: Any = float(lit)
            if num in (float("inf"), float("-inf")) or js_number(num) != lit:
                num = _with_literal(LiteralFloat, num, lit)
        else:
            num = int(lit)
            if js_number(num) != lit:  # -0, or beyond 2**53 (JS would round it)
                num = _with_literal(LiteralInt, num, lit)
        return num, m.end()

    i = _WS.match(text, 0).end()
    value, i = value_at(i, 0)
    i = _WS.match(text, i).end()
    if i != n:
        raise DocumentError("extra data after the document", i)
    return value


@dataclass(frozen=True, slots=True)
class Style:
    """How a JSON file is laid out: ``indent`` None = compact, ``lead``/``tail`` = whitespace
    before the document and after it (the owner writes no trailing newline)."""

    indent: str | None = "  "
    newline: str = "\n"
    lead: str = ""
    tail: str = ""


_INDENT = re.compile(r"[\[{][ \t]*(\r?\n)([ \t]+)\S")


def detect_style(text: str) -> Style:
    body = text.strip(" \t\r\n")
    start = len(text) - len(text.lstrip(" \t\r\n"))
    lead, tail = text[:start], text[start + len(body) :]
    m = _INDENT.search(body)
    if m:
        return Style(m.group(2), m.group(1), lead, tail)
    if "\n" in body:
        return Style("  ", "\r\n" if "\r\n" in body else "\n", lead, tail)
    return Style(None if len(body) > 2 else "  ", "\n", lead, tail)


def dumps(value: Any, style: Style = Style()) -> str:
    """``JSON.stringify(value, null, indent)`` + the style's lead/tail, literals kept."""
    out: list[str] = [style.lead]
    indent, nl = style.indent, style.newline
    colon = ":" if indent is None else ": "

    def emit(v: Any, level: int) -> None:
        if v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, LiteralStr | LiteralInt | LiteralFloat):
            out.append(v.literal)
        elif isinstance(v, str):
            out.append(js_string(v))
        elif isinstance(v, int | float):
            out.append(js_number(v))
        elif isinstance(v, dict):
            if not v:
                out.append("{}")
                return
            out.append("{")
            inner = None if indent is None else nl + indent * (level + 1)
            for n, (k, item) in enumerate(v.items()):
                if n:
                    out.append(",")
                if inner:
                    out.append(inner)
                out.append(k.literal if isinstance(k, LiteralStr) else js_string(str(k)))
                out.append(colon)
                emit(item, level + 1)
            if indent is not None:
                out.append(nl + indent * level)
            out.append("}")
        elif isinstance(v, list | tuple):
            if not v:
                out.append("[]")
                return
            out.append("[")
            inner = None if indent is None else nl + indent * (level + 1)
            for n, item in enumerate(v):
                if n:
                    out.append(",")
                if inner:
                    out.append(inner)
                emit(item, level + 1)
            if indent is not None:
                out.append(nl + indent * level)
            out.append("]")
        else:
            raise TypeError(f"cannot write {type(v).__name__} to JSON")

    emit(value, 0)
    out.append(style.tail)
    return "".join(out)


def plain(value: Any) -> Any:
    """A copy with plain ``str``/``int``/``float`` (for summaries and ``json.dumps``)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


# ---------------------------------------------------------------------------- file plumbing

_WRITE_LOCK = threading.RLock()  # one decision at a time per process (the temp name is per pid)


def temp_path(path: Path, pid: int | None = None) -> Path:
    return path.with_name(f".{path.name}.phasewatch-{os.getpid() if pid is None else pid}.tmp")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_stale_temps(path: Path) -> list[Path]:
    """Remove this file's temps left by processes that are gone (or older than ten minutes)."""
    removed = []
    prefix, suffix = f".{path.name}.phasewatch-", ".tmp"
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        pid_text = name[len(prefix) : -len(suffix)]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_SECONDS
        except OSError:
            continue
        if pid == os.getpid() or not _pid_alive(pid) or old:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


_fsync_dir = fsync_dir  # a module global, so tests can interpose on the directory fsync


def _read_fd(fd: int) -> bytes:
    """The whole file behind ``fd`` (a regular file) from its start, at most the cap + 1 bytes."""
    os.lseek(fd, 0, os.SEEK_SET)
    return read_capped(fd, MAX_BYTES + 1)


def _read_bytes(path: Path) -> bytes:
    """A file the writer is about to replace: never through a link, never a FIFO or device."""
    return read_regular(path, follow_symlinks=False)[0]


def _write_temp(path: Path, data: bytes, st: os.stat_result | None) -> Path:
    tmp = temp_path(path)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)  # a link planted at the temp name is removed, never followed
    mode = stat.S_IMODE(st.st_mode) if st else 0o644
    owner = (st.st_uid, st.st_gid) if st is not None else None
    create_exclusive(tmp, data, mode, owner)
    return tmp


@dataclass(slots=True)
class _Replace:
    """How a replace went. ``ok``: the file holds our bytes. ``changed``: nothing written (the
    file moved before the rename). ``overwritten``: another writer replaced our bytes after the
    rename. ``withdrawn`` / ``lost``: another writer's write landed on the inode we replaced;
    its bytes were put back (our decision withdrawn) or could not be (it wrote again).
    ``current`` is what the file held once things settled (None if unreadable)."""

    status: Literal["ok", "changed", "overwritten", "withdrawn", "lost"]
    detail: str = ""
    current: bytes | None = None


def _atomic_replace(
    path: Path,
    original: bytes,
    original_stat: os.stat_result,
    new: bytes,
    valid: Callable[[bytes], bool],
    settle: float = SETTLE_SECONDS,
    intent: Callable[[], None] | None = None,
) -> _Replace:
    """Steps 4 and 5: temp + fsync, last look, ``os.replace``, dir fsync, look again.

    The last look (same inode, same bytes) shrinks the window in which an owner's non-atomic
    write could be lost to microseconds. An owner write that still lands on the inode we
    replaced is seen right after the rename (its content moved; stamps are too coarse), and the
    owner's bytes are put back at once when the file still holds ours. Then, ``settle`` seconds
    after the rename, the file is read again: a writer that read the file before our rename and
    wrote after it shows up here (``overwritten``) and the caller decides, from the content,
    whether the decision survived.
    """
    if intent is not None:  # journaled before the temp: the last look and the rename stay adjacent
        intent()
    tmp = _write_temp(path, new, original_stat)
    try:
        old_fd = open_regular(path, os.O_RDONLY)
    except OSError:
        os.unlink(tmp)
        return _Replace("changed", "the file disappeared or is no longer a regular file")
    try:
        if os.fstat(old_fd).st_ino != original_stat.st_ino or _read_fd(old_fd) != original:
            os.unlink(tmp)
            return _Replace("changed", "the file changed while the decision was being written")
        os.replace(tmp, path)
        replaced_at = time.monotonic()
        orphan = None
        if _read_fd(old_fd) != original:  # an owner write is landing on the replaced inode
            orphan = _restore_orphan(path, old_fd, new, valid)
        _fsync_dir(path.parent)
    finally:
        os.close(old_fd)
    time.sleep(max(0.0, settle - (time.monotonic() - replaced_at)))
    current = _settled_bytes(path, valid)
    if orphan is not None:
        orphan.current = current
        return orphan
    if current != new:
        return _Replace("overwritten", "another writer replaced the file after our write", current)
    return _Replace("ok", current=current)


def _settled_bytes(path: Path, valid: Callable[[bytes], bool], attempts: int = 20) -> bytes | None:
    """The file's bytes once its writer has finished (incomplete reads retried for ~40 ms)."""
    data = None
    for _ in range(attempts):
        data = _read_bytes_or_none(path)
        if data is None or valid(data):
            return data
        time.sleep(0.002)
    return data


def _read_bytes_or_none(path: Path) -> bytes | None:
    try:
        return _read_bytes(path)
    except OSError:
        return None


def _restore_orphan(
    path: Path, old_fd: int, new: bytes, valid: Callable[[bytes], bool]
) -> _Replace:
    """An owner write went to the inode we replaced: give the file back its bytes."""
    theirs = b""
    for _ in range(50):  # the owner may still be writing it (truncate, then write)
        theirs = _read_fd(old_fd)
        if valid(theirs):
            break
        time.sleep(0.001)
    else:
        return _Replace(
            "lost",
            "another writer wrote during the replace and never finished; that owner write may "
            "be lost",
        )
    tmp = _write_temp(path, theirs, os.fstat(old_fd))  # before the look: look and rename adjacent
    if _bytes_now(path) != new:
        os.unlink(tmp)
        return _Replace(
            "lost",
            f"another writer wrote during the replace ({_name_write(theirs)}) and again after "
            "it; that write may be lost",
        )
    os.replace(tmp, path)
    return _Replace(
        "withdrawn",
        f"another writer wrote during the replace ({_name_write(theirs)}); its write was put "
        "back and the decision withdrawn",
    )


def _bytes_now(path: Path) -> bytes | None:
    """One immediate read (no retry, no pause), for a last look right before a rename."""
    try:
        fd = open_regular(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_fd(fd)
    finally:
        os.close(fd)


def _name_write(data: bytes) -> str:
    """How to recognise an owner write in a message: its ``state_version``, else its digest."""
    doc = _reread(data) if data.lstrip().startswith(b"{") else None
    version = _version_of(doc.get("state_version")) if doc is not None else None
    if version is not None:
        return f"its state_version {version}"
    return f"sha256 {hashlib.sha256(data).hexdigest()[:12]}"


# ---------------------------------------------------------------------------- journal


def journal_path(root: Path) -> Path:
    isdlc = root / ".isdlc"
    return isdlc / JOURNAL_NAME if isdlc.is_dir() else root / f".{JOURNAL_NAME}"


def default_who() -> str:
    try:
        user = getpass.getuser()
    except Exception:
        user = str(os.getuid()) if hasattr(os, "getuid") else "unknown"
    try:
        host = socket.gethostname()
    except OSError:
        host = "localhost"
    return f"{user}@{host}"


def _journal(root: Path, journal: Path, entry: dict[str, Any], sync: bool = True) -> str | None:
    """Append one line (a single write on an O_APPEND descriptor of a regular file inside the
    project, never through a link); the error text, if any."""
    line = (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
        "utf-8", "backslashreplace"
    )
    try:
        append_line(root, journal, line, sync=sync)
    except OSError as exc:
        why = exc.reason if isinstance(exc, WriteRefused) else exc.strerror or exc
        return f"journal {journal.name} not written: {why}"
    return None


def read_journal(journal: Path, *, intents: bool = False) -> list[dict[str, Any]]:
    """Every parseable entry of a journal (for the TUI's history and the tests).

    ``intent`` lines (written just before a rename, so a writer killed between the rename and
    its outcome line still left a trace) are skipped unless ``intents``: an intent with no
    outcome line after it is a decision whose fate the file itself must tell."""
    out = []
    try:
        text = read_regular(journal, follow_symlinks=False)[0].decode("utf-8", "replace")
    except OSError:
        return out
    for line in text.splitlines():
        with contextlib.suppress(ValueError):
            entry = json.loads(line)
            if isinstance(entry, dict) and (intents or entry.get("outcome") != "intent"):
                out.append(entry)
    return out


def revert_message(path: Path, result: DecisionResult, confirmation: Confirmation) -> str:
    """What a reverted decision means, for the toast, the CLI and the journal line."""
    version = f" (state_version {confirmation.version})" if confirmation.version is not None else ""
    return (
        f"REVERTED: {result.action} was applied, then {path.name} was written again "
        f"{confirmation.seconds:.2f} s later{version} from a copy read before it: the decision "
        "is NOT in the file. Look again and decide again."
    )


def journal_revert(
    path: str | os.PathLike[str],
    result: DecisionResult,
    confirmation: Confirmation,
    *,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
) -> str | None:
    """Append the ``reverted`` outcome of an applied decision (found by ``core.confirm.watch``)
    to the journal of its project; the error text, if any. ``result`` becomes ``reverted``."""
    path = Path(os.path.abspath(path))
    state = result.footprint is None or result.footprint.kind == "state"
    root = _project_root(path) if state else path.parent
    entry = {
        "ts": now_iso(),
        "who": who or default_who(),
        "via": via,
        "action": result.action,
        "target": result.target,
        "params": {"after_seconds": round(confirmation.seconds, 3)},
        "version_before": result.version_after,
        "version_after": confirmation.version,
        "outcome": "reverted",
        "message": revert_message(path, result, confirmation),
    }
    result.outcome, result.message = REVERTED, entry["message"]
    result.confirmation = confirmation
    return _journal(root, Path(journal) if journal else journal_path(root), entry)


def confirm(
    path: str | os.PathLike[str],
    result: DecisionResult,
    seconds: float,
    *,
    who: str | None = None,
    via: str = "api",
    stop: Callable[[], bool] = lambda: False,
) -> DecisionResult:
    """Watch an applied decision's file for ``seconds`` (:func:`core.confirm.watch`); a revert
    turns ``result`` into ``reverted`` and is journaled. Anything else is left as it was."""
    if not result.ok or result.footprint is None or seconds <= 0:
        return result
    confirmation = watch(path, result.footprint, seconds, stop=stop)
    result.confirmation = confirmation
    if confirmation.reverted:
        error = journal_revert(path, result, confirmation, who=who, via=via)
        if error:
            result.message += f" [{error}]"
    return result


# ---------------------------------------------------------------------------- summaries


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def next_version(disk: int | None) -> int:
    """``writeState``'s rule: disk + 1 when disk is a positive number, else 1."""
    return disk + 1 if disk is not None and disk > 0 else 1


def _version_of(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def state_summary(data: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a user needs to see to decide again (plain, cleaned values)."""
    if not isinstance(data, Mapping):
        return {}
    data = clean_json(plain(dict(data)))
    aw = data.get("active_workflow")
    summary: dict[str, Any] = {"state_version": data.get("state_version")}
    if isinstance(aw, dict):
        phases = aw.get("phases") if isinstance(aw.get("phases"), list) else []
        summary["workflow"] = {
            "type": aw.get("type"),
            "id": aw.get("artifact_folder") or aw.get("slug"),
            "current_phase": aw.get("current_phase"),
            "current_phase_index": aw.get("current_phase_index"),
            "total_phases": len(phases),
        }
        sr = aw.get("supervised_review")
        summary["supervised_review"] = (
            {k: sr.get(k) for k in ("phase", "status", "redo_count")}
            if isinstance(sr, dict)
            else None
        )
    else:
        summary["workflow"] = None
        summary["supervised_review"] = None
    esc = data.get("pending_escalations")
    if isinstance(esc, list):
        summary["pending_escalations"] = len(esc)
        summary["escalations"] = [
            {"type": e.get("type"), "phase": e.get("phase"), "hook": e.get("hook")}
            for e in esc[-5:]
            if isinstance(e, dict)
        ]
    else:
        summary["pending_escalations"] = 0 if esc is None else None
    return summary


def describe_summary(summary: Mapping[str, Any]) -> str:
    """One line for humans: ``v42 · build REQ-1 at 06-implementation [2/4] · gate ... · ...``."""
    if "tdd_file" in summary:
        state = "approved" if summary.get("approved") else "not approved"
        lock = "locked" if summary.get("locked") else "no lock"
        return f"{summary.get('tdd_file')}: {state} · {lock}"
    parts = [f"v{summary.get('state_version')}"]
    wf = summary.get("workflow")
    if isinstance(wf, dict):
        idx, total = wf.get("current_phase_index"), wf.get("total_phases")
        pos = f" [{idx}/{total}]" if isinstance(idx, int) else ""
        parts.append(f"{wf.get('type')} {wf.get('id') or ''} at {wf.get('current_phase')}{pos}")
    else:
        parts.append("no active workflow")
    sr = summary.get("supervised_review")
    if isinstance(sr, dict):
        parts.append(f"gate {sr.get('phase')} {sr.get('status')} (redos {sr.get('redo_count')})")
    else:
        parts.append("no review gate")
    parts.append(f"escalations {summary.get('pending_escalations')}")
    return shorten(" · ".join(str(p) for p in parts), 200)


def _identity(data: Mapping[str, Any]) -> Any:
    aw = data.get("active_workflow")
    if not isinstance(aw, dict):
        return None
    return [aw.get(k) for k in ("type", "slug", "artifact_folder", "started_at")]


def review_view(data: Mapping[str, Any]) -> Any:
    """The fields a gate decision depends on."""
    aw = data.get("active_workflow")
    sr = aw.get("supervised_review") if isinstance(aw, dict) else None
    return {"workflow": _identity(data), "supervised_review": sr}


def escalation_view(data: Mapping[str, Any]) -> Any:
    """The fields an escalation answer depends on."""
    aw = _obj(data.get("active_workflow"))
    return {
        "workflow": _identity(data),
        "current_phase": aw.get("current_phase"),
        "pending_escalations": data.get("pending_escalations"),
    }


def fingerprint(view: Any) -> str:
    text = json.dumps(clean_json(plain(view)), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()[:16]


# ---------------------------------------------------------------------------- the state writer


@dataclass(slots=True)
class Change:
    """What a mutation did: its message, and a receipt that tells whether a later version of
    the document still carries the decision (used when another writer wrote right after us)."""

    message: str
    receipt: Callable[[Mapping[str, Any]], bool] | None = None


Mutation = Callable[[dict[str, Any]], "str | Change"]


def _parse_state_bytes(raw: bytes) -> dict[str, Any]:
    if raw.startswith(b"\xef\xbb\xbf"):
        raise DocumentError("the file starts with a byte-order mark (JSON.parse rejects it)", 0)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"not UTF-8 at byte {exc.start}", exc.start) from None
    doc = parse_document(text)
    if not isinstance(doc, dict):
        raise DocumentError(f"top level is {type(doc).__name__}, not an object", 0)
    return doc


def _valid_state_bytes(raw: bytes) -> bool:
    try:
        _parse_state_bytes(raw)
    except DocumentError:
        return False
    return True


def _read_state(path: Path, attempts: int = 6) -> tuple[bytes, os.stat_result, dict[str, Any]]:
    """Raw bytes, their stat and the literal-keeping parse; torn reads are retried briefly."""
    last: DocumentError | None = None
    for n in range(attempts):
        try:
            raw, st = read_regular(path, follow_symlinks=False)
        except ReadRefused as exc:
            if exc.kind == "missing":
                raise _Refusal(INVALID, f"{path.name} does not exist: nothing to decide") from None
            if exc.kind in ("symlink", "not_regular", "too_large"):
                raise _Refusal(INVALID, f"{path.name}: {exc.reason}; not touched") from None
            raise _Refusal(ERROR, f"cannot read {path.name}: {exc.reason}") from None
        try:
            return raw, st, _parse_state_bytes(raw)
        except DocumentError as exc:
            last = exc
            if not exc.torn:
                break
        time.sleep(0.005 * (n + 1))
    assert last is not None
    where = "empty file" if last.torn and last.pos == 0 else f"{last} at character {last.pos}"
    raise _Refusal(
        INVALID, f"{path.name} is not valid JSON ({where}); it was not touched (never repaired)"
    )


def apply_update(
    path: str | os.PathLike[str],
    mutate: Mutation,
    *,
    action: str,
    params: Mapping[str, Any] | None = None,
    expect_version: int | None = None,
    seen: Mapping[str, Any] | None = None,
    depends: Callable[[Mapping[str, Any]], Any] | None = None,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
    settle: float = SETTLE_SECONDS,
) -> DecisionResult:
    """Read-check-mutate-write one JSON state file; journal the attempt.

    ``mutate(doc)`` changes the raw document in place (literal-keeping values) and returns a
    message; it raises ``_Refusal`` to refuse. ``expect_version`` (or ``seen['state_version']``)
    must equal the version on disk; ``depends(seen)`` must equal ``depends(disk)`` when both
    ``seen`` and ``depends`` are given. ``state_version`` is set to disk + 1 by this function.
    """
    path = Path(os.path.abspath(path))  # never resolved: a link at the path is refused below
    root = _project_root(path)
    journal_file = Path(journal) if journal is not None else journal_path(root)
    target = _rel(root, path)
    if expect_version is None and seen is not None:
        expect_version = _version_of(seen.get("state_version"))
    result = DecisionResult(INVALID, "", action=action, target=target)
    reformatted = False
    entry = {"who": who or default_who(), "via": via, "action": action, "target": target}

    def intent() -> None:  # the journal line before the rename (a kill -9 after it is traceable)
        line = {"ts": now_iso(), **entry, "params": plain(dict(params or {}))}
        line.update(version_before=result.version_before, version_after=doc["state_version"])
        # not fsynced: it must survive a kill -9 (the page cache does), and it sits between the
        # read and the rename, where every millisecond is a chance for the owner to write
        _journal(root, journal_file, {**line, "outcome": "intent", "message": "renaming"}, False)

    with _WRITE_LOCK, contextlib.ExitStack() as held:
        try:
            _check_writable(root, path, journal_file)
            held.enter_context(writer_lock(root))
            clean_stale_temps(path)
            raw, st, doc = _read_state(path)
            result.version_before = disk_version = _version_of(doc.get("state_version"))
            result.state_summary = state_summary(doc)
            if "state_version" in doc and disk_version is None:
                raise _Refusal(INVALID, "state_version on disk is not an integer; not touched")
            problems = []
            if expect_version is not None and disk_version != expect_version:
                problems.append(f"state_version is {disk_version}, you saw {expect_version}")
            if (
                seen is not None
                and depends is not None
                and fingerprint(depends(seen)) != fingerprint(depends(doc))
            ):
                problems.append("the fields this decision depends on changed")
            own = problems and _own_write(journal_file, entry, params, expect_version, disk_version)
            if own:
                result.version_after = disk_version
                raise _Refusal(APPLIED, own)
            if problems:
                raise _Refusal(
                    CONFLICT,
                    f"{path.name} changed since you looked ({'; '.join(problems)}). Nothing "
                    f"written. Now: {describe_summary(result.state_summary)}",
                )
            text = raw.decode("utf-8")
            style = detect_style(text)
            reformatted = dumps(doc, style) != text
            change = mutate(doc)
            if isinstance(change, str):
                change = Change(change)
            message = change.message
            doc["state_version"] = next_version(disk_version)
            new = dumps(doc, style).encode("utf-8")
            outcome = _atomic_replace(path, raw, st, new, _valid_state_bytes, settle, intent)
            if outcome.status == "changed":
                raise _Refusal(
                    CONFLICT, f"{path.name}: {outcome.detail}. Nothing written; look again."
                )
            ours = doc["state_version"]
            result.state_summary = state_summary(doc)
            if reformatted:
                message += " (the file was not in its owner's layout; re-laid out, values kept)"
            if outcome.status == "ok":
                result.outcome, result.version_after, result.message = APPLIED, ours, message
                result.footprint = state_footprint(raw, new)
            else:  # someone else wrote around our replace: does the file still carry the decision?
                current = _reread(outcome.current)
                kept = current is not None and (
                    outcome.current == new
                    or (change.receipt is not None and change.receipt(current))
                )
                if current is not None:
                    result.state_summary = state_summary(current)
                now_v = current.get("state_version") if current is not None else "unreadable"
                result.version_after = ours if kept else None
                if outcome.status == "overwritten" and kept:
                    result.outcome = APPLIED
                    result.message = (
                        f"{message} (another writer has written since, state_version {now_v}, "
                        "and kept the decision)"
                    )
                else:
                    result.outcome = RACE
                    result.message = f"race on {path.name}: {outcome.detail}; " + (
                        f"the decision is in the file (state_version now {now_v})"
                        if kept
                        else _race_verdict(outcome.status)
                    )
        except _Refusal as refusal:
            result.outcome, result.message = refusal.outcome, refusal.message
        except WriteRefused as exc:
            result.outcome, result.message = INVALID, exc.reason
        except Exception as exc:  # an I/O failure mid-write: say so, never half-apply silently
            result.outcome, result.message = failure(root, path, exc)
        entry_params = dict(params or {})
        if result.outcome == APPLIED and result.message.startswith("already applied"):
            entry_params["already_applied"] = True
        if reformatted and result.outcome == APPLIED:
            entry_params["reformatted"] = True
        result.journal_error = _journal(
            root,
            journal_file,
            {
                "ts": now_iso(),
                **entry,
                "params": plain(entry_params),
                "version_before": result.version_before,
                "version_after": result.version_after,
                "outcome": result.outcome,
                "message": result.message,
            },
        )
    if result.journal_error:
        result.message += f" [{result.journal_error}]"
    return result


def _own_write(
    journal: Path,
    entry: Mapping[str, Any],
    params: Mapping[str, Any] | None,
    expect_version: int | None,
    disk_version: int | None,
) -> str | None:
    """A second press of the same decision, after our own write of it, is not a conflict: when
    the journal's newest outcome for this file is our ``applied`` of the same action and
    parameters, from the version the caller saw to the version on disk now, say so."""
    if expect_version is None or disk_version != next_version(expect_version):
        return None  # our own write moved the version by exactly one step; the journal is not read
    newest = next(
        (
            e
            for e in reversed(read_journal(journal))
            if e.get("target") == entry["target"]
            and e.get("outcome") == APPLIED
            and not (e.get("params") or {}).get("already_applied")
        ),
        None,
    )
    if newest is None:
        return None
    logged = {k: v for k, v in (newest.get("params") or {}).items() if k != "reformatted"}
    if (newest.get("action"), logged) != (entry["action"], plain(dict(params or {}))):
        return None
    if (newest.get("version_before"), newest.get("version_after")) != (expect_version, disk_version):
        return None
    return (
        f"already applied: this {entry['action']} is in the file (your earlier write, "
        f"state_version {disk_version}); nothing written again"
    )


def _project_root(path: Path) -> Path:
    """The nearest ancestor of ``path`` (as given, no link resolved) holding a ``.isdlc`` entry;
    else its directory. Unlike ``find_root`` nothing is resolved first, so a ``.isdlc`` that
    links outside the project cannot move the root there (and is then refused as outside)."""
    for candidate in path.parents:
        if os.path.lexists(candidate / ".isdlc"):
            return candidate
    return path.parent


def _check_writable(root: Path, path: Path, journal: Path) -> None:
    """Refuse a target (or journal) that is a link, not a regular file, or outside the root."""
    check_target(root, path, may_be_missing=True)
    if not inside(root, journal):
        raise WriteRefused(f"{journal.name}: resolves outside the project; nothing written")


def failure(root: Path, path: Path, exc: Exception) -> tuple[Outcome, str]:
    """An exception while deciding, as an outcome: permission problems are the user's to fix
    (``refused-invalid``, exit 2, with what to do), anything else an I/O ``error``."""
    if isinstance(exc, PermissionError):
        where = Path(exc.filename) if isinstance(exc.filename, str) else path
        shown = clean(_rel(root, where))
        return INVALID, (
            f"{shown}: permission denied; nothing written. This user must be able to read and "
            f"write it and search its directory (chmod u+rwx {clean(_rel(root, where.parent))})"
        )
    return ERROR, f"{clean(path.name)}: {type(exc).__name__}: {exc}"


def _race_verdict(status: str) -> str:
    """What a reader of a race result must do. ``overwritten``: the file was read after the
    other write and does not carry the decision. ``withdrawn``/``lost``: an owner write landed
    on the replaced inode; what the file holds now depends on what the owner does next."""
    if status == "overwritten":
        return "the decision is NOT in the file: look again and decide again"
    return "uncertain, look again before deciding again"


def _reread(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        return _parse_state_bytes(data)
    except DocumentError:
        return None


def _rel(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            return str(path)


def _invalid(message: str) -> _Refusal:
    return _Refusal(INVALID, message)


def _label(value: Any) -> str:
    return shorten(clean(str(value)), 60)


# ---------------------------------------------------------------------------- review gate


def _gate(doc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    aw = doc.get("active_workflow")
    if not isinstance(aw, dict):
        raise _invalid("no active workflow: there is no review gate to decide")
    sr = aw.get("supervised_review")
    if not isinstance(sr, dict):
        raise _invalid("no review gate is presented (active_workflow.supervised_review is absent)")
    phase = sr.get("phase")
    if not isinstance(phase, str) or not phase:
        raise _invalid("the review gate names no phase; not touched")
    return aw, sr, phase


def _history(aw: dict[str, Any], key: str) -> list[Any]:
    hist = aw.get(key)
    if hist is None:
        hist = aw[key] = []
    if not isinstance(hist, list):
        raise _invalid(f"active_workflow.{key} is not a list; not touched")
    return hist


def _aw_list(doc: Mapping[str, Any], key: str) -> list[Any]:
    value = _obj(doc.get("active_workflow")).get(key)
    return value if isinstance(value, list) else []


def _sr(doc: Mapping[str, Any]) -> dict[str, Any]:
    return _obj(_obj(doc.get("active_workflow")).get("supervised_review"))


def _appended(key: str, index: int, entry: dict[str, Any]) -> Callable[[Mapping[str, Any]], bool]:
    """Receipt: ``active_workflow.<key>[index]`` is still our entry (the list only grows)."""
    return lambda d: _aw_list(d, key)[index : index + 1] == [entry]


def _review_mutation(action: str, guidance: str | None) -> Mutation:
    def mutate(doc: dict[str, Any]) -> Change:
        aw, sr, phase = _gate(doc)
        status = sr.get("status")
        now = now_iso()
        label = _label(phase)
        if action == "continue":
            if status != "gate_presented":
                hint = " (use resume to end a review)" if status == "reviewing" else ""
                raise _invalid(f"continue needs a presented gate; {label} is {status!r}{hint}")
            history = _history(aw, "review_history")
            entry = {"phase": phase, "action": "continue", "timestamp": now}
            history.append(entry)
            del aw["supervised_review"]
            return Change(
                f"continue: {label} accepted; the workflow proceeds",
                _appended("review_history", len(history) - 1, entry),
            )
        if action == "review":
            if status != "gate_presented":
                raise _invalid(f"review needs a presented gate; {label} is {status!r}")
            sr["status"] = "reviewing"
            sr["paused_at"] = now
            return Change(
                f"review: {label} paused for review (the gate stays blocked)",
                lambda d: (
                    _sr(d).get("paused_at") == now
                    or any(_obj(e).get("paused_at") == now for e in _aw_list(d, "review_history"))
                ),
            )
        if action == "resume":
            if status != "reviewing":
                raise _invalid(f"resume needs a gate under review; {label} is {status!r}")
            history = _history(aw, "review_history")
            entry = {  # recordReviewAction's key order: phase, action, timestamp, then details
                "phase": phase,
                "action": "review",
                "timestamp": now,
                "paused_at": sr.get("paused_at"),
                "resumed_at": now,
            }
            history.append(entry)
            del aw["supervised_review"]
            return Change(
                f"resume: review of {label} recorded; the workflow proceeds",
                _appended("review_history", len(history) - 1, entry),
            )
        if action == "redo":
            if status not in ("gate_presented", "reviewing"):
                raise _invalid(f"redo needs a presented gate; {label} is {status!r}")
            text = (guidance or "").strip()
            if not text:
                raise _invalid("redo needs guidance text (what should change)")
            count = sr.get("redo_count", 0)
            if count is None:
                count = 0
            if not isinstance(count, int) or isinstance(count, bool):
                raise _invalid("supervised_review.redo_count is not an integer; not touched")
            if count >= MAX_REDOS:
                raise _invalid(f"redo limit reached for {label} ({count}/{MAX_REDOS})")
            guidance_list = sr.get("redo_guidance_history")
            if guidance_list is None:
                guidance_list = sr["redo_guidance_history"] = []
            if not isinstance(guidance_list, list):
                raise _invalid("supervised_review.redo_guidance_history is not a list")
            sr["redo_count"] = count + 1
            guidance_list.append(text)
            sr["status"] = "redo_pending"
            touched = []
            record = _obj(doc.get("phases")).get(phase)
            if isinstance(record, dict):
                record["status"] = "in_progress"
                touched.append(f"phases.{label}.status")
            summary = aw.get("phase_status")
            if isinstance(summary, dict):
                summary[phase] = "in_progress"
                touched.append(f"phase_status.{label}")
            if not touched:
                raise _invalid(f"{label} has neither a phases record nor a phase_status entry")

            def receipt(d: Mapping[str, Any]) -> bool:
                kept = _sr(d).get("redo_guidance_history")
                if isinstance(kept, list) and kept[count : count + 1] == [text]:
                    return True
                return any(  # the phase re-ran and the controller recorded the redo
                    _obj(e).get("action") == "redo" and _obj(e).get("guidance") == text
                    for e in _aw_list(d, "review_history")
                )

            return Change(
                f"redo {count + 1}/{MAX_REDOS}: {label} goes back to in_progress "
                f"({', '.join(touched)}; index unchanged)",
                receipt,
            )
        raise _invalid(f"unknown review action {action!r}")

    return mutate


def decide_review(
    path: str | os.PathLike[str],
    action: str,
    *,
    guidance: str | None = None,
    expect_version: int | None = None,
    seen: Mapping[str, Any] | None = None,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
) -> DecisionResult:
    """Answer the supervised review gate: ``continue`` | ``review`` | ``resume`` | ``redo``."""
    params: dict[str, Any] = {}
    if guidance is not None:
        params["guidance"] = guidance
    if action not in REVIEW_ACTIONS:
        return _refuse_early(
            path, f"review {action}", f"unknown review action {action!r}", who, via, journal
        )
    return apply_update(
        path,
        _review_mutation(action, guidance),
        action=f"review {action}",
        params=params,
        expect_version=expect_version,
        seen=seen,
        depends=review_view,
        who=who,
        via=via,
        journal=journal,
    )


# ---------------------------------------------------------------------------- escalations


def escalation_phase(doc: Mapping[str, Any]) -> str | None:
    """The phase an answer applies to: the newest escalation's, else the workflow's current."""
    esc = doc.get("pending_escalations")
    if isinstance(esc, list):
        for entry in reversed(esc):
            phase = entry.get("phase") if isinstance(entry, dict) else None
            if isinstance(phase, str) and phase:
                return phase
    aw = _obj(doc.get("active_workflow"))
    phase = aw.get("current_phase")
    return phase if isinstance(phase, str) and phase else None


def _workflow_id(aw: Mapping[str, Any]) -> str | None:
    """``artifact_prefix + "-" + zeroPad(counter_used, 4)``, null when either is missing."""
    prefix, counter = aw.get("artifact_prefix"), _version_of(aw.get("counter_used"))
    if not isinstance(prefix, str) or not prefix or counter is None:
        return None
    return f"{prefix}-{counter:04d}"


def _cancelled_entry(
    doc: Mapping[str, Any], aw: Mapping[str, Any], now: str, reason: str
) -> dict[str, Any]:
    """The orchestrator's cancellation entry (00-sdlc-orchestrator.md, "Cancellation Process"),
    its keys in that order; the workflow's other fields follow, so nothing the audit or a
    person reads (``artifact_folder``, ``review_history``) is lost. ``git_branch`` is copied as
    it is: abandoning the branch is a git operation phasewatch does not perform."""
    # what the orchestrator does: set cancelled_at, then collectPhaseSnapshots(state)
    snapshots, metrics = archived(plain({**doc, "active_workflow": aw}), cancelled_at=now)
    entry = {
        "type": aw.get("type"),
        "id": _workflow_id(aw),
        "description": aw.get("description"),
        "started_at": aw.get("started_at"),
        "cancelled_at": now,
        "cancelled_at_phase": aw.get("current_phase"),
        "cancellation_reason": reason,
        "status": "cancelled",
        "merged_commit": None,
        "phases": copy.deepcopy(aw.get("phases")),
        "phase_snapshots": snapshots,
        "metrics": metrics,
    }
    if "git_branch" in aw:
        entry["git_branch"] = aw["git_branch"]
    entry.update((k, v) for k, v in aw.items() if k not in entry)
    return entry


#: What ``workflow-retry.cjs`` deletes from the phase record (and from its
#: ``iteration_requirements``) so the phase re-runs from a clean iteration state.
RETRY_CLEARS = ("test_iteration", "constitutional_validation", "interactive_elicitation")


def _reset_for_retry(record: dict[str, Any]) -> list[str]:
    """Delete the iteration state the way ``workflow-retry.cjs`` does; the names cleared."""
    cleared = []
    reqs = record.get("iteration_requirements")
    for key in RETRY_CLEARS:
        hit = False
        nested = key != "constitutional_validation" and isinstance(reqs, dict)
        if nested and js_truthy(reqs.get(key)):
            del reqs[key]
            hit = True
        if js_truthy(record.get(key)):
            del record[key]
            hit = True
        if hit:
            cleared.append(key)
    return cleared


def _escalation_mutation(action: str, reason: str | None) -> Mutation:
    def mutate(doc: dict[str, Any]) -> Change:
        esc = doc.get("pending_escalations")
        if not isinstance(esc, list) or not esc:
            raise _invalid("no pending escalations: nothing to decide")
        count = len(esc)
        cleared = copy.deepcopy(esc)

        def gone(d: Mapping[str, Any]) -> bool:
            now_pending = d.get("pending_escalations")
            return not isinstance(now_pending, list) or all(e not in now_pending for e in cleared)

        phase = escalation_phase(doc)
        label = _label(phase)
        aw = doc.get("active_workflow")
        now = now_iso()
        if action == "retry":
            if not isinstance(aw, dict):
                raise _invalid("no active workflow: nothing to retry (skip clears the escalations)")
            if phase is None:
                raise _invalid(
                    "no phase to retry (neither the escalation nor the workflow names one)"
                )
            record = _obj(doc.get("phases")).get(phase)
            note = ""
            if isinstance(record, dict):
                retries = record.get("retry_count", 0)
                if retries is None:
                    retries = 0
                if not isinstance(retries, int) or isinstance(retries, bool):
                    raise _invalid(f"phases.{label}.retry_count is not an integer; not touched")
                cleared = _reset_for_retry(record)
                record["retry_count"] = retries + 1
                note = f", retry_count {retries + 1}" + (
                    f", cleared {', '.join(cleared)}" if cleared else ""
                )
            else:
                note = f" (no phases.{label} record: retry_count not set)"
            recovery = {"type": "retry", "phase": phase, "timestamp": now}
            aw["recovery_action"] = recovery
            doc["pending_escalations"] = []
            return Change(
                f"retry: {label} will re-run ({count} escalation(s) cleared{note})",
                lambda d: (
                    _obj(d.get("active_workflow")).get("recovery_action") == recovery and gone(d)
                ),
            )
        if action == "skip":
            doc["pending_escalations"] = []
            return Change(
                f"skip: {count} escalation(s) overridden and cleared; {label} continues", gone
            )
        if action == "cancel":
            text = (reason or "").strip()
            if not text:
                raise _invalid("cancel needs a reason (--reason TEXT)")
            if not isinstance(aw, dict):
                raise _invalid("no active workflow to cancel")
            history = doc.get("workflow_history")
            if history is None:
                history = doc["workflow_history"] = []
            if not isinstance(history, list):
                raise _invalid("workflow_history is not a list; not touched")
            history.append(_cancelled_entry(doc, aw, now, text))
            if len(history) > MAX_WORKFLOW_HISTORY:
                del history[: len(history) - MAX_WORKFLOW_HISTORY]
            doc["active_workflow"] = None
            doc["pending_escalations"] = []

            def archived(d: Mapping[str, Any]) -> bool:
                kept = d.get("workflow_history")
                return isinstance(kept, list) and any(
                    _obj(e).get("cancelled_at") == now
                    and _obj(e).get("cancellation_reason") == text
                    for e in kept
                )

            return Change(
                f"cancel: workflow cancelled at {label} and archived "
                f"({count} escalation(s) cleared)",
                archived,
            )
        raise _invalid(f"unknown escalation action {action!r}")

    return mutate


def decide_escalation(
    path: str | os.PathLike[str],
    action: str,
    *,
    reason: str | None = None,
    expect_version: int | None = None,
    seen: Mapping[str, Any] | None = None,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
) -> DecisionResult:
    """Answer the pending escalations: ``retry`` | ``skip`` | ``cancel`` (with a reason)."""
    params: dict[str, Any] = {}
    if reason is not None:
        params["reason"] = reason
    if action not in ESCALATION_ACTIONS:
        return _refuse_early(
            path, f"escalation {action}", f"unknown escalation action {action!r}", who, via, journal
        )
    return apply_update(
        path,
        _escalation_mutation(action, reason),
        action=f"escalation {action}",
        params=params,
        expect_version=expect_version,
        seen=seen,
        depends=escalation_view,
        who=who,
        via=via,
        journal=journal,
    )


def _refuse_early(
    path: str | os.PathLike[str],
    action: str,
    message: str,
    who: str | None,
    via: str,
    journal: str | os.PathLike[str] | None,
) -> DecisionResult:
    p = Path(os.path.abspath(path))
    root = _project_root(p)
    result = DecisionResult(INVALID, message, action=action, target=_rel(root, p))
    result.journal_error = _journal(
        root,
        Path(journal) if journal is not None else journal_path(root),
        {
            "ts": now_iso(),
            "who": who or default_who(),
            "via": via,
            "action": action,
            "target": result.target,
            "params": {},
            "version_before": None,
            "version_after": None,
            "outcome": INVALID,
            "message": message,
        },
    )
    return result


# ---------------------------------------------------------------------------- TDD plan approval

_LAST_UPDATED = re.compile(r"^\s*(?:\*\*|__)?last[ _-]?updated(?:\*\*|__)?\s*:", re.I)
_BOLD_KEY = re.compile(r"^\s*(?:\*\*|__)[^*_\n]+?:?(?:\*\*|__)\s*:?")
_TITLE = re.compile(r"^#\s")
_SECTION = re.compile(r"^#{2,}\s")


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end) of every line, the end including its ``\\n``."""
    spans, start = [], 0
    while start < len(data):
        nl = data.find(b"\n", start)
        end = len(data) if nl < 0 else nl + 1
        spans.append((start, end))
        start = end
    return spans


def _line_text(data: bytes, span: tuple[int, int]) -> str:
    return data[span[0] : span[1]].decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r\n")


def approved_text(data: bytes) -> str | None:
    """The accepted ``Approved:`` line (cleaned, for display), if the stop hook sees one."""
    index = approval_line(data)
    if index is None:
        return None
    return clean(_line_text(data, _line_spans(data)[index]).strip())


def approval_insertion(data: bytes, timestamp: str) -> tuple[int, bytes, str]:
    """Where the ``**Approved:**`` line goes and its bytes: right after ``**Last Updated:**``;
    without one, after the last bold ``**Key:**`` line of the header (before the first ``##``
    heading); without those, after the ``# `` title; else at the very top. The line ending is
    the anchor line's own (``\\n`` or ``\\r\\n``)."""
    spans = _line_spans(data)
    header = []
    for span in spans:
        if _SECTION.match(_line_text(data, span)):
            break
        header.append(span)
    anchor = next((s for s in header if _LAST_UPDATED.match(_line_text(data, s))), None)
    where = "after Last Updated"
    if anchor is None:
        bold = [s for s in header if _BOLD_KEY.match(_line_text(data, s))]
        anchor = bold[-1] if bold else None
        where = "after the header"
    if anchor is None:
        anchor = next((s for s in header if _TITLE.match(_line_text(data, s))), None)
        where = "after the title"
    first = data[: spans[0][1]] if spans else b""
    default_eol = b"\r\n" if first.endswith(b"\r\n") else b"\n"
    marker = f"**Approved:** {timestamp}".encode()
    if anchor is None:
        return 0, marker + default_eol, "at the top"
    line = data[anchor[0] : anchor[1]]
    if line.endswith(b"\n"):
        eol = b"\r\n" if line.endswith(b"\r\n") else b"\n"
        return anchor[1], marker + eol, where
    return anchor[1], default_eol + marker, where  # the anchor was the last line, unterminated


def tdd_summary(progress: Path, data: bytes | None, lock: Path) -> dict[str, Any]:
    line = approved_text(data) if data is not None else None
    return {
        "tdd_file": progress.name,
        "exists": data is not None,
        "approved": line is not None,
        "approved_line": line,
        "locked": lock.exists() or lock.is_symlink(),
        "sha256": hashlib.sha256(data).hexdigest() if data is not None else None,
    }


def decide_approval(
    progress: str | os.PathLike[str],
    *,
    discard: bool = False,
    expect_sha256: str | None = None,
    who: str | None = None,
    via: str = "api",
    journal: str | os.PathLike[str] | None = None,
) -> DecisionResult:
    """``approve``: insert ``**Approved:** <now>`` into ``.tdd-progress.md`` (every other byte
    kept), then remove ``.tdd-plan-locked`` if present. ``discard``: only remove the lock."""
    progress = Path(os.path.abspath(progress))  # never resolved: a link there is refused
    root = progress.parent
    lock = root / ".tdd-plan-locked"
    journal_file = Path(journal) if journal is not None else journal_path(root)
    action = "approve --discard" if discard else "approve"
    result = DecisionResult(INVALID, "", action=action, target=_rel(root, progress))
    params: dict[str, Any] = {}
    if expect_sha256:
        params["expect_sha256"] = expect_sha256
    with _WRITE_LOCK:
        try:
            with writer_lock(root):
                if discard:
                    result.outcome, result.message = _discard_lock(lock)
                else:
                    _check_writable(root, progress, journal_file)
                    result.outcome, result.message, written = _approve(
                        progress, lock, expect_sha256
                    )
                    if written is not None:
                        result.footprint = approval_footprint(written)
        except WriteRefused as exc:
            result.outcome, result.message = INVALID, exc.reason
        except Exception as exc:
            result.outcome, result.message = failure(root, progress, exc)
        result.state_summary = tdd_summary(progress, _read_bytes_or_none(progress), lock)
        result.journal_error = _journal(
            root,
            journal_file,
            {
                "ts": now_iso(),
                "who": who or default_who(),
                "via": via,
                "action": action,
                "target": result.target,
                "params": params,
                "version_before": None,
                "version_after": None,
                "outcome": result.outcome,
                "message": result.message,
            },
        )
    if result.journal_error:
        result.message += f" [{result.journal_error}]"
    return result


def _discard_lock(lock: Path) -> tuple[Outcome, str]:
    if not (lock.exists() or lock.is_symlink()):
        return INVALID, f"no {lock.name}: nothing to discard"
    if lock.is_dir() and not lock.is_symlink():
        return INVALID, f"{lock.name} is a directory; not removed"
    os.unlink(lock)
    _fsync_dir(lock.parent)
    return APPLIED, f"{lock.name} removed (the plan is still not approved)"


def _approve(
    progress: Path, lock: Path, expect_sha256: str | None
) -> tuple[Outcome, str, bytes | None]:
    """Insert the marker; the outcome, its message and the bytes written when they are the
    file's content now (so a later revert can be watched for)."""
    clean_stale_temps(progress)
    try:
        data, st = read_regular(progress, follow_symlinks=False)
    except ReadRefused as exc:
        if exc.kind == "missing":
            return INVALID, f"no {progress.name}: nothing to approve", None
        return INVALID, f"{progress.name}: {exc.reason}; nothing written", None
    digest = hashlib.sha256(data).hexdigest()
    if expect_sha256 and digest != expect_sha256.lower():
        return CONFLICT, (
            f"{progress.name} changed since you looked (its sha256 is now {digest}); nothing "
            "written. Look again."
        ), None
    existing = approved_text(data)
    if existing is not None:
        return INVALID, f"already approved ({shorten(existing, 80)}); nothing written", None
    if not data.strip():
        return INVALID, f"{progress.name} is empty: nothing to approve", None
    stamp = now_iso()
    offset, line, where = approval_insertion(data, stamp)
    new = data[:offset] + line + data[offset:]
    outcome = _atomic_replace(progress, data, st, new, lambda b: bool(b.strip()))
    if outcome.status == "changed":
        return CONFLICT, f"{progress.name}: {outcome.detail}. Nothing written; look again.", None
    message = f"approved at {stamp} (marker inserted {where})"
    written: bytes | None = new
    if outcome.status != "ok":
        kept = (approved_text(outcome.current or b"") or "").endswith(stamp)
        if outcome.status != "overwritten" or not kept:
            state = "the marker is in the file" if kept else "the marker is NOT in the file"
            return (
                RACE,
                f"race on {progress.name}: {outcome.detail}; {state}; lock left in place",
                None,
            )
        message += " (the file was written again since, with the marker kept)"
        written = None
    if lock.exists() or lock.is_symlink():
        try:
            os.unlink(lock)
            _fsync_dir(lock.parent)
            message += f"; {lock.name} removed"
        except OSError as exc:
            message += f"; {lock.name} could NOT be removed ({exc.strerror or exc})"
    return APPLIED, message, written
