"""Base of the review console's screens (escalations, plan approval, attention queue).

Plain ``Screen``\\ s pushed over the data screens (so the app's keys keep working on them);
Escape goes back. The app (:class:`tui.console.ReviewConsole`) calls :meth:`show_data` with
every :class:`~core.session.SessionUpdate` while the screen is on the stack; on mount it shows
the app's last update.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from phasewatch.core.session import SessionUpdate
from textual.binding import Binding, BindingType
from textual.screen import Screen

from ..bindings import refresh_bindings_if_changed


class ConsoleScreen(Screen[None]):
    #: The name the app opens it by (``tui.console.CONSOLE_SCREENS``).
    NAME = ""
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__()
        self.last_update: SessionUpdate | None = None
        self.applied = 0  # updates shown (tests)

    @property
    def read_only(self) -> bool:
        return bool(getattr(self.app, "read_only", False))

    @property
    def project_id(self) -> str | None:
        return getattr(self.app, "project_id", None)

    def now(self) -> datetime:
        clock = getattr(self.app, "now", None)
        return clock() if clock is not None else datetime.now(UTC)

    def on_mount(self) -> None:
        last = getattr(self.app, "last_update", None)
        if last is not None and self.last_update is None:
            self.call_after_refresh(self.show_data, last)

    def show_data(self, update: SessionUpdate | None) -> None:
        if update is None:
            return
        self.last_update = update
        if self.is_mounted:
            self.render_data(update)
            self.applied += 1
            refresh_bindings_if_changed(self, self.BINDINGS)

    def render_data(self, update: SessionUpdate) -> None:
        """Render ``update`` (override)."""

    def action_back(self) -> None:
        self.dismiss(None)
