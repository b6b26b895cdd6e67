"""``.isdlc/hook-activity.log``: parse lines, follow the file, count and audit what the hooks said,
and hold the records for the viewer.

docs/formats.md#hook-log. The parts: :mod:`.parse` (lines into records: the reference parser and a
fast one that agrees with it), :mod:`.tail` (the rotation-safe tailer, the line index),
:mod:`.stats` and :mod:`.rules` (incremental counts and findings over the whole log) and
:mod:`.store` (the records the hook screen shows: compact columns, the log file as the storage),
with :mod:`.columns` (their column operations: plain Python for a log the owner's rotation
keeps, numpy, imported then, for one that outgrew it).
"""

from .batch import Batch, parse_block
from .parse import KEYS, MAX_LINE, RAW_KEEP, HookRecord, parse_fast, parse_line
from .rules import (
    R_BLOCK,
    R_ERROR,
    R_INVALID_LINE,
    R_REGRESSION,
    R_SCHEMA,
    R_STALE_WRITE,
    R_TS_ORDER,
    R_UNKNOWN_EVENT,
    TS_TOLERANCE,
    HookAudit,
    audit_hook_log,
)
from .stats import HookCounts, hook_stats
from .tail import (
    MAX_READ,
    MAX_ROWS,
    MEMORY,
    RESYNC_SCAN,
    HookLogTailer,
    TailResult,
    count_lines,
    iter_batches,
    iter_hook_log,
    line_starts,
    read_hook_log,
)

__all__ = [
    "KEYS",
    "MAX_LINE",
    "MAX_READ",
    "MAX_ROWS",
    "MEMORY",
    "RAW_KEEP",
    "RESYNC_SCAN",
    "R_BLOCK",
    "R_ERROR",
    "R_INVALID_LINE",
    "R_REGRESSION",
    "R_SCHEMA",
    "R_STALE_WRITE",
    "R_TS_ORDER",
    "R_UNKNOWN_EVENT",
    "TS_TOLERANCE",
    "Batch",
    "HookAudit",
    "HookCounts",
    "HookLogTailer",
    "HookRecord",
    "TailResult",
    "audit_hook_log",
    "count_lines",
    "hook_stats",
    "iter_batches",
    "iter_hook_log",
    "line_starts",
    "parse_block",
    "parse_fast",
    "parse_line",
    "read_hook_log",
]
