"""The TDD plan's rules: small check functions run by the shared audit runner (a check that
raises becomes ``AUDIT-INTERNAL``, never a crash). Each check looks at one thing."""

from __future__ import annotations

from ..checks import Emitter, run_checks
from ..findings import Finding, Severity, rule
from ..text import plural
from .model import Slice, TddPlan
from .summary import true_remaining

R_UNAPPROVED = rule(
    "TDD-UNAPPROVED-PROGRESS",
    Severity.WARNING,
    "Slices are being implemented but the plan has no Approved: marker the plugin accepts.",
    seed="docs/formats.md#approval-marker",
    fix="Stop implementing; review the plan and add `**Approved:** <timestamp>` only if approved "
    "(a plan written by plugin v1.6.5 or older never had a marker: approve it if it was).",
    scope="tdd",
)
R_APPROVAL_LOOKALIKE = rule(
    "TDD-APPROVAL-NOT-ACCEPTED",
    Severity.WARNING,
    "A line looks like the Approved: marker, but the plugin's hook does not accept it.",
    seed="plugin hooks/check-tdd-progress.sh (approval grep); docs/formats.md#approval-marker",
    fix="The marker must start the line: `**Approved:** <timestamp>` (no bullet, no indentation, "
    "not `**Approved**:`); `approve` writes one.",
    scope="tdd",
)
R_LOCK_AFTER = rule(
    "TDD-LOCK-AFTER-APPROVAL",
    Severity.INFO,
    "The plan is approved and a .tdd-plan-locked is left over (the plugin dropped the lock in "
    "1.11.0; nothing reads it since).",
    seed="plugin 1.11.0 (86fe75f): lock-file mechanism removed; docs/formats.md#plan-lock",
    fix="`rm .tdd-plan-locked` when convenient: the marker decides approval, the lock does not.",
    scope="tdd",
)
R_LOCK_PROGRESS = rule(
    "TDD-LOCK-PROGRESS",
    Severity.INFO,
    "Slices progress on an unapproved plan beside a leftover .tdd-plan-locked (before 1.11.0 it "
    "meant approval was pending; since then nothing reads it).",
    seed="plugin 1.11.0 (86fe75f): lock-file mechanism removed; docs/formats.md#plan-lock",
    fix="The Approved: marker decides, not the lock: approve the plan if it was approved, then "
    "`rm .tdd-plan-locked`.",
    scope="tdd",
)
R_HEADER = rule(
    "TDD-HEADER-CONTRADICTS",
    Severity.WARNING,
    "The header **Status:** contradicts the slices.",
    seed="docs/formats.md#progress-file (header)",
    fix="Update the header Status to match the slices (a header `done` also fools the stop hook).",
    scope="tdd",
)
R_DEP_ORDER = rule(
    "TDD-DEPENDENCY-ORDER",
    Severity.WARNING,
    "A slice is finished before a slice it depends on.",
    seed="docs/formats.md#progress-file (Depends on / Blocks)",
    fix="Check the dependency really was satisfied; otherwise reopen the slice.",
    scope="tdd",
)
R_HOOK_MISCOUNT = rule(
    "TDD-HOOK-MISCOUNT",
    Severity.WARNING,
    "The plugin's stop hook counts a different number of remaining slices than the file holds.",
    seed="docs/formats.md#stop-hook",
    fix="Use `## Slice N:` headings and `**Status:** <word>` lines; keep only slice Status lines "
    "terminal.",
    scope="tdd",
)
R_UNKNOWN_STATUS = rule(
    "TDD-UNKNOWN-STATUS",
    Severity.INFO,
    "A status value is missing or not one of the known words.",
    seed="docs/formats.md#progress-file (status words)",
    fix="Use pending, in-progress, done, pass, fail or skip.",
    scope="tdd",
)
R_NO_SLICES = rule(
    "TDD-NO-SLICES",
    Severity.WARNING,
    "The progress file exists but holds no `## Slice N:` / `### Slice N:` headings.",
    seed="docs/formats.md#progress-file (slices)",
    fix="The plan was not written completely (or uses another format); re-run the planner.",
    scope="tdd",
)

LEGACY_NOTE = (
    "plugin v1.6.5 and older wrote no Approved: marker and no .tdd-plan-locked, so this may be "
    "an older plan that was approved in conversation"
)


def _numbers(slices: list[Slice]) -> str:
    return ", ".join(str(s.number) for s in slices[:8])


def _progress_path(s: Slice) -> tuple[str, str]:
    """Where a slice's progress shows: (path, description)."""
    if s.status in {"in_progress", "done", "pass", "fail", "skip"}:
        return f"{s.label}.status", f"status {s.status_raw}"
    filled = s.phases_filled
    return f"{s.label}.{filled[0]}", f"{filled[0]} {s.phases[filled[0]]}"


