"""Registry dates and the Lifecycle Timeline (docs/formats.md#registry, #drift)."""

from __future__ import annotations

from ..checks import Emitter
from ..findings import Severity
from ..text import shorten
from ._ctx import Ctx
from .dates import ParsedDate, parse_date
from .entry import PluginTimelineEntry
from .rules import R_DATE_FORMAT, R_DATE_INVALID, R_TIMELINE_FORMAT, R_TIMELINE_ORDER


def _registry_dates(c: Ctx) -> list[tuple[ParsedDate | None, str, str]]:
    table, entry = c.rec.table, c.rec.entry
    dates = [(table.last_updated if table else None, c.md_rel, f"{c.tpath}.last_updated")]
    if entry is not None:
        dates.append((entry.last_updated, entry.source, entry.where("Last Updated")))
        if "created" in entry.fields:
            dates.append(
                (parse_date(entry.fields["created"]), entry.source, entry.where("Created"))
            )
    return dates


def check_dates(em: Emitter, c: Ctx) -> None:
    """Every registry date is understood, and written YYYY-MM-DD."""
    for parsed, src, path in _registry_dates(c):
        if parsed is None or parsed.form == "iso":
            continue
        if parsed.value is None:
            em.add(
                R_DATE_INVALID,
                path,
                f"{c.name}: date {parsed.raw!r} cannot be read ({parsed.note or parsed.form}).",
                source=src,
                expected="YYYY-MM-DD",
                actual=parsed.raw,
            )
        else:
            em.add(
                R_DATE_FORMAT,
                path,
                f"{c.name}: date {parsed.raw!r} read as {parsed.value.isoformat()} ({parsed.note}).",
                source=src,
                expected=parsed.value.isoformat(),
                actual=parsed.raw,
            )


def check_timeline_format(em: Emitter, c: Ctx) -> None:
    entry = c.rec.entry
    if entry is None:
        return
    for t in entry.timeline:
        if t.problem:
            em.add(
                R_TIMELINE_FORMAT,
                entry.where(f"Lifecycle Timeline[{t.index}]"),
                f"{entry.source} line {t.line}: timeline entry {t.problem}.",
                source=entry.source,
                expected="- **YYYY-MM-DD (Stage N):** text",
                actual=shorten(t.raw),
                severity=Severity.INFO if t.date and t.date.exact else None,
            )


def _out_of_order(
    timeline: list[PluginTimelineEntry],
) -> list[tuple[PluginTimelineEntry, PluginTimelineEntry]]:
    """(entry, the latest earlier entry it precedes) for every entry dated too early."""
    out = []
    latest: PluginTimelineEntry | None = None
    for t in timeline:
        value = t.date.value if t.date else None
        if value is None:
            continue
        if latest is not None and latest.date and latest.date.value and latest.date.value > value:
            out.append((t, latest))
        else:
            latest = t
    return out


def _updater_shape(timeline: list[PluginTimelineEntry]) -> bool:
    """Newest entries first, then the rest in order: what the system's own
    ``updatePluginTimeline`` writes (``sed "/^## Lifecycle Timeline$/a ..."`` puts each new
    entry right under the heading; plugin-workflow references/state-management.md)."""
    dates = [t.date.value for t in timeline if t.date and t.date.value]
    n = len(dates)
    # ordered[i]: dates[i:] is oldest-first (one pass from the end: linear, not quadratic)
    ordered = [True] * (n + 1)
    for i in range(n - 2, -1, -1):
        ordered[i] = ordered[i + 1] and dates[i] <= dates[i + 1]
    for k in range(1, n):  # dates[:k] newest-first, each no older than all of dates[k:]
        if k > 1 and dates[k - 1] > dates[k - 2]:
            break
        if ordered[k] and dates[k - 1] >= dates[-1]:
            return True
    return False


def check_timeline_order(em: Emitter, c: Ctx) -> None:
    """Rule 4: the timeline is chronological. One finding per entry, at the first break (a
    timeline pasted twice would otherwise give one per line)."""
    entry = c.rec.entry
    late = _out_of_order(entry.timeline) if entry else []
    if entry is None or not late:
        return
    t, latest = late[0]
    assert t.date and t.date.value and latest.date and latest.date.value  # (both dated: compared)
    first, before = t.date.value.isoformat(), latest.date.value.isoformat()
    more = f" ({len(late)} entries out of order)" if len(late) > 1 else ""
    updater = _updater_shape(entry.timeline)
    why = (
        " Newest first under the heading is where the system's own updatePluginTimeline puts "
        "new entries."
        if updater
        else ""
    )
    em.add(
        R_TIMELINE_ORDER,
        entry.where(f"Lifecycle Timeline[{t.index}]"),
        f"{entry.source} line {t.line}: {first} comes after {before} (line {latest.line}){more}."
        + why,
        source=entry.source,
        expected=f">= {before}",
        actual=first,
        severity=Severity.INFO if updater else None,
    )


DATE_CHECKS = (check_dates, check_timeline_format, check_timeline_order)
