"""Findings and the rule registry.

Every rule that phasewatch can raise is registered here once with a stable id, a severity, the
reference (the docs/ section or real file it comes from) and how to fix it. Modules register
their rules at import time with :func:`rule`; ``core.rules.all_rules`` imports every rule module
so the table is always complete.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from msgspec import Struct
from msgspec.structs import asdict


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class Rule(Struct, frozen=True):
    id: str
    severity: Severity
    title: str  # what it means, one line of plain words (shown on screen; no spec references)
    seed: str  # the reference: the docs/ section (docs/formats.md#...) or real file it comes from
    # (for ``--rules --verbose`` and the docs, never in a message)
    fix: str  # what a human should do about it (the default hint), advice in plain words
    scope: str = "snapshot"  # snapshot | transition | read | hooklog | tdd | plugins


#: A finding's ``path`` when it is about the file as a whole.
WHOLE_FILE = "$"


class Finding(Struct, frozen=True):
    rule_id: str
    severity: Severity
    source: str  # file, relative to the project root
    path: str  # location inside the file, e.g. "phases.06-implementation.status"
    expected: Any
    actual: Any
    message: str
    hint: str

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = str(self.severity)
        return data

    @property
    def place(self) -> str:
        """Where in its file, for a human: empty for the file as a whole (:data:`WHOLE_FILE`,
        JSONPath's root ``$``, which a newcomer does not read as "the whole file")."""
        return "" if self.path == WHOLE_FILE else self.path

    @property
    def key(self) -> tuple[str, str, str]:
        """Identity of a finding across snapshots (to tell new ones from ones still standing)."""
        return (self.rule_id, self.source, self.path)


_REGISTRY: dict[str, Rule] = {}


def rule(
    id: str,
    severity: Severity | str,
    title: str,
    *,
    seed: str,
    fix: str,
    scope: str = "snapshot",
) -> Rule:
    """Register a rule (idempotent for identical re-registration) and return it."""
    new = Rule(id, Severity(severity), title, seed, fix, scope)
    old = _REGISTRY.get(id)
    if old is not None and old != new:
        raise ValueError(f"rule {id} registered twice with different definitions")
    _REGISTRY[id] = new
    return new


def get_rule(rule_id: str) -> Rule:
    return _REGISTRY[rule_id]


def registered_rules() -> list[Rule]:
    """The rules registered so far, sorted by id: every rule only once every rule module is
    imported (``core.rules.all_rules`` does that first)."""
    return sorted(_REGISTRY.values(), key=lambda r: r.id)


def make(
    r: Rule,
    *,
    source: str,
    path: str,
    message: str,
    expected: Any = None,
    actual: Any = None,
    hint: str | None = None,
    severity: Severity | None = None,
) -> Finding:
    """Build a Finding for rule ``r`` (the hint defaults to the rule's fix)."""
    return Finding(
        rule_id=r.id,
        severity=severity or r.severity,
        source=source,
        path=path,
        expected=expected,
        actual=actual,
        message=message,
        hint=hint or r.fix,
    )


def is_transition(finding: Finding) -> bool:
    """Whether ``finding`` comes from a transition rule (previous -> current state) rather than
    from one snapshot; unknown rule ids are not transitions."""
    try:
        return _REGISTRY[finding.rule_id].scope == "transition"
    except KeyError:
        return False


def summarize(findings: list[Finding]) -> dict[str, int]:
    out = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        out[str(f.severity)] += 1
    return out


def sort_findings(findings: list[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.severity.rank, f.source, f.path, f.rule_id))
