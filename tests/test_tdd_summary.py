"""``check`` reports the TDD plan: approval, slices, remaining, and the stop hook's verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from phasewatch.core.tdd import parse_progress, summary_json, summary_line
from phasewatch.tui.cli import main

PLAN = """# TDD Task: t
**Status:** in-progress
{marker}
## Slice 1: a
**Status:** done
## Slice 2: b
**Status:** fail
## Slice 3: c
**Status:** pending
### Slice 4: not seen by the hook
**Status:** in-progress
"""


def check_json(tmp_path: Path, capsys, text: str) -> dict:
    (tmp_path / ".tdd-progress.md").write_text(text, encoding="utf-8")
    main(["check", str(tmp_path), "--json"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("marker", "approved", "decision"),
    [
        ("**Approved:** 2026-03-02T10:00:00Z", True, "block"),
        ("", False, "allow"),
        ("- **Approved:** 2026-03-02", False, "allow"),  # the hook rejects a bulleted marker
    ],
)
def test_check_json_reports_the_tdd_plan(tmp_path, capsys, marker, approved, decision):
    doc = check_json(tmp_path, capsys, PLAN.format(marker=marker))
    assert doc["tdd"] == {
        "approved": approved,
        "slices": 4,
        "remaining": 2,  # slices 3 and 4 (a failed slice is finished)
        "stop_hook": {"decision": decision, "remaining": 1},  # it does not see `### Slice 4`
    }


def test_check_json_tdd_is_null_without_a_plan(tmp_path, capsys):
    (tmp_path / "PLUGINS.md").write_text("# Plugins\n", encoding="utf-8")
    main(["check", str(tmp_path), "--json"])
    assert json.loads(capsys.readouterr().out)["tdd"] is None


def test_check_text_names_approval_and_the_hook(tmp_path, capsys):
    (tmp_path / ".tdd-progress.md").write_text(PLAN.format(marker=""), encoding="utf-8")
    main(["check", str(tmp_path)])
    out = capsys.readouterr().out
    assert (
        ".tdd-progress.md  NOT approved, 4 slices, 2 remaining; stop hook: allow (counts 1)" in out
    )


def test_a_negative_hook_count_is_reported_as_computed():
    text = "**Approved:** x\n**Status:** done\n## Slice 1\n**Status:** done\n"
    summary = summary_json(parse_progress(text))
    assert summary["stop_hook"] == {"decision": "allow", "remaining": -1}
    assert summary_line(summary).endswith("stop hook: allow (counts -1)")
