"""Screens of the dashboard. Every data screen derives from :class:`UpdateScreen` and receives
every :class:`core.session.SessionUpdate` through :meth:`UpdateScreen.show_update`."""

from .base import UpdateScreen
from .help import HelpScreen
from .overview import OverviewScreen
from .panels import (
    HistoryScreen,
    HookActivityScreen,
    PluginsScreen,
    TddScreen,
    TimelineScreen,
)
from .projects import ProjectSwitcher

__all__ = [
    "HelpScreen",
    "HistoryScreen",
    "HookActivityScreen",
    "OverviewScreen",
    "PluginsScreen",
    "ProjectSwitcher",
    "TddScreen",
    "TimelineScreen",
    "UpdateScreen",
]
