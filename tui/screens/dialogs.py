"""Small modal dialogs of the review console (frogmouth's shape: a ``ModalScreen`` that
``dismiss(result)``\\ es): yes/no confirmation, one line of text (redo guidance, a cancellation
reason), the explanation of a refused decision and the preview of a repair (``RepairDialog``).

Every string shown may come from a file (a phase key in a title, a writer's message naming
one): it is cleaned (:func:`core.text.clean`) and goes in as ``rich.text.Text`` or
``Content(text)`` (border titles included: a ``str`` title would be parsed as markup, so
``[@click=...]`` in a phase key would become a link), widgets are created with ``markup=False``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from phasewatch.core.text import clean, one_line
from phasewatch.widgets._style import plain_content
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

if TYPE_CHECKING:
    from .console_base import KeyGuard


def summary_lines(summary: Mapping[str, Any]) -> Text:
    """A decision result's ``state_summary`` as indented ``key: value`` lines (plain text)."""
    text = Text()

    def add(part: str, style: str = "") -> None:
        text.append(clean(part), style=style)

    def walk(value: Any, indent: int) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                add("  " * indent + f"{k}: ", style="bold")
                if isinstance(v, Mapping | list) and v:
                    add("\n")
                    walk(v, indent + 1)
                else:
                    add(f"{v}\n")
        elif isinstance(value, list):
            for v in value:
                add("  " * indent + "- ")
                if isinstance(v, Mapping):
                    add(", ".join(f"{k}={x}" for k, x in v.items()) + "\n")
                else:
                    add(f"{v}\n")
        else:
            add("  " * indent + f"{value}\n")

    walk(summary, 0)
    text.rstrip()
    return text


def plain_text(text: str | Text) -> Text:
    return text if isinstance(text, Text) else Text(clean(text))


class ConfirmDialog(ModalScreen[bool]):
    """``y`` (or the Yes button) confirms (True), ``n``/Escape cancels (False). With a
    ``guard``, a Yes within a moment of the dialog appearing is ignored (a key typed for the
    screen below is not a confirmation)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(
        self,
        title: str,
        message: str | Text,
        *,
        yes: str = "Yes",
        no: str = "No",
        guard: KeyGuard | None = None,
    ) -> None:
        super().__init__()
        self.title_text = title
        self.message = plain_text(message)
        self.yes, self.no = yes, no
        self.guard = guard

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = plain_content(self.title_text)
            yield Static(self.message, classes="dialog-message", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text(f"{self.no} (n)"), id="no")
                yield Button(Text(f"{self.yes} (y)"), id="yes", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()
        if self.guard is not None:
            self.guard.arm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        if value and self.guard is not None and self.guard.refuses(self):
            return
        self.dismiss(value)


class TextPromptDialog(ModalScreen[str | None]):
    """One line of required text; Enter submits (empty text is refused), Escape cancels (None)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, prompt: str | Text, placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.prompt = plain_text(prompt)
        self.placeholder = placeholder
        #: What Escape does, in the words of the caller's context (shown under the input).
        self.close_hint = "Escape: close, nothing is written"

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = plain_content(self.title_text)
            yield Static(self.prompt, classes="dialog-message", markup=False)
            yield Input(placeholder=self.placeholder, id="prompt-input")
            yield Static("", id="prompt-error", markup=False)
            hint = Text(f"Enter: submit   {self.close_hint}", style="dim")
            yield Static(hint, markup=False)

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

    def __init__(self, title: str, message: str, summary: Mapping[str, Any], line: str) -> None:
        super().__init__()
        self.title_text = clean(title)
        self.message = clean(message)
        self.summary = dict(summary)
        self.line = clean(line)

    @property
    def text(self) -> str:
        return (
            f"{self.title_text}\n{self.message}\n{self.line}\n{summary_lines(self.summary).plain}"
        )

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = plain_content(self.title_text)
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


