"""The TDD workflow plugin's ``.tdd-progress.md`` (docs/formats.md#tdd-workflow-plugin).

- :mod:`.approval`: the one approval test, the plugin hook's own (dashboard, ``check``, ``approve``);
- :mod:`.hook`: what the plugin's stop hook decides on the file's bytes (one computation, shown
  alike on the TDD screen, the plan approval screen and by ``check``);
- :mod:`.model` / :mod:`.reader`: the parsed plan and how it is read;
- :mod:`.rules`: the checks; :mod:`.summary`: the counts ``check --json`` reports.
"""

from __future__ import annotations

from .approval import approval_line, find_approval
from .hook import StopHookView, stop_hook_view
from .model import (
    FINISHED,
    PHASES,
    STATUSES,
    Slice,
    TddPlan,
    TestSpec,
    normalise_status,
    phase_started,
    slice_numbers,
)
from .reader import TDD_MAX_BYTES, load_tdd, parse_progress
from .rules import audit_tdd
from .summary import summary_json, summary_line, true_remaining

__all__ = [
    "FINISHED",
    "PHASES",
    "STATUSES",
    "TDD_MAX_BYTES",
    "Slice",
    "StopHookView",
    "TddPlan",
    "TestSpec",
    "approval_line",
    "audit_tdd",
    "find_approval",
    "load_tdd",
    "normalise_status",
    "parse_progress",
    "phase_started",
    "slice_numbers",
    "stop_hook_view",
    "summary_json",
    "summary_line",
    "true_remaining",
]
