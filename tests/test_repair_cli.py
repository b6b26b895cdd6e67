"""`phasewatch repair`: plan, --dry-run --json, confirmation, --yes, --against, --undo, exit
codes (docs/formats.md#repair)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core import decide
from phasewatch.core.decide.command import RepairCommand, run_repair
from phasewatch.tui import cli

from tests.helpers.repair import PHASES, stale, state, stringify


@pytest.fixture(autouse=True)
def no_project_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def write(root: Path, doc: Any) -> Path:
    (root / ".isdlc").mkdir(exist_ok=True)
    path = root / ".isdlc" / "state.json"
    path.write_text(stringify(doc), encoding="utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["repair", *argv])
    return code, capsys.readouterr().out


def drifted() -> dict[str, Any]:
    doc = state(2)
    doc["current_phase"] = PHASES[1]  # V9-B
    return doc


def test_dry_run_json_prints_the_plan_and_writes_nothing(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, drifted())
    text = path.read_bytes()
    code, out = run(capsys, str(tmp_path), "--dry-run", "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["outcome"] == "dry-run" and doc["action"] == "repair location"
    assert [(c["label"], c["current"], c["proposed"]) for c in doc["plan"]["changes"]] == [
        ("current_phase", PHASES[1], PHASES[2])
    ]
    assert doc["plan"]["base_version"] == 7
    assert path.read_bytes() == text


def test_nothing_to_repair(tmp_path: Path, capsys) -> None:
    write(tmp_path, state(1))
    code, out = run(capsys, str(tmp_path))
    assert code == 0 and out.startswith("nothing to repair")
    code, out = run(capsys, str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["outcome"] == "nothing-to-repair"


def test_off_a_terminal_it_needs_yes(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, drifted())
    text = path.read_bytes()
    code, out = run(capsys, str(tmp_path))  # pytest's stdin is not a terminal
    assert code == 2 and "--yes" in out
    assert path.read_bytes() == text
    code, out = run(capsys, str(tmp_path), "--yes", "--who", "ann@box")
    assert code == 0, out
    assert "applied: repair location" in out
    now = json.loads(path.read_text())
    assert now["current_phase"] == PHASES[2] and now["state_version"] == 8
    line = decide.read_journal(path.parent / decide.JOURNAL_NAME)[-1]
    assert (line["who"], line["via"], line["action"]) == ("ann@box", "cli", "repair location")


@pytest.mark.parametrize("answer", [True, False])
def test_asked_on_a_terminal(tmp_path: Path, answer: bool) -> None:
    path = write(tmp_path, drifted())
    asked: list[str] = []

    def ask(question: str) -> bool:
        asked.append(question)
        return answer

    out = io.StringIO()
    code = run_repair(RepairCommand(path=str(tmp_path)), out, ask=ask)
    assert len(asked) == 1
    assert "current_phase" in out.getvalue()  # the preview came before the question
    assert code == (0 if answer else 2)
    assert json.loads(path.read_text())["state_version"] == (8 if answer else 7)


def test_against_an_earlier_copy(tmp_path: Path, capsys) -> None:
    before = state(2, version=9)
    after = stale(before, state(0))
    path = write(tmp_path, after)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(stringify(before))
    code, out = run(capsys, str(tmp_path), "--against", str(earlier), "--dry-run", "--json")
    plan = json.loads(out)["plan"]
    assert code == 0 and plan["kind"] == "stale-write" and plan["from_version"] == 9
    assert plan["kept"] == ["phases.05-test-strategy.artifacts"]
    code, out = run(capsys, str(tmp_path), "--against", str(earlier), "--yes", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["outcome"] == "applied" and doc["version_after"] == 11
    assert doc["plan"] == plan
    now = json.loads(path.read_text())
    assert now["active_workflow"]["current_phase"] == PHASES[2]
    # and the repair can be undone while nobody wrote since
    code, out = run(capsys, str(tmp_path), "--undo")
    assert code == 0, out
    assert json.loads(path.read_text())["active_workflow"]["current_phase"] == PHASES[0]
    code, out = run(capsys, str(tmp_path), "--undo")
    assert code == 2 and "nothing to undo" in out


def test_a_plan_of_only_unknowns_is_refused(tmp_path: Path, capsys) -> None:
    doc = state(1)
    doc["phases"][PHASES[3]]["status"] = "in_progress"
    path = write(tmp_path, doc)
    text = path.read_bytes()
    code, out = run(capsys, str(tmp_path), "--dry-run")
    assert code == 2 and "not repaired: phases.08-code-review.status" in out
    code, out = run(capsys, str(tmp_path), "--yes")
    assert code == 2 and path.read_bytes() == text


def test_the_file_moved_between_plan_and_write_is_planned_and_asked_again(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, drifted())
    asked = []

    def ask(question: str) -> bool:  # someone moves the workflow while the human reads
        asked.append(question)
        if len(asked) == 1:
            doc = json.loads(path.read_text())
            doc["state_version"] += 1
            doc["current_phase"] = PHASES[0]
            path.write_text(stringify(doc))
        return True

    out = io.StringIO()
    assert run_repair(RepairCommand(path=str(tmp_path)), out, ask=ask) == 0
    assert "planned again" in out.getvalue() and len(asked) == 2
    assert json.loads(path.read_text())["current_phase"] == PHASES[2]


def test_a_file_that_keeps_moving_is_given_up_after_the_replans(tmp_path: Path) -> None:
    path = write(tmp_path, drifted())
    moves = iter(range(100))

    def ask(_question: str) -> bool:  # a planned field moves before every write
        doc = json.loads(path.read_text())
        doc["state_version"] += 1
        doc["current_phase"] = PHASES[next(moves) % 2]
        path.write_text(stringify(doc))
        return True

    out = io.StringIO()
    assert run_repair(RepairCommand(path=str(tmp_path)), out, ask=ask) == 3
    assert "refused-conflict" in out.getvalue()


@pytest.mark.parametrize("content", ["{", "[1]", ""])
def test_unreadable_states_and_copies(tmp_path: Path, capsys, content: str) -> None:
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text(content)
    code, out = run(capsys, str(tmp_path), "--dry-run")
    assert code == 2 and out.startswith("refused-invalid")
    write(tmp_path, state(1))
    bad = tmp_path / "copy.json"
    bad.write_text(content)
    code, out = run(capsys, str(tmp_path), "--against", str(bad), "--dry-run")
    assert code == 2
    code, out = run(capsys, str(tmp_path), "--against", str(tmp_path / "absent.json"))
    assert code == 2


def test_hostile_text_is_cleaned(tmp_path: Path, capsys) -> None:
    doc = drifted()
    doc["current_phase"] = "\x1b]0;pwned\x07" + PHASES[0]
    write(tmp_path, doc)
    code, out = run(capsys, str(tmp_path), "--dry-run")
    assert code == 0 and "\x1b" not in out and "\x07" not in out
    code, out = run(capsys, str(tmp_path), "--dry-run", "--json")
    assert "\x1b" not in out and json.loads(out)["plan"]["changes"][0]["current"].startswith("\x1b")


def test_help_names_the_exit_codes(capsys) -> None:
    with pytest.raises(SystemExit):
        cli.main(["repair", "--help"])
    out = capsys.readouterr().out
    assert "--against" in out and "--dry-run" in out and "exit codes" in out


def test_a_repair_the_owner_reverts_is_told(tmp_path: Path) -> None:
    """--confirm-seconds: a later write of the stale copy undoes the repair: exit 3, journalled."""
    import threading
    import time

    before = state(2, version=9)
    after = stale(before, state(0))
    path = write(tmp_path, after)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(stringify(before))

    def owner() -> None:  # the sub-agent writes its old copy again, once the repair is in
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            doc = json.loads(path.read_text() or "{}")
            if doc.get("state_version") == 11:
                time.sleep(0.3)  # after the writer's own look-again, within the watch
                again = dict(after, state_version=12)
                path.write_text(stringify(again))
                return
            time.sleep(0.01)

    thread = threading.Thread(target=owner)
    thread.start()
    out = io.StringIO()
    command = RepairCommand(path=str(tmp_path), against=str(earlier), yes=True,
                            confirm_seconds=5, json=True)  # fmt: skip
    code = run_repair(command, out)
    thread.join()
    doc = json.loads(out.getvalue())
    # told as not kept: reverted in the watch (or, on a machine slow enough that the owner
    # wrote within the writer's own look-again, a race with the repair not in the file)
    assert code == 3 and doc["outcome"] in ("reverted", "race"), doc
    lines = decide.read_journal(path.parent / decide.JOURNAL_NAME)
    assert lines[-1]["outcome"] == doc["outcome"]
    if doc["outcome"] == "reverted":
        assert doc["confirmation"]["verdict"] == "reverted"


def test_a_repair_kept_by_the_next_step_is_held(tmp_path: Path) -> None:
    before = state(1, version=9)
    after = stale(before, state(0))
    path = write(tmp_path, after)
    earlier = tmp_path / "earlier.json"
    earlier.write_text(stringify(before))
    import threading
    import time

    def controller() -> None:  # the workflow moves on from the repaired state
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            doc = json.loads(path.read_text() or "{}")
            if doc.get("state_version") == 11:
                path.write_text(stringify(state(2, version=12)))
                return
            time.sleep(0.01)

    thread = threading.Thread(target=controller)
    thread.start()
    out = io.StringIO()
    command = RepairCommand(path=str(tmp_path), against=str(earlier), yes=True,
                            confirm_seconds=0.5, json=True)  # fmt: skip
    code = run_repair(command, out)
    thread.join()
    doc = json.loads(out.getvalue())
    assert code == 0 and doc["confirmation"]["verdict"] in ("held", "unchanged"), doc


def test_json_on_a_terminal_keeps_stdout_a_document(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, drifted())
    out = io.StringIO()
    code = run_repair(RepairCommand(path=str(tmp_path), json=True), out, ask=lambda _q: True)
    assert code == 0 and json.loads(out.getvalue())["outcome"] == "applied"
    assert "current_phase" in capsys.readouterr().err  # the preview went to stderr
    assert json.loads(path.read_text())["current_phase"] == PHASES[2]
