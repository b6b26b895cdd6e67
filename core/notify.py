"""Telling the human they are needed: a gate presented, an escalation, a plan waiting.

Besides the app's bell and toast, two channels, both optional (config ``[notifications]``):

* a desktop notification through the terminal: OSC 9 (iTerm2, Windows Terminal, WezTerm, kitty,
  foot, ghostty...) and OSC 777 (rxvt-unicode, VTE terminals such as GNOME Terminal); a terminal
  that knows neither ignores both;
* a command (``--notify-cmd``) run with the event as JSON on its standard input, e.g.
  ``notify-send phasewatch`` or a chat webhook script. It is split like a shell word list and run
  without a shell, with a time limit; its failure is reported, never raised.

:class:`Notifier` remembers every event it has announced: never more than one notification per
event (an event's ``key`` says which gate, escalation or plan it is).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Literal

from .text import clean, shorten

Kind = Literal["gate", "escalation", "plan"]
COMMAND_TIMEOUT = 10.0
TITLES = {"gate": "Review gate waiting", "escalation": "Escalation waiting", "plan": "Plan waiting"}


@dataclass(frozen=True, slots=True)
class Event:
    kind: Kind
    key: str  # identity: the same gate / escalation / plan is announced once
    project: str
    summary: str

    @property
    def title(self) -> str:
        return f"phasewatch: {TITLES[self.kind]}"

    def to_json(self) -> str:
        data = {k: clean(v) for k, v in asdict(self).items()}
        data["title"] = self.title
        return json.dumps(data, ensure_ascii=False)


def _osc_text(text: str, width: int = 200) -> str:
    """Text safe inside an OSC string: cleaned (no ESC, BEL or C1), one line, no ``;``
    (OSC 777's field separator), short."""
    return shorten(clean(text).replace(";", ","), width)  # shorten folds to one line


def osc_sequences(event: Event) -> str:
    """OSC 9 and OSC 777 for ``event``, BEL-terminated (the form every such terminal reads)."""
    title, body = _osc_text(event.title, 80), _osc_text(event.summary)
    return f"\x1b]9;{title}: {body}\x07\x1b]777;notify;{title};{body}\x07"


def run_command(command: str, event: Event, timeout: float = COMMAND_TIMEOUT) -> str | None:
    """Run ``command`` with the event as JSON on stdin; None on success, else why it failed
    (cleaned, one line). Blocking: call it off the UI thread."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"notify command not understood: {clean(str(exc))}"
    if not argv:
        return "notify command is empty"
    try:
        proc = subprocess.run(
            argv,
            input=event.to_json().encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
            start_new_session=True,  # Ctrl-C in the dashboard is not sent to it
        )
    except FileNotFoundError:
        return f"notify command not found: {clean(argv[0])}"
    except subprocess.TimeoutExpired:
        return f"notify command took longer than {timeout:g} s and was stopped"
    except OSError as exc:
        return f"notify command failed: {clean(str(exc))}"
    if proc.returncode != 0:
        err = clean(proc.stderr.decode("utf-8", "replace")).strip().splitlines()
        return f"notify command exited {proc.returncode}" + (f": {err[-1]}" if err else "")
    return None


@dataclass
class Notifier:
    """One notification per event, through the channels that are on.

    ``write`` puts escape sequences on the terminal (the app passes its driver's writer);
    ``run`` runs the command (the app passes a function that runs it in a worker thread).
    """

    enabled: bool = True
    desktop: bool = True
    command: str | None = None
    write: Callable[[str], None] | None = None
    run: Callable[[str, Event], None] | None = None
    seen: set[tuple[str, str]] = field(default_factory=set)

    def notify(self, event: Event) -> bool:
        """Announce ``event`` unless it was announced before; whether it was announced now."""
        ident = (event.kind, event.key)
        if not self.enabled or ident in self.seen:
            return False
        self.seen.add(ident)
        if self.desktop and self.write is not None:
            self.write(osc_sequences(event))
        if self.command and self.run is not None:
            self.run(self.command, event)
        return True
