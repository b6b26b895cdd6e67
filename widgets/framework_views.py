"""What the iSDLC framework's own live dashboard and status report show, as one scrollable
page (docs/observability.md#the-object): the build (state, phase DAG, active agent, iteration
progress, sub-agents, skills, the current phase's hook events), the analysis (the active item,
its phases and confirmation stages, personas, the items), the recent workflows and the files
that could not be read.

Takes the ``observability`` object (plain JSON, ``core.observe``); never reads a file. Every
string from a file goes in through :func:`~widgets._style.plain` (cleaned, never markup).
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ._style import plain, show_in, theme_styles

DAG_GLYPH = {
    "completed": ("✓", "success"),
    "running": ("●", "warning"),
    "failed": ("✗", "error"),
    "skipped": ("⊘", "muted"),
    "pending": ("○", "muted"),
}
USAGE_ROLE = {"confirmed": "success", "likely": "warning", "loaded": "muted"}
STAGE_ROLE = {"accepted": "success", "current": "warning", "pending": "muted"}
BAR = 20
SHOWN_AGENTS = 12
SHOWN_EVENTS = 8
SHOWN_ITEMS = 10


def _minutes(ms: Any) -> str:
    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return "--"
    return "<1m" if ms < 60000 else f"{round(ms / 60000)}m"


def _section(out: Text, title: str, s: dict[str, Style]) -> None:
    if out.plain:
        out.append("\n\n")
    out.append(title, style=s["accent"])
    out.append("\n")


def _build(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    _section(out, "Build", s)
    if data["status"] != "Building":
        out.append("No active build.", style=s["muted"])
        return
    out.append_text(plain(f"{data['workflow_type']} · {data['slug'] or '--'}"))
    prog = data["progress"]
    out.append(f" · {prog['completed']}/{prog['total']} phases\n")
    for i, phase in enumerate(data["phases"]):
        glyph, role = DAG_GLYPH.get(phase["dag"], DAG_GLYPH["pending"])
        out.append("  " if i else "", style="")
        out.append(f"{glyph} ", style=s[role])
        out.append_text(
            plain(phase["phase"], s["accent"] if phase["phase"] == data["current_phase"] else "")
        )
    agent = data["active_agent"]
    out.append("\nActive agent: ")
    if agent is None:
        out.append("none logged", style=s["muted"])
    else:
        out.append_text(plain(agent["agent"] or "unknown"))
        out.append(
            " running" if agent["running"] else f" {agent['status']}",
            style=s["warning" if agent["running"] else "muted"],
        )
    it = data["iteration_progress"]
    if it is not None:
        pct = it["percent"] or 0
        fill = round(BAR * pct / 100)
        out.append("\nIterations:   ")
        out.append("█" * fill, style=s["warning" if it["escalated"] else "success"])
        out.append("░" * (BAR - fill), style=s["muted"])
        out.append(f" {it['current']} / {it['max']}")
        if it["escalated"]:
            out.append(" escalated", style=s["error"])
        out.append(f"  ({it['source']})", style=s["muted"])


def _agents(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    log = data["sub_agent_log"]
    if not log:
        return
    running = sum(1 for r in log if r["still_running"])
    _section(out, f"Sub-agents · {len(log)} logged, {running} running", s)
    for rec in log[:SHOWN_AGENTS]:
        role = (
            "warning" if rec["still_running"] else "error" if rec["status"] == "failed" else "muted"
        )
        out.append("● " if rec["still_running"] else "  ", style=s[role])
        out.append_text(
            plain(f"{rec['agent'] or 'unknown'}", s[role] if rec["still_running"] else "")
        )
        parent = f" ← {rec['parent_agent']}" if rec["parent_agent"] else ""
        out.append_text(plain(f"{parent}  {rec['phase'] or '--'}  {rec['status']}", s["muted"]))
        tokens = rec["tokens_used"]
        extra = f"  {_minutes(rec['duration_ms'])}"
        extra += f"  {tokens} tok" if isinstance(tokens, int) else ""
        extra += f"  [{rec['provider']}]" if rec["provider"] else ""
        out.append_text(plain(extra, s["muted"]))
        out.append("\n")
    if len(log) > SHOWN_AGENTS:
        out.append(f"  … {len(log) - SHOWN_AGENTS} more\n", style=s["muted"])
    out.rstrip()


def _skills(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    skills = data["agent_skills"]
    entries = [(x["skill_id"], x["usage"], "") for x in skills["built_in"]]
    entries += [(x["name"], x["usage"], " (ext)") for x in skills["external"]]
    if not entries:
        return
    confirmed = sum(1 for e in entries if e[1] == "confirmed")
    _section(out, f"Skills · {len(entries)}, {confirmed} confirmed", s)
    for i, (name, usage, ext) in enumerate(entries):
        out.append("  " if i else "")
        out.append_text(plain(f"{name}{ext}", s[USAGE_ROLE.get(usage, "muted")]))
        out.append(f" {usage}", style=s["muted"])


def _hooks(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    events = data["hook_events"]
    if not events:
        return
    phase = data["current_phase"]
    _section(out, f"Hook events{f' in {phase}' if phase else ''} · last {len(events)}", s)
    for ev in events[-SHOWN_EVENTS:]:
        kind = str(ev["event"] or "").lower()
        role = {"block": "error", "warn": "warning", "allow": "success"}.get(kind, "muted")
        out.append_text(plain(f"  {ev['event'] or '?':<6}", s[role]))
        out.append_text(plain(f" {ev['hook'] or '?'}: {ev['reason'] or ''}"))
        out.append("\n")
    out.rstrip()


def _analysis(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    aa = data["active_analysis"]
    items = data["analysis_items"]
    if aa is None and not items:
        return
    _section(out, f"Analysis · {len(items)} items", s)
    if aa is not None:
        out.append("Active: ")
        out.append_text(
            plain(
                f"{aa['slug']} · {aa['item_type'] or '--'} · {aa['analysis_status']} · {aa['source_id'] or '--'}"
            )
        )
        out.append("\n  ")
        for p in aa["phases"]:
            role = {"done": "success", "active": "warning"}.get(p["state"], "muted")
            out.append({"done": "✓", "active": "●"}.get(p["state"], "○") + " ", style=s[role])
        out.append(f"{aa['phases_completed']}/{aa['phases_total']} phases")
        meta = data["active_meta"]
        if meta is not None and meta["confirmation"]:
            out.append("\n  Confirmation: ")
            for i, stage in enumerate(meta["confirmation"]):
                out.append(" › " if i else "", style=s["muted"])
                out.append(stage["stage"], style=s[STAGE_ROLE.get(stage["state"], "muted")])
        personas = data["personas"]
        if personas:
            out.append("\n  Personas: ")
            for i, p in enumerate(personas):
                out.append(", " if i else "")
                out.append_text(plain(p["name"], s["accent"] if p["kind"] == "core" else ""))
        out.append("\n")
    else:
        out.append("No analysis active (none within 2 minutes).\n", style=s["muted"])
    for item in items[:SHOWN_ITEMS]:
        done = len(item["phases_completed"]) if isinstance(item["phases_completed"], list) else 0
        out.append_text(
            plain(
                f"  {item['slug']}  {item['item_type'] or '--'}  {item['analysis_status'] or 'raw'}  {done}/5",
                s["muted"],
            )
        )
        out.append("\n")
    if len(items) > SHOWN_ITEMS:
        out.append(f"  … {len(items) - SHOWN_ITEMS} more\n", style=s["muted"])
    out.rstrip()


def _history(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    rows = data["recent_workflows"]
    if not rows:
        return
    _section(out, f"Recent workflows · {data['workflows']} finished", s)
    for row in reversed(rows):
        cov = "--" if row["coverage_percent"] is None else f"{row['coverage_percent']}%"
        out.append_text(plain(f"  {row['slug']}", s["accent"]))
        out.append_text(
            plain(
                f"  {row['type']}  {row['status']}  {row['duration_minutes']}m  {cov}", s["muted"]
            )
        )
        out.append("\n")
    out.rstrip()


def _trace(out: Text, data: dict[str, Any], s: dict[str, Style]) -> None:
    """The newest workflow's trace (formatWorkflowTrace's timeline, read from what the writers
    write), with its sub-agent, hook event and artifact counts."""
    if not data["traces"]:
        return
    tr = data["traces"][-1]
    _section(out, "Last workflow trace", s)
    out.append_text(
        plain(f"{tr['slug']} ({tr['type']}) · {tr['status']} · {tr['duration_minutes']}m")
    )
    if tr["coverage_percent"] is not None:
        out.append_text(plain(f" · {tr['coverage_percent']}% coverage"))
    for row in tr["phases"]:
        done = row["status"] == "done"
        out.append("\n  ✓ " if done else "\n  · ", style=s["success" if done else "muted"])
        mins = "--" if row["wall_clock_minutes"] is None else f"{row['wall_clock_minutes']}m"
        its = "--" if row["iterations"] is None else f"{row['iterations']} iter"
        out.append_text(plain(f"{row['phase']}  {mins}  {its}"))
        if row["summary"]:
            out.append_text(plain(f"  {row['summary']}", s["muted"]))
    agents = sum(len(g["agents"]) for g in tr["sub_agents_by_phase"])
    out.append(
        f"\n  {agents} sub-agent runs · {len(tr['hook_events'])} hook events · "
        f"{len(tr['artifacts_produced'])} artifacts",
        style=s["muted"],
    )


def render(data: dict[str, Any], s: dict[str, Style]) -> Text:
    """The whole page as one Text (every file string cleaned, never markup)."""
    out = Text()
    if data["problems"]:
        _section(out, "Unreadable", s)
        for p in data["problems"]:
            out.append_text(plain(f"  {p['file']}: {p['message']}", s["error"]))
            out.append("\n")
        out.rstrip()
    _build(out, data, s)
    _agents(out, data, s)
    _skills(out, data, s)
    _hooks(out, data, s)
    _analysis(out, data, s)
    _history(out, data, s)
    _trace(out, data, s)
    return out


class FrameworkViews(VerticalScroll, can_focus=True):
    """The page, scrollable with the keyboard (arrows, PgUp/PgDn, Home/End)."""

    DEFAULT_CSS = """
    FrameworkViews {
        height: 1fr;
        & > #views-body { width: 1fr; height: auto; padding: 0 1; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: dict[str, Any] | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="views-body", markup=False)

    def set_data(self, data: dict[str, Any] | None) -> None:
        self.data = data
        body = self.query_one("#views-body", Static)
        show_in(body, Text() if data is None else render(data, theme_styles(self.app)))
