"""Pilot tests of the plugin registry table (widgets/plugin_table.py), fed by the simulator."""

from __future__ import annotations

from pathlib import Path

from phasewatch.core.plugins import Registry, load_registry
from phasewatch.core.simulate.plugins import PluginPipeline, PluginStep
from phasewatch.core.sources import discover
from phasewatch.widgets._style import theme_styles
from phasewatch.widgets.plugin_table import COLUMN_KEYS, EMPTY_MESSAGE, PluginTable
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable, Static

PLUGINS = ("MinimalKick", "GainKnob", "TapeWarm")


class Harness(App):
    def __init__(self, registry: Registry | None) -> None:
        super().__init__()
        self.registry = registry
        self.messages: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield PluginTable(self.registry)

    def on_plugin_table_highlighted(self, message: PluginTable.Highlighted) -> None:
        self.messages.append(("highlighted", message.plugin))

    def on_plugin_table_selected(self, message: PluginTable.Selected) -> None:
        self.messages.append(("selected", message.plugin))


def play(directory: Path, until: int | None = None, **kw) -> tuple[PluginPipeline, PluginStep]:
    """Run the pipeline up to step ``until`` (or its first fault, when faults are given)."""
    pipeline = PluginPipeline(directory, **{"plugins": PLUGINS, **kw})
    last = None
    for last in pipeline.steps():
        if last.seq == until or (until is None and last.fault):
            break
    assert last is not None
    return pipeline, last


def registry_of(directory: Path) -> Registry:
    return load_registry(discover(directory))


def detail(widget: PluginTable) -> str:
    return str(widget.query_one("#plugins-detail", Static).render())


def header(widget: PluginTable) -> str:
    return str(widget.query_one("#plugins-header", Static).render())


def row_text(table: DataTable, plugin: str) -> str:
    """The painted text of a plugin's row (y = 1 + row index, under the header row)."""
    return table.render_line(1 + table.get_row_index(plugin)).text


async def test_rows_header_and_cells(tmp_path):
    play(tmp_path, until=16, seed=0)
    registry = registry_of(tmp_path)
    app = Harness(registry)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        widget = app.query_one(PluginTable)
        table = widget.table
        assert table.row_count == len(registry.plugins) == 3
        assert [table.coordinate_to_cell_key((i, 0)).row_key.value for i in range(3)] == [
            r.name for r in registry.plugins
        ]
        for rec in registry.plugins:
            cells = {k: table.get_cell(rec.name, k) for k in COLUMN_KEYS}
            assert all(isinstance(c, Text) for c in cells.values())
            assert cells["plugin"].plain == rec.name
            assert cells["table_status"].plain == rec.table.status.display
            assert cells["entry_status"].plain == rec.entry.status.display
            assert cells["findings"].plain == "0"
            if rec.handoff is not None:
                assert cells["checksums"].plain == "✓ ok"
                assert f"stage {rec.handoff.phase or rec.handoff.stage}" in cells["stage"].plain
                assert (rec.handoff.next_action or "—") in cells["next_action"].plain
            assert rec.name in row_text(table, rec.name)
            assert rec.table.status.display in row_text(table, rec.name)
        head = header(widget)
        assert "full entries" in head and "3 plugins" in head and "0 drift" in head
        numbering = {"contract-0-6": "stages numbered 0, 2-6", "unknown": "numbering unknown"}
        assert numbering[registry.numbering] in head
        assert not widget.query_one("#plugins-empty").display


async def test_drift_cells_are_highlighted_and_explained(tmp_path):
    _, step = play(tmp_path, faults={"plugin-drift"}, seed=2)
    registry = registry_of(tmp_path)
    drifted = registry.get(step.plugin)
    assert drifted is not None and any(d.column == "status" for d in drifted.drift)
    clean = next(r for r in registry.plugins if not r.drift)
    app = Harness(registry)
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        table = widget.table
        error = theme_styles(app)["error-cell"]
        for key in ("table_status", "entry_status"):
            assert table.get_cell(drifted.name, key).style == error
            assert table.get_cell(clean.name, key).style != error
        assert table.get_cell(drifted.name, "findings").plain == str(len(drifted.findings))
        # the painted row carries the highlight where the status text is (cursor elsewhere)
        widget.select_plugin(clean.name)
        await pilot.pause()
        strip = table.render_line(1 + table.get_row_index(drifted.name))
        hot = [s for s in strip if s.style and error.color in (s.style.color, s.style.bgcolor)]
        assert any("Stage" in s.text or "Working" in s.text or "Installed" in s.text for s in hot)
        drift_count = sum(len(r.drift) for r in registry.plugins)
        assert f"{drift_count} drift" in header(widget)

        # the detail pane explains the selected row
        assert "No drift, no findings." in detail(widget)
        await pilot.click("#plugins-table", offset=(2, 1 + table.get_row_index(drifted.name)))
        await pilot.pause()
        assert widget.selected == drifted.name
        text = detail(widget)
        status_cell = next(d for d in drifted.drift if d.column == "status")
        assert status_cell.reason in text
        assert status_cell.left in text and status_cell.right in text
        for finding in drifted.findings:
            assert finding.rule_id in text and finding.message in text
        assert ("highlighted", drifted.name) in app.messages

        # the colours follow the theme: switching it repaints the highlighted cells
        app.theme = "catppuccin-latte"  # a light theme with its own red
        await pilot.pause()
        other = theme_styles(app)["error-cell"]
        assert other != error
        assert table.get_cell(drifted.name, "table_status").style == other


