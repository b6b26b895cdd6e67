"""The work a call does, counted exactly (never timed): for tests that hold a cost linear."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def calls(fn: Callable[[], Any]) -> int:
    """Python function calls (and C calls) made by ``fn()``: the work done, counted exactly."""
    count = 0

    def profile(_frame: Any, event: str, _arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count
