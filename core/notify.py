"""Telling the human they are needed: a gate presented, an escalation, a plan waiting.

Besides the app's bell and toast, two channels, both optional (config ``[notifications]``):

* a desktop notification through the terminal: OSC 9 (iTerm2, Windows Terminal, WezTerm, kitty,
  foot, ghostty...) and OSC 777 (rxvt-unicode, VTE terminals such as GNOME Terminal); a terminal
  that knows neither ignores both; inside tmux they go through its passthrough;
* a command (``--notify-cmd``) run with the event as JSON on its standard input, e.g.
  ``notify-send phasewatch`` or a chat webhook script. It is split like a shell word list and run
  without a shell, with a time limit; its failure is reported, never raised. The event's text
  reaches it only as whole arguments (``{summary}`` as a word of its own) and as environment
  variables (``PHASEWATCH_SUMMARY``...), never spliced into a word: a word an interpreter parses
  (``sh -c '...'``, ``osascript -e '...'``) cannot hold it (:func:`command_problem`).

:class:`Notifier` remembers every event it has announced: never more than one notification per
event (an event's ``key`` says which gate, escalation or plan it is). It is also rate-limited: a
few notifications at once (:data:`BURST`), then one per :data:`INTERVAL` seconds; what arrives
meanwhile is held and goes out as one notification ("497 escalations waiting: ..."), and many new
items in one update are one notification. A burst of 500 escalations is two or three
notifications (and as many command processes), never 500.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Literal

from msgspec import Struct, field
from msgspec.structs import asdict

from .text import clean, shorten

Kind = Literal["gate", "escalation", "plan", "several"]
COMMAND_TIMEOUT = 10.0
TITLES = {
    "gate": "Review gate waiting",
    "escalation": "Escalation waiting",
    "plan": "Plan waiting",
    "several": "Several items waiting",
}
BURST = 3  # notifications that may go out at once
INTERVAL = 15.0  # seconds: then one notification per interval at most
SHOWN = 3  # summaries a combined notification names


class Event(Struct, frozen=True):
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


def osc_sequences(event: Event, environ: Mapping[str, str] | None = None) -> str:
    """OSC 9 and OSC 777 for ``event``, BEL-terminated (the form every such terminal reads).

    Inside tmux (``$TMUX`` set) each goes out wrapped for tmux's passthrough, which hands it to
    the outer terminal (tmux needs ``set -g allow-passthrough on``; else it drops them, as it
    would drop the bare sequences)."""
    title, body = _osc_text(event.title, 80), _osc_text(event.summary)
    sequences = (f"\x1b]9;{title}: {body}\x07", f"\x1b]777;notify;{title};{body}\x07")
    if (os.environ if environ is None else environ).get("TMUX"):
        return "".join(tmux_passthrough(s) for s in sequences)
    return "".join(sequences)


def tmux_passthrough(sequence: str) -> str:
    """``sequence`` in tmux's passthrough DCS: ``ESC P tmux; ... ESC \\``, every ESC inside
    doubled."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


#: ``{title}``, ``{summary}``, ... in a notify command's words are the event's (cleaned) fields.
_FIELD = re.compile(r"\{(title|summary|kind|key|project)\}")
#: where a field may stand: a whole word, or the value of a ``--option=`` word (one argument
#: either way, which the program takes as data)
_WHOLE = re.compile(r"(?:--?[A-Za-z0-9][A-Za-z0-9_.-]*=)?\{(?:title|summary|kind|key|project)\}")
#: programs whose ``-c`` / ``-e`` (...) argument is code: a field there would run
_INTERPRETERS = frozenset(
    [
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "busybox",
        "osascript",
        "python",
        "python3",
        "perl",
        "ruby",
        "node",
        "nodejs",
        "deno",
        "php",
        "lua",
        "pwsh",
        "powershell",
        "cmd",
        "env",
    ]
)
#: the options before an interpreter's code (``-c``, ``-lc``, ``-e``, ``-pe``, ``--eval``...)
_CODE_OPTION = re.compile(r"-[A-Za-z]*[ceEp]|--(?:eval|command|print)|-Command|/[cCkK]")
#: the environment variables a command (a script) reads the event's fields from
ENV_PREFIX = "PHASEWATCH_"


