"""core.notify: OSC 9/777 sequences, the notify command, one notification per event."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.notify import Event, Notifier, command_problem, osc_sequences, run_command

GATE = Event("gate", "06-implementation@41", "demo", "06-implementation waits for review")


def test_osc_sequences_carry_title_and_summary():
    seq = osc_sequences(GATE, environ={})
    assert seq.startswith("\x1b]9;phasewatch: Review gate waiting: 06-implementation waits")
    assert "\x1b]777;notify;phasewatch: Review gate waiting;06-implementation waits" in seq
    assert seq.count("\x07") == 2 and seq.count("\x1b") == 2


@given(st.text())
def test_hostile_summaries_cannot_end_or_extend_the_sequence(text):
    seq = osc_sequences(Event("escalation", "k", "p", text), environ={})
    assert seq.count("\x1b") == 2 and seq.count("\x07") == 2  # only our own ESC and BEL
    assert not any(0x80 <= ord(c) <= 0x9F for c in seq)  # no C1 (8-bit ST, OSC...)
    _head, body = seq.split("\x07")[1].split("notify;", 1)
    assert body.count(";") == 1  # title;body: no field smuggled in


def test_inside_tmux_each_sequence_goes_through_its_passthrough():
    """tmux hands ``ESC P tmux; <sequence, ESCs doubled> ESC \\`` to the outer terminal."""
    plain = osc_sequences(GATE, environ={})
    osc9, osc777 = (part + "\x07" for part in plain.split("\x07")[:2])
    wrapped = osc_sequences(GATE, environ={"TMUX": "/tmp/tmux-0/default,123,0"})
    assert wrapped == ("\x1bPtmux;\x1b" + osc9 + "\x1b\\" + "\x1bPtmux;\x1b" + osc777 + "\x1b\\")
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]9;phasewatch: Review gate waiting: ")
    inner = wrapped.split("\x1b\\")[0].removeprefix("\x1bPtmux;")
    assert inner.replace("\x1b\x1b", "\x1b") == osc9  # undoubling gives the sequence back
    assert osc_sequences(GATE, environ={"TMUX": ""}) == plain  # an empty $TMUX: not inside


@given(st.text())
def test_hostile_summaries_cannot_end_the_tmux_passthrough(text):
    seq = osc_sequences(Event("escalation", "k", "p", text), environ={"TMUX": "x"})
    assert seq.count("\x1b\\") == 2  # only our own two string terminators
    assert seq.count("\x1bPtmux;") == 2 and seq.count("\x07") == 2


def test_one_notification_per_event():
    written, ran = [], []
    n = Notifier(command="x", write=written.append, run=lambda c, e: ran.append(e.key))
    assert n.notify(GATE)
    assert not n.notify(GATE)
    assert n.notify(Event("escalation", GATE.key, "demo", "other kind, same key"))
    assert len(written) == 2 and ran == [GATE.key, GATE.key]


def test_the_off_switches():
    written, ran = [], []
    off = Notifier(enabled=False, command="x", write=written.append, run=lambda *a: ran.append(a))
    assert not off.notify(GATE)
    quiet = Notifier(desktop=False, write=written.append)
    assert quiet.notify(GATE)
    assert written == [] and ran == []


def test_the_command_gets_the_event_as_json_on_stdin(tmp_path):
    out = tmp_path / "event.json"
    script = f"import sys, pathlib; pathlib.Path({str(out)!r}).write_text(sys.stdin.read())"
    command = f"{sys.executable} -c {json.dumps(script)}"
    assert run_command(command, GATE) is None
    data = json.loads(out.read_text())
    assert data["kind"] == "gate" and data["key"] == GATE.key
    assert data["title"] == "phasewatch: Review gate waiting"


def test_command_failures_are_reported_not_raised(tmp_path):
    assert "not found" in run_command("/no/such/program", GATE)
    assert "exited 3" in run_command(f"{sys.executable} -c 'import sys; sys.exit(3)'", GATE)
    slow = f"{sys.executable} -c 'import time; time.sleep(5)'"
    assert "longer than" in run_command(slow, GATE, timeout=0.2)
    assert "not understood" in run_command("'unclosed", GATE)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def escalation(i: int) -> Event:
    return Event("escalation", f"esc-{i}", "demo", f"escalation {i} at 06-implementation")


def test_a_burst_of_500_escalations_makes_a_few_notifications_not_500():
    clock, written, ran = FakeClock(), [], []
    n = Notifier(command="x", write=written.append, run=lambda c, e: ran.append(e), clock=clock)
    for i in range(500):  # one at a time, a millisecond apart (the owner writes each)
        n.notify(escalation(i))
        clock.now += 0.001
    assert len(ran) == 3 and len(written) == 3  # the first few at once; the rest are held
    assert n.due_in() is not None and n.due_in() > 0
    assert not n.flush()  # not due yet
    clock.now += n.due_in()
    assert n.flush()
    assert len(ran) == 4 and len(written) == 4
    assert ran[3].kind == "escalation" and ran[3].summary.startswith("497 escalations waiting")
    assert n.due_in() is None and not n.flush()


def test_many_new_items_in_one_update_are_one_notification():
    clock, ran = FakeClock(), []
    n = Notifier(command="x", run=lambda c, e: ran.append(e), clock=clock)
    n.notify_all([escalation(i) for i in range(500)] + [GATE])
    assert len(ran) == 1 and ran[0].summary.startswith("501 items waiting: escalation 0")
    n.notify_all([escalation(i) for i in range(500)])  # already announced: nothing
    clock.now += 3600
    assert not n.flush() and len(ran) == 1


def test_notifications_apart_in_time_each_go_out():
    clock, ran = FakeClock(), []
    n = Notifier(command="x", run=lambda c, e: ran.append(e), clock=clock)
    for i in range(3):
        assert n.notify(escalation(i))
        clock.now += n.interval
    assert [e.key for e in ran] == ["esc-0", "esc-1", "esc-2"]


def test_the_events_text_can_be_the_commands_words(tmp_path):
    """notify-send reads no stdin: {title} and {summary} put the event's text in its words,
    whole and inert (no shell: the text cannot run or split into more words)."""
    out = tmp_path / "argv.json"
    script = f"import sys, json, pathlib; pathlib.Path({str(out)!r}).write_text(json.dumps(sys.argv[1:]))"
    event = Event("gate", "gate|04-design", "", "Review gate 04-design; $(rm -rf ~) `x`")
    command = f"{sys.executable} -c {json.dumps(script)} {{title}} --body={{summary}} {{nope}}"
    assert run_command(command, event) is None
    assert json.loads(out.read_text()) == [
        "phasewatch: Review gate waiting",
        "--body=Review gate 04-design; $(rm -rf ~) `x`",
        "{nope}",
    ]


# ------------------------------------------------------------------ the text never runs

HOSTILE = (
    "$(touch {m}/dollar)",
    "`touch {m}/backtick`",
    "'; touch {m}/single; '",
    '"; touch {m}/double; "',
    '\\"$(touch {m}/escaped)\\"',
    "${{IFS}}$(touch${{IFS}}{m}/ifs)",
)

#: a stand-in for a program that is not on this machine: it records its arguments and the
#: PHASEWATCH_ variables it was given, and does nothing else
RECORDER = """#!{python}
import json, os, sys
with open({out!r}, "a") as f:
    env = {{k: v for k, v in os.environ.items() if k.startswith("PHASEWATCH_")}}
    f.write(json.dumps([os.path.basename(sys.argv[0]), sys.argv[1:], env]) + "\\n")
