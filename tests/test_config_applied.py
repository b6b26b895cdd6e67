"""One config, applied once, in core: a rule that is off is gone from everything the session
hands the screens (the overview's findings, the gate panel, recent events, the timeline, TDD,
plugins, hooks, the project switcher's counts) and from ``check``."""

from __future__ import annotations

import json
from pathlib import Path

from phasewatch.core.config import Config
from phasewatch.core.report import audit_project
from phasewatch.core.review import phase_findings
from phasewatch.core.session import ProjectSession, SessionUpdate
from phasewatch.core.systems import PLUGINS as PLUGINS_SYSTEM

from tests import factories as F

HOOK_LINE = {
    "ts": "2026-03-04T09:12:03.418Z",
    "hook": "gate-blocker",
    "event": "block",
    "phase": "05-test-strategy",
    "agent": "test-design-engineer",
    "reason": "GATE BLOCKED: artifacts missing",
}
TDD = """# TDD Task: Rate limit

**Status:** in-progress
**Created:** 2026-03-01

## Slice 1: Token bucket

**Status:** done

## Slice 2: Per-tenant limits

**Status:** in-progress
"""
PLUGINS = """# Plugins

| Plugin Name | Status | Version | Last Updated |
|---|---|---|---|
| Drum808 | 💡 Ideated | - | 2026-03-01 |
"""


def _project(root: Path) -> Path:
    (root / ".isdlc").mkdir(parents=True)
    state = F.feature_state()
    before = json.loads(json.dumps(state))
    state["phases"]["04-design"]["status"] = "in_progress"  # V9-A: SYNC-STATUS
    state["state_version"] = before["state_version"] - 1  # will be a transition too
    path = root / ".isdlc" / "state.json"
    path.write_text(json.dumps(before, indent=2))
    (root / ".isdlc" / "hook-activity.log").write_text(json.dumps(HOOK_LINE) + "\n")
    (root / ".tdd-progress.md").write_text(TDD)
    (root / "PLUGINS.md").write_text(PLUGINS)
    return path


def _everything(update: SessionUpdate, session: ProjectSession) -> set[str]:
    """Every rule id any screen, count or event of this update can show."""
    snap = update.snapshot()
    ids = {f.rule_id for f in update.findings_for()}
    ids |= {f.rule_id for f in snap.findings} if snap else set()
    ids |= {f.rule_id for f in update.hooks.findings}
    for view in update.systems.values():
        ids |= {f.rule_id for f in view.findings}
    registry = update.system(PLUGINS_SYSTEM).data
    if registry is not None:
        ids |= {f.rule_id for rec in registry.plugins for f in rec.findings}
    ids |= {e.finding.rule_id for e in update.events_for()}
    ids |= {f.rule_id for entry in session.timeline for f in entry.findings}
    if snap is not None and snap.workflow is not None:
        for key in snap.workflow.phases:
            ids |= {f.rule_id for f in phase_findings(snap, key)}
    return ids


def _run(root: Path, config: Config | None) -> tuple[set[str], ProjectSession]:
    path = _project(root)
    session = ProjectSession(root, config=config)
    session.refresh(None)
    stale = json.loads(path.read_text())
    stale["phases"]["04-design"]["status"] = "in_progress"
    stale["active_workflow"]["current_phase_index"] -= 1  # V8: TR-INDEX-DOWN
    path.write_text(json.dumps(stale, indent=2))
    update = session.refresh({path})
    return _everything(update, session), session


def test_a_rule_that_is_off_is_gone_from_every_screen_and_from_check(tmp_path: Path) -> None:
    shown, _ = _run(tmp_path / "on", None)
    systems = ("SYNC-", "TR-", "HOOK-", "TDD-", "PLG-")
    off = {next(r for r in sorted(shown) if r.startswith(prefix)) for prefix in systems}
    assert len(off) == len(systems), shown  # one rule of every system fires without the config

    config = Config.model_validate({"rules": dict.fromkeys(off, "off")})
    shown_off, _ = _run(tmp_path / "off", config)
    assert shown_off and not shown_off & off, shown_off & off
    assert shown - off <= shown_off  # only those rules went

    report = audit_project(tmp_path / "off", config=config)
    assert not {f.rule_id for f in report.findings} & off
    assert {f.rule_id for f in audit_project(tmp_path / "off").findings} & off