def command_problem(command: str) -> str | None:
    """Why ``command`` cannot be a notify command, or None: it must split into words, and an
    event field (``{summary}``...) may be only a whole word or a ``--option=`` word's value,
    never part of a longer word (which an interpreter might parse: ``sh -c 'x {summary}'``),
    nor the code argument of an interpreter (``sh -c {summary}``). A script reads the fields
    from ``$PHASEWATCH_SUMMARY`` (...), which no shell re-parses."""
    import shlex  # (here: the dashboard starts without it; a command runs rarely)

    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"notify command not understood: {clean(str(exc))}"
    if not words:
        return "notify command is empty"
    program = os.path.basename(words[0])
    for i, word in enumerate(words):
        if not _FIELD.search(word):
            continue
        if not _WHOLE.fullmatch(word):
            return (
                f"notify command: {clean(shorten(word, 60))!r} splices an event field into a "
                "longer word, which a program may parse as code; give the field a word of its "
                f"own ({{summary}}), or read it in a script from ${ENV_PREFIX}SUMMARY (...)"
            )
        code = i > 0 and _CODE_OPTION.fullmatch(words[i - 1]) is not None
        if code and program.removesuffix(".exe").rstrip("0123456789.") in _INTERPRETERS:
            return (
                f"notify command: {clean(word)!r} would be {clean(program)}'s code; pass the "
                f"field as an argument after the code, or read ${ENV_PREFIX}SUMMARY (...)"
            )
    return None


