"""Textual's Footer, rebuilt only when what it shows changes.

Textual's ``Footer`` recomposes (builds and styles every key afresh) whenever the screen publishes
``bindings_updated``: on focus changes, on screen resume and after idle. At start-up that was four
full rebuilds before the first data frame, each the same keys; on every switch between screens it
was two. This footer keeps the stock look and behaviour but skips a rebuild when the keys it would
show (key, label, action, enabled, tooltip) are the ones already on screen.

``?`` (help) and ``q`` (quit) come first, then the review console's keys (``g`` gate, ``w``,
``e``, ``a``: shown only while something waits for a human): the footer cuts what does not fit
at the right, and those must stay in sight at 80 columns when a screen's keys fill the line.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, KeyGroup

#: Keys shown first, whatever else the footer holds.
FIRST_KEYS = ("question_mark", "q")
#: Then the bindings of these actions: the decisions waiting (tui/console.py CONSOLE_BINDINGS).
DECISION_ACTION = "console("


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
            tuple(  # the keys shown (Textual's footer shows no binding with show=False)
                (b.key, b.key_display, b.description, b.action, b.group, enabled, tip)
                for (_node, b, enabled, tip) in self.screen.active_bindings.values()
                if b.show
            ),
        )

    def compose(self) -> ComposeResult:
        if not self._bindings_ready and self.is_attached:
            # Textual's footer composes nothing until its screen first publishes its bindings,
            # then builds every key: the screen's bindings are known already (the focused
            # widget's are added when it takes focus: a rebuild then, if they show a key).
            self.set_reactive(Footer._bindings_ready, True)
        if self._bindings_ready:
            self._shown = self._keys()
            self.rebuilds += 1
        widgets = list(super().compose())
        for widget in widgets:  # (a KeyGroup's keys are inside it: left as Textual makes them)
            if isinstance(widget, FooterKey):  # the palette's key is not bound: compact, always
                palette = widget.has_class("-command-palette")
                born_compact(widget, True if palette else self.compact)
        if any(isinstance(w, KeyGroup) for w in widgets):  # grouped keys keep their order
            yield from widgets
            return
        keys = [w for w in widgets if isinstance(w, FooterKey)]
        first = [w for k in FIRST_KEYS for w in keys if w.key == k]
        first += [w for w in keys if w.action.startswith(DECISION_ACTION) and w not in first]
        yield from first
        yield from (w for w in widgets if w not in first)

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


def born_compact(key: FooterKey, compact: bool) -> None:
    """Give ``key`` the ``compact`` it takes as it mounts, before it mounts. Textual's keys start
    compact and take the footer's value as they mount: each one's class was added and removed
    again, two restyles per key (the first footer's 11 keys: ~5 ms of the start-up)."""
    key.set_reactive(FooterKey.compact, compact)
    key.set_class(compact, "-compact", update=False)
