"""Base of the review console's screens (escalations, plan approval, attention queue), and the
key guard every deciding panel uses.

Plain ``Screen``\\ s pushed over the data screens (so the app's keys keep working on them);
Escape goes back. Each is built with the :class:`~tui.console.ReviewConsole` service that opened
it and reads and decides only through it. The service calls :meth:`show_data` with every
:class:`~core.session.SessionUpdate` while the screen is on the stack; on mount it shows the
service's last update.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widget import Widget

from ..bindings import refresh_bindings_if_changed
from . import named

if TYPE_CHECKING:
    from phasewatch.core.session import SessionUpdate

    from ..console import ReviewConsole


class KeyGuard:
    """Deciding keys do nothing until ``delay()`` seconds after :meth:`arm` (called when a panel
    appears and when what it decides on changes): a key typed for something else, just as the
    panel came up or its subject changed, is not a decision."""

    def __init__(self, clock: Callable[[], float], delay: Callable[[], float]) -> None:
        self._clock = clock
        self._delay = delay
        self._since = clock()

    def arm(self) -> None:
        self._since = self._clock()

    @property
    def ready(self) -> bool:
        return self._clock() - self._since >= self._delay()

    def refuses(self, node: Widget) -> bool:
        """True (and a hint) when a deciding key came too soon."""
        if self.ready:
            return False
        node.notify("Key ignored: this just changed. Press it again.", markup=False, timeout=2)
        return True


class ConsoleScreen(Screen[None]):
    #: The name the service opens it by: its row's in ``tui.screens.SCREENS``.
    NAME = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        row = named(cls)
        if row is not None:
            cls.NAME = row.name

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, console: ReviewConsole, **kwargs: Any) -> None:
        super().__init__()
        self.console = console
        self.guard = console.key_guard()
        self.last_update: SessionUpdate | None = None
        self.applied = 0  # updates shown (tests)

    @property
    def read_only(self) -> bool:
        return self.console.read_only

    def on_mount(self) -> None:
        last = self.console.last_update
        if last is not None and self.last_update is None:
            self.call_after_refresh(self.show_data, last)

    def on_screen_resume(self) -> None:
        self.guard.arm()

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
