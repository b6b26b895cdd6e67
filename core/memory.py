"""Give freed memory back to the operating system; pause the cyclic collector for a start-up.

Reading a large hook log allocates and frees many mid-sized buffers (its parts, their columns).
glibc keeps freed heap memory for reuse and raises its threshold for returning big blocks after
each one is freed, so the process's RSS stays at the load's peak long after the load is over.
``malloc_trim(0)`` returns the free pages at once. Elsewhere (other C libraries, other systems)
this does nothing.

Threads make it worse: glibc gives each new thread its own arena, and ``malloc_trim`` cannot
return the free top of a thread's arena. :func:`share_arenas` keeps every thread in the main
arena, which keeps a large log's read from leaving the process at its peak
(docs/performance.md#start-up-and-keys).

The cyclic garbage collector: a program's start-up makes hundreds of thousands of objects that
live as long as it does (modules, classes, widgets) and little garbage, yet the collector passes
over them again and again while they are made. :func:`pause_collector` stops it (if it runs),
:func:`freeze_imports` puts the modules imported by then out of its reach, and
:func:`end_startup` runs one full collection, optionally freezes what survived, and starts it
again; a collector that something else had switched off is left off.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ctypes

M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
ARENAS = 1  # every thread allocates from the main arena, the one malloc_trim can shrink


@cache
def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # (here: ``phasewatch check`` imports this module and needs no libc)

    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


def _trim() -> Callable[[int], int] | None:
    return getattr(_libc(), "malloc_trim", None)  # musl and others have no malloc_trim


def share_arenas() -> None:
    """Threads created from now on share arenas (at most ``ARENAS``): call it before starting
    threads that allocate much (glibc only; never raises)."""
    mallopt = getattr(_libc(), "mallopt", None)
    if mallopt is not None:
        try:
            mallopt(M_ARENA_MAX, ARENAS)
        except Exception:  # defensive: without it memory only stays reserved longer
            pass


def release_memory() -> None:
    """Return the heap's free pages to the system (glibc only; never raises)."""
    trim = _trim()
    if trim is not None:
        try:
            trim(0)
        except Exception:  # defensive: a failed trim only means memory stays reserved
            pass


_paused = False  # the collector is off because pause_collector turned it off


def pause_collector() -> None:
    """Stop the cyclic collector for a start-up, if it runs (idempotent)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """Start the collector again if :func:`pause_collector` stopped it (idempotent)."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def freeze_imports() -> None:
    """While the collector is paused for a start-up: move every object made so far (the
    modules imported, which live as long as the process) out of the collector's reach
    (``gc.freeze``), so the one full collection :func:`end_startup` runs scans only what the
    start-up made after them: that collection is a stall the first key met, and it is shorter
    the less it scans (docs/performance.md#start-up-and-keys). The few cycles the imports left
    are kept, not freed."""
    if _paused:
        gc.freeze()


def end_startup(freeze: bool) -> None:
    """The start-up is over: if the collector was paused for it, one full collection first (the
    garbage the start-up left); with ``freeze``, every object that survived leaves the
    collector's reach (``gc.freeze``: later full collections do not scan it again); then the
    collector runs as before."""
    if _paused:
        gc.collect()
    if freeze:
        gc.freeze()
    resume_collector()
