"""The decision journal (one JSON line per attempt) and the confirm window's ``reverted`` line.

A line is appended whole or not at all (:func:`~core.files.write.append_whole`). The journal
rotates once it holds :data:`ROTATE_BYTES` (to ``<name>.1``, replacing the generation before),
before anyone appends to it, and :func:`read_journal` reads that generation and the current one,
so what is read stays far under the read cap (of a journal from before rotation, its newest
:data:`READ_BYTES`); a journal that exists and cannot be read raises
:class:`JournalUnreadable`, never reads as empty.
"""

from __future__ import annotations

import getpass
import json
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from .. import protocol
from ..confirm import Confirmation, watch
from ..files.lock import LockBusy, writer_lock
from ..files.read import MAX_BYTES, ReadRefused, read_tail
from ..files.write import Dir, WriteRefused, append_line, append_whole, open_dir
from ..text import clean
from .files import _project_root
from .outcomes import JOURNAL_NAME, REVERTED, DecisionResult

#: the journal rotates at this size (two generations are read: far under the read cap)
ROTATE_BYTES = 4 * 1024 * 1024
#: what is read of each generation, from its end (a journal rotates far below it)
READ_BYTES = MAX_BYTES // 2
#: how long a rotation waits for another phasewatch writer (it rotates later otherwise)
ROTATE_WAIT = 2.0


class JournalUnreadable(OSError):
    """The journal exists and cannot be read: what it holds is unknown (never "empty")."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(
            f"the journal {clean(path.name)} cannot be read ({clean(why)}), so what phasewatch "
            "wrote before is unknown"
        )
        self.reason = str(self.args[0])


def journal_path(root: Path) -> Path:
    """``<root>/.isdlc/<JOURNAL_NAME>`` when there is a ``.isdlc`` entry (a link there is then
    refused, not followed), else ``<root>/.<JOURNAL_NAME>``."""
    isdlc = root / ".isdlc"
    return isdlc / JOURNAL_NAME if os.path.lexists(isdlc) else root / f".{JOURNAL_NAME}"


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


def _line(entry: dict[str, Any]) -> bytes:
    return (json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
        "utf-8", "backslashreplace"
    )


def _why(exc: OSError) -> str:
    return exc.reason if isinstance(exc, WriteRefused) else str(exc.strerror or exc)


def _rotate(root: Path, directory: Dir, name: str) -> None:
    """``name`` becomes ``name.1`` once it holds :data:`ROTATE_BYTES` (under the writer lock,
    so two processes never rotate twice; when the lock is busy, a later append rotates)."""
    try:
        if directory.lstat(name).st_size < ROTATE_BYTES:
            return
        with writer_lock(root, timeout=ROTATE_WAIT):
            if directory.lstat(name).st_size >= ROTATE_BYTES:  # (nobody rotated meanwhile)
                directory.replace(name, f"{name}.1")
                directory.fsync()
    except (FileNotFoundError, LockBusy):
        pass


def _journal(root: Path, journal: Path, entry: dict[str, Any], sync: bool = True) -> str | None:
    """Append one line (a single write on an O_APPEND descriptor of a regular file inside the
    project, never through a link); the error text, if any."""
    try:
        with open_dir(root, journal.parent) as directory:
            _rotate(root, directory, journal.name)
        append_line(root, journal, _line(entry), sync=sync)
    except OSError as exc:
        return f"journal {clean(journal.name)} not written: {_why(exc)}"
    return None


class Journal:
    """A decision's journal, opened (:func:`open_journal`) before anything is decided: a
    decision whose journal cannot be written is not made. A context manager."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def append(self, entry: dict[str, Any], sync: bool = True) -> None:
        """One line, one ``write`` (raises :class:`WriteRefused` when it is not written)."""
        try:
            append_whole(self.fd, _line(entry), sync=sync)
        except OSError as exc:
            raise WriteRefused(self.refusal(_why(exc))) from None

    def outcome(self, entry: dict[str, Any]) -> str | None:
        """The outcome line; the error text, if any (the decision is made by then)."""
        try:
            self.append(entry)
        except WriteRefused as exc:
            return exc.reason
        return None

    def refusal(self, why: str) -> str:
        return f"journal {clean(self.path.name)} not written ({why}): the decision is not made"


def open_journal(root: Path, journal: Path) -> Journal:
    """The journal, opened for appending inside the project (its directory opened without
    following a link, the file ``O_NOFOLLOW``, regular), or :class:`WriteRefused` saying that
    the decision is not made."""
    try:
        with open_dir(root, journal.parent) as directory:
            _rotate(root, directory, journal.name)
            fd = directory.open(journal.name, os.O_RDWR | os.O_APPEND | os.O_CREAT)
    except OSError as exc:
        raise WriteRefused(
            f"journal {clean(journal.name)} cannot be written ({_why(exc)}): the decision is "
            "not made, nothing written"
        ) from None
    return Journal(journal, fd)


def read_journal(journal: Path, *, intents: bool = False) -> list[dict[str, Any]]:
    """Every parseable entry of a journal, the rotated generation (``<name>.1``) first;
    :class:`JournalUnreadable` when one exists and cannot be read (a missing one is empty).

    ``intent`` lines (written just before a rename, so a writer killed between the rename and
    its outcome line still left a trace) are skipped unless ``intents``: an intent with no
    outcome line after it is a decision whose fate the file itself must tell."""
    out: list[dict[str, Any]] = []
    for path in (journal.with_name(f"{journal.name}.1"), journal):
        try:  # (a journal from before rotation may be larger: its newest lines are read)
            raw = read_tail(path, READ_BYTES)
        except ReadRefused as exc:
            if exc.kind == "missing":
                continue
            raise JournalUnreadable(journal, exc.reason) from None
        except OSError as exc:
            raise JournalUnreadable(journal, str(exc.strerror or exc)) from None
        for line in raw.split(b"\n"):  # (never str.splitlines: U+2028, U+0085 are in lines)
            entry = _entry(line)
            if isinstance(entry, dict) and (intents or entry.get("outcome") != "intent"):
                out.append(entry)
    return out


def _entry(line: bytes) -> Any:
    """One journal line parsed (None: not JSON). msgspec first (the faster on a journal of
    thousands of lines: docs/performance.md#decisions), json for what it refuses (invalid UTF-8
    read as U+FFFD)."""
    if not line.strip():
        return None
    try:
        return msgspec.json.decode(line)
    except (msgspec.DecodeError, ValueError, RecursionError):
        pass
    try:
        return json.loads(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


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
    entry: dict[str, Any] = {
        "ts": protocol.now_iso(),
        "who": who or default_who(),
        "via": via,
        "action": result.action,
        "target": result.target,
        "pid": os.getpid(),
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
