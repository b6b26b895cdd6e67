"""The ``phasewatch`` logger (core/log.py): an internal failure turned into a finding or a
message keeps its traceback in the file the user chose (``--log FILE``, ``PHASEWATCH_LOG``), and
nothing reaches the terminal, with or without a log."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core import audit, log
from phasewatch.core.checks import Emitter, run_checks
from phasewatch.tui.cli import _log_option

from tests import factories as F
from tests.helpers.app import make_app, wait_until, write_state


@pytest.fixture(autouse=True)
def fresh_logger() -> Iterator[None]:
    """Each test starts without a log file and with no failure counted."""
    yield
    root = logging.getLogger(log.NAME)
    for handler in [h for h in root.handlers if h.get_name() == log.HANDLER]:
        root.removeHandler(handler)
        handler.close()
    root.setLevel(logging.NOTSET)
    log._counts.clear()


def broken_check(em: Any, *args: Any) -> None:
    raise RuntimeError("boom \x1b[31mred")


def run_broken() -> list[Any]:
    return run_checks(Emitter("src"), [broken_check])


def test_the_traceback_lands_in_the_log_file(tmp_path: Path) -> None:
    path = tmp_path / "phasewatch.log"
    log.log_to(str(path))
    found = run_broken()
    assert [f.rule_id for f in found] == ["AUDIT-INTERNAL"]  # the finding, as before
    text = path.read_text(encoding="utf-8")
    assert "phasewatch.core.checks ERROR audit check broken_check raised" in text
    assert "Traceback (most recent call last)" in text and "in broken_check" in text
    assert "RuntimeError: boom" in text
    assert "\x1b" not in text  # the file is cleaned like everything phasewatch writes out


def test_without_a_log_nothing_is_written_anywhere(capfd: pytest.CaptureFixture[str]) -> None:
    run_broken()
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")  # not even Python's last-resort handler on stderr


def test_a_failure_that_repeats_is_logged_a_bounded_number_of_times(tmp_path: Path) -> None:
    path = tmp_path / "phasewatch.log"
    log.log_to(str(path))
    for _ in range(log.PER_PLACE * 5):
        run_broken()
    text = path.read_text(encoding="utf-8")
    assert text.count("Traceback") == log.PER_PLACE
    assert text.count("further failures here are not logged") == 1


def test_a_second_log_to_replaces_the_first(tmp_path: Path) -> None:
    log.log_to(str(tmp_path / "a.log"))
    log.log_to(str(tmp_path / "b.log"))
    run_broken()
    assert (tmp_path / "a.log").read_text() == ""
    assert "Traceback" in (tmp_path / "b.log").read_text()


def test_the_processes_a_command_starts_log_to_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasewatch.tui.cli import _start_log

    monkeypatch.setenv(log.ENV, "")  # (restored after the test, whatever _start_log sets)
    monkeypatch.chdir(tmp_path)
    assert _start_log("relative.log")
    assert os.environ[log.ENV] == str(tmp_path / "relative.log")  # (serve's dashboards)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--log", "f", "check", "p"], ("f", ["check", "p"])),
        (["check", "--log=f", "p"], ("f", ["check", "p"])),
        (["review", "redo", "--", "--log", "f"], (None, ["review", "redo", "--", "--log", "f"])),
        (["--log", "a", "--log", "b"], ("b", [])),
        (["p"], (None, ["p"])),
    ],
)
def test_the_log_option_is_taken_by_every_command(argv: list[str], expected: Any) -> None:
    assert _log_option(argv) == expected


# ------------------------------------------------------------------ the command, as a process

#: A ``phasewatch`` process with a check that raises in the audit (an injected bug).
INJECT = """
import sys
from phasewatch.core import audit
def broken(em, state, raw):
    raise RuntimeError("injected")
audit.SNAPSHOT_CHECKS = (broken, *audit.SNAPSHOT_CHECKS)
from phasewatch.tui.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def run_phasewatch(args: list[str], env: dict[str, str] | None = None) -> Any:
    full_env = {k: v for k, v in os.environ.items() if k != log.ENV}
    return subprocess.run(
        [sys.executable, "-c", INJECT, *args],
        capture_output=True,
        env={**full_env, **(env or {})},
        timeout=60,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write_state(root / ".isdlc" / "state.json", F.feature_state())
    return root


def test_check_logs_the_traceback_and_prints_the_same(project: Path, tmp_path: Path) -> None:
    plain = run_phasewatch(["check", "--json", str(project)])
    path = tmp_path / "check.log"
    logged = run_phasewatch(["--log", str(path), "check", "--json", str(project)])

    # (the framework views' "at" is the time they were read: the only field that differs)
    def same(out: bytes) -> bytes:
        return re.sub(rb'"at": "[^"]*"', b'"at": ""', out)

    assert (same(logged.stdout), logged.stderr, logged.returncode) == (
        same(plain.stdout),
        plain.stderr,
        plain.returncode,
    )
    assert plain.stderr == b""
    ids = [f["rule_id"] for f in json.loads(plain.stdout)["findings"]]
    assert "AUDIT-INTERNAL" in ids
    text = path.read_text()
    assert "Traceback" in text and "RuntimeError: injected" in text


def test_the_environment_variable_names_the_log(project: Path, tmp_path: Path) -> None:
    path = tmp_path / "env.log"
    done = run_phasewatch(["check", "-q", str(project)], env={log.ENV: str(path)})
    assert done.stderr == b""
    assert "RuntimeError: injected" in path.read_text()


def test_a_log_that_cannot_be_written_is_refused_before_anything(
    project: Path, tmp_path: Path
) -> None:
    where = tmp_path / "no-such-dir" / "x.log"
    done = run_phasewatch(["--log", str(where), "check", str(project)])
    assert done.returncode == 2 and done.stdout == b""
    assert b"phasewatch: --log: cannot write" in done.stderr
    done = run_phasewatch(["check", str(project)], env={log.ENV: str(where)})
    assert done.returncode == 2 and b"PHASEWATCH_LOG: cannot write" in done.stderr


# ------------------------------------------------------------------ the dashboard


async def test_the_dashboard_keeps_failures_off_its_terminal(
    project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """An audit check that raises (the session's thread) and a read that fails (a worker):
    each is on screen as a finding or a message, its traceback is in the log, and nothing
    else is written to the process's stdout or stderr."""

    def broken(em: Any, state: Any, raw: Any) -> None:
        raise RuntimeError("injected audit bug")

    monkeypatch.setattr(audit, "SNAPSHOT_CHECKS", (broken, *audit.SNAPSHOT_CHECKS))
    path = tmp_path / "app.log"
    log.log_to(str(path))
    capfd.readouterr()
    app = make_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.last_update is not None)
        snap = app.last_update.snapshot() if app.last_update is not None else None
        assert snap is not None and "AUDIT-INTERNAL" in {f.rule_id for f in snap.findings}
    assert "RuntimeError: injected audit bug" in path.read_text()
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "injected" not in out + err

    from phasewatch.core.session import ProjectSession

    def failing_read(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise OSError("injected read failure")

    monkeypatch.setattr(ProjectSession, "refresh", failing_read)
    app = make_app(project)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.read_error is not None)
    text = path.read_text()
    assert "the watch worker failed" in text and "OSError: injected read failure" in text
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err and "injected" not in out + err
