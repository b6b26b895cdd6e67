"""Bounded cost for any input: audits linear in what they read, memory per hook-log line bounded,
notifications coalesced. The shape of the work is asserted (calls counted, bytes traced), never
a wall-clock time: these pass the same on a loaded machine."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from phasewatch.core import models
from phasewatch.core.snapshot import evaluate

from tests import factories as F
from tests.helpers.work import calls


def wide_state(n: int) -> dict:
    """A workflow of ``n`` phases, plus ``n // 2`` stale ``phases`` entries it does not run and a
    pending escalation naming no phase of it: every per-phase rule has work to do."""
    state = F.feature_state()
    template = state["phases"]["00-quick-scan"]
    names = [f"{k:06d}-phase" for k in range(n)]
    phases = {}
    for k, name in enumerate([*names, *(f"{k:06d}-stale" for k in range(n // 2))]):
        phases[name] = dict(
            copy.deepcopy(template), status="completed" if k < n - 1 else "in_progress"
        )
    state["phases"] = phases
    aw = state["active_workflow"]
    aw["phases"] = names
    aw["phase_status"] = {name: phases[name]["status"] for name in phases}
    aw["current_phase"] = state["current_phase"] = names[-1]
    aw["current_phase_index"] = n - 1
    state["pending_escalations"] = [
        {
            "type": "gate_blocked",
            "hook": "h",
            "phase": "99-nowhere",
            "detail": "d",
            "timestamp": F.ts(40),
        }
    ]
    return state


def audit_twice(n: int) -> Callable[[], Any]:
    prev = wide_state(n)
    cur = copy.deepcopy(prev)
    cur["state_version"] += 1
    cur["active_workflow"]["phases"] = cur["active_workflow"]["phases"][::-1]  # reordered

    def run() -> Any:
        return evaluate(cur, "s", evaluate(prev, "s"))

    return run


def test_state_audits_do_linear_work_in_the_number_of_phases():
    audit_twice(20)()  # the models' schemas are built on first use: not part of the count
    small, large = calls(audit_twice(200)), calls(audit_twice(800))
    # 4x the phases: about 4x the calls when linear (16x when quadratic)
    assert large / small < 5, (small, large)


def test_the_phase_index_is_built_once_per_workflow(monkeypatch):
    built = []
    original = models.phase_positions

    def counting(phases: list[str]) -> Any:
        built.append(len(phases))
        return original(phases)

    monkeypatch.setattr(models, "phase_positions", counting)
    audit_twice(500)()
    assert built == [500, 500]  # once for the previous state's workflow, once for the current


def test_a_finding_stays_small_whatever_the_list_it_names():
    snap = evaluate(wide_state(3000), "s")
    stale = [f for f in snap.findings if f.rule_id == "BOUNDS-STALE-PHASE"]
    assert len(stale) >= 1500
    biggest = max(len(json.dumps([f.expected, f.actual, f.message])) for f in snap.findings)
    assert biggest < 4000  # the 3,000 phase names are not copied into each finding


def registry(n: int) -> str:
    statuses = ["📦 Installed", "💡 Ideated", "🚧 Stage 3", "✅ Working", "🐛 Has Issues", "odd"]
    rows = [
        f"| Plugin{k} | {statuses[k % len(statuses)]} | 1.0.{k % 7} | 2025-11-{k % 28 + 1:02d} |"
        for k in range(n)
    ]
    rows += [f"| Plugin{k} | 💡 Ideated | - | 2025-11-10 |" for k in range(0, n, 10)]  # repeats
    return (
        "# PLUGIN REGISTRY\n\n## Plugin Registry\n\n| Plugin Name | Status | Version | Last Updated |\n"
        "|---|---|---|---|\n" + "\n".join(rows) + "\n"
    )


def test_the_registry_checks_do_linear_work_in_the_number_of_rows(tmp_path):
    from phasewatch.core.plugins import load_registry
    from phasewatch.core.sources import discover

    def load(n: int) -> Callable[[], Any]:
        root = tmp_path / str(n)
        (root / "plugins").mkdir(parents=True)
        (root / "PLUGINS.md").write_text(registry(n), encoding="utf-8")
        project = discover(root)
        return lambda: load_registry(project)

    load(20)()
    small, large = calls(load(500)), calls(load(2000))
    assert large / small < 5, (small, large)


# ---------------------------------------------------------------------------- hook log memory


def junk_line(i: int) -> bytes:
    """Lines nobody should write, each different: invalid text (non-ASCII, so its kept copy
    would cost 4 bytes a character), deep nesting, and valid lines whose few-valued fields are
    long and new every time."""
    kind = i % 4
    if kind == 0:
        return ("{ → " + f"{i}" * 300).encode()
    if kind == 1:
        return b"[" * 200 + b"]" * 200
    if kind == 2:
        return b"\xff\xfe" * 2000 + str(i).encode()
    name = f"{i:x}" * 20
    return json.dumps(
        {"ts": None, "hook": "h" + name, "event": "block", "phase": "p" + name,
         "agent": "a" + name, "reason": "r" * 200},
        separators=(",", ":"),
    ).encode()  # fmt: skip


def read_log(root, lines: int, measure: bool = True) -> tuple[Any, int]:
    """A session that has read a log of ``lines`` junk lines, and the bytes it holds for it."""
    import gc
    import tracemalloc

    from phasewatch.core.session import ProjectSession

    isdlc = root / ".isdlc"
    isdlc.mkdir(parents=True)
    (isdlc / "state.json").write_text(json.dumps(F.feature_state()))
    with open(isdlc / "hook-activity.log", "wb") as f:
        f.writelines(junk_line(i) + b"\n" for i in range(lines))
    session = ProjectSession(root, hook_part_seconds=3600)
    gc.collect()
    if measure:
        tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        update = session.refresh()
        while update.hooks.pending:
            update = session.refresh({session.project.hook_log})
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert update.hooks.total == lines
    return session, held


def test_memory_per_hook_log_line_is_bounded_whatever_the_line(tmp_path):
    read_log(tmp_path / "warm", 200)  # modules imported on first use are not the log's
    _session, small = read_log(tmp_path / "small", 4_000)
    session, large = read_log(tmp_path / "large", 12_000)
    # what each further line costs: a row's columns, a few dozen bytes; its text stays in the
    # file (it was ~1.5 KB a line: the invalid lines' text and every new name were held)
    assert (large - small) / 8_000 < 100, (small, large)
    store = session.hooks
    assert len(store.distinct("hook")) <= 1001 and len(store.distinct("phase")) <= 1001


def test_a_junk_row_still_shows_what_the_reference_parser_says(tmp_path):
    from phasewatch.core.hooklog import parse_line

    session, _held = read_log(tmp_path, 400, measure=False)
    store = session.hooks
    for row in (0, 1, 2, 3, 398, 399):
        shown = store.record(row)
        want = parse_line(junk_line(row), row + 1, shown.offset)
        assert shown == want


def test_the_text_filter_still_finds_what_is_no_longer_held(tmp_path):
    """A name past the columns' bound and an invalid line's text are searched in the log's
    bytes: the filter finds exactly the rows it found when they were held."""
    from phasewatch.core.hooklog.store import HookFilter

    session, _held = read_log(tmp_path, 8_000, measure=False)
    store = session.hooks
    name = f"{7999:x}" * 20  # the last valid line's names: long, so not held in the columns
    assert store.value("hook", 7999) == "(other)"
    for needle, rows in ((f"h{name}", [7999]), ("{ → 7996", [7996]), ("7996", [7996])):
        mask = store.mask(HookFilter(text=needle), 0, store.filled)
        assert mask is not None
        found = [i for i, b in enumerate(mask) if b]
        assert found == rows, (needle, found)
