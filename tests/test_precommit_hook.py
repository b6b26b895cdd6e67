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


def test_the_readme_pins_a_rev_that_exists_or_says_to_pick_one():
    """A `rev:` in the README names a tag or commit of this repository, or is a placeholder
    (`<commit sha>`); a `repo: local` hook runs the same command as the shipped one."""
    import re

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "phasewatch-check" in b]
    assert blocks
    for block in blocks:
        for repo in yaml.safe_load(block)["repos"]:
            if repo["repo"] == "local":
                (local,) = repo["hooks"]
                assert local["entry"] == hook["entry"] and local["pass_filenames"] is False
                continue
            rev = str(repo["rev"])
            if rev.startswith("<"):
                continue
            proc = subprocess.run(
                ["git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            assert proc.returncode == 0, f"README pins rev {rev!r}, which this repository lacks"
