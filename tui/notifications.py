"""The dashboard's channels for :class:`phasewatch.core.notify.Notifier`.

The escape sequences go out through the app's driver, the way Textual writes the bell (never
straight to stdout, where they could split a frame); the command runs in a daemon thread, and a
failure comes back as one toast. Headless apps (tests, ``demo --headless``) have no driver to
write to: only the command runs there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from phasewatch.core.notify import Event, Notifier, run_command

if TYPE_CHECKING:
    from phasewatch.core.config import Notifications


def app_notifier(app: Any, settings: Notifications | None = None) -> Notifier:
    """The app's notifier; ``settings`` None (no config file): the notifier's own defaults,
    which are the config's (a test holds them together), so no config model is made."""

    def write(sequence: str) -> None:
        driver = getattr(app, "_driver", None)
        if driver is not None and not getattr(app, "is_headless", False):
            driver.write(sequence)

    def run(command: str, event: Event) -> None:
        def work() -> None:
            error = run_command(command, event)
            if error is not None:
                app.call_from_thread(app.notify, error, severity="warning", markup=False)

        threading.Thread(target=work, name="phasewatch-notify", daemon=True).start()

    if settings is None:
        return Notifier(write=write, run=run)
    return Notifier(
        enabled=settings.enabled,
        desktop=settings.desktop,
        command=settings.command,
        write=write,
        run=run,
    )
