"""Type-check the package with mypy (``make lint`` runs it; exit status is mypy's).

mypy cannot follow the editable install: setuptools' ``package-dir`` maps ``core/``,
``widgets/`` and ``tui/`` into ``phasewatch`` through an import hook that mypy does not run.
So this builds the installed layout in a temporary folder, out of symlinks to the repository
as pyproject's ``package-dir`` maps it (``TMP/phasewatch/{core,widgets,tui}`` links, plus the
root package's files from ``tui/_root/``), runs
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
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, Path]:
    """pyproject's ``package-dir``: ``{"phasewatch": ROOT/tui/_root, "phasewatch.core": ...}``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in mapping.items()}


def build_tree(tmp: Path) -> None:
    """``TMP/phasewatch/`` holds the root package's files; each sub-package is a folder link."""
    pkg = tmp / "phasewatch"
    pkg.mkdir()
    for name, folder in package_dirs().items():
        if name == "phasewatch":
            for src in folder.iterdir():
                if src.is_file():
                    (pkg / src.name).symlink_to(src)
        else:
            (tmp / name.replace(".", "/")).symlink_to(folder, target_is_directory=True)


def to_repo_path(line: str) -> str:
    """``phasewatch/core/a.py:3: error`` -> ``core/a.py:3: error`` (other lines unchanged)."""
    dirs = package_dirs()
    match = re.match(r"^phasewatch((?:[/\\]\w+)*)[/\\](\w+\.pyi?)(?=:)", line)
    if match is None:
        return line
    parts = [p for p in re.split(r"[/\\]", match.group(1)) if p]
    for depth in range(len(parts), -1, -1):  # the longest mapped package holding the file
        name = ".".join(["phasewatch", *parts[:depth]])
        if name in dirs:
            folder = dirs[name].joinpath(*parts[depth:], match.group(2))
            return folder.relative_to(ROOT).as_posix() + line[match.end() :]
    return line


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
