"""phasewatch serve: the browser server needs its token and binds only where asked."""

from __future__ import annotations

import argparse
import contextlib
import os
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
    assert words[-1] == str(hostile) and words[:4] == ["exec", sys.executable, "-m", "phasewatch"]


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


# ------------------------------------------------------------------ bounded (issue 41 item 3)


@pytest.mark.parametrize(
    ("asked", "got"),
    [
        ((20000, 20000), (512, 256)),
        ((80, 24), (80, 24)),
        (("132", "43"), (132, 43)),
        ((-5, 0), (10, 4)),
        (("abc", None), (80, 24)),
        ((1e308, float("inf")), (512, 24)),
        ((True, []), (80, 24)),
        (("9" * 50, "-" + "9" * 50), (512, 4)),
    ],
)
def test_a_terminal_size_is_clamped_to_what_a_screen_holds(asked, got):
    from phasewatch.tui.serve import clamp_size

    assert clamp_size(*asked) == got


def test_messages_the_page_never_sends_are_ignored_and_sizes_clamped():
    """A session's messages: a resize to 20000x20000 reaches the dashboard as 512x256; junk
    (not JSON, not a list, wrong shapes) is ignored, never an exception."""
    pytest.importorskip("textual_serve")
    import asyncio
    import json

    from aiohttp import WSMsgType
    from phasewatch.tui.serve import make_server

    class Message:
        def __init__(self, data):
            self.type, self.data = WSMsgType.TEXT, data

    class Socket:
        def __init__(self, messages):
            self.messages, self.sent = messages, []

        def __aiter__(self):
            return self._iter()

        async def _iter(self):
            for m in self.messages:
                yield Message(m)

        async def send_json(self, data):
            self.sent.append(data)

    class Service:
        def __init__(self):
            self.calls = []

        async def set_terminal_size(self, w, h):
            self.calls.append(("size", w, h))

        async def send_bytes(self, data):
            self.calls.append(("stdin", data))

        async def blur(self):
            self.calls.append(("blur",))

        async def focus(self):
            self.calls.append(("focus",))

    junk = ["not json", "[]", '{"a": 1}', '["resize"]', '["resize", "x"]', '["stdin", 5]',
            '["ping", {"a": 1}]', '["resize", {"width": "w"}]', "[" * 5000, '"x"', "null"]  # fmt: skip
    good = [json.dumps(["resize", {"width": 20000, "height": 20000}]), '["stdin", "q"]',
            '["ping", "7"]', '["blur", null]']  # fmt: skip
    server, service = make_server("true", "127.0.0.1", 1, "t"), Service()
    socket_ = Socket(junk + good)
    asyncio.run(server._messages(socket_, service))
    assert service.calls == [("size", 80, 24), ("size", 512, 256),
                             ("stdin", b"q"), ("blur",)]  # fmt: skip
    assert socket_.sent == [["pong", "7"]]


def driver(tmp_path: Path, header: float, idle: float, conns: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).parent / "helpers" / "serve_driver.py"),
         str(tmp_path), str(port), str(header), str(idle), str(conns)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("open "):
            return proc, port
    pytest.fail(proc.stderr.read() if proc.stderr else "no address printed")


def closed_by_server(sock: socket.socket, wait: float) -> bool:
    """Whether the server closed ``sock`` within ``wait`` seconds (EOF or a reset)."""
    sock.settimeout(wait)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_connections_beyond_the_cap_are_closed_and_held_ones_time_out(tmp_path):
    """With a cap of 8: 8 silent connections are held (until their header timeout), the
    9th-30th are closed at once; the server still answers the page after."""
    pytest.importorskip("textual_serve")
    proc, port = driver(tmp_path, header=60, idle=60, conns=8)
    socks = []
    try:
        for _ in range(30):
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        held = [not closed_by_server(s, 0.3) for s in socks[:8]]
        extra = [closed_by_server(s, 10) for s in socks[8:]]
        assert all(held) and all(extra), (held, extra)
        for s in socks:
            s.close()
        socks = []
        status, _, _ = fetch(f"http://127.0.0.1:{port}/nope/")
        assert status == 403  # answered: nothing exhausted
    finally:
        for s in socks:
            s.close()
        stop(proc)


def test_half_open_and_trickling_connections_are_closed(tmp_path):
    """A connection that sends nothing, one that trickles its headers a byte at a time and
    one idle after a request are all closed by the server (timeouts 0.5 s here)."""
    pytest.importorskip("textual_serve")
    import time

    proc, port = driver(tmp_path, header=0.5, idle=0.5, conns=64)
    try:
        silent = socket.create_connection(("127.0.0.1", port), timeout=5)
        trickle = socket.create_connection(("127.0.0.1", port), timeout=5)
        kept = socket.create_connection(("127.0.0.1", port), timeout=5)
        kept.sendall(b"GET /nope/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert kept.recv(12).startswith(b"HTTP/1.1 403")
        closed = False
        for byte in b"GET /nope/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200:
            try:
                trickle.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            time.sleep(0.05)
        assert closed or closed_by_server(trickle, 10)
        assert closed_by_server(silent, 10)
        kept.settimeout(10)
        while kept.recv(4096):  # the rest of the answer, then the server's close
            pass
    finally:
        stop(proc)


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for x in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def test_sigterm_stops_the_server_and_a_dashboard_that_does_not_answer(tmp_path):
    """A session at 20000x20000 (served at 512x256), its dashboard then frozen (SIGSTOP: it
    cannot quit when asked): SIGTERM still ends the server, and the dashboard with it."""
    pytest.importorskip("textual_serve")
    if not Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists():
        pytest.skip("needs /proc's children lists")
    import asyncio
    import signal
    import time

    import aiohttp

    port = free_port()
    proc, url = start(tmp_path, "--port", str(port))
    assert url

    async def session() -> list[int]:
        async with aiohttp.ClientSession() as client:
            ws = await client.ws_connect(url.replace("http", "ws") + "ws?width=20000&height=20000")
            deadline = time.monotonic() + 30
            env: list[bytes] = []
            while b"COLUMNS=512" not in env and time.monotonic() < deadline:
                await asyncio.sleep(0.05)  # (the shell, then the dashboard it execs)
                kids = _children(proc.pid)
                with contextlib.suppress(OSError, IndexError):
                    env = Path(f"/proc/{kids[0]}/environ").read_bytes().split(b"\0")
            assert b"COLUMNS=512" in env and b"ROWS=256" in env
            await asyncio.wait_for(ws.receive(), 30)  # the dashboard is up
            for kid in kids:
                os.kill(kid, signal.SIGSTOP)
            proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(proc.wait, 30)
            return kids

    try:
        kids = asyncio.run(session())
    finally:
        if proc.poll() is None:
            proc.kill()
        for kid in _children(proc.pid):
            os.kill(kid, signal.SIGKILL)
    assert proc.returncode == 0
    for kid in kids:
        assert (
            not Path(f"/proc/{kid}").exists()
            or "Z" in Path(f"/proc/{kid}/stat").read_text().split()[2]
        )
