"""core.notify: OSC 9/777 sequences, the notify command, one notification per event."""

from __future__ import annotations

import json
import sys

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.notify import Event, Notifier, osc_sequences, run_command

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
