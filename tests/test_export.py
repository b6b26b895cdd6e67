"""core.export: SARIF 2.1.0 and GitHub workflow commands for CI (pure, no textual)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.export import github_commands, line_of, path_keys, to_sarif
from phasewatch.core.findings import all_rules
from phasewatch.core.report import audit_project

from tests import factories

ESC = "\x1b"


def divergent_project(tmp_path: Path) -> Path:
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pending"
    (tmp_path / ".isdlc").mkdir()
    text = json.dumps(state, indent=2, ensure_ascii=False)
    (tmp_path / ".isdlc" / "state.json").write_text(text, encoding="utf-8")
    return tmp_path


def test_line_of_finds_the_deepest_key_of_a_json_path():
    text = json.dumps({"a": {"x": 1}, "phases": {"06-impl": {"status": "pending"}}}, indent=2)
    line = line_of(text, "phases.06-impl.status")
    assert text.splitlines()[line - 1].strip() == '"status": "pending"'
    assert line_of(text, "phases.missing.status") == text.splitlines().index('  "phases": {') + 1
    assert line_of("", "anything") == 1
    assert line_of("# plan\n\nbody", "line 3") == 3
    assert path_keys('a.b[2]["c.d"].e') == ["a", "b", "c.d", "e"]


@given(st.text(), st.text())
def test_line_of_never_raises_and_stays_in_the_text(text, path):
    line = line_of(text, path)
    assert line >= 1
    if "line" not in path:
        assert line <= text.count("\n") + 1


def test_sarif_has_every_required_field_and_one_result_per_finding(tmp_path):
    root = divergent_project(tmp_path)
    report = audit_project(root)
    rules = all_rules()
    log = to_sarif(report, rules, "1.2.3")
    json.dumps(log)  # serialisable
    assert log["version"] == "2.1.0" and log["$schema"].endswith("sarif-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "phasewatch" and driver["version"] == "1.2.3"
    assert [r["id"] for r in driver["rules"]] == [r.id for r in rules]
    for descriptor in driver["rules"]:
        assert descriptor["shortDescription"]["text"]
        assert descriptor["defaultConfiguration"]["level"] in {"error", "warning", "note"}
    assert len(run["results"]) == len(report.findings) > 0
    text = (root / ".isdlc" / "state.json").read_text().splitlines()
    for result, finding in zip(run["results"], report.findings, strict=True):
        assert result["ruleId"] == finding.rule_id
        assert driver["rules"][result["ruleIndex"]]["id"] == finding.rule_id
        assert result["level"] in {"error", "warning", "note"}
        assert result["message"]["text"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == ".isdlc/state.json"
        assert physical["region"]["startLine"] >= 1
    status = next(r for r in run["results"] if r["ruleId"] == "SYNC-STATUS")
    line = status["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert text[line - 1].strip().startswith('"status"')


def test_github_commands_are_one_escaped_line_per_finding(tmp_path):
    root = divergent_project(tmp_path)
    report = audit_project(root)
    lines = github_commands(report)
    assert len(lines) == len(report.findings)
    for line, finding in zip(lines, report.findings, strict=True):
        assert "\n" not in line and ESC not in line
        kind = {"error": "error", "warning": "warning", "info": "notice"}[str(finding.severity)]
        assert line.startswith(f"::{kind} file=.isdlc/state.json,line=")
        assert f"title={finding.rule_id}::" in line


def test_hostile_text_in_a_finding_is_cleaned_in_both_formats(tmp_path):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["active_workflow"]["current_phase"] = f"{key}{ESC}]52;c;SGVsbG8={ESC}\\\n::error::x"
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text(json.dumps(state, indent=2))
    report = audit_project(tmp_path)
    assert report.findings
    out = json.dumps(to_sarif(report, all_rules(), "0")) + "\n".join(github_commands(report))
    assert ESC not in out and "\\u001b" not in out
    commands = github_commands(report)
    assert len(commands) == len(report.findings)  # the injected newline started no command
    assert all("\n" not in line and line.startswith("::") for line in commands)
