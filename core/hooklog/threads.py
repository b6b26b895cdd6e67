"""The hook log's worker threads: a poll's blocks are parsed, and a text filter's parts
scanned, on a small shared pool. For a large log the work is mostly numpy, which lets go of the
GIL, so a second core shortens it (docs/performance.md#the-hook-log)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ..memory import share_arenas

T = TypeVar("T")
R = TypeVar("R")

THREADS = min(2, os.cpu_count() or 1)
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            share_arenas()  # else each thread keeps its own heap's top after a large read
            _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="phasewatch-hooklog")
        return _pool


def map_parts(fn: Callable[[T], R], parts: Iterable[T]) -> Iterator[R]:
    """``map(fn, parts)`` in order, on the pool when there are several parts and cores (an
    exception raised by ``fn`` comes out of the iteration, as with ``map``)."""
    parts = list(parts)
    if len(parts) < 2 or THREADS < 2:
        return map(fn, parts)
    return _get_pool().map(fn, parts)
