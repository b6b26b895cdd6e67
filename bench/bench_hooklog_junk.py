"""Memory for a hook log of junk: a million lines nobody should write (binary, a few huge single
lines, deeply nested JSON, very long strings, valid lines with a different value each time).

Each reader runs in its own subprocess and prints its peak RSS (``ru_maxrss``): the dashboard's
session (store, counts, audit: the hook screen's data) and ``check``'s report. First, ``check``
alone on 2 MB logs of the shortest junk lines (saved as ``bench/results/junk-<time>.json``;
``--short``: only that). Run: ``.venv/bin/python bench/bench_hooklog_junk.py [lines] [dir]``.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import _results  # noqa: E402  (bench/ is on sys.path as the script dir)


def junk_line(i: int, rnd: random.Random) -> bytes:
    kind = i % 8
    if kind == 0:  # binary
        return bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(20, 200))).replace(b"\n", b"")
    if kind == 1:  # deeply nested JSON
        depth = rnd.randrange(100, 3000)
        return b"[" * depth + b"]" * depth
    if kind == 2:  # a long string in every few-valued field, different each time
        s = f"{i:x}" * 40
        return json.dumps(
            {
                "ts": None,
                "hook": "h" + s,
                "event": "e" + s,
                "phase": "p" + s,
                "agent": "a" + s,
                "reason": "r" * 300,
            },
            separators=(",", ":"),
        ).encode()
    if kind == 3:  # extra keys, unknown event, bad ts, escapes
        return json.dumps(
            {
                "event": f"\u202e\u200b{i}\x1b]0;x\x07",
                f"k{i}": [i] * 20,
                "ts": f"not a ts {i}",
                "reason": "\ud800" + "x" * 100,
            }
        ).encode()
    if kind == 4:  # an invalid line with a long tail
        return b"{" + b"x" * rnd.randrange(500, 3000)
    if kind == 5:  # deep objects
        depth = rnd.randrange(50, 900)
        return b'{"a":' * depth + b"1" + b"}" * depth
    if kind == 6:  # a valid line, a fresh block reason (the block finding keeps reasons?)
        return json.dumps(
            {
                "ts": "2026-03-04T09:00:00.000Z",
                "hook": f"hook-{i}",
                "event": "block",
                "phase": f"phase-{i}",
                "agent": f"agent-{i}",
                "reason": f"blocked {i} " * 10,
            },
            separators=(",", ":"),
        ).encode()
    return b"\x00\xff" * rnd.randrange(1, 50) + b"\r"


def make_log(path: Path, lines: int, huge: int = 4) -> None:
    rnd = random.Random(7)
    with open(path, "wb") as f:
        for i in range(lines):
            f.write(junk_line(i, rnd) + b"\n")
            if huge and i % (lines // huge or 1) == 0:
                f.write(b'{"event":"' + b"z" * (48 * 1024 * 1024) + b'"}\n')  # 48 MiB, one line
                f.write(b"[" * (8 * 1024 * 1024) + b"\n")


SESSION = """
import resource, sys, time
from phasewatch.core.session import ProjectSession
t = time.perf_counter()
s = ProjectSession(sys.argv[1])
u = s.refresh()
while u.hooks.pending:
    u = s.refresh({s.project.hook_log})
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"session: {u.hooks.total:,} lines, {u.hooks.store.count:,} rows, "
      f"{len(u.hooks.findings)} findings, {time.perf_counter() - t:.1f} s, peak RSS {peak:.0f} MiB")
"""

CHECK = """
import resource, sys, time
from phasewatch.core.report import audit_project
t = time.perf_counter()
r = audit_project(sys.argv[1])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"check: {r.hook_records:,} lines, {len(r.findings)} findings, "
      f"{time.perf_counter() - t:.1f} s, peak RSS {peak:.0f} MiB")
"""


#: Issue 41 item 1: ``check`` on 2 MB of junk lines under 150 MB. The shortest lines cost the
#: most (a record each): two-byte lines, empty lines, ``{}`` (peaks of 540, 893 and 404 MB
#: before a poll was capped in lines, docs/performance.md#junk-lines).
SHORT_JUNK = {"x": b"x\n", "empty": b"\n", "{}": b"{}\n"}
SHORT_BYTES = 2 * 1024 * 1024
SHORT_GOAL_MB = 150


def short_junk(base: Path) -> dict[str, float]:
    """``check``'s peak RSS (MiB, from process start) on 2 MB of each kind of short junk line."""
    peaks = {}
    for name, line in SHORT_JUNK.items():
        isdlc = base / f"short-{len(peaks)}" / ".isdlc"
        isdlc.mkdir(parents=True, exist_ok=True)
        (isdlc / "hook-activity.log").write_bytes(line * (SHORT_BYTES // len(line)))
        out = subprocess.run(
            [sys.executable, "-c", CHECK, str(isdlc.parent)],
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        print(f"2 MB of {name!r} lines: {out.strip()}")
        found = re.search(r"peak RSS (\d+) MiB", out)
        peaks[name] = float(found.group(1)) if found else float("nan")
    return peaks


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="pw-junk-short-") as tmp:
        peaks = short_junk(Path(tmp))
    path = _results.save("junk", {"bytes": SHORT_BYTES, "check_peak_mb": peaks})
    print(f"-> {path}")
    if "--short" in sys.argv:
        return
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    base = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(tempfile.mkdtemp(prefix="pw-junk-"))
    isdlc = base / ".isdlc"
    isdlc.mkdir(parents=True, exist_ok=True)
    log = isdlc / "hook-activity.log"
    if not log.exists():
        t = time.perf_counter()
        make_log(log, lines)
        print(
            f"wrote {lines:,} junk lines, {log.stat().st_size / 2**20:.0f} MiB "
            f"in {time.perf_counter() - t:.0f} s: {log}"
        )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _name, code in (("session", SESSION), ("check", CHECK)):
        subprocess.run([sys.executable, "-c", code, str(base)], env=env, check=False)


if __name__ == "__main__":
    main()
