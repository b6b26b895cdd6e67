"""Where the user's config file is (:mod:`core.config` reads and validates it).

Apart so that the dashboard can ask whether there is a file to read without importing pydantic:
with no file, its first frame is drawn before the defaults are made."""

from __future__ import annotations

import os
from pathlib import Path


def default_path(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/phasewatch/config.toml``, else ``~/.config/phasewatch/config.toml``.
    A relative ``XDG_CONFIG_HOME`` is ignored, as the XDG Base Directory spec says."""
    env = os.environ if environ is None else environ
    xdg = env.get("XDG_CONFIG_HOME") or ""
    base = xdg if os.path.isabs(xdg) else str(Path(env.get("HOME", "~")).expanduser() / ".config")
    return Path(base) / "phasewatch" / "config.toml"


def config_to_read(path: Path | None, environ: dict[str, str] | None = None) -> bool:
    """Whether there is a config file to read: ``path`` (named on the command line), else one at
    :func:`default_path` (a dangling symlink counts: reading it says what is wrong). Without
    one the defaults apply, and they change nothing."""
    return path is not None or os.path.lexists(default_path(environ))
