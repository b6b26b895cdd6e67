"""The gate panel renders the review summary as Markdown, safely: no Textual markup is read from
it and no link in it becomes clickable."""

from __future__ import annotations

from phasewatch.tui.screens.review import summary_body
from rich.console import Console

SUMMARY = """# Phase 04 summary

- **Done:** the API design
- [evil](javascript:alert(1)) and [@click=app.quit]x[/] and [/]

| item | state |
|---|---|
| schema | ok |
"""


def render(renderable) -> tuple[str, list]:
    console = Console(width=80, record=True, color_system=None, force_terminal=True)
    console.print(renderable)
    segments = list(console.render(renderable))
    return console.export_text(), segments


def test_markdown_is_rendered_and_markup_stays_text():
    text, segments = render(summary_body("x", SUMMARY))
    assert "# Phase" not in text and "Phase 04 summary" in text  # a heading, not a line
    assert "**" not in text and "Done:" in text
    assert "[@click=app.quit]x[/]" in text and "[/]" in text  # literally
    assert "javascript:alert(1)" in text  # the address is shown...
    assert not any(
        s.style and (s.style.link or (s.style.meta or {}).get("@click")) for s in segments
    )  # ...and nothing is clickable


def test_a_missing_summary_says_so():
    text, _ = render(summary_body(".isdlc/reviews/phase-04-summary.md", None))
    assert "phase-04-summary.md is missing." in text
