"""Faults the decision commands meet (issue 41, item 5): no traceback for any input, deep
nesting included (the writer takes every state the reader takes); a read cut by the owner's
write under way is read again until the write completes, then refused with the reason."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core import decide
from phasewatch.core.decide.codec import (
    MAX_NESTING,
    DocumentError,
    deep_room,
    parse_document,
    parse_state_bytes,
)
from phasewatch.core.sources import MAX_JSON_NESTING, read_json
from phasewatch.tui import cli

from tests.helpers.repair import PHASES, stale, state, stringify


@pytest.fixture(autouse=True)
def no_project_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)


def nested(depth: int, leaf: str = '"leaf"') -> str:
    """``depth`` containers, arrays and objects in turn, around ``leaf``."""
    opens = "".join('{"k":' if i % 2 else "[" for i in range(depth))
    closes = "".join("}" if i % 2 else "]" for i in reversed(range(depth)))
    return opens + leaf + closes


def with_value(doc: dict[str, Any], depth: int, key: str = "deep") -> str:
    """``doc``'s JSON with ``key`` holding a value ``depth`` containers deep (the document is
    then ``depth + 1`` deep)."""
    text = stringify(doc)
    return text[: text.rindex("}")].rstrip() + f',\n  "{key}": {nested(depth)}\n}}'


def project(root: Path, text: str) -> Path:
    (root / ".isdlc").mkdir(exist_ok=True)
    path = root / ".isdlc" / "state.json"
    path.write_text(text, encoding="utf-8")
    return path


def drifted() -> dict[str, Any]:
    doc = state(2)
    doc["current_phase"] = PHASES[1]
    return doc


def kept(path: Path, depth: int) -> bool:
    """The file still holds the deep value (value for value: the writer re-lays it out)."""
    with deep_room():
        return bool(parse_state_bytes(path.read_bytes())["deep"] == parse_document(nested(depth)))


def repair(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["repair", *argv])
    return code, capsys.readouterr().out


def test_the_writers_limit_is_the_readers() -> None:
    """One limit: the writer's parser takes exactly as deep as the reader's first parser."""
    assert MAX_NESTING == MAX_JSON_NESTING
    assert isinstance(
        parse_state_bytes(("{" + '"a":' + nested(MAX_NESTING - 1) + "}").encode()), dict
    )
    with pytest.raises(DocumentError, match="nested more than"):
        parse_state_bytes(("{" + '"a":' + nested(MAX_NESTING) + "}").encode())


@pytest.mark.parametrize("depth", [450, 600, 850])
def test_repair_and_undo_of_a_deep_state(tmp_path: Path, capsys, depth: int) -> None:
    """A state with a value nested 450-850 deep (check reads it): planned, written by the one
    writer with the deep value byte for byte, undone; no traceback anywhere."""
    path = project(tmp_path, with_value(drifted(), depth))
    assert read_json(path).status == "ok"
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code == 0 and "applied" in out, out
    assert kept(path, depth) and parse_state_bytes(path.read_bytes())["current_phase"] == PHASES[2]
    code, out = repair(capsys, str(tmp_path), "--undo")
    assert code == 0 and "applied" in out, out
    assert kept(path, depth) and parse_state_bytes(path.read_bytes())["current_phase"] == PHASES[1]


@pytest.mark.parametrize("depth", [450, 850])
def test_repair_against_deep_copies(tmp_path: Path, capsys, depth: int) -> None:
    """Deep values in the state and in the ``--against`` copy: planned and applied."""
    path = project(tmp_path, with_value(stale(state(2), state(1)), depth))
    old = tmp_path / "old.json"
    old.write_text(with_value(state(2), depth + 1))
    code, out = repair(capsys, str(tmp_path), "--against", str(old), "--yes", "--json")
    assert code == 0, out
    assert json.loads(out)["outcome"] == "applied"
    assert parse_state_bytes(path.read_bytes())["active_workflow"]["current_phase_index"] == 2


@pytest.mark.parametrize("depth", [990, 999, 1500, 20000, 200000])
@pytest.mark.parametrize("where", ["state", "against"])
def test_too_deep_is_refused_with_the_reason(
    tmp_path: Path, capsys, depth: int, where: str
) -> None:
    """Deeper than the reader takes, in the state or in ``--against``: exit 2 and why; the
    file untouched; nothing raised."""
    text = with_value(drifted(), depth)
    path = project(tmp_path, text if where == "state" else stringify(drifted()))
    old = tmp_path / "old.json"
    old.write_text(text)
    args = ["--against", str(old)] if where == "against" else []
    before = path.read_bytes()
    for extra in (["--dry-run"], ["--yes"], ["--yes", "--json"]):
        code, out = repair(capsys, str(tmp_path), *args, *extra)
        if depth < 995 and code == 0:  # (the reader's limit counts the caller's stack)
            continue
        assert code == 2 and "nested" in out, out
    assert where == "against" or path.read_bytes() == before


@pytest.mark.parametrize("depth", [MAX_NESTING - 1, MAX_NESTING, MAX_NESTING + 1, 50000])
def test_the_writer_takes_what_it_can_parse_and_refuses_the_rest(
    tmp_path: Path, depth: int
) -> None:
    """Straight through the writer (no reader before it): a document ``depth + 1`` deep is
    written with every byte of the deep value kept, or refused as too deep; never raised."""
    path = project(tmp_path, with_value(drifted(), depth))

    def mutate(doc: dict[str, Any]) -> str:
        doc["current_phase"] = PHASES[2]
        return "moved"

    result = decide.apply_update(path, mutate, action="test deep", expect_version=7)
    if depth + 1 <= MAX_NESTING:
        assert result.outcome == "applied", result.message
        assert kept(path, depth)
    else:
        assert result.outcome == "refused-invalid" and "nested more than" in result.message


def test_a_deep_state_through_the_command_line_no_traceback(tmp_path: Path) -> None:
    """The issue's case, as a user runs it: 985 deep (check reads it) is repaired and undone;
    5000 deep is refused; never a traceback."""
    exe = [sys.executable, "-m", "phasewatch"]
    for depth, want in ((985, 0), (5000, 2)):
        root = tmp_path / str(depth)
        root.mkdir()
        project(root, with_value(drifted(), depth))
        for argv in (
            ["check", str(root)],
            ["repair", str(root), "--yes"],
            ["repair", str(root), "--undo"],
        ):
            got = subprocess.run([*exe, *argv], capture_output=True, text=True, timeout=60)
            assert "Traceback" not in got.stderr, got.stderr
            if argv[0] == "repair":
                assert got.returncode == want, (argv, got.stdout)


# ----------------------------------------------------------------------------- torn reads


def test_a_planning_read_cut_by_a_write_under_way_is_read_again(tmp_path: Path, capsys) -> None:
    """The owner truncated the file and has not written it yet: repair's planning read waits
    for the write to complete (no "not valid JSON" for a file that is fine a moment later)."""
    path = project(tmp_path, "")
    good = stringify(drifted())

    def owner() -> None:
        time.sleep(0.3)
        path.write_text(good[: len(good) // 2])  # half, then the rest
        time.sleep(0.2)
        path.write_text(good)

    writer = threading.Thread(target=owner)
    writer.start()
    code, out = repair(capsys, str(tmp_path), "--dry-run", "--json")
    writer.join()
    assert code == 0 and json.loads(out)["outcome"] == "dry-run", out


def test_a_read_that_stays_cut_is_refused_with_the_reason(tmp_path: Path, capsys) -> None:
    good = stringify(drifted())
    project(tmp_path, good[: len(good) // 2])
    code, out = repair(capsys, str(tmp_path), "--dry-run")
    assert code == 2 and "still being written (or cut)" in out, out
    project(tmp_path, "")
    code, out = repair(capsys, str(tmp_path), "--yes")
    assert code == 2 and "still being written (or cut)" in out and "empty file" in out, out


def test_a_decision_read_cut_by_a_write_under_way_waits_for_it(tmp_path: Path) -> None:
    """The writer's own read: an empty file, then the owner's whole write: the decision is made
    on the whole file (not refused, not made on the cut one)."""
    path = project(tmp_path, "")
    good = stringify(drifted())

    def owner() -> None:
        time.sleep(0.3)
        path.write_text(good)

    def mutate(doc: dict[str, Any]) -> str:
        doc["current_phase"] = PHASES[2]
        return "moved"

    writer = threading.Thread(target=owner)
    writer.start()
    result = decide.apply_update(path, mutate, action="test torn", expect_version=7)
    writer.join()
    assert result.outcome == "applied", result.message
    assert json.loads(path.read_text())["state_version"] == 8


def test_a_decision_on_a_file_that_stays_cut_is_refused_with_the_reason(tmp_path: Path) -> None:
    good = stringify(drifted())
    path = project(tmp_path, good[: len(good) // 2])
    result = decide.apply_update(path, lambda doc: "x", action="test cut", expect_version=7)
    assert result.outcome == "refused-invalid"
    assert "still being written (or is cut)" in result.message and "not touched" in result.message
    assert path.read_text() == good[: len(good) // 2]
    path.write_text("{]")  # broken, not cut: said as such, at once
    result = decide.apply_update(path, lambda doc: "x", action="test broken", expect_version=7)
    assert result.outcome == "refused-invalid" and "is not valid JSON" in result.message
