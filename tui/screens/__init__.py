"""Screens of the dashboard. Every data screen derives from :class:`UpdateScreen` and receives
every :class:`core.session.SessionUpdate` through :meth:`UpdateScreen.show_update`.

The names below are imported on first access (PEP 562), so importing one screen module does not
import them all: the app builds the screens it is not showing yet only when they are asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, NamedTuple


class DataScreen(NamedTuple):
    title: str  # on the help screen and in the command palette
    label: str  # its number key's label in the footer
    where: str  # "module:Class", imported when the screen is first shown


#: The data screens in key order (``1``-``7``), the one list: the app's number keys, the ``?``
#: help and the command palette are made from it, and ``default_screen`` in the config
#: (``core.config.Screen``) names one of them (a test holds the two to the same names). A
#: screen's module is imported when the screen is first shown: the first frame needs only the
#: overview, and the others (hook log view, plugin registry, TDD board...) cost ~70 ms of
#: imports at start-up. The hook log's records are not in the updates: they are in the
#: session's store, which the hook screen reads when it is shown and whenever the log grew
#: (:class:`~tui.messages.HookLogGrew`).
DATA_SCREENS: dict[str, DataScreen] = {
    "overview": DataScreen("Overview", "Overview", f"{__name__}.overview:OverviewScreen"),
    "hooks": DataScreen("Hook activity", "Hooks", f"{__name__}.hooks:HookActivityScreen"),
    "timeline": DataScreen("Timeline", "Timeline", f"{__name__}.timeline:TimelineScreen"),
    "history": DataScreen("History", "History", f"{__name__}.history:HistoryScreen"),
    "tdd": DataScreen("TDD", "TDD", f"{__name__}.tdd:TddScreen"),
    "plugins": DataScreen("Plugins", "Plugins", f"{__name__}.plugins:PluginsScreen"),
    "views": DataScreen("Framework views", "Views", f"{__name__}.views:ViewsScreen"),
}

_WHERE = {
    "UpdateScreen": "base",
    "HelpScreen": "help",
    "ProjectSwitcher": "projects",
    **{
        screen.where.rpartition(":")[2]: screen.where.partition(":")[0].rpartition(".")[2]
        for screen in DATA_SCREENS.values()
    },
}

__all__ = sorted(_WHERE)

#: The screens' stylesheets (``<module>.tcss`` beside each module), in cascade order: a base
#: class's before its subclasses'. The app loads them with its own (``PhasewatchApp.CSS_PATH``),
#: once at start, so a screen shown for the first time never re-parses the CSS; every selector
#: names its screen class, so a rule reaches only that screen.
SCREEN_CSS = tuple(
    Path(__file__).with_name(f"{module}.tcss")
    for module in (
        "base",
        "panels",
        "hooks",
        "attention",
        "escalations",
        "plan",
        "review",
        "dialogs",
        "help",
        "projects",
    )
)


def load(where: str) -> Any:
    """The object named by ``"package.module:Name"``, importing its module (once)."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load(f"{__name__}.{module}:{name}")
