"""Writing files the way their owners do (docs/formats.md#how-the-state-file-is-written,
#hook-log): non-atomic truncate-then-write, ``JSON.stringify`` formatting, no trailing
newline, ``state_version`` = disk + 1, an append-only hook log rotated in place."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from ..decide.codec import stringify

HOOK_LOG_MAX_BYTES = 1024 * 1024
HOOK_LOG_KEEP_LINES = 500
HOOK_LOG_KEYS = ("ts", "hook", "event", "phase", "agent", "reason")


def render_state(state: dict[str, Any]) -> bytes:
    """``JSON.stringify(state, null, 2)`` as UTF-8, no trailing newline."""
    return stringify(state, 2).encode("utf-8")


def write_truncate(path: Path, data: bytes) -> None:
    """``fs.writeFileSync``: open with O_TRUNC (same inode), write, close. Not atomic."""
    with open(path, "wb") as fh:
        fh.write(data)


def read_disk_version(path: Path, *, retries: int = 3, delay: float = 0.005) -> int | None:
    """The ``state_version`` on disk; None when there is no file or no integer version.

    A file caught mid-write by another writer is re-read a few times; if it stays unreadable the
    caller decides (the owner would fall back to 1; the simulator keeps counting from its model).
    """
    for attempt in range(retries + 1):
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            if attempt < retries:
                time.sleep(delay)
                continue
            raise
        value = data.get("state_version") if isinstance(data, dict) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


def next_version(path: Path, fallback: int | None) -> int:
    """What ``writeState()`` stores: disk + 1 (1 for a new file or a file without a version)."""
    try:
        disk = read_disk_version(path)
    except ValueError:  # unreadable even after retries: keep counting from what we know
        disk = fallback
    return (disk or 0) + 1


def with_version(state: dict[str, Any], version: int) -> dict[str, Any]:
    """A shallow copy with ``state_version`` set, keeping the key's position if it exists
    (``Object.assign({}, state)`` then ``copy.state_version = v``)."""
    out = dict(state)
    out["state_version"] = version
    return out


def write_state(path: Path, state: dict[str, Any], fallback_version: int | None = None) -> bytes:
    """The owner's ``writeState()``; returns the bytes written (the caller's dict is not changed)."""
    doc = with_version(state, next_version(path, fallback_version))
    data = render_state(doc)
    write_truncate(path, data)
    return data


def hook_line(
    ts: str,
    hook: str | None,
    event: str | None,
    phase: str | None = None,
    agent: str | None = None,
    reason: str | None = None,
) -> str:
    """One ``hook-activity.log`` line (with its newline): compact JSON, keys in the owner's order."""
    entry = dict(zip(HOOK_LOG_KEYS, (ts, hook, event, phase, agent, reason), strict=True))
    return stringify(entry) + "\n"


class HookLog:
    """``logHookEvent()``: append one line; after the append, if the file is over 1 MiB, rewrite
    it in place (truncate + write, same inode) with only its newest 500 lines."""

    def __init__(
        self,
        path: Path,
        max_bytes: int = HOOK_LOG_MAX_BYTES,
        keep_lines: int = HOOK_LOG_KEEP_LINES,
    ) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep_lines = keep_lines
        self.lines_written = 0
        self.rotations = 0

    def append(self, ts: str, *fields: str | None) -> bool:
        """Append the entry :func:`hook_line` makes of ``ts`` and ``fields`` (hook, event,
        phase, agent, reason); returns True when the append triggered a rotation."""
        line = hook_line(ts, *fields).encode("utf-8")
        with open(self.path, "ab") as fh:
            fh.write(line)
        self.lines_written += 1
        try:
            size = os.stat(self.path).st_size
        except OSError:
            return False
        if size > self.max_bytes:
            self.rotate()
            return True
        return False

    def rotate(self) -> None:
        """``lines = content.split('\\n').filter(Boolean); writeFileSync(f, lines.slice(-500)
        .join('\\n') + '\\n')``: no backup, no lock, no fsync."""
        with open(self.path, "rb") as fh:
            content = fh.read()
        lines = [line for line in content.split(b"\n") if line]
        kept = lines[-self.keep_lines :]
        write_truncate(self.path, b"\n".join(kept) + b"\n")
        self.rotations += 1


def write_text(path: Path, text: str) -> None:
    """A Markdown file as an agent's Write/Edit tool leaves it (truncate + write, UTF-8)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_truncate(path, text.encode("utf-8"))