def check_no_slices(em: Emitter, plan: TddPlan) -> None:
    if not plan.slices:
        em.add(
            R_NO_SLICES,
            "$",
            f"{em.source} holds no slices; nothing for /tdd-implement or the stop hook.",
            expected="## Slice N: … or ### Slice N: …",
            actual=f"{plan.line_count} lines, no slice headings",
        )


def check_unapproved_progress(em: Emitter, plan: TddPlan) -> None:
    """Progress without the marker: a warning, lock or no lock. The plugin's stop hook lets the
    session stop on an unapproved plan, and since 1.11.0 nothing reads .tdd-plan-locked
    (docs/formats.md#plan-lock); the plan may also predate the marker (added in v1.6.6)."""
    progressing = plan.progressing
    if not progressing or plan.is_approved:
        return
    path, what = _progress_path(progressing[0])
    message = f"{len(progressing)} slice(s) progressing ({_numbers(progressing)}) on a plan "
    message += f"without an Approved: marker; {LEGACY_NOTE}."
    em.add(
        R_UNAPPROVED,
        path,
        message,
        expected="an Approved: marker before implementation",
        actual=what,
    )


def check_approval_lookalike(em: Emitter, plan: TddPlan) -> None:
    line = plan.approval_lookalike_line_no
    if line is None or plan.is_approved:
        return
    em.add(
        R_APPROVAL_LOOKALIKE,
        "header.Approved",
        f"Line {line} reads like an approval, but the plugin's stop hook (and phasewatch) do not "
        "accept it: the plan counts as NOT approved.",
        expected="`**Approved:** <timestamp>` at the start of a line",
        actual=f"line {line}",
    )


LOCK_HISTORY = (
    "the plugin created the lock while planning and removed it on approval up to 1.10.0, and "
    "dropped the mechanism in 1.11.0 (nothing reads the file since), so beside an accepted "
    "marker it is a leftover"
)


def check_lock(em: Emitter, plan: TddPlan) -> None:
    """A lock is a leftover since 1.11.0 (nothing reads it): info beside an accepted marker, and
    info beside progress on an unapproved plan too (TDD-UNAPPROVED-PROGRESS warns about the
    missing marker; the plugin's stop hook lets the session stop either way)."""
    if not plan.lock_exists:
        return
    if plan.is_approved:
        em.add(
            R_LOCK_AFTER,
            "header.Approved",
            f"Approved ({plan.approved or 'no value'}) and .tdd-plan-locked still exists: "
            f"{LOCK_HISTORY}. The stop hook never reads it.",
            expected="no .tdd-plan-locked after approval",
            actual=".tdd-plan-locked exists",
        )
        return
    progressing = plan.progressing
    if progressing:
        path, what = _progress_path(progressing[0])
        em.add(
            R_LOCK_PROGRESS,
            path,
            f"{len(progressing)} slice(s) progressing beside a .tdd-plan-locked, on a plan "
            "without an Approved: marker. Before 1.11.0 the plugin created this lock while "
            "planning and removed it on approval, so it meant approval was still pending; since "
            "1.11.0 nothing reads it and the stop hook lets the session stop. It is a leftover: "
            "the marker decides.",
            expected="no .tdd-plan-locked (nothing reads it since 1.11.0)",
            actual=what,
        )


def check_header_status(em: Emitter, plan: TddPlan) -> None:
    if not plan.slices or plan.header_status is None:
        return
    remaining, raw, n = true_remaining(plan), plan.header_status_raw, len(plan.slices)
    if plan.header_status == "done" and remaining:
        em.add(
            R_HEADER,
            "header.Status",
            f"Header says {raw!r} but {remaining} of {n} slice(s) are not finished.",
            expected=f"not done: {remaining} slice(s) remain",
            actual=raw,
        )
    elif plan.header_status == "pending" and remaining == 0:
        em.add(
            R_HEADER,
            "header.Status",
            f"Header says {raw!r} but all {n} slice(s) are finished.",
            expected="done",
            actual=raw,
        )


def _dependency_edges(plan: TddPlan) -> list[tuple[Slice, Slice]]:
    """(prerequisite, dependent) pairs from Depends on / Blocks, each once."""
    by_number = {s.number: s for s in plan.slices}
    edges: dict[tuple[int, int], tuple[Slice, Slice]] = {}
    for s in plan.slices:
        for d in s.depends_on:
            if d in by_number and d != s.number:
                edges.setdefault((d, s.number), (by_number[d], s))
        for b in s.blocks:
            if b in by_number and b != s.number:
                edges.setdefault((s.number, b), (s, by_number[b]))
    return list(edges.values())


