"""The hook log's rules: what the hooks said, as findings, over the whole log.

:class:`HookAudit` takes each record once (:meth:`HookAudit.add`) and keeps only what the
findings need (counts, the first and last lines of each kind), so a log read in parts, or a
storm of appends, costs what is new; :meth:`HookAudit.findings` builds the findings from that.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..findings import Finding, Rule, Severity, make, rule
from ..protocol import HOOK_EVENTS
from ..text import shorten
from .batch import TS_NONE, Batch, distinct_texts, us_time
from .columns import Col
from .parse import KEYS, HookRecord
from .stats import MAX_NAME, MAX_NAMES, OTHER, add_count, bounded_name

if TYPE_CHECKING:
    import numpy as np

SEED = "docs/formats.md#hook-log"

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
    seed="docs/formats.md#write-guards (V7)",
    fix="Two writers race on state.json; the late one must re-read before writing.",
    scope="hooklog",
)
R_REGRESSION = rule(
    "HOOK-REGRESSION",
    Severity.WARNING,
    "A hook caught a state regression (V8: index or status going backwards).",
    seed="docs/formats.md#write-guards (V8)",
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


def _lines(nums: list[int], count: int, line_at: LineAt = None) -> str:
    """``line 12`` or ``lines 12, 40, …`` (the word agrees with what follows), each line read
    as the file's line now (``line_at``); lines a rotation took out are said to be gone."""
    mapped = [n if line_at is None else line_at(n) for n in nums[:FIRST_LINES]]
    kept = [str(n) for n in mapped if n is not None]
    gone = len(mapped) - len(kept)
    more = ", …" if count > FIRST_LINES else ""
    if not kept:
        return ("the line" if count == 1 else "the first lines") + " rotated out of the file" + (
            f"; {count - gone} later" if count > gone else "")  # fmt: skip
    word = "line" if count == 1 else "lines"
    return f"{word} {', '.join(kept)}{more}" + (f" ({gone} earlier rotated out)" if gone else "")


#: The file's line now of the n-th line read (None: rotated out); None: lines as read.
LineAt = Callable[[int], int | None] | None


#: A finding's place when its line is no longer in the file (issue 40 item 6).
ROTATED_OUT = "rotated out of the file"

_T = TypeVar("_T")


class _Seen(Generic[_T]):
    """How many rows of one kind, the first few line numbers, and the first and last."""

    __slots__ = ("count", "first", "last", "lines")

    def __init__(self) -> None:
        self.count = 0
        self.lines: list[int] = []
        self.first: _T | None = None
        self.last: _T | None = None

    def add(self, batch: Batch, rows: Col, item: Callable[[int], _T]) -> None:
        """``rows`` (ascending) of ``batch``; ``item(row)``: what is kept of the first and last."""
        if not len(rows):
            return
        self.count += len(rows)
        room = FIRST_LINES - len(self.lines)
        if room > 0:
            xp = batch.ops
            self.lines.extend(xp.ints(xp.take(batch.line_no, rows[:room])))
        if self.first is None:
            self.first = item(int(rows[0]))
        self.last = item(int(rows[-1]))

    def shown(self, line_at: LineAt = None) -> str:
        return _lines(self.lines, self.count, line_at)


