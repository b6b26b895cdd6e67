"""Textual's Footer, rebuilt only when what it shows changes.

Textual's ``Footer`` recomposes (builds and styles every key afresh) whenever the screen publishes
``bindings_updated``: on focus changes, on screen resume and after idle. At start-up that was four
full rebuilds before the first data frame, each the same keys; on every switch between screens it
was two. This footer keeps the stock look and behaviour but skips a rebuild when the keys it would
show (key, label, action, enabled, tooltip) are the ones already on screen.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """A drop-in ``Footer`` that rebuilds only when its keys change."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None
        self.rebuilds = 0  # compositions that produced keys (tests)

    def _keys(self) -> tuple[Any, ...]:
        """Everything about the active bindings that the composed keys depend on."""
        return (
            self.compact,
            self.show_command_palette,
            tuple(
                (b.key, b.key_display, b.description, b.action, b.group, b.show, enabled, tip)
                for (_node, b, enabled, tip) in self.screen.active_bindings.values()
            ),
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys()
            self.rebuilds += 1
        yield from super().compose()

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._rebuild_if_changed)

    async def _rebuild_if_changed(self) -> None:
        if not self.is_attached or self._shown == self._keys():
            return
        await self.recompose()
