"""The PluginsScreen (one of the data screens; see :mod:`phasewatch.tui.screens.panels`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from phasewatch.core.session import SessionUpdate
from phasewatch.core.systems import PLUGINS
from phasewatch.widgets.plugin_table import PluginTable
from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import Static

from .panels import PanelScreen


class PluginsScreen(PanelScreen):
    """Key ``6``. The Plugin Freedom System registry, one row per plugin; cells that disagree
    with another place are highlighted and explained under the table. Data:
    ``update.system(PLUGINS)`` (its ``data``, a ``core.plugins.Registry`` or None, includes its
    findings); re-set only when its ``rev`` moved (keyed cell updates)."""

    EMPTY = "No plugin registry: PLUGINS.md and plugins/*/ are not in this project."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "next_drift", "Next drift"),
    ]

    def __init__(self, *, name: str | None = None, id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.sets = 0  # update_registry calls (tests)
        self._rev = -1  # the registry load rendered (SystemView.rev)

    def compose_main(self) -> Iterable[Widget]:
        yield PluginTable(id="plugins")

    @property
    def main_widget(self) -> Widget:
        return self.table

    @property
    def table(self) -> PluginTable:
        return self.query_one("#plugins", PluginTable)

    def on_mount(self) -> None:
        # Textual runs every class's on_mount in turn (UpdateScreen's too): no super() call,
        # or the buffered update would be scheduled twice.
        # the table has its own empty state (no registry / no plugins yet)
        self.query_one("#panel-empty", Static).display = False

    def apply_update(self, update: SessionUpdate) -> None:
        view = update.system(PLUGINS)
        if self._rendered and view.rev == self._rev:
            return
        self._rev = view.rev
        self.table.update_registry(view.data)
        self.sets += 1

    def action_next_drift(self) -> None:
        table = self.table
        registry = table.registry
        names = [r.name for r in registry.plugins] if registry is not None else []
        drifted = [n for n in names if (rec := table.record(n)) is not None and rec.drift]
        if not drifted:
            self.notify("No plugin has drifted cells.", markup=False, timeout=3)
            return
        current = table.selected
        after = names.index(current) + 1 if current in names else 0
        ordered = names[after:] + names[:after]
        target = next(n for n in ordered if n in drifted)
        table.select_plugin(target)
        table.table.focus()
