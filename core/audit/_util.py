"""Small helpers shared by the snapshot and transition checks."""

from __future__ import annotations

import json
from typing import Any

from ..models import ActiveWorkflow, PhaseRecord, State
from ..protocol import STATUS_RANK, canonical_phase
from ..text import shorten


def q(value: Any, width: int = 60) -> str:
    """A value for a message: JSON spelling (``"x"``, ``null``), one line, shortened."""
    if isinstance(value, list | tuple) and len(value) > width:
        value = [*value[:width], "…"]  # enough to fill the width: no need to spell them all
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return shorten(text, width)


def canon(key: str | None) -> str | None:
    return canonical_phase(key) if isinstance(key, str) else None


def same_key(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and (a == b or canon(a) == canon(b))


def position(aw: ActiveWorkflow | None, key: str | None) -> int | None:
    """Position of ``key`` in the workflow's phases (alias-aware); None if absent."""
    return None if aw is None else aw.position(key)


def rank(status: str | None) -> int | None:
    return STATUS_RANK.get(status) if isinstance(status, str) else None


def detail_status(state: State, key: str) -> str | None:
    rec = state.phases.get(key)
    return rec.status if rec is not None else None


def summary_status(state: State, key: str) -> str | None:
    aw = state.active_workflow
    return aw.phase_status.get(key) if aw is not None else None


def phase_status_any(state: State, key: str) -> str | None:
    """Best single status of a phase: the detailed record, else the summary map."""
    return detail_status(state, key) or summary_status(state, key)


def raw_dict(raw: Any, *keys: str) -> dict[str, Any]:
    """``raw[k1][k2]...`` if every step is a dict, else ``{}``."""
    node = raw
    for k in keys:
        if not isinstance(node, dict):
            return {}
        node = node.get(k)
    return node if isinstance(node, dict) else {}


def entry_key(value: Any) -> str:
    """A JSON value as a hashable key (its canonical JSON): an entry of a list compared with
    another list's entries."""
    return json.dumps(value, sort_keys=True, default=str)


def dropped(old: list[Any], new: list[Any]) -> list[Any]:
    """The entries of ``old`` that ``new`` no longer holds. An append-only list that only grew
    (``old`` a prefix of ``new``, the usual case) is told by one comparison, no key built."""
    if new[: len(old)] == old:
        return []
    kept = {entry_key(x) for x in new}
    return [x for x in old if entry_key(x) not in kept]


def ppath(key: str, *rest: str) -> str:
    return ".".join(("phases", key, *rest))


def awpath(*rest: str) -> str:
    return ".".join(("active_workflow", *rest))


WORKFLOW_ID_FIELDS = ("type", "slug", "artifact_folder", "started_at")


def identity(obj: Any) -> dict[str, str]:
    """The fields that tell one workflow from another (from a model or a raw dict)."""
    out: dict[str, str] = {}
    for f in WORKFLOW_ID_FIELDS:
        value = obj.get(f) if isinstance(obj, dict) else getattr(obj, f, None)
        if isinstance(value, str) and value:
            out[f] = value
    return out


def same_identity(a: dict[str, str], b: dict[str, str]) -> bool | None:
    """True/False when both name at least one common field; None when it can't be told."""
    common = set(a) & set(b)
    if not common:
        return None
    return all(a[f] == b[f] for f in common)


def describe_workflow(ident: dict[str, str]) -> str:
    name = ident.get("artifact_folder") or ident.get("slug") or ident.get("type") or "?"
    started = ident.get("started_at")
    return f"{name} (started {started})" if started else name


def workflow_records(state: State) -> list[tuple[str, PhaseRecord]]:
    """``(key, record)`` for phases the active workflow runs (alias-aware), in workflow order."""
    aw = state.active_workflow
    if aw is None:
        return []
    out = []
    for key in aw.phases:
        rec = state.phases.get(key)
        if rec is None:
            rec_key = next((k for k in state.phases if same_key(k, key)), None)
            if rec_key is not None:
                key, rec = rec_key, state.phases[rec_key]
        if rec is not None:
            out.append((key, rec))
    return out
