"""A demo stopped by closing its terminal (SIGHUP) or by SIGTERM removes its temporary
directory, as ``q`` does, while its players are writing, and prints no traceback (issue 42).

The directory used to come back: removed under a running player, the player's next write made
it again (``mkdir(parents=True)``); at ``--speed 30`` 14 of 20 headless runs killed by SIGHUP
left it."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

FAST = ["--speed", "30", "--autopilot", "0.2"]  # players writing all the time
#: Wall-clock limit for the demo to start (a loaded machine); never a measured result.
START_LIMIT_S = 60.0


def demo_dirs(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("phasewatch-demo-*"))


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_demo_killed_while_its_players_write_leaves_no_directory(tmp_path: Path, signum):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    argv = [sys.executable, "-m", "phasewatch", "demo", "--headless", *FAST]
    for steps in (1, 2, 3):  # killed after a few of the players' writes, at three points
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert proc.stdout is not None
        try:
            lines = [proc.stdout.readline().decode()]  # "...: writing <dir>"
            while len(lines) <= steps:  # the players' own steps, printed as they write
                lines.append(proc.stdout.readline().decode())
            assert "writing" in lines[0], lines
            proc.send_signal(signum)
            rest = proc.stdout.read().decode()
            assert proc.wait(30) == -signum
        finally:
            proc.kill()
            proc.wait()
        assert demo_dirs(tmp_path) == [], steps
        assert "Traceback" not in "".join(lines) + rest


def run_dashboard(tmp: Path) -> tuple[int, int, bytes]:
    """``phasewatch demo`` in the dashboard, on a pseudo-terminal, once it has drawn its
    first screen and written its directory: (pid, the terminal's fd, what it drew)."""
    env = {**os.environ, "TMPDIR": str(tmp), "TERM": "xterm-256color"}
    env.pop("PHASEWATCH_LOG", None)
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session of its own, the pty its controlling terminal
        os.execve(sys.executable, [sys.executable, "-m", "phasewatch", "demo", *FAST], env)
    out = b""
    deadline = time.monotonic() + START_LIMIT_S
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                out += os.read(fd, 65536)
            except OSError:
                break
        if demo_dirs(tmp) and b"Overview" in out and (demo_dirs(tmp)[0] / "PLUGINS.md").exists():
            return pid, fd, out
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError(f"the demo did not start: {out[-2000:]!r}")


def drain(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the other side is closed
            return out
        if not chunk:
            return out
        out += chunk


def test_the_dashboard_demo_hung_up_removes_its_directory_and_prints_no_traceback(
    tmp_path: Path,
):
    pid, fd, out = run_dashboard(tmp_path)
    try:
        os.kill(pid, signal.SIGHUP)
        out += drain(fd)
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGHUP
    assert demo_dirs(tmp_path) == []
    assert b"Traceback" not in out


def test_closing_the_dashboard_demos_terminal_removes_its_directory(tmp_path: Path):
    pid, fd, _out = run_dashboard(tmp_path)
    os.close(fd)  # the terminal window closed: the kernel hangs up its session
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGHUP
    assert demo_dirs(tmp_path) == []
