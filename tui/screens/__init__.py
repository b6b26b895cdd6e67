"""Screens of the dashboard. Every data screen derives from :class:`UpdateScreen` and receives
every :class:`core.session.SessionUpdate` through :meth:`UpdateScreen.show_update`.

The names below are imported on first access (PEP 562), so importing one screen module does not
import them all: the app builds the screens it is not showing yet only when they are asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Literal, NamedTuple


class Row(NamedTuple):
    """One screen of the app, in :data:`SCREENS`."""

    name: str  # how the app, the console and the config name it (``show('hooks')``, NAME)
    where: str  # "module:Class" in this package, imported when the screen is first shown
    kind: Literal["data", "console", "modal"]
    title: str = ""  # data: on the help screen and in the command palette (TITLE)
    label: str = ""  # data: its number key's label in the footer
    css: bool = False  # ``<module>.tcss`` beside the module holds its stylesheet


#: Every screen, the one list. The data screens come first, in key order (``1``-``7``): the
#: app's number keys, the ``?`` help and the command palette are made from them, and
#: ``default_screen`` in the config (``core.config.Screen``, a Literal core needs for the type
#: checker and the validator) names one of them (``tests/test_app_navigation.py`` holds the two
#: to the same names). The console's screens are opened by name (``ReviewConsole.open``). A
#: class in this list gets its ``NAME`` (and a data screen its ``TITLE``) from its row
#: (:func:`named`). A screen's module is imported when the screen is first shown: the first
#: frame needs only the overview. The hook log's records are not in the updates: they are in
#: the session's store, which the hook screen reads when it is shown and whenever the log grew
#: (:class:`~tui.messages.HookLogGrew`).
SCREENS: tuple[Row, ...] = (
    Row("overview", "overview:OverviewScreen", "data", "Overview", "Overview"),
    Row("hooks", "hooks:HookActivityScreen", "data", "Hook activity", "Hooks", css=True),
    Row("timeline", "timeline:TimelineScreen", "data", "Timeline", "Timeline"),
    Row("history", "history:HistoryScreen", "data", "History", "History"),
    Row("tdd", "tdd:TddScreen", "data", "TDD", "TDD"),
    Row("plugins", "plugins:PluginsScreen", "data", "Plugins", "Plugins"),
    Row("views", "views:ViewsScreen", "data", "Framework views", "Views"),
    Row("attention", "attention:AttentionScreen", "console", css=True),
    Row("escalations", "escalations:EscalationsScreen", "console", css=True),
    Row("plan", "plan:PlanScreen", "console", css=True),
    Row("gate", "review:GatePanel", "modal", css=True),
    Row("repair", "dialogs:RepairDialog", "modal", css=True),
    Row("help", "help:HelpScreen", "modal", css=True),
    Row("projects", "projects:ProjectSwitcher", "modal", css=True),
)

#: The base classes' modules, whose stylesheets come before every screen's (see SCREEN_CSS).
BASE_CSS = ("base", "panels")


class DataScreen(NamedTuple):
    title: str  # on the help screen and in the command palette
    label: str  # its number key's label in the footer
    where: str  # "module:Class", imported when the screen is first shown


#: The data screens by name, in key order (from :data:`SCREENS`).
DATA_SCREENS: dict[str, DataScreen] = {
    row.name: DataScreen(row.title, row.label, f"{__name__}.{row.where}")
    for row in SCREENS
    if row.kind == "data"
}
#: The console's screens by name: "module:Class" (from :data:`SCREENS`).
CONSOLE_SCREENS: dict[str, str] = {
    row.name: f"{__name__}.{row.where}" for row in SCREENS if row.kind == "console"
}
_ROWS = {f"{__name__}.{row.where}": row for row in SCREENS}

_WHERE = {
    "UpdateScreen": "base",
    **{row.where.partition(":")[2]: row.where.partition(":")[0] for row in SCREENS},
}

__all__ = sorted(_WHERE)

#: The screens' stylesheets (``<module>.tcss`` beside each module), in cascade order: a base
#: class's before its subclasses'. The app loads them with its own (``PhasewatchApp.CSS_PATH``),
#: once at start, so a screen shown for the first time never re-parses the CSS; every selector
#: names its screen class, so a rule reaches only that screen.
SCREEN_CSS = tuple(
    Path(__file__).with_name(f"{module}.tcss")
    for module in (*BASE_CSS, *(row.where.partition(":")[0] for row in SCREENS if row.css))
)


def named(cls: type) -> Row | None:
    """The row of :data:`SCREENS` naming ``cls`` (None for a class not in it: a base class)."""
    return _ROWS.get(f"{cls.__module__}:{cls.__qualname__}")


def load(where: str) -> Any:
    """The object named by ``"package.module:Name"``, importing its module (once)."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load(f"{__name__}.{module}:{name}")
