"""`phasewatch demo` headless: the players finish, the autopilot decides through the writer."""

import json

from phasewatch.core.decide import read_journal
from phasewatch.tui.demo import main


def test_headless_demo_runs_to_completion_with_autopilot(tmp_path, capsys):
    root = tmp_path / "demo"
    code = main(
        ["--headless", "--speed", "40", "--autopilot", "0.2", "--dir", str(root), "--seed", "3"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    state = json.loads((root / ".isdlc" / "state.json").read_text())
    assert state["active_workflow"] is None
    assert state["workflow_history"][-1]["status"] == "completed"
    journal = read_journal(root / ".isdlc" / "phasewatch-decisions.jsonl")
    actions = {entry["action"] for entry in journal if entry["outcome"] == "applied"}
    assert "review continue" in actions
    assert any(a.startswith("approve") for a in actions)
    assert all(entry["who"] == "demo-autopilot" for entry in journal)
    assert "**Approved:**" in (root / ".tdd-progress.md").read_text()
    assert (root / "PLUGINS.md").exists()
    assert "phasewatch check" in out  # the final report


def test_demo_refuses_a_directory_with_a_state_file(tmp_path, capsys):
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("{}")
    assert main(["--headless", "--dir", str(tmp_path)]) == 2
    assert "already holds a state.json" in capsys.readouterr().err
