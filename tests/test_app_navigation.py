"""Every screen key goes where it says, from every screen (issue 16.1): the data screens ``1``-``6``
and the review console's ``w``, ``e``, ``a`` (pushed over a data screen)."""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

import pytest
from phasewatch.tui.app import DATA_SCREENS, PhasewatchApp
from phasewatch.tui.screens.console_base import ConsoleScreen

from tests import factories as F
from tests.helpers.app import frozen_clock, screen_text, wait_until, write_state

SIZE = (100, 30)
DATA_KEYS = dict(zip("1234567", DATA_SCREENS, strict=True))
CONSOLE_KEYS = {"w": "attention", "e": "escalations", "a": "plan"}


@pytest.fixture
def waiting_project(tmp_path: Path) -> Path:
    """A project where each console screen has something to show (an escalation waits), and no
    review gate (its panel would be opened over everything)."""
    state = F.escalate(F.feature_state())
    write_state(tmp_path / ".isdlc" / "state.json", state)
    return tmp_path


def where(app: PhasewatchApp) -> str:
    """The name of the screen the user sees."""
    screen = app.screen
    if isinstance(screen, ConsoleScreen):
        return screen.NAME
    for name, data in app.data_screens.items():
        if data is screen:
            return name
    return type(screen).__name__


async def press(pilot, key: str, expected: str) -> None:
    await pilot.press(key)
    await wait_until(pilot, lambda: where(pilot.app) == expected)
    # Nothing is left behind on the stack: one data screen, at most one console screen on top.
    stack = pilot.app.screen_stack
    assert not any(isinstance(s, ConsoleScreen) for s in stack[:-1]), stack


SOURCES = {**DATA_KEYS, **CONSOLE_KEYS}


def every_pair_walk(keys: list[str]) -> list[str]:
    """A key sequence in which every ordered pair of ``keys`` (a key pressed twice included)
    follows each other exactly once: an Euler circuit of the complete graph with loops
    (Hierholzer), ``len(keys) ** 2 + 1`` keys long."""
    unused = {k: list(keys) for k in keys}
    stack, circuit = [keys[0]], []
    while stack:
        if unused[stack[-1]]:
            stack.append(unused[stack[-1]].pop())
        else:
            circuit.append(stack.pop())
    return circuit[::-1]


