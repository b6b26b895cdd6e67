"""Notifications when a human is needed: one per waiting item, through the terminal (OSC 9/777)
and the notify command; the off switch; the config's theme."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from phasewatch.core.config import Config, Notifications
from phasewatch.tui.app import PhasewatchApp

from tests import factories as F
from tests.helpers.app import frozen_clock, wait_until, write_state


def gate_state(version: int) -> dict:
    state = F.setpath(
        F.feature_state(),
        "active_workflow.supervised_review",
        {"phase": "04-design", "status": "gate_presented", "redo_count": 0},
    )
    state = F.setpath(state, "supervised_mode", {"enabled": True, "review_phases": "all"})
    return F.setpath(state, "state_version", version)


def app_for(root: Path, config: Config) -> PhasewatchApp:
    return PhasewatchApp(
        root, clock=frozen_clock, config=config, watcher_options={"reconcile_interval": 0.3}
    )


async def test_a_waiting_gate_is_notified_once_through_both_channels(tmp_path):
    state_path = tmp_path / ".isdlc" / "state.json"
    write_state(state_path, gate_state(10))
    events = tmp_path / "events.jsonl"
    script = f"import sys; open({str(events)!r}, 'a').write(sys.stdin.read() + '\\n')"
    command = f"{sys.executable} -c {json.dumps(script)}"
    app = app_for(tmp_path, Config(notifications=Notifications(command=command)))
    written: list[str] = []
    app.review.notifier.write = written.append  # a headless app has no terminal to write to
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: events.exists() and events.read_text().strip() != "")
        for version in (11, 12):  # the owner keeps writing; the same gate still waits
            write_state(state_path, gate_state(version))
            await wait_until(
                pilot,
                lambda v=version: (
                    app.last_update is not None and app.last_update.snapshot(None).version == v
                ),
            )
        await pilot.pause(0.3)
    lines = [json.loads(x) for x in events.read_text().splitlines() if x.strip()]
    gates = [e for e in lines if e["kind"] == "gate"]
    assert len(gates) == 1 and "04-design" in gates[0]["summary"]
    assert sum("\x1b]9;" in w for w in written) == len(lines)  # one OSC per event, no more


async def test_no_notify_is_silent(tmp_path):
    write_state(tmp_path / ".isdlc" / "state.json", gate_state(10))
    app = app_for(tmp_path, Config(notifications=Notifications(enabled=False, command="x")))
    written: list[str] = []
    app.review.notifier.write = written.append
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: app.review.waiting_gate() is not None)
        await pilot.pause(0.2)
    assert written == []


async def test_the_configs_theme_is_applied(tmp_path):
    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())
    app = app_for(tmp_path, Config(theme="textual-light"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert app.theme == "textual-light"


async def test_the_overview_applies_the_config_to_its_findings(tmp_path):
    from phasewatch.core.config import Agents

    state = F.feature_state()
    state["active_agent"] = "my-custom-agent"
    write_state(tmp_path / ".isdlc" / "state.json", state)
    for config, shown in (
        (Config(), True),
        (Config(agents=Agents(extra=("my-custom-agent",))), False),
    ):
        app = app_for(tmp_path, config)
        async with app.run_test() as pilot:
            await wait_until(pilot, lambda a=app: a.updates_applied > 0)
            await pilot.pause()
            rules = {
                item.finding.rule_id for item in app.screen.query_one("#findings").items.values()
            }
            assert ("SYNC-AGENT" in rules) is shown


async def test_a_burst_of_escalations_is_a_few_notifications_not_hundreds(tmp_path):
    """460 escalations appear, 450 in one write and then 10 more one write at a time: the command
    runs a few times (the rate limit holds and combines the rest), never once per escalation."""
    state = F.feature_state()
    esc = {
        "type": "gate_blocked",
        "hook": "gate-blocker",
        "phase": "05-test-strategy",
        "detail": "blocked",
        "timestamp": F.ts(52),
    }
    state["pending_escalations"] = [dict(esc, timestamp=F.ts(52, i)) for i in range(450)]
    state_path = tmp_path / ".isdlc" / "state.json"
    write_state(state_path, state)
    app = app_for(tmp_path, Config(notifications=Notifications(command="x")))
    ran: list = []
    app.review.notifier.run = lambda _command, event: ran.append(event)
    app.review.notifier.write = None
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: len(ran) >= 1)
        for k in range(10):
            state["pending_escalations"].append(dict(esc, timestamp=F.ts(60, k)))
            state["state_version"] += 1
            write_state(state_path, state)
            await wait_until(
                pilot,
                lambda v=state["state_version"]: (
                    app.last_update is not None and app.last_update.snapshot(None).version == v
                ),
            )
    assert 1 <= len(ran) <= 4, [e.summary[:40] for e in ran]
    assert ran[0].summary.startswith("450 escalations waiting")
