"""Plugin directory names and paths as shown: a directory name is untrusted text.

A directory can be named with terminal escapes (``ESC ]52;c;...`` writes the clipboard) or
markup (``[@click=...]``); every name taken from a listing or a path is cleaned here, once, and
the real path is kept beside it for reading.
"""

from __future__ import annotations

from pathlib import Path

from ..sources import Project
from ..text import clean


def rel(project: Project, path: Path) -> str:
    """``path`` relative to the project, cleaned for display (findings, messages)."""
    return clean(project.rel(path))


def plugin_dirs(directory: Path) -> dict[str, Path]:
    """Cleaned directory name -> real path, for every directory under ``plugins/``.

    Two names that clean to the same text keep the first (sorted), so a hostile twin cannot
    hide behind a legitimate plugin's name.
    """
    out: dict[str, Path] = {}
    try:
        children = sorted(directory.iterdir())
    except OSError:
        return out
    for path in children:
        try:
            is_dir = path.is_dir()
        except OSError:
            continue
        name = clean(path.name)
        if is_dir and name and name not in out:
            out[name] = path
    return out


def find_dir(name: str, dirs: dict[str, Path]) -> str | None:
    """The directory of plugin ``name``: exact, else the one case-insensitive match."""
    if name in dirs:
        return name
    folded = [d for d in dirs if d.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None
