"""Screens of the dashboard. Every data screen derives from :class:`UpdateScreen` and receives
every :class:`core.session.SessionUpdate` through :meth:`UpdateScreen.show_update`.

The names below are imported on first access (PEP 562), so importing one screen module does not
import them all: the app builds the screens it is not showing yet only when they are asked for.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

_WHERE = {
    "UpdateScreen": "base",
    "HelpScreen": "help",
    "OverviewScreen": "overview",
    "HistoryScreen": "history",
    "HookActivityScreen": "hooks",
    "PluginsScreen": "plugins",
    "TddScreen": "tdd",
    "TimelineScreen": "timeline",
    "ProjectSwitcher": "projects",
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
