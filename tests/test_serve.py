"""phasewatch serve: the browser server needs its token and binds only where asked."""

from __future__ import annotations

import argparse
import shlex
import socket
import subprocess
import sys
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


def start(tmp_path: Path, *args: str) -> tuple[subprocess.Popen, str | None]:
    """``phasewatch serve`` in a process, and the address it printed (None: it printed none)."""
    pytest.importorskip("textual_serve")
    proc = subprocess.Popen(
        [sys.executable, "-m", "phasewatch", "serve", str(tmp_path), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    for line in proc.stdout:  # until the address, or the end of its output (it exited)
        if line.startswith("open "):
            return proc, line.split()[1]
    return proc, None


def stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.terminate()
    out, err = proc.communicate(timeout=30)
    return out, err


@pytest.fixture
def server(tmp_path):
    port = free_port()
    proc, url = start(tmp_path, "--port", str(port))
    assert url, proc.stderr.read()
    yield url, port, proc
    if proc.poll() is None:
        stop(proc)


def test_the_page_needs_the_token_in_its_path_and_no_cookie_carries_it(server):
    url, port, _proc = server
    token = url.rstrip("/").rsplit("/", 1)[1]
    assert url == f"http://127.0.0.1:{port}/{token}/"
    # printed only once listening: the first request, right away, is answered
    status, body, headers = fetch(url)
    assert status == 200 and f"ws://127.0.0.1:{port}/{token}/ws" in body
    assert "Set-Cookie" not in headers  # a cookie would reach every port of this host
    assert headers.get("Referrer-Policy") == "no-referrer"
    base = f"http://127.0.0.1:{port}/"
    for wrong in ("", "?token=" + token, "wrong/", token[:-1] + "/", "static/../" + token + "/"):
        status, body, _ = fetch(base + wrong)
        assert status in (403, 404), wrong
    status, _, _ = fetch(base + "x/ws", {"Cookie": f"phasewatch_token={token}"})
    assert status == 403
    status, _, _ = fetch(url + "ws", {"Origin": "http://evil.example"})
    assert status == 403  # a page from another origin cannot drive the dashboard
    assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1, nothing else


def test_the_websocket_address_is_the_one_the_browser_used(tmp_path):
    """--host 0.0.0.0: the page opened as http://box:PORT/ connects back to box, not 0.0.0.0."""
    port = free_port()
    proc, url = start(tmp_path, "--port", str(port), "--host", "0.0.0.0", "--allow-remote")
    try:
        assert url and "0.0.0.0" not in url
        token = url.rstrip("/").rsplit("/", 1)[1]
        local = f"http://127.0.0.1:{port}/{token}/"
        status, body, _ = fetch(local, {"Host": f"box.example:{port}"})
        assert status == 200 and f"ws://box.example:{port}/{token}/ws" in body
        assert "0.0.0.0" not in body
        status, body, _ = fetch(local, {"Host": 'evil"><script>'})
        assert status in (200, 400) and "evil" not in body
    finally:
        stop(proc)


def test_the_token_never_reaches_the_logs(server):
    url, _port, proc = server
    for path in ("", "ws", "nope"):
        try:
            fetch(url + path)
        except OSError:  # (the WebSocket's address without an upgrade: the server hangs up)
            pass
    out, err = stop(proc)
    token = url.rstrip("/").rsplit("/", 1)[1]
    assert token not in out and token not in err  # (the address was printed before: read)


def test_a_busy_port_is_one_clear_line_and_exit_2(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc, url = start(tmp_path, "--port", str(port))
        _out, err = proc.communicate(timeout=60)
    assert url is None and proc.returncode == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"127.0.0.1:{port}" in err and "--port" in err


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


def non_loopback_ipv4() -> str | None:
    """An IPv4 address of this machine that is not loopback (``hostname -I``), or None."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return next((a for a in out.split() if "." in a and not is_loopback(a)), None)


def test_with_allow_remote_the_dashboard_answers_on_the_machines_own_address(tmp_path):
    """``serve --host 0.0.0.0 --allow-remote``, reached the way another machine would: on this
    machine's network address, not 127.0.0.1 (straight, never through an HTTP proxy)."""
    address = non_loopback_ipv4()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    port = free_port()
    proc, url = start(tmp_path, "--port", str(port), "--host", "0.0.0.0", "--allow-remote")
    try:
        assert url, proc.stderr.read() if proc.stderr else ""
        token = url.rstrip("/").rsplit("/", 1)[1]
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with direct.open(f"http://{address}:{port}/{token}/", timeout=10) as response:
            status, body = response.status, response.read().decode()
        assert status == 200 and f"ws://{address}:{port}/{token}/ws" in body
        try:
            direct.open(f"http://{address}:{port}/wrong/", timeout=10)
            refused = None
        except urllib.error.HTTPError as err:
            refused = err.code
        assert refused in (403, 404)  # the token still guards it
    finally:
        stop(proc)
