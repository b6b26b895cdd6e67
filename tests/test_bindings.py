"""phasewatch.tui.bindings: the footer is refreshed only when a binding's availability changes;
phasewatch.widgets.footer: the one-widget footer (its keys, their order, width, mouse, theme)."""

from __future__ import annotations

from typing import ClassVar

from phasewatch.tui.bindings import binding_states, refresh_bindings_if_changed
from phasewatch.widgets.footer import KeyFooter
from rich.color import Color
from rich.style import Style
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, DataTable, Footer


class Dynamic(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("x", "discard('lock')", "Discard"),
        ("q", "quit", "Quit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.waiting = False
        self.refreshes = 0

    def compose(self) -> ComposeResult:
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "approve":
            return self.waiting
        if action == "discard":
            return parameters == ("lock",) and self.waiting
        return True


def count_refreshes(app: Dynamic) -> None:
    """Count the refreshes of the app's screen's bindings (what the footer listens to)."""
    screen = app.screen
    refresh = screen.refresh_bindings

    def counted() -> None:
        app.refreshes += 1
        refresh()

    screen.refresh_bindings = counted  # type: ignore[method-assign]


async def test_refreshes_only_when_an_answer_changes() -> None:
    app = Dynamic()
    async with app.run_test() as pilot:
        await pilot.pause()
        count_refreshes(app)
        assert binding_states(app, app.BINDINGS) == (False, False, True)
        base = app.refreshes
        assert refresh_bindings_if_changed(app, app.BINDINGS) is True  # first call: unknown
        assert refresh_bindings_if_changed(app, app.BINDINGS) is False
        assert refresh_bindings_if_changed(app, app.BINDINGS) is False
        assert app.refreshes == base + 1
        app.waiting = True  # the data changed what is available
        assert refresh_bindings_if_changed(app, app.BINDINGS) is True
        assert binding_states(app, app.BINDINGS) == (True, True, True)
        assert app.refreshes == base + 2
        await pilot.pause()
        keys = {b.key for _, b, enabled, _ in app.screen.active_bindings.values() if enabled}
        assert {"a", "x"} <= keys


class FooterApp(Dynamic):
    def compose(self) -> ComposeResult:
        yield Button("one")
        yield Button("two")
        yield KeyFooter()


def footer_key_states(app: App[None]) -> dict[str, bool]:
    return {item.key: item.enabled for item in app.query_one(KeyFooter).items}


async def test_key_footer_rebuilds_only_when_its_keys_change() -> None:
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        assert footer_key_states(app) == {
            "q": True,
            "ctrl+p": True,
        }  # False from check_action: hidden
        built = footer.rebuilds
        assert built >= 1
        # focus moves and explicit refreshes publish bindings_updated: same keys, no rebuild
        await pilot.press("tab")
        app.refresh_bindings()
        app.screen.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert footer.rebuilds == built
        # an availability change shows, and costs one rebuild
        app.waiting = True
        app.refresh_bindings()
        await pilot.pause()
        await pilot.pause()
        assert footer_key_states(app) == {"a": True, "x": True, "q": True, "ctrl+p": True}
        assert footer.rebuilds == built + 1


async def test_key_footer_draws_its_keys_in_its_first_frame_as_one_widget() -> None:
    """No widget per key: the footer draws the screen's keys itself, from its first frame,
    in Textual's look (`` key `` then ``description ``, the palette's key at the right)."""
    app = FooterApp()
    async with app.run_test(size=(60, 10)) as pilot:
        footer = app.query_one(KeyFooter)
        await pilot.pause()
        assert not footer.children and footer.rebuilds == 1
        line = footer.render_line(0).text
        assert line.startswith(" q Quit ") and line.endswith("▏^p palette ") and len(line) == 60


class TableApp(Dynamic):
    def compose(self) -> ComposeResult:
        yield Button("one")
        yield DataTable()
        yield KeyFooter()


async def test_focus_on_a_widget_whose_bindings_show_no_key_rebuilds_nothing() -> None:
    app = TableApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        built = footer.rebuilds
        await pilot.press("tab")  # to the table: its cursor keys, none shown
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.focused, DataTable) and footer.rebuilds == built


class ShownKeyButton(Button):
    BINDINGS: ClassVar[list[BindingType]] = [("s", "app.bell", "Shown")]


class ShownKeyApp(Dynamic):
    def compose(self) -> ComposeResult:
        yield ShownKeyButton("one")
        yield KeyFooter()


async def test_a_focused_widget_with_a_key_to_show_is_in_the_footer() -> None:
    app = ShownKeyApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.focused, ShownKeyButton)
        assert "s" in footer_key_states(app)


def contrast(style: Style) -> float:
    """WCAG contrast ratio of a style's text against its background."""

    def luminance(colour: Color) -> float:
        r, g, b = (c / 255 for c in colour.get_truecolor())
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    assert style.color is not None and style.bgcolor is not None
    a, b = sorted((luminance(style.color), luminance(style.bgcolor)), reverse=True)
    return (a + 0.05) / (b + 0.05)


