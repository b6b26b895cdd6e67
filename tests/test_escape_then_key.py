"""Escape then a key, typed within Textual's escape delay, acts as the two keys (issue 42).

The keys are made by Textual's own input parser from the bytes a terminal sends, so what is
tested is what the driver hands the app."""

from __future__ import annotations

import string
from pathlib import Path

from phasewatch.core.decide import journal_path, read_journal
from phasewatch.tui.escape_keys import typed_after_escape
from phasewatch.tui.screens.dialogs import TextPromptDialog
from phasewatch.tui.screens.help import HelpScreen
from phasewatch.tui.screens.review import GatePanel
from textual import events
from textual._xterm_parser import XTermParser

from tests import factories as F
from tests.helpers.app import make_app, record_calls, wait_until, write_state

STATE = Path(".isdlc") / "state.json"
SIZE = (140, 44)


def parsed(data: str) -> list[events.Key]:
    """The keys Textual's parser reads from ``data`` typed at once (the input then ends, as
    when the escape delay passes: the parser sends what it holds)."""
    parser = XTermParser()
    tokens = [*parser.feed(data), *parser.feed("")]
    return [t for t in tokens if isinstance(t, events.Key)]


def test_textual_reads_escape_then_a_key_as_one_key_which_is_split_back():
    recovered, lost = {}, set()
    for char in string.ascii_letters + string.digits + string.punctuation:
        keys = parsed("\x1b" + char)
        assert len(keys) == 1, (char, keys)  # one key: the Escape is not seen by itself
        split = typed_after_escape(keys[0], ())
        if split is None:
            lost.add(char)
            continue
        name, typed = split
        assert typed == char
        alone = parsed(char)[0]  # the key typed by itself, as the app's bindings know it
        assert (name, typed) == (alone.key, alone.character), char
        recovered[char] = keys[0].key
    assert recovered["r"] == "alt+r" and recovered["R"] == "alt+shift+r"
    assert recovered["2"] == "trade_mark_sign"  # (Textual's table of macOS Option keys)
    # ctrl+left/right, and punctuation whose Escape Textual drops: docs/design.md says so
    assert lost == {"b", "f"} | set(string.punctuation) - {"-", "="}


def test_a_bound_alt_key_and_an_option_character_typed_in_a_text_box_stay_as_they_are():
    alt_r = parsed("\x1br")[0]
    assert typed_after_escape(alt_r, {"alt+r"}) is None
    assert typed_after_escape(alt_r, (), typing=True) == ("r", "r")
    tm = parsed("\x1b2")[0]
    assert typed_after_escape(tm, (), typing=True) is None
    assert typed_after_escape(parsed("r")[0], ()) is None


async def type_escape_then(pilot, app, char: str) -> None:
    for key in parsed("\x1b" + char):
        app.post_message(key)
    await pilot.pause()


async def test_escape_closes_the_help_and_the_next_key_acts_on_the_screen_below(tmp_path: Path):
    write_state(tmp_path / STATE, F.feature_state())
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await type_escape_then(pilot, app, "2")  # read as "™"
        await wait_until(pilot, lambda: app.screen.name == "hooks")
        assert not any(isinstance(s, HelpScreen) for s in app.screen_stack)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await type_escape_then(pilot, app, "q")  # read as "alt+q": closes the help, then quits
        await wait_until(pilot, lambda: not app.is_running)


async def test_escape_from_a_dialog_does_not_let_the_next_key_decide_on_the_panel(
    tmp_path: Path,
):
    """Redo's prompt over the gate panel; Escape then ``r`` typed quickly: the prompt closes,
    and ``r`` (the panel's "review" decision) lands on a panel the user did not see yet, so it
    decides nothing. The same ``r`` pressed once the panel has been seen decides."""
    write_state(tmp_path / STATE, F.build_state())
    app = make_app(tmp_path, arm_delay=0.5)
    ticks = [100.0]
    app.review.monotonic = lambda: ticks[0]
    toasts, _bells = record_calls(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.review.waiting_gate() is not None)
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GatePanel))
        panel = app.screen
        ticks[0] += 1
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, TextPromptDialog))
        ticks[0] += 1  # the prompt has been up a while; the panel's own guard is long ready
        await type_escape_then(pilot, app, "r")
        await wait_until(pilot, lambda: app.screen is panel)
        await wait_until(pilot, lambda: any("Key ignored" in t["message"] for t in toasts))
        assert app.review.results == [] and read_journal(journal_path(tmp_path)) == []
        ticks[0] += 1
        await pilot.press("r")
        await wait_until(pilot, lambda: bool(app.review.results))
        assert app.review.results[0].ok
