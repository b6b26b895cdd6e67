"""``phasewatch [PATH]``: open the live dashboard. Imported lazily by tui/cli.py so the headless
commands never pay for textual."""

from __future__ import annotations

import os
from typing import Any


def run_dashboard(
    path: str | os.PathLike[str] | None = None,
    read_only: bool = False,
    project_id: str | None = None,
    config: Any = None,
) -> int:
    """Run the dashboard until the user quits; returns the process exit code."""
    from .app import PhasewatchApp

    app = PhasewatchApp(
        path, read_only=read_only, project_id=project_id, config=config, freeze_startup=True
    )
    result = app.run()
    if app.return_code not in (None, 0):
        return app.return_code
    return result if isinstance(result, int) else 0
