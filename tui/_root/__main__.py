"""``python -m phasewatch``: the same command line as the ``phasewatch`` script."""

from phasewatch.tui.cli import run

raise SystemExit(run())
