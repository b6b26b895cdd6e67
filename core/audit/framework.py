"""The iSDLC framework's own checks, read from its code and mirrored exactly.

These are the only iSDLC state checks whose findings may be warnings or errors (the severity
contract, docs/severity.md): everything else phasewatch notices is information.

- ``V9-A`` / ``V9-B`` / ``V9-C`` (cross-location consistency) and ``V1``-``V3`` ("completed"
  without evidence): the framework warns -> a warning (``SYNC-STATUS``, ``SYNC-CURRENT``,
  ``SYNC-INDEX``, ``EVID-*``);
- ``validate-state.cjs``'s INVALID shapes -> an error (``FIELD-STATUS``, ``BOUNDS-CURRENT``,
  ``FIELD-VERSION``, ``FIELD-SHAPE``);
- ``V7`` (stale or unversioned write) and ``V8`` (index / phase_status regression) block a write
  -> an error of the transition (``TR-VERSION-DOWN``, ``TR-VERSION-LOST``, ``TR-INDEX-DOWN``,
  ``TR-STATUS-DOWN``).

Where each comes from (file, function, commit) is in docs/framework-facts.md. The framework is
JavaScript and compares raw JSON values: the predicates here follow JavaScript's truthiness,
strict equality and ``<`` on the exact document (before phasewatch cleans strings for display).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import Any

from ..protocol import parse_iso

# ----------------------------------------------------------------------------- JavaScript values

_JS_NUMBER = re.compile(
    r"[+-]?(?:Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+)"
)


def truthy(v: Any) -> bool:
    """JavaScript's truthiness of a JSON value (``[]`` and ``{}`` are true, ``0`` and ``""`` not)."""
    if v is None or v is False:
        return False
    if isinstance(v, int | float) and not isinstance(v, bool):
        return v != 0 and not (isinstance(v, float) and math.isnan(v))
    if isinstance(v, str):
        return v != ""
    return True


def is_object(v: Any) -> bool:
    """``v && typeof v === 'object'`` (arrays are objects too)."""
    return isinstance(v, dict | list)


def is_number(v: Any) -> bool:
    """``typeof v === 'number'``."""
    return isinstance(v, int | float) and not isinstance(v, bool)


def strict_equal(a: Any, b: Any) -> bool:
    """``a === b`` for parsed JSON values (two objects are never the same object)."""
    if is_number(a) and is_number(b):
        return bool(a == b)
    if type(a) is not type(b) or isinstance(a, dict | list):
        return False
    return bool(a == b)


def prop(obj: Any, key: str) -> Any:
    """``obj[key]`` (``undefined`` -> None) on a JSON object or array."""
    if isinstance(obj, dict):
        return obj.get(key)
    if isinstance(obj, list) and key.isdigit() and (key == "0" or key[0] != "0"):
        i = int(key)
        return obj[i] if i < len(obj) else None
    return None


def entries(obj: Any) -> Iterator[tuple[str, Any]]:
    """``Object.entries(obj)`` of a JSON object or array."""
    if isinstance(obj, dict):
        yield from obj.items()
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield str(i), v


def to_number(v: Any) -> float:
    """JavaScript's ``Number(v)`` of a JSON value (NaN where it has none)."""
    if isinstance(v, bool):
        return float(v)
    if is_number(v):
        return float(v)
    if v is None:
        return 0.0
    if isinstance(v, list):
        return to_number(",".join("" if x is None else _js_string(x) for x in v))
    if isinstance(v, str):
        text = v.strip()
        if text == "":
            return 0.0
        if not _JS_NUMBER.fullmatch(text):
            return math.nan
        if text[:2].lower() in ("0x", "0o", "0b"):
            return float(int(text, 0))
        return float(text.replace("Infinity", "inf"))
    return math.nan


