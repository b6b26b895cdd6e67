"""Textual's private API that phasewatch uses (widgets/_textual.py) exists, with the parameters
it is called with, in the installed Textual. ``make test`` runs it at the newest Textual the
range in ``pyproject.toml`` allows, ``make test-lowest`` at the range's floor."""

from __future__ import annotations

import importlib
import inspect
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from phasewatch.widgets import _textual
from textual.app import App

ROOT = Path(__file__).resolve().parent.parent


def instance(path: str) -> object:
    module, _, name = path.rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    return App() if cls is App else cls()


@pytest.mark.parametrize("path", sorted(_textual.PRIVATE))
def test_every_private_name_is_there(path: str) -> None:
    obj = instance(path)  # (instance attributes are set by the constructor)
    missing = [name for name in _textual.PRIVATE[path] if not hasattr(obj, name)]
    assert not missing, f"Textual {version('textual')} has no {path}.{missing}"


@pytest.mark.parametrize("method", sorted(_textual.SIGNATURES))
def test_every_private_method_takes_what_it_is_given(method: str) -> None:
    from textual.widgets import DataTable

    assert method in _textual.PRIVATE["textual.widgets.DataTable"]
    params = list(inspect.signature(getattr(DataTable, method)).parameters)
    assert tuple(params[1:]) == _textual.SIGNATURES[method], method


def test_the_installed_textual_is_one_the_package_allows() -> None:
    """The range these tests vouch for is the one pip installs from."""
    spec = next(
        d
        for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
        if d.startswith("textual")
    )
    floor, ceiling = re.fullmatch(r"textual>=([\d.]+),<([\d.]+)", spec).groups()  # type: ignore[union-attr]
    installed = tuple(int(p) for p in version("textual").split(".")[:3])
    assert tuple(int(p) for p in floor.split(".")) <= installed < (int(ceiling),)
    assert f"Textual {floor}" in (_textual.__doc__ or "")  # the floor it says it was checked on


def test_nothing_else_names_a_private_textual_attribute() -> None:
    """The names in PRIVATE appear only in the compatibility module (and Textual's hooks the
    table overrides are routed through it)."""
    names = {n for names in _textual.PRIVATE.values() for n in names}
    pattern = re.compile(r"\.(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    found = []
    for folder in ("widgets", "tui"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "_textual.py":
                continue
            found += [
                f"{path.relative_to(ROOT)}: {m.group(0)}"
                for m in pattern.finditer(path.read_text())
            ]
    assert not found
