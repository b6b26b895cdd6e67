"""`phasewatch <dir>` start-up to first paint, and idle memory, in a real pseudo-terminal.

Method: the installed ``phasewatch`` command is started with ``pty.fork()`` on a 120x36 pty
(``TERM=xterm-256color``) on a temp project (``tests.factories.feature_state``, a 5,000-line hook
log). The parent reads the pty continuously and stamps (``time.monotonic``, from just before the
fork, so interpreter start-up and every import are included):

* first output: the first byte the process writes (terminal set-up sequences);
* first frame: the first bytes of a painted screen (the footer's ``Quit`` key label);
* first data: the first frame showing the state file's content (the project name in the header),
  and the CPU time (user + sys, ``/proc/<pid>/stat``, 10 ms ticks) the process had used by then
  (about equal to the wall time: start-up is CPU-bound, it never waits).

Then it stays idle ~3 s (still draining the pty) and reads ``VmRSS``/``VmHWM`` from
``/proc/<pid>/status`` and the CPU time used while idle from ``/proc/<pid>/stat``. It presses
``q`` and waits; a child still alive after 5 s is killed (SIGTERM, then SIGKILL). Not a test.

    .venv/bin/python bench/bench_startup.py [runs]
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import _project  # noqa: E402  (bench/ is on sys.path as the script dir)

RUNS = 5
COLS, ROWS = 120, 36
IDLE_S = 3.0
START_TIMEOUT_S = 15.0
TARGETS = {"first_paint_s": 0.8, "rss_mb": 120.0}
FRAME_MARK = b"Quit"  # footer key label: present in the first painted frame
DATA_MARK = b"acme-api"  # project name from the state file, shown in the header


def make_project(tmp: Path) -> Path:
    """The project directory (see bench/_project.py)."""
    return _project.make_project(tmp).parent.parent


def phasewatch_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "phasewatch"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("phasewatch")
    return [found] if found else [sys.executable, "-m", "phasewatch.tui.cli"]


def proc_status(pid: int) -> dict[str, float]:
    out: dict[str, float] = {}
    try:
        for row in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = row.partition(":")
            if key in {"VmRSS", "VmHWM"}:
                out[key] = int(value.split()[0]) / 1024
    except OSError:
        pass
    return out


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def child_env(pycache: str | None) -> dict[str, str]:
    """The child's environment; ``pycache``: a private bytecode cache (None: compile from source
    every time, as with PYTHONDONTWRITEBYTECODE=1)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TEXTUAL")}
    env.update(TERM="xterm-256color", COLORTERM="truecolor", PYTHONPATH=str(ROOT))
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    env.pop("NO_COLOR", None)
    env.pop("WATCHFILES_FORCE_POLLING", None)
    return env


class Run:
    def __init__(self, project: Path, pycache: str | None) -> None:
        self.project = project
        self.pycache = pycache
        self.pid = 0
        self.fd = -1
        self.buf = bytearray()
        self.t0 = 0.0
        self.marks: dict[str, float] = {}
        self.cpu_at_data = float("nan")

    def drain(self, seconds: float, until: str | None = None) -> None:
        """Read the pty for ``seconds`` (or until EOF, or until the mark ``until``)."""
        end = time.monotonic() + seconds
        while until is None or until not in self.marks:
            left = end - time.monotonic()
            if left <= 0:
                return
            ready, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # EIO: the child closed the pty
                return
            if not chunk:
                return
            t = time.monotonic()
            tail = len(self.buf) - 16
            self.buf += chunk
            window = bytes(self.buf[max(0, tail) :])
            self.marks.setdefault("output", t)
            if "frame" not in self.marks and FRAME_MARK in window:
                self.marks["frame"] = t
            if "data" not in self.marks and DATA_MARK in window:
                self.marks["data"] = t
                self.cpu_at_data = cpu_seconds(self.pid)
            if len(self.buf) > 1 << 20:  # keep only a tail
                del self.buf[: -(1 << 16)]

    def start(self) -> None:
        cmd = [*phasewatch_cmd(), str(self.project)]
        env = child_env(self.pycache)
        self.t0 = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:  # child: size the terminal, then become phasewatch
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
                os.chdir(ROOT)
                os.execve(cmd[0], cmd, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd

    def measure(self, idle_s: float) -> dict[str, float]:
        self.drain(self.t0 + START_TIMEOUT_S - time.monotonic(), until="data")
        if "data" not in self.marks:
            return {}
        cpu0, t_idle = cpu_seconds(self.pid), time.monotonic()
        self.drain(idle_s)
        cpu1, t_end = cpu_seconds(self.pid), time.monotonic()
        status = proc_status(self.pid)
        return {
            "output": self.marks["output"] - self.t0,
            "frame": self.marks.get("frame", float("nan")) - self.t0,
            "data": self.marks["data"] - self.t0,
            "data_cpu": self.cpu_at_data,
            "rss": status.get("VmRSS", float("nan")),
            "hwm": status.get("VmHWM", float("nan")),
            "idle_cpu": (cpu1 - cpu0) / max(t_end - t_idle, 1e-9) * 100,
        }

    def stop(self) -> str:
        """Press q; wait; escalate. Always reaps the child and closes the pty."""
        how = "q"
        try:
            if self.pid and self.fd >= 0:
                try:
                    os.write(self.fd, b"q")
                except OSError:
                    pass
                for sig in (None, signal.SIGTERM, signal.SIGKILL):
                    if sig is not None:
                        how = sig.name
                        try:
                            os.kill(self.pid, sig)
                        except ProcessLookupError:
                            break
                    end = time.monotonic() + 5.0
                    while time.monotonic() < end:
                        self.drain(0.05)
                        done, _ = os.waitpid(self.pid, os.WNOHANG)
                        if done:
                            self.pid = 0
                            return how
                    if sig is signal.SIGKILL:
                        break
        finally:
            if self.pid:
                try:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
                self.pid = 0
            if self.fd >= 0:
                os.close(self.fd)
                self.fd = -1
        return how


def import_time(code: str, pycache: str, runs: int = 3) -> float:
    samples = []
    env = child_env(pycache)
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, timeout=30
        )
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def report(name: str, value: float, unit: str, key: str) -> None:
    target = TARGETS[key]
    print(
        f"{name:<44} {value:8.3f} {unit:<3} target {target:g} {unit:<3} ratio {value / target:5.2f}"
    )


