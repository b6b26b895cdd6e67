"""``phasewatch serve``: the dashboard in a browser, through textual-serve (``phasewatch[web]``).

Whoever opens the page drives the dashboard and can answer gates, so the server is closed by
default:

* it binds to loopback unless ``--host`` names another address AND ``--allow-remote`` is given
  (then it warns: the token is all that protects it, and the traffic is not encrypted);
* every request but the library's static files needs the random token printed at start: in the
  URL (``/?token=...``) the first time, then in an HttpOnly, SameSite=Strict cookie that the page's
  WebSocket sends; a WebSocket from another origin is refused;
* the dashboard runs as ``python -m phasewatch PATH`` with every argument shell-quoted
  (textual-serve starts its command through a shell; a directory name must not become code).
"""

from __future__ import annotations

import argparse
import hmac
import ipaddress
import secrets
import shlex
import sys
from pathlib import Path
from typing import Any

from phasewatch.core.text import clean

COOKIE = "phasewatch_token"
EXTRA_HINT = "phasewatch serve needs the web extra: pip install 'phasewatch[web]'"


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


def make_server(command: str, host: str, port: int, token: str) -> Any:
    """A textual-serve Server that requires ``token`` (imported here: an optional extra)."""
    from aiohttp import web
    from textual_serve.server import Server

    @web.middleware
    async def guard(request: web.Request, handler: Any) -> web.StreamResponse:
        if request.path.startswith("/static/"):
            return await handler(request)
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        if not hmac.compare_digest(given.encode(), token.encode()):
            return web.Response(status=403, text="phasewatch: open the address with the token "
                                "that 'phasewatch serve' printed when it started.\n")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin and origin.split("://", 1)[-1] != request.host:
            return web.Response(status=403, text="phasewatch: cross-origin connection refused\n")
        response = await handler(request)
        if request.query.get("token") and not isinstance(response, web.WebSocketResponse):
            response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
        return response

    class GuardedServer(Server):
        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(guard)
            return app

        async def on_startup(self, app: web.Application) -> None:
            pass  # the command line prints the address itself (with the token)

    return GuardedServer(command, host=host, port=port, title="phasewatch")


def run(args: argparse.Namespace) -> int:
    host, port = args.host, args.port
    if not is_loopback(host) and not args.allow_remote:
        print(f"phasewatch serve: {clean(host)} is not a loopback address; add --allow-remote "
              "to serve the dashboard to other machines.", file=sys.stderr)
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
    if not is_loopback(host):
        print("WARNING: serving to the network. Anyone with the token below can answer gates; "
              "the connection is not encrypted.", file=sys.stderr)
    shown = f"[{host}]" if ":" in host else host
    print(f"phasewatch: serving {clean(str(path))}", flush=True)
    print(f"open http://{shown}:{port}/?token={token}", flush=True)
    print("Ctrl+C stops the server.", flush=True)
    server.serve()
    return 0
