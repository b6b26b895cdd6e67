"""The project the benchmarks open: a real-size iSDLC project.

* ``.isdlc/state.json``: a state the framework's own code wrote, taken from the generated corpus
  (``tests/conformance/isdlc/generated.jsonl.gz``, made by running the framework's code on seeded
  walks): the largest mid-workflow state of a walk that every validator accepts, written the
  owner's way (``JSON.stringify(x, null, 2)``, no trailing newline). Its project is ``acme-api``.
* ``.isdlc/hook-activity.log`` at the rotation cap: the framework rewrites the log to its newest
  500 lines once an append takes it over 1 MiB (docs/formats.md#hook-log), so a real log never
  holds more than 1 MiB. It is filled with seeded records of the owner's shape (the hooks,
  events and reason texts its hooks write, the phases and agents of the state's workflow) up to
  that size: about 6,000 lines.

No node is needed: the corpus is committed."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

HOOK_LOG_CAP = 1024 * 1024  # HOOK_LOG_MAX_BYTES (docs/formats.md#hook-log)
DATA_MARK = "acme-api"  # the state's project name, shown in the header once the data is on screen
#: The location matrix's rows (the three status locations side by side, the dashboard's point):
#: this state's current phase has no ``phases`` record, which only its matrix row says this way.
#: The data is on screen when both marks are.
ROWS_MARK = "(no record)"
DATA_MARKS = (DATA_MARK, ROWS_MARK)

# (hook, event, reason) as the framework's hooks log them (docs/formats.md#hook-log); {v}, {p}
# and {i} are filled per line. Weighted by repetition: the loop controller's bypass is the most
# common line of a working session.
_RECORDS: tuple[tuple[str, str, str | None], ...] = (
    ("phase-loop-controller", "same-phase-bypass", "intra-phase delegation to {a} in {p}"),
    ("phase-loop-controller", "same-phase-bypass", "intra-phase delegation to {a} in {p}"),
    ("phase-loop-controller", "same-phase-bypass", "intra-phase delegation to {a} in {p}"),
    ("explore-readonly-enforcer", "allow", "read-only tool Grep in explore mode"),
    ("output-format-validator", "allow", "artifact docs/requirements/REQ-{i}/spec.md matches"),
    ("atdd-completeness-validator", "allow", None),
    ("state-write-validator", "block", "V7: state_version {v} < disk {w}"),
    ("state-write-validator", "block", "V8: phase_index {i} < disk {j}"),
    ("iteration-corridor", "self-heal", "No requirements for phase '{p}'. Allowing action."),
    (
        "constitution-validator",
        "self-heal",
        "No requirements for phase '{p}'. Allowing completion.",
    ),
    ("menu-halt-enforcer", "warn", "menu presented without halting for the user's answer"),
    ("branch-guard", "block", "commit on main while a workflow is active (branch feature/REQ-{i})"),
    ("pre-task-dispatcher", "timeout_warning", "phase {p} running for {i} minutes"),
    ("plan-surfacer", "format-validation-warning", "tasks.md: task T{i} has no traceability tag"),
    ("walkthrough-tracker", "warn", "walkthrough not completed before {p}"),
    ("blast-radius-validator", "allow", "{i} files changed, all in the impact analysis"),
)


@cache
def real_state() -> dict[str, Any]:
    """The largest mid-workflow state of the corpus's walks that every validator accepted."""
    from tests.helpers.generated_corpus import load

    _, records = load()
    best: tuple[int, int, dict[str, Any]] | None = None
    for rec in records:
        state = rec["state"]
        if (
            rec["kind"] != "walk"
            or not rec.get("persisted")
            or rec["vs"].get("result") != "VALID"
            or rec["v829"].get("d") != "allow"
            or rec["head"].get("d") != "allow"
            or not isinstance(state.get("active_workflow"), dict)
        ):
            continue
        key = (len(json.dumps(state)), -rec["i"])
        if best is None or key > best[:2]:
            best = (*key, state)
    if best is None:
        raise RuntimeError("the generated corpus holds no mid-workflow state")
    return best[2]


def hook_log_lines(state: dict[str, Any], cap: int = HOOK_LOG_CAP, seed: int = 11) -> list[str]:
    """Seeded hook-log lines of the owner's shape whose file (one ``\\n`` each) fits in ``cap``."""
    from phasewatch.core.protocol import agents_for

    workflow = state.get("active_workflow") or {}
    phases = [p for p in workflow.get("phases", []) if isinstance(p, str)] or ["06-implementation"]
    rng = random.Random(seed)
    when = datetime(2026, 3, 4, 8, 0, tzinfo=UTC)
    lines: list[str] = []
    size = 0
    for n in range(1_000_000):
        hook, event, reason = _RECORDS[rng.randrange(len(_RECORDS))]
        phase = phases[min(len(phases) - 1, n * len(phases) // 6000)]
        agents = sorted(agents_for(phase)) or ["software-developer"]
        agent = agents[rng.randrange(len(agents))]
        v = rng.randrange(1, 400)
        when += timedelta(seconds=rng.uniform(1, 25))
        record = {
            "ts": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
            "hook": hook,
            "event": event,
            "phase": phase if rng.random() < 0.9 else None,
            "agent": agent if hook != "state-write-validator" else None,
            "reason": None
            if reason is None
            else reason.format(a=agent, p=phase, v=v, w=v + 2, i=rng.randrange(1, 60), j=60),
        }
        line = json.dumps(record, separators=(",", ":"))
        if size + len(line) + 1 > cap:
            break
        lines.append(line)
        size += len(line) + 1
    return lines


def make_project(root: Path) -> Path:
    """Write ``root/.isdlc/{state.json,hook-activity.log}``; returns the state file's path."""
    from phasewatch.core.simulate.files import render_state, write_truncate

    isdlc = root / ".isdlc"
    isdlc.mkdir(parents=True, exist_ok=True)
    state_path = isdlc / "state.json"
    state = real_state()
    write_truncate(state_path, render_state(state))
    (isdlc / "hook-activity.log").write_text("\n".join(hook_log_lines(state)) + "\n")
    return state_path
