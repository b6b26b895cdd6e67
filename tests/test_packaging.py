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


def _source_packages() -> set[str]:
    found = {"phasewatch"}
    for top in LAYERS:
        for init in (ROOT / top).rglob("__init__.py"):
            found.add("phasewatch." + ".".join(init.parent.relative_to(ROOT).parts))
    return found


def test_every_source_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    assert listed == _source_packages()


# The wheel is built once (a module fixture): its tests stay on one worker (``--dist loadgroup``).
pytestmark = pytest.mark.xdist_group("wheel")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    src = tmp_path_factory.mktemp("src")  # a copy: building in place leaves build/ behind
    for name in ("pyproject.toml", "README.md", "phasewatch", *LAYERS):
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
            assert "phasewatch/" + src.relative_to(ROOT).as_posix() in modules, src
    stylesheets = {
        "phasewatch/" + src.relative_to(ROOT).as_posix() for src in ROOT.glob("tui/**/*.tcss")
    }
    assert "phasewatch/tui/app.tcss" in stylesheets and len(stylesheets) > 1
    assert stylesheets <= set(names), stylesheets - set(names)  # the app cannot start without
    assert "phasewatch/py.typed" in names  # PEP 561: the package's types are for its users too


def test_python_dash_m_phasewatch_runs_the_command_line():
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", "--help"], capture_output=True, text=True, cwd="/"
    )
    assert proc.returncode == 0, proc.stderr
    assert "check" in proc.stdout
