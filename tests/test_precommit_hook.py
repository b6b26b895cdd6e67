"""The pre-commit hook definition runs `phasewatch check` on the repository."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_the_hook_runs_check_on_the_whole_repository(tmp_path):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "phasewatch-check" and hook["language"] == "python"
    assert hook["pass_filenames"] is False and hook["always_run"] is True
    argv = shlex.split(hook["entry"])
    assert argv[:2] == ["phasewatch", "check"]
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("{ not json")
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", *argv[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr  # the commit is stopped