def walk_parts(walk: list[str], parts: int) -> list[list[str]]:
    """``walk`` cut into ``parts`` runs of keys, each starting on the key the one before ended
    on (so every pair stays inside one part)."""
    size = -(-(len(walk) - 1) // parts)
    return [walk[i : i + size + 1] for i in range(0, len(walk) - 1, size)]


#: The walk in parts xdist can spread (one app each, ~4 s quiet): one app for all 81 pairs held
#: a worker ~11 s quiet and ~34 s under load.
WALK_PARTS = walk_parts(every_pair_walk(list(SOURCES)), 3)


def test_the_walk_presses_every_pair_of_keys_once() -> None:
    keys = list(SOURCES)
    pairs = [pair for part in WALK_PARTS for pair in pairwise(part)]
    assert len(pairs) == len(set(pairs)) == len(keys) ** 2
    assert set(pairs) == {(a, b) for a in keys for b in keys}
    assert len(WALK_PARTS) == 3


@pytest.mark.parametrize("part", range(len(WALK_PARTS)))
async def test_every_screen_key_works_from_every_screen(waiting_project: Path, part: int) -> None:
    """The apps walk the whole matrix: each key is pressed once from each screen. A part first
    goes to its first key's screen from the overview, where the app opens."""
    first, *keys = WALK_PARTS[part]
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        assert where(app) == "overview"
        await press(pilot, first, SOURCES[first])
        for key in keys:
            await press(pilot, key, SOURCES[key])


async def test_a_screen_key_after_going_away_and_back_returns_to_the_data_screen(
    waiting_project: Path,
) -> None:
    """The issue's own sequence: ``e`` over the overview, ``2``, then ``1`` is the Overview (not
    the escalations screen it was opened over)."""
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        for console_key, name in CONSOLE_KEYS.items():
            await press(pilot, console_key, name)
            await press(pilot, "2", "hooks")
            await press(pilot, "1", "overview")
            await press(pilot, console_key, name)
            await press(pilot, "1", "overview")


# ---------------------------------------------------------------------------- help (?)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
async def test_help_lists_every_key_by_screen_decisions_first(waiting_project: Path, size) -> None:
    from phasewatch.tui.screens.escalations import EscalationsScreen
    from phasewatch.tui.screens.help import HelpScreen
    from phasewatch.tui.screens.review import GatePanel

    from tests.helpers.app import screen_text

    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await press(pilot, "e", "escalations")
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        sections = list(dict.fromkeys(title for _k, _d, title in help_screen.rows))
        assert sections[:4] == [
            "Review gate panel (g opens it when a gate waits)",
            "Escalations (e)",
            "Plan approval (a)",
            "Waiting for a human (w)",
        ]
        assert sections[4] == "Everywhere"
        assert not any(name.endswith(("Screen", "Table", "Panel")) for name in sections)
        for title in sections:  # each key once per screen
            keys = [k for keys, _d, w in help_screen.rows if w == title for k in keys.split(", ")]
            assert len(keys) == len(set(keys)), (title, keys)
        listed = {(w, d) for _k, d, w in help_screen.rows}
        for cls, title in ((GatePanel, sections[0]), (EscalationsScreen, sections[1])):
            for binding in cls.BINDINGS:
                if binding.show:  # type: ignore[union-attr]
                    assert (title, binding.description) in listed  # type: ignore[union-attr]
        # readable at 80x24: the gate's keys are on the first screen, the box inside the screen
        shown = screen_text(app)
        for words in ("Continue", "Redo", "Review gate panel"):
            assert words in shown, shown
        box = help_screen.query_one("#help").region
        assert box.right <= size[0] and box.bottom <= size[1]
        await pilot.press("escape")
        await wait_until(pilot, lambda: where(app) == "escalations")


def test_one_list_of_data_screens_makes_the_keys_the_help_and_the_config_names(
    tmp_path: Path,
) -> None:
    """DATA_SCREENS is the one list: each screen has its number key (shown in the footer and
    under "Everywhere" in the help), a name the config's ``default_screen`` accepts, and a class
    the screens package hands out; the config accepts no other name."""
    from typing import get_args

    import phasewatch.tui.screens as screens
    from phasewatch.core.config import Screen
    from phasewatch.tui.app import screen_class

    assert list(get_args(Screen)) == list(DATA_SCREENS)
    app = PhasewatchApp(tmp_path, watch=False)
    everywhere = dict(app.help_sections())["Everywhere"]
    for key, (name, screen) in enumerate(DATA_SCREENS.items(), start=1):
        bindings = [b for b in PhasewatchApp.BINDINGS if getattr(b, "key", None) == str(key)]
        assert [(b.action, b.description) for b in bindings] == [  # type: ignore[union-attr]
            (f"show('{name}')", screen.label)
        ]
        assert bindings[0] in everywhere
        cls = screen_class(name)
        assert (name, screen.title) == (cls.NAME, cls.TITLE)
        assert getattr(screens, cls.__name__) is cls


# ---------------------------------------------------------------------------- first screen

PLAN = """# TDD Task: Rate limit

**Status:** pending
**Created:** 2026-03-04T09:00:00.000Z
**Last Updated:** 2026-03-04T09:05:00.000Z

## Slice 1: Token bucket

**Status:** pending
"""
REGISTRY = "| Plugin Name | Status | Version |\n|---|---|---|\n| GainKnob | 💡 Ideated | - |\n"


@pytest.mark.parametrize(
    ("files", "opens", "hint"),
    [
        ({".tdd-progress.md": PLAN}, "tdd", "the TDD plan (press 5)"),
        ({"PLUGINS.md": REGISTRY}, "plugins", "the plugin registry (press 6)"),
        ({}, "overview", "phasewatch demo"),
    ],
    ids=["tdd-only", "plugins-only", "empty"],
)
async def test_a_project_without_isdlc_opens_where_its_data_is(
    tmp_path: Path, files: dict[str, str], opens: str, hint: str
) -> None:
    from phasewatch.widgets.header import OverviewHeader

    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await wait_until(pilot, lambda: where(app) == opens)
        await press(pilot, "1", "overview")
        header = app.data_screens["overview"].query_one(OverviewHeader)
        await wait_until(pilot, lambda: hint in header.text)


# ---------------------------------------------------------------------------- footer, toasts


async def test_the_footer_keeps_help_and_quit_first_on_every_screen(waiting_project: Path) -> None:
    from phasewatch.widgets.footer import KeyFooter

    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        for key, name in SOURCES.items():
            await press(pilot, key, name)
            await pilot.pause()
            keys = [k.key for k in app.screen.query_one(KeyFooter).items]
            assert keys[:2] == ["question_mark", "q"], (name, keys)


async def test_new_findings_of_one_update_make_one_short_toast(tmp_path: Path) -> None:
    state = F.feature_state()
    write_state(tmp_path / ".isdlc" / "state.json", state)
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watcher_options={"reconcile_interval": 0.3})
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        overview = app.data_screens["overview"]
        key = state["active_workflow"]["current_phase"]
        broken = F.setpath(F.bump(state), f"phases.{key}.status", "pending")
        broken = F.setpath(broken, "current_phase", state["active_workflow"]["phases"][0])
        write_state(tmp_path / ".isdlc" / "state.json", broken)
        await wait_until(pilot, lambda: bool(overview.notified))  # type: ignore[attr-defined]
        await pilot.pause(0.5)
        assert len(overview.notified) == 1  # type: ignore[attr-defined]
        toasts = list(app.screen.query("Toast"))
        assert len(toasts) == 1
        assert toasts[0].region.y <= 2  # at the top: the keys and the status bar stay clear
        assert toasts[0].region.height <= 4


async def test_help_in_read_only_mode_says_the_decisions_are_disabled(
    waiting_project: Path,
) -> None:
    from phasewatch.tui.screens.help import HelpScreen

    app = PhasewatchApp(waiting_project, read_only=True, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await pilot.press("question_mark")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpScreen))
        titles = list(dict.fromkeys(title for _k, _d, title in app.screen.rows))
        assert all("read-only: decisions disabled" in t for t in titles[:3]), titles
        assert "read-only" not in titles[3]  # the waiting list still opens


