"""The Chooser: the hook screen's filters (one value among a few, or any), as a Select answers."""

from __future__ import annotations

from typing import Any

from phasewatch.widgets.chooser import ANY, Chooser
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import Input, OptionList

from tests.helpers.app import screen_text, wait_until

HOSTILE = "hook[@click=app.quit]x[/]"


def options(*values: str) -> list[tuple[Text, Any]]:
    return [(Text(v), v) for v in values]


class ChooserApp(App[None]):
    CSS = "Screen { background: $background; }"  # an app's own rule, as phasewatch's app.tcss

    def __init__(self) -> None:
        super().__init__()
        self.changes: list[Any] = []
        self.quit_called = False

    def compose(self) -> ComposeResult:
        yield Input(placeholder="the screen below", id="before")
        yield Chooser(options("allow", "block", HOSTILE), prompt="event: any", id="events")

    def on_chooser_changed(self, event: Chooser.Changed) -> None:
        self.changes.append(event.value)

    async def action_quit(self) -> None:  # a label's markup must never run this
        self.quit_called = True


async def test_the_keyboard_opens_the_list_and_picks():
    app = ChooserApp()
    async with app.run_test(size=(80, 20)) as pilot:
        chooser = app.query_one(Chooser)
        assert "event: any" in screen_text(app) and chooser.value is ANY
        chooser.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.focused, OptionList))
        await pilot.press("down", "down", "enter")  # any -> allow -> block
        await wait_until(pilot, lambda: chooser.value == "block")
        assert app.changes == ["block"] and app.focused is chooser
        await wait_until(pilot, lambda: "block" in screen_text(app))
        assert "event: any" not in screen_text(app)
        await pilot.press("space")  # open again: the current value is highlighted
        await wait_until(pilot, lambda: isinstance(app.focused, OptionList))
        assert app.focused.highlighted == 2
        await pilot.press("up", "up", "enter")  # back to any
        await wait_until(pilot, lambda: chooser.value is ANY)
        assert app.changes == ["block", ANY]


async def test_escape_and_a_click_outside_close_the_list_unchanged():
    app = ChooserApp()
    async with app.run_test(size=(80, 20)) as pilot:
        chooser = app.query_one(Chooser)
        chooser.value = "allow"
        await pilot.pause()
        for close in ("escape", "click"):
            await pilot.click(Chooser)
            await wait_until(pilot, lambda: isinstance(app.focused, OptionList))
            await pilot.press("down")
            if close == "escape":
                await pilot.press("escape")
            else:
                await pilot.click(offset=(79, 19))
            await wait_until(pilot, lambda: not isinstance(app.focused, OptionList))
            assert chooser.value == "allow"
        assert app.changes == ["allow"]


async def test_labels_are_text_never_markup():
    app = ChooserApp()
    async with app.run_test(size=(80, 20)) as pilot:
        chooser = app.query_one(Chooser)
        chooser.value = HOSTILE
        await wait_until(pilot, lambda: HOSTILE in screen_text(app))
        await pilot.click(Chooser)
        await wait_until(pilot, lambda: isinstance(app.focused, OptionList))
        assert screen_text(app).count(HOSTILE) == 2  # the box and the open list
        assert "the screen below" in screen_text(app)  # the list opens over the screen, not alone
        await pilot.press("escape")
        await pilot.pause()
        assert not app.quit_called


async def test_new_options_keep_a_value_still_offered_and_drop_one_gone():
    app = ChooserApp()
    async with app.run_test(size=(80, 20)) as pilot:
        chooser = app.query_one(Chooser)
        chooser.value = "block"
        chooser.set_options(options("block", "warn"))
        assert chooser.value == "block"
        chooser.set_options(options("warn"))
        assert chooser.value is ANY
        await wait_until(pilot, lambda: app.changes == ["block", ANY])
        await wait_until(pilot, lambda: "event: any" in screen_text(app))


async def test_a_value_not_offered_is_refused():
    app = ChooserApp()
    async with app.run_test(size=(80, 20)):
        chooser = app.query_one(Chooser)
        try:
            chooser.value = "nope"
        except ValueError:
            pass
        else:
            raise AssertionError("a value not among the options was taken")
        assert chooser.value is ANY
