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
* the dashboard runs as ``python -m phasewatch PATH`` with every argument shell-quoted
  (textual-serve starts its command through a shell; a directory name must not become code).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import ipaddress
import logging
import re
import secrets
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from phasewatch.core.text import clean

EXTRA_HINT = (  # no release on the index yet: the checkout's or the wheel's extra (README)
    "phasewatch serve needs the phasewatch[web] extra: pip install textual-serve in "
    "phasewatch's environment (or, in a checkout, pip install -e '.[web]')"
)


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
    return shlex.join(words)


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
                web.get(f"{prefix}/ws", self.handle_websocket, name="websocket"),
                web.get(f"{prefix}/download/{{key}}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ])  # fmt: skip
            app.on_shutdown.append(self.on_shutdown)
            return app

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
            runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
            await runner.setup()
            try:
                try:
                    await web.TCPSite(runner, host, port).start()
                except OSError as exc:
                    raise PortBusy(exc.strerror or str(exc)) from None
                announce()
                stop = asyncio.Event()
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGINT, signal.SIGTERM):
                    with contextlib.suppress(NotImplementedError):
                        loop.add_signal_handler(sig, stop.set)
                await stop.wait()
            finally:
                await runner.cleanup()

    return GuardedServer(command, host=host, port=port, title="phasewatch")


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
