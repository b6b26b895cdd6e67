"""Colours for Rich ``Text`` cells (DataTable cells are Rich renderables, not Content), resolved
from the app's current theme so dark and light both read well. Static widgets use Content with
``$error``-style variables instead, which follow the theme by themselves."""

from __future__ import annotations

from phasewatch.core.text import clean
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.widgets import Static

GLYPHS = {"completed": "✓", "in_progress": "●", "pending": "○", "skipped": "⊘"}
SEVERITY_GLYPH = {"error": "✖", "warning": "▲", "info": "·"}
#: The Overview's other marks (``?`` lists them all: :func:`symbol_legend`).
CURRENT = "▶"  # a phase one of the three pointers says is current
DISAGREES = "⚠"  # a phase whose locations disagree
RUNNING = "▸"  # before the time so far of the phase in progress
EVENT = "⟲"  # a finding about one change between two versions
UNKNOWN = "?"  # a status phasewatch does not know; on the Plugins screen, could not be checked


def symbol_legend() -> list[tuple[str, str]]:
    """(symbol, meaning) of every mark the screens draw, for the ``?`` help."""
    states = ", ".join(s.replace("_", " ") for s in GLYPHS)
    severities = ", ".join(SEVERITY_GLYPH)
    return [
        (" ".join(GLYPHS.values()), f"a phase {states} (· no status)"),
        (f"{RUNNING}12m", "time so far in the phase in progress"),
        (CURRENT, "the phase the state names as current (the A I T column says which field)"),
        (DISAGREES, "state.json's three records of where the workflow is disagree on this "
         "phase (the red cells)"),
        (" ".join(SEVERITY_GLYPH.values()), f"findings: {severities} (an error: the real "
         "system would reject the file or could not go on)"),
        (EVENT, "a change from one version of the file to the next, not a standing finding"),
        ("v52", "the state file's state_version, which every write of the framework raises"),
        (UNKNOWN, "a status phasewatch does not know; on Plugins, a file it could not check "
         "(missing, unreadable, no front matter)"),
        ("✗", "on Plugins: a checksum that does not match its file"),
    ]  # fmt: skip


def plain(text: object, style: str | Style = "") -> Text:
    """``text`` as a Rich ``Text`` cell, cleaned of escapes (names from directory listings and
    paths reach the widgets too: ``core.text.clean`` is the one cleaning function)."""
    return Text(clean(str(text)), style=style)


def plain_content(text: object) -> Content:
    """``text`` as Textual ``Content`` (never markup), cleaned of escapes like :func:`plain`."""
    return Content(clean(str(text)))


def glyph(status: str | None) -> str:
    if status is None:
        return "·"
    return GLYPHS.get(status, UNKNOWN)


def same_text(a: Text, b: Text) -> bool:
    """Rich's ``Text.__eq__`` ignores the base style; cells must not."""
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


def same_visual(a: object, b: object) -> bool:
    """Whether two things a Static shows look the same (Content's ``==`` compares the text
    only, Text's ignores the base style)."""
    if isinstance(a, Text) and isinstance(b, Text):
        return same_text(a, b)
    if isinstance(a, Content) and isinstance(b, Content):
        return a.plain == b.plain and a.spans == b.spans
    return type(a) is type(b) and a == b


def show_in(static: Static, visual: Text | Content | str) -> None:
    """``static.update(visual)`` unless it already shows that: an update lays the whole screen
    out again, and the hot ones (a detail pane, a status line) repeat themselves on every
    refresh of the session."""
    if not same_visual(getattr(static, "_phasewatch_shown", None), visual):
        static._phasewatch_shown = visual  # type: ignore[attr-defined]  # our memo on their widget
        static.update(visual)


def theme_styles(app: App) -> dict[str, Style]:
    """Rich styles for the roles the widgets use, from the app's theme variables."""
    v = app.theme_variables

    def color(name: str, fallback: str) -> str:
        value = v.get(name, fallback)
        return value if value.startswith("#") else fallback

    error = color("error", "#d03050")
    warning = color("warning", "#d08000")
    success = color("success", "#30a050")
    accent = color("primary", "#3070d0")
    muted = color("foreground-muted", "#808080")[:7]
    return {
        "error": Style(color=error, bold=True),
        "error-cell": Style(color=error, bold=True, reverse=True),
        "warning": Style(color=warning, bold=True),
        "warning-cell": Style(color=warning, bold=True, reverse=True),
        "info-cell": Style(color=accent, reverse=True),
        "info": Style(color=accent),
        "success": Style(color=success),
        "accent": Style(color=accent, bold=True),
        "muted": Style(color=muted),
        "new": Style(bold=True, underline=True),
        "plain": Style(),
    }


def status_style(status: str | None, styles: dict[str, Style]) -> Style:
    return {
        "completed": styles["success"],
        "in_progress": styles["accent"],
        "pending": styles["muted"],
        "skipped": styles["muted"],
    }.get(status or "", styles["warning"] if status else styles["muted"])
