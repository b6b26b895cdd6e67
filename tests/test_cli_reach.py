"""The CLI's reach: check --format sarif|github, --config rule overrides, config --show,
--version."""

from __future__ import annotations

import json
import subprocess
import sys

from phasewatch.tui.cli import main

from tests import factories


def divergent(tmp_path):
    """V9-A (a warning) and a phase_status value validate-state.cjs rejects (an error)."""
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pending"
    state["active_workflow"]["phase_status"][key] = "done"
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text(json.dumps(state, indent=2))
    return tmp_path


def test_check_sarif_is_one_json_log_and_keeps_the_exit_code(tmp_path, capsys):
    root = divergent(tmp_path)
    code = main(["check", str(root), "--format", "sarif"])
    log = json.loads(capsys.readouterr().out)
    assert code == 1
    assert log["version"] == "2.1.0"
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {"SYNC-STATUS"}


def test_check_github_prints_workflow_commands(tmp_path, capsys):
    root = divergent(tmp_path)
    assert main(["check", str(root), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith("::") for line in lines)
    assert any("title=SYNC-STATUS::" in line for line in lines)


def test_rule_overrides_from_the_config_change_the_verdict(tmp_path, capsys):
    root = divergent(tmp_path)
    main(["check", str(root), "--json"])
    ids = {f["rule_id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    config = tmp_path / "c.toml"
    config.write_text("[rules]\n" + "".join(f'"{i}" = "off"\n' for i in ids))
    assert main(["check", str(root), "--json", "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


def test_a_bad_config_is_exit_2_with_the_key_named(tmp_path, capsys):
    root = divergent(tmp_path)
    config = tmp_path / "c.toml"
    config.write_text('[rules]\nSYNC-STATUS = "loud"\n')
    assert main(["check", str(root), "--config", str(config)]) == 2
    assert "rules.SYNC-STATUS" in capsys.readouterr().err


def test_config_show_prints_the_effective_config(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text("[notifications]\ndesktop = false\n")
    assert main(["config", "--show", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "[notifications]" in out and "desktop = false" in out


def test_version():
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", "--version"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout.startswith("phasewatch ")


def test_an_extra_agent_from_the_config_is_accepted(tmp_path, capsys):
    state = factories.feature_state()
    state["active_agent"] = "my-custom-agent"
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text(json.dumps(state, indent=2))
    main(["check", str(tmp_path), "--json"])
    before = {f["rule_id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert "SYNC-AGENT" in before
    config = tmp_path / "c.toml"
    config.write_text('[agents]\nextra = ["my-custom-agent"]\n')
    main(["check", str(tmp_path), "--json", "--config", str(config)])
    after = {f["rule_id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert after == before - {"SYNC-AGENT"}


def test_an_unknown_theme_is_refused_with_the_closest_name(tmp_path, capsys):
    from phasewatch.tui.cli import main as cli_main

    config = tmp_path / "c.toml"
    config.write_text('theme = "textual-drak"\n')
    assert cli_main(["config", "--show", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "no theme named 'textual-drak'" in err and 'did you mean "textual-dark"' in err
