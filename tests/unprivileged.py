"""Run a Python script as an unprivileged user, for tests of permissions.

Root bypasses file modes (``chmod 000`` stops nobody who is root), so a permission test run by
root re-runs its script as ``nobody`` through ``setpriv`` (util-linux), in a directory that user
owns; run by anyone else, the script runs as that user. Where neither works the test is skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _nobody() -> tuple[int, int] | None:
    import pwd

    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def workdir() -> Path:
    """A fresh directory the unprivileged user owns (the caller removes it)."""
    path = Path(tempfile.mkdtemp(prefix="phasewatch-perm-"))
    if os.geteuid() == 0:
        ids = _nobody()
        if ids is not None:
            os.chown(path, *ids)
    return path


def command() -> list[str]:
    """The command prefix that runs the interpreter unprivileged (skips the test if none)."""
    if os.name != "posix":
        pytest.skip("POSIX permissions")
    if os.geteuid() != 0:
        return [sys.executable]
    ids = _nobody()
    setpriv = shutil.which("setpriv")
    if ids is None or setpriv is None:
        pytest.skip("running as root without setpriv or a 'nobody' user: modes are not enforced")
    prefix = [setpriv, f"--reuid={ids[0]}", f"--regid={ids[1]}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import phasewatch"], check=False)
    if probe.returncode != 0:
        pytest.skip("the unprivileged user cannot run this interpreter")
    return [*prefix, sys.executable]


def run(script: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``script`` (Python source) unprivileged with ``args``; its completed process."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": tempfile.gettempdir()}
    return subprocess.run(
        [*command(), "-c", script, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=tempfile.gettempdir(),
        check=False,
    )
