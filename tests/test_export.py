"""core.export: SARIF 2.1.0 and GitHub workflow commands for CI (pure, no textual)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from phasewatch.core.export import github_commands, line_of, lines_of, path_keys, to_sarif
from phasewatch.core.report import audit_project
from phasewatch.core.rules import all_rules

from tests import factories
from tests.helpers.work import calls

ESC = "\x1b"
CONFORMANCE_PLUGINS = Path(__file__).parent / "conformance" / "plugins" / "02807b1bc5bd"


def divergent_project(tmp_path: Path) -> Path:
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pending"
    (tmp_path / ".isdlc").mkdir(parents=True)
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


def test_line_of_an_array_element_is_the_elements_own_line():
    doc = {"a": [{"x": 1}, {"x": 2}, [5, 6]], "b": {"c": 1}}
    text = json.dumps(doc, indent=2)
    lines = text.splitlines()
    assert lines[line_of(text, "a[1].x") - 1].strip() == '"x": 2'
    assert lines[line_of(text, "a[2][1]") - 1].strip() == "6"
    assert line_of(text, "a[0]") < line_of(text, "a[1]") < line_of(text, "a[2]")
    assert lines[line_of(text, "a[9]") - 1].strip() == '"a": ['  # no such element: the array
    repeated = '{\n"k": 1,\n"k": 2\n}'
    assert line_of(repeated, "k") == 3  # JSON.parse keeps the last


def test_line_of_a_cut_off_document_is_as_deep_as_it_goes():
    text = json.dumps({"a": [{"x": 1}, {"x": 2}]}, indent=2)
    whole = line_of(text, "a[1].x")
    for cut in range(len(text) + 1):
        assert 1 <= line_of(text[:cut], "a[1].x") <= whole


def test_sarif_regions_of_workflow_history_point_at_their_entries(tmp_path):
    """Every ``[n]`` path a finding names is the n-th element's line, never the array's."""
    state = factories.feature_state()
    history = [
        {"type": "feature", "status": "completed", "phases": ["01-requirements"]},
        {"type": "fix", "status": 7, "phases": "x"},  # malformed on purpose
    ]
    state["workflow_history"] = history
    (tmp_path / ".isdlc").mkdir()
    text = json.dumps(state, indent=2)
    (tmp_path / ".isdlc" / "state.json").write_text(text)
    log = to_sarif(audit_project(tmp_path), all_rules(), "0")
    lines = text.splitlines()
    array = lines.index('  "workflow_history": [') + 1
    indexed = [
        (r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"], r)
        for r in log["runs"][0]["results"]
    ]
    indexed = [(p, r) for p, r in indexed if p.startswith("workflow_history[")]
    assert indexed, [r["ruleId"] for r in log["runs"][0]["results"]]
    for path, result in indexed:
        line = result["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert line > array, path
        assert line == line_of(text, path)


PLUGINS_MD = """# Plugins

| Plugin | Status | Version | Last Updated |
|---|---|---|---|
| GainKnob | 📦 Installed | 1.0.0 | 2025-11-10 |
| TapeAge | ✅ Working | 1.0.3 | 2025-11-12 |

### TapeAge

**Status:** ✅ Working
**Lifecycle Timeline:**
- **2025-11-10:** Creative brief completed
- **2025-11-11 (Stage 1):** Planning
- **2025-11-09 (Stage 2):** Foundation

**Validation:**
- ✓ Builds
"""

CONTINUE_HERE = """---
plugin: TapeAge
stage: 2
status: in_progress
last_updated: 2025-11-11
---

# TapeAge

## Current State

Building.
"""

TDD = """# TDD Task: Example

**Status:** in_progress
**Approved:** yes

### Slice 1: First

**Status:** done

### Slice 2: Second

