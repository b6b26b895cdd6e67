"""Audits at scale: a state with N phases (snapshot and transition rules, the location rows) and
a plugin registry of N rows. Each size is timed once; a linear audit takes about 10x as long for
10x the input, a quadratic one 100x. Run: ``.venv/bin/python bench/bench_audit_scale.py``.
"""

from __future__ import annotations

import copy
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def big_state(n: int) -> dict:
    from tests import factories as F

    state = F.feature_state()
    template = state["phases"]["00-quick-scan"]
    names = [f"{k:06d}-phase" for k in range(n)]
    state["phases"] = {}
    for k, name in enumerate(names):
        phase = copy.deepcopy(template)
        phase["status"] = "completed" if k < n - 1 else "in_progress"
        phase["artifacts"] = [f"docs/x/{name}.md"]
        state["phases"][name] = phase
    aw = state["active_workflow"]
    aw["phases"] = names
    aw["phase_status"] = {name: state["phases"][name]["status"] for name in names}
    aw["current_phase"] = state["current_phase"] = names[-1]
    aw["current_phase_index"] = n - 1
    state["history"] = [dict(state["history"][0], action=f"step {k}") for k in range(n)]
    state["skill_usage_log"] = [dict(state["skill_usage_log"][0], phase=names[k]) for k in range(n)]
    return state


def time_state(n: int) -> tuple[float, float, int]:
    from phasewatch.core.snapshot import evaluate

    prev = big_state(n)
    cur = copy.deepcopy(prev)
    cur["state_version"] += 1
    cur["phases"][cur["current_phase"]]["status"] = "completed"
    t = time.perf_counter()
    a = evaluate(prev, ".isdlc/state.json")
    snap = time.perf_counter() - t
    t = time.perf_counter()
    b = evaluate(cur, ".isdlc/state.json", a)
    both = time.perf_counter() - t
    return snap, both, len(b.findings)


def registry_md(n: int) -> str:
    statuses = [
        "📦 Installed",
        "💡 Ideated",
        "🚧 Stage 3",
        "✅ Working",
        "🐛 Has Issues",
        "nonsense",
    ]
    rows = [
        f"| Plugin{k} | {statuses[k % len(statuses)]} | 1.0.{k % 7} | 2025-11-{k % 28 + 1:02d} |"
        for k in range(n)
    ]
    rows += [f"| Plugin{k} | 💡 Ideated | - | 2025-11-10 |" for k in range(0, n, 50)]  # duplicates
    return (
        "# PLUGIN REGISTRY\n\n## Plugin Registry\n\n| Plugin Name | Status | Version | Last Updated |\n"
        "|-------------|--------|---------|--------------|\n" + "\n".join(rows) + "\n"
    )


def time_registry(n: int) -> tuple[float, int]:
    from phasewatch.core.plugins import load_registry
    from phasewatch.core.sources import discover

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "plugins").mkdir()
        (root / "PLUGINS.md").write_text(registry_md(n))
        project = discover(root)
        t = time.perf_counter()
        reg = load_registry(project)
        return time.perf_counter() - t, len(reg.findings)


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 100_000]
    for n in sizes:
        snap, both, found = time_state(n)
        print(
            f"state, {n:>7,} phases: snapshot {snap:6.2f} s, next write {both:6.2f} s ({found} findings)"
        )
    for n in [2 * s for s in sizes]:
        took, found = time_registry(n)
        print(f"registry, {n:>7,} rows: {took:6.2f} s ({found} findings)")


if __name__ == "__main__":
    main()
