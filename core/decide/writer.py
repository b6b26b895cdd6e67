"""The one state writer: read, compare-and-swap, mutate, replace, look again, journal."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict

from msgspec import Struct, field

from .. import protocol
from ..files.lock import writer_lock
from ..files.read import ReadRefused, read_regular
from ..files.write import Dir, WriteRefused
from ..text import clean, shorten
from .claims import Claim, holds, state_footprint
from .codec import (
    DocumentError,
    deep_room,
    detect_style,
    dumps,
    parse_state_bytes,
    plain,
    reread,
    valid_state_bytes,
)
from .files import (
    _WRITE_LOCK,
    _atomic_replace,
    _pauses,
    _project_root,
    _rel,
    check_may_write,
    clean_stale_temps,
    failure,
    open_target,
)
from .journal import (
    Journal,
    JournalUnreadable,
    _journal,
    default_who,
    journal_path,
    open_journal,
    read_journal,
)
from .outcomes import (
    APPLIED,
    CONFLICT,
    ERROR,
    INVALID,
    RACE,
    SETTLE_SECONDS,
    UNSETTLED_SECONDS,
    DecisionResult,
    _Refusal,
)
from .summary import _version_of, describe_summary, fingerprint, next_version, state_summary


class Change(Struct):
    """What a mutation did: its message, and the decision's claim (:mod:`.claims`): what a
    later version of the document must still hold for the decision to be in it."""

    message: str
    claim: Claim | None = None


Mutation = Callable[[dict[str, Any]], "str | Change"]


def _read_state(directory: Dir, path: Path) -> tuple[bytes, os.stat_result, dict[str, Any]]:
    """Raw bytes, their stat and the literal-keeping parse (``path``'s entry in ``directory``);
    a torn read (another writer mid-write) is read again for a while."""
    last: DocumentError | None = None
    for _ in _pauses():
        try:
            raw, st = read_regular(Path(path.name), follow_symlinks=False, dir_fd=directory.fd)
        except ReadRefused as exc:
            if exc.kind == "missing":
                raise _Refusal(INVALID, f"{path.name} does not exist: nothing to decide") from None
            if exc.kind in ("symlink", "not_regular", "too_large"):
                raise _Refusal(INVALID, f"{path.name}: {exc.reason}; not touched") from None
            raise _Refusal(ERROR, f"cannot read {path.name}: {exc.reason}") from None
        try:
            return raw, st, parse_state_bytes(raw)
        except DocumentError as exc:
            last = exc
            if not exc.torn:
                break
    assert last is not None
    where = "empty file" if last.torn and last.pos == 0 else f"{last} at character {last.pos}"
    if last.torn:  # read again for UNSETTLED_SECONDS: its writer never finished
        raise _Refusal(
            INVALID,
            f"{path.name} was still being written (or is cut) after {UNSETTLED_SECONDS:g} s "
            f"of looking ({where}); it was not touched (never repaired). Try again once its "
            "writer is done.",
        )
    raise _Refusal(
        INVALID, f"{path.name} is not valid JSON ({where}); it was not touched (never repaired)"
    )


class Request(Struct, frozen=True):
    """One state write: ``mutate(doc)`` changes the raw document in place (literal-keeping
    values) and returns a message or a :class:`Change`; it raises ``_Refusal`` to refuse.
    ``expect_version`` (or ``seen['state_version']``) must equal the version on disk;
    ``depends(seen)`` must equal ``depends(disk)`` when both ``seen`` and ``depends`` are given."""

    path: Path
    mutate: Mutation
    action: str
    params: Mapping[str, Any] = field(default_factory=dict)
    expect_version: int | None = None
    seen: Mapping[str, Any] | None = None
    depends: Callable[[Mapping[str, Any]], Any] | None = None
    who: str | None = None
    via: str = "api"
    journal: Path | None = None
    settle: float = SETTLE_SECONDS

    @property
    def expected(self) -> int | None:
        if self.expect_version is None and self.seen is not None:
            return _version_of(self.seen.get("state_version"))
        return self.expect_version


class Options(TypedDict, total=False):
    """What every decision takes besides its answer: the version (or the whole state) the
    user saw, who answers and through what, and where the journal is."""

    expect_version: int | None
    seen: Mapping[str, Any] | None
    who: str | None
    via: str
    journal: str | os.PathLike[str] | None


def decide(
    path: str | os.PathLike[str],
    kind: str,
    action: str,
    mutation: Callable[[str, str | None], Mutation] | None,
    note: tuple[str, str | None],
    depends: Callable[[Mapping[str, Any]], Any],
    options: Options,
) -> DecisionResult:
    """One answer to a gate or an escalation: ``mutation(action, text)`` builds the change
    (None: an unknown action, refused and journalled before anything is read); ``note`` is the
    answer's free text and its name in the journal (``guidance``, ``reason``)."""
    name, text = note
    label = f"{kind} {action}"
    if mutation is None:
        return _refuse_early(path, label, f"unknown {kind} action {action!r}", options)
    return apply_update(
        path,
        mutation(action, text),
        action=label,
        params={name: text} if text is not None else {},
        depends=depends,
        **options,
    )


def _refuse_early(
    path: str | os.PathLike[str], action: str, message: str, options: Options
) -> DecisionResult:
    p = Path(os.path.abspath(path))
    root = _project_root(p)
    result = DecisionResult(INVALID, message, action=action, target=_rel(root, p))
    journal = options.get("journal")
    result.journal_error = _journal(
        root,
        Path(journal) if journal is not None else journal_path(root),
        {
            "ts": protocol.now_iso(),
            "who": options.get("who") or default_who(),
            "via": options.get("via", "api"),
            "action": action,
            "target": result.target,
            "pid": os.getpid(),
            "params": {},
            "version_before": None,
            "version_after": None,
            "outcome": INVALID,
            "message": message,
        },
    )
    return result


def apply_update(path: str | os.PathLike[str], mutate: Mutation, **options: Any) -> DecisionResult:
    """:func:`write` a :class:`Request` built from ``path``, ``mutate`` and its fields."""
    journal = options.pop("journal", None)
    return write(
        Request(
            Path(os.path.abspath(path)),  # never resolved: a link at the path is refused
            mutate,
            journal=Path(journal) if journal is not None else None,
            params=dict(options.pop("params", None) or {}),
            **options,
        )
    )


class _Attempt(Struct):
    """What one write learned on the way, for its journal line."""

    root: Path
    journal: Path
    entry: dict[str, Any]
    result: DecisionResult
    reformatted: bool = False
    claim: Claim | None = None
    opened: Journal | None = None  # the journal, once open (the decision waits for it)
    directory: Dir | None = None  # the target's directory, once open


def write(request: Request) -> DecisionResult:
    """Read-check-mutate-write one JSON state file; journal the attempt. ``state_version`` is
    set to disk + 1 here."""
    path = request.path
    root = _project_root(path)
    target = _rel(root, path)
    attempt = _Attempt(
        root,
        request.journal or journal_path(root),
        {"who": request.who or default_who(), "via": request.via, "action": request.action,
         "target": target, "pid": os.getpid()},
        DecisionResult(INVALID, "", action=request.action, target=target),
    )  # fmt: skip
    result = attempt.result
    with _WRITE_LOCK, deep_room(), contextlib.ExitStack() as held:
        try:  # the directory once, then the journal: a decision it cannot record is not made
            attempt.directory = held.enter_context(open_target(root, path))
            attempt.opened = held.enter_context(open_journal(root, attempt.journal))
            held.enter_context(writer_lock(root))
            clean_stale_temps(attempt.directory, path.name)
            _replace(request, attempt)
        except _Refusal as refusal:
            result.outcome, result.message = refusal.outcome, refusal.message
        except WriteRefused as exc:
            result.outcome, result.message = INVALID, exc.reason
        except Exception as exc:  # an I/O failure mid-write: say so, never half-apply silently
            result.outcome, result.message = failure(root, path, exc)
        _journal_outcome(request, attempt)
    if result.journal_error:
        result.message += f" [{result.journal_error}]"
    return result


def _replace(request: Request, attempt: _Attempt) -> None:
    """Read, compare, mutate, replace and judge what the file holds after (raises refusals)."""
    path, result = request.path, attempt.result
    directory, journal = attempt.directory, attempt.opened
    assert directory is not None and journal is not None
    raw, st, doc = _read_state(directory, path)
    check_may_write(directory, path.name, st)
    result.version_before = disk_version = _version_of(doc.get("state_version"))
    result.state_summary = state_summary(doc)
    if "state_version" in doc and disk_version is None:
        raise _Refusal(INVALID, "state_version on disk is not an integer; not touched")
    _compare(request, attempt, doc, disk_version)
    text = raw.decode("utf-8")
    style = detect_style(text)
    attempt.reformatted = dumps(doc, style) != text
    change = request.mutate(doc)
    change = Change(change) if isinstance(change, str) else change
    attempt.claim = change.claim
    doc["state_version"] = next_version(disk_version)
    new = dumps(doc, style).encode("utf-8")

    def intent() -> None:  # the journal line before the rename (a kill -9 after it is traceable)
        line = {"ts": protocol.now_iso(), **attempt.entry, "params": plain(dict(request.params))}
        line.update(version_before=result.version_before, version_after=doc["state_version"])
        line.update(outcome="intent", message="renaming")
        if change.claim is not None:
            line["claim"] = change.claim
            # what the rename leaves, so a repair whose writer died before its outcome line
            # can still be undone from this line and the file (.repair.last_repair)
            line["sha256"] = hashlib.sha256(new).hexdigest()
        # not fsynced: it must survive a kill -9 (the page cache does), and it sits between the
        # read and the rename, where every millisecond is a chance for the owner to write. Not
        # written: WriteRefused, and nothing is
        journal.append(line, sync=False)

    outcome = _atomic_replace(
        directory, path.name, raw, st, new, valid_state_bytes, request.settle, intent
    )
    if outcome.status == "changed":
        raise _Refusal(CONFLICT, f"{path.name}: {outcome.detail}. Nothing written; look again.")
    result.state_summary = state_summary(doc)
    message = change.message
    if attempt.reformatted:
        message += " (the file was not in its owner's layout; re-laid out, values kept)"
    if outcome.status == "ok":
        result.outcome, result.version_after, result.message = (
            APPLIED,
            doc["state_version"],
            message,
        )
        if change.claim is not None:
            result.footprint = state_footprint(new, change.claim)
    else:
        _judge_race(result, outcome, change, new, doc["state_version"], message, path)


def _compare(
    request: Request, attempt: _Attempt, doc: Mapping[str, Any], disk_version: int | None
) -> None:
    """Compare-and-swap: refuse (or recognise our own earlier write) when the file moved."""
    expected, seen, depends = request.expected, request.seen, request.depends
    problems = []
    if expected is not None and disk_version != expected:
        problems.append(f"state_version is {disk_version}, you saw {expected}")
    if (
        seen is not None
        and depends is not None
        and fingerprint(depends(seen)) != fingerprint(depends(doc))
    ):
        problems.append("the fields this decision depends on changed")
    if not problems:
        return
    own = _own_write(attempt.journal, attempt.entry, request.params, expected, doc)
    if own:
        attempt.result.version_after = disk_version
        raise _Refusal(APPLIED, own)
    raise _Refusal(
        CONFLICT,
        f"{request.path.name} changed since you looked ({'; '.join(problems)}). Nothing "
        f"written. Now: {describe_summary(attempt.result.state_summary)}",
    )


def _judge_race(
    result: DecisionResult,
    outcome: Any,
    change: Change,
    new: bytes,
    ours: int,
    message: str,
    path: Path,
) -> None:
    """Someone else wrote around our replace: does the file still carry the decision?"""
    current = reread(outcome.current)
    kept = current is not None and (
        outcome.current == new or (change.claim is not None and holds(change.claim, current))
    )
    if current is not None:
        result.state_summary = state_summary(current)
    now_v = current.get("state_version") if current is not None else "unreadable"
    result.version_after = ours if kept else None
    if outcome.status == "overwritten" and kept:
        result.outcome = APPLIED
        if change.claim is not None and outcome.current is not None:
            result.footprint = state_footprint(outcome.current, change.claim)
        result.message = (
            f"{message} (another writer has written since, state_version {now_v}, "
            "and kept the decision)"
        )
        return
    result.outcome = RACE
    if kept:
        verdict = f"the decision is in the file (state_version now {now_v})"
    elif current is None:  # still mid-write when the look-again gave up: no verdict either way
        verdict = _race_verdict("unreadable")
    else:
        verdict = _race_verdict(outcome.status)
    result.message = f"race on {path.name}: {outcome.detail}; {verdict}"


def _journal_outcome(request: Request, attempt: _Attempt) -> None:
    """The attempt's outcome line (refusals too)."""
    result = attempt.result
    params = dict(request.params)
    if result.outcome == APPLIED and result.message.startswith("already applied"):
        params["already_applied"] = True
    if attempt.reformatted and result.outcome == APPLIED:
        params["reformatted"] = True
    line = {
        "ts": protocol.now_iso(),
        **attempt.entry,
        "params": plain(params),
        "version_before": result.version_before,
        "version_after": result.version_after,
        "outcome": result.outcome,
        "message": result.message,
    }
    if result.footprint is not None:  # what the file must hold for it to be "applied" later
        line["claim"] = result.footprint.claim
        # the bytes it left, so an undo can tell the file is still exactly that (.repair)
        line["sha256"] = hashlib.sha256(result.footprint.written).hexdigest()
    if attempt.opened is not None:
        result.journal_error = attempt.opened.outcome(line)
    elif "journal" not in result.message:  # (a journal that cannot be opened said so already)
        result.journal_error = _journal(attempt.root, attempt.journal, line)


def _own_write(
    journal: Path,
    entry: Mapping[str, Any],
    params: Mapping[str, Any] | None,
    expect_version: int | None,
    doc: Mapping[str, Any],
) -> str | None:
    """A second press of the same decision on the same look is not a conflict when the file
    still holds our earlier write of it: the journal's newest outcome for this file is our
    ``applied`` of the same action and parameters from the version the caller saw, and its
    claim (:func:`.claims.holds`) is true of the file now. The journal is the record, the
    file the proof: when the file no longer holds it, the refusal says so."""
    if expect_version is None:
        return None
    try:
        lines = read_journal(journal)
    except JournalUnreadable:
        return None  # what we wrote before is unknown: the conflict stands
    newest = next(
        (
            e
            for e in reversed(lines)
            if e.get("target") == entry["target"]
            and e.get("outcome") == APPLIED
            and not (e.get("params") or {}).get("already_applied")
        ),
        None,
    )
    if newest is None or not isinstance(newest.get("claim"), dict):
        return None  # no claim (a journal from before claims): nothing to test the file with
    logged = {k: v for k, v in (newest.get("params") or {}).items() if k != "reformatted"}
    if (newest.get("action"), logged) != (entry["action"], plain(dict(params or {}))):
        return None
    if newest.get("version_before") != expect_version:
        return None
    now = _version_of(doc.get("state_version"))
    try:
        kept = holds(newest["claim"], doc)
    except (KeyError, TypeError, ValueError):  # a claim this version cannot read
        return None
    if not kept:
        raise _Refusal(
            CONFLICT,
            f"your earlier {entry['action']} (state_version {newest.get('version_after')}) is "
            f"NOT in the file any more: a later write (state_version {now}) undid it. Nothing "
            "written; look again and decide again.",
        )
    since = "" if now == newest.get("version_after") else f", kept by later writes: now {now}"
    return (
        f"already applied: this {entry['action']} is in the file (your earlier write, "
        f"state_version {newest.get('version_after')}{since}); nothing written again"
    )


def _race_verdict(status: str) -> str:
    """What a reader of a race result must do. ``overwritten``: the file was read after the
    other write and does not carry the decision. ``withdrawn``/``lost``: an owner write landed
    on the replaced inode; what the file holds now depends on what the owner does next.
    ``unreadable``: the other writer was still writing when the look-again gave up."""
    if status == "overwritten":
        return "the decision is NOT in the file: look again and decide again"
    if status == "unreadable":
        return (
            "the file was still being written and could not be read whole, so whether the "
            "decision is in it is uncertain: look again before deciding again"
        )
    return "uncertain, look again before deciding again"


def _invalid(message: str) -> _Refusal:
    return _Refusal(INVALID, message)


def _label(value: Any) -> str:
    return shorten(clean(str(value)), 60)
