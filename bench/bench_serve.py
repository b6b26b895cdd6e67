"""``phasewatch serve`` under a hostile client (issue 41 item 3): prints

* the dashboard's size and memory after a page asks for a 20000x20000 terminal (clamped);
* how many of 3,000 half-open connections (opened, nothing sent) the server holds, and how
  many are left after its header timeout;
* the time from SIGTERM to exit with a dashboard open that cannot answer (SIGSTOP), against
  the 3 s goal.

Loopback only (127.0.0.1); every process it starts is stopped at the end."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HALF_OPEN = 3000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def established(port: int) -> int:
    """Server-side connections on ``port`` in ESTABLISHED state (/proc/net/tcp)."""
    n = 0
    for row in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = row.split()[1], row.split()[3]
        if state == "01" and int(local.rsplit(":", 1)[1], 16) == port:
            n += 1
    return n


def start(root: Path, port: int) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "phasewatch", "serve", str(root), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("open "):
            return proc, line.split()[1]
    raise SystemExit("serve printed no address")


async def session_then_sigterm(proc: subprocess.Popen[str], url: str) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as client:
        ws = await client.ws_connect(url.replace("http", "ws") + "ws?width=20000&height=20000")
        got, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < 8:  # let it paint
            try:
                msg = await asyncio.wait_for(ws.receive(), 1)
                got += len(msg.data) if isinstance(msg.data, bytes | str) else 0
            except TimeoutError:
                pass
        await ws.send_str(json.dumps(["resize", {"width": 20000, "height": 20000}]))
        await asyncio.sleep(3)
        kids = children(proc.pid)
        for kid in kids:
            env = Path(f"/proc/{kid}/environ").read_bytes().split(b"\0")
            size = [e.decode() for e in env if e.startswith((b"COLUMNS=", b"ROWS="))]
            print(f"dashboard asked for 20000x20000: {' '.join(sorted(size))}, "
                  f"RSS {rss_mb(kid):.0f} MB after 11 s and a resize to 20000x20000 "
                  f"({got / 1e3:.0f} kB of screen sent)")  # fmt: skip
        for kid in kids:
            os.kill(kid, signal.SIGSTOP)  # a dashboard that cannot answer "quit"
        t = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        await asyncio.to_thread(proc.wait, 30)
        took = time.monotonic() - t
        alive = [k for k in kids if Path(f"/proc/{k}").exists()]
        print(f"SIGTERM to exit, the dashboard frozen: {took:.2f} s (goal 3 s) "
              f"{'ok' if took <= 3 else 'OVER'}; dashboards left: {len(alive)}")  # fmt: skip


def half_open(port: int) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, HALF_OPEN + 500), hard))
    socks = []
    for _ in range(HALF_OPEN):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=2))
        except OSError:
            break
    time.sleep(1)
    held = established(port)
    time.sleep(12)  # past the header timeout (10 s)
    left = established(port)
    print(f"{len(socks)} half-open connections opened: the server holds {held} "
          f"(cap 64), {left} after its 10 s header timeout")  # fmt: skip
    for s in socks:
        s.close()


if __name__ == "__main__":
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise SystemExit("needs phasewatch[web]") from None
    root = Path(tempfile.mkdtemp(prefix="pwbench-serve-"))
    port = free_port()
    proc, url = start(root, port)
    try:
        half_open(port)
        asyncio.run(session_then_sigterm(proc, url))
    finally:
        if proc.poll() is None:
            proc.kill()
        for kid in children(proc.pid):
            os.kill(kid, signal.SIGKILL)
