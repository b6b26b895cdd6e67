"""`phasewatch check`: output, JSON document, exit codes, rules listing."""

import json
import os
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


def test_divergent_project_warns_and_explains(tmp_path, capsys):
    """The framework's own V9-A only warns: so does check (exit 0); --strict fails on it."""
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pending"
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0
    assert "SYNC-STATUS" in out and f"phases.{key}.status" in out
    assert "fix:" in out
    assert run(capsys, str(tmp_path), "--strict")[0] == 1


def test_a_state_validate_state_rejects_exits_1(tmp_path, capsys):
    state = factories.feature_state()
    state["active_workflow"]["current_phase_index"] = "6"  # validate-state.cjs: INVALID
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 1 and "FIELD-SHAPE" in out and "INVALID" in out


def test_json_document_shape(tmp_path, capsys):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["active_workflow"]["phase_status"][key] = "done"  # V9-A, and validate-state INVALID
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
    assert code == 2 and "no such file or directory" in err


def test_a_state_file_is_accepted_like_review_accepts_it(tmp_path, capsys):
    state = factories.feature_state()
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path / ".isdlc" / "state.json"), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["root"] == str(tmp_path.resolve())
    assert doc["projects"][0]["state_version"] == state["state_version"]


def test_strict_verdict_line_matches_the_exit_code(tmp_path, capsys):
    state = factories.feature_state()
    state["current_phase"] = state["active_workflow"]["phases"][0]  # SYNC-CURRENT (warning)
    project(tmp_path, state)
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0 and out.rstrip().endswith("-> no errors"), out  # not "clean": a warning
    assert "1 warning " in out  # singular
    code, out, _ = run(capsys, str(tmp_path), "-q")
    assert out.splitlines() == [out.strip()] and out.rstrip().endswith("-> no errors"), out
    code, out, _ = run(capsys, str(tmp_path), "--strict")
    assert code == 1
    assert out.rstrip().endswith("-> warnings fail under --strict"), out
    assert "clean" not in out.splitlines()[-1]


def test_no_workflow_files(tmp_path, capsys):
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "no workflow files" in err and "phasewatch demo" in err


PLAN = """# TDD Task: Rate limit

**Status:** pending
**Created:** 2026-03-04T09:00:00.000Z
**Last Updated:** 2026-03-04T09:05:00.000Z

## Slice 1: Token bucket

**Status:** pending
"""


def test_an_unapproved_plan_is_said_in_text_and_json(tmp_path, capsys):
    (tmp_path / ".tdd-progress.md").write_text(PLAN, encoding="utf-8")
    code, out, _ = run(capsys, str(tmp_path))
    assert code == 0
    line = next(li for li in out.splitlines() if ".tdd-progress.md" in li)
    assert "NOT approved" in line and "then `phasewatch approve`" in line
    code, out, _ = run(capsys, str(tmp_path), "--json")
    doc = json.loads(out)
    assert doc["projects"] == [] and doc["plugins"] is None
    assert doc["tdd"]["approved"] is False and doc["tdd"]["slices"] == 1
    approved = PLAN.replace("05:00.000Z\n", "05:00.000Z\n**Approved:** 2026-03-04T09:06:00Z\n")
    (tmp_path / ".tdd-progress.md").write_text(approved, encoding="utf-8")
    _code, out, _ = run(capsys, str(tmp_path))
    line = next(li for li in out.splitlines() if ".tdd-progress.md" in li)
    assert "approved" in line and "NOT" not in line and "phasewatch approve" not in line


def test_markup_in_state_is_printed_literally(tmp_path, capsys):
    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "[/][bold]x\x1b]0;pwned\x07"
    project(tmp_path, state)
    _code, out, _ = run(capsys, str(tmp_path))
    assert "[/][bold]x" in out
    assert "\x1b]0" not in out and "pwned" not in out


def test_rules_table_in_plain_words_references_with_verbose(capsys):
    assert main(["check", "--rules"]) == 0
    plain = capsys.readouterr().out
    assert main(["check", "--rules", "--verbose"]) == 0
    verbose = capsys.readouterr().out
    # off a terminal one rule a line, tab-separated; --verbose adds the "from" field (the format
    # section or design document each rule comes from)
    first = plain.splitlines()[0].split("\t")
    assert len(first) == 5 and len(verbose.splitlines()[0].split("\t")) == 6
    assert "docs/formats.md" not in plain and "docs/formats.md" in verbose
    assert main(["check", "--rules", "--markdown"]) == 0
    assert "FORMATS" not in capsys.readouterr().out
    assert main(["check", "--rules", "--markdown", "--verbose"]) == 0
    assert "docs/formats.md#where-the-files-are" in capsys.readouterr().out


