"""Print a pip constraints file pinning every runtime dependency to its declared floor.

``make test-lowest`` installs phasewatch with it into ``.venv-lowest`` and runs the core tests
there: a floor in ``pyproject.toml`` is a promise that the code works with that version.
``name>=1.2,<2`` becomes ``name==1.2``; a dependency without a floor is left free.

Usage: ``python tests/lowest_constraints.py > constraints.txt``.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLOOR = re.compile(r"^\s*([A-Za-z0-9._-]+)(?:\[[^\]]*\])?\s*[^#]*?>=\s*([0-9][0-9A-Za-z.]*)")


def floors(dependencies: list[str]) -> dict[str, str]:
    """``["textual>=8.2,<9", "rich"]`` -> ``{"textual": "8.2"}``."""
    found = {}
    for spec in dependencies:
        match = FLOOR.match(spec)
        if match is not None:
            found[match.group(1).lower()] = match.group(2)
    return found


def main() -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for name, version in sorted(floors(config["project"]["dependencies"]).items()):
        sys.stdout.write(f"{name}=={version}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