"""


def _readme_commands() -> list[str]:
    """Every notify command the README shows: each ``phasewatch --notify-cmd ...`` line as
    bash hands it to phasewatch (bash parses the line), and the config example's ``command``."""
    import subprocess
    import tomllib
    from pathlib import Path

    text = (Path(__file__).parent.parent / "README.md").read_text()
    commands = []
    for line in text.splitlines():
        if line.strip().startswith("phasewatch --notify-cmd"):
            script = "phasewatch() { printf '%s' \"$2\"; }\n" + line.strip()
            got = subprocess.run(["bash", "-c", script], capture_output=True, check=True)
            commands.append(got.stdout.decode())
        if line.startswith("command = "):
            commands.append(tomllib.loads(line)["command"])
    return commands


def _hostile_events(marks: str) -> list[Event]:
    out = []
    for i, text in enumerate(HOSTILE):
        bad = text.format(m=marks)
        out.append(Event("escalation", f"k{i}|{bad}", f"p{bad}", f"Escalation: {bad} end"))
    return out


def test_the_readme_notify_commands_run_nothing_in_the_events_text(tmp_path, monkeypatch):
    """Each README example, run as written (a recorder standing in for notify-send and
    osascript; sh is the real one), with $(...), backticks and quotes in every field: no
    marker file appears, and the program got the text whole, as data."""
    commands = _readme_commands()
    assert len(commands) >= 3 and any(c.startswith("sh ") for c in commands)
    assert any(c.startswith("osascript ") for c in commands)
    bin_dir, marks, out = tmp_path / "bin", tmp_path / "marks", tmp_path / "calls.jsonl"
    bin_dir.mkdir()
    marks.mkdir()
    for name in ("notify-send", "osascript"):
        (bin_dir / name).write_text(RECORDER.format(python=sys.executable, out=str(out)))
        (bin_dir / name).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    events = _hostile_events(str(marks))
    for command in commands:
        for event in events:
            assert command_problem(command) is None, command
            assert run_command(command, event) is None, command
    assert sorted(p.name for p in marks.iterdir()) == []
    calls = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(calls) == len(commands) * len(events)
    for (program, argv, env), event in zip(calls, events * len(commands), strict=False):
        assert env["PHASEWATCH_SUMMARY"] == event.summary and env["PHASEWATCH_KEY"] == event.key
        assert env["PHASEWATCH_PROJECT"] == event.project
        assert argv[-2:] == [event.title, event.summary], (program, argv)


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'notify-send {summary}'",
        "bash -lc 'echo {title}'",
        "sh -c {summary}",
        "env sh -c {summary} x",
        "osascript -e 'display notification \"{summary}\"'",
        "osascript -e {summary}",
        "python3 -c {summary}",
        "perl -pe {summary}",
        "node --eval {summary}",
        "notify-send 'phasewatch: {summary}'",
        "notify-send x{kind}",
    ],
)
def test_a_field_spliced_where_it_could_be_parsed_is_refused(command, tmp_path):
    """A field inside a longer word, or as an interpreter's code, would be parsed: refused
    before anything runs (the dashboard refuses it at start)."""
    mark = tmp_path / "ran"
    event = Event("escalation", "k", "p", f"$(touch {mark}); `touch {mark}`")
    problem = command_problem(command)
    assert problem is not None and "notify command" in problem
    assert run_command(command, event) == problem
    assert not mark.exists()


@pytest.mark.parametrize(
    "command",
    [
        "notify-send {title} {summary}",
        "notify-send -c {kind} --urgency=normal {title} {summary}",
        "terminal-notifier -message {summary} --title={title}",
        "sh -c 'notify-send \"$PHASEWATCH_SUMMARY\"'",
        "sh -c 'echo \"$1\"' sh {summary}",
    ],
)
def test_a_field_as_a_word_or_an_option_value_is_accepted(command):
    assert command_problem(command) is None


def test_the_dashboard_refuses_an_unsafe_notify_command_at_start(tmp_path, monkeypatch, capsys):
    from phasewatch.tui.cli import _dashboard_config, _dashboard_parser

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    args = _dashboard_parser().parse_args(["--notify-cmd", "sh -c 'notify-send {summary}'"])
    assert _dashboard_config(args) is False
    assert "splices an event field" in capsys.readouterr().err
    args = _dashboard_parser().parse_args(["--notify-cmd", "notify-send {title} {summary}"])
    assert _dashboard_config(args).notifications.command == "notify-send {title} {summary}"
