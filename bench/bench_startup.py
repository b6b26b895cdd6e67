"""Time to truth on a real-size project: `phasewatch <dir>` against a minimal Textual app, side by
side, from process start, in a real pseudo-terminal.

The project (bench/_project.py) is a real state file (written by the framework's own code, from
the generated corpus) and a hook log at the framework's rotation cap (1 MiB, about 5,300 lines).
Each program is started with ``pty.fork()`` on a 120x36 pty (``TERM=xterm-256color``), from a
bytecode cache (as installed; one uncounted start of each, as long as a counted one, fills it).
The parent reads the pty continuously and stamps (``time.monotonic``, from just before the
fork, so interpreter start-up and every import are included):

* first output: the first byte the process writes (terminal set-up sequences);
* first frame: the first bytes of a painted screen (phasewatch: the footer's ``Quit`` key label;
  the minimal app: its one line of text);
* first data: the first frame showing the state file's content (the project name in the
  header and the location matrix's rows: both marks written), and the CPU time (user + sys,
  ``/proc/<pid>/stat``) the process had used by then.
  The minimal app has no data: its first frame is its truth.

Then it stays idle ~3 s (still draining the pty) and reads ``VmRSS``/``VmHWM`` from
``/proc/<pid>/status`` and the CPU used while idle. It presses ``q`` and waits; a child still
alive after 5 s is killed (SIGTERM, then SIGKILL). The two programs run in turns (the order
swapped every round), so a shared machine's slow spell hits both; medians and the ratios
phasewatch / minimal go to the screen and to ``bench/results/startup-<time>.json``. Goals (issue
27): data on screen within 1.5x of the minimal app's first paint, idle RSS within 1.5x. Not a
test.

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
import _results  # noqa: E402

RUNS = 7
COLS, ROWS = 120, 36
IDLE_S = 3.0
START_TIMEOUT_S = 15.0
GOAL_RATIO = 1.5  # issue 27: data on screen and idle RSS within 1.5x of a minimal Textual app
FRAME_MARK = b"Quit"  # footer key label: present in phasewatch's first painted frame
#: the project's name from the state file (in the header) and its matrix rows (bench/_project.py)
DATA_MARKS = tuple(mark.encode() for mark in _project.DATA_MARKS)
MINIMAL_MARK = b"minimal-app-ready"

# The reference: the smallest Textual app with the same furniture (a header and a footer).
MINIMAL_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static
class Minimal(App):
    BINDINGS = [("q", "quit", "Quit")]
    def compose(self):
        yield Header()
        yield Static("minimal-app-ready")
        yield Footer()
Minimal().run()
"""


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
    def __init__(
        self, cmd: list[str], pycache: str | None, frame_mark: bytes, data_marks: tuple[bytes, ...]
    ) -> None:
        self.cmd = cmd
        self.pycache = pycache
        self.frame_mark, self.data_marks = frame_mark, data_marks
        self.seen: set[bytes] = set()  # the data marks written so far
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
            if "frame" not in self.marks and self.frame_mark in window:
                self.marks["frame"] = t
            self.seen.update(mark for mark in self.data_marks if mark in window)
            if "data" not in self.marks and len(self.seen) == len(self.data_marks):
                self.marks["data"] = t
                self.cpu_at_data = cpu_seconds(self.pid)
            if len(self.buf) > 1 << 20:  # keep only a tail
                del self.buf[: -(1 << 16)]

    def start(self) -> None:
        cmd = self.cmd
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


def series(
    cmd: list[str], pycache: str | None, marks: tuple[bytes, tuple[bytes, ...]], idle_s: float
) -> dict[str, float] | None:
    """One start of ``cmd``: its marks and memory (None: no data frame in time)."""
    run = Run(cmd, pycache, *marks)
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
        return None
    return result


def line(label: str, pw: float, ref: float | None, unit: str, goal: float | None = None) -> str:
    fmt = (lambda v: f"{v:7.3f} s ") if unit == "s" else (lambda v: f"{v:7.1f} MB")
    out = f"  {label:<40} {fmt(pw)}"
    if ref is not None:
        out += f"   minimal {fmt(ref)}   ratio {pw / ref:5.2f}x"
        if goal is not None:
            out += f" (goal <= {goal:g}x {'met' if pw / ref <= goal else 'NOT met'})"
    return out


