"""The key footer: one widget that draws the screen's keys as one line.

Textual's ``Footer`` is a container of one ``FooterKey`` widget per key (15 on the hook screen,
half of its widgets), each composed, styled, laid out and rendered, and composed again when the
screen's bindings change. At a screen's first show that was most of the work
(docs/performance.md#widgets). This footer looks the same (the same theme variables and spacing, the
command palette's key at the right behind a bar: the snapshots are byte for byte Textual's)
and draws its keys itself; a change of bindings is a repaint, not a rebuild.

``?`` (help) and ``q`` (quit) come first, then the review console's keys (``g`` gate, ``w``,
``e``, ``a``: shown only while something waits for a human): the footer cuts what does not fit
at the right, and those must stay in sight at 80 columns when a screen's keys fill the line.
A click on a key presses it (a disabled key rings the bell); hovering shows which key a click
presses. Binding groups (``Binding.Group``) are not drawn as groups: each key shows its own
description (the app defines none).
"""

from __future__ import annotations

from typing import Any, ClassVar

from msgspec import Struct
from msgspec.structs import replace
from phasewatch.core.text import clean
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.strip import Strip
from textual.widget import Widget

#: Keys shown first, whatever else the footer holds.
FIRST_KEYS = ("question_mark", "q")
#: Then the bindings of these actions: the decisions waiting (tui/console.py CONSOLE_BINDINGS).
DECISION_ACTION = "console("
#: The bar left of the command palette's key (Textual's ``vkey`` border).
PALETTE_BAR = "▏"


class FooterItem(Struct, frozen=True):
    """One key the footer shows, from its binding (``palette``: the command palette's key,
    drawn at the right)."""

    key: str
    key_display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    palette: bool = False


