"""The dashboard's config: the file, with the command line's notification flags on top. Shared
by ``phasewatch`` (tui/cli.py) and ``phasewatch demo`` (tui/demo.py), which reads it the same way."""

from __future__ import annotations

import argparse
import sys

from phasewatch.core.config_file import config_to_read
from phasewatch.core.text import clean


def _dashboard_config(args: argparse.Namespace):
    """The config file's settings with the command line's notification flags on top; None when
    there is neither (the app makes the defaults after its first frame, so pydantic is not
    imported before it); False when the file cannot be used (the error is printed)."""
    flags = args.notify_cmd is not None or args.no_notify
    if not flags and not config_to_read(args.config):
        return None
    from phasewatch.core.config import ConfigError, load

    try:
        config, where = load(args.config)
    except ConfigError as exc:
        print(f"phasewatch: {exc}", file=sys.stderr)
        return False
    problem = _theme_problem(config)
    if problem:
        print(f"phasewatch: {clean(str(where))}: {problem}", file=sys.stderr)
        return False
    notes = config.notifications
    if args.notify_cmd is not None:
        notes = notes.model_copy(update={"command": args.notify_cmd})
    if args.no_notify:
        notes = notes.model_copy(update={"enabled": False})
    if notes.enabled and notes.command:
        from phasewatch.core.notify import command_problem

        if (problem := command_problem(notes.command)) is not None:
            print(f"phasewatch: {problem}", file=sys.stderr)
            return False
    return config.model_copy(update={"notifications": notes})


def _theme_problem(config) -> str | None:
    """Why the config's theme cannot be used (no Textual theme has that name), or None."""
    from phasewatch.core.config import did_you_mean
    from textual.theme import BUILTIN_THEMES

    if config.theme is None or config.theme in BUILTIN_THEMES:
        return None
    return (
        f"theme: no theme named {clean(repr(config.theme))}"
        f"{did_you_mean(config.theme, BUILTIN_THEMES)}; themes: {', '.join(sorted(BUILTIN_THEMES))}"
    )