**Status:** pending
"""


def test_markdown_paths_carry_their_line():
    def at(text: str, path: str) -> str:
        return text.splitlines()[line_of(text, path) - 1]

    assert at(PLUGINS_MD, "table[TapeAge].version").startswith("| TapeAge |")
    assert at(PLUGINS_MD, "table[GainKnob]").startswith("| GainKnob |")
    assert at(PLUGINS_MD, "### TapeAge") == "### TapeAge"
    assert at(PLUGINS_MD, "### TapeAge.Lifecycle Timeline[2]").startswith("- **2025-11-09")
    assert at(PLUGINS_MD, "### TapeAge.Lifecycle Timeline[7]") == "**Lifecycle Timeline:**"
    assert at(CONTINUE_HERE, "front_matter.stage") == "stage: 2"
    assert at(CONTINUE_HERE, "front_matter.last_updated").startswith("last_updated:")
    assert line_of(CONTINUE_HERE, "front_matter.plugin_name") == 1  # absent: the block
    assert at(CONTINUE_HERE, 'sections["Current State"]') == "## Current State"
    assert at(TDD, "header.Approved") == "**Approved:** yes"
    assert at(TDD, "slice 2.status") == "**Status:** pending"
    assert at(TDD, "slice 2") == "### Slice 2: Second"
    assert line_of(TDD, "$") == 1


def test_sarif_findings_in_markdown_files_point_at_their_lines(tmp_path):
    """A real registry (a copy of the Plugin Freedom System's own files): every result on a
    table row or a front-matter key lands on that row or key."""
    shutil.copytree(CONFORMANCE_PLUGINS, tmp_path, dirs_exist_ok=True)
    log = to_sarif(audit_project(tmp_path), all_rules(), "0")
    checked = 0
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        if not uri.endswith(".md"):
            continue
        path = result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        text = (tmp_path / uri).read_text(encoding="utf-8")
        line = text.splitlines()[physical["region"]["startLine"] - 1]
        row = re.match(r"table\[([^\]]+)\]", path)
        key = re.match(r"front_matter\.(\w+)$", path)
        if row:
            assert re.match(r"\|\s*" + re.escape(row.group(1)) + r"\s*\|", line), (path, line)
            checked += 1
        elif key and re.search(r"^" + key.group(1) + ":", text, re.M):
            assert line.startswith(key.group(1) + ":"), (path, line)
            checked += 1
    assert checked > 0


def test_every_rule_has_a_full_description():
    log = to_sarif(audit_project(Path("/nonexistent-phasewatch")), all_rules(), "0")
    for descriptor in log["runs"][0]["tool"]["driver"]["rules"]:
        assert descriptor["fullDescription"]["text"].startswith(
            descriptor["shortDescription"]["text"].rstrip(".")
        )
        assert len(descriptor["fullDescription"]["text"]) > len(
            descriptor["shortDescription"]["text"]
        )


def test_check_sarif_on_a_directory_without_workflow_files_is_still_a_log(tmp_path, capsys):
    from phasewatch.tui.cli import main

    code = main(["check", str(tmp_path), "--format", "sarif"])
    out, err = capsys.readouterr()
    assert code == 2 and "no workflow files" in err  # README: exit 2, nothing to check
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["results"] == [] and run["tool"]["driver"]["rules"]
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "no workflow files" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def assert_sarif_2_1_0(log: dict) -> None:
    """The properties SARIF 2.1.0 requires, checked by hand (the OASIS schema's licence keeps it
    out of the repository): sarifLog, run, tool, reportingDescriptor, result, location,
    region, invocation, notification."""
    assert log["version"] == "2.1.0" and isinstance(log["runs"], list)
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = [rule["id"] for rule in driver.get("rules", [])]
        assert len(ids) == len(set(ids)) and all(isinstance(i, str) and i for i in ids)
        for rule in driver.get("rules", []):
            for key in ("shortDescription", "fullDescription", "help"):
                assert isinstance(rule[key]["text"], str) and rule[key]["text"], (rule["id"], key)
        for result in run["results"]:
            assert isinstance(result["message"]["text"], str) and result["message"]["text"]
            assert result["level"] in {"none", "note", "warning", "error"}
            if "ruleIndex" in result:
                assert ids[result["ruleIndex"]] == result["ruleId"]
            for location in result["locations"]:
                physical = location["physicalLocation"]
                assert isinstance(physical["artifactLocation"]["uri"], str)
                line = physical["region"]["startLine"]
                assert isinstance(line, int) and line >= 1
        for invocation in run.get("invocations", []):
            assert isinstance(invocation["executionSuccessful"], bool)
            for note in invocation.get("toolExecutionNotifications", []):
                assert note["message"]["text"]


def test_every_log_phasewatch_writes_has_sarif_2_1_0_s_required_structure(tmp_path):
    plugins = tmp_path / "plugins"
    shutil.copytree(CONFORMANCE_PLUGINS, plugins)
    (plugins / ".tdd-progress.md").write_text(TDD, encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    for root, failure in (
        (divergent_project(tmp_path / "isdlc"), None),
        (plugins, None),
        (empty, "no workflow files"),
    ):
        log = to_sarif(audit_project(root), all_rules(), "0", failure=failure)
        assert_sarif_2_1_0(json.loads(json.dumps(log)))


def test_the_lines_of_many_findings_are_found_in_one_pass():
    """A file's findings are located together: the work grows with the file and the paths, not
    with their product (16x when quadratic)."""

    def state(n: int) -> str:
        phases = {f"{k:05d}-p": {"status": "pending", "gate": {"ok": k % 2 == 0}} for k in range(n)}
        return json.dumps({"v": 1, "phases": phases, "log": list(range(n))}, indent=2)

    def registry(n: int) -> str:
        rows = "\n".join(f"| P{k} | ✅ Working | 1.0.{k} | 2025-11-10 |" for k in range(n))
        return "| Plugin | Status | Version | Last Updated |\n|---|---|---|---|\n" + rows + "\n"

    for text_of, path_of in (
        (state, lambda k: f"phases.{k:05d}-p.gate.ok"),
        (registry, lambda k: f"table[P{k}].version"),
    ):
        small, large = (
            calls(lambda n=n, t=text_of, p=path_of: lines_of(t(n), [p(k) for k in range(n)]))
            for n in (200, 800)
        )
        assert large < 6 * small, (small, large)
        text = text_of(50)
        paths = [path_of(k) for k in range(50)]
        assert lines_of(text, paths) == [line_of(text, p) for p in paths]
        assert len(set(lines_of(text, paths))) == 50  # each its own line


@given(st.lists(st.sampled_from(["a", "b", "k", "[0]", "[1]", "[2]"]), max_size=4), st.data())
def test_paths_located_together_are_located_as_one_by_one(steps, data):
    doc = {"a": [{"k": 1}, {"b": [1, 2]}], "b": {"k": {"a": 2}}, "k": [[3], {"a": 1}]}
    text = json.dumps(doc, indent=2)
    more = st.lists(st.sampled_from(["a[1].b[1]", "b.k.a", "k[1].a", "k[0][0]", "x"]), max_size=5)
    paths = [".".join(steps).replace(".[", "["), *data.draw(more)]
    assert lines_of(text, paths) == [line_of(text, p) for p in paths]
