"""Small modal dialogs of the review console (frogmouth's shape: a ``ModalScreen`` that
``dismiss(result)``\\ es): yes/no confirmation, one line of text (redo guidance, a cancellation
reason) and the explanation of a refused decision.

Every string shown may come from a file: it goes in as ``rich.text.Text`` or ``Content(text)``,
widgets are created with ``markup=False``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

DIALOG_CSS = """
{cls} {{ align: center middle; }}
{cls} > Vertical {{ width: 80%; max-width: 100; height: auto; max-height: 90%;
    border: thick $primary; background: $surface; padding: 1 2; }}
{cls} .dialog-message {{ height: auto; margin-bottom: 1; }}
{cls} .dialog-buttons {{ height: auto; align-horizontal: right; }}
{cls} .dialog-buttons Button {{ margin-left: 2; }}
"""


def summary_lines(summary: Mapping[str, Any]) -> Text:
    """A decision result's ``state_summary`` as indented ``key: value`` lines (plain text)."""
    text = Text()

    def walk(value: Any, indent: int) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                text.append("  " * indent + f"{k}: ", style="bold")
                if isinstance(v, Mapping | list) and v:
                    text.append("\n")
                    walk(v, indent + 1)
                else:
                    text.append(f"{v}\n")
        elif isinstance(value, list):
            for v in value:
                text.append("  " * indent + "- ")
                if isinstance(v, Mapping):
                    text.append(", ".join(f"{k}={x}" for k, x in v.items()) + "\n")
                else:
                    text.append(f"{v}\n")
        else:
            text.append("  " * indent + f"{value}\n")

    walk(summary, 0)
    text.rstrip()
    return text


class ConfirmDialog(ModalScreen[bool]):
    """``y``/Enter confirms (True), ``n``/Escape cancels (False)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]
    DEFAULT_CSS = DIALOG_CSS.format(cls="ConfirmDialog")

    def __init__(self, title: str, message: str | Text, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.title_text = title
        self.message = message if isinstance(message, Text) else Text(message)
        self.yes, self.no = yes, no

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.message, classes="dialog-message", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text(f"{self.no} (n)"), id="no")
                yield Button(Text(f"{self.yes} (y)"), id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class TextPromptDialog(ModalScreen[str | None]):
    """One line of required text; Enter submits (empty text is refused), Escape cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = (
        DIALOG_CSS.format(cls="TextPromptDialog")
        + """
    TextPromptDialog #prompt-error { color: $text-error; height: auto; }
    """
    )

    def __init__(self, title: str, prompt: str | Text, placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt = prompt if isinstance(prompt, Text) else Text(prompt)
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.prompt, classes="dialog-message", markup=False)
            yield Input(placeholder=self.placeholder, id="prompt-input")
            yield Static("", id="prompt-error", markup=False)
            yield Static(Text("Enter: submit   Escape: cancel", style="dim"), markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        value = event.value.strip()
        if not value:
            self.query_one("#prompt-error", Static).update(Text("Text is required."))
            return
        self.dismiss(value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class RefusalDialog(ModalScreen[None]):
    """Why a decision was not applied, and the state as it is now. Enter/Escape closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close"),
    ]
    DEFAULT_CSS = (
        DIALOG_CSS.format(cls="RefusalDialog")
        + """
    RefusalDialog > Vertical { border: thick $error; }
    RefusalDialog VerticalScroll { height: auto; max-height: 20; }
    """
    )

    def __init__(self, title: str, message: str, summary: Mapping[str, Any], line: str) -> None:
        super().__init__()
        self.title_text = title
        self.message = message
        self.summary = dict(summary)
        self.line = line

    @property
    def text(self) -> str:
        return (
            f"{self.title_text}\n{self.message}\n{self.line}\n{summary_lines(self.summary).plain}"
        )

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(Text(self.message), classes="dialog-message", markup=False)
            head = Text("Current state: ", style="bold")
            head.append(self.line, style="")
            yield Static(head, classes="dialog-message", markup=False)
            with VerticalScroll():
                yield Static(summary_lines(self.summary), markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("Close (Enter)"), id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#close", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)
