"""``make screenshot-web``: ``phasewatch serve`` in a real browser, saved as screenshots/web.png.

Fills a demo directory with ``phasewatch simulate`` (a supervised feature workflow stopped at
a review gate, with injected faults), starts ``phasewatch serve`` on a free loopback port, hands
the printed URL (with its token) to ``web_shot.cjs`` (Playwright driving headless Chromium) and
stops the server. Not part of ``make test``: it needs Chromium and Node.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
URL = re.compile(r"^open (http://\S+)$")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fill_demo(directory: Path) -> None:
    """A feature workflow waiting at its first review gate, with two faults on the way."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "phasewatch",
            "simulate",
            str(directory),
            "--fast",
            "--seed",
            "7",
            "--supervised",
            "--review-phases",
            "03",
            "--faults",
            "half-applied,stale-write",
            "--timeout",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        check=False,  # gives up at the unanswered gate: exit 1
    )


def serve_url(server: subprocess.Popen[str]) -> str:
    assert server.stdout is not None
    for line in server.stdout:
        if match := URL.match(line.strip()):
            return match.group(1)
    raise SystemExit("phasewatch serve stopped without printing its address")


def main(out: Path = HERE / "web.png") -> int:
    with tempfile.TemporaryDirectory(prefix="phasewatch-web-") as tmp:
        demo = Path(tmp) / "shop-api"
        fill_demo(demo)
        server = subprocess.Popen(
            [sys.executable, "-m", "phasewatch", "serve", str(demo), "--port", str(free_port())],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            url = serve_url(server)
            subprocess.run(
                ["node", str(HERE / "web_shot.cjs"), url, str(out)],
                check=True,
                env={**os.environ, "COLUMNS": "160"},
            )
        finally:
            os.killpg(server.pid, signal.SIGTERM)  # the server and its dashboard sessions
            server.wait(timeout=10)
    print(f"{out} ({out.stat().st_size // 1024} KB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
