"""Type-check the package with mypy (``make lint`` runs it; exit status is mypy's).

mypy cannot follow the editable install: setuptools' ``package-dir`` maps ``core/``,
``widgets/`` and ``tui/`` into ``phasewatch`` through an import hook that mypy does not run.
So this builds the installed layout in a temporary folder, out of symlinks to the repository
(``TMP/phasewatch/{core,widgets,tui}`` plus the files of ``phasewatch/``), runs
``mypy -p phasewatch`` there with the repository's ``pyproject.toml`` and prints mypy's report
with the paths mapped back to the repository's (``phasewatch/core/x.py`` -> ``core/x.py``).

Usage: ``python tests/typecheck.py [extra mypy options]``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "widgets", "tui")  # phasewatch.<layer> <- <layer>/ (pyproject package-dir)


def build_tree(tmp: Path) -> None:
    pkg = tmp / "phasewatch"
    pkg.mkdir()
    for layer in LAYERS:
        (pkg / layer).symlink_to(ROOT / layer, target_is_directory=True)
    for src in (ROOT / "phasewatch").iterdir():
        if src.is_file():
            (pkg / src.name).symlink_to(src)


def to_repo_path(line: str) -> str:
    """``phasewatch/core/a.py:3: error`` -> ``core/a.py:3: error`` (other lines unchanged)."""
    return re.sub(r"^phasewatch[/\\](" + "|".join(LAYERS) + r")(?=[/\\])", r"\1", line)


def main(argv: list[str]) -> int:
    mypy = Path(sys.executable).with_name("mypy")
    cmd = [str(mypy)] if mypy.exists() else [sys.executable, "-m", "mypy"]
    with tempfile.TemporaryDirectory(prefix="phasewatch-typecheck-") as tmp:
        build_tree(Path(tmp))
        cmd += [
            "--config-file", str(ROOT / "pyproject.toml"),
            "--cache-dir", str(ROOT / ".mypy_cache"),
            "-p", "phasewatch", *argv,
        ]  # fmt: skip
        env = {**os.environ, "MYPY_FORCE_COLOR": "0"}
        proc = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        print(to_repo_path(line))
    sys.stderr.write(proc.stderr)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
