"""Every ``bash``/``sh`` command block of README.md that can run offline is run, line by line,
as written (issue 42: install lines that work without a release).

A line runs unless :data:`NOT_HERE` says why it cannot here (an interactive program, another
machine, a tool this machine lacks); every other line must exit as :data:`EXIT` says (0 unless
listed). ``~`` is a scratch home holding ``~/my-project`` (a build workflow whose top-level
``current_phase`` drifted, which the repair block repairs) and ``/tmp/`` a scratch folder. The
install block runs in a copy of the checkout (``git ls-files``): its wheel is built there and
installed into ``~/.phasewatch``; the other blocks find that ``phasewatch`` first on PATH.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.repair import PHASES, state, stringify

pytestmark = pytest.mark.xdist_group("readme-blocks")  # one sandbox, one wheel build

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"^```(bash|sh)\n(.*?)^```", re.S | re.M)

# the first words of a line that cannot run here, and why
NOT_HERE = {
    "make demo": "the dashboard: a full-screen program waiting for keys (tests/test_demo.py)",
    "make test": "the whole suite, which this test is part of",
    "ssh ": "another machine",
    "phasewatch serve": "a server that runs until stopped (tests/test_serve.py starts it)",
    "phasewatch --log": "the dashboard: a full-screen program waiting for keys (tests/test_log.py)",
    "PHASEWATCH_LOG=": "the dashboard: a full-screen program waiting for keys (tests/test_log.py)",
}
# lines whose documented outcome is another exit status
EXIT = {
    # off a terminal `repair` asks for --yes instead of a question (README: "needed off a terminal")
    "phasewatch repair  ": 2,
}


def _blocks() -> list[tuple[int, list[str]]]:
    text = README.read_text(encoding="utf-8")
    out = []
    for m in BLOCK.finditer(text):
        line = text[: m.start()].count("\n") + 1
        cmds = [c for c in m.group(2).splitlines() if c.strip() and not c.lstrip().startswith("#")]
        out.append((line, cmds))
    return out


def _why_not(cmd: str) -> str | None:
    for head, why in NOT_HERE.items():
        if cmd.startswith(head):
            return why
    tool = cmd.split()[0]
    if tool in ("pipx", "uv") and shutil.which(tool) is None:
        return f"{tool} is not installed on this machine"
    return None


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("readme")
    home, scratch, checkout = base / "home", base / "tmp", base / "checkout"
    for d in (home, scratch, checkout):
        d.mkdir()
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, (f.decode() for f in files)):
        src = ROOT / name
        if src.is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, checkout / name)
    project = home / "my-project"
    (project / ".isdlc").mkdir(parents=True)
    doc = state(2)
    doc["current_phase"] = PHASES[1]  # location drift: the framework's V9-B
    (project / ".isdlc" / "state.json").write_text(stringify(doc), encoding="utf-8")
    # a repository with two commits of the state (the CI recipe compares HEAD~1 and HEAD)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    for message in ("first", "second"):
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", message], check=True)
    return {"home": home, "tmp": scratch, "checkout": checkout, "project": project}


def _run(cmd: str, cwd: Path, box: dict[str, Path]) -> subprocess.CompletedProcess[str]:
    env = {
        "HOME": str(box["home"]),
        "PATH": f"{box['home'] / '.phasewatch' / 'bin'}:{Path(sys.executable).parent}:"
        + os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C.UTF-8",
        "TERM": "dumb",
    }
    for key in ("PIP_CONFIG_FILE", "PIP_FIND_LINKS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL"):
        if key in os.environ:
            env[key] = os.environ[key]
    line = cmd.replace("/tmp/", f"{box['tmp']}/")
    return subprocess.run(
        ["bash", "-c", line],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_readme_has_the_blocks_this_test_knows():
    blocks = _blocks()
    assert len(blocks) >= 6
    cmds = [c for _, block in blocks for c in block]
    ran = [c for c in cmds if _why_not(c) is None]
    assert len(ran) >= 12, ran
    assert not [c for c in cmds if re.search(r"pip install '?phasewatch\b", c)]  # no release


@pytest.mark.parametrize(
    ("line", "cmds"), _blocks(), ids=lambda v: str(v) if isinstance(v, int) else ""
)
def test_readme_block_runs(line: int, cmds: list[str], sandbox: dict[str, Path]):
    install = any("pip wheel" in c for c in cmds)
    if not install and not (sandbox["home"] / ".phasewatch" / "bin" / "phasewatch").exists():
        _install_block(sandbox)
    cwd = sandbox["checkout"] if install else sandbox["project"]
    ran = 0
    for cmd in cmds:
        if _why_not(cmd) is not None:
            continue
        done = _run(cmd, cwd, sandbox)
        expected = next((code for head, code in EXIT.items() if cmd.startswith(head)), 0)
        assert done.returncode == expected, (line, cmd, done.stdout[-2000:], done.stderr[-2000:])
        ran += 1
    if any("phasewatch completion bash" in c for c in cmds):
        script = sandbox["home"] / ".local/share/bash-completion/completions/phasewatch"
        assert (
            "complete" in script.read_text()
            and (sandbox["home"] / ".zfunc/_phasewatch").stat().st_size
        )
    if any("repair --undo" in c for c in cmds):  # repaired, then put back by --undo
        now = json.loads((sandbox["project"] / ".isdlc" / "state.json").read_text())
        assert now["current_phase"] == PHASES[1] != now["active_workflow"]["current_phase"]
    if not ran:
        pytest.skip("; ".join(f"{c.split('#')[0].strip()}: {_why_not(c)}" for c in cmds))


def _install_block(box: dict[str, Path]) -> None:
    line, cmds = next(b for b in _blocks() if any("pip wheel" in c for c in b[1]))
    for cmd in cmds:
        if _why_not(cmd) is None:
            done = _run(cmd, box["checkout"], box)
            assert done.returncode == 0, (line, cmd, done.stderr[-2000:])
