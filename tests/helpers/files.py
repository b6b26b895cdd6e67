"""Files as a test writes them."""

from __future__ import annotations

import os
import time
from pathlib import Path

from phasewatch.core.sources import RACY_NS


def settle(path: Path) -> Path:
    """Date ``path``'s last write back past the racy window (core.sources.RACY_NS), as a file
    written before its reader looked: a cache keyed by its stamp may then keep its parse."""
    back = time.time_ns() - 4 * RACY_NS
    os.utime(path, ns=(back, back))
    return path