async def test_tampered_contract_cell_and_detail(tmp_path):
    _, step = play(tmp_path, faults={"plugin-tamper"}, seed=0)
    app = Harness(registry_of(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        cell = widget.table.get_cell(step.plugin, "checksums")
        assert cell.plain == "✗ tampered" and cell.style == theme_styles(app)["error-cell"]
        assert widget.select_plugin(step.plugin)
        await pilot.pause()
        text = detail(widget)
        assert "PLG-CONTRACT-TAMPERED" in text and "mismatch" in text


async def test_keyboard_moves_the_selection_and_enter_selects(tmp_path):
    play(tmp_path, until=12, seed=0)
    registry = registry_of(tmp_path)
    app = Harness(registry)
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        widget.table.focus()
        await pilot.press("down")
        await pilot.pause()
        second = registry.plugins[1].name
        assert widget.selected == second
        assert second in detail(widget)
        await pilot.press("enter")
        await pilot.pause()
        assert ("selected", second) in app.messages


async def test_incremental_update_touches_only_the_plugin_that_moved(tmp_path):
    pipeline = PluginPipeline(tmp_path, plugins=PLUGINS, seed=0)
    steps = pipeline.steps()
    for step in steps:
        if step.seq == 20:
            break
    app = Harness(registry_of(tmp_path))
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        table = widget.table
        clears: list[bool] = []
        original_clear = table.clear
        table.clear = lambda *a, **k: (clears.append(True), original_clear(*a, **k))[1]
        checked = 0
        for step in steps:
            before = widget.registry
            new = registry_of(tmp_path)
            others = [n for n in widget._cells if n != step.plugin]
            old_cells = {(n, k): table.get_cell(n, k) for n in others for k in COLUMN_KEYS}
            stats = widget.update_registry(new)
            await pilot.pause()
            if before is not None and before.numbering == new.numbering:
                # a step rewrites PLUGINS.md whole, but only its plugin's row changes
                assert stats.touched_rows <= {step.plugin}, (step.line(), stats)
                assert stats.changed, step.line()
                assert all(table.get_cell(n, k) is c for (n, k), c in old_cells.items())
                checked += 1
            assert table.row_count == len(new.plugins)
        assert checked > 10
        assert clears == []
        # nothing changed: nothing is touched
        same = widget.update_registry(registry_of(tmp_path))
        assert same.touched_rows == set()


async def test_rows_are_removed_and_added_by_key(tmp_path):
    play(tmp_path, until=20, seed=0)
    registry = registry_of(tmp_path)
    app = Harness(registry)
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        table = widget.table
        first, *rest = registry.plugins
        kept = {n.name: table.get_cell(n.name, "plugin") for n in rest}
        smaller = Registry(registry.layout, list(rest), registry.findings, registry.numbering)
        stats = widget.update_registry(smaller)
        await pilot.pause()
        assert stats.removed == [first.name] and not stats.added and not stats.changed
        assert table.row_count == len(rest)
        assert all(table.get_cell(n, "plugin") is c for n, c in kept.items())
        stats = widget.update_registry(registry)
        await pilot.pause()
        assert stats.added == [first.name] and not stats.removed
        assert table.get_row_index(first.name) == len(rest)  # appended, others untouched


async def test_empty_state_when_there_is_no_registry(tmp_path):
    app = Harness(None)
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        empty = widget.query_one("#plugins-empty", Static)
        assert empty.display and not widget.table.display
        assert EMPTY_MESSAGE in str(empty.render())
        assert "no registry" in header(widget)
        play(tmp_path, until=3, seed=0)
        widget.update_registry(registry_of(tmp_path))
        await pilot.pause()
        assert not empty.display and widget.table.display and widget.table.row_count >= 1
        widget.update_registry(None)
        await pilot.pause()
        assert empty.display and widget.table.row_count == 0


EVIL_NAME = "Kick[@click=app.quit]x[/][TODO]z"
EVIL_STATUS = "[@click=app.quit]x[/] [TODO]"


async def test_markup_in_names_and_statuses_renders_literally_and_runs_nothing(tmp_path):
    play(tmp_path, until=10, seed=0)
    md = tmp_path / "PLUGINS.md"
    text = md.read_text(encoding="utf-8")
    header_row = "|-------------|--------|---------|--------------|\n"
    evil_row = f"| {EVIL_NAME} | {EVIL_STATUS} | 1.0.0 | 2025-11-13 |\n"
    md.write_text(text.replace(header_row, header_row + evil_row), encoding="utf-8")
    registry = registry_of(tmp_path)
    rec = registry.get(EVIL_NAME)
    assert rec is not None and rec.table is not None  # the parser kept the name intact
    app = Harness(registry)
    async with app.run_test(size=(120, 36)) as pilot:
        widget = app.query_one(PluginTable)
        table = widget.table
        assert table.get_cell(EVIL_NAME, "plugin").plain == EVIL_NAME
        assert table.get_cell(EVIL_NAME, "table_status").plain == EVIL_STATUS
        y = 1 + table.get_row_index(EVIL_NAME)
        painted = table.render_line(y).text
        assert EVIL_NAME in painted and EVIL_STATUS in painted
        assert widget.select_plugin(EVIL_NAME)
        await pilot.pause()
        explained = detail(widget)
        assert EVIL_NAME in explained and "PLG-ENTRY-MISSING" in explained
        # click where the "x" would be if the text were markup, and where it is literally
        for x in (1 + len("Kick"), 1 + EVIL_NAME.index("x[/]"), 2 + EVIL_NAME.index("x[/]")):
            await pilot.click("#plugins-table", offset=(x, y))
            await pilot.click("#plugins-detail", offset=(x - 1, 0))
        # and on the status cell, where "x" is painted
        ordered = list(table.columns.values())
        start = sum(c.get_render_width(table) for c in ordered[:1])
        await pilot.click("#plugins-table", offset=(start + 1 + EVIL_STATUS.index("x"), y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert EVIL_STATUS in table.render_line(y).text


async def test_plugins_screen_shows_hostile_directory_names_cleaned(tmp_path, monkeypatch):
    """Directory names with escapes and markup, through the app's plugins screen (key 6)."""
    from phasewatch.tui.screens.base import UpdateScreen
    from phasewatch.tui.screens.plugins import PluginsScreen

    from tests.helpers.app import make_app, screen_text, show, wait_until
    from tests.helpers.plugins import hostile_project

    mounts: list[str] = []
    base_mount = UpdateScreen.on_mount

    def counting(self) -> None:
        if isinstance(self, PluginsScreen):
            mounts.append(type(self).__name__)
        base_mount(self)

    monkeypatch.setattr(UpdateScreen, "on_mount", counting)
    applied: list[object] = []  # (the updates themselves: their ids stay unique)
    base_apply = PluginsScreen.apply_update

    def recording(self, update) -> None:
        applied.append(update)
        base_apply(self, update)

    monkeypatch.setattr(PluginsScreen, "apply_update", recording)

    hostile_project(tmp_path)
    app = make_app(tmp_path, watch=False)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await show(pilot, app, "6", "plugins")
        widget = screen.table
        await wait_until(pilot, lambda: widget.record("[@click=app.quit]Click") is not None)
        for name in ("Clip", "[@click=app.quit]Click", "[bold red]Loud", "Title"):
            cell = widget.table.get_cell(name, "plugin")
            assert isinstance(cell, Text) and cell.plain == name  # literal, never markup
        assert widget.select_plugin("[@click=app.quit]Click")
        await pilot.pause()
        assert "plugins/[@click=app.quit]Click" in detail(widget)
        svg = app.export_screenshot()
        text = screen_text(app)
        assert "[bold red]Loud" in text and "[@click=app.quit]Click" in text
        assert not any(ch in svg for ch in "\x1b\x07\x9b")
        await pilot.click("#plugins-detail")  # a click on the name runs no action
        await pilot.pause()
        assert app.is_running
        # Textual dispatches on_mount per class: the base handler runs once, and no update is
        # applied twice (the first read may be followed by the hook log's: a second update, the
        # registry unchanged, so the table is set once)
        assert mounts == ["PluginsScreen"]
        assert screen.applied == len(applied) == len({id(u) for u in applied}) >= 1
        assert screen.sets == 1


async def test_past_a_screenful_the_table_holds_bounded_rows_and_says_how_many_more(
    tmp_path, monkeypatch
):
    from phasewatch.widgets import plugin_table

    monkeypatch.setattr(plugin_table, "ROWS_SHOWN", 2)
    _pipeline, _step = play(tmp_path)
    registry = registry_of(tmp_path)
    assert len(registry.plugins) == 3
    app = Harness(registry)
    async with app.run_test(size=(140, 30)) as pilot:
        widget = app.query_one(PluginTable)
        await pilot.pause()
        assert widget.table.row_count == 2
        assert "3 plugins · 1 more not shown" in header(widget)
        shown = [r.name for r in registry.plugins[:2]]
        assert widget.record(shown[1]) is not None
        assert widget.record(registry.plugins[2].name) is None
