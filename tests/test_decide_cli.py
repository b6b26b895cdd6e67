"""`phasewatch review|escalation|approve`: exit codes, --json, --expect-version, --project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from phasewatch.core import decide, protocol
from phasewatch.core.decide.command import Command
from phasewatch.core.decide.command import run as run_command
from phasewatch.tui import cli

from tests.helpers.decide import NOW, feature_state, journal_entries, load, write_state

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "now_iso", lambda: NOW)
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def run(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().out


def test_review_continue_human_output(tmp_path: Path, capsys) -> None:
    write_state(tmp_path, feature_state())
    code, out = run(capsys, "review", "continue", str(tmp_path), "--who", "ann@box")
    assert code == 0
    first, second = out.splitlines()
    assert first.startswith("applied: review continue: continue: 06-implementation accepted")
    assert first.endswith("(state_version 41 -> 42)")
    assert second.startswith("  now: v42 · feature REQ-0031-rate-limit at 06-implementation [7/9]")
    assert "no review gate" in second
    [entry] = journal_entries(tmp_path)
    assert entry["who"] == "ann@box" and entry["via"] == "cli"


def test_json_document_shape(tmp_path: Path, capsys) -> None:
    write_state(tmp_path, feature_state(gate=None, escalations=2))
    code, out = run(capsys, "escalation", "skip", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 0
    assert list(doc) == [
        "schema",
        "action",
        "target",
        "outcome",
        "message",
        "version_before",
        "version_after",
        "state",
        "journal_error",
        "confirmation",
    ]
    assert doc["confirmation"] is None  # no --confirm-seconds: not watched
    assert doc["schema"] == 1 and doc["action"] == "escalation skip"
    assert (doc["outcome"], doc["version_before"], doc["version_after"]) == ("applied", 41, 42)
    assert doc["state"]["pending_escalations"] == 0 and doc["target"] == ".isdlc/state.json"


def test_expect_version_conflict_exit_3(tmp_path: Path, capsys) -> None:
    path = write_state(tmp_path, feature_state())
    before = path.read_bytes()
    code, out = run(capsys, "review", "review", str(tmp_path), "--expect-version", "40", "--json")
    doc = json.loads(out)
    assert code == 3 and doc["outcome"] == "refused-conflict"
    assert doc["state"]["state_version"] == 41 and path.read_bytes() == before
    code, _ = run(capsys, "review", "review", str(tmp_path), "--expect-version", "41")
    assert code == 0 and load(path)["state_version"] == 42


def test_nothing_to_decide_exit_2(tmp_path: Path, capsys) -> None:
    write_state(tmp_path, feature_state(gate=None))
    code, out = run(capsys, "review", "continue", str(tmp_path))
    assert code == 2 and out.startswith("refused-invalid: review continue: no review gate")
    code, out = run(capsys, "escalation", "retry", str(tmp_path))
    assert code == 2 and "nothing to decide" in out


def test_redo_without_guidance_exit_2_and_with_guidance_0(tmp_path: Path, capsys) -> None:
    path = write_state(tmp_path, feature_state())
    assert run(capsys, "review", "redo", str(tmp_path))[0] == 2
    code, _ = run(capsys, "review", "redo", str(tmp_path), "--guidance", "add 429 tests")
    assert code == 0
    assert load(path)["active_workflow"]["supervised_review"]["redo_guidance_history"] == [
        "add 429 tests"
    ]


def test_cancel_with_reason(tmp_path: Path, capsys) -> None:
    path = write_state(tmp_path, feature_state(gate=None, escalations=1))
    code, out = run(capsys, "escalation", "cancel", str(tmp_path), "--reason", "scope changed")
    assert code == 0, out
    state = load(path)
    assert state["active_workflow"] is None
    assert state["workflow_history"][-1]["cancellation_reason"] == "scope changed"


def monorepo(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "monorepo.json").write_text(
        json.dumps(
            {
                "version": 1,
                "default_project": "web",
                "projects": {
                    "api": {"name": "API", "path": "apps/api"},
                    "web": {"name": "Web", "path": "apps/web"},
                },
            }
        )
    )
    paths = {}
    for pid in ("api", "web"):
        root = tmp_path / ".isdlc" / "projects" / pid
        root.mkdir(parents=True)
        state = feature_state()
        paths[pid] = root / "state.json"
        paths[pid].write_bytes(decide.dumps(state).encode())
    return paths


def test_monorepo_project_selection(tmp_path: Path, capsys) -> None:
    paths = monorepo(tmp_path)
    assert run(capsys, "review", "continue", str(tmp_path), "--project", "api")[0] == 0
    assert load(paths["api"])["state_version"] == 42 and load(paths["web"])["state_version"] == 41
    assert run(capsys, "review", "review", str(tmp_path))[0] == 0  # the default project
    assert load(paths["web"])["state_version"] == 42
    code, out = run(capsys, "review", "continue", str(tmp_path), "--project", "nope")
    assert code == 2 and "unknown project 'nope'" in out
    entries = journal_entries(tmp_path)  # one journal per repository
    assert [e["target"] for e in entries] == [
        ".isdlc/projects/api/state.json",
        ".isdlc/projects/web/state.json",
    ]


def test_state_file_given_directly(tmp_path: Path, capsys) -> None:
    paths = monorepo(tmp_path)
    assert run(capsys, "review", "review", str(paths["api"]))[0] == 0
    assert load(paths["api"])["state_version"] == 42


def test_no_state_file(tmp_path: Path, capsys) -> None:
    code, out = run(capsys, "review", "continue", str(tmp_path))
    assert code == 2 and "no .isdlc/state.json" in out


def test_invalid_state_exit_2(tmp_path: Path, capsys) -> None:
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text('{"state_version": 4,')
    code, out = run(capsys, "escalation", "skip", str(tmp_path), "--json")
    assert code == 2 and json.loads(out)["outcome"] == "refused-invalid"


def test_approve_and_discard(tmp_path: Path, capsys) -> None:
    plan = tmp_path / ".tdd-progress.md"
    plan.write_text("# TDD Task: x\n**Last Updated:** 2026-02-20\n\n## Slice 1: a\n")
    (tmp_path / ".tdd-plan-locked").touch()
    code, out = run(capsys, "approve", str(tmp_path), "--json")
    doc = json.loads(out)
    assert code == 0 and doc["state"]["approved"] is True and doc["state"]["locked"] is False
    assert run(capsys, "approve", str(tmp_path))[0] == 2  # already approved
    assert run(capsys, "approve", str(tmp_path), "--discard")[0] == 2  # no lock
    (tmp_path / ".tdd-plan-locked").touch()
    code, out = run(capsys, "approve", str(plan), "--discard")
    assert code == 0 and "not approved" not in out.splitlines()[1]
    assert not (tmp_path / ".tdd-plan-locked").exists()
    assert run(capsys, "approve", str(tmp_path), "--expect-sha256", "00")[0] == 3  # changed


def test_the_typed_command_runs_without_a_parser(tmp_path: Path, capsys) -> None:
    """Core's side takes a typed Command (the parsing lives in tui/cli.py)."""
    write_state(tmp_path, feature_state())
    command = Command(kind="review", action="review", path=str(tmp_path), json=True)
    assert run_command(command) == 0
    assert json.loads(capsys.readouterr().out)["outcome"] == "applied"


