"""The parsed ``.tdd-progress.md``: slices, their statuses and cycle phases, the header.

The status words follow the plugin: ``pass``, ``done`` (``complete``), ``fail`` and ``skip`` are
terminal for its stop hook and its releaser (``agents/tdd-releaser.md``: "every slice has a
terminal status (pass, done, complete, fail, or skip)"), so a failed slice is finished, not
remaining; an unknown or missing status is remaining.
"""

from __future__ import annotations

import re
from datetime import datetime

from msgspec import Struct, field

from ..protocol import parse_iso
from .hook import StopHookView

STATUSES = ("pending", "in_progress", "done", "pass", "fail", "skip")
FINISHED = frozenset({"done", "pass", "fail", "skip"})  # terminal for the plugin: not remaining
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


class TestSpec(Struct):
    """A ``#### Test N:`` inside a slice, and which of Given/When/Then it spells out."""

    number: int
    name: str
    line_no: int
    given: bool = False
    when: bool = False
    then: bool = False


class Slice(Struct, gc=False):
    """A slice. Not tracked by the cyclic collector (it holds no cycle), its number lists are
    tuples (a list is tracked even when empty): a plan at the read cap holds 200,000 slices,
    whose five tracked objects each made the collector's passes 40 % of the parse."""

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
    tests: tuple[str, ...] = ()  # when it lists files/names
    test_specs: list[TestSpec] = field(default_factory=list)
    acceptance_ticked: int = 0
    acceptance_total: int = 0
    phases: dict[str, str] = field(default_factory=dict)  # RED/GREEN/REFACTOR -> raw value
    phase_lines: dict[str, int] = field(default_factory=dict)
    depends_on: tuple[int, ...] = ()
    blocks: tuple[int, ...] = ()
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


class TddPlan(Struct):
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
    # the bytes parsed when the file is over the read cap (the structure is cut there; the hook's
    # verdict is not: load_tdd streams the whole file for it); None when it was read whole
    cut_at: int | None = None
    notes: list[str] = field(default_factory=list)
    line_count: int = 0
    # what the plugin's stop hook decides on the same bytes (filled by the parser)
    hook: StopHookView = field(default_factory=lambda: StopHookView(approved=False))

    @property
    def is_approved(self) -> bool:
        """Approved as the stop hook (and ``approve``) sees it: see :mod:`.approval`."""
        return self.approved_line_no is not None or self.hook.approved

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


_LEADING_JUNK = re.compile(r"^[\W_]+")
_STATUS_WORD = re.compile(r"^(in[\s_-]*progress|not[\s_-]+started|[A-Za-z]+)\s*(.*)$", re.I | re.S)
_SEPARATORS = re.compile(r"[\s-]+")
_RANGE = re.compile(r"(\d{1,6})\s*(?:-|–|—|\.\.|to)\s*(\d{1,6})")


def normalise_status(raw: str | None) -> tuple[str, str | None]:
    """``"DONE (verified)"`` -> ``("done", "verified")``; unknown words -> ``("unknown", ...)``."""
    if raw is None:
        return "unknown", None
    text = _LEADING_JUNK.sub("", raw.replace("*", "").replace("`", "").strip())
    m = _STATUS_WORD.match(text)
    if not m:
        return "unknown", None
    word = _SEPARATORS.sub("_", m.group(1).lower())
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
    return list(dict.fromkeys(out))  # each once, first occurrence first
