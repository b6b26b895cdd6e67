"""The TDD workflow plugin's ``.tdd-progress.md`` (FORMATS.md section 2, seed 004).

:func:`parse_progress` turns the Markdown (no YAML) into a :class:`TddPlan`, tolerating both slice
heading styles (``## Slice N:`` planner style, ``### Slice N:`` template style), loose status
spellings and any junk; it never raises. :func:`stop_hook_view` reproduces what the plugin's stop
hook (``check-tdd-progress.sh``) computes, with its two ``grep -ciE`` counts, so the dashboard can
show "what the hook will decide" next to :func:`true_remaining`.

Choice: a slice is *remaining* unless its status is ``done``, ``pass`` or ``skip``. A ``fail``ed
slice is remaining (its RED-GREEN cycle did not finish), although the stop hook counts it terminal;
an unknown or missing status is remaining too.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime

from ..findings import Finding, Severity, make, rule
from ..protocol import parse_iso
from ..sources import R_UNREADABLE, Project, read_bytes
from ..text import clean, shorten
from .approval import find_approval, lookalike_line

TDD_MAX_BYTES = 8 * 1024 * 1024  # a plan is a few KB; past this it is cut (and not hashed)

STATUSES = ("pending", "in_progress", "done", "pass", "fail", "skip")
FINISHED = frozenset({"done", "pass", "skip"})  # not remaining (see module doc: fail is remaining)
PHASES = ("RED", "GREEN", "REFACTOR")

_STATUS_WORDS = {
    "pending": "pending",
    "todo": "pending",
    "not_started": "pending",
    "in_progress": "in_progress",
    "inprogress": "in_progress",
    "wip": "in_progress",
    "started": "in_progress",
    "red": "in_progress",  # a slice sitting in a cycle phase is under way (the hook agrees)
    "green": "in_progress",
    "refactor": "in_progress",
    "done": "done",
    "complete": "done",
    "completed": "done",
    "pass": "pass",
    "passed": "pass",
    "passing": "pass",
    "fail": "fail",
    "failed": "fail",
    "failing": "fail",
    "skip": "skip",
    "skipped": "skip",
}
_NOT_STARTED = frozenset(
    {"", "-", "—", "–", "pending", "todo", "tbd", "not started", "none", "[ ]"}
)

# --- the stop hook's two greps, verbatim semantics (grep -ciE, counted per line) -------------
HOOK_SLICE_RE = re.compile(r"^\s*##\s*(slice|step)\s+[0-9]", re.I)
HOOK_TERMINAL_RE = re.compile(r"status:\*{0,2}\s*(pass|done|complete|fail|skip)", re.I)

_HEADING = re.compile(r"^(#{1,6})\s*(.*?)\s*#*\s*$")
_SLICE_HEADING = re.compile(r"^(?:slice|step)\s+(\d{1,9})\b\s*[:.)\-—–]?\s*(.*)$", re.I)
_TEST_HEADING = re.compile(r"^test\s+(\d{1,9})\b\s*[:.)\-—–]?\s*(.*)$", re.I)
_FIELD = re.compile(
    r"^\s*(?:[-*+]\s+)?\*{0,2}\s*([A-Za-z][A-Za-z /]{0,40}?)\s*\*{0,2}\s*:\s*\*{0,2}\s*(.*?)\s*$"
)
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]")
_DEPENDS = re.compile(r"depends\s+on\s*\*{0,2}\s*:\s*\*{0,2}\s*([^|]*)", re.I)
_BLOCKS = re.compile(r"\bblocks\s*\*{0,2}\s*:\s*\*{0,2}\s*([^|]*)", re.I)
_GWT = re.compile(r"^\s*(?:[-*+]\s+)?\*{0,2}\s*(given|when|then)\b", re.I)
_RANGE = re.compile(r"(\d{1,6})\s*(?:-|–|—|\.\.|to)\s*(\d{1,6})")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LEADING_JUNK = re.compile(r"^[\W_]+")
_STATUS_WORD = re.compile(r"^(in[\s_-]*progress|not[\s_-]+started|[A-Za-z]+)\s*(.*)$", re.I | re.S)


# ---------------------------------------------------------------------------- models


@dataclass(slots=True)
class TestSpec:
    number: int
    name: str
    line_no: int
    given: bool = False
    when: bool = False
    then: bool = False


@dataclass(slots=True)
class Slice:
    number: int
    name: str
    level: int  # heading level: 2 = planner style, 3+ = template style
    line_no: int
    status_raw: str | None = None  # None: no status line
    status: str = "unknown"  # pending|in_progress|done|pass|fail|skip|unknown
    status_note: str | None = None
    status_line_no: int | None = None
    source: str | None = None
    tests_raw: str | None = None
    tests_count: int | None = None  # when **Tests:** declares a number
    tests: list[str] = field(default_factory=list)  # when it lists files/names
    test_specs: list[TestSpec] = field(default_factory=list)
    acceptance_ticked: int = 0
    acceptance_total: int = 0
    phases: dict[str, str] = field(default_factory=dict)  # RED/GREEN/REFACTOR -> raw value
    phase_lines: dict[str, int] = field(default_factory=dict)
    depends_on: list[int] = field(default_factory=list)
    blocks: list[int] = field(default_factory=list)
    depends_raw: str | None = None
    blocks_raw: str | None = None
    status_lines: int = 0  # how many Status lines the slice holds

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def phases_filled(self) -> list[str]:
        return [p for p in PHASES if phase_started(self.phases.get(p))]

    @property
    def progressing(self) -> bool:
        """Work has started on it: status beyond pending, or a cycle phase filled in."""
        return self.status in {"in_progress", "done", "pass", "fail", "skip"} or bool(
            self.phases_filled
        )

    @property
    def label(self) -> str:
        return f"slice {self.number}"


@dataclass(slots=True)
class TddPlan:
    task: str | None = None
    header_status_raw: str | None = None
    header_status: str | None = None  # normalised like a slice status; None when absent
    header_status_line_no: int | None = None
    created: str | None = None
    last_updated: str | None = None
    approved: str | None = None  # the marker's value ("" when the marker has no value)
    approved_line_no: int | None = None
    approved_in_header: bool = False
    approval_lookalike_line_no: int | None = None  # a marker-like line the hook rejects
    slices: list[Slice] = field(default_factory=list)
    heading_style: str = "none"  # planner | template | mixed | none
    lock_exists: bool = False  # filled by the caller (load_tdd)
    # sha256 of the exact bytes parsed (filled by load_tdd; None if the file was cut at the read
    # cap): a decision made on what the user saw passes it, so a plan rewritten since is refused
    sha256: str | None = None
    notes: list[str] = field(default_factory=list)
    line_count: int = 0
    # what the stop hook greps see (line numbers, 1-based)
    hook_slice_lines: list[int] = field(default_factory=list)
    hook_terminal_lines: list[int] = field(default_factory=list)

    @property
    def is_approved(self) -> bool:
        return self.approved_line_no is not None

    @property
    def approved_at(self) -> datetime | None:
        """The marker's timestamp (date-only values accepted); None if absent or not a date."""
        return parse_iso(self.approved)

    @property
    def progressing(self) -> list[Slice]:
        return [s for s in self.slices if s.progressing]

    def slice(self, number: int) -> Slice | None:
        for s in self.slices:
            if s.number == number:
                return s
        return None


