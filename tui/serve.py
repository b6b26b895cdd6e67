"""``phasewatch serve``: the dashboard in a browser, through textual-serve (``phasewatch[web]``).

Whoever opens the page drives the dashboard and can answer gates, so the server is closed by
default:

* it binds to loopback unless ``--host`` names another address AND ``--allow-remote`` is given
  (then it warns: the token is all that protects it, and the traffic is not encrypted);
* the random token printed at start is the first segment of every path but the library's static
  files (``/TOKEN/`` the page, ``/TOKEN/ws`` its WebSocket), compared in constant time. It is never
  put in a cookie: browsers send a host's cookies to every port of it, so any other web server
  on this machine would receive it. Pages are served ``Referrer-Policy: no-referrer``, and a
  WebSocket from another origin is refused;
* the page's WebSocket address is built from the request's own ``Host`` (a page opened from
  another machine connects back to the address it used, never to ``0.0.0.0``);
* the address is printed once the server listens; a busy port is one line and exit status 2;
  requests are not logged (a path holds the token);
* the dashboard runs as ``exec python -m phasewatch PATH`` with every argument shell-quoted
  (textual-serve starts its command through a shell; a directory name must not become code;
  ``exec``: the process the server stops is the dashboard itself).

Bounded whatever a client sends (the README's "In a browser"):

* terminal sizes are clamped to what a screen can hold (:data:`MAX_COLUMNS` x
  :data:`MAX_ROWS`), at connection and on every resize; a message that is not one the page
  sends is ignored;
* a connection must send its request's headers within :data:`HEADER_TIMEOUT` seconds and is
  closed after :data:`IDLE_TIMEOUT` seconds idle between requests; at most
  :data:`MAX_CONNECTIONS` connections are open (more are closed at once) and at most
  :data:`MAX_SESSIONS` dashboards run (a further page gets 503);
* SIGTERM or SIGINT stops it within :data:`STOP_SECONDS`: the dashboards are asked to quit,
  then killed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import ipaddress
import json
import logging
import re
import secrets
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any, ClassVar

from phasewatch.core.text import clean

EXTRA_HINT = (  # no release on the index yet: the checkout's or the wheel's extra (README)
    "phasewatch serve needs the phasewatch[web] extra: pip install textual-serve in "
    "phasewatch's environment (or, in a checkout, pip install -e '.[web]')"
)

#: the largest terminal a browser may ask for: a 4K screen at a small font (memory grows with
#: the cells, and a browser may ask for any size: docs/performance.md#the-command-line)
MAX_COLUMNS, MAX_ROWS = 512, 256
MIN_COLUMNS, MIN_ROWS = 10, 4
HEADER_TIMEOUT = 10.0  # seconds for a request's headers to arrive (a half-open connection)
IDLE_TIMEOUT = 30.0  # seconds a connection may sit idle between requests
MAX_CONNECTIONS = 64  # open TCP connections (more are closed at once)
MAX_SESSIONS = 4  # dashboards running at once (each is a process)
STOP_SECONDS = 3.0  # SIGTERM to exit, at most
_QUIT_SECONDS = 1.0  # of which the dashboards get this long to quit before they are killed


def clamp_size(width: Any, height: Any) -> tuple[int, int]:
    """A terminal size a client asked for, as integers within what a screen can hold (80x24
    for what is not a number)."""

    def number(value: Any, default: int) -> int:
        if isinstance(value, bool):
            return default
        try:
            return int(value)
        except (TypeError, ValueError, OverflowError):
            return default

    w, h = number(width, 80), number(height, 24)
    return min(max(w, MIN_COLUMNS), MAX_COLUMNS), min(max(h, MIN_ROWS), MAX_ROWS)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def dashboard_command(path: Path, read_only: bool = False) -> str:
    """The shell command textual-serve runs for each browser session (every word quoted)."""
    words = [sys.executable, "-m", "phasewatch", str(path)]
    if read_only:
        words.append("--read-only")
    return "exec " + shlex.join(words)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", nargs="?", default=".", help="project directory (default: cwd)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="required to bind to a non-loopback address (anyone who has the token can decide)",
    )
    p.add_argument("--read-only", action="store_true", help="the served dashboard cannot decide")


_HOST = re.compile(r"[A-Za-z0-9.\-]+(:\d{1,5})?|\[[0-9A-Fa-f:.]+\](:\d{1,5})?")


class PortBusy(Exception):
    """The address is in use (another server, or another phasewatch)."""


def make_server(command: str, host: str, port: int, token: str) -> Any:
    """A textual-serve Server that requires ``token`` (imported here: an optional extra)."""
    import aiohttp_jinja2
    from aiohttp import web
    from textual_serve.server import Server

    prefix = f"/{token}"

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path.startswith("/static/"):
            return await handler(request)
        first = request.path.split("/")[1] if request.path.count("/") >= 1 else ""
        if not hmac.compare_digest(first.encode(), token.encode()):
            return web.Response(
                status=403,
                text="phasewatch: open the address (with its token) "
                "that 'phasewatch serve' printed when it started.\n",
            )
        origin = request.headers.get("Origin")
        if request.path == f"{prefix}/ws" and origin and origin.split("://", 1)[-1] != request.host:
            return web.Response(status=403, text="phasewatch: cross-origin connection refused\n")
        response = await handler(request)
        if not isinstance(response, web.WebSocketResponse):
            response.headers["Referrer-Policy"] = "no-referrer"
        return response

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app = web.Application(middlewares=[guard])
            aiohttp_jinja2.setup(app, loader=jinja2_loader(self.templates_path))
            app.add_routes([
                web.get(f"{prefix}/", self.handle_index, name="index"),
                web.get(f"{prefix}/ws", self.handle_dashboard, name="websocket"),
                web.get(f"{prefix}/download/{{key}}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])  # fmt: skip
            app.on_shutdown.append(self.on_shutdown)
            return app

        sessions: ClassVar[set[Any]] = set()  # the AppServices running

        async def handle_dashboard(self, request: web.Request) -> web.StreamResponse:
            return await _session(self, request)

        async def _messages(self, websocket: Any, service: Any) -> None:
            await _relay(websocket, service)

        @aiohttp_jinja2.template("app_index.html")
        async def handle_index(self, request: web.Request) -> dict[str, Any]:
            # the address the browser used (its Host header), not the one bound: 0.0.0.0 is
            # nowhere to connect to from another machine
            where = request.host if _HOST.fullmatch(request.host or "") else f"{host}:{port}"
            secure = request.secure
            ws = f"{'wss' if secure else 'ws'}://{where}{prefix}/ws"
            static = f"{'https' if secure else 'http'}://{where}/static/"
            return {
                "font_size": 16,
                "app_websocket_url": ws,
                "config": {"static": {"url": static}},
                "application": {"name": self.title},
            }

        def initialize_logging(self) -> None:
            """Plain log lines on stderr, the token replaced wherever it appears (the library
            logs a failed request with the request, and its path, in it)."""
            handler = _Redacting(token)
            handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
            logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)

        async def listen(self, announce: Any) -> None:
            """Serve until SIGINT/SIGTERM; ``announce()`` once the socket listens. No access
            log: a request's path holds the token."""
            self.initialize_logging()
            logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
            await _serve(await self._make_app(), host, port, announce, self.sessions)

    return GuardedServer(command, host=host, port=port, title="phasewatch")


