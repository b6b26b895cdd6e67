"""phasewatch serve: the browser server needs its token and binds only where asked."""

from __future__ import annotations

import argparse
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from phasewatch.tui.serve import add_arguments, dashboard_command, is_loopback, run


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening_addresses(port: int) -> set[str]:
    """Local addresses in LISTEN state on ``port`` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(address)
    return found


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read().decode(), dict(response.headers)
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode(), dict(err.headers)


@pytest.fixture
def server(tmp_path):
    pytest.importorskip("textual_serve")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "phasewatch", "serve", str(tmp_path), "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    url = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and url is None:
        line = proc.stdout.readline()
        if line.startswith("open "):
            url = line.split()[1]
        elif not line and proc.poll() is not None:
            break
    assert url, proc.stderr.read()
    while time.monotonic() < deadline and not listening_addresses(port):
        time.sleep(0.05)
    yield url, port
    proc.terminate()
    proc.wait(timeout=10)


def test_the_page_needs_the_token_and_the_server_binds_to_loopback_only(server):
    url, port = server
    base = url.split("?")[0]
    assert url.startswith(f"http://127.0.0.1:{port}/?token=")
    status, body, _ = fetch(base)
    assert status == 403 and "token" in body
    status, _, _ = fetch(base + "?token=wrong")
    assert status == 403
    status, body, headers = fetch(url)
    assert status == 200 and f"ws://127.0.0.1:{port}/ws" in body
    cookie = headers.get("Set-Cookie", "")
    assert "phasewatch_token=" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    token = url.split("token=")[1]
    status, _, _ = fetch(base, {"Cookie": f"phasewatch_token={token}"})
    assert status == 200  # the cookie is the token from then on
    status, _, _ = fetch(base + "ws", {"Cookie": f"phasewatch_token={token}",
                                        "Origin": "http://evil.example"})
    assert status == 403  # a page from another origin cannot drive the dashboard
    assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else


def parse(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(argv)


def test_a_non_loopback_host_needs_allow_remote(tmp_path, capsys):
    assert run(parse(str(tmp_path), "--host", "0.0.0.0")) == 2
    assert "--allow-remote" in capsys.readouterr().err


def test_loopback_names():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")


def test_the_dashboard_command_quotes_a_hostile_directory_name(tmp_path):
    hostile = tmp_path / "x; touch pwned $(id) `id`"
    words = shlex.split(dashboard_command(hostile))
    assert words[-1] == str(hostile) and words[1:3] == ["-m", "phasewatch"]