class KeyFooter(Widget, can_focus=False):
    """The screen's active bindings with ``show=True``, one line, docked at the bottom."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "footer-key--key",
        "footer-key--description",
        "footer-key--item",
        "footer-key--hover",
        "footer-key--bar",
    }
    DEFAULT_CSS = """
    KeyFooter {
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
        & > .footer-key--item { background: $footer-item-background; }
        & > .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        & > .footer-key--hover { background: $block-hover-background; }
        & > .footer-key--bar { color: $foreground 20%; }
    }
    """

    show_command_palette = reactive(True)
    """Show the key that opens the command palette, at the right."""
    hovered: reactive[int | None] = reactive(None)
    """The index in :attr:`items` of the key under the mouse."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        show_command_palette: bool = True,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(KeyFooter.show_command_palette, show_command_palette)
        #: What is drawn: the keys in order, then the palette's (if shown).
        self.items: tuple[FooterItem, ...] = ()
        #: Each item's columns on the line, (x, width); the palette's at the right.
        self.spans: tuple[tuple[int, int], ...] = ()
        self._whole: tuple[bool, ...] = ()  # each item drawn whole (see in_sight)
        self.rebuilds = 0  # times the keys changed (tests)

    # ------------------------------------------------------------------ the keys

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, _screen: Any = None) -> None:
        """The screen's bindings changed (focus moved, a key was enabled): repaint if the keys
        shown differ."""
        items = self._items()
        if items != self.items:
            self.items = items
            self.rebuilds += 1
            self.refresh()

    def _items(self) -> tuple[FooterItem, ...]:
        if not self.is_attached:
            return ()
        app = self.app
        active = self.screen.active_bindings
        by_action: dict[str, FooterItem] = {}
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in by_action:  # (one key per action)
                by_action[binding.action] = self._item(binding, enabled, tooltip)
        keys = list(by_action.values())
        first = [item for k in FIRST_KEYS for item in keys if item.key == k]
        first += [i for i in keys if i.action.startswith(DECISION_ACTION) and i not in first]
        ordered = first + [i for i in keys if i not in first]
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            got = active.get(app.COMMAND_PALETTE_BINDING)
            if got is not None:
                _node, binding, enabled, tooltip = got
                palette = self._item(binding, enabled, binding.tooltip or binding.description)
                ordered.append(replace(palette, palette=True))
        return tuple(ordered)

    def _item(self, binding: Binding, enabled: bool, tooltip: str) -> FooterItem:
        return FooterItem(
            binding.key,
            clean(self.app.get_key_display(binding)),
            clean(binding.description),
            binding.action,
            enabled,
            clean(tooltip or ""),
        )

    def watch_show_command_palette(self) -> None:
        self.bindings_changed()

    # ------------------------------------------------------------------ drawing

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        if y != 0 or width <= 0:
            return Strip.blank(width, base)
        # (whole styles, as Textual's keys take them: colours with alpha blended over the
        # footer's background; a partial style would make them opaque)
        names = ("footer-key--item", "footer-key--key", "footer-key--description")
        plain = [self.get_component_rich_style(name) for name in names]
        # the hovered key: each part's own background (transparent in Textual's themes) over
        # the hover colour, itself blended over the footer's
        background = self.background_colors[1]
        hover = background + self.get_component_styles("footer-key--hover").background
        hovered = [
            style + Style(bgcolor=(hover + self.get_component_styles(name).background).rich_color)
            for style, name in zip(plain, names, strict=True)
        ]
        bar_style = Style(
            color=(background + self.get_component_styles("footer-key--bar").color).rich_color
        )
        dim = Style(dim=True)

        def parts(index: int, item: FooterItem) -> list[Segment]:
            item_style, key_style, desc_style = hovered if index == self.hovered else plain
            if not item.enabled:
                item_style += dim
            if item.palette:  # compact, after a bar: "▏^p palette "
                return [
                    Segment(PALETTE_BAR, item_style + bar_style),
                    Segment(item.key_display, item_style + key_style),
                    Segment(f" {item.description}", item_style + desc_style),
                    Segment(" ", Style(bgcolor=item_style.bgcolor)),  # (its padding)
                ]
            return [
                Segment(f" {item.key_display} ", item_style + key_style),
                Segment(f"{item.description} ", item_style + desc_style),
            ]

        keys = [parts(i, item) for i, item in enumerate(self.items) if not item.palette]
        palette = [parts(i, item) for i, item in enumerate(self.items) if item.palette]
        right = Strip(palette[0]) if palette else Strip([])
        room = max(0, width - right.cell_length)
        spans: list[tuple[int, int]] = []
        x = 0
        line: list[Segment] = []
        whole: list[bool] = []
        for segments in keys:
            strip = Strip(segments)
            spans.append((x, max(0, min(strip.cell_length, room - x))))
            whole.append(x + strip.cell_length <= room)
            line.extend(segments)
            x += strip.cell_length
        left = Strip(line).crop_extend(0, room, Style(bgcolor=base.bgcolor))
        if palette:  # (cut at the right when it alone is wider than the footer)
            spans.append((room, min(right.cell_length, width - room)))
            whole.append(right.cell_length <= width)
        self.spans = tuple(spans)
        self._whole = tuple(whole)
        return Strip.join([left, right]).crop(0, width).simplify()

    def item_at(self, x: int) -> int | None:
        """The index of the item drawn at column ``x`` (None: none)."""
        for index, (start, width) in enumerate(self.spans):
            if start <= x < start + width:
                return index
        return None

    def in_sight(self) -> list[FooterItem]:
        """The items drawn whole, as last painted (a key cut at the right is not)."""
        return [item for item, whole in zip(self.items, self._whole, strict=False) if whole]

    # ------------------------------------------------------------------ the mouse

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hovered = self.item_at(event.x)

    def on_leave(self, _event: events.Leave) -> None:
        self.hovered = None

    def watch_hovered(self, index: int | None) -> None:
        item = self.items[index] if index is not None and index < len(self.items) else None
        self.tooltip = item.tooltip if item is not None and item.tooltip else None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.item_at(event.x)
        if index is None or index >= len(self.items):
            return
        item = self.items[index]
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
