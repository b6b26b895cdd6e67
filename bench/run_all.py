"""Run every benchmark in bench/ and print their numbers (`make bench`).

Each bench runs in its own interpreter (so one bench's memory does not show in another's RSS, and
a hang cannot stall the rest): it is killed after ``TIMEOUT_S`` seconds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TIMEOUT_S = 180
LONG = {
    "bench_e2e": 1800,  # a 1M-line log opened three times by three programs, in tmux
    "bench_dashboard_size": 600,  # five states up to the 32 MiB cap, each started twice
}

if __name__ == "__main__":
    failed = []
    for path in sorted(HERE.glob("bench_*.py")):
        print(f"\n== {path.stem} " + "=" * (60 - len(path.stem)), flush=True)
        t = time.perf_counter()
        # its own process group: on a timeout the bench AND its children (writers, ptys) go
        proc = subprocess.Popen(
            [sys.executable, str(path)], cwd=HERE.parent, start_new_session=True
        )
        try:
            code: int | str = proc.wait(LONG.get(path.stem, TIMEOUT_S))
        except subprocess.TimeoutExpired:
            code = "timeout"
        finally:
            if proc.poll() is None or code == "timeout":
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
        took = time.perf_counter() - t
        print(f"-- {path.stem}: {took:.1f} s" + (f", exit {code}" if code != 0 else ""), flush=True)
        if code != 0:
            failed.append(path.stem)
    if failed:
        print(f"\nbenchmarks that did not finish cleanly: {', '.join(failed)}")
    sys.exit(1 if failed else 0)
