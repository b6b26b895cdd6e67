"""The wheel installs one top-level package, ``phasewatch``, holding every source package."""

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("core", "widgets", "tui")
ROOT_PACKAGE = Path("tui", "_root")  # the files of `phasewatch` itself (pyproject package-dir)
# CONTRIBUTING.md and docs/design.md: the layers, the tests and their tools, and the project files.
TOP_LEVEL = {
    *("core", "widgets", "tui", "tests", "screenshots", "bench", "docs", ".ci"),
    *("pyproject.toml", "Makefile", "README.md", "CHANGELOG.md", "CONTRIBUTING.md", "LICENSE"),
    *(".gitignore", ".pre-commit-hooks.yaml"),  # tool files git and pre-commit look for here
}


def _source_packages() -> set[str]:
    found = {"phasewatch"}
    for top in LAYERS:
        for init in (ROOT / top).rglob("__init__.py"):
            if init.parent == ROOT / ROOT_PACKAGE:
                continue
            found.add("phasewatch." + ".".join(init.parent.relative_to(ROOT).parts))
    return found


def test_the_top_level_holds_only_the_layers_and_the_project_files():
    proc = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        pytest.skip("not a git checkout: " + proc.stderr[-200:])
    tops = {line.split("/")[0] for line in proc.stdout.splitlines() if line}
    assert tops - TOP_LEVEL == set(), "unexpected at the top level (see CONTRIBUTING.md)"


def test_the_root_package_is_mapped_from_its_folder():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    assert Path(mapping["phasewatch"]) == ROOT_PACKAGE
    assert {p.name for p in (ROOT / ROOT_PACKAGE).iterdir() if p.is_file()} >= {
        "__init__.py",
        "__main__.py",
        "py.typed",
    }


def test_every_source_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    assert listed == _source_packages()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src")  # a copy: building in place leaves build/ behind
    for name in ("pyproject.toml", "README.md", "LICENSE", *LAYERS):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(
            ROOT / name,
            src / name,
            **({"ignore": shutil.ignore_patterns("__pycache__")} if (ROOT / name).is_dir() else {}),
        )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(src),
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0 and "No module named" in proc.stderr:
        pytest.skip("setuptools/wheel not available in this environment: " + proc.stderr[-200:])
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = out.glob("phasewatch-*.whl")
    return path


def test_wheel_has_one_top_level_package_and_every_module(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"phasewatch"}
    modules = {n for n in names if n.endswith(".py")}
    for top in LAYERS:
        for src in (ROOT / top).rglob("*.py"):
            if src.parent == ROOT / ROOT_PACKAGE:
                assert "phasewatch/" + src.name in modules, src
            else:
                assert "phasewatch/" + src.relative_to(ROOT).as_posix() in modules, src
    assert not any(n.startswith("phasewatch/tui/_root") for n in names)  # not twice
    assert "phasewatch/tui/app.tcss" in names
    assert "phasewatch/py.typed" in names  # PEP 561: the package's types are for its users too


def test_python_dash_m_phasewatch_runs_the_command_line():
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", "--help"], capture_output=True, text=True, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr
    assert "check" in proc.stdout