class HookAudit:
    """The hook rules over every row added, each row seen once, in file order.

    ``findings(source, current_phase=...)`` is cheap (no pass over the rows): one finding per
    rule with its count and first line numbers; ``current_phase`` narrows HOOK-BLOCK. A batch
    is audited on its codes: the rows of a kind are found with the batch's column operations
    (:mod:`.columns`), a reason is read only when its raw bytes (or its record's text) hold
    ``7:`` or ``8:``, a timestamp is compared as microseconds."""

    def __init__(self) -> None:
        self.records = 0
        self._invalid: _Seen[HookRecord] = _Seen()
        self._odd: _Seen[HookRecord] = _Seen()
        self._odd_notes: Counter[str] = Counter()
        self._unknown: _Seen[HookRecord] = _Seen()
        self._unknown_names: Counter[str] = Counter()
        self._errors: _Seen[HookRecord] = _Seen()
        self._error_hooks: Counter[str] = Counter()
        self._stale: _Seen[HookRecord] = _Seen()
        self._regress: _Seen[HookRecord] = _Seen()
        self._backwards: _Seen[tuple[HookRecord, int]] = _Seen()  # (record, latest ts before)
        self._blocks: Counter[tuple[str, str]] = Counter()  # (phase, hook) as shown
        self._phase_blocks: dict[str | None, Counter[str]] = {}  # phase -> hook -> blocks
        self._block_last: dict[str | None, int] = {}  # phase -> last block line
        self._latest = TS_NONE  # the latest timestamp so far (µs)
        self._line_at: LineAt = None

    def add(self, rows: Batch | Iterable[HookRecord]) -> HookAudit:
        batch = rows if isinstance(rows, Batch) else Batch.of(list(rows))
        self.records += len(batch)
        if not len(batch):
            return self
        xp = batch.ops
        record = batch.record
        odd = batch.extra
        self._invalid.add(batch, [i for i, r in odd.items() if not r.valid], record)
        noted = [i for i, r in odd.items() if r.valid and _odd_notes(r)]
        self._odd.add(batch, noted, record)
        for i in noted:
            self._odd_notes.update(n.split(":")[0] for n in _odd_notes(odd[i]))
        events, codes = batch.field("event")
        kind = xp.lookup([_event_kind(e) for e in events], codes)
        kind = xp.unless(kind, batch.valid, _NONE)
        hooks, hook_codes = batch.field("hook")
        unknown = xp.rows_eq(kind, _UNKNOWN)
        self._unknown.add(batch, unknown, record)
        for c, n in xp.tally(xp.take(codes, unknown)):
            add_count(self._unknown_names, events[c] or "", n)
        errors = xp.rows_eq(kind, _ERROR)
        self._errors.add(batch, errors, record)
        for c, n in xp.tally(xp.take(hook_codes, errors)):
            add_count(self._error_hooks, hooks[c] or "(none)", n)
        self._add_blocks(batch, xp.rows_eq(kind, _BLOCK))
        self._add_guards(batch, kind)
        self._add_order(batch)
        return self

    def _add_blocks(self, batch: Batch, rows: Col) -> None:
        xp = batch.ops
        hooks, hook_codes = batch.field("hook")
        phases, phase_codes = batch.field("phase")
        at = xp.take(phase_codes, rows)
        for p, h, n in xp.tally_pairs(at, xp.take(hook_codes, rows), len(hooks)):
            phase = bounded_name(self._phase_blocks, phases[p])
            hook = hooks[h] or "(none)"
            pair = (phase or "(none)", hook)
            if pair not in self._blocks and (
                len(self._blocks) >= MAX_NAMES or len(hook) > MAX_NAME
            ):
                hook = OTHER  # at most one more pair per phase: the pairs stay bounded
                pair = (pair[0], OTHER)
            per_phase = self._phase_blocks.get(phase)
            if per_phase is None:
                per_phase = self._phase_blocks[phase] = Counter()
            per_phase[hook] += n
            self._blocks[pair] += n
        for code, k in xp.last_at(at):  # each phase's last block
            phase = bounded_name(self._phase_blocks, phases[code])
            self._block_last[phase] = int(batch.line_no[rows[k]])

    def _add_guards(self, batch: Batch, kind: Col) -> None:
        """HOOK-STALE-WRITE / HOOK-REGRESSION: reasons holding ``7:``/``8:`` (the raw bytes
        say which), not logged as ``allow``, classified once per distinct reason."""
        xp = batch.ops
        rows = _guard_candidates(batch)
        rows = xp.take(rows, xp.rows_in(xp.take(kind, rows), _GUARDED))
        found = _guard_kinds(batch, rows)
        self._stale.add(batch, xp.take(rows, xp.rows_eq(found, _STALE)), batch.record)
        self._regress.add(batch, xp.take(rows, xp.rows_eq(found, _REGRESS)), batch.record)

    def _add_order(self, batch: Batch) -> None:
        """HOOK-TS-ORDER: a timestamp more than the tolerance before the latest one so far."""
        xp = batch.ops
        stamps = batch.timestamps()
        rows = xp.rows_ne(xp.unless(stamps, batch.valid, TS_NONE), TS_NONE)
        back, before, latest = xp.backwards(xp.take(stamps, rows), self._latest, _TOLERANCE_US)
        if len(back):
            k = int(back[0])
            first = (batch.record(int(rows[k])), before[0])
            self._backwards.add(batch, xp.take(rows, back), lambda _row: first)
        self._latest = latest

    def findings(
        self, source: str, *, current_phase: str | None = None, line_at: LineAt = None
    ) -> list[Finding]:
        """One finding per rule; ``line_at`` names each line as the file holds it now (the
        tailer's :meth:`~.tail.HookLogTailer.file_line`: lines are numbered as read)."""
        self._line_at = line_at
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

    def _path(self, line_no: int) -> str:
        """A finding's place: the line of the file now, or that a rotation took it out."""
        line = line_no if self._line_at is None else self._line_at(line_no)
        return ROTATED_OUT if line is None else f"line {line}"

    def _at(self, r: HookRecord, rule_: Rule, source: str, what: tuple[Any, Any, str]) -> Finding:
        """A finding about line ``r``: (expected, actual, message)."""
        expected, actual, message = what
        return make(rule_, source=source, path=self._path(r.line_no), expected=expected,
                    actual=actual, message=message)  # fmt: skip

    def _invalid_finding(self, source: str) -> Finding | None:
        seen = self._invalid
        first = seen.first
        if not seen.count or first is None:
            return None
        return self._at(first, R_INVALID_LINE, source, (
            "compact JSON object: ts, hook, event, phase, agent, reason", first.error,
            f"{seen.count} unusable line(s) ({seen.shown(self._line_at)}): "
            f"{first.error}; e.g. {shorten(first.raw or '', 60)!r}",
        ))  # fmt: skip

    def _odd_finding(self, source: str) -> Finding | None:
        seen = self._odd
        first = seen.first
        if not seen.count or first is None:
            return None
        notes = ", ".join(f"{k} ×{v}" for k, v in self._odd_notes.most_common())
        return self._at(first, R_SCHEMA, source, (
            ", ".join(KEYS), "; ".join(n for n in first.notes if not n.startswith("unknown")),
            f"{seen.count} line(s) deviate from the log format ({seen.shown(self._line_at)}): {notes}",
        ))  # fmt: skip

    def _unknown_finding(self, source: str) -> Finding | None:
        seen = self._unknown
        first = seen.first
        if not seen.count or first is None:
            return None
        names = self._unknown_names.most_common(5)
        return self._at(first, R_UNKNOWN_EVENT, source, (
            "one of " + ", ".join(sorted(HOOK_EVENTS)), first.event,
            f"{seen.count} line(s) with unknown events: "
            + ", ".join(f"{shorten(k, 30)} ×{v}" for k, v in names),
        ))  # fmt: skip

    def _error_finding(self, source: str) -> Finding | None:
        seen = self._errors
        last = seen.last
        if not seen.count or last is None:
            return None
        hooks = ", ".join(f"{k} ×{v}" for k, v in self._error_hooks.most_common(5))
        return self._at(last, R_ERROR, source, (
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
            path=self._path(max(last.values())),
            expected=None,
            actual=total,
            message=f"{total} block(s){where}: "
            + ", ".join(f"{p} / {h} ×{n}" for (p, h), n in blocks.most_common(5)),
        )

    def _stale_finding(self, source: str) -> Finding | None:
        seen = self._stale
        r = seen.last
        if not seen.count or r is None:
            return None
        m = _V7.search(r.reason or "")
        return None if m is None else self._at(r, R_STALE_WRITE, source, (
            f"state_version >= {m.group(2)}", None if m.group(1) is None else int(m.group(1)),
            f"{seen.count} stale write(s) caught ({seen.shown(self._line_at)}); "
            f"last: {shorten(r.reason or '', 80)}",
        ))  # fmt: skip

    def _regress_finding(self, source: str) -> Finding | None:
        seen = self._regress
        r = seen.last
        if not seen.count or r is None:
            return None
        m = _V8.search(r.reason or "")
        return None if m is None else self._at(r, R_REGRESSION, source, (
            "no regression", shorten(m.group(1), 80),
            f"{seen.count} regression(s) caught ({seen.shown(self._line_at)}); "
            f"last: {shorten(r.reason or '', 80)}",
        ))  # fmt: skip

    def _order_finding(self, source: str) -> Finding | None:
        seen = self._backwards
        if not seen.count or seen.first is None:
            return None
        r, before = seen.first
        tolerance = TS_TOLERANCE.total_seconds()
        return self._at(r, R_TS_ORDER, source, (
            f">= {us_time(before).isoformat()}", r.ts,
            f"{seen.count} timestamp(s) go backwards by more than {tolerance:g} s "
            f"({seen.shown(self._line_at)})",
        ))  # fmt: skip


_NONE, _KNOWN, _UNKNOWN, _ERROR, _BLOCK, _ALLOWED_KIND = range(6)
_STALE, _REGRESS = 1, 2
_GUARDED = (_KNOWN, _UNKNOWN, _ERROR, _BLOCK)  # kinds whose reasons the guard rules read
_TOLERANCE_US = TS_TOLERANCE // timedelta(microseconds=1)


def _event_kind(event: str | None) -> int:
    if event is None:
        return _NONE
    if event not in HOOK_EVENTS:
        return _UNKNOWN
    return {"error": _ERROR, "block": _BLOCK, _ALLOWED: _ALLOWED_KIND}.get(event, _KNOWN)


def _odd_notes(r: HookRecord) -> list[str]:
    """A usable record's notes about its shape (an unknown event has its own rule)."""
    return [n for n in r.notes if not n.startswith("unknown")]


@lru_cache(maxsize=65536)
def _guard(reason: str | bytes | None) -> int:
    """What a reason says: _STALE (a V7 block), _REGRESS (V8) or 0; as text, or as the bytes
    of a plain ASCII one. Cached: hooks repeat their reasons, and a log of a million lines may
    hold a few thousand distinct ones."""
    if isinstance(reason, bytes):
        reason = reason.decode("ascii")
    if not reason or ("7:" not in reason and "8:" not in reason):
        return 0
    if _V7.search(reason):
        return _STALE
    return _REGRESS if _V8.search(reason) else 0


_PAIRS = (int.from_bytes(b"7:", "little"), int.from_bytes(b"8:", "little"))


def _pairs_at(data: bytes, shift: int) -> np.ndarray:
    """Where ``7:`` or ``8:`` starts in ``data`` at offsets of parity ``shift`` (two bytes
    compared at once)."""
    import numpy as np

    n = (len(data) - shift) // 2
    pairs = np.frombuffer(data, "<u2", n, shift)
    return np.flatnonzero((pairs == _PAIRS[0]) | (pairs == _PAIRS[1])) * 2 + shift


def _guard_candidates(batch: Batch) -> Col:
    """Rows whose reason may hold ``7:`` or ``8:``: found in the raw bytes for rows read from
    them (within the reason's span), by their record for the others."""
    extra = [
        i for i, r in batch.extra.items() if r.reason and ("7:" in r.reason or "8:" in r.reason)
    ]
    if batch.reason_span is None:  # every row's record is at hand
        return sorted(extra)
    import numpy as np

    found: list[np.ndarray] = []
    if batch.data:
        starts = batch.offset - batch.base
        hit = np.zeros(len(starts), np.bool_)
        for shift in (0, 1):  # both alignments (each ascending)
            at = _pairs_at(batch.data, shift)
            rows = np.searchsorted(starts, at, "right") - 1
            span = batch.reason_span[rows]
            hit[rows[(span[:, 0] <= at) & (at + 2 <= span[:, 1])]] = True
        found.append(np.flatnonzero(hit))
    if extra:
        found.append(np.array(extra, np.int64))
    if len(found) == 1:
        return found[0]
    return np.unique(np.concatenate(found)) if found else np.zeros(0, np.int64)


def _guard_kinds(batch: Batch, rows: Col) -> Col:
    """What the reason of each of ``rows`` says (:func:`_guard`): from the record of a row
    that has one; the reasons read from the bytes are grouped, each distinct one classified
    once, then every row by its code."""
    if batch.reason_span is None:  # every row's record is at hand
        return [_guard(batch.reason(row)) for row in rows]
    import numpy as np

    found = np.zeros(len(rows), np.int8)
    raw = batch.reason_span[rows, 0] >= 0  # read from the bytes: ASCII, their own text
    if raw.any():
        span = batch.reason_span[rows[raw]]
        data = batch.data
        assert data is not None  # (spans into the bytes: the batch has them)
        values, codes, grouped = distinct_texts(data, span)
        kinds = np.fromiter(map(_guard, values), np.int8, len(values))
        part = kinds[codes]
        for k in np.flatnonzero(~grouped).tolist():  # too long, or a shared hash: alone
            part[k] = _guard(data[int(span[k, 0]) : int(span[k, 1])])
        found[raw] = part
    for k in np.flatnonzero(~raw).tolist():
        found[k] = _guard(batch.reason(int(rows[k])))
    return found


def audit_hook_log(
    records: Iterable[HookRecord], source: str, *, current_phase: str | None = None
) -> list[Finding]:
    """Aggregate findings over ``records``: one finding per rule (count + first line numbers).

    ``current_phase`` narrows HOOK-BLOCK to blocks logged for that phase.
    """
    return HookAudit().add(records).findings(source, current_phase=current_phase)