def main(runs: int) -> None:
    load = os.getloadavg()
    print(f"(load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs)")
    with (
        tempfile.TemporaryDirectory(prefix="pw-startup-") as tmp,
        tempfile.TemporaryDirectory(prefix="pw-pycache-") as pycache,
    ):
        project = make_project(Path(tmp) / "project")
        log = project / ".isdlc" / "hook-activity.log"
        lines = log.read_bytes().count(b"\n")
        state_bytes = (project / ".isdlc" / "state.json").stat().st_size
        minimal = Path(tmp) / "minimal_app.py"
        minimal.write_text(MINIMAL_APP)
        programs = {
            "phasewatch": ([*phasewatch_cmd(), str(project)], (FRAME_MARK, DATA_MARKS)),
            "minimal": ([sys.executable, str(minimal)], (MINIMAL_MARK, (MINIMAL_MARK,))),
        }
        # warm-up, not counted: fills the bytecode cache. It stays idle as long as a counted
        # run, so the modules imported after the first data are cached too (stopped at the
        # data, the first counted run compiled them: 55 MB idle RSS against 50 in the others).
        for cmd, marks in programs.values():
            series(cmd, pycache, marks, IDLE_S)
        got: dict[str, list[dict[str, float]]] = {name: [] for name in programs}
        for k in range(runs):  # interleaved, the order swapped every round
            order = list(programs) if k % 2 == 0 else list(reversed(programs))
            for name in order:
                time.sleep(0.3)
                cmd, marks = programs[name]
                result = series(cmd, pycache, marks, IDLE_S)
                if result is not None:
                    got[name].append(result)
        cold = [
            r
            for r in (series(programs["phasewatch"][0], None, (FRAME_MARK, DATA_MARKS), 0.0),)
            if r is not None
        ]
        bare = import_time("pass", pycache)
        textual = import_time("import textual.app", pycache)
        app = import_time("import phasewatch.tui.app", pycache)
    if not got["phasewatch"] or not got["minimal"]:
        print("no complete run: nothing to report")
        return
    med = {n: {k: statistics.median(r[k] for r in rs) for k in rs[0]} for n, rs in got.items()}
    top = {n: {k: max(r[k] for r in rs) for k in rs[0]} for n, rs in got.items()}
    pw, mn = med["phasewatch"], med["minimal"]
    print(
        f"real-size project: state.json {state_bytes:,} B "
        f"(from the framework's code), hook log {lines:,} lines at the 1 MiB rotation cap"
    )
    print(
        f"{COLS}x{ROWS} pty, from process start, bytecode cached, medians of "
        f"{len(got['phasewatch'])}/{len(got['minimal'])} interleaved runs"
    )
    print(line("first output byte (imports done)", pw["output"], mn["output"], "s"))
    print(line("first frame painted", pw["frame"], mn["frame"], "s"))
    print(line("the project's data on screen", pw["data"], mn["frame"], "s", GOAL_RATIO))
    print(
        f"    (phasewatch worst {top['phasewatch']['data']:.3f} s; CPU used by then "
        f"{pw['data_cpu']:.2f} s, the minimal app's by its first paint {mn['data_cpu']:.2f} s)"
    )
    print(line(f"idle RSS after {IDLE_S:g} s", pw["rss"], mn["rss"], "MB", GOAL_RATIO))
    print(line("peak RSS (VmHWM)", pw["hwm"], mn["hwm"], "MB"))
    print(
        f"  CPU while idle: phasewatch {pw['idle_cpu']:.1f} %, minimal {mn['idle_cpu']:.1f} % of a core"
    )
    if cold:
        print(
            f"  phasewatch without a bytecode cache (every module compiled): data on screen "
            f"{cold[0]['data']:.3f} s"
        )
    print(
        f"  imports: python itself {bare:.3f} s; textual.app +{textual - bare:.3f} s; "
        f"phasewatch.tui.app +{app - bare:.3f} s"
    )
    path = _results.save(
        "startup",
        {
            "runs": runs,
            "state_bytes": state_bytes,
            "hook_log_lines": lines,
            "summary": {
                name: {k: _results.stats([r[k] for r in rs]) for k in rs[0]}
                for name, rs in got.items()
            },
            "raw": got,
        },
    )
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else RUNS)
