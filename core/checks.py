"""The shared check runner: every system's rules are small functions ``check(em, ...)`` that
add findings to an :class:`Emitter`; :func:`run_checks` runs them so that a check that crashes
becomes one ``AUDIT-INTERNAL`` finding instead of taking the audit (or the dashboard) down."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import islice
from typing import Any

from .findings import Finding, Rule, Severity, make, rule
from .log import internal_failure
from .text import shorten

#: What a check that raised becomes (every system's checks run here).
AUDIT_INTERNAL = rule(
    "AUDIT-INTERNAL",
    Severity.WARNING,
    "A phasewatch audit check failed on this input (a phasewatch bug, not the file's).",
    seed="phasewatch",
    fix="Report it with the state file; other checks still ran.",
)

MAX_ITEMS = 50  # items of a list (or dict) a finding keeps; the rest are counted


def jsonable(value: Any) -> Any:
    """``value`` made safe for ``Finding.expected`` / ``actual`` (plain JSON types only). A
    container keeps its first :data:`MAX_ITEMS` items and says how many more there were, so a
    finding costs the same whatever the size of the list it names (a state with 100,000 stale
    phases would otherwise copy the whole phase list into each of its 100,000 findings)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        out = [jsonable(v) for v in islice(items, MAX_ITEMS)]
        if len(items) > MAX_ITEMS:
            out.append(f"… {len(items) - MAX_ITEMS} more")
        return out
    if isinstance(value, dict):
        out_dict = {str(k): jsonable(v) for k, v in islice(value.items(), MAX_ITEMS)}
        if len(value) > MAX_ITEMS:
            out_dict["…"] = f"{len(value) - MAX_ITEMS} more"
        return out_dict
    return str(value)


class Emitter:
    """Collects the findings of one audit; one finding per (rule, source, path). ``source`` is
    the file the findings name (the plugin checks name a different file per finding)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.findings: list[Finding] = []
        self._seen: set[tuple[str, str, str]] = set()

    def add(
        self,
        r: Rule,
        path: str,
        message: str,
        *,
        source: str | None = None,
        expected: Any = None,
        actual: Any = None,
        hint: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        source = source or self.source
        key = (r.id, source, path)
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(
            make(
                r,
                source=source,
                path=path,
                message=message,
                expected=jsonable(expected),
                actual=jsonable(actual),
                hint=hint,
                severity=severity,
            )
        )


def run_checks(em: Emitter, checks: Iterable[Callable[..., None]], *args: Any) -> list[Finding]:
    """Run every check; a check that raises becomes an AUDIT-INTERNAL finding, never an error."""
    for check in checks:
        try:
            check(em, *args)
        except Exception as exc:  # the audit must never take the dashboard down
            internal_failure(__name__, f"audit check {check.__name__} raised", exc)
            em.add(
                AUDIT_INTERNAL,
                f"$ ({check.__name__})",
                f"audit check {check.__name__} failed: {type(exc).__name__}: {shorten(str(exc), 120)}",
                actual=type(exc).__name__,
            )
    return em.findings
