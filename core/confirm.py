"""Did a decision hold? Watching the file for a moment after ``applied``.

The writer's own look-again (``SETTLE_SECONDS`` after the rename) catches an owner that read the
file just before our rename and wrote right after it. An owner whose read-modify-write is slower
(a hook that reads, thinks for 300 ms, then writes the copy it read) can still put the old
content back later, and without the owner's cooperation nothing can stop it. What phasewatch can
do is notice it and say so: :func:`watch` keeps looking at the file for a few seconds after the
decision and judges the first content that is not ours:

* ``held``: the owner's write still carries the decision (it read ours, then wrote);
* ``reverted``: every field the decision changed is back to what it was before the decision:
  the owner wrote a copy read before ours (a stale write), and the decision is gone;
* ``unchanged``: nobody wrote within the window; the file still holds our bytes.

The judgement is generic, by field paths (:mod:`core.diff`, the one JSON differ): the paths our
write changed (``state_version`` aside), and the objects holding them, against the changes
between the document we decided on and the later one. A later document that changes none of
them is the old one written back. The holding objects count because an owner that moved on may
reuse one: after a review pause (``supervised_review.status``/``paused_at``) and its resume, the
next phase's gate is a new ``supervised_review`` whose status is again ``gate_presented``; its
other fields (``phase``) tell it from the old one, which a stale copy would restore whole.
Plan approval is judged by the stop hook's own approval test instead.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .diff import ROOT, changed_paths
from .files.read import read_regular

Verdict = Literal["unchanged", "held", "reverted"]
#: How long the dashboard watches after a decision it applied (the CLI: ``--confirm-seconds``).
DEFAULT_SECONDS = 5.0
POLL_SECONDS = 0.01
IGNORED = frozenset({"state_version"})
_LAST = re.compile(r'(?:\[\d+\]|\["(?:[^"\\]|\\.)*"\]|\.[^.\[]+)$')


@dataclass(frozen=True, slots=True)
class Footprint:
    """What one applied decision left in its file, enough to judge a later content."""

    kind: Literal["state", "approval"]
    written: bytes  # our bytes, as renamed into place
    before: Any = None  # state: the document the decision was made on
    paths: tuple[str, ...] = ()  # state: the paths our write changed, and their objects
    approval: bytes | None = None  # approval: the marker value we wrote (``b" <stamp>"``)


@dataclass(frozen=True, slots=True)
class Confirmation:
    verdict: Verdict
    seconds: float  # how long after the start of the watch the verdict was reached
    version: int | None = None  # the later content's ``state_version`` (state decisions)

    @property
    def reverted(self) -> bool:
        return self.verdict == "reverted"


def state_footprint(before: bytes, written: bytes) -> Footprint:
    """The footprint of a state decision from the bytes it replaced and the bytes it wrote."""
    old = json.loads(before)
    paths = [p for p in changed_paths(old, json.loads(written)) if p not in IGNORED]
    holders = [h for h in map(parent, paths) if h is not None]
    return Footprint("state", written, before=old, paths=tuple(dict.fromkeys(paths + holders)))


def _find_approval(text: bytes) -> tuple[int, bytes] | None:
    """The plugin hook's approval test (its package is imported on first use: the review
    console imports this module for the first frame, the plan reader is not needed there)."""
    from .tdd.approval import find_approval

    return find_approval(text)


def approval_footprint(written: bytes) -> Footprint:
    found = _find_approval(written)
    return Footprint("approval", written, approval=None if found is None else found[1])


def parent(path: str) -> str | None:
    """The path of the object or list holding ``path``; None for a top-level key (the
    document itself changes with every write: ``state_version``)."""
    m = _LAST.search(path)
    if m is None or m.start() == 0 or path[: m.start()] == ROOT:
        return None
    return path[: m.start()]


def overlaps(a: str, b: str) -> bool:
    """True when one path is the other or lies inside it (``x.y`` and ``x.y[2].z``)."""
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return long.startswith(short) and (len(long) == len(short) or long[len(short)] in ".[")


def judge(footprint: Footprint, current: bytes) -> tuple[Verdict, int | None] | None:
    """The verdict on ``current`` (the file's bytes now) and its ``state_version``; None when
    the content cannot be judged (not JSON: a write in progress; the watch reads again)."""
    if current == footprint.written:
        return "unchanged", None
    if footprint.kind == "approval":  # the hook's own test on the new bytes
        found = _find_approval(current)
        kept = found is not None and found[1] == footprint.approval
        return ("held" if kept else "reverted"), None
    try:
        doc = json.loads(current)
    except ValueError:
        return None
    version = doc.get("state_version") if isinstance(doc, dict) else None
    version = version if isinstance(version, int) and not isinstance(version, bool) else None
    theirs = [p for p in changed_paths(footprint.before, doc) if p not in IGNORED]
    kept = any(overlaps(ours, other) for ours in footprint.paths for other in theirs)
    return ("held" if kept else "reverted"), version


def watch(
    path: str | os.PathLike[str],
    footprint: Footprint,
    seconds: float = DEFAULT_SECONDS,
    *,
    poll: float = POLL_SECONDS,
    stop: Callable[[], bool] = lambda: False,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Confirmation:
    """Look at ``path`` every ``poll`` seconds for ``seconds`` and judge the first content that
    is not ours; never raises (an unreadable or vanished file is read again until the end)."""
    start = clock()
    seen: tuple[int, int, int, int] | None = None
    while True:
        elapsed = clock() - start
        try:
            st = os.stat(path, follow_symlinks=False)
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            if stamp != seen:
                raw, _st = read_regular(Path(path), follow_symlinks=False)
                verdict = judge(footprint, raw)
                if verdict is not None:
                    seen = stamp
                    if verdict[0] != "unchanged":
                        return Confirmation(verdict[0], elapsed, verdict[1])
        except OSError:  # a ReadRefused too
            pass  # vanished, replaced by something unreadable, mid-rename: look again
        if elapsed >= seconds or stop():
            return Confirmation("unchanged", elapsed)
        sleep(poll)
