"""The plugin registry's files for the plugin tests (test_plugins.py, test_widget_plugins.py):
PLUGINS.md's table, a plugin's hand-off (front matter, contract checksums, sections), and a
project whose plugin directories have hostile names."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from phasewatch.core.plugins import REQUIRED_SECTIONS
from phasewatch.core.sources import Project
from phasewatch.core.text import clean

TABLE = """\
# Plugin Registry

| Plugin Name | Status | Version | Last Updated |
|-------------|--------|---------|--------------|
{rows}
"""

SECTIONS = "\n\n".join(
    f"## {s}{': Phase 3.2 complete' if s == 'Current State' else ''}\n- item"
    for s in REQUIRED_SECTIONS
)


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


CONTRACTS = {
    "creative_brief": ("creative-brief.md", "# Brief\nA kick.\n"),
    "parameter_spec": ("parameter-spec.md", "# Params\n- decay\n"),
    "architecture": ("architecture.md", "# Arch\nosc -> env\n"),
    "plan": ("plan.md", "# Plan\nComplexity 5.0\n"),
}


def front(**fields: str | None) -> str:
    """Front matter lines; a value of None drops the field; 'contract_checksums' is raw text."""
    base: dict[str, str | None] = {
        "plugin": "MinimalKick",
        "stage": "3",
        "phase": '"3.2"',
        "status": "complete",
        "last_updated": "2025-11-13",
        "complexity_score": "5.0",
        "phased_implementation": "true",
        "orchestration_mode": "true",
        "next_action": "continue_dsp_phase_3.3",
        "next_phase": '"3.3"',
        "contract_checksums": "\n"
        + "\n".join(f"  {k}: {sha(body)}" for k, (_f, body) in CONTRACTS.items()),
    }
    base.update(fields)
    lines = [f"{k}: {v}" if not v.startswith("\n") else f"{k}:{v}" for k, v in base.items() if v]
    return "---\n" + "\n".join(lines) + "\n---\n"


def handoff(sections: str = SECTIONS, **fields: str | None) -> str:
    return front(**fields) + "\n# Stage 3.2 complete\n\n" + sections + "\n"


HOSTILE_DIRS = (
    "\x1b]52;c;aGVsbG8=\x07Clip",  # OSC 52: writes the clipboard
    "[@click=app.quit]Click",  # Textual markup with an action (no '/' in a file name)
    "[bold red]Loud",  # markup that would style the rest of a line
    "Title\x1b]0;pwned\x07\x9b2J",  # window title + 8-bit CSI clear screen
)


def hostile_project(root: Path) -> Project:
    """A registry of one plugin and the plugin directories named HOSTILE_DIRS, each with its
    notes and a hand-off naming its plugin (cleaned, as the directory name would be)."""
    rows = "\n".join(f"| Ok{i} | 🚧 Stage 1 | - | 2025-11-13 |" for i in range(1))
    write(root, "PLUGINS.md", TABLE.format(rows=rows))
    for name in HOSTILE_DIRS:
        base = root / "plugins" / name
        base.mkdir(parents=True)
        (base / "NOTES.md").write_text("## Status\n- **Current Status:** 🚧 Stage 2\n")
        (base / ".continue-here.md").write_text(handoff(plugin=json.dumps(clean(name))))
    return Project(root=root)
