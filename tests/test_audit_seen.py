"""What a session remembers of each workflow (core.audit.seen), and what it changes: the second
of two stale writes in a row is judged against the newest state the session saw, not only
against the first stale copy. The corpus's own cases are in test_audit_stale_corpus.py
(blocked_error); these are the shapes, built by hand, with the legit steps beside them."""

from __future__ import annotations

import copy
from typing import Any

from phasewatch.core.audit.seen import LIMIT, Epoch, marker_fresh, remember, replayed
from phasewatch.core.findings import Severity
from phasewatch.core.snapshot import Snapshot, evaluate

from tests import factories as F

SRC = ".isdlc/state.json"


def _session(*docs: dict[str, Any]) -> list[Snapshot]:
    """Each document evaluated as the dashboard sees it, the one before it as its previous."""
    out: list[Snapshot] = []
    for doc in docs:
        out.append(evaluate(copy.deepcopy(doc), SRC, out[-1] if out else None))
    return out


def _errors(snap: Snapshot) -> list[str]:
    return [f.rule_id for f in snap.findings if f.severity is Severity.ERROR]


def _at(state: dict[str, Any], index: int, marker: dict[str, Any] | None, version: int) -> Any:
    out = copy.deepcopy(state)
    aw = out["active_workflow"]
    aw["current_phase_index"] = index
    aw["current_phase"] = aw["phases"][index]
    if marker is None:
        aw.pop("recovery_action", None)
    else:
        aw["recovery_action"] = marker
    out["state_version"] = version
    return out


def _marker(kind: str, second: int, phase: str = "01-requirements") -> dict[str, Any]:
    return {"type": kind, "phase": phase, "timestamp": f"2026-11-26T10:58:{second:02d}.000Z"}


BASE = F.fresh_state("fix")


# ----------------------------------------------------------------------------- the memory


def test_a_newer_marker_starts_an_epoch_and_an_older_one_changes_nothing() -> None:
    seen = remember((), _at(BASE, 1, _marker("retry", 20), 10))
    assert [e.furthest for e in seen] == [1]
    seen = remember(seen, _at(BASE, 2, _marker("retry", 20), 11))
    assert [e.furthest for e in seen] == [2]  # the same marker: further on
    assert remember(seen, _at(BASE, 0, _marker("rollback", 10), 12)) == seen  # older: stale
    assert remember(seen, _at(BASE, 3, None, 12)) == seen  # none where one was seen: stale
    newer = remember(seen, _at(BASE, 0, _marker("rollback", 30), 12))
    assert [(e.marker["type"], e.furthest) for e in newer] == [("rollback", 0)]


def test_the_memory_is_bounded() -> None:
    seen: tuple[Epoch, ...] = ()
    for n in range(LIMIT * 3):
        doc = copy.deepcopy(BASE)
        doc["active_workflow"]["started_at"] = f"2026-11-26T10:{n // 60:02d}:{n % 60:02d}.000Z"
        seen = remember(seen, doc)
    assert len(seen) == LIMIT
    assert seen[-1].key[1].endswith(f"{(LIMIT * 3 - 1) % 60:02d}.000Z")


def test_a_workflow_never_seen_is_judged_by_the_write_alone() -> None:
    doc = _at(BASE, 0, _marker("rollback", 5), 3)
    assert marker_fresh((), doc) and not replayed((), doc)
    other = copy.deepcopy(doc)
    other["active_workflow"]["started_at"] = "2026-01-01T00:00:00.000Z"
    seen = remember((), _at(BASE, 4, _marker("retry", 50), 2))
    assert marker_fresh(seen, other) and not replayed(seen, other)


def test_a_document_without_a_workflow_is_not_remembered() -> None:
    assert remember((), {"state_version": 3}) == ()
    assert remember((), {"active_workflow": {"type": "fix"}}) == ()  # no started_at


# ----------------------------------------------------------------------------- a session


def test_the_second_stale_copy_carrying_an_older_marker_is_an_error() -> None:
    """Seen: a retry at :20 (index 1). A copy from before the rollback (index 2, no marker) is
    written, then one carrying the rollback of :10 (index 1): over the first copy alone it
    looks like a fresh rollback; the framework's older V8 blocks it (index 1 < 2)."""
    good = _at(BASE, 1, _marker("retry", 20), 16)
    first = _at(BASE, 2, None, 17)
    second = _at(BASE, 1, _marker("rollback", 10), 18)
    *_, snap = _session(good, first, second)
    assert "TR-INDEX-DOWN" in _errors(snap)
    # the same two writes without the session's memory: the write alone excuses it
    assert "TR-INDEX-DOWN" not in _errors(_session(first, second)[-1])


def test_a_fresh_rollback_after_a_stale_copy_is_no_error() -> None:
    good = _at(BASE, 1, _marker("retry", 20), 16)
    first = _at(BASE, 2, None, 17)
    rollback = _at(BASE, 1, _marker("rollback", 40), 18)
    assert "TR-INDEX-DOWN" not in _errors(_session(good, first, rollback)[-1])


def _other(state: dict[str, Any], index: int, version: int) -> dict[str, Any]:
    """Another workflow active, ``state``'s suspended, as ``workflow-init.cjs --interrupt``
    writes."""
    out = _at(state, index, None, version)
    out["active_workflow"]["type"] = "feature"
    out["active_workflow"]["started_at"] = "2026-11-26T10:56:19.000Z"
    return out


def _suspending(state: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(state)
    out["suspended_workflow"] = copy.deepcopy(over["active_workflow"])
    return out


def test_a_workflow_brought_back_behind_where_it_was_seen_is_an_error() -> None:
    """Seen: the fix at index 1. A stale copy brings back the feature at index 4; a second one
    brings back the fix at index 0 with the feature suspended: over the first copy alone, an
    interrupt; the framework's V8 blocks it (index 0 < 4)."""
    good = _at(BASE, 1, None, 30)
    feature = _other(BASE, 4, 31)
    back = _suspending(_at(BASE, 0, None, 32), feature)
    *_, snap = _session(good, feature, back)
    assert "TR-INDEX-DOWN" in _errors(snap)
    assert "TR-INDEX-DOWN" not in _errors(_session(feature, back)[-1])


def test_an_interrupt_and_a_resume_are_no_error() -> None:
    """The framework's own steps: the fix interrupted by a feature, then resumed where it was
    (and again after the feature's rollback) with its resumed marker."""
    fix = _at(BASE, 2, None, 30)
    feature = _suspending(_other(BASE, 0, 31), fix)
    resumed = _at(BASE, 2, _marker("resumed_from_suspension", 45), 32)
    snaps = _session(fix, feature, resumed)
    assert [_errors(s) for s in snaps] == [[], [], []]


def test_the_second_stale_copy_is_repaired_from_the_version_before_both() -> None:
    """The dashboard's offer after the two writes: planned from the controller's state, not
    from the first stale copy (which, over the second, looks like a fresh rollback)."""
    from phasewatch.core.review import repair_offer

    good = _at(BASE, 1, _marker("retry", 20), 16)
    first = _at(BASE, 2, None, 17)
    second = _at(BASE, 1, _marker("rollback", 10), 18)
    snaps = _session(good, first, second)
    offer = repair_offer(snaps[-1], snaps)
    assert offer is not None and offer.can_apply
    changed = {tuple(c.path): c.proposed for c in offer.plan.changes}
    marker = ("active_workflow", "recovery_action")
    assert changed[(*marker, "type")] == "retry"  # the controller's marker, not the first copy's
    assert changed[(*marker, "timestamp")] == _marker("retry", 20)["timestamp"]