# ---------------------------------------------------------------------------- parsing


def normalise_status(raw: str | None) -> tuple[str, str | None]:
    """``"DONE (verified)"`` -> ``("done", "verified")``; unknown words -> ``("unknown", ...)``."""
    if raw is None:
        return "unknown", None
    text = _LEADING_JUNK.sub("", raw.replace("*", "").replace("`", "").strip())
    m = _STATUS_WORD.match(text)
    if not m:
        return "unknown", None
    word = re.sub(r"[\s-]+", "_", m.group(1).lower())
    rest = m.group(2).strip()
    note: str | None
    if rest.startswith("(") and ")" in rest:
        note = rest[1 : rest.rindex(")")].strip() or None
    else:
        note = rest.lstrip("—–-:;,. ").strip("()[] ") or None
    return _STATUS_WORDS.get(word, "unknown"), note


def phase_started(value: str | None) -> bool:
    """A RED/GREEN/REFACTOR value that says the phase was reached (anything but a placeholder)."""
    if value is None:
        return False
    text = value.replace("*", "").replace("`", "").strip().lower()
    return text not in _NOT_STARTED


def slice_numbers(text: str) -> list[int]:
    """``"Slice 1, Slices 3-5"`` -> ``[1, 3, 4, 5]``; ``"none"`` -> ``[]``."""
    out: list[int] = []
    for m in _RANGE.finditer(text):
        a, b = int(m.group(1)), int(m.group(2))
        if a <= b and b - a <= 1000:
            out.extend(range(a, b + 1))
    out.extend(int(n) for n in re.findall(r"\d{1,6}", _RANGE.sub(" ", text)))
    seen: set[int] = set()
    return [n for n in out if not (n in seen or seen.add(n))]