class ManyKeys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "bell", "Bell"),
        Binding("z", "nothing", "Disabled"),
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "bell", "Help"),  # (the same action as b: shown once)
        *[Binding(str(n), "bell", f"Key {n}") for n in range(3)],
        Binding("y", "other", "Esc\x1b[31m here"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.bells = 0

    def compose(self) -> ComposeResult:
        yield KeyFooter()

    def bell(self) -> None:
        self.bells += 1

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "nothing" else True


async def test_key_footer_orders_cuts_and_cleans_its_keys() -> None:
    """``?`` and ``q`` first; one key per action; what does not fit is cut at the right, left
    of the palette's key; a description is cleaned of escapes like every string shown."""
    app = ManyKeys()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        keys = [item.key for item in footer.items]
        assert keys[:2] == ["q", "b"]  # "?" is bound to b's action after b: b shows
        assert keys[-1] == "ctrl+p" and "question_mark" not in keys
        line = footer.render_line(0).text
        assert len(line) == 40 and line.endswith("▏^p palette ")
        visible = [item.key for item in footer.in_sight()]
        assert visible[0] == "q" and visible[-1] == "ctrl+p" and len(visible) < len(keys)
        assert all("\x1b" not in item.description for item in footer.items)


async def test_a_click_on_a_key_presses_it_and_a_disabled_one_rings() -> None:
    app = ManyKeys()
    async with app.run_test(size=(120, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        index = [item.key for item in footer.items].index("b")
        x, _width = footer.spans[index]
        assert await pilot.click(KeyFooter, offset=(x + 1, 0))
        await pilot.pause()
        assert app.bells == 1
        disabled = [item.key for item in footer.items].index("z")
        assert not footer.items[disabled].enabled
        rang: list[int] = []
        app.bell = lambda: rang.append(1)  # type: ignore[method-assign]
        assert await pilot.click(KeyFooter, offset=(footer.spans[disabled][0] + 1, 0))
        await pilot.pause()
        assert rang == [1] and app.bells == 1


async def test_the_key_under_the_mouse_is_highlighted_and_themes_restyle_the_keys() -> None:
    app = ManyKeys()
    async with app.run_test(size=(120, 5)) as pilot:
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        x, _ = footer.spans[1]
        before = footer.render_line(0)
        await pilot.hover(KeyFooter, offset=(x + 1, 0))
        await pilot.pause()
        assert footer.hovered == 1
        hovered = footer.render_line(0)
        assert hovered.text == before.text and list(hovered) != list(before)
        item = footer.items[1]
        themed: dict[str, list[Style | None]] = {}
        for theme in ("textual-dark", "textual-light"):  # a highlight, and as readable
            app.theme = theme
            await pilot.pause()
            footer.hovered = None
            plain = [seg for seg in footer.render_line(0) if seg.text.strip()]
            footer.hovered = 1
            line = list(footer.render_line(0))
            marked = [seg for seg in line if seg.style.bgcolor != line[0].style.bgcolor]
            assert "".join(seg.text for seg in marked) == f" {item.key_display} {item.description} "
            for seg in marked:  # keeps most of its contrast (white on white kept 1/5 of it)
                was = next(p for p in plain if p.text == seg.text)
                assert contrast(seg.style) >= 0.6 * contrast(was.style), (theme, seg.text)
            themed[theme] = [seg.style for seg in plain]
        assert themed["textual-dark"] != themed["textual-light"]  # the theme's colours
        await pilot.hover(KeyFooter, offset=(footer.spans[-1][0] - 1, 0))  # past the keys
        await pilot.pause()
        assert footer.hovered is None


async def test_the_footer_fits_every_width() -> None:
    """At every width: one line exactly that wide, the palette's key whole at the right when it
    fits, keys only left of it, and a click anywhere lands on the key drawn there."""
    app = ManyKeys()
    async with app.run_test(size=(130, 5)) as pilot:
        footer = app.query_one(KeyFooter)
        for width in (*range(1, 40), 60, 80, 100, 130):
            await pilot.resize_terminal(width, 5)
            await pilot.pause()
            line = footer.render_line(0)
            assert line.cell_length == footer.size.width == width
            palette_x, palette_width = footer.spans[-1]
            if width >= len("▏^p palette "):
                assert line.text.endswith("▏^p palette ") and footer.in_sight()[-1].palette
            assert palette_x + palette_width == width
            for index, (x, drawn) in enumerate(footer.spans[:-1]):
                if drawn:
                    assert x + drawn <= palette_x
                    assert footer.item_at(x) == index
                    assert line.text[x:].startswith(f" {footer.items[index].key_display}"[:drawn])
            whole = [item.key for item in footer.in_sight() if not item.palette]
            assert whole == [item.key for item in footer.items][: len(whole)]  # a prefix