def series(project: Path, pycache: str | None, runs: int, idle_s: float) -> list[dict[str, float]]:
    results: list[dict[str, float]] = []
    for _ in range(runs):
        run = Run(project, pycache)
        try:
            run.start()
            result = run.measure(idle_s)
        finally:
            how = run.stop()
        if how != "q":
            print(f"  (a child did not quit on 'q': stopped by {how})")
        if not result:
            tail = bytes(run.buf[-400:]).decode("utf-8", "replace")
            print(f"  run failed: no data frame within {START_TIMEOUT_S:g} s; tail {tail!r}")
            continue
        results.append(result)
    return results


def main(runs: int) -> None:
    print(f"(load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)")
    with (
        tempfile.TemporaryDirectory(prefix="pw-startup-") as tmp,
        tempfile.TemporaryDirectory(prefix="pw-pycache-") as pycache,
    ):
        project = make_project(Path(tmp))
        series(project, pycache, 1, 0.0)  # warm-up, not counted: fills the bytecode cache
        warm = series(project, pycache, runs, IDLE_S)
        cold = series(project, None, 3, 0.0)
        bare = import_time("pass", pycache)
        textual = import_time("import textual.app", pycache)
        app = import_time("import phasewatch.tui.app", pycache)
        core = import_time(
            "import phasewatch.tui.app, phasewatch.core.session, phasewatch.core.decide, "
            "phasewatch.core.config",
            pycache,
        )
    if not warm:
        return
    med = {k: statistics.median(r[k] for r in warm) for k in warm[0]}
    top = {k: max(r[k] for r in warm) for k in warm[0]}
    print(
        f"`phasewatch <dir>` on a {COLS}x{ROWS} pty, {len(warm)} runs, bytecode cached "
        f"(as installed), median (max)"
    )
    print(
        f"  first output byte (imports done)            {med['output']:8.3f} s   ({top['output']:.3f})"
    )
    print(
        f"  first frame painted (footer)                {med['frame']:8.3f} s   ({top['frame']:.3f})"
    )
    report("start-up to first paint with the state's data", med["data"], "s", "first_paint_s")
    low = min(r["data"] for r in warm)
    print(f"  min / max over runs                         {low:8.3f} / {top['data']:.3f} s")
    print(f"  CPU time used by then (user+sys)            {med['data_cpu']:8.2f} s")
    if cold:
        c = statistics.median(r["data"] for r in cold)
        print(
            f"  without a bytecode cache (PYTHONDONTWRITEBYTECODE=1: every project module compiled "
            f"at start): {c:.3f} s, ratio {c / TARGETS['first_paint_s']:.2f}"
        )
    report(f"idle RSS after {IDLE_S:g} s idle", med["rss"], "MB", "rss_mb")
    print(f"  peak RSS (VmHWM)                            {med['hwm']:8.1f} MB")
    print(f"  CPU while idle                              {med['idle_cpu']:8.1f} %  of one core")
    print(
        f"  where start-up goes: python itself {bare:.3f} s; import textual.app "
        f"{textual - bare:.3f} s; import tui.app (the first frame's modules: textual, the "
        f"screens, the widgets) {app - bare:.3f} s; then, after the first frame, the core "
        f"(pydantic, numpy, the readers, the writer) {core - app:.3f} s"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else RUNS)
