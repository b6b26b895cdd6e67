"""core.review.RepairOfferer: which repair the dashboard offers for the state it shows, from
the session's timeline (plain data: no app)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from types import SimpleNamespace
from typing import Any

import pytest
from phasewatch.core.review import RepairOfferer, repair_offer
from phasewatch.core.session import ProjectSession

from tests.helpers.repair import PHASES, stale, state


def finding(rule_id: str) -> Any:
    return SimpleNamespace(rule_id=rule_id)


def seen(raw: dict[str, Any], *rules: str, source: str = ".isdlc/state.json") -> Any:
    return SimpleNamespace(
        project_id="p", source=source, raw=raw, findings=tuple(finding(r) for r in rules)
    )


def snap(raw: dict[str, Any], *rules: str) -> Any:
    return SimpleNamespace(
        project_id="p", source=".isdlc/state.json", raw=raw, findings=[finding(r) for r in rules]
    )


def test_a_stale_step_is_planned_against_the_version_seen_before_it() -> None:
    newer, bad = state(2, 7), stale(state(2, 7), state(1))
    timeline = [seen(state(1, 6)), seen(newer), seen(bad, "TR-STATUS-DOWN", "TR-INDEX-DOWN")]
    offer = repair_offer(snap(bad), timeline)
    assert offer is not None and offer.can_apply
    assert offer.plan.kind == "stale-write" and offer.plan.from_version == 7
    assert offer.rule_ids == ("TR-INDEX-DOWN", "TR-STATUS-DOWN")


def test_nothing_once_a_later_write_moved_the_fields_on() -> None:
    newer, bad = state(2, 7), stale(state(2, 7), state(1))
    later = state(3, 9)
    timeline = [seen(newer), seen(bad, "TR-STATUS-DOWN"), seen(later)]
    assert repair_offer(snap(later), timeline) is None


def test_another_file_or_project_is_not_the_version_seen() -> None:
    newer, bad = state(2, 7), stale(state(2, 7), state(1))
    timeline = [seen(newer, source="other/state.json"), seen(bad, "TR-STATUS-DOWN")]
    assert repair_offer(snap(bad), timeline) is None


def test_location_drift_when_a_sync_finding_stands() -> None:
    doc = state(2, 7)
    doc["current_phase"] = PHASES[1]
    offer = repair_offer(snap(doc, "SYNC-CURRENT"), [seen(doc)])
    assert offer is not None and offer.plan.kind == "location"
    assert [c.label for c in offer.plan.changes] == ["current_phase"]
    assert repair_offer(snap(doc), [seen(doc)]) is None  # no finding: nothing offered


def test_the_offerer_plans_again_only_when_its_inputs_change() -> None:
    newer, bad = state(2, 7), stale(state(2, 7), state(1))
    timeline = [seen(newer), seen(bad, "TR-STATUS-DOWN")]
    offerer = RepairOfferer()
    first = offerer.offer(snap(bad), timeline)
    assert first is not None
    assert offerer.offer(snap(bad), timeline) is first  # same documents: the same answer
    fixed = dict(bad, state_version=9, current_phase=PHASES[2])
    again = offerer.offer(snap(fixed), [*timeline, seen(fixed)])
    assert again is not None and again is not first
    assert "current_phase" not in [c.label for c in again.plan.changes]


def test_bad_input_offers_nothing() -> None:
    assert repair_offer(None, []) is None
    assert repair_offer(SimpleNamespace(raw=None), []) is None
    odd = snap({"active_workflow": "not an object"}, "SYNC-CURRENT")
    assert repair_offer(odd, [seen({"x": 1}), seen({"y": [1]}, "TR-STATUS-DOWN")]) is None


def test_the_session_plans_offers_after_its_first_read_in_its_own_thread(tmp_path) -> None:
    """The first read (what the first frame waits for) plans nothing and imports no writer;
    the next refresh hands out the offer; the UI only reads it (update.offer)."""
    doc = state(2, 7)
    doc["current_phase"] = PHASES[1]  # the top-level mirror left behind: a SYNC-* finding
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text(json.dumps(doc))
    code = textwrap.dedent(
        f"""
        import sys
        from phasewatch.core.session import ProjectSession
        session = ProjectSession({str(tmp_path)!r})
        first = session.refresh(None, hooks_later=True)
        print(first.offers is None, first.offer() is None,
              "phasewatch.core.decide" in sys.modules)
        second = session.refresh([])
        offer = second.offer()
        print(offer is not None and offer.plan.kind, second.offer("nope") is offer)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split("\n")
    assert out[0] == "True True False"  # nothing planned, no writer imported by the first read
    assert out[1] == "location True"  # planned next time; an unknown id: the default project


def test_a_refresh_that_observes_no_state_keeps_the_offer_without_planning(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refresh for the hook log alone (a storm's usual one) neither plans nor scans the
    timeline: the last offer stands. A state write is planned again."""
    calls: list[int] = []
    offer = RepairOfferer.offer
    monkeypatch.setattr(RepairOfferer, "offer", lambda self, *a: calls.append(1) or offer(self, *a))
    doc = state(2, 7)
    doc["current_phase"] = PHASES[1]  # a SYNC-* finding: a location repair is offered
    path = tmp_path / ".isdlc" / "state.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    log = tmp_path / ".isdlc" / "hook-activity.log"
    log.write_text("")
    session = ProjectSession(tmp_path)
    first = session.refresh(None).offer()
    assert first is not None and calls == [1]
    for _ in range(3):
        with log.open("a") as f:
            f.write(
                '{"ts":null,"hook":"h","event":"allow","phase":null,"agent":null,"reason":null}\n'
            )
        assert session.refresh([log]).offer() is first
    assert calls == [1]
    doc["state_version"] = 8
    path.write_text(json.dumps(doc))
    again = session.refresh([path]).offer()
    assert calls == [1, 1] and again is not None and again is not first
