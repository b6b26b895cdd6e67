"""A one-piece ``Static`` whose content depends on the snapshot and the clock: ``show`` sets
the data, ``tick`` only moves the clock, and the widget repaints only when its text changes."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from textual.content import Content
from textual.widgets import Static

if TYPE_CHECKING:
    from phasewatch.core.snapshot import Snapshot


class ClockedStatic(Static):
    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__("", id=id, classes=classes, markup=False)
        self._snap: Snapshot | None = None
        self._now: datetime | None = None
        self._text = Content("")

    @property
    def text(self) -> str:
        return self._text.plain

    def tick(self, now: datetime) -> None:
        self._now = now
        self._render_now()

    def content_at(self, now: datetime) -> Content:
        """The content for the current data at ``now``."""
        raise NotImplementedError

    def _render_now(self) -> None:
        if self._now is None:
            return
        content = self.content_at(self._now)
        # Content's == compares the text only: a change of colour alone must repaint too
        if content.plain != self._text.plain or content.spans != self._text.spans:
            self._text = content
            self.update(content)
