"""Programs in detached tmux panes (120x36), timed from just before tmux starts them, their
screens read with ``tmux capture-pane``: the benches that measure as a user sees (a real
terminal), on a tmux server of their own."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SIZE = ("120", "36")
SOCKET = f"pwbench-{os.getpid()}"  # a tmux server of our own, kept up by one idle session


def tmux_missing() -> bool:
    """True, and says so, when tmux is not installed (these benches need a real terminal)."""
    if shutil.which("tmux"):
        return False
    print("tmux is not installed: this bench measures in a real terminal (apt-get install tmux)")
    return True


def tmux(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["tmux", "-L", SOCKET, *args], text=True, **kwargs)


class Pane:
    """One program in a detached tmux session, timed from just before it is started."""

    def __init__(self, name: str, argv: list[str], cwd: Path | None = None) -> None:
        self.name = f"pwbench-{name}-{os.getpid()}"
        self.t0 = time.monotonic()
        tmux(
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            SIZE[0],
            "-y",
            SIZE[1],
            "-c",
            str(cwd or ROOT),
            shlex.join(argv),
            check=True,
        )
        out = tmux("display", "-p", "-t", self.name, "#{pane_pid}", capture_output=True, check=True)
        self.pid = int(out.stdout.strip())

    def screen(self, first_line_only: bool = False) -> str:
        rows = ["-S", "0", "-E", "0"] if first_line_only else []
        return tmux("capture-pane", "-p", *rows, "-t", self.name, capture_output=True).stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        tmux("send-keys", "-t", self.name, *(["-l"] if literal else []), *keys)

    def wait(
        self,
        text: str | re.Pattern[str],
        timeout: float,
        every: float = 0.005,
        first_line_only: bool = False,
    ) -> float | None:
        """Seconds from start until ``text`` (a regular expression) is on screen, or on its
        first line (None: not within ``timeout``). ``every``: seconds between looks (each look
        runs a tmux client: a long wait looks less often, so the bench does not take the CPU the
        program needs)."""
        pattern = text if isinstance(text, re.Pattern) else re.compile(text, re.M)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if pattern.search(self.screen(first_line_only)):
                return time.monotonic() - self.t0
            time.sleep(every)
        return None

    def cpu_seconds(self) -> float:
        """User + system CPU the program has used so far."""
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return float("nan")

    def memory(self) -> dict[str, float]:
        out = {}
        try:
            for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
                key = line.split(":")[0]
                if key in {"VmRSS", "VmHWM"}:
                    out[key] = int(line.split()[1]) / 1024
        except OSError:
            pass
        return out

    def close(self, timeout: float = 10.0) -> None:
        """End the program and wait until it is gone: a program still exiting (giving back a
        large log's memory) would take the CPU from the next one measured."""
        tmux("kill-session", "-t", self.name, capture_output=True)
        end = time.monotonic() + timeout
        while Path(f"/proc/{self.pid}").exists() and time.monotonic() < end:
            time.sleep(0.01)


#: How long an uncounted start runs: past its first screen and what it imports after it
#: (phasewatch imports its other screens' modules once the first data shows).
WARM_S = 2.0


def warm_up(name: str, argv: list[str], seconds: float = WARM_S) -> None:
    """An uncounted start that fills the bytecode cache (see ``_results.cached_bytecode``),
    left running ``seconds``: closed at once, it had compiled only what its first screen
    needed, and the first counted start compiled the rest as a key waited (the hook screen's
    module: 45 ms of the first ``2``)."""
    pane = Pane(f"warm-{name}", argv)
    time.sleep(seconds)
    pane.close()
