"""phasewatch.tui.bindings: the footer is refreshed only when a binding's availability changes (each
refresh recomposes every footer key: it was most of the cost of an update)."""

from __future__ import annotations

from typing import ClassVar

from phasewatch.tui.bindings import binding_states, refresh_bindings_if_changed
from phasewatch.widgets.footer import KeyFooter
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Button, DataTable, Footer
from textual.widgets._footer import FooterKey


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
    return {key.key: not key.disabled for key in app.query(FooterKey)}


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


async def test_key_footer_builds_its_keys_once_as_it_mounts(monkeypatch) -> None:
    """Its first composition has the screen's keys: Textual's footer composes nothing until
    the screen publishes its bindings, then composes again with them all."""
    recomposed: list[KeyFooter] = []
    recompose = KeyFooter.recompose

    async def counted(self: KeyFooter) -> None:
        recomposed.append(self)
        await recompose(self)

    monkeypatch.setattr(KeyFooter, "recompose", counted)
    app = FooterApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        footer = app.query_one(KeyFooter)
        assert footer_key_states(app) == {"q": True, "ctrl+p": True}
        assert recomposed == [] and footer.rebuilds == 1


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


async def test_footer_keys_are_born_with_the_footers_compactness() -> None:
    """No key's class changes as the footer mounts it (Textual's keys start compact and take the
    footer's value as they mount: two restyles each); the classes are Textual's: compact only
    where the footer is, and the palette's key compact always."""
    from textual.dom import DOMNode

    changes: list[str] = []
    update = DOMNode.update_node_styles

    def counted(node: DOMNode, animate: bool = True) -> None:
        if isinstance(node, FooterKey):
            changes.append(node.key)
        update(node, animate)

    for compact in (False, True):
        app = FooterApp()
        async with app.run_test() as pilot:
            footer = app.query_one(KeyFooter)
            footer.compact = compact
            await pilot.pause()
            built = footer.rebuilds
            DOMNode.update_node_styles = counted  # type: ignore[method-assign]
            try:
                app.waiting = True  # two keys more: the footer builds its keys again
                refresh_bindings_if_changed(app, app.BINDINGS)
                await pilot.pause()
                await pilot.pause()
            finally:
                DOMNode.update_node_styles = update  # type: ignore[method-assign]
            assert footer.rebuilds == built + 1 and changes == []
            keys = list(app.query(FooterKey))
            assert len(keys) == 4
            for key in keys:
                palette = key.has_class("-command-palette")
                assert key.has_class("-compact") == (compact or palette), key.key
