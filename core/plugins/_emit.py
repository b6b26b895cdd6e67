"""The findings collector the plugin checks share with :mod:`core.audit` (its runner turns a
crashing check into ``AUDIT-INTERNAL``); plugin findings name their own file, so ``add`` takes
a ``source`` and one finding is kept per (rule, source, path)."""

from __future__ import annotations

from typing import Any

from ..audit._util import Emitter as _AuditEmitter
from ..audit._util import run_checks
from ..findings import Rule, Severity, make

__all__ = ["Emitter", "run_checks"]


class Emitter(_AuditEmitter):
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
        key = (r.id, f"{source}\x00{path}")
        if key in self._seen:
            return
        self._seen.add(key)
        self.findings.append(
            make(
                r,
                source=source,
                path=path,
                message=message,
                expected=expected,
                actual=actual,
                hint=hint,
                severity=severity,
            )
        )
