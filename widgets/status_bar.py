"""One line at the bottom: watch mode, the shown state file's read status and freshness, and any
problem that makes the screen lag behind the files (torn read, vanished or invalid file, hook log
rotation, watcher errors). Plain data in; ``Content`` built from plain strings, every path and
note cleaned of escapes."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from phasewatch.core.text import clean
from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from phasewatch.core.session import FileStatus

Part = Content | str | tuple[str, str]

_MODE = {
    "watching": ("● watching", "$success"),
    "polling": ("◌ polling", "$warning"),
    "reconciling": ("◌ reconciling only", "$warning"),
    "starting": ("… starting", "$text-muted"),
    "stopped": ("■ stopped", "$error"),
    "once": ("○ read once (not watching)", "$text-muted"),
}


def clock_text(moment: datetime | None) -> str:
    """Local wall-clock time (HH:MM:SS)."""
    return moment.astimezone().strftime("%H:%M:%S") if moment is not None else "—"


def problem_text(status: FileStatus) -> str | None:
    """The warning for a file that is not read cleanly, or None when it is fine."""
    shown = f"v{status.shown_version}" if status.shown_version is not None else "last good data"
    since = clock_text(status.last_ok_at)
    keep = f" — showing {shown} from {since}" if status.last_ok_at is not None else ""
    name = clean(status.rel)  # a path: its directory names may carry escapes
    if status.status == "torn":
        return f"⚠ torn read{keep}"
    if status.status == "vanished":
        return f"⚠ {name} vanished{keep}"
    if status.status == "invalid":
        return f"⚠ {name} is not valid JSON{keep}"
    if status.status in {"unreadable", "too_large", "not_object"}:
        return f"⚠ {name} {status.status.replace('_', ' ')}{keep}"
    if status.status == "missing" and status.kind == "state":
        return f"⚠ {name} not found"
    return None


def status_content(
    mode: str,
    state_file: FileStatus | None,
    others: Sequence[FileStatus] = (),
    notes: Sequence[str] = (),
    updated_at: datetime | None = None,
) -> Content:
    label, style = _MODE.get(mode, (mode, "$text-muted"))
    parts: list[Part] = [(label, style)]
    if state_file is not None:
        problem = problem_text(state_file)
        if problem is not None:
            parts += [
                "  ",
                (problem, "bold $warning" if state_file.status == "torn" else "bold $error"),
            ]
        else:
            shown = state_file.shown_version
            parts += [
                ("  │ ", "$text-muted"),
                Content(clean(state_file.rel)),
                " ",
                (f"v{shown}" if shown is not None else "", "bold"),
                ("  changed ", "$text-muted"),
                clock_text(state_file.changed_at),
            ]
    for other in others:
        problem = problem_text(other)
        if problem is not None and other.status != "missing":
            parts += ["  ", (problem, "$warning")]
    for note in notes:
        parts += [("  │ ", "$text-muted"), (clean(note), "$warning")]
    if updated_at is not None:
        parts += [("  │ checked ", "$text-muted"), clock_text(updated_at)]
    return Content.assemble(*parts)


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; padding: 0 1; background: $panel; color: $foreground; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes, markup=False)
        self._content = Content("")

    @property
    def text(self) -> str:
        return self._content.plain

    def show(
        self,
        mode: str,
        state_file: FileStatus | None,
        others: Sequence[FileStatus] = (),
        notes: Sequence[str] = (),
        updated_at: datetime | None = None,
    ) -> None:
        content = status_content(mode, state_file, others, notes, updated_at)
        if content != self._content:
            self._content = content
            self.update(content)