def _js_string(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return ",".join("" if x is None else _js_string(x) for x in v)
    if isinstance(v, dict):
        return "[object Object]"
    if is_number(v) and float(v).is_integer():
        return str(int(v))
    return str(v)


def less(a: Any, b: Any) -> bool:
    """``a < b``: both made primitive (an array joins its items, an object is
    ``"[object Object]"``); two strings compare as strings, anything else as numbers (NaN is
    never less)."""
    pa = _js_string(a) if isinstance(a, list | dict) else a
    pb = _js_string(b) if isinstance(b, list | dict) else b
    if isinstance(pa, str) and isinstance(pb, str):
        return pa < pb
    x, y = to_number(pa), to_number(pb)
    return not (math.isnan(x) or math.isnan(y)) and x < y


def _missing(v: Any) -> bool:
    return v is None  # undefined and null alike


# ----------------------------------------------------------------------------- V9 (warnings)


def v9a(state: Any) -> list[str]:
    """Phase keys whose ``phases[k].status`` and ``phase_status[k]`` differ (both set)."""
    if not isinstance(state, dict):
        return []
    phases, aw = state.get("phases"), state.get("active_workflow")
    summary = prop(aw, "phase_status") if truthy(aw) else None
    if not (truthy(phases) and is_object(phases) and truthy(summary) and is_object(summary)):
        return []
    out = []
    for key, rec in entries(phases):
        if not (truthy(rec) and is_object(rec)):
            continue
        detail, sum_status = prop(rec, "status"), prop(summary, key)
        if truthy(detail) and truthy(sum_status) and not strict_equal(detail, sum_status):
            out.append(key)
    return out


def v9b(state: Any) -> bool:
    """The top-level ``current_phase`` and ``active_workflow.current_phase`` differ (both set)."""
    if not isinstance(state, dict):
        return False
    top = state.get("current_phase")
    aw_current = prop(state.get("active_workflow"), "current_phase")
    return truthy(top) and truthy(aw_current) and not strict_equal(top, aw_current)


def v9c(state: Any) -> bool:
    """``phases[current_phase_index]`` names another phase than ``current_phase``, and the index
    is not just one past it (the "intermediate state" between STEP 3e and 3c-prime)."""
    aw = state.get("active_workflow") if isinstance(state, dict) else None
    index, phases = prop(aw, "current_phase_index"), prop(aw, "phases")
    current = prop(aw, "current_phase")
    if not (is_number(index) and isinstance(phases, list) and truthy(current)):
        return False
    if not (0 <= index < len(phases)) or not float(index).is_integer():
        return False
    expected = phases[int(index)]
    if not truthy(expected) or strict_equal(expected, current):
        return False
    before = phases[int(index) - 1] if index > 0 else None
    return not strict_equal(before, current)


# ----------------------------------------------------------------------------- V1-V3 (warnings)

#: (rule, path below phases[k], the count that must be at least 1)
EVIDENCE = (
    ("V1", ("constitutional_validation",), "iterations_used"),
    ("V2", ("iteration_requirements", "interactive_elicitation"), "menu_interactions"),
    ("V3", ("iteration_requirements", "test_iteration"), "current_iteration"),
)


def evidence(state: Any) -> list[tuple[str, str, tuple[str, ...], Any]]:
    """``(rule, phase key, path in the record, count)`` for every "completed: true" whose count
    is missing or below 1 (``validatePhase``)."""
    phases = state.get("phases") if isinstance(state, dict) else None
    if not (truthy(phases) and is_object(phases)):
        return []
    out = []
    for key, rec in entries(phases):
        if not (truthy(rec) and is_object(rec)):
            continue
        for rule, where, count_key in EVIDENCE:
            block: Any = rec
            for part in where:
                block = prop(block, part) if is_object(block) else None
            if not (truthy(block) and prop(block, "completed") is True):
                continue
            count = prop(block, count_key)
            if _missing(count) or less(count, 1):
                out.append((rule, key, (*where, count_key), count))
    return out


# ----------------------------------------------------------------------------- validate-state

VALID_SUMMARY = ("pending", "in_progress", "completed", "skipped")


def invalid(state: Any) -> list[tuple[str, str]]:
    """``(path, what)`` for every error ``validate-state.cjs`` reports (INVALID)."""
    if not isinstance(state, dict):
        return []
    out: list[tuple[str, str]] = []
    for name in ("active_workflow", "suspended_workflow"):
        wf = state.get(name)
        if truthy(wf):
            out += _workflow_shape(wf, name)
    if "state_version" in state and not is_number(state["state_version"]):
        out.append(("state_version", "state_version is not a number"))
    return out


def _workflow_shape(wf: Any, name: str) -> list[tuple[str, str]]:
    out = []
    index = prop(wf, "current_phase_index")
    if isinstance(wf, dict) and "current_phase_index" in wf and not is_number(index):
        out.append((f"{name}.current_phase_index", "current_phase_index is not a number"))
    phases = prop(wf, "phases")
    if truthy(phases) and not isinstance(phases, list):
        out.append((f"{name}.phases", "phases is not an array"))
    current = prop(wf, "current_phase")
    if (
        truthy(current)
        and isinstance(phases, list)  # an empty list too: [] is truthy in JavaScript
        and not any(strict_equal(p, current) for p in phases)
    ):
        out.append((f"{name}.current_phase", "current_phase is not in phases"))
    summary = prop(wf, "phase_status")
    if truthy(summary) and is_object(summary):
        for key, status in entries(summary):
            if not any(strict_equal(status, v) for v in VALID_SUMMARY):
                out.append((f"{name}.phase_status.{key}", "phase_status value is not valid"))
    return out


# ----------------------------------------------------------------------------- V7 / V8 (blocks)

STATUS_ORDINAL = {"pending": 0, "in_progress": 1, "completed": 2}


def v7(disk: Any, incoming: Any) -> str | None:
    """Why the framework blocks writing ``incoming`` over ``disk`` for its version, or None:
    ``"unversioned"`` or ``"stale"``."""
    if not (truthy(incoming) and isinstance(incoming, dict)) or not is_object(disk):
        return None
    new, old = incoming.get("state_version"), prop(disk, "state_version")
    if _missing(new):
        return None if _missing(old) else "unversioned"
    if _missing(old):
        return None
    return "stale" if less(new, old) else None


def v8(disk: Any, incoming: Any, fresh_seen: bool = True) -> tuple[str, str, str] | None:
    """``(path, what, note)`` of the first orchestration field the write regresses (``V8``),
    or None.

    The two eras differ. Until March 2026 (state-write-validator.cjs at 829e80d1) V8 blocks a
    lower ``current_phase_index``, and a lower ``phase_status[k]`` or ``phases[k].status``
    except a supervised redo (completed -> in_progress). Since then (state-logic.cjs) it no
    longer looks at ``phases[k]``, and it excuses any regression while
    ``active_workflow.recovery_action`` says rollback (index and statuses) or retry (statuses).
    The framework never removes that marker, so today's V8 excuses every later regression too.
    phasewatch judges by the older, stricter V8 and excuses what today's excuses only when the
    write itself sets the marker: it blocks what either era would block but for a fresh marker.
    ``fresh_seen`` False: the session saw a newer marker for this workflow (core.audit.seen), so
    the write's marker is not fresh whatever the disk holds. ``note`` says which era would let
    the write through, and why."""
    new_aw = incoming.get("active_workflow") if isinstance(incoming, dict) else None
    if not (truthy(new_aw) and is_object(new_aw)) or not is_object(disk):
        return None
    old_aw = prop(disk, "active_workflow")
    if not (truthy(old_aw) and is_object(old_aw)):
        return None
    marker = prop(prop(new_aw, "recovery_action"), "type")
    fresh = fresh_seen and marker_set_by_write(disk, incoming)
    stale = _STALE_MARKER if marker in ("retry", "rollback") and not fresh else ""
    new_i, old_i = prop(new_aw, "current_phase_index"), prop(old_aw, "current_phase_index")
    rolled_back = marker == "rollback" and fresh
    if is_number(new_i) and is_number(old_i) and new_i < old_i and not rolled_back:
        note = stale if marker == "rollback" else ""
        return ("active_workflow.current_phase_index", f"index {new_i} < {old_i}", note)
    maps = (
        (
            "active_workflow.phase_status",
            prop(new_aw, "phase_status"),
            prop(old_aw, "phase_status"),
            "",
        ),
        ("phases", prop(incoming, "phases"), prop(disk, "phases"), _DETAIL_ONLY_OLD),
    )
    for base, new_map, old_map, era in maps:
        if not (truthy(new_map) and is_object(new_map) and truthy(old_map) and is_object(old_map)):
            continue
        for key, new_v in entries(new_map):
            old_v = prop(old_map, key)
            if base == "phases":
                if not (truthy(new_v) and is_object(new_v) and truthy(old_v) and is_object(old_v)):
                    continue
                new_v, old_v = prop(new_v, "status"), prop(old_v, "status")
            rn, ro = _ordinal(new_v), _ordinal(old_v)
            if rn is None or ro is None or rn >= ro:
                continue
            redo = new_v == "in_progress" and old_v == "completed" and in_redo(new_aw)
            if redo and redo_set_by_write(disk, incoming, key):
                continue
            if marker in ("retry", "rollback") and fresh:
                continue
            path = f"{base}.{key}" if base != "phases" else f"phases.{key}.status"
            return (path, f"{key}: {old_v} -> {new_v}", _STALE_REDO if redo else era or stale)
    return None


def _ordinal(v: Any) -> int | None:
    return STATUS_ORDINAL.get(v) if isinstance(v, str) else None


_STALE_MARKER = (
    "Today's V8 (state-logic.cjs) lets it through only because an earlier recovery_action "
    "(retry or rollback) is still recorded: the framework never removes the marker, so it "
    "excuses every later regression, not just the one it caused; the V8 before March 2026 "
    "blocks it."
)
_STALE_REDO = (
    "Both eras' V8 let it through because the copy carries a supervised redo "
    "(supervised_review redo_pending or redo_count > 0), but that redo is not this write's: "
    "the disk's review gate had moved past it, so this is a copy taken during the redo."
)
_DETAIL_ONLY_OLD = (
    "The V8 before March 2026 blocks it; today's (state-logic.cjs) guards phase_status only."
)


def marker_set_by_write(disk: Any, incoming: Any) -> bool:
    """The write itself sets ``active_workflow.recovery_action``: it differs from the disk's and
    is not older than it.

    The framework never removes the marker (workflow-retry.cjs, workflow-rollback.cjs), and V8
    excuses every regression while it is there; phasewatch excuses only the write that sets it.
    A sub-agent's copy taken before the latest retry or rollback carries an older marker (an
    earlier ``timestamp``, or a lower ``rollback_count``), and a copy of another workflow
    (another ``type`` or ``started_at``) carries that workflow's: written back, it sets
    nothing (docs/framework-facts.md#recovery-markers)."""
    new_aw, old_aw = prop(incoming, "active_workflow"), prop(disk, "active_workflow")
    new, old = prop(new_aw, "recovery_action"), prop(old_aw, "recovery_action")
    if not truthy(new) or new == old:
        return False
    if truthy(old_aw) and any(
        not strict_equal(prop(new_aw, k), prop(old_aw, k)) for k in ("type", "started_at")
    ):
        return False  # the marker of another workflow: a copy from before this one started
    if not truthy(old):
        return True
    t_new, t_old = parse_iso(prop(new, "timestamp")), parse_iso(prop(old, "timestamp"))
    if t_new is not None and t_old is not None and t_new < t_old:
        return False
    c_new, c_old = prop(new_aw, "rollback_count"), prop(old_aw, "rollback_count")
    return not (is_number(c_new) and is_number(c_old) and c_new < c_old)


def marker_clears(doc: Any, phase: str) -> bool:
    """``doc``'s recovery marker is one that cleared ``phase``'s gate evidence: a retry of
    ``phase`` (workflow-retry.cjs clears the current phase's), or a rollback to ``phase`` or a
    phase before it (workflow-rollback.cjs clears the target's and every later phase's;
    docs/framework-facts.md#recovery-markers)."""
    aw = prop(doc, "active_workflow")
    marker = prop(aw, "recovery_action")
    kind, target = prop(marker, "type"), prop(marker, "phase")
    if kind == "retry":
        return strict_equal(target, phase)
    if kind != "rollback":
        return False
    phases = prop(aw, "phases")
    if not isinstance(phases, list) or target not in phases or phase not in phases:
        return True  # cannot be placed: take it as cleared (the old block put back)
    return phases.index(phase) >= phases.index(target)


def _statuses(doc: Any, key: Any) -> tuple[Any, Any]:
    """``(phase_status[key], phases[key].status)``."""
    aw = prop(doc, "active_workflow")
    return prop(prop(aw, "phase_status"), key), prop(prop(prop(doc, "phases"), key), "status")


def _pointer_place(doc: Any) -> tuple[list[Any], int, int] | None:
    """``(phases, pointer's position, index)`` when all three can be read."""
    aw = prop(doc, "active_workflow")
    phases, pointer, index = (
        prop(aw, "phases"),
        prop(aw, "current_phase"),
        prop(aw, "current_phase_index"),
    )
    if not isinstance(phases, list) or pointer not in phases:
        return None
    if not isinstance(index, int) or isinstance(index, bool):
        return None
    return phases, phases.index(pointer), index


def unfinished_outside_redo(doc: Any, key: Any) -> bool:
    """An index one past ``key`` is not one of the framework's shapes: neither status map calls
    ``key`` done and no supervised redo runs. V9-C accepts "one past"; the framework's own steps
    leave it only after STEP 3e completed the phase, or while a redo re-runs it
    (docs/formats.md#phase-loop)."""
    if in_redo(prop(doc, "active_workflow")):
        return False
    return not {*_statuses(doc, key)} & {"completed", "skipped"}


def index_past_unfinished(doc: Any) -> Any:
    """The phase the index is one past where :func:`unfinished_outside_redo`, or None."""
    place = _pointer_place(doc)
    if place is None:
        return None
    phases, pos, index = place
    key = phases[pos]
    return key if index == pos + 1 and unfinished_outside_redo(doc, key) else None


def pointer_behind_started(doc: Any) -> Any:
    """The phase at the index that a map calls in progress while the pointer stays on the one
    before it, or None. STEP 3c-prime writes the pointer and the status in one write, so the
    framework's steps never leave this (docs/formats.md#phase-loop)."""
    place = _pointer_place(doc)
    if place is None:
        return None
    phases, pos, index = place
    if index != pos + 1 or index >= len(phases):
        return None
    key = phases[index]
    return key if "in_progress" in _statuses(doc, key) else None


def completed_ahead(doc: Any) -> list[Any]:
    """The phases after both the pointer and the index that ``phase_status`` calls completed.
    The framework completes only the phase it runs, and a rollback sets the later ones
    pending (workflow-rollback.cjs), so its steps never leave one (docs/formats.md#phase-loop)."""
    place = _pointer_place(doc)
    if place is None:
        return []
    phases, pos, index = place
    summary = prop(prop(doc, "active_workflow"), "phase_status")
    return [k for k in phases[max(pos, index) + 1 :] if prop(summary, k) == "completed"]


def in_redo(aw: Any) -> bool:
    """The framework's V8 redo test: ``supervised_review`` is ``redo_pending`` or has a
    ``redo_count`` above 0."""
    review = prop(aw, "supervised_review")
    count = prop(review, "redo_count")
    return truthy(review) and (
        prop(review, "status") == "redo_pending" or (is_number(count) and count > 0)
    )


def redo_set_by_write(disk: Any, incoming: Any, key: Any) -> bool:
    """The write is a supervised redo of phase ``key`` that the disk has not finished yet.

    The redo (isdlc.md 3e-review, docs/formats.md#supervised-review-gate) starts at the gate of
    ``key`` (``gate_presented`` or ``reviewing``, ``redo_count`` n-1) and writes ``redo_pending``
    with ``redo_count`` n; the phase then runs again and the gate comes back with the same
    count. A copy taken during redo n and written back after it carries ``redo_pending`` n over
    a disk whose gate for ``key`` has moved past it (re-presented, decided, or another phase's):
    it sets nothing."""
    new_aw = prop(incoming, "active_workflow")
    review = prop(new_aw, "supervised_review")
    if not in_redo(new_aw) or not strict_equal(prop(review, "phase"), key):
        return False
    count = prop(review, "redo_count")
    on_disk = prop(prop(disk, "active_workflow"), "supervised_review")
    if not truthy(on_disk) or not strict_equal(prop(on_disk, "phase"), key):
        return False
    n, m = count if is_number(count) else 0, prop(on_disk, "redo_count")
    m = m if is_number(m) else 0
    if prop(on_disk, "status") == "redo_pending":
        return bool(m <= n)
    return prop(on_disk, "status") in ("gate_presented", "reviewing") and bool(m < n)