def test_subprocess_without_textual(tmp_path: Path) -> None:
    write_state(tmp_path, feature_state())
    code = (
        "import sys; from phasewatch.tui.cli import main; rc = main(sys.argv[1:]);"
        "assert not any(m.split('.')[0] == 'textual' for m in sys.modules), 'textual imported';"
        "sys.exit(rc)"
    )
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    proc = subprocess.run(
        [sys.executable, "-c", code, "review", "redo", str(tmp_path), "--guidance", "x", "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["version_after"] == 42
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "review",
            "redo",
            str(tmp_path),
            "--guidance",
            "y",  # another decision (the same one again would be "already applied")
            "--expect-version",
            "41",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 3 and proc.stdout.startswith("refused-conflict:")


def after_applied(journal: Path) -> None:
    """Wait (at most 10 s) until the writer has journaled ``applied``: its own look-again is
    over, so an owner write from now on is one only the confirm window can see."""
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if journal.exists() and '"outcome":"applied"' in journal.read_text():
            return
        time.sleep(0.005)


def test_confirm_seconds_reports_a_revert_by_the_owner(tmp_path: Path, capsys) -> None:
    """The owner read the file before our write and writes its old copy 150 ms later: with
    --confirm-seconds the command waits, says REVERTED, exits 3 and journals ``reverted``."""
    import threading

    path = write_state(tmp_path, feature_state())
    before = path.read_bytes()

    def owner() -> None:
        after_applied(tmp_path / ".isdlc" / "phasewatch-decisions.jsonl")
        doc = json.loads(before)
        doc["state_version"] = 43
        path.write_text(json.dumps(doc, indent=2))

    thread = threading.Thread(target=owner)
    thread.start()
    code, out = run(
        capsys, "review", "continue", str(tmp_path), "--confirm-seconds", "10", "--json"
    )
    thread.join()
    doc = json.loads(out)
    assert code == 3 and doc["outcome"] == "reverted" and "NOT in the file" in doc["message"]
    assert doc["confirmation"]["verdict"] == "reverted"
    assert doc["confirmation"]["state_version"] == 43
    applied, reverted = journal_entries(tmp_path)
    assert (applied["outcome"], reverted["outcome"]) == ("applied", "reverted")
    assert (reverted["version_before"], reverted["version_after"]) == (42, 43)


def test_confirm_seconds_says_held_when_the_owner_keeps_the_decision(
    tmp_path: Path, capsys
) -> None:
    import threading

    path = write_state(tmp_path, feature_state())

    def owner() -> None:  # reads ours, then writes its own change on top (after the settle)
        after_applied(tmp_path / ".isdlc" / "phasewatch-decisions.jsonl")
        doc = json.loads(path.read_bytes())
        doc["state_version"] += 1
        doc["current_phase"] = "07-testing"
        path.write_text(json.dumps(doc, indent=2))

    thread = threading.Thread(target=owner)
    thread.start()
    # "held" waits out the whole window (only a revert ends it early): 3 s, hundreds of times
    # what the owner, which writes as soon as "applied" is journaled, needs
    code, out = run(capsys, "review", "continue", str(tmp_path), "--confirm-seconds", "3")
    thread.join()
    assert code == 0
    assert "confirmed: the owner has written since and kept it" in out
    assert [e["outcome"] for e in journal_entries(tmp_path)] == ["applied"]


def test_confirm_seconds_unchanged_when_nobody_writes(tmp_path: Path, capsys) -> None:
    write_state(tmp_path, feature_state())
    code, out = run(capsys, "review", "continue", str(tmp_path), "--confirm-seconds", "0.05")
    assert code == 0 and "confirmed: nobody wrote the file since" in out


def test_confirm_seconds_on_approve_sees_the_marker_dropped(tmp_path: Path, capsys) -> None:
    import threading

    progress = tmp_path / ".tdd-progress.md"
    plan = b"# Plan\n\n## Slice 1\n**Status:** pending\n"
    progress.write_bytes(plan)

    def planner() -> None:  # rewrites the plan from its own copy, without the marker
        after_applied(tmp_path / ".phasewatch-decisions.jsonl")
        progress.write_bytes(plan + b"\n## Slice 2\n**Status:** pending\n")

    thread = threading.Thread(target=planner)
    thread.start()
    code, out = run(capsys, "approve", str(tmp_path), "--confirm-seconds", "10")
    thread.join()
    assert code == 3 and out.startswith("reverted: approve: REVERTED")


UNSEARCHABLE = r"""
import os, sys
from pathlib import Path
from phasewatch.tui import cli

root = Path(sys.argv[1])
os.chmod(root / ".isdlc", 0)
try:
    code = cli.main(["review", "continue", str(root)])
finally:
    os.chmod(root / ".isdlc", 0o755)
print("exit", code)
"""


def test_an_unsearchable_isdlc_is_a_clear_refusal_exit_2(capsys) -> None:
    """``.isdlc`` with mode 000, for real (run unprivileged: root ignores modes): every lookup
    in it fails with EACCES. The command says what to fix and exits 2, no errno dump."""
    import shutil

    from tests import unprivileged

    root = unprivileged.workdir()
    try:
        write_state(root, feature_state())
        for path in (root / ".isdlc", root / ".isdlc" / "state.json"):
            shutil.chown(path, root.owner())
        done = unprivileged.run(UNSEARCHABLE, str(root))
        out = done.stdout
        assert done.returncode == 0 and out.endswith("exit 2\n"), out + done.stderr
        assert out.startswith("refused-invalid: review continue: .isdlc")
        assert "permission denied; nothing written" in out and "chmod u+rwx .isdlc" in out
        assert "Errno" not in out and "PermissionError" not in out
    finally:
        shutil.rmtree(root, ignore_errors=True)
