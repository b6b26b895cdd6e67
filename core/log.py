"""The ``phasewatch`` logger: where an internal failure keeps its traceback.

Every broad ``except`` that turns a phasewatch bug into a finding or a message (a check that
raised, a system's ``load``, a parser's guard, a failed worker) calls :func:`internal_failure`,
which logs the exception with its traceback under ``phasewatch.<module>``. Nothing is written
anywhere unless the user asks: :func:`log_to` (``--log FILE`` or ``PHASEWATCH_LOG``) adds the
one file handler, and until then the logger holds a ``NullHandler``, so Python's last-resort
handler never prints a record on the terminal the dashboard draws on
(docs/design.md#the-log). ``logging`` itself is imported at the first failure or
:func:`log_to`, never on the way to ``check``'s report.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

NAME = "phasewatch"
#: The environment variable naming the log file (``--log FILE`` wins over it).
ENV = "PHASEWATCH_LOG"
HANDLER = "phasewatch-log"  # the name of the one file handler log_to adds
#: Tracebacks kept per place: a guard that fails on every line of a huge log must not fill the
#: disk; the place's next failures are counted, one line says so.
PER_PLACE = 20

_counts: dict[str, int] = {}


def logger(name: str = NAME) -> logging.Logger:
    """The ``phasewatch`` logger, or one of its children (``phasewatch.core.checks``)."""
    import logging

    root = logging.getLogger(NAME)
    if not root.handlers:  # no record reaches Python's last resort (stderr) unasked
        root.addHandler(logging.NullHandler())
    return root if name == NAME else logging.getLogger(name)


def internal_failure(where: str, what: str, exc: BaseException) -> None:
    """Log ``exc`` with its traceback: ``where`` is the module (``__name__``), ``what`` the
    failure in plain words. Never raises."""
    place = f"{where}: {what}"
    seen = _counts.get(place, 0)
    if seen > PER_PLACE:
        return
    _counts[place] = seen + 1
    try:
        log = logger(where if where.startswith(NAME) else f"{NAME}.{where}")
        if seen == PER_PLACE:
            log.error("%s: further failures here are not logged", what)
        else:
            log.error("%s", what, exc_info=(type(exc), exc, exc.__traceback__))
    except Exception:  # a log that fails must not fail what it records
        pass


def log_to(path: str) -> None:
    """Write the ``phasewatch`` logger's records (DEBUG and up) to ``path``, appended; raises
    ``OSError`` when the file cannot be opened (the command says so before it starts)."""
    import logging

    cleaning, file_handler = _handler_types()
    handler = file_handler(os.fspath(path), mode="a", encoding="utf-8")
    handler.setFormatter(cleaning("%(asctime)s %(process)d %(name)s %(levelname)s %(message)s"))
    handler.set_name(HANDLER)
    log = logger()
    for old in [h for h in log.handlers if h.get_name() == HANDLER]:  # a second call replaces
        log.removeHandler(old)
        old.close()
    log.addHandler(handler)
    log.setLevel(logging.DEBUG)


def _handler_types() -> tuple[type[logging.Formatter], type[logging.FileHandler]]:
    import logging

    from .text import clean

    class Cleaning(logging.Formatter):
        """A record as the file keeps it: cleaned (core.text.clean), since a traceback quotes
        file contents and the file may be read on a terminal."""

        def format(self, record: logging.LogRecord) -> str:
            return clean(super().format(record))

    class FileHandler(logging.FileHandler):
        def handleError(self, record: logging.LogRecord) -> None:
            """A write that fails (a full disk) is dropped: logging's default prints a report
            on stderr, which is the dashboard's terminal."""

    return Cleaning, FileHandler


def from_environment() -> str | None:
    """The log file ``PHASEWATCH_LOG`` names, or None (unset or empty)."""
    return os.environ.get(ENV) or None
