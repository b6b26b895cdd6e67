"""The iSDLC state audit: snapshot rules on one ``state.json`` and transition rules on two.

Public API (called by :func:`core.snapshot.evaluate`):

- :func:`audit_state` ``(state, raw, source) -> list[Finding]``
- :func:`audit_transition` ``(prev, prev_raw, cur, cur_raw, source) -> list[Finding]``

Both are pure and never raise: ``state`` comes from :func:`core.models.parse_state` (types already
cleaned) and ``raw`` is the parsed document. A check that fails on some unforeseen input yields an
``AUDIT-INTERNAL`` finding instead of an exception. Every rule is registered in
:mod:`core.audit.rules` at import (``RULES`` lists them).

Location disagreements are raised from :func:`core.locations.location_rows`, so the findings and
the dashboard's highlighted cells come from the same facts.
"""

from __future__ import annotations

from typing import Any

from ..checks import Emitter, run_checks
from ..findings import Finding
from ..models import State
from .mirror import check_framework, check_write
from .rules import RULES, STALE_WRITE_RULES
from .seen import Seen, marker_fresh, remember, replayed
from .state import SNAPSHOT_CHECKS
from .transition import TRANSITION_CHECKS, Pair

__all__ = [
    "RULES",
    "STALE_WRITE_RULES",
    "audit_state",
    "audit_transition",
    "remember",
    "stale_write",
]


def _state(value: Any) -> State:
    return value if isinstance(value, State) else State()


def _raw(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def audit_state(
    state: State, raw: dict[str, Any], source: str, exact: dict[str, Any] | None = None
) -> list[Finding]:
    """Snapshot rules on one state (see :mod:`core.audit.state`). ``exact``: the document as
    the framework reads it, when cleaning changed ``raw`` (the framework's checks use it)."""
    em = Emitter(str(source))
    run_checks(
        em, (check_framework,), _raw(raw if exact is None else exact), _raw(raw), _state(state)
    )
    return run_checks(em, SNAPSHOT_CHECKS, _state(state), _raw(raw))


def audit_transition(
    prev: State,
    prev_raw: dict[str, Any],
    cur: State,
    cur_raw: dict[str, Any],
    source: str,
    exact: tuple[dict[str, Any] | None, dict[str, Any] | None] = (None, None),
    seen: Seen = (),
) -> list[Finding]:
    """Transition rules from ``prev`` to ``cur`` (see :mod:`core.audit.transition`);
    ``exact``: the two documents as the framework reads them, where cleaning changed them;
    ``seen``: what the session saw before (:mod:`core.audit.seen`), ``prev`` included."""
    em = Emitter(str(source))
    pair = Pair(_state(prev), _raw(prev_raw), _state(cur), _raw(cur_raw), seen)
    # V7 on every write; V8 on every write but one that archived or suspended the workflow,
    # unless it brings back a workflow the session saw further on
    disk, incoming = (
        e if e is not None else r for e, r in zip(exact, (prev_raw, cur_raw), strict=True)
    )
    regression = pair.ended() is None or replayed(seen, incoming)
    fresh = marker_fresh(seen, incoming)
    run_checks(em, (check_write,), _raw(disk), _raw(incoming), regression, fresh)
    return run_checks(em, TRANSITION_CHECKS, pair)


def stale_write(findings: list[Finding]) -> list[Finding]:
    """The findings of a transition that say it was a stale copy written back (a rule of
    :data:`STALE_WRITE_RULES`)."""
    return [f for f in findings if f.rule_id in STALE_WRITE_RULES]