def _declared_tests(value: str, s: Slice) -> None:
    s.tests_raw = value
    m = re.match(r"^\s*(\d{1,6})\b", value)
    if m:
        s.tests_count = int(m.group(1))
        return
    items = re.findall(r"`([^`]+)`", value)
    if not items:
        items = [p.strip() for p in re.split(r"[,;]", value) if p.strip()]
    s.tests = [clean(i) for i in items][:100]


def parse_progress(text: str | bytes) -> TddPlan:
    """Parse ``.tdd-progress.md``. Never raises: anything it cannot read becomes a note.

    Bytes are what the plugin's hook reads, so they are the truth: a ``str`` is encoded first.
    Lines are split on the raw bytes and each is decoded and cleaned on its own, so line numbers
    agree with the hook's (an unterminated escape sequence cannot swallow a newline).
    """
    plan = TddPlan()
    try:
        if isinstance(text, str):
            text = text.encode("utf-8", errors="replace")
        if not isinstance(text, bytes | bytearray):
            plan.notes.append(f"not text: {type(text).__name__}")
            return plan
        _parse(bytes(text), plan)
    except Exception as exc:  # defensive: untrusted input must never take the dashboard down
        plan.notes.append(f"parse stopped: {type(exc).__name__}")
    return plan


def _approval(raw: bytes, plan: TddPlan) -> int | None:
    """Record the hook's approval marker (and a rejected lookalike); its 0-based line index."""
    lookalike = lookalike_line(raw)
    if lookalike is not None:
        plan.approval_lookalike_line_no = lookalike + 1
        plan.notes.append(
            f"line {lookalike + 1}: looks like an Approved marker but the stop hook does not "
            "accept it (it must start the line: no bullet, indentation or `**Approved**:`)"
        )
    found = find_approval(raw)
    if found is None:
        return None
    index, value = found
    plan.approved = clean(value.decode("utf-8", errors="replace")).strip("* \t\r")
    plan.approved_line_no = index + 1
    if parse_iso(plan.approved) is None:
        plan.notes.append(f"line {index + 1}: Approved marker without a timestamp")
    return index


def _decode_line(line: bytes, first: bool) -> str:
    return clean(line.decode("utf-8-sig" if first else "utf-8", errors="replace"))


