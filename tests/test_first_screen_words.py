"""The first screens in words a newcomer reads (issue 42): no ``ptr``, no ``$`` for "the whole
file", and ``?`` explains every symbol the screens draw."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from phasewatch.core.findings import WHOLE_FILE, Finding, Severity
from phasewatch.core.locations import PhaseLocations
from phasewatch.tui.screens.help import help_text
from phasewatch.widgets import _style as S
from phasewatch.widgets.location_matrix import COLUMNS, POINTERS_HEADER, pointer_text


def test_the_help_explains_every_symbol_the_screens_draw():
    lines = help_text([]).plain.splitlines()
    start = lines.index("What the symbols mean")
    legend = lines[start + 1 : lines.index("", start)]
    shown = " ".join(line.split("  ")[1] if "  " in line else line for line in legend)
    marks = [*S.GLYPHS.values(), *S.SEVERITY_GLYPH.values()]
    marks += [S.CURRENT, S.DISAGREES, S.RUNNING, S.EVENT, S.UNKNOWN]
    for mark in marks:
        assert mark in shown, mark
    assert all(len(line.strip()) > 12 for line in legend)  # each with its meaning


def test_the_pointer_column_says_now_and_its_letters_stand_under_the_header():
    assert ("pointers", POINTERS_HEADER) in COLUMNS and "ptr" not in POINTERS_HEADER
    row = PhaseLocations(
        key="p", position=0, detail="in_progress", has_record=True, summary="in_progress",
        aw_current=True, index_current=True, top_current=True, agent=None, agent_ok=None,
    )  # fmt: skip
    cell = pointer_text(row)
    assert len(cell) == len(POINTERS_HEADER)
    for letter in "AIT":
        assert cell.index(letter) == POINTERS_HEADER.index(letter)


def test_check_names_no_dollar_path_for_the_whole_file(tmp_path: Path):
    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("this is not JSON\n")
    done = subprocess.run(
        [sys.executable, "-m", "phasewatch", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    line = next(x for x in done.stdout.splitlines() if "READ-INVALID" in x)
    assert line.split() == ["READ-INVALID", ".isdlc/state.json"]
    assert " $" not in done.stdout
    for form in ("github", "sarif"):
        out = subprocess.run(
            [sys.executable, "-m", "phasewatch", "check", str(tmp_path), "--format", form],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        assert "READ-INVALID" in out and "at $" not in out, form


def test_a_whole_file_finding_has_no_place_and_the_plugin_screen_shows_none():
    from phasewatch.widgets.plugin_table import Palette, _finding_lines
    from rich.style import Style
    from rich.text import Text

    f = Finding("PLG-X", Severity.WARNING, "PLUGINS.md", WHOLE_FILE, None, None, "m", "")
    g = Finding("PLG-Y", Severity.WARNING, "PLUGINS.md", "line 3", None, None, "m", "")
    assert f.place == "" and g.place == "line 3"
    text = Text()
    styles: dict[str, Style] = defaultdict(Style)
    _finding_lines(text, [f, g], Palette(styles))
    assert "$" not in text.plain and "PLUGINS.md › line 3" in text.plain
