"""Replay tests/conformance/observe/recorded.jsonl.gz: every fact the framework's own views
gave on each recorded project against what phasewatch reports (docs/observability.md#proof).

Each project's files are written back to a scratch directory and read by
:func:`phasewatch.core.observe.load_observed` at the framework's own ``timestamp``. The
framework's page facts are taken from its ``/api/state`` answer the way ``dashboard.html``
reads it (line numbers below are of commit 0689df91); its status report from the text
``formatWorkflowTrace`` / ``formatWorkflowSummary`` printed.

A fact that differs is a *difference* unless it is one of the places the framework reads what
its writers do not write (:data:`FRAMEWORK_WRONG`, each a file and line of the framework,
explained in docs/observability.md): those are counted apart, and only where the framework's
reading is shown to be the cause (its answer equals what the wrong name gives).

``python -m tests.helpers.observe_compare [file]`` prints the figures.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from phasewatch.core.observe import load_observed
from phasewatch.core.observe.js import date_ms, first, text, truthy
from phasewatch.core.observe.view import dag_status, framework_meta_slug, usage
from phasewatch.core.sources import discover

RECORDED = Path(__file__).parent.parent / "conformance" / "observe" / "recorded.jsonl.gz"

#: The framework's own wrong readings, by where they are (docs/observability.md).
FRAMEWORK_WRONG = {
    "trace-phase": "cli-formatter.js:130 reads snap.phase; collectPhaseSnapshots writes key",
    "trace-minutes": "cli-formatter.js:124 reads snap.wall_clock_minutes; the writer: timing.wall_clock_minutes",
    "trace-iterations": "cli-formatter.js:125 reads snap.iterations_used; the writer: test_iterations.count",
    "trace-duration": "cli-formatter.js:271 sums snap.wall_clock_minutes (the same wrong name)",
    "iteration-progress": "dashboard.html:726 reads phases[p].iteration_tracking; the test watcher writes iteration_requirements.test_iteration",
    "active-meta": "server.js:244 compares with a slug string: the first active item's meta, not the active one's",
}


class Tally:
    def __init__(self) -> None:
        self.facts: Counter[str] = Counter()
        self.wrong: Counter[str] = Counter()
        self.diffs: list[str] = []
        self.projects = 0

    def same(self, kind: str, where: str, theirs: Any, ours: Any) -> None:
        self.facts[kind] += 1
        if theirs != ours:
            self.diffs.append(f"{where} {kind}: framework {theirs!r} != phasewatch {ours!r}")


def _num(s: str) -> float | None:
    if s == "--":
        return None
    v = float(s)
    return int(v) if v.is_integer() else v


def _still(log: list[dict[str, Any]], rec: dict[str, Any]) -> bool:
    """Running, and no later entry for its agent and phase (docs/observability.md#sub-agents)."""
    i = next(n for n, r in enumerate(log) if r is rec)
    later = log[i + 1 :]
    return rec["status"] == "running" and not any(
        (r.get("agent"), r.get("phase")) == (rec.get("agent"), rec.get("phase")) for r in later
    )


def page_facts(api: dict[str, Any], t: Tally, ours: dict[str, Any], where: str) -> None:
    wf, aa = api["active_workflow"], api["active_analysis"]
    # header badge, dashboard.html:533-539; title 542-546
    t.same("status", where, "Building" if wf else "Analysing" if aa else "Idle", ours["status"])
    phases = api["phases"] or {}
    if wf:
        t.same("slug", where, first(wf.get("slug"), wf.get("artifact_folder"), None), ours["slug"])
        t.same("current_phase", where, wf.get("current_phase"), ours["current_phase"])
        keys = wf.get("phases") or []
        dag = []
        done = 0
        for k in keys:  # Phase DAG, dashboard.html:704-718; progress 760-764
            status = (phases.get(k) or {}).get("status") or "pending"
            done += status in ("completed", "complete")
            dag.append({"phase": k, "status": status, "dag": dag_status(status)})
        t.same("phase_dag", where, dag, ours["phases"])
        t.same("progress", where, {"completed": done, "total": len(keys)}, ours["progress"])
        log = wf.get("sub_agent_log") or []
        last = log[-1] if log else None  # Active Agent, dashboard.html:689-697
        theirs = (
            None
            if not last
            else {
                "agent": last.get("agent") or None,
                "status": last.get("status"),
                "running": last.get("status") == "running",
            }
        )
        t.same("active_agent", where, theirs, ours["active_agent"])
        mine_log = [
            {k: v for k, v in r.items() if k != "still_running"} for r in ours["sub_agent_log"]
        ]
        t.same("sub_agent_log", where, sorted(log, key=lambda r: not _still(log, r)), mine_log)
        cp = phases.get(wf.get("current_phase")) or {}
        it = cp.get("iteration_tracking")  # dashboard.html:723-733
        shown = bool(
            it and it.get("current") is not None and it.get("max") is not None and it["max"] > 0
        )
        mine = ours["iteration_progress"]
        if mine is not None and mine["source"] != "iteration_tracking":
            t.wrong["iteration-progress"] += 1
            test = cp["iteration_requirements"]["test_iteration"]
            t.same(
                "iteration_progress",
                where,
                [test.get("current_iteration"), test.get("max_iterations")],
                [mine["current"], mine["max"]],
            )
        else:
            pct = min(100, int(it["current"] / it["max"] * 100 + 0.5)) if shown else None
            t.same(
                "iteration_progress",
                where,
                [it["current"], it["max"], pct] if shown else None,
                [mine["current"], mine["max"], mine["percent"]] if mine else None,
            )
    # skills, server.js:152-179 + dashboard.html:653-665, 737-752
    log = api["skill_usage_log"] or []
    skills = api["agent_skills"]
    t.same(
        "skills_built_in",
        where,
        [
            {"skill_id": s["skill_id"], "usage": usage(first(s["skill_id"], "?"), log)}
            for s in skills["built_in"]
        ],
        ours["agent_skills"]["built_in"],
    )
    t.same(
        "skills_external",
        where,
        [{**s, "usage": usage(s["name"], log)} for s in skills["external"]],
        ours["agent_skills"]["external"],
    )
    t.same("hook_events", where, api["hook_events"], ours["hook_events"])
    items = [
        {
            k: i.get(k)
            for k in (
                "slug",
                "item_type",
                "analysis_status",
                "source_id",
                "phases_completed",
                "last_activity_at",
            )
        }
        for i in api["analysis_items"]
    ]
    t.same("analysis_items", where, items, ours["analysis_items"])
    mine_aa = ours["active_analysis"]
    if aa is None:
        t.same("active_analysis", where, None, mine_aa)
    else:  # the ANALYSE panel, dashboard.html:621-646
        done = aa.get("phases_completed") if isinstance(aa.get("phases_completed"), list) else []
        dots = [
            "done" if p in done else "active" if i == len(done) else "pending"
            for i, p in enumerate(
                (
                    "00-quick-scan",
                    "01-requirements",
                    "02-impact-analysis",
                    "03-architecture",
                    "04-design",
                )
            )
        ]
        theirs_aa = [
            aa.get("slug"),
            aa.get("analysis_status") or "raw",
            aa.get("item_type") or None,
            aa.get("source_id") or None,
            dots,
            len(done),
        ]
        ours_aa = (
            None
            if mine_aa is None
            else [
                mine_aa["slug"],
                mine_aa["analysis_status"],
                mine_aa["item_type"],
                mine_aa["source_id"],
                [p["state"] for p in mine_aa["phases"]],
                mine_aa["phases_completed"],
            ]
        )
        t.same("active_analysis", where, theirs_aa, ours_aa)
    personas = sorted(
        (
            {**p, "kind": "contributing" if p["role_type"] == "contributing" else "core"}
            for p in api["personas"]
        ),
        key=lambda p: p["name"],
    )
    t.same("personas", where, personas, ours["personas"])


def meta_facts(rec: dict[str, Any], t: Tally, ours: dict[str, Any], where: str) -> None:
    api = rec["api"]
    meta, aa = api["active_meta"], api["active_analysis"]
    slugs = [
        p.split("/")[2]
        for p, body in rec["files"].items()
        if p.startswith("docs/requirements/") and meta is not None and json.loads(body) == meta
    ]
    theirs_slug = slugs[0] if len(slugs) == 1 else None if meta is None else "?"
    mine = ours["active_meta"]
    mine_slug = None if mine is None else mine["slug"]
    if meta is not None and theirs_slug != mine_slug:
        index = json.loads(rec["files"][".isdlc/analysis-index.json"])
        cause = framework_meta_slug(index, date_ms(api["timestamp"]))
        ours_active = (ours["active_analysis"] or {}).get("slug")
        if cause == theirs_slug and ours_active != cause:  # server.js:244 picked the first
            t.wrong["active-meta"] += 1
            return
    if meta is None or mine is None:
        t.same("active_meta", where, theirs_slug, None if mine is None else mine["slug"])
        return
    domains = (meta.get("acceptance") or {}).get("domains")  # dashboard.html:593-618
    stages = []
    if truthy(domains):  # ([] is true in JavaScript: four stages, the first current)
        labels = (
            ("BugSummary", "RootCause", "FixStrategy", "Tasks")
            if aa and aa.get("item_type") == "BUG"
            else ("Requirements", "Architecture", "Design", "Tasks")
        )
        keys = ("requirements", "architecture", "design", "tasks")
        for s, label in enumerate(labels):
            accepted = keys[s] in domains
            prev = all(keys[c] in domains for c in range(s))
            stages.append(
                {
                    "stage": label,
                    "domain": keys[s],
                    "state": "accepted" if accepted else "current" if prev else "pending",
                }
            )
    t.same("active_meta", where, [theirs_slug, stages], [mine["slug"], mine["confirmation"]])


_ROW = re.compile(r"^  \[(.*?)\] (.*)$")


def _fmt(v: Any) -> str:
    return text(v)


def trace_facts(
    entry: dict[str, Any], out: str, mine: dict[str, Any], t: Tally, where: str
) -> None:
    lines = out.split("\n")
    head = lines[0][len("WORKFLOW TRACE: ") :]
    slug, _, kind = head.rpartition(" (")
    t.same("trace_header", where, [slug, kind[:-1]], [text(mine["slug"]), text(mine["type"])])
    m = re.match(r"Status: (.*) \| Duration: (.*?)m(?: \| Coverage: (.*)%)?$", lines[1])
    assert m, lines[1]
    t.same("trace_status", where, m.group(1), text(mine["status"]))
    snaps = [s for s in entry.get("phase_snapshots") or []]
    wrong_names = any(
        "wall_clock_minutes" not in s
        and (s.get("timing") or {}).get("wall_clock_minutes") is not None
        for s in snaps
    )
    if wrong_names and _num(m.group(2)) != mine["duration_minutes"]:
        t.wrong["trace-duration"] += 1
    else:
        t.same("trace_duration", where, _num(m.group(2)), mine["duration_minutes"])
    t.same(
        "trace_coverage",
        where,
        None if m.group(3) is None else _num(m.group(3)),
        mine["coverage_percent"],
    )
    i = lines.index("Phase Timeline:") + 1
    for snap, row in zip(snaps, mine["phases"], strict=True):
        rm = _ROW.match(lines[i])
        assert rm, lines[i]
        phase, dur, it, tail = rm.group(2).split("  ", 3)
        summary, _, prov = tail.rpartition("  [")
        t.same("trace_row_status", where, rm.group(1), text(row["status"]))
        if "phase" not in snap and phase == "unknown" and row["phase"] != "unknown":
            t.wrong["trace-phase"] += 1
        else:
            t.same("trace_row_phase", where, phase, text(row["phase"]))
        if (
            "wall_clock_minutes" not in snap
            and dur == "--"
            and row["wall_clock_minutes"] is not None
        ):
            t.wrong["trace-minutes"] += 1
        else:
            t.same(
                "trace_row_minutes",
                where,
                _num(dur[:-1]) if dur != "--" else None,
                row["wall_clock_minutes"],
            )
        if "iterations_used" not in snap and it == "--" and row["iterations"] is not None:
            t.wrong["trace-iterations"] += 1
        else:
            t.same(
                "trace_row_iterations",
                where,
                _num(it[: -len(" iter")]) if it != "--" else None,
                row["iterations"],
            )
        cov = f"{_fmt(row['coverage_percent'])}% cov" if row["coverage_percent"] is not None else ""
        t.same("trace_row_summary", where, summary, row["summary"] or cov)
        t.same("trace_row_provider", where, prov[:-1], text(row["provider"]))
        i += 1
    rest = lines[i:]
    expected: list[str] = []
    if mine["sub_agents_by_phase"]:
        expected += ["", "Sub-Agent Activity:"]
        for group in mine["sub_agents_by_phase"]:
            expected.append(f"  {group['phase']}:")
            for sa in group["agents"]:
                dur = "--" if sa["minutes"] is None else f"{sa['minutes']}m"
                prov = f"[{sa['provider']}]" if sa["provider"] else ""
                expected.append(f"    {text(sa['agent'])}  {dur}  {text(sa['status'])}  {prov}")
    if mine["hook_events"]:
        expected += ["", f"Hook Events: {len(mine['hook_events'])}"]
        for h in mine["hook_events"]:
            line = (
                f"  {text(h['hook'])} {text(h['action'])} {text(h['phase'])}: {text(h['reason'])}"
            )
            expected.append(line + (f" -> {text(h['resolution'])}" if h["resolution"] else ""))
    if mine["artifacts_produced"]:
        expected += ["", f"Artifacts Produced: {len(mine['artifacts_produced'])} files"]
        expected += [
            f"  {text(a['file_path'])} ({text(a['action'])})" for a in mine["artifacts_produced"]
        ]
    t.same("trace_activity", where, rest, expected)


def summary_facts(
    history: list[Any], out: str, mine: list[dict[str, Any]], t: Tally, where: str
) -> None:
    lines = out.split("\n")
    if not history:
        t.same("summary_table", where, out, "No workflow history found." if not mine else "?")
        return
    for entry, row, line in zip(history[-5:], mine, lines[3:], strict=True):
        dur = row["duration_minutes"]
        snaps = entry.get("phase_snapshots") or []
        theirs_dur = sum((s.get("wall_clock_minutes") or 0) for s in snaps)
        shown_dur = (
            theirs_dur
            if theirs_dur != dur and any("wall_clock_minutes" not in s for s in snaps)
            else dur
        )
        if shown_dur != dur:
            t.wrong["trace-duration"] += 1
        cov = f"{_fmt(row['coverage_percent'])}%" if row["coverage_percent"] is not None else "--"
        rendered = f"  {row['slug'].ljust(44)}{text(row['type']).ljust(10)}{text(row['status']).ljust(11)}{(_fmt(shown_dur) + 'm').ljust(10)}{cov}"
        t.same("summary_row", where, line, rendered)


def records(path: Path = RECORDED) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The recording's head line (the shared files) and its projects."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        head = json.loads(f.readline())
        return head, [json.loads(line) for line in f if line.strip()]


def materialize(head: dict[str, Any], rec: dict[str, Any], root: Path) -> None:
    """Write a recorded project's files under ``root``."""
    files = dict(rec["files"])
    for rel, body in head["shared"].items():
        name = rel.rsplit("/", 1)[1]
        if rel.startswith("src/claude/agents/") and name not in (rec["personas"] or ()):
            continue
        files[rel] = body
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    if rec["personas"] is not None:
        (root / "src/claude/agents").mkdir(parents=True, exist_ok=True)


def compare(path: Path = RECORDED) -> Tally:
    t = Tally()
    head, recs = records(path)
    for rec in recs:
        t.projects += 1
        with tempfile.TemporaryDirectory() as tmp:
            materialize(head, rec, Path(tmp))
            ours = load_observed(discover(Path(tmp)), now_ms=date_ms(rec["api"]["timestamp"]))
        where = rec["name"]
        t.same("problems", where, [], ours["problems"])
        page_facts(rec["api"], t, ours, where)
        meta_facts(rec, t, ours, where)
        state = json.loads(rec["files"][".isdlc/state.json"])
        history = state.get("workflow_history") or []
        for n, (entry, out, mine) in enumerate(
            zip(history, rec["traces"], ours["traces"], strict=True)
        ):
            trace_facts(entry, out, mine, t, f"{where}#{n}")
        summary_facts(history, rec["summary"], ours["recent_workflows"], t, where)
    return t


if __name__ == "__main__":
    tally = compare(Path(sys.argv[1]) if len(sys.argv) > 1 else RECORDED)
    print(f"projects: {tally.projects}")
    print(f"facts compared: {sum(tally.facts.values())}")
    for kind, n in sorted(tally.facts.items()):
        print(f"  {kind}: {n}")
    print(f"differences: {len(tally.diffs)}")
    for d in tally.diffs[:30]:
        print("  " + d)
    print("framework reading a name its writers do not write:")
    for kind, n in sorted(tally.wrong.items()):
        print(f"  {kind}: {n}  ({FRAMEWORK_WRONG[kind]})")