async def _serve(app: Any, host: str, port: int, announce: Any, sessions: set[Any]) -> None:
    """Serve ``app`` until SIGINT/SIGTERM (no access log: a request's path holds the token),
    each connection bounded (:class:`_Guarded`); then :func:`_shutdown`."""
    from aiohttp import web

    runner = web.AppRunner(
        app,
        access_log=None,
        handle_signals=False,
        keepalive_timeout=IDLE_TIMEOUT,
        max_line_size=8190,
        max_field_size=8190,
    )
    await runner.setup()
    loop = asyncio.get_running_loop()
    listener = None
    try:
        try:
            listener = await loop.create_server(
                _Guarded.factory(runner.server, loop), host, port, backlog=MAX_CONNECTIONS
            )
        except OSError as exc:
            raise PortBusy(exc.strerror or str(exc)) from None
        announce()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):
                loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        await _shutdown(runner, listener, sessions)


async def _shutdown(runner: Any, listener: Any, sessions: set[Any]) -> None:
    """Within :data:`STOP_SECONDS`: stop listening, ask every dashboard to quit and kill the
    ones that have not after :data:`_QUIT_SECONDS`, close the connections."""
    if listener is not None:
        listener.close()
    await asyncio.gather(
        *(_stop_service(s, _QUIT_SECONDS) for s in list(sessions)), return_exceptions=True
    )
    _Guarded.close_all()
    with contextlib.suppress(asyncio.TimeoutError, Exception):
        await asyncio.wait_for(runner.cleanup(), STOP_SECONDS - _QUIT_SECONDS - 0.5)