def _parse(raw: bytes, plan: TddPlan) -> None:
    approved_index = _approval(raw, plan)
    lines = [_decode_line(line, i == 0) for i, line in enumerate(raw.split(b"\n"))]
    plan.line_count = len(lines)
    in_fence = False
    in_header = True  # until the first level-2 heading
    current: Slice | None = None
    test: TestSpec | None = None
    in_acceptance = False
    seen_numbers: set[int] = set()
    for idx, line in enumerate(lines):
        n = idx + 1
        if HOOK_SLICE_RE.match(line):
            plan.hook_slice_lines.append(n)
        if HOOK_TERMINAL_RE.search(line):
            plan.hook_terminal_lines.append(n)
        if len(line) > 10_000:
            continue  # no real field is that long; skip the regexes on junk
        if idx == approved_index:
            plan.approved_in_header = in_header and not in_fence
            if not plan.approved_in_header:
                plan.notes.append(f"line {n}: Approved marker outside the header")
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        hm = _HEADING.match(line)
        if hm:
            level = len(hm.group(1))
            title = hm.group(2)
            if level >= 2:
                in_header = False
            if current is not None and level <= current.level:
                current = None
            test = None
            in_acceptance = "acceptance criteria" in title.lower()
            sm = _SLICE_HEADING.match(title) if level >= 2 else None
            if sm:  # a slice never nests another: a slice heading at any level starts one
                number = int(sm.group(1))
                current = Slice(number, shorten(sm.group(2), 200), level, n)
                if number in seen_numbers:
                    plan.notes.append(f"line {n}: slice {number} appears twice")
                seen_numbers.add(number)
                plan.slices.append(current)
                in_acceptance = False
                continue
            if level == 1 and plan.task is None:
                plan.task = re.sub(r"^tdd\s+task\s*:\s*", "", title, flags=re.I) or title
                continue
            if current is not None:
                tm = _TEST_HEADING.match(title)
                if tm:
                    test = TestSpec(int(tm.group(1)), shorten(tm.group(2), 200), n)
                    current.test_specs.append(test)
            continue
        if current is None:
            if in_header:
                _header_field(line, n, plan)
            continue
        _slice_line(line, n, current, test, in_acceptance, plan)
        if "acceptance criteria" in line.lower() and not _CHECKBOX.match(line):
            in_acceptance = True
    styles = {"planner" if s.level == 2 else "template" for s in plan.slices}
    plan.heading_style = "mixed" if len(styles) > 1 else (styles.pop() if styles else "none")


def _header_field(line: str, n: int, plan: TddPlan) -> None:
    fm = _FIELD.match(line)
    if not fm:
        return
    key, value = fm.group(1).strip().lower(), fm.group(2).strip()
    if key == "status" and plan.header_status_line_no is None:
        plan.header_status_raw = value
        plan.header_status = normalise_status(value)[0]
        plan.header_status_line_no = n
    elif key == "created" and plan.created is None:
        plan.created = value
    elif key == "last updated" and plan.last_updated is None:
        plan.last_updated = value


def _slice_line(
    line: str, n: int, s: Slice, test: TestSpec | None, in_acceptance: bool, plan: TddPlan
) -> None:
    cb = _CHECKBOX.match(line)
    if cb:
        if in_acceptance:
            s.acceptance_total += 1
            s.acceptance_ticked += cb.group(1) in "xX"
        return
    if test is not None:
        g = _GWT.match(line)
        if g:
            setattr(test, g.group(1).lower(), True)
    low = line.lower()
    if "depends on" in low or "blocks" in low:
        dm = _DEPENDS.search(line)
        bm = _BLOCKS.search(line)
        if dm and s.depends_raw is None:
            s.depends_raw = dm.group(1).strip(" *")
            s.depends_on = slice_numbers(s.depends_raw)
        if bm and s.blocks_raw is None:
            s.blocks_raw = bm.group(1).strip(" *")
            s.blocks = slice_numbers(s.blocks_raw)
        if dm or bm:
            return
    fm = _FIELD.match(line)
    if not fm:
        return
    key, value = fm.group(1).strip(), fm.group(2).strip()
    upper = key.upper()
    if upper in PHASES:
        if upper not in s.phases:
            s.phases[upper] = value
            s.phase_lines[upper] = n
        return
    key = key.lower()
    if key == "status":
        s.status_lines += 1
        if s.status_line_no is None:
            s.status_raw = value
            s.status, s.status_note = normalise_status(value)
            s.status_line_no = n
        else:
            plan.notes.append(f"line {n}: {s.label} has another Status line (ignored)")
    elif key == "source" and s.source is None:
        s.source = value.replace("`", "").strip() or None
    elif key == "tests" and s.tests_raw is None:
        _declared_tests(value, s)


# ---------------------------------------------------------------------------- counts


@dataclass(frozen=True, slots=True)
class StopHookView:
    total: int  # lines matching the hook's `## Slice|Step N` grep
    terminal: int  # lines matching its `status: pass|done|complete|fail|skip` grep
    remaining: int  # total - terminal (0 when total is 0, as the hook exits early)
    blocks_stop: bool  # the hook would refuse the session's end