def test_rules_listing(capsys):
    code = main(["check", "--rules", "--json"])
    rules = json.loads(capsys.readouterr().out)
    assert code == 0
    ids = [r["id"] for r in rules]
    assert len(ids) == len(set(ids)) > 50
    for family in ("SYNC-", "TR-", "READ-", "HOOK-", "TDD-", "PLG-", "ESC-", "REV-"):
        assert any(i.startswith(family) for i in ids), family


def test_readme_rule_table_is_current():
    from phasewatch.core.rules import all_rules

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- rules:start -->\n(.*?)\n<!-- rules:end -->", readme, re.S)
    assert match, "README.md lacks the rules table markers"
    assert match.group(1).strip() == rules_markdown(all_rules()).strip(), (
        "README rule table is stale: run `make readme-rules`"
    )


def check_process(root: Path, *args: str, package: str) -> tuple[subprocess.CompletedProcess, str]:
    """``check ROOT ARGS`` in a fresh interpreter: the process, and (its stderr's last line) the
    modules of ``package`` it had imported by the end."""
    code = (
        "import sys; from tui.cli import main; rc = main(['check', *sys.argv[2:]]);"
        "sys.stderr.write('\\n' + repr([m for m in sys.modules if m.split('.')[0] == sys.argv[1]]));"
        "raise SystemExit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, package, str(root), *args],
        cwd=ROOT, capture_output=True, text=True,
    )  # fmt: skip
    return proc, proc.stderr.rsplit("\n", 1)[-1]


def test_check_runs_without_textual_as_a_process(tmp_path):
    project(tmp_path, factories.feature_state())
    proc, textual = check_process(tmp_path, "--json", package="textual")
    assert proc.returncode == 0 and textual == "[]", proc.stderr


#: The ``phasewatch`` process's entry, then what it left behind: its exit code, whether pydantic
#: looked for plugins (its loader imports ``importlib.metadata``), whether the heap was frozen,
#: whether the config module was imported.
PROCESS = (
    "import gc, sys; from phasewatch.tui.cli import run; code = run(); print(code,"
    " 'importlib.metadata' in sys.modules, gc.get_freeze_count() > 0,"
    " 'phasewatch.core.config' in sys.modules)"
)


