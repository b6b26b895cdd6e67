"""Escape then a key, typed quickly, acts as the two keys the user pressed.

Textual's input parser waits ``ESCDELAY`` (100 ms) after an Escape for the rest of an escape
sequence; a key typed within that time is read with the Escape as one key: ``alt+r`` for
Escape then ``r``, ``alt+shift+r`` for Escape then ``R``, and, from its table of macOS
Option keys, ``™`` for Escape then ``2`` (the digits, ``-`` and ``=``). phasewatch binds no
Alt key, so :class:`EscapeThenKey` turns such a key back into an Escape and the key
(docs/design.md#keys-typed-after-escape).

The Escape runs first, as its binding (closing a panel, leaving a search box); the key then
goes to whatever screen the Escape left on top, as a key typed there would. When the Escape
closed a screen, the screen it revealed is one the user has not seen yet: its key guard is
armed first, so the key cannot make a decision there (the rule: no keystroke the user did
not aim at a decision may make one). Escape then ``?`` or another punctuation key reaches
the app as the punctuation alone (Textual drops the Escape), and Escape then ``b``/``f`` as
``ctrl+left``/``ctrl+right``: those cannot be told from the keys themselves.
"""

from __future__ import annotations

from collections.abc import Container
from typing import TYPE_CHECKING

from textual import events
from textual.widgets import Input, TextArea

from .screens.console_base import KeyGuard

if TYPE_CHECKING:
    from textual.app import App

    _Base = App[int]
else:
    _Base = object

ALT = "alt+"
#: What Textual's parser reads for Escape then a digit, ``-`` or ``=`` (a macOS Option
#: character), by that character: the key typed after the Escape.
OPTION_CHARACTERS: dict[str, str] = {
    "º": "0",
    "¡": "1",
    "™": "2",
    "£": "3",
    "¢": "4",
    "∞": "5",
    "§": "6",
    "¶": "7",
    "•": "8",
    "ª": "9",
    "–": "-",
    "≠": "=",
}
#: Textual's key names of the two characters above that are not letters or digits.
_NAMES = {"-": "minus", "=": "equals_sign"}


def typed_after_escape(
    key: events.Key, bound: Container[str], *, typing: bool = False
) -> tuple[str, str] | None:
    """(key name, character) of the key typed after an Escape when ``key`` is how Textual's
    parser read the two together and nothing in ``bound`` (the active bindings' keys) takes
    ``key`` itself; None otherwise. ``typing``: the focus is a text box, where an Option
    character may be meant as itself, so only the Alt readings are split."""
    name = key.key
    if name in bound:
        return None
    if name.startswith(ALT):
        rest = name[len(ALT) :]
        char = key.character
        if char is None and len(rest) == 1:
            char = rest  # (a key posted without its character, as a test's pilot does)
        if char is None or len(char) != 1 or not char.isprintable():
            return None
        if rest.startswith("shift+") and len(rest) == len("shift+") + 1:
            return char, char  # Textual names a plain capital by itself: "R"
        return rest, char
    char = key.character
    if not typing and char is not None and char in OPTION_CHARACTERS:
        typed = OPTION_CHARACTERS[char]
        return _NAMES.get(typed, typed), typed
    return None


class EscapeThenKey(_Base):
    """App mixin: an Escape read together with the next key is handled as the two keys."""

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and self._may_split(event):
            typing = isinstance(self.focused, (Input, TextArea))
            split = typed_after_escape(event, self.active_bindings, typing=typing)
            if split is not None:
                event.stop()
                await self._escape_then(*split)
                return
        await super().on_event(event)

    @staticmethod
    def _may_split(event: events.Key) -> bool:
        """Cheap first look (no bindings gathered for an ordinary key)."""
        return event.key.startswith(ALT) or (event.character or "") in OPTION_CHARACTERS

    async def _escape_then(self, name: str, char: str) -> None:
        before = self.screen
        escape = self.active_bindings.get("escape")
        if escape is not None and escape.enabled and before.maximized is None:
            await self.run_action(escape.binding.action, escape.node)
        else:  # nothing binds Escape here (or a maximized widget is minimized): Textual's way
            await super().on_event(events.Key("escape", "\x1b"))
        if self.screen is not before:
            arm(self.screen)
        self.call_after_refresh(self.post_message, events.Key(name, char))


def arm(screen: object) -> None:
    """Arm the key guard of ``screen``, if it decides anything (its deciding keys then wait)."""
    guard = getattr(screen, "guard", None)
    if isinstance(guard, KeyGuard):
        guard.arm()