def stop_hook_view(text: str) -> StopHookView:
    """What ``check-tdd-progress.sh`` computes on ``text`` (its greps, per line, any case)."""
    total = terminal = 0
    for line in text.split("\n"):
        if HOOK_SLICE_RE.match(line):
            total += 1
        if HOOK_TERMINAL_RE.search(line):
            terminal += 1
    if total == 0:
        return StopHookView(0, terminal, 0, False)
    remaining = total - terminal
    return StopHookView(total, terminal, remaining, remaining > 0)


def stop_hook_count(text: str) -> int:
    """The hook's REMAINING (may be negative: the hook then lets the session stop)."""
    return stop_hook_view(text).remaining


def plan_hook_view(plan: TddPlan) -> StopHookView:
    """:func:`stop_hook_view` of the text ``plan`` was parsed from (the parser records the
    lines the hook's greps match, so the file need not be read again)."""
    return _plan_hook_view(plan)


def _plan_hook_view(plan: TddPlan) -> StopHookView:
    total, terminal = len(plan.hook_slice_lines), len(plan.hook_terminal_lines)
    if total == 0:
        return StopHookView(0, terminal, 0, False)
    return StopHookView(total, terminal, total - terminal, total - terminal > 0)


def true_remaining(plan: TddPlan) -> int:
    """Slices not done/pass/skip (a failed or unknown-status slice is still remaining)."""
    return sum(1 for s in plan.slices if not s.finished)


# ---------------------------------------------------------------------------- rules

R_UNAPPROVED = rule(
    "TDD-UNAPPROVED-PROGRESS",
    Severity.ERROR,
    "Slices are being implemented but the plan has no Approved: marker.",
    seed="004 (unapproved plan cascade)",
    fix="Stop implementing; review the plan and add `**Approved:** <timestamp>` only if approved.",
    scope="tdd",
)
R_LOCK_AFTER = rule(
    "TDD-LOCK-AFTER-APPROVAL",
    Severity.WARNING,
    "The plan is approved but .tdd-plan-locked still exists.",
    seed="004 / FORMATS 2 (.tdd-plan-locked)",
    fix="`rm .tdd-plan-locked` (the only allowed removal) once the approval is genuine.",
    scope="tdd",
)
R_LOCK_PROGRESS = rule(
    "TDD-LOCK-PROGRESS",
    Severity.ERROR,
    "Slices progress while .tdd-plan-locked says the plan is not yet approved.",
    seed="004 (lock gate bypassed)",
    fix="Stop implementing; the lock gate was bypassed (e.g. a `| tee` write). Re-plan and approve.",
    scope="tdd",
)
R_HEADER = rule(
    "TDD-HEADER-CONTRADICTS",
    Severity.WARNING,
    "The header **Status:** contradicts the slices.",
    seed="FORMATS 2 (.tdd-progress.md header)",
    fix="Update the header Status to match the slices (a header `done` also fools the stop hook).",
    scope="tdd",
)
R_DEP_ORDER = rule(
    "TDD-DEPENDENCY-ORDER",
    Severity.WARNING,
    "A slice is finished before a slice it depends on.",
    seed="004 (slice dependencies)",
    fix="Check the dependency really was satisfied; otherwise reopen the slice.",
    scope="tdd",
)
R_HOOK_MISCOUNT = rule(
    "TDD-HOOK-MISCOUNT",
    Severity.WARNING,
    "The plugin's stop hook counts a different number of remaining slices than the file holds.",
    seed="FORMATS 2 (stop hook counting)",
    fix="Use `## Slice N:` headings and keep only slice Status lines terminal.",
    scope="tdd",
)
R_UNKNOWN_STATUS = rule(
    "TDD-UNKNOWN-STATUS",
    Severity.INFO,
    "A status value is missing or not one of the known words.",
    seed="FORMATS 2 (status words)",
    fix="Use pending, in-progress, done, pass, fail or skip.",
    scope="tdd",
)
R_NO_SLICES = rule(
    "TDD-NO-SLICES",
    Severity.WARNING,
    "The progress file exists but holds no `## Slice N:` / `### Slice N:` headings.",
    seed="FORMATS 2 (slice headings)",
    fix="The plan was not written completely (or uses another format); re-run the planner.",
    scope="tdd",
)


