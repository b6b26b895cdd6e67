"""`phasewatch serve`'s page asks no other host for anything (issue 42): the library's page
loads Roboto Mono from fonts.googleapis.com; phasewatch gives it the copy the library ships.

Checked on the real server: every address the page and its stylesheet name is this server's,
and the font is served; and, where a headless Chromium is installed, by the browser itself
(every request it makes while loading the page goes to the server)."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from phasewatch.tui.serve import self_contained


def _get(url: str) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.read()


def fetch(url: str) -> tuple[int, str]:
    status, body = _get(url)
    return status, body.decode()


URL = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|url\(\s*["']?([^"')]+)["']?\s*\)""")


def _addresses(text: str, base: str) -> set[str]:
    found = set()
    for m in URL.finditer(text):
        ref = m.group(1) or m.group(2)
        if ref.startswith(("data:", "#")) or "{{" in ref:
            continue
        found.add(urljoin(base, ref))
    return found


def test_the_template_loses_its_remote_font_link():
    page = '<head>\n<link\n rel="stylesheet"\n href="https://fonts.googleapis.com/css?family=Roboto%20Mono"\n/>\n</head>'
    out = self_contained(page)
    assert "googleapis" not in out and "fonts/RobotoMono-VariableFont_wght.ttf" in out


@pytest.fixture
def served(tmp_path):
    """``phasewatch serve`` on a free port, and the address it printed."""
    pytest.importorskip("textual_serve")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "phasewatch", "serve", str(tmp_path), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    url = next((line.split()[1] for line in proc.stdout if line.startswith("open ")), None)
    try:
        assert url, proc.stderr.read() if proc.stderr else ""
        yield url
    finally:
        proc.terminate()
        proc.communicate(timeout=30)


def test_every_address_the_page_names_is_this_server(served):
    status, page = fetch(served)
    assert status == 200
    own = urlsplit(served).netloc
    addresses = _addresses(page, served)
    css = [a for a in addresses if a.endswith(".css")]
    for sheet in css:
        code, text = fetch(sheet)
        assert code == 200
        addresses |= _addresses(text, sheet)
    # (the SVG namespace is an identifier in an attribute the browser never fetches)
    fetched = {a for a in addresses if "www.w3.org/2000/svg" not in a}
    assert fetched and all(urlsplit(a).netloc == own for a in fetched), fetched
    font = next(a for a in fetched if a.endswith(".ttf"))
    code, body = _get(font)  # the shipped font, served
    assert code == 200 and len(body) > 10_000


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless Chromium on this machine")
def test_headless_chromium_requests_only_this_server(served, tmp_path: Path):
    """Chromium's own network log (--log-net-log) while it loads the page and runs its script."""
    log = tmp_path / "net.json"
    subprocess.run(
        [
            CHROMIUM or "chromium",
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--log-net-log={log}",
            "--virtual-time-budget=5000",
            "--dump-dom",
            served,
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    text = log.read_text(encoding="utf-8", errors="replace").rstrip()
    try:
        doc = json.loads(text)
    except ValueError:  # the log of a browser that stopped mid-write lacks its closing
        doc = json.loads(text.rstrip(",") + "]}")
    names = {v: k for k, v in doc["constants"]["logEventTypes"].items()}
    own = urlsplit(served).netloc
    origin = f"http://{own}"
    started = [
        e["params"]
        for e in doc["events"]
        if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in e.get("params", {})
    ]
    # what the page asked for (the browser's own traffic, sign-in and updates, has no page as
    # its initiator)
    page = [p["url"] for p in started if p.get("initiator") == origin]
    assert any(u.endswith(".ttf") for u in page) and any(u.endswith("textual.js") for u in page)
    assert {urlsplit(u).netloc for u in page} == {own}, page
    assert not [p["url"] for p in started if "fonts.googleapis.com" in p["url"]]
