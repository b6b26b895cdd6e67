"""`phasewatch check`: output, JSON document, exit codes, rules listing."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from phasewatch.tui.cli import main, rules_markdown

from tests import factories

ROOT = Path(__file__).resolve().parent.parent


def project(tmp_path: Path, state: dict | None = None, raw: str | None = None) -> Path:
    (tmp_path / ".isdlc").mkdir(exist_ok=True)
    text = raw if raw is not None else json.dumps(state, indent=2, ensure_ascii=False)
    (tmp_path / ".isdlc" / "state.json").write_text(text, encoding="utf-8")
    return tmp_path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_clean_project_exits_0(tmp_path, capsys):
    project(tmp_path, factories.feature_state())
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0, out
    assert "0 errors" in out


def test_divergent_project_exits_1_and_explains(tmp_path, capsys):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pending"
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 1
    assert "SYNC-STATUS" in out and f"phases.{key}.status" in out
    assert "fix:" in out


def test_json_document_shape(tmp_path, capsys):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["active_workflow"]["phase_status"][key] = "completed"
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 1 and doc["exit_code"] == 1
    assert doc["schema"] == 1
    assert doc["root"] == str(tmp_path.resolve())
    assert doc["systems"] == ["isdlc"]
    assert set(doc["summary"]) == {"error", "warning", "info"}
    assert doc["summary"]["error"] == sum(f["severity"] == "error" for f in doc["findings"])
    finding = next(f for f in doc["findings"] if f["rule_id"] == "SYNC-STATUS")
    assert set(finding) == {
        "rule_id",
        "severity",
        "source",
        "path",
        "expected",
        "actual",
        "message",
        "hint",
    }
    assert finding["source"] == ".isdlc/state.json"
    assert doc["projects"][0]["state_version"] == state["state_version"]


def test_strict_fails_on_warnings(tmp_path, capsys):
    state = factories.feature_state()
    state["current_phase"] = state["active_workflow"]["phases"][0]  # SYNC-CURRENT (warning)
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path), "--json")
    doc = json.loads(out)
    assert doc["summary"]["error"] == 0 or code == 1
    if doc["summary"]["error"] == 0:
        assert code == 0
        assert run(capsys, str(tmp_path), "--strict")[0] == 1


@pytest.mark.parametrize(
    "raw", ["{ not json", "[1, 2]", "\x00\xff garbage"], ids=["invalid", "array", "binary"]
)
def test_unreadable_state_exits_2_with_a_finding(tmp_path, capsys, raw):
    project(tmp_path, raw=raw)
    code, out, _ = run(capsys, str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 2
    assert any(f["rule_id"].startswith("READ-") for f in doc["findings"])


def test_missing_directory_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, str(tmp_path / "nope"))
    assert code == 2 and "no such directory" in err


def test_no_workflow_files(tmp_path, capsys):
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "no workflow files" in err


def test_markup_in_state_is_printed_literally(tmp_path, capsys):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "[/][bold]x\x1b]0;pwned\x07"
    project(tmp_path, state)
    _code, out, _ = run(capsys, str(tmp_path))
    assert "[/][bold]x" in out
    assert "\x1b]0" not in out and "pwned" not in out


def test_rules_listing(capsys):
    code = main(["check", "--rules", "--json"])
    rules = json.loads(capsys.readouterr().out)
    assert code == 0
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)) > 50
    for family in ("SYNC-", "TR-", "READ-", "HOOK-", "TDD-", "PLG-", "ESC-", "REV-"):
        assert any(i.startswith(family) for i in ids), family


def test_readme_rule_table_is_current():
    from phasewatch.core.findings import all_rules

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- rules:start -->\n(.*?)\n<!-- rules:end -->", readme, re.S)
    assert match, "README.md lacks the rules table markers"
    assert match.group(1).strip() == rules_markdown(all_rules()).strip(), (
        "README rule table is stale: run `make readme-rules`"
    )


def test_check_runs_without_textual_as_a_process(tmp_path):
    project(tmp_path, factories.feature_state())
    code = (
        "import sys; from tui.cli import main; rc = main(['check', sys.argv[1], '--json']);"
        "bad = [m for m in sys.modules if m.split('.')[0] == 'textual'];"
        "sys.stderr.write(repr(bad)); raise SystemExit(rc if not bad else 99)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