async def _session(server: Any, request: Any) -> Any:
    """textual-serve's, with the size clamped, a cap on dashboards, and every message
    checked (one the page never sends is ignored, never a traceback)."""
    from aiohttp import web
    from textual_serve.app_service import AppService

    if len(server.sessions) >= MAX_SESSIONS:
        return web.Response(
            status=503,
            text=f"phasewatch: {MAX_SESSIONS} dashboards are open already; close one\n",
        )
    websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=1 << 20)
    width, height = clamp_size(request.query.get("width"), request.query.get("height"))

    async def close() -> None:
        await websocket.close()

    service = AppService(
        server.command,
        write_bytes=websocket.send_bytes,
        write_str=websocket.send_str,
        close=close,
        download_manager=server.download_manager,
        debug=server.debug,
    )
    server.sessions.add(service)  # counted before the first await: the cap holds
    try:
        await websocket.prepare(request)
        await service.start(width, height)
        await _relay(websocket, service)
    except asyncio.CancelledError:
        await websocket.close()
    except Exception as error:  # (a client gone mid-handshake: logged, one line)
        logging.getLogger("phasewatch.serve").warning(
            "a dashboard session ended: %s", clean(str(error))
        )
    finally:
        server.sessions.discard(service)
        await _stop_service(service, _QUIT_SECONDS)
    return websocket


async def _relay(websocket: Any, service: Any) -> None:
    """Hand a session's messages to its dashboard: sizes clamped, anything else ignored."""
    from aiohttp import WSMsgType

    async for message in websocket:
        if message.type != WSMsgType.TEXT:
            continue
        try:
            envelope = json.loads(message.data)
        except (ValueError, RecursionError):
            continue
        if not (isinstance(envelope, list) and len(envelope) == 2):
            continue
        kind, data = envelope
        if kind == "stdin" and isinstance(data, str):
            await service.send_bytes(data.encode("utf-8", "replace"))
        elif kind == "resize" and isinstance(data, dict):
            await service.set_terminal_size(*clamp_size(data.get("width"), data.get("height")))
        elif kind == "ping" and isinstance(data, str | int | float):
            await websocket.send_json(["pong", data])
        elif kind == "blur":
            await service.blur()
        elif kind == "focus":
            await service.focus()


async def _stop_service(service: Any, wait: float) -> None:
    """Ask a dashboard to quit; kill it when it has not within ``wait`` seconds."""
    process = getattr(service, "_process", None)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(service.stop(), wait)
    if process is not None and process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), 0.5)
    task = getattr(service, "_task", None)
    if task is not None and not task.done():
        task.cancel()


