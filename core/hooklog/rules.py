"""The hook log's rules: what the hooks said, as findings, over the whole log.

:class:`HookAudit` takes each record once (:meth:`HookAudit.add`) and keeps only what the
findings need (counts, the first and last lines of each kind), so a log read in parts, or a
storm of appends, costs what is new; :meth:`HookAudit.findings` builds the findings from that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from ..findings import Finding, Severity, make, rule
from ..protocol import HOOK_EVENTS, parse_iso
from ..text import shorten
from .parse import KEYS, HookRecord

SEED = "FORMATS 1 hook-activity.log"

R_INVALID_LINE = rule(
    "HOOK-INVALID-LINE",
    Severity.WARNING,
    "Lines of the hook log are not JSON objects with an event (unusable).",
    seed=SEED,
    fix="Something other than the hooks wrote to the log, or a write was cut; inspect those lines.",
    scope="hooklog",
)
R_SCHEMA = rule(
    "HOOK-SCHEMA",
    Severity.INFO,
    "Lines of the hook log deviate from the exact key set/order/types (still read).",
    seed=SEED,
    fix="A hook writes its own log format; align it with ts, hook, event, phase, agent, reason.",
    scope="hooklog",
)
R_UNKNOWN_EVENT = rule(
    "HOOK-UNKNOWN-EVENT",
    Severity.INFO,
    "Hook log lines carry an event name the protocol does not define.",
    seed=SEED,
    fix="A newer or custom hook; add the event to phasewatch if it matters.",
    scope="hooklog",
)
R_BLOCK = rule(
    "HOOK-BLOCK",
    Severity.INFO,
    "Hooks blocked actions (counted per phase and hook).",
    seed=SEED,
    fix="Read the block reasons; repeated blocks in one phase mean the agent is stuck on a gate.",
    scope="hooklog",
)
R_ERROR = rule(
    "HOOK-ERROR",
    Severity.WARNING,
    "Hooks reported an error: the guard they implement may not have run.",
    seed=SEED,
    fix="Run the failing hook by hand with the logged phase; fix its environment or input.",
    scope="hooklog",
)
R_STALE_WRITE = rule(
    "HOOK-STALE-WRITE",
    Severity.WARNING,
    "A hook caught a stale state write (V7: state_version lower than on disk).",
    seed="FORMATS 1 Write guards (V7)",
    fix="Two writers race on state.json; the late one must re-read before writing.",
    scope="hooklog",
)
R_REGRESSION = rule(
    "HOOK-REGRESSION",
    Severity.WARNING,
    "A hook caught a state regression (V8: index or status going backwards).",
    seed="FORMATS 1 Write guards (V8)",
    fix="A writer used an old snapshot of state.json; check which agent wrote it.",
    scope="hooklog",
)
R_TS_ORDER = rule(
    "HOOK-TS-ORDER",
    Severity.INFO,
    "Hook log timestamps go backwards by more than a second.",
    seed=SEED,
    fix="Clock changes or a hand-edited/merged log; entries may be misattributed in time.",
    scope="hooklog",
)

TS_TOLERANCE = timedelta(seconds=1)  # parallel hooks append a few ms out of order: not news
FIRST_LINES = 5
_TS_MS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
# The real state-write-validator's V7 blocks (isdlc-framework, lib/state-logic.cjs at dc219669 and
# state-write-validator.cjs before it): "V7: state_version 41 < disk 43", an unversioned write
# "V7: incoming no version, disk 43" (current) or "V7: incoming has no state_version, disk has 43"
# (older). Group 1 is the incoming version (None: the write had none), group 2 the disk's.
_V7 = re.compile(
    r"\bV7:\s*(?:state_version\s+(-?\d+)\s*<\s*disk"
    r"|incoming\s+(?:no\s+version|has\s+no\s+state_version),\s*disk(?:\s+has)?)\s+(-?\d+)",
    re.I,
)
_V8 = re.compile(r"\bV8:\s*(.*)", re.I)
# V8 logged with event "allow" is the validator letting a write through: its supervised redo
# exception ("V8: supervised redo phase_status '06-x' completed -> in_progress"), not a regression.
_ALLOWED = "allow"


def _lines(nums: list[int], count: int) -> str:
    """``line 12`` or ``lines 12, 40, …`` (the word agrees with what follows)."""
    shown = ", ".join(str(n) for n in nums[:FIRST_LINES])
    word = "line" if count == 1 else "lines"
    return f"{word} {shown}" + (", …" if count > FIRST_LINES else "")


class _Seen:
    """How many records of one kind, the first few line numbers, and the first and last."""

    __slots__ = ("count", "first", "last", "lines")

    def __init__(self) -> None:
        self.count = 0
        self.lines: list[int] = []
        self.first: object = None
        self.last: object = None

    def add(self, line_no: int, item: object) -> None:
        self.count += 1
        if len(self.lines) < FIRST_LINES:
            self.lines.append(line_no)
        if self.first is None:
            self.first = item
        self.last = item

    def shown(self) -> str:
        return _lines(self.lines, self.count)


class HookAudit:
    """The hook rules over every record added, each record seen once, in file order.

    ``findings(source, current_phase=...)`` is cheap (no pass over the records): one finding
    per rule with its count and first line numbers; ``current_phase`` narrows HOOK-BLOCK."""

    def __init__(self) -> None:
        self.records = 0
        self._invalid = _Seen()
        self._odd = _Seen()
        self._odd_notes: Counter[str] = Counter()
        self._unknown = _Seen()
        self._unknown_names: Counter[str] = Counter()
        self._errors = _Seen()
        self._error_hooks: Counter[str] = Counter()
        self._stale = _Seen()
        self._regress = _Seen()
        self._backwards = _Seen()
        self._blocks: Counter[tuple[str, str]] = Counter()  # (phase, hook) as shown
        self._phase_blocks: dict[str | None, Counter[str]] = {}  # phase -> hook -> blocks
        self._block_last: dict[str | None, int] = {}  # phase -> last block line
        self._latest: datetime | None = None
        self._latest_s: str | None = None  # the latest ts in the owner's format (fast compare)
        self._floor_s: str | None = None  # _latest_s minus the tolerance, same format

    def add(self, records: Iterable[HookRecord]) -> HookAudit:
        for r in records:
            self.records += 1
            if not r.valid:
                self._invalid.add(r.line_no, r)
                continue
            if r.notes:
                self._note(r)
            if r.event not in HOOK_EVENTS:
                self._unknown.add(r.line_no, r)
                self._unknown_names[r.event or ""] += 1
            elif r.event == "error":
                self._errors.add(r.line_no, r)
                self._error_hooks[r.hook or "(none)"] += 1
            elif r.event == "block":
                self._block(r)
            reason = r.reason
            if reason and r.event != _ALLOWED and ("7:" in reason or "8:" in reason):
                if m := _V7.search(reason):
                    self._stale.add(r.line_no, (r, m))
                elif m := _V8.search(reason):
                    self._regress.add(r.line_no, (r, m))
            if r.ts:
                self._order(r)
        return self

    def _block(self, r: HookRecord) -> None:
        hook = r.hook or "(none)"
        self._blocks[(r.phase or "(none)", hook)] += 1
        self._phase_blocks.setdefault(r.phase, Counter())[hook] += 1
        self._block_last[r.phase] = r.line_no

    def _note(self, r: HookRecord) -> None:
        odd = [n for n in r.notes if not n.startswith("unknown event")]
        if odd:
            self._odd.add(r.line_no, r)
            self._odd_notes.update(n.split(":")[0] for n in r.notes if not n.startswith("unknown"))

    def _order(self, r: HookRecord) -> None:
        """HOOK-TS-ORDER: a timestamp more than the tolerance before the latest one so far."""
        ts = r.ts
        assert ts is not None
        latest_s = self._latest_s
        # same fixed format: string order is time order (no datetime needed)
        if latest_s is not None and len(ts) == 24 and _TS_MS.match(ts):
            if ts >= latest_s:
                if ts != latest_s:
                    self._latest_s, self._latest, self._floor_s = ts, None, None
                return
            if self._floor_s is None:  # the latest minus the tolerance, as such a string
                floor = parse_iso(latest_s) - TS_TOLERANCE  # type: ignore[operator]
                self._floor_s = floor.strftime("%Y-%m-%dT%H:%M:%S.") + f"{floor:%f}"[:3] + "Z"
            if ts >= self._floor_s:
                return
            if self._backwards.count:  # only the first one's times are shown
                self._backwards.add(r.line_no, None)
                return
        self._order_slow(r, ts)

    def _order_slow(self, r: HookRecord, ts: str) -> None:
        t = parse_iso(ts)
        if t is None:
            return
        latest, latest_s = self._latest, self._latest_s
        if latest is None and latest_s is not None:
            latest = parse_iso(latest_s)
        if latest is not None and t < latest - TS_TOLERANCE:
            self._backwards.add(r.line_no, (r, t, latest))
        if latest is None or t > latest:
            self._latest = t
            self._latest_s = ts if len(ts) == 24 and _TS_MS.match(ts) else None
            self._floor_s = None
        else:
            self._latest = latest

    def findings(self, source: str, *, current_phase: str | None = None) -> list[Finding]:
        out: list[Finding] = []
        for build in (
            self._invalid_finding,
            self._odd_finding,
            self._unknown_finding,
            self._error_finding,
        ):
            if f := build(source):
                out.append(f)
        if f := self._block_finding(source, current_phase):
            out.append(f)
        for build in (self._stale_finding, self._regress_finding, self._order_finding):
            if f := build(source):
                out.append(f)
        return out

    def _invalid_finding(self, source: str) -> Finding | None:
        seen = self._invalid
        first: HookRecord = seen.first  # type: ignore[assignment]
        return None if not seen.count else _at(first, R_INVALID_LINE, source, (
            "compact JSON object: ts, hook, event, phase, agent, reason", first.error,
            f"{seen.count} unusable line(s) ({seen.shown()}): "
            f"{first.error}; e.g. {shorten(first.raw or '', 60)!r}",
        ))  # fmt: skip

    def _odd_finding(self, source: str) -> Finding | None:
        seen = self._odd
        first: HookRecord = seen.first  # type: ignore[assignment]
        notes = ", ".join(f"{k} ×{v}" for k, v in self._odd_notes.most_common())
        return None if not seen.count else _at(first, R_SCHEMA, source, (
            ", ".join(KEYS), "; ".join(n for n in first.notes if not n.startswith("unknown")),
            f"{seen.count} line(s) deviate from the log format ({seen.shown()}): {notes}",
        ))  # fmt: skip

    def _unknown_finding(self, source: str) -> Finding | None:
        seen = self._unknown
        first: HookRecord = seen.first  # type: ignore[assignment]
        names = self._unknown_names.most_common(5)
        return None if not seen.count else _at(first, R_UNKNOWN_EVENT, source, (
            "one of " + ", ".join(sorted(HOOK_EVENTS)), first.event,
            f"{seen.count} line(s) with unknown events: "
            + ", ".join(f"{shorten(k, 30)} ×{v}" for k, v in names),
        ))  # fmt: skip

    def _error_finding(self, source: str) -> Finding | None:
        seen = self._errors
        last: HookRecord = seen.last  # type: ignore[assignment]
        hooks = ", ".join(f"{k} ×{v}" for k, v in self._error_hooks.most_common(5))
        return None if not seen.count else _at(last, R_ERROR, source, (
            "hooks run without error", last.reason,
            f"{seen.count} hook error(s): {hooks}"
            + (f"; last: {shorten(last.reason, 60)}" if last.reason else ""),
        ))  # fmt: skip

    def _block_finding(self, source: str, current_phase: str | None) -> Finding | None:
        blocks = self._blocks
        last = self._block_last
        if current_phase is not None:
            hooks = self._phase_blocks.get(current_phase, Counter())
            blocks = Counter({(current_phase or "(none)", h): n for h, n in hooks.items()})
            last = {current_phase: last[current_phase]} if current_phase in last else {}
        if not blocks:
            return None
        total = sum(blocks.values())
        where = f" in {current_phase}" if current_phase else ""
        return make(
            R_BLOCK,
            source=source,
            path=f"line {max(last.values())}",
            expected=None,
            actual=total,
            message=f"{total} block(s){where}: "
            + ", ".join(f"{p} / {h} ×{n}" for (p, h), n in blocks.most_common(5)),
        )

    def _stale_finding(self, source: str) -> Finding | None:
        seen = self._stale
        r, m = seen.last or (None, None)  # type: ignore[misc]
        return None if not seen.count else _at(r, R_STALE_WRITE, source, (
            f"state_version >= {m.group(2)}", None if m.group(1) is None else int(m.group(1)),
            f"{seen.count} stale write(s) caught ({seen.shown()}); "
            f"last: {shorten(r.reason or '', 80)}",
        ))  # fmt: skip

    def _regress_finding(self, source: str) -> Finding | None:
        seen = self._regress
        r, m = seen.last or (None, None)  # type: ignore[misc]
        return None if not seen.count else _at(r, R_REGRESSION, source, (
            "no regression", shorten(m.group(1), 80),
            f"{seen.count} regression(s) caught ({seen.shown()}); "
            f"last: {shorten(r.reason or '', 80)}",
        ))  # fmt: skip

    def _order_finding(self, source: str) -> Finding | None:
        seen = self._backwards
        r, _t, before = seen.first or (None, None, None)  # type: ignore[misc]
        tolerance = TS_TOLERANCE.total_seconds()
        return None if not seen.count else _at(r, R_TS_ORDER, source, (
            f">= {before.isoformat()}", r.ts,
            f"{seen.count} timestamp(s) go backwards by more than {tolerance:g} s "
            f"({seen.shown()})",
        ))  # fmt: skip


def _at(r: HookRecord, rule_: object, source: str, what: tuple[Any, Any, str]) -> Finding:
    """A finding about line ``r``: (expected, actual, message)."""
    expected, actual, message = what
    return make(rule_, source=source, path=f"line {r.line_no}", expected=expected,
                actual=actual, message=message)  # fmt: skip


def audit_hook_log(
    records: Iterable[HookRecord], source: str, *, current_phase: str | None = None
) -> list[Finding]:
    """Aggregate findings over ``records``: one finding per rule (count + first line numbers).

    ``current_phase`` narrows HOOK-BLOCK to blocks logged for that phase.
    """
    return HookAudit().add(records).findings(source, current_phase=current_phase)
