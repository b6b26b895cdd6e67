"""Reading ``.tdd-progress.md`` (docs/formats.md#progress-file) into a :class:`.TddPlan`.

The Markdown (no YAML) tolerates both slice heading styles (``## Slice N:`` planner style,
``### Slice N:`` template style; a heading may be indented up to three spaces, as in Markdown),
loose status spellings and any junk; parsing never raises. The approval marker and the stop
hook's verdict come from the raw bytes (:mod:`.approval`, :mod:`.hook`), the structure from the
decoded, cleaned lines: both are numbered alike because the bytes are split at ``\\n`` first.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct, field

from ..files.read import read_fd
from ..findings import Finding, make
from ..log import internal_failure
from ..protocol import parse_iso
from ..sources import R_UNREADABLE, Project, read_bytes
from ..text import clean, shorten
from .approval import find_approval, lookalike_line
from .hook import stop_hook_view, stream_hook_view
from .model import PHASES, Slice, TddPlan, TestSpec, normalise_status, slice_numbers
from .rules import audit_tdd

TDD_MAX_BYTES = 8 * 1024 * 1024  # a plan is a few KB; past this it is cut (and not hashed)

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s*(.*?)\s*#*\s*$")
_SLICE_HEADING = re.compile(r"^(?:slice|step)\s+(\d{1,9})\b\s*[:.)\-—–]?\s*(.*)$", re.I)
_TEST_HEADING = re.compile(r"^test\s+(\d{1,9})\b\s*[:.)\-—–]?\s*(.*)$", re.I)
_FIELD = re.compile(
    r"^\s*(?:[-*+]\s+)?\*{0,2}\s*([A-Za-z][A-Za-z /]{0,40}?)\s*\*{0,2}\s*:\s*\*{0,2}\s*(.*?)\s*$"
)
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[([ xX])\]")
_DEPENDS = re.compile(r"depends\s+on\s*\*{0,2}\s*:\s*\*{0,2}\s*([^|]*)", re.I)
_BLOCKS = re.compile(r"\bblocks\s*\*{0,2}\s*:\s*\*{0,2}\s*([^|]*)", re.I)
_GWT = re.compile(r"^\s*(?:[-*+]\s+)?\*{0,2}\s*(given|when|then)\b", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)")


def _declared_tests(value: str, s: Slice) -> None:
    s.tests_raw = value
    m = re.match(r"^\s*(\d{1,6})\b", value)
    if m:
        s.tests_count = int(m.group(1))
        return
    items = re.findall(r"`([^`]+)`", value)
    if not items:
        items = [p.strip() for p in re.split(r"[,;]", value) if p.strip()]
    s.tests = tuple(clean(i) for i in items[:100])


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
        internal_failure(__name__, "the progress file's parser raised", exc)
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
    plan.hook = stop_hook_view(raw)
    # (decoded one at a time: a file at the read cap holds 500,000 lines, ~30 MB as strings)
    lines = (_decode_line(line, i == 0) for i, line in enumerate(raw.split(b"\n")))
    plan.line_count = raw.count(b"\n") + 1
    walk = _Walk(plan)
    in_fence = False
    for idx, line in enumerate(lines):
        n = idx + 1
        if len(line) > 10_000:
            continue  # no real field is that long; skip the regexes on junk
        if idx == approved_index:
            plan.approved_in_header = walk.in_header and not in_fence
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
            walk.heading(len(hm.group(1)), hm.group(2), n)
        else:
            walk.body(line, n)
    styles = {"planner" if s.level == 2 else "template" for s in plan.slices}
    plan.heading_style = "mixed" if len(styles) > 1 else (styles.pop() if styles else "none")


class _Walk(Struct):
    """Where the parser is: the header, a slice, a test inside it, its acceptance criteria."""

    plan: TddPlan
    in_header: bool = True  # until the first level-2 heading
    current: Slice | None = None
    test: TestSpec | None = None
    in_acceptance: bool = False
    seen: set[int] = field(default_factory=set)

    def heading(self, level: int, title: str, n: int) -> None:
        if level >= 2:
            self.in_header = False
        if self.current is not None and level <= self.current.level:
            self.current = None
        self.test = None
        self.in_acceptance = "acceptance criteria" in title.lower()
        sm = _SLICE_HEADING.match(title) if level >= 2 else None
        if sm:  # a slice never nests another: a slice heading at any level starts one
            self._start_slice(int(sm.group(1)), sm.group(2), level, n)
        elif level == 1 and self.plan.task is None:
            self.plan.task = re.sub(r"^tdd\s+task\s*:\s*", "", title, flags=re.I) or title
        elif self.current is not None:
            tm = _TEST_HEADING.match(title)
            if tm:
                self.test = TestSpec(int(tm.group(1)), shorten(tm.group(2), 200), n)
                self.current.test_specs.append(self.test)

    def _start_slice(self, number: int, name: str, level: int, n: int) -> None:
        self.current = Slice(number, shorten(name, 200), level, n)
        if number in self.seen:
            self.plan.notes.append(f"line {n}: slice {number} appears twice")
        self.seen.add(number)
        self.plan.slices.append(self.current)
        self.in_acceptance = False

    def body(self, line: str, n: int) -> None:
        if self.current is None:
            if self.in_header:
                _header_field(line, n, self.plan)
            return
        _slice_line(line, n, self.current, self.test, self.in_acceptance, self.plan)
        if "acceptance criteria" in line.lower() and not _CHECKBOX.match(line):
            self.in_acceptance = True


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
            s.depends_on = tuple(slice_numbers(s.depends_raw))
        if bm and s.blocks_raw is None:
            s.blocks_raw = bm.group(1).strip(" *")
            s.blocks = tuple(slice_numbers(s.blocks_raw))
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


def _chunks(path: Path, size: int = 1 << 20) -> Iterator[bytes]:
    """The whole regular file, a chunk at a time (never a FIFO or a device)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        offset = 0
        while chunk := read_fd(fd, size, offset):
            yield chunk
            offset += len(chunk)
    finally:
        os.close(fd)


def _over_cap(path: Path, plan: TddPlan, parsed: int) -> None:
    """A file over the read cap: its structure is the first ``parsed`` bytes; the stop hook's
    verdict comes from all of it, as the hook greps all of it."""
    plan.cut_at = parsed
    try:
        plan.hook = stream_hook_view(_chunks(path))
    except OSError as exc:
        plan.notes.append(
            f"over the read cap and not streamed ({exc}): the hook's verdict is "
            f"on the first {parsed:,} bytes only"
        )
        return
    plan.notes.append(
        f"over the read cap ({parsed:,} bytes): slices shown from the first {parsed:,} bytes; "
        "the stop hook's verdict is on the whole file, read in chunks as the hook greps it"
    )


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
    else:
        _over_cap(path, plan, len(raw))
    try:
        plan.lock_exists = project.tdd_lock.exists()
    except OSError:
        plan.lock_exists = False
    return plan, audit_tdd(plan, source)
