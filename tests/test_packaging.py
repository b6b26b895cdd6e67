"""The wheel installs one top-level package, ``phasewatch``, holding every source package."""

import os
import re
import shutil
import subprocess
import sys
import tarfile
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
    "MANIFEST.in",  # what the sdist holds: setuptools reads it from here only
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


# The sdist and the wheel are built once each (module fixtures): their tests stay on one worker
# (``--dist loadgroup``, make test).
pytestmark = pytest.mark.xdist_group("wheel")

SDIST_FILES = ("pyproject.toml", "MANIFEST.in", "README.md", "CHANGELOG.md", "LICENSE", *LAYERS)


def _pip_wheel(src: Path, out: Path) -> Path:
    """``pip wheel`` offline (no build isolation: setuptools comes from the test environment)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    proc = subprocess.run([*command, "-w", str(out), str(src)], capture_output=True, text=True)
    if proc.returncode != 0 and "No module named" in proc.stderr:
        pytest.skip("setuptools/wheel not available in this environment: " + proc.stderr[-200:])
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = out.glob("phasewatch-*.whl")
    return path


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    """The sdist, built offline by setuptools from a copy of the sources."""
    src = tmp_path_factory.mktemp("src")  # a copy: building in place leaves *.egg-info behind
    for name in SDIST_FILES:
        if (ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(ROOT / name, src / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("sdist")
    code = "import sys; from setuptools import build_meta; build_meta.build_sdist(sys.argv[1])"
    proc = subprocess.run(
        [sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True
    )
    if proc.returncode != 0 and "No module named" in proc.stderr:
        pytest.skip("setuptools not available in this environment: " + proc.stderr[-200:])
    assert proc.returncode == 0, proc.stderr[-2000:]
    (path,) = out.glob("phasewatch-*.tar.gz")
    return path


@pytest.fixture(scope="module")
def wheel(sdist, tmp_path_factory) -> Path:
    """The wheel, built from the unpacked sdist (as pip, pipx and uv build it)."""
    unpacked = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(sdist) as archive:
        archive.extractall(unpacked, filter="data")
    (src,) = unpacked.iterdir()
    return _pip_wheel(src, tmp_path_factory.mktemp("wheel"))


def test_sdist_holds_the_package_and_its_data_and_leaves_the_tests_out(sdist):
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for name in ("pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "PKG-INFO"):
        assert name in names
    for top in LAYERS:
        for src in (ROOT / top).rglob("*"):
            if src.suffix in (".py", ".tcss", ".typed") and "__pycache__" not in src.parts:
                assert src.relative_to(ROOT).as_posix() in names, src
    tops = {name.split("/")[0] for name in names}
    assert "tests" not in tops  # they need the repository's fixtures, corpora and tools
    assert tops - {*SDIST_FILES, "PKG-INFO", "setup.cfg", "phasewatch.egg-info"} == set()


def test_sdist_wheel_installs_and_runs(wheel, tmp_path):
    """Installed alone (its dependencies from this environment), the wheel's command runs."""
    target = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target"]
    proc = subprocess.run(
        [*install, str(target), str(wheel)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    env = {**os.environ, "PYTHONPATH": str(target)}
    code = (
        "import pathlib, phasewatch, phasewatch.tui.app as app; "
        "print(phasewatch.__file__); "
        "css = app.PhasewatchApp.CSS_PATH; css = [css] if isinstance(css, str) else css; "
        "print(all((pathlib.Path(app.__file__).parent / c).is_file() for c in css))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    where, css = proc.stdout.split()
    assert Path(where).is_relative_to(target) and css == "True"
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", "check", str(empty)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "no workflow files" in proc.stderr  # README: exit codes


@pytest.mark.parametrize("tool", ["pipx", "uv"])
def test_the_wheel_installs_as_a_tool(tool, wheel, tmp_path):
    """README: ``pipx install`` / ``uv tool install`` (where the tool is present; it fetches
    the dependencies from the package index)."""
    exe = shutil.which(tool)
    if exe is None:
        pytest.skip(f"{tool} is not installed")
    bin_dir = tmp_path / "bin"
    env = {
        **os.environ,
        "PIPX_HOME": str(tmp_path / "pipx"),
        "PIPX_BIN_DIR": str(bin_dir),
        "UV_TOOL_DIR": str(tmp_path / "uv"),
        "UV_TOOL_BIN_DIR": str(bin_dir),
    }
    command = [exe, "install"] if tool == "pipx" else [exe, "tool", "install"]
    proc = subprocess.run([*command, str(wheel)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = subprocess.run(
        [str(bin_dir / "phasewatch"), "--version"], capture_output=True, text=True, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["phasewatch", _version()]


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "version"
    ]


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


def test_every_runtime_dependency_has_a_floor_that_make_test_lowest_pins():
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from lowest_constraints import floors
    finally:
        sys.path.remove(str(ROOT / "tests"))
    assert floors(["textual>=8.2,<9", "a-b[x] >= 1.0  # why", "free"]) == {
        "textual": "8.2",
        "a-b": "1.0",
    }
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    names = {re.match(r"[A-Za-z0-9._-]+", spec).group(0).lower() for spec in dependencies}
    assert set(floors(dependencies)) == names
