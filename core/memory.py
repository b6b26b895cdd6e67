"""Give freed memory back to the operating system.

Reading a large hook log allocates and frees many mid-sized buffers (its parts, their columns).
glibc keeps freed heap memory for reuse and raises its threshold for returning big blocks after
each one is freed, so the process's RSS stays at the load's peak long after the load is over.
``malloc_trim(0)`` returns the free pages at once. Elsewhere (other C libraries, other systems)
this does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache


@cache
def _trim() -> object | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc.malloc_trim
    except (OSError, AttributeError):  # musl and others have no malloc_trim
        return None


def release_memory() -> None:
    """Return the heap's free pages to the system (glibc only; never raises)."""
    trim = _trim()
    if trim is not None:
        try:
            trim(0)
        except Exception:  # defensive: a failed trim only means memory stays reserved
            pass
