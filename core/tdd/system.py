"""The TDD plugin as a :class:`core.systems.System` (docs/design.md#systems)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..systems import Configure, Loaded, Spans, System
from .model import TddPlan
from .reader import load_tdd
from .summary import summary_json, summary_line

if TYPE_CHECKING:
    from ..sources import Project


class TddSystem:
    name = "tdd"
    title = "TDD plan"

    def watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        return {project.tdd_progress, project.tdd_lock}, set()

    def owns(self, project: Project, path: Path) -> bool:
        return path in (project.tdd_progress, project.tdd_lock)

    def load(self, project: Project, configure: Configure, *, known: bool) -> Loaded[TddPlan]:
        plan, findings = load_tdd(project)
        path = project.tdd_progress
        status = "ok" if plan is not None else ("missing" if not path.exists() else "unreadable")
        return Loaded(plan, configure(findings), path, status)

    def summary(self, data: TddPlan | None) -> object:
        return None if data is None else summary_json(data)

    def check_line(self, summary: object) -> Spans:
        """The plan's summary; unapproved, what to do about it (implementing an unapproved plan
        is the mistake the approval step exists to catch, so ``check`` says so even without a
        finding)."""
        assert isinstance(summary, dict)
        approved = bool(summary["approved"])
        spans: Spans = [(".tdd-progress.md  ", "bold")]
        spans.append((summary_line(summary), "" if approved else "yellow"))
        if not approved:
            spans.append(
                (": read the plan, then `phasewatch approve` (or key a in the dashboard)", "")
            )
        return spans


SYSTEM: System[TddPlan] = TddSystem()  # (the type checker holds it to the protocol)
