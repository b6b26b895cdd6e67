"""TDD plan approval: the ``**Approved:**`` marker inserted into ``.tdd-progress.md``."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import protocol
from ..files.lock import writer_lock
from ..files.read import ReadRefused, read_regular
from ..files.write import Dir, WriteRefused, open_dir
from ..tdd.approval import approval_line
from ..text import clean, shorten
from . import files
from .claims import Claim, Footprint, approval_footprint, holds_bytes
from .files import (
    _WRITE_LOCK,
    _atomic_replace,
    _read_bytes_or_none,
    _rel,
    check_may_write,
    clean_stale_temps,
    failure,
    open_target,
)
from .journal import Journal, _journal, default_who, journal_path, open_journal
from .outcomes import APPLIED, CONFLICT, INVALID, RACE, DecisionResult, Outcome

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
    entry = {"who": who or default_who(), "via": via, "action": action, "target": result.target,
             "params": params, "version_before": None, "version_after": None}  # fmt: skip
    opened: Journal | None = None
    with _WRITE_LOCK, contextlib.ExitStack() as held:
        try:  # the directory once, then the journal: a decision it cannot record is not made
            directory = held.enter_context(open_target(root, progress))
            opened = held.enter_context(open_journal(root, journal_file))
            held.enter_context(writer_lock(root))

            def intent(claim: Claim | None = None) -> None:
                assert opened is not None
                line = {"ts": protocol.now_iso(), **entry, "outcome": "intent"}
                line["message"] = "writing"
                if claim is not None:
                    line["claim"] = claim
                opened.append(line, sync=False)

            if discard:
                result.outcome, result.message = _discard_lock(directory, lock, intent)
            else:
                result.outcome, result.message, result.footprint = _approve(
                    directory, progress, lock, expect_sha256, intent
                )
        except WriteRefused as exc:
            result.outcome, result.message = INVALID, exc.reason
        except Exception as exc:
            result.outcome, result.message = failure(root, progress, exc)
        result.state_summary = tdd_summary(progress, _read_or_none(root, progress), lock)
        line = {"ts": protocol.now_iso(), **entry, "outcome": result.outcome,
                "message": result.message}  # fmt: skip
        if result.footprint is not None:  # what the file must hold for it to be "applied" later
            line["claim"] = result.footprint.claim
        if opened is not None:
            result.journal_error = opened.outcome(line)
        elif "journal" not in result.message:  # (a journal that cannot be opened said so)
            result.journal_error = _journal(root, journal_file, line)
    if result.journal_error:
        result.message += f" [{result.journal_error}]"
    return result


def _read_or_none(root: Path, progress: Path) -> bytes | None:
    """The plan's bytes for the summary (read from the project's directory, no link followed)."""
    try:
        with open_dir(root, progress.parent) as directory:
            return _read_bytes_or_none(directory, progress.name)
    except OSError:
        return None


def _lstat_or_none(directory: Dir, name: str) -> os.stat_result | None:
    try:
        return directory.lstat(name)
    except OSError:
        return None


def _discard_lock(directory: Dir, lock: Path, intent: Callable[[], None]) -> tuple[Outcome, str]:
    st = _lstat_or_none(directory, lock.name)
    if st is None:
        return INVALID, f"no {lock.name}: nothing to discard"
    if stat.S_ISDIR(st.st_mode):
        return INVALID, f"{lock.name} is a directory; not removed"
    intent()
    directory.unlink(lock.name)
    files._fsync_dir(directory)
    return APPLIED, f"{lock.name} removed (the plan is still not approved)"


def _approve(
    directory: Dir,
    progress: Path,
    lock: Path,
    expect_sha256: str | None,
    intent: Callable[[Claim | None], None],
) -> tuple[Outcome, str, Footprint | None]:
    """Insert the marker; the outcome, its message and, when the file holds the marker now,
    the footprint a later revert is watched with."""
    clean_stale_temps(directory, progress.name)
    try:
        data, st = read_regular(Path(progress.name), follow_symlinks=False, dir_fd=directory.fd)
    except ReadRefused as exc:
        if exc.kind == "missing":
            return INVALID, f"no {progress.name}: nothing to approve", None
        return INVALID, f"{progress.name}: {exc.reason}; nothing written", None
    digest = hashlib.sha256(data).hexdigest()
    if expect_sha256 and digest != expect_sha256.lower():
        return (
            CONFLICT,
            (
                f"{progress.name} changed since you looked (its sha256 is now {digest}); nothing "
                "written. Look again."
            ),
            None,
        )
    existing = approved_text(data)
    if existing is not None:
        return INVALID, f"already approved ({shorten(existing, 80)}); nothing written", None
    if not data.strip():
        return INVALID, f"{progress.name} is empty: nothing to approve", None
    check_may_write(directory, progress.name, st)
    stamp = protocol.now_iso()
    offset, line, where = approval_insertion(data, stamp)
    new = data[:offset] + line + data[offset:]
    footprint = approval_footprint(new)
    assert footprint is not None  # the marker was inserted where the hook's test finds it
    claim = footprint.claim
    outcome = _atomic_replace(
        directory, progress.name, data, st, new, lambda b: bool(b.strip()),
        intent=lambda: intent(claim),
    )  # fmt: skip
    if outcome.status == "changed":
        return CONFLICT, f"{progress.name}: {outcome.detail}. Nothing written; look again.", None
    message = f"approved at {stamp} (marker inserted {where})"
    if outcome.status != "ok":
        holds = holds_bytes(footprint.claim, outcome.current or b"")
        kept = holds is True
        if outcome.status != "overwritten" or not kept:
            state = (
                "the marker is in the file"
                if kept
                else "the marker is NOT in the file"
                if holds is False
                else "the file could not be read whole, so whether the marker is in it is "
                "uncertain: look again"
            )
            return (
                RACE,
                f"race on {progress.name}: {outcome.detail}; {state}; lock left in place",
                None,
            )
        message += " (the file was written again since, with the marker kept)"
        footprint = Footprint("approval", outcome.current or b"", footprint.claim)
    if _lstat_or_none(directory, lock.name) is not None:
        try:
            directory.unlink(lock.name)
            files._fsync_dir(directory)
            message += f"; {lock.name} removed"
        except OSError as exc:
            message += f"; {lock.name} could NOT be removed ({exc.strerror or exc})"
    return APPLIED, message, footprint