async def test_screens_wear_a_new_theme_and_a_first_visit_refreshes_no_css(
    waiting_project: Path,
) -> None:
    """A screen built or shown for the first time is styled as it mounts: no full CSS refresh
    (reparse, restyle every node) on its first visits. A theme change still reaches every
    screen: those shown before it, one built in the same moment, one built after it."""
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        refreshes: list[int] = []
        full_refresh = app.refresh_css

        def counted(animate: bool = True) -> None:
            refreshes.append(1)
            full_refresh(animate)

        app.refresh_css = counted  # type: ignore[method-assign]
        for key in "2121313":
            await press(pilot, key, DATA_KEYS[key])
        assert refreshes == []
        dark = app.screen.styles.background

        app.action_toggle_theme()
        app.action_show("timeline")  # built in the same moment as the theme change
        await wait_until(pilot, lambda: where(app) == "timeline")
        await pilot.pause()
        light = app.screen.styles.background
        assert light != dark and refreshes
        for key in "123456":  # shown before the change (1, 2, 3), built after it (5, 6)
            await press(pilot, key, DATA_KEYS[key])
            await pilot.pause()
            assert app.screen.styles.background == light, DATA_KEYS[key]


async def test_a_screen_is_restyled_whole_on_resume_only_once_it_has_been_away(
    waiting_project: Path,
) -> None:
    """A data screen's first show styles its widgets as they mount; Textual's restyle of the
    whole screen at resume is left out then (it did it twice), and kept from the next show on
    (whatever changed while the screen was away)."""
    app = PhasewatchApp(waiting_project, clock=frozen_clock, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        restyled: list[object] = []
        update_styles = app.update_styles

        def counted(node, animate: bool = True) -> None:  # type: ignore[no-untyped-def]
            restyled.append(node)
            update_styles(node, animate=animate)

        app.update_styles = counted  # type: ignore[method-assign]
        for key in "23456":
            await press(pilot, key, DATA_KEYS[key])
            await pilot.pause()
            assert app.screen not in restyled, DATA_KEYS[key]
        for key in "23456":
            restyled.clear()
            await press(pilot, key, DATA_KEYS[key])
            await pilot.pause()
            assert app.screen in restyled, DATA_KEYS[key]


# ------------------------------------------------------------ small terminals (80x24)


def visible_footer_keys(app: PhasewatchApp) -> dict[str, object]:
    """The footer's keys the user can see whole: key -> its item, left of the palette's key."""
    from phasewatch.widgets.footer import KeyFooter

    return {item.key: item for item in app.screen.query_one(KeyFooter).in_sight()}


async def test_at_80x24_the_gate_and_waiting_keys_are_in_the_footer_and_work(
    tmp_path: Path,
) -> None:
    from phasewatch.tui.screens.review import GatePanel

    write_state(tmp_path / ".isdlc" / "state.json", F.escalate(F.gate_presented(F.feature_state())))
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await wait_until(pilot, lambda: {"g", "w", "e"} <= set(visible_footer_keys(app)))
        await pilot.press("g")
        await wait_until(pilot, lambda: isinstance(app.screen, GatePanel))
        await pilot.press("escape")
        await wait_until(pilot, lambda: where(app) == "overview")
        await press(pilot, "e", "escalations")
        await press(pilot, "1", "overview")
        await press(pilot, "w", "attention")


def text(app: PhasewatchApp) -> str:
    return screen_text(app).lower()


async def test_with_nothing_waiting_the_decision_keys_are_hidden_and_say_so(
    tmp_path: Path,
) -> None:
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.updates_applied > 0)
        await wait_until(pilot, lambda: "question_mark" in visible_footer_keys(app))
        assert not {"g", "w", "e", "a"} & set(visible_footer_keys(app))
        await pilot.press("g")  # no gate: nothing to open
        await pilot.pause()
        assert where(app) == "overview"
        for key, name in CONSOLE_KEYS.items():  # still reachable, and they say nothing waits
            await press(pilot, key, name)
            await wait_until(pilot, lambda: re.search(r"\b(nothing|no pending)\b", text(app)))
            await press(pilot, "1", "overview")


def test_help_explains_every_column_of_the_overviews_matrix() -> None:
    """The matrix's headers are the file's own names (``phase_status[k]``...) and the three
    pointers' letters (``current A I T``): ``?`` says what each means in plain words."""
    from phasewatch.tui.screens.help import help_text
    from phasewatch.widgets.location_matrix import COLUMNS, POINTERS_HEADER

    lines = help_text([]).plain.splitlines()
    for _key, header in COLUMNS:
        (line,) = [x for x in lines if x.strip().startswith(header + " ")]
        assert len(line.strip()) > len(header) + 10, line  # a meaning follows the header
    pointers = next(x for x in lines if x.strip().startswith(POINTERS_HEADER))
    assert "A: active_workflow.current_phase" in pointers and "T: the top-level" in pointers
