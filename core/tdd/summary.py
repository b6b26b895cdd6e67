"""The plan in a few numbers: what ``check --json`` reports and the screens show side by side."""

from __future__ import annotations

from typing import Any

from ..text import plural
from .model import TddPlan


def true_remaining(plan: TddPlan) -> int:
    """Slices not finished (pass, done, fail or skip); an unknown or missing status remains."""
    return sum(1 for s in plan.slices if not s.finished)


def summary_json(plan: TddPlan) -> dict[str, Any]:
    """``check --json``'s ``"tdd"`` object: approval (the hook's test), the file's slices and
    remaining ones, and what the stop hook would decide with the count it computes (``remaining``
    may be negative when more lines look terminal than there are slice headings)."""
    hook = plan.hook
    return {
        "approved": plan.is_approved,
        "slices": len(plan.slices),
        "remaining": true_remaining(plan),
        "stop_hook": {"decision": hook.decision, "remaining": hook.remaining},
    }


def summary_line(summary: dict[str, Any]) -> str:
    """:func:`summary_json`'s object as one line for ``check``'s text output."""
    hook = summary["stop_hook"]
    approval = "approved" if summary["approved"] else "NOT approved"
    return (
        f"{approval}, {plural(summary['slices'], 'slice')}, {summary['remaining']} remaining; "
        f"stop hook: {hook['decision']} (counts {hook['remaining']})"
    )
