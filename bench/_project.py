"""The project the benchmarks open: a realistic mid-workflow feature state written the owner's
way (``JSON.stringify(x, null, 2)``, no trailing newline) and a 5,000-line hook log."""

from __future__ import annotations

import json
from pathlib import Path

HOOK_LINES = 5000


def make_project(root: Path) -> Path:
    """Write ``root/.isdlc/{state.json,hook-activity.log}``; returns the state file's path."""
    from phasewatch.core.simulate.files import render_state, write_truncate

    from tests.factories import feature_state

    isdlc = root / ".isdlc"
    isdlc.mkdir()
    state_path = isdlc / "state.json"
    write_truncate(state_path, render_state(feature_state()))
    lines = [
        json.dumps(
            {
                "ts": f"2026-03-04T09:{i // 60 % 60:02d}:{i % 60:02d}.418Z",
                "hook": "phase-loop-controller",
                "event": "same-phase-bypass",
                "phase": "05-test-strategy",
                "agent": "test-design-engineer",
                "reason": f"intra-phase call {i}",
            },
            separators=(",", ":"),
        )
        for i in range(HOOK_LINES)
    ]
    (isdlc / "hook-activity.log").write_text("\n".join(lines) + "\n")
    return state_path
