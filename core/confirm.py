"""Did a decision hold? Watching the file for a moment after ``applied``.

The writer's own look-again (``SETTLE_SECONDS`` after the rename) catches an owner that read the
file just before our rename and wrote right after it. An owner whose read-modify-write is slower
(a controller that read the state before delegating to a sub-agent and writes its copy back when
the sub-agent returns) can still put the old content back later, and without the owner's
cooperation nothing can stop it. What phasewatch can do is notice it and say so: :func:`watch`
keeps looking at the file for a few seconds after the decision and judges every content that is
not ours:

* ``reverted``: a later content no longer holds the decision (it is reported at once, and
  stays reported: a decision undone once must be decided again);
* ``held``: the owner wrote during the window and every content seen still held it;
* ``unchanged``: nobody wrote within the window; the file still holds our bytes.

"Holds" is the decision's own test (:func:`core.decide.claims.holds`): its own fields, whatever
else a later write changed. A write that bumps ``state_version`` and rewrites
``active_workflow`` from a copy read before the decision is a revert all the same.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from msgspec import Struct

from .files.read import RECENT_NS, read_regular

if TYPE_CHECKING:
    from .decide.claims import Footprint  # the decision kinds live there

Verdict = Literal["unchanged", "held", "reverted"]
#: How long the dashboard watches after a decision it applied (the CLI: ``--confirm-seconds``).
DEFAULT_SECONDS = 5.0
POLL_SECONDS = 0.01


class Confirmation(Struct, frozen=True):
    verdict: Verdict
    seconds: float  # how long after the start of the watch the verdict was reached
    version: int | None = None  # the later content's ``state_version`` (state decisions)

    @property
    def reverted(self) -> bool:
        return self.verdict == "reverted"


def _version(raw: bytes) -> int | None:
    try:
        doc = json.loads(raw)
    except ValueError:
        return None
    version = doc.get("state_version") if isinstance(doc, dict) else None
    return version if isinstance(version, int) and not isinstance(version, bool) else None


def judge(footprint: Footprint, current: bytes) -> tuple[Verdict, int | None] | None:
    """The verdict on ``current`` (the file's bytes now) and its ``state_version``; None when
    the content cannot be judged (not JSON: a write in progress; the watch reads again)."""
    if current == footprint.written:
        return "unchanged", None
    kept = footprint.holds(current)
    if kept is None:
        return None
    version = _version(current) if footprint.kind == "state" else None
    return ("held" if kept else "reverted"), version


def still_holds(path: str | os.PathLike[str], footprint: Footprint) -> bool:
    """Does the file hold the decision now? (A file that cannot be read or judged: no.)"""
    try:
        raw, _st = read_regular(Path(path), follow_symlinks=False)
    except OSError:
        return False
    verdict = judge(footprint, raw)
    return verdict is not None and verdict[0] != "reverted"


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
    """Look at ``path`` every ``poll`` seconds for ``seconds`` and judge every content that is
    not ours: the first that no longer holds the decision ends the watch (``reverted``); else
    ``held`` when the owner wrote meanwhile, ``unchanged`` when nobody did. Never raises (an
    unreadable or vanished file is read again until the end)."""
    start = clock()
    seen: tuple[int, int, int, int] | None = None
    last = footprint.written  # the content judged last (not parsed again)
    held: Confirmation | None = None
    while True:
        elapsed = clock() - start
        try:
            st = os.stat(path, follow_symlinks=False)
            stamp = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
            if stamp != seen:
                raw, _st = read_regular(Path(path), follow_symlinks=False)
                verdict = None if raw == last else judge(footprint, raw)
                if raw == last or verdict is not None:  # judged (not a write in progress)
                    last = raw
                    # file times move in coarse ticks and an in-place rewrite of the same size
                    # keeps inode and size: a stamp this recent may be shared by the next write
                    settled = time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= RECENT_NS
                    seen = stamp if settled else None
                if verdict is not None and verdict[0] == "reverted":
                    return Confirmation("reverted", elapsed, verdict[1])
                if verdict is not None and verdict[0] == "held":
                    held = Confirmation("held", elapsed, verdict[1])
        except OSError:  # a ReadRefused too
            pass  # vanished, replaced by something unreadable, mid-rename: look again
        if elapsed >= seconds or stop():
            return held or Confirmation("unchanged", elapsed)
        sleep(poll)
