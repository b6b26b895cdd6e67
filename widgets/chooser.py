"""A one-line choice of one value among a few, or none ("any"): what the hook screen's filters
need of Textual's ``Select``, in one widget.

``Select`` is six widgets (its box, a label, two arrows, the list and the list's container), all
composed, styled and laid out when its screen is first shown: 18 of the hook screen's 46. A
:class:`Chooser` draws its box itself and builds its list only when it is opened, in a small modal
screen just below it, so the hook screen's first show builds none of it
(docs/performance.md#widgets).

It looks and answers like a ``Select``: Enter, space, the down arrow or a click open the list;
Enter or a click picks; Escape closes it unchanged. Labels are rich ``Text`` (never markup).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option


class _Any:
    """The value of a chooser with nothing chosen (its prompt shows)."""

    def __repr__(self) -> str:
        return "ANY"


ANY: Any = _Any()
WIDEST = 60  # cells of an option in the open list (longer labels are cut with an ellipsis)


class Chooser(Widget, can_focus=True):
    """One value among ``options`` (label, value), or :data:`ANY` (the ``prompt`` shows)."""

    DEFAULT_CSS = """
    Chooser {
        border: tall $border-blurred;
        background: $surface;
        color: $foreground;
        width: 1fr;
        height: 3;
        padding: 0 2;
        pointer: pointer;
        &:focus {
            border: tall $border;
            background-tint: $foreground 5%;
        }
        & > .chooser--prompt { color: $foreground 50%; }
        & > .chooser--arrow { color: $foreground 50%; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"chooser--prompt", "chooser--arrow"}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space,down", "show_list", "Choose", show=False),
    ]

    value: reactive[Any] = reactive(ANY, init=False)

    class Changed(Message):
        """The value changed (by the user or by code, as ``Select.Changed``)."""

        def __init__(self, chooser: Chooser, value: Any) -> None:
            super().__init__()
            self.chooser = chooser
            self.value = value

        @property
        def control(self) -> Chooser:
            return self.chooser

    def __init__(
        self,
        options: Iterable[tuple[Text, Any]] = (),
        *,
        prompt: str,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.prompt = prompt
        self._options: list[tuple[Text, Any]] = list(options)

    def set_options(self, options: Iterable[tuple[Text, Any]]) -> None:
        """New options: a value still among them is kept, one no longer among them becomes
        :data:`ANY` (a ``Select`` would go blank either way)."""
        self._options = list(options)
        if self.value is not ANY and not any(v == self.value for _, v in self._options):
            self.value = ANY
        self.refresh()

    def clear(self) -> None:
        self.value = ANY

    def validate_value(self, value: Any) -> Any:
        if value is ANY or any(v == value for _, v in self._options):
            return value
        raise ValueError(f"{value!r} is not among the options")

    def watch_value(self, value: Any) -> None:
        self.post_message(self.Changed(self, value))

    def render(self) -> Text:
        width = max(0, self.content_size.width - 2)  # the label, a space, the arrow
        label = self._label()
        if label is None:
            text = Text(self.prompt, style=self.get_component_rich_style("chooser--prompt"))
        else:
            text = label.copy()
        text.truncate(width, overflow="ellipsis", pad=True)
        text.append(" ")
        text.append("▼", style=self.get_component_rich_style("chooser--arrow"))
        return text

    def _label(self) -> Text | None:
        if self.value is ANY:
            return None
        return next((label for label, v in self._options if v == self.value), None)

    # ------------------------------------------------------------------ the list
    def action_show_list(self) -> None:
        self.app.push_screen(
            _ChooserList(self.prompt, self._options, self.value, self.region),
            self._chosen,
        )

    async def _on_click(self, event: events.Click) -> None:  # (async, as Widget's)
        event.stop()
        self.focus()
        self.action_show_list()

    def _chosen(self, value: Any) -> None:
        if value is not None:  # None: closed unchanged
            self.value = value[0]


class _ChooserList(ModalScreen[tuple[Any] | None]):
    """The list of a :class:`Chooser`, just below it; dismissed with ``(value,)`` or None."""

    DEFAULT_CSS = """
    _ChooserList {
        align: left top;
        & > OptionList {
            border: tall $border;
            background: $surface;
            width: auto;
            max-height: 12;
            & > .option-list--option { padding: 0 1; }
        }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", show=False)]

    def __init__(
        self, prompt: str, options: Sequence[tuple[Text, Any]], value: Any, under: Region
    ) -> None:
        super().__init__()
        self._values = [ANY, *(v for _, v in options)]
        labels = [Text(prompt, style="dim"), *(label.copy() for label, _ in options)]
        for label in labels:  # one line each, at most WIDEST cells
            label.truncate(WIDEST, overflow="ellipsis")
        self._options = [Option(label) for label in labels]
        self._start = next((i for i, v in enumerate(self._values) if v == value), 0)
        self._under = under

    def compose(self) -> ComposeResult:
        yield OptionList(*self._options)

    def on_mount(self) -> None:
        self.styles.background = "transparent"  # (over an app's own Screen rule) the screen shows
        options = self.query_one(OptionList)
        options.styles.offset = (self._under.x, self._under.bottom)
        options.styles.min_width = self._under.width
        options.highlighted = self._start
        options.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss((self._values[event.option_index],))

    def action_close(self) -> None:
        self.dismiss(None)

    async def _on_click(self, event: events.Click) -> None:  # (async, as Widget's)
        if event.widget is self:  # outside the list
            self.dismiss(None)
