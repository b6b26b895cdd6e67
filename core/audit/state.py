"""Snapshot rules: what one ``state.json`` says about itself (docs/formats.md#isdlc).

The checks live in one module per topic: :mod:`.sync` (SYNC, ACT), :mod:`.lifecycle` (INIT,
BOUNDS, FINAL), :mod:`.fields` (FIELD, EVID, ALIAS), :mod:`.gates` (ESC, REV), :mod:`.times` (TIME);
this module lists them in the order they run.

Every check takes ``(em, state, raw)``; ``state`` is the type-cleaned model and ``raw`` the cleaned
document (used only to tell "missing" from "wrong type", which ``parse_state`` already reports).
A correct run of the protocol (init, 3c-prime, 3e, review gate, redo, escalation, finalize)
produces no error findings at any step.
"""

from __future__ import annotations

from .fields import (
    check_aliases,
    check_enums,
    check_statuses,
    check_summaries,
    check_version,
    check_workflow_fields,
)
from .gates import (
    check_escalation_duplicates,
    check_escalation_entries,
    check_escalations,
    check_review,
    check_review_phase,
)
from .lifecycle import (
    check_bounds,
    check_final,
    check_history,
    check_index_behind,
    check_init,
    check_init_skeleton,
    check_stale_keys,
)
from .sync import check_activation, check_locations
from .times import check_other_times, check_phase_times

SNAPSHOT_CHECKS = (
    check_locations,
    check_activation,
    check_init,
    check_init_skeleton,
    check_bounds,
    check_final,
    check_index_behind,
    check_stale_keys,
    check_history,
    check_version,
    check_statuses,
    check_workflow_fields,
    check_summaries,
    check_enums,
    check_escalations,
    check_escalation_entries,
    check_escalation_duplicates,
    check_review,
    check_review_phase,
    check_phase_times,
    check_other_times,
    check_aliases,
)