class _Guarded(asyncio.Protocol):
    """The HTTP protocol of one connection, bounded: the request's headers must arrive within
    :data:`HEADER_TIMEOUT` (the first request's, and each later one's once it starts), and at
    most :data:`MAX_CONNECTIONS` are open. Once a WebSocket upgrade is asked for, the
    WebSocket's own heartbeat watches the connection."""

    open: ClassVar[set[_Guarded]] = set()

    def __init__(self, inner: asyncio.Protocol, loop: asyncio.AbstractEventLoop) -> None:
        self.inner, self.loop = inner, loop
        self.transport: asyncio.Transport | None = None
        self.timer: asyncio.TimerHandle | None = None
        self.tail = b""  # the last bytes of the headers so far (a header end split in two)
        self.in_headers = True
        self.upgraded = False

    @classmethod
    def factory(cls, server: Any, loop: asyncio.AbstractEventLoop) -> Any:
        return lambda: cls(server(), loop)

    @classmethod
    def close_all(cls) -> None:
        for conn in list(cls.open):
            if conn.transport is not None:
                conn.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self.timer = self.loop.call_later(HEADER_TIMEOUT, self._expire)

    def _disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def _expire(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        if len(self.open) >= MAX_CONNECTIONS:
            transport.abort()
            return
        self.open.add(self)
        self._arm()
        self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if not self.upgraded:
            if not self.in_headers:  # a new request on a kept-alive connection
                self.in_headers, self.tail = True, b""
                self._arm()
            seen = self.tail + data
            end = seen.find(b"\r\n\r\n")
            if end >= 0:
                self.in_headers = False
                self._disarm()
                if b"upgrade: websocket" in seen[:end].lower():
                    self.upgraded = True
            self.tail = seen[-3:] if end < 0 else b""
        self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self in self.open:
            self.open.discard(self)
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()


class _Redacting(logging.StreamHandler):
    def __init__(self, secret: str) -> None:
        super().__init__(sys.stderr)
        self.secret = secret

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace(self.secret, "<token>")


# The library's page asks fonts.googleapis.com for Roboto Mono on every load; the same font
# ships in its static folder, so the page is given that instead and asks no other host.
_REMOTE_FONT = re.compile(
    r"<link\s[^>]*href=\"https?://fonts\.googleapis\.com/[^\"]*\"[^>]*>", re.S
)
_LOCAL_FONT = """<style>
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
      }
    </style>"""


def self_contained(source: str) -> str:
    """The page's template with every remote font link replaced by the shipped font."""
    return _REMOTE_FONT.sub(lambda _m: _LOCAL_FONT, source)


def jinja2_loader(path: Path) -> Any:
    import jinja2

    files = jinja2.FileSystemLoader(path)

    def load(name: str) -> tuple[str, str | None, Any]:
        source, filename, uptodate = files.get_source(jinja2.Environment(), name)
        return self_contained(source), filename, uptodate

    return jinja2.FunctionLoader(load)


def page_url(host: str, port: int, token: str) -> str:
    """The address to open: the bound host (an unspecified address: this machine's name)."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.getfqdn() or "localhost"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/{token}/"


def run(args: argparse.Namespace) -> int:
    host, port = args.host, args.port
    if not is_loopback(host) and not args.allow_remote:
        print(
            f"phasewatch serve: {clean(host)} is not a loopback address; add --allow-remote "
            "to serve the dashboard to other machines.",
            file=sys.stderr,
        )
        return 2
    path = Path(args.path).resolve()
    if not path.is_dir():
        print(f"phasewatch serve: not a directory: {clean(str(path))}", file=sys.stderr)
        return 2
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        print(EXTRA_HINT, file=sys.stderr)
        return 2
    token = secrets.token_urlsafe(24)
    server = make_server(dashboard_command(path, args.read_only), host, port, token)

    def announce() -> None:
        if not is_loopback(host):
            print(
                "WARNING: serving to the network. Anyone with the token below can answer "
                "gates; the connection is not encrypted.",
                file=sys.stderr,
                flush=True,
            )
        print(f"phasewatch: serving {clean(str(path))}", flush=True)
        print(f"open {page_url(host, port, token)}", flush=True)
        print("Ctrl+C stops the server.", flush=True)

    try:
        asyncio.run(server.listen(announce))
    except PortBusy as exc:
        print(
            f"phasewatch serve: cannot listen on {clean(host)}:{port}: {clean(str(exc))} "
            "(another server? pick one with --port)",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        pass
    return 0