def command_env(event: Event, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (the process's environment) with ``PHASEWATCH_TITLE``, ``_SUMMARY``, ``_KIND``,
    ``_KEY`` and ``_PROJECT``: the event's cleaned fields, for a script to read."""
    env = dict(os.environ if base is None else base)
    for name, value in _fields(event).items():
        env[f"{ENV_PREFIX}{name.upper()}"] = value  # (cleaned: no NUL, no escapes)
    return env


def _fields(event: Event) -> dict[str, str]:
    return {**{k: clean(str(v)) for k, v in asdict(event).items()}, "title": event.title}


def run_command(command: str, event: Event, timeout: float = COMMAND_TIMEOUT) -> str | None:
    """Run ``command`` with the event as JSON on stdin; None on success, else why it failed
    (cleaned, one line). Blocking: call it off the UI thread.

    No shell: the command is split into words first, then a word ``{title}``, ``{summary}``,
    ``{kind}``, ``{key}`` or ``{project}`` (or ``--option={summary}``) becomes the event's
    field, so ``notify-send {title} {summary}`` shows the event's text as two arguments; the
    fields are also in the environment (``PHASEWATCH_SUMMARY``...). A field spliced into a
    longer word is refused (:func:`command_problem`), so nothing in that text can run."""
    import shlex

    problem = command_problem(command)
    if problem is not None:
        return problem
    fields = _fields(event)
    argv = [_FIELD.sub(lambda m: fields[m.group(1)], word) for word in shlex.split(command)]
    try:
        proc = subprocess.run(
            argv,
            input=event.to_json().encode(),
            capture_output=True,
            timeout=timeout,
            check=False,
            env=command_env(event),
            start_new_session=True,  # Ctrl-C in the dashboard is not sent to it
        )
    except FileNotFoundError:
        return f"notify command not found: {clean(argv[0])}"
    except subprocess.TimeoutExpired:
        return f"notify command took longer than {timeout:g} s and was stopped"
    except (OSError, ValueError) as exc:
        return f"notify command failed: {clean(str(exc))}"
    if proc.returncode != 0:
        err = clean(proc.stderr.decode("utf-8", "replace")).strip().splitlines()
        return f"notify command exited {proc.returncode}" + (f": {err[-1]}" if err else "")
    return None


class Notifier(Struct):
    """One notification per event, through the channels that are on, rate-limited (see the
    module docstring): a token bucket of :attr:`burst` notifications, refilled one per
    :attr:`interval` seconds of :attr:`clock`. Held events go out when :meth:`flush` is called
    once :meth:`due_in` says so (the app sets a timer).

    ``write`` puts escape sequences on the terminal (the app passes its driver's writer);
    ``run`` runs the command (the app passes a function that runs it in a worker thread).
    """

    enabled: bool = True
    desktop: bool = True
    command: str | None = None
    write: Callable[[str], None] | None = None
    run: Callable[[str, Event], None] | None = None
    seen: set[tuple[str, str]] = field(default_factory=set)
    clock: Callable[[], float] = time.monotonic
    burst: int = BURST
    interval: float = INTERVAL
    _tokens: float = 0.0
    _stamp: float | None = None
    _held: list[Event] = field(default_factory=list)  # the first SHOWN held
    _held_count: int = 0

    def notify(self, event: Event) -> bool:
        """Announce ``event`` unless it was announced before (now, or held for the next
        :meth:`flush` when too many went out lately); whether it is new."""
        return self.notify_all([event]) == 1

    def notify_all(self, events: Iterable[Event]) -> int:
        """Announce the new ones among ``events``: one notification for them all (or held, as
        :meth:`notify`); how many were new."""
        if not self.enabled:
            return 0
        new = []
        for event in events:
            ident = (event.kind, event.key)
            if ident not in self.seen:
                self.seen.add(ident)
                new.append(event)
        if not new:
            return 0
        if self._held_count or not self._take():
            self._hold(new)
        else:
            self._send(new, len(new))
        return len(new)

    def due_in(self) -> float | None:
        """Seconds until the held events can go out (None: nothing is held)."""
        if not self._held_count:
            return None
        return max(0.0, (1.0 - self._refilled(self.clock())) * self.interval)

    def flush(self) -> bool:
        """Send the held events as one notification if the rate allows it now."""
        if not self._held_count or not self._take():
            return False
        held, count = self._held, self._held_count
        self._held, self._held_count = [], 0
        self._send(held, count)
        return True

    # ------------------------------------------------------------------ internals
    def _refilled(self, now: float) -> float:
        if self._stamp is None:
            return float(self.burst)
        return min(float(self.burst), self._tokens + (now - self._stamp) / self.interval)

    def _take(self) -> bool:
        now = self.clock()
        self._tokens, self._stamp = self._refilled(now), now
        if self._tokens >= 1.0 - 1e-9:  # (due_in's wait, added to a float clock, may fall short)
            self._tokens = max(0.0, self._tokens - 1.0)
            return True
        return False

    def _hold(self, events: list[Event]) -> None:
        room = SHOWN - len(self._held)
        self._held.extend(events[: max(0, room)])  # memory stays bounded: the rest counted
        self._held_count += len(events)

    def _send(self, events: list[Event], count: int) -> None:
        event = events[0] if count == 1 else combined(events, count)
        if self.desktop and self.write is not None:
            self.write(osc_sequences(event))
        if self.command and self.run is not None:
            self.run(self.command, event)


def combined(events: list[Event], count: int) -> Event:
    """One event for ``count`` waiting items (``events``: the first few of them)."""
    kinds = {e.kind for e in events}
    kind: Kind = events[0].kind if len(kinds) == 1 else "several"
    noun = f"{kind}s" if kind != "several" else "items"
    if kind == "escalation":
        noun = "escalations"
    named = "; ".join(shorten(e.summary, 60) for e in events[:SHOWN])
    more = count - min(len(events), SHOWN)
    summary = f"{count} {noun} waiting: {named}" + (f"; and {more} more" if more > 0 else "")
    projects = {e.project for e in events}
    project = events[0].project if len(projects) == 1 else "several projects"
    return Event(kind, f"{count} waiting from {events[0].key}", project, summary)