def process_run(*argv: str, **env: str) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    proc = subprocess.run(
        [sys.executable, "-c", PROCESS, *argv], env={**environ, **env},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    names = ("code", "plugin search", "frozen", "config read")
    return dict(zip(names, proc.stdout.split()[-4:], strict=True))


def test_the_command_asks_pydantic_for_no_plugins_unless_the_user_set_its_switch(tmp_path):
    """Pydantic's plugin search imports ``importlib.metadata`` to find none; the command tells
    it there are none, unless ``PYDANTIC_DISABLE_PLUGINS`` is set (even empty: pydantic then
    loads every plugin but the ones it names). The config is the command's pydantic model."""
    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\n')
    root = str(project(tmp_path, factories.feature_state()))
    for argv in (
        ("config", "--show", "--config", str(config)),
        ("check", root, "--config", str(config)),
    ):
        assert process_run(*argv)["config read"] == "True"
        assert process_run(*argv)["plugin search"] == "False"
        assert process_run(*argv, PYDANTIC_DISABLE_PLUGINS="")["plugin search"] == "True"


def test_check_imports_no_pydantic(tmp_path):
    """The state models are plain classes (docs/design.md, "The state models"): a ``check``
    without a config file imports no pydantic, wrong types included."""
    state = factories.feature_state()
    state["state_version"] = "7"
    project(tmp_path, state)
    proc, pydantic = check_process(tmp_path, "--json", package="pydantic")
    assert proc.returncode in (0, 1), proc.stderr
    # (only the command's own stand-in for pydantic's plugin loader, a module made in place)
    assert pydantic == "['pydantic.plugin._loader']"
    assert "SCHEMA-TYPE" in proc.stdout


def test_only_a_check_leaves_its_heap_to_the_exit(tmp_path):
    """After a ``check`` the collector skips the heap on the way out (nothing written to
    lose); after any other command the exit tidies up as usual."""
    config = tmp_path / "config.toml"
    config.write_text('theme = "nord"\n')
    assert process_run("config", "--show", "--config", str(config))["frozen"] == "False"
    root = str(project(tmp_path, factories.feature_state()))
    assert process_run("check", root)["frozen"] == "True"


def test_check_reads_a_config_only_when_there_is_one(tmp_path):
    """No file at the default place: the defaults, which change nothing, are not even made."""
    root = project(tmp_path, factories.feature_state())
    home = tmp_path / "xdg"
    assert process_run("check", str(root), XDG_CONFIG_HOME=str(home)) == {
        "code": "0", "plugin search": "False", "frozen": "True", "config read": "False",
    }  # fmt: skip
    (home / "phasewatch").mkdir(parents=True)
    (home / "phasewatch" / "config.toml").write_text('[rules]\nSYNC-AGENT = "off"\n')
    assert process_run("check", str(root), XDG_CONFIG_HOME=str(home))["config read"] == "True"


# ---------------------------------------------------------------------------- hostile names

#: A directory name that, printed raw, sets the clipboard (OSC 52), the title and clears the
#: screen (issue 13.3).
EVIL = "x\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\x1b[2J\x9b31my"
SGR = re.compile(rb"\x1b\[[0-9;]*m")  # colours on a terminal: the only escapes check may write


def hostile_project(tmp_path: Path) -> Path:
    """Every name ``check`` prints from a listing carries escapes: the root, a monorepo project
    directory, a plugin directory (and the plugin name its notes give)."""
    root = tmp_path / f"proj{EVIL}"
    state = root / ".isdlc" / "projects" / EVIL / "state.json"
    state.parent.mkdir(parents=True)
    (root / ".isdlc" / "monorepo.json").write_text('{"version": 1, "projects": {}}')
    state.write_text(json.dumps(factories.feature_state(), indent=2))
    notes = root / "plugins" / EVIL / ".continue-here.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(f"---\nplugin: {EVIL}\nstage: 1\n---\n", encoding="utf-8")
    (root / "PLUGINS.md").write_text("# Plugins\n\n| Name | Status |\n|---|---|\n| Foo | x |\n")
    return root


def check_bytes(root: Path, *args: str, tty: bool) -> bytes:
    """The raw bytes ``phasewatch check`` writes to a pipe or a terminal (a pty)."""
    command = [sys.executable, "-m", "phasewatch", "check", str(root), *args]
    if not tty:
        return subprocess.run(command, capture_output=True, check=False).stdout
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(command, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks)


@pytest.mark.parametrize("tty", [False, True], ids=["piped", "tty"])
@pytest.mark.parametrize("args", [(), ("--json",)], ids=["text", "json"])
def test_names_with_escapes_are_printed_clean(tmp_path, tty, args):
    raw = check_bytes(hostile_project(tmp_path), *args, tty=tty)
    assert b"PLG-" in raw  # the plugin directory was audited and named
    rest = SGR.sub(b"", raw)
    for bad in (b"\x1b", b"\x07", "\x9b".encode()):
        assert bad not in rest, (bad, raw[:400])
    if args:
        doc = json.loads(raw.decode())
        assert doc["projects"][0]["id"] == EVIL  # the data stay exact, spelled as JSON escapes


# ---------------------------------------------------------------------------- decision messages


def test_decision_errors_name_the_fix(tmp_path, capsys):
    """The messages say what to type or what is there now (issue 16.13)."""
    project(tmp_path, factories.escalate(factories.feature_state()))
    assert main(["escalation", "cancel", str(tmp_path)]) == 2
    assert "cancel needs a reason (--reason TEXT)" in capsys.readouterr().out
    (tmp_path / ".tdd-progress.md").write_text(PLAN, encoding="utf-8")
    import hashlib

    digest = hashlib.sha256(PLAN.encode()).hexdigest()
    assert main(["approve", str(tmp_path), "--expect-sha256", "0" * 64]) == 3
    assert f"its sha256 is now {digest}" in capsys.readouterr().out


# ---------------------------------------------------------------------------- pipe and terminal


def test_a_pipe_gets_the_text_rich_prints_without_importing_rich(tmp_path, capsys):
    """One report, two renderings: written as plain spans in a pipe, through rich on a
    terminal (rich drops the styles when the file is not a terminal: same text)."""
    from phasewatch.core.report import audit_project
    from phasewatch.tui.check_output import print_report

    state = factories.feature_state()
    key = state["active_workflow"]["current_phase"]
    state["phases"][key]["status"] = "pend\ting [b]x[/b] ünï"
    root = project(tmp_path, state)
    (root / ".tdd-progress.md").write_text(PLAN, encoding="utf-8")
    report = audit_project(root)
    assert len(report.findings) > 1
    print_report(report, colour=False)
    piped = capsys.readouterr().out
    print_report(report, colour=True)
    assert piped == capsys.readouterr().out
    assert "actual: pend  ing [b]x[/b] ünï\n" in piped  # the tab expanded, as rich does
    assert "NOT approved" in piped
    proc, rich = check_process(root, package="rich")
    assert proc.returncode == report.exit_code() and proc.stdout == piped, proc.stderr
    assert rich == "[]", proc.stderr