def _progress_path(s: Slice) -> tuple[str, str]:
    """Where a slice's progress shows: (path, description)."""
    if s.status in {"in_progress", "done", "pass", "fail", "skip"}:
        return f"{s.label}.status", f"status {s.status_raw}"
    filled = s.phases_filled
    return f"{s.label}.{filled[0]}", f"{filled[0]} {s.phases[filled[0]]}"


def audit_tdd(plan: TddPlan, source: str) -> list[Finding]:
    out: list[Finding] = []
    progressing = plan.progressing
    if not plan.slices:
        out.append(
            make(
                R_NO_SLICES,
                source=source,
                path="$",
                expected="## Slice N: … or ### Slice N: …",
                actual=f"{plan.line_count} lines, no slice headings",
                message=f"{source} holds no slices; nothing for /tdd-implement or the stop hook.",
            )
        )
    if progressing and not plan.is_approved:
        first = progressing[0]
        path, what = _progress_path(first)
        out.append(
            make(
                R_UNAPPROVED,
                source=source,
                path=path,
                expected="an Approved: marker before implementation",
                actual=what,
                message=f"{len(progressing)} slice(s) progressing "
                f"({', '.join(str(s.number) for s in progressing[:8])}) on an unapproved plan.",
            )
        )
    if plan.lock_exists and plan.is_approved:
        out.append(
            make(
                R_LOCK_AFTER,
                source=source,
                path="header.Approved",
                expected="no .tdd-plan-locked after approval",
                actual=".tdd-plan-locked exists",
                message=f"Approved ({plan.approved or 'no value'}) but .tdd-plan-locked still "
                "exists: writes stay blocked and the lock contradicts the marker.",
            )
        )
    if plan.lock_exists and progressing:
        first = progressing[0]
        path, what = _progress_path(first)
        out.append(
            make(
                R_LOCK_PROGRESS,
                source=source,
                path=path,
                expected="no progress while .tdd-plan-locked exists",
                actual=what,
                message=f"{len(progressing)} slice(s) progressing while .tdd-plan-locked exists.",
            )
        )
    remaining = true_remaining(plan)
    if plan.slices and plan.header_status is not None:
        if plan.header_status == "done" and remaining:
            out.append(
                make(
                    R_HEADER,
                    source=source,
                    path="header.Status",
                    expected=f"not done: {remaining} slice(s) remain",
                    actual=plan.header_status_raw,
                    message=f"Header says {plan.header_status_raw!r} but {remaining} of "
                    f"{len(plan.slices)} slice(s) are not done/pass/skip.",
                )
            )
        elif plan.header_status == "pending" and remaining == 0:
            out.append(
                make(
                    R_HEADER,
                    source=source,
                    path="header.Status",
                    expected="done",
                    actual=plan.header_status_raw,
                    message=f"Header says {plan.header_status_raw!r} but all "
                    f"{len(plan.slices)} slice(s) are finished.",
                )
            )
    out.extend(_dependency_findings(plan, source))
    out.extend(_miscount_findings(plan, source, remaining))
    unknown = [s for s in plan.slices if s.status == "unknown"]
    if unknown:
        first = unknown[0]
        out.append(
            make(
                R_UNKNOWN_STATUS,
                source=source,
                path=f"{first.label}.status",
                expected="pending|in-progress|done|pass|fail|skip",
                actual=first.status_raw,
                message=f"{len(unknown)} slice(s) with "
                + ("no Status line" if first.status_raw is None else "an unknown status")
                + f": slice {', '.join(str(s.number) for s in unknown[:8])}"
                + (f" ({first.status_raw!r})" if first.status_raw is not None else ""),
            )
        )
    if plan.header_status == "unknown":
        out.append(
            make(
                R_UNKNOWN_STATUS,
                source=source,
                path="header.Status",
                expected="pending|in-progress|done",
                actual=plan.header_status_raw,
                message=f"Header status {plan.header_status_raw!r} is not a known word.",
            )
        )
    return out