class DetailDialog(ModalScreen[None]):
    """Fields of one item in full (a hook-log row): labels and values, every value cleaned and
    shown as plain text. Escape/Enter closes; nothing here decides anything."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,enter", "close", "Close"),
    ]

    def __init__(self, title: str, fields: list[tuple[str, object]]) -> None:
        super().__init__()
        self.title_text = clean(title)
        self.fields = [
            (clean(label), clean("" if value is None else str(value))) for label, value in fields
        ]

    @property
    def text(self) -> str:
        return "\n".join(f"{label}: {value}" for label, value in self.fields)

    def compose(self) -> ComposeResult:
        width = max((len(label) for label, _ in self.fields), default=0)
        body = Text()
        for label, value in self.fields:
            body.append(f"{label:>{width}} ", style="bold")
            body.append(value + "\n")
        with Vertical() as box:
            box.border_title = plain_content(self.title_text)
            with VerticalScroll():
                yield Static(body, markup=False)

    def action_close(self) -> None:
        self.dismiss(None)


#: Paths the newer write keeps, listed in the repair preview (the rest are counted).
KEPT_SHOWN = 12


class RepairDialog(ModalScreen[bool]):
    """The preview of a repair (:class:`core.review.RepairOffer`): every field it would write,
    now -> proposed, from which version, what it keeps of the newer write and what it cannot
    know (the plan's own ``describe()``, cleaned where it is made). Writing takes the explicit
    key ``W`` (or the Write button): Enter presses the focused Cancel button, ``y`` does
    nothing, Escape cancels (False). With a ``guard``, a ``W`` within a moment of the dialog
    appearing is ignored. A plan with nothing it can write offers no Write at all."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("W", "write", "Write the repair"),
        Binding("escape,n", "cancel", "Cancel"),
    ]

    def __init__(
        self,
        offer: Any,
        *,
        read_only: bool = False,
        guard: KeyGuard | None = None,
    ) -> None:
        super().__init__()
        self.offer = offer
        self.read_only = read_only
        self.guard = guard
        plan = offer.plan
        what = "stale write" if plan.kind == "stale-write" else "location drift"
        self.title_text = clean(f"Repair {what} in {offer.source} ({', '.join(offer.rule_ids)})")

    @property
    def can_write(self) -> bool:
        return bool(self.offer.can_apply) and not self.read_only

    @property
    def text(self) -> str:
        return f"{self.title_text}\n" + "\n".join(self.offer.plan.describe()) + f"\n{self.note}"

    @property
    def note(self) -> str:
        if not self.offer.can_apply:
            return "Nothing can be repaired safely: the right values cannot be known."
        if self.read_only:
            return "Read-only mode: repairs are disabled."
        return (
            "Nothing is written until you press W. The write is compare-and-swap (refused if "
            "the file changed), journalled, and can be undone (z) while nobody wrote after it."
        )

    def preview(self) -> Text:
        """The plan as sections: the fields (now -> proposed, why), what the newer write keeps,
        what cannot be known. Every value is the file's, cleaned and shown as plain text."""
        from phasewatch.core.decide.plans import show  # the writer's package: on first use

        plan = self.offer.plan
        body = Text()

        def add(part: str, style: str = "", end: str = "") -> None:
            body.append(one_line(part), style=style)
            body.append(end)

        source = (
            f", from state_version {plan.from_version}" if plan.from_version is not None else ""
        )
        add(
            f"{len(plan.changes)} field(s) to write over state_version {plan.base_version}{source}",
            "bold",
            "\n",
        )
        for c in plan.changes:
            body.append("  ")
            add(c.label, "bold", "  ")
            add(show(c.current), end=" -> ")
            add(show(c.proposed), "bold", "  ")
            add(f"({c.reason})", "dim", "\n")
        if plan.kept:
            add(f"Kept from the newer write ({len(plan.kept)}):", "bold", "\n")
            for path in plan.kept[:KEPT_SHOWN]:
                body.append("  ")
                add(path, end="\n")
            if len(plan.kept) > KEPT_SHOWN:
                add(f"  ... and {len(plan.kept) - KEPT_SHOWN} more", end="\n")
        if plan.unknown:
            add("Not repaired (the right value cannot be known):", "bold", "\n")
            for u in plan.unknown:
                body.append("  ")
                add(u.label, "bold", ": ")
                add(u.why, end="\n")
        body.rstrip()
        return body

    def compose(self) -> ComposeResult:
        body = self.preview()
        with Vertical() as box:
            box.border_title = plain_content(self.title_text)
            with VerticalScroll():
                yield Static(body, markup=False)
            yield Static(Text(self.note, style="dim"), classes="dialog-message", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(Text("Cancel (Esc)"), id="cancel")
                if self.can_write:
                    yield Button(Text("Write repair (W)"), id="write", variant="warning")

    def on_mount(self) -> None:
        self.query_one("#cancel", Button).focus()
        if self.guard is not None:
            self.guard.arm()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "write":
            self.action_write()
        else:
            self.action_cancel()

    def action_write(self) -> None:
        if not self.can_write or (self.guard is not None and self.guard.refuses(self)):
            return
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)
