"""``tui.screens.SCREENS`` is the one list of screens: every row names a class that exists and
takes its name from the row, and the stylesheets the app loads are exactly the ``.tcss`` files
beside the screens (a file left out would style nothing; a row claiming one would not load)."""

from __future__ import annotations

from pathlib import Path

import phasewatch.tui.screens as screens
from phasewatch.tui.screens import SCREEN_CSS, SCREENS, load, named


def test_every_row_names_its_class_and_the_class_takes_the_name() -> None:
    assert len({row.name for row in SCREENS}) == len(SCREENS)
    for row in SCREENS:
        cls = load(f"{screens.__name__}.{row.where}")
        assert named(cls) == row
        assert getattr(screens, cls.__name__) is cls
        if row.kind != "modal":
            assert row.name == cls.NAME
        if row.kind == "data":
            assert row.title == cls.TITLE and row.label


def test_the_stylesheets_are_the_files_beside_the_screens() -> None:
    here = Path(screens.__file__).parent
    assert sorted(SCREEN_CSS) == sorted(here.glob("*.tcss"))
    assert SCREEN_CSS[:2] == (here / "base.tcss", here / "panels.tcss")  # bases first