def _dependency_findings(plan: TddPlan, source: str) -> list[Finding]:
    by_number = {s.number: s for s in plan.slices}
    edges: list[tuple[Slice, Slice]] = []  # (prerequisite, dependent)
    for s in plan.slices:
        for d in s.depends_on:
            if d in by_number and d != s.number:
                edges.append((by_number[d], s))
        for b in s.blocks:
            if b in by_number and b != s.number:
                edges.append((s, by_number[b]))
    bad: list[tuple[Slice, Slice]] = []
    seen: set[tuple[int, int]] = set()
    for pre, dep in edges:
        key = (pre.number, dep.number)
        if key in seen:
            continue
        seen.add(key)
        if dep.status in {"done", "pass"} and not pre.finished:
            bad.append((pre, dep))
    if not bad:
        return []
    pre, dep = bad[0]
    return [
        make(
            R_DEP_ORDER,
            source=source,
            path=f"{dep.label}.status",
            expected=f"slice {pre.number} finished first",
            actual=f"slice {pre.number} is {pre.status_raw or 'without status'}",
            message=f"{len(bad)} slice(s) finished before their prerequisites: "
            + ", ".join(f"{d.number} before {p.number}" for p, d in bad[:6]),
        )
    ]


def _miscount_findings(plan: TddPlan, source: str, remaining: int) -> list[Finding]:
    hook = _plan_hook_view(plan)
    effective = max(0, hook.remaining)
    if effective == remaining:
        return []
    reasons: list[str] = []
    uncounted = [s for s in plan.slices if s.level != 2]
    if uncounted:
        reasons.append(f"{len(uncounted)} `###`-level slice heading(s) are not counted by the hook")
    extra_headings = len(plan.hook_slice_lines) - (len(plan.slices) - len(uncounted))
    if extra_headings > 0:
        reasons.append(f"{extra_headings} other `## Slice|Step` line(s) are counted as slices")
    own = {s.status_line_no for s in plan.slices if s.status_line_no is not None}
    foreign = [n for n in plan.hook_terminal_lines if n not in own]
    if plan.header_status_line_no in foreign:
        reasons.append(f"the header Status ({plan.header_status_raw!r}) is subtracted as a slice")
    others = [n for n in foreign if n != plan.header_status_line_no]
    if others:
        reasons.append(
            f"{len(others)} other terminal `status:` line(s) are subtracted "
            f"(lines {', '.join(map(str, others[:5]))})"
        )
    failed = [s for s in plan.slices if s.status == "fail"]
    if failed:
        reasons.append(f"{len(failed)} failed slice(s) count as finished for the hook")
    if hook.total == 0 and plan.slices:
        reasons.append("with no `## Slice` heading the hook exits early and counts nothing")
    decision = "blocks the stop" if hook.blocks_stop else "lets the session stop"
    return [
        make(
            R_HOOK_MISCOUNT,
            source=source,
            path="$",
            expected=remaining,
            actual=hook.remaining,
            message=f"Stop hook counts {hook.remaining} remaining ({hook.total} headings − "
            f"{hook.terminal} terminal status lines) and {decision}; the file has {remaining} "
            f"remaining. " + ("; ".join(reasons) + "." if reasons else ""),
        )
    ]


# ---------------------------------------------------------------------------- loading


def load_tdd(project: Project) -> tuple[TddPlan | None, list[Finding]]:
    """Read, parse and audit the project's ``.tdd-progress.md``; (None, []) when absent."""
    path = project.tdd_progress
    source = project.rel(path)
    raw, error = read_bytes(path, max_bytes=TDD_MAX_BYTES)
    if raw is None:
        if error == "file not found":
            return None, []
        return None, [
            make(
                R_UNREADABLE,
                source=source,
                path="$",
                expected="a readable file",
                actual=error,
                message=f"{source}: unreadable ({error}).",
            )
        ]
    plan = parse_progress(raw)
    if len(raw) < TDD_MAX_BYTES:
        plan.sha256 = hashlib.sha256(raw).hexdigest()
    try:
        plan.lock_exists = project.tdd_lock.exists()
    except OSError:
        plan.lock_exists = False
    return plan, audit_tdd(plan, source)