def check_dependency_order(em: Emitter, plan: TddPlan) -> None:
    bad = [
        (pre, dep)
        for pre, dep in _dependency_edges(plan)
        if dep.status in {"done", "pass"} and not pre.finished
    ]
    if not bad:
        return
    pre, dep = bad[0]
    em.add(
        R_DEP_ORDER,
        f"{dep.label}.status",
        f"{len(bad)} slice(s) finished before their prerequisites: "
        + ", ".join(f"{d.number} before {p.number}" for p, d in bad[:6]),
        expected=f"slice {pre.number} finished first",
        actual=f"slice {pre.number} is {pre.status_raw or 'without status'}",
    )


def miscount_reasons(plan: TddPlan) -> list[str]:
    """Why the hook's count and the file's differ, line by line."""
    hook, reasons = plan.hook, []
    counted = set(hook.slice_lines)
    unseen = [s for s in plan.slices if s.line_no not in counted]
    if unseen:
        reasons.append(
            f"{len(unseen)} slice heading(s) the hook does not count (slice {_numbers(unseen)}: "
            "`###` level, or a no-break space, control character or indentation in the heading)"
        )
    extra = len(hook.slice_lines) - (len(plan.slices) - len(unseen))
    if extra > 0:
        reasons.append(f"{extra} other `## Slice|Step N` line(s) are counted as slices")
    own = {s.status_line_no for s in plan.slices if s.status_line_no is not None}
    terminal = set(hook.terminal_lines)
    foreign = [n for n in hook.terminal_lines if n not in own]
    if plan.header_status_line_no in foreign:
        reasons.append(f"the header Status ({plan.header_status_raw!r}) is subtracted as a slice")
    others = [n for n in foreign if n != plan.header_status_line_no]
    if others:
        reasons.append(
            f"{len(others)} other terminal `status:` line(s) are subtracted "
            f"(line {', '.join(map(str, others[:5]))})"
        )
    missed = [s for s in plan.slices if s.finished and s.status_line_no not in terminal]
    if missed:
        reasons.append(
            f"slice {_numbers(missed)}: finished, but its Status line is not terminal for the hook "
            "(`Status: **done**`, `**Status**: done`, a no-break space or a control character)"
        )
    if hook.total == 0 and plan.slices:
        reasons.append("with no `## Slice N` line the hook stops counting")
    return reasons


def check_hook_count(em: Emitter, plan: TddPlan) -> None:
    if plan.cut_at is not None:
        return  # the slices are cut at the read cap, the hook's counts are not: nothing to compare
    hook, remaining = plan.hook, true_remaining(plan)
    if max(0, hook.remaining) == remaining:
        return
    reasons = miscount_reasons(plan)
    em.add(
        R_HOOK_MISCOUNT,
        "$",
        f"The stop hook finds {plural(hook.total, 'slice heading')} and "
        f"{plural(hook.terminal, 'terminal Status line')}, so it counts "
        f"{max(0, hook.remaining)} remaining; the file has {remaining} remaining. "
        f"It would {hook.decision} the stop now ({hook.reason})."
        + (" Why the counts differ: " + "; ".join(reasons) + "." if reasons else ""),
        expected=remaining,
        actual=hook.remaining,
    )


def check_unknown_status(em: Emitter, plan: TddPlan) -> None:
    unknown = [s for s in plan.slices if s.status == "unknown"]
    if unknown:
        first = unknown[0]
        what = "no Status line" if first.status_raw is None else "an unknown status"
        shown = f" ({first.status_raw!r})" if first.status_raw is not None else ""
        em.add(
            R_UNKNOWN_STATUS,
            f"{first.label}.status",
            f"{len(unknown)} slice(s) with {what}: slice {_numbers(unknown)}{shown}",
            expected="pending|in-progress|done|pass|fail|skip",
            actual=first.status_raw,
        )
    if plan.header_status == "unknown":
        em.add(
            R_UNKNOWN_STATUS,
            "header.Status",
            f"Header status {plan.header_status_raw!r} is not a known word.",
            expected="pending|in-progress|done",
            actual=plan.header_status_raw,
        )


CHECKS = (
    check_no_slices,
    check_unapproved_progress,
    check_approval_lookalike,
    check_lock,
    check_header_status,
    check_dependency_order,
    check_hook_count,
    check_unknown_status,
)


def audit_tdd(plan: TddPlan, source: str) -> list[Finding]:
    """Every TDD rule on ``plan``; findings name ``source`` (the file, relative)."""
    return run_checks(Emitter(source), CHECKS, plan)
