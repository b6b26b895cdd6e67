"""The TDD plugin player (docs/formats.md#tdd-workflow-plugin): the planner writes
``.tdd-progress.md``, waits for an ``**Approved:**`` line written by someone else, then slices go
RED -> GREEN -> REFACTOR -> done."""

from __future__ import annotations

import re
from collections.abc import Generator
from typing import TYPE_CHECKING

from msgspec import Struct, field

from .files import write_text
from .types import SimulationError, StepEvent

if TYPE_CHECKING:
    from .player import Simulator

Steps = Generator[StepEvent, None, str]

PROGRESS = ".tdd-progress.md"
LOCK = ".tdd-plan-locked"
APPROVED = re.compile(r"^[ \t]*(?:\*\*)?approved:(?:\*\*)?[ \t]*(\S.*)$", re.I | re.M)

TASKS = (
    (
        "Rate limit middleware",
        "rate-limit",
        [
            ("Token bucket core", "src/ratelimit/bucket.ts", "tests/ratelimit/bucket.test.ts"),
            ("Per-client key extraction", "src/ratelimit/keys.ts", "tests/ratelimit/keys.test.ts"),
            ("Redis store adapter", "src/ratelimit/store.ts", "tests/ratelimit/store.test.ts"),
            (
                "429 response and headers",
                "src/ratelimit/middleware.ts",
                "tests/ratelimit/middleware.test.ts",
            ),
            ("Configuration loading", "src/ratelimit/config.ts", "tests/ratelimit/config.test.ts"),
        ],
    ),
    (
        "Fix auto-compaction unapproved plan cascade",
        "unapproved-plan-cascade",
        [
            (
                "Pipe bypass detection in bash guard",
                "hooks/planner-bash-guard.sh",
                "test/hooks/planner_bash_guard_test.sh",
            ),
            (
                "Lock-file gate + rm exception in bash guard",
                "hooks/planner-bash-guard.sh",
                "test/hooks/planner_bash_guard_test.sh",
            ),
            (
                "Lock lifecycle — creation and cleanup",
                "hooks/validate-plan-output.sh",
                "test/hooks/validate_plan_output_test.sh",
            ),
            (
                "Approval marker + simplified messaging",
                "hooks/check-tdd-progress.sh",
                "test/hooks/check_tdd_progress_test.sh",
            ),
            (
                "Prompt updates — approval flow",
                "skills/tdd-plan/SKILL.md",
                "test/hooks/check_tdd_progress_test.sh",
            ),
            ("Update hook checksums", "hooks/hooks.json", "test/hooks/planner_bash_guard_test.sh"),
        ],
    ),
)


class Slice(Struct):
    number: int
    name: str
    source: str
    tests: str
    depends: str
    blocks: str
    status: str = "pending"
    red: str = "pending"
    green: str = "pending"
    refactor: str = "pending"
    cases: list[tuple[str, str, str, str]] = field(default_factory=list)


class TddRun:
    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        sim.phases = []
        rng = sim.rng
        self.name, self.slug, specs = rng.choice(TASKS)
        start = rng.choice((1, 1, 1, 3))  # numbering may not start at 1
        count = len(specs)
        self.slices: list[Slice] = []
        for i, (name, source, tests) in enumerate(specs):
            n = start + i
            slice_ = Slice(
                n,
                name,
                source,
                tests,
                depends="None" if i == 0 else f"Slice {n - 1}",
                blocks=f"Slice {n + 1}" if i + 1 < count else "None",
            )
            for t in range(1, rng.randint(2, 3) + 1):
                slice_.cases.append(
                    (
                        f"{name.lower()} case {t}",
                        f"Given the {name.lower()} is configured",
                        f"When scenario {t} runs",
                        "Then the expected outcome is observed",
                    )
                )
            self.slices.append(slice_)
        self.status = "pending"
        self.created = ""
        self.updated = ""
        self.approved: str | None = None
        self.path = sim.root / PROGRESS
        self.lock = sim.root / LOCK

    def prepare(self) -> None:
        if self.path.exists() and not self.sim.config.reuse:
            raise SimulationError(
                f"{self.path} already exists; use an empty directory (or --reuse to overwrite it)"
            )

    def plan(self) -> None:
        return None

    # ------------------------------------------------------------------ rendering
    def render(self) -> str:
        lines = [
            f"# TDD Task: {self.name}",
            "",
            f"**Status:** {self.status}",
            f"**Created:** {self.created}",
            f"**Last Updated:** {self.updated}",
        ]
        if self.approved:
            lines.append(f"**Approved:** {self.approved}")
        lines += [
            "",
            "---",
            "",
            "## Overview",
            "",
            f"Implement {self.name.lower()} as {len(self.slices)} independently testable slices.",
            "",
            "**Test Framework:** bashunit"
            if "hooks" in self.slices[0].source
            else "**Test Framework:** vitest",
            "**Test Command:** bashunit test/hooks/"
            if "hooks" in self.slices[0].source
            else "**Test Command:** npx vitest run",
            "",
            "---",
            "",
        ]
        for s in self.slices:
            lines += [
                f"## Slice {s.number}: {s.name}",
                "",
                f"**Status:** {s.status}",
                f"**Source:** `{s.source}`",
                f"**Tests:** `{s.tests}`",
                "",
            ]
            for i, (title, given, when, then) in enumerate(s.cases, start=1):
                lines += [f"### Test {i}: {title}", "", given, when, then, ""]
            lines += [
                "**Acceptance Criteria:**",
                f"- [ ] {s.name} behaves as specified",
                "- [ ] Existing tests keep passing",
                "",
                "**Phase Tracking:**",
                f"- **RED:** {s.red}",
                f"- **GREEN:** {s.green}",
                f"- **REFACTOR:** {s.refactor}",
                "",
                f"**Depends on:** {s.depends} | **Blocks:** {s.blocks}",
                "",
                "---",
                "",
            ]
        return "\n".join(lines)

    def write(self, name: str, detail: str = "", fault: str | None = None) -> StepEvent:
        sim = self.sim
        self.updated = sim.now_iso()
        text = self.render()
        write_text(self.path, text)
        return sim.emit_file(name, self.path, text=text, detail=detail, fault=fault, counted=True)

    # ------------------------------------------------------------------ the run
    def play(self) -> Steps:
        sim = self.sim
        sim.pace("quick")
        now = sim.now_iso()
        self.created = self.updated = now
        if sim.config.tdd_lock:
            self.lock.touch()
            yield sim.emit_file("tdd-lock", self.lock, detail="SubagentStart created the lock")
        archive = (
            sim.root
            / "planning"
            / f"{now[:10].replace('-', '')}_{now[11:16].replace(':', '')}_{self.slug}.md"
        )
        archive_text = (
            f"# Feature Notes: {self.slug}\n\n**Created:** {now[:10]}\n**Status:** Planning\n\n"
            "> Read-only planning archive produced by the tdd-planner agent. Live status is in "
            "`.tdd-progress.md`.\n\n## TDD Approach\n\n"
            f"**Test Framework:** vitest\n**Test Command:** npx vitest run\n"
        )
        write_text(archive, archive_text)
        yield sim.emit_file("tdd-archive", archive, text=archive_text, counted=True)
        sim.pace("write")
        yield self.write("tdd-plan", f"{len(self.slices)} slices planned, awaiting approval")

        skipped = any(f.override(sim, "tdd-approval", None) for f in sim.faults)
        fault = next((f.name for f in sim.faults if f.fired and "tdd" in f.systems), None)
        if not skipped:
            status = yield from self.await_approval()
            if status != "ok":
                return status
            if self.lock.exists():
                sim.pace("quick")
                try:  # `rm -f`: whoever wrote the approval (phasewatch does) may have removed it
                    self.lock.unlink()
                except FileNotFoundError:
                    pass
                else:
                    yield sim.emit_file("tdd-unlock", self.lock, detail="rm .tdd-plan-locked")

        self.status = "in-progress"
        for s in self.slices:
            if sim.stopping:
                return "stopped"
            for attr, value, label in (
                ("status", "in-progress", "started"),
                ("red", "done", "RED: failing tests written"),
                ("green", "done", "GREEN: tests pass"),
                ("refactor", "done", "REFACTOR: cleaned up"),
                ("status", "done", "done"),
            ):
                setattr(s, attr, value)
                sim.pace("write")
                yield self.write(
                    "tdd-slice", f"Slice {s.number}: {label}", fault=fault if skipped else None
                )
                yield from sim.fire_after("tdd-slice", None)
        self.status = "done"
        sim.pace("quick")
        yield self.write("tdd-done", "all slices done")
        return "completed"

    def await_approval(self) -> Steps:
        sim = self.sim
        if sim.config.auto_decide:
            sim.pace("think")
            text = self.path.read_text(encoding="utf-8")
            stamp = sim.now_iso()
            text = re.sub(
                r"^(\*\*Last Updated:\*\*.*)$",
                lambda m: f"{m.group(1)}\n**Approved:** {stamp}",
                text,
                count=1,
                flags=re.M,
            )
            write_text(self.path, text)
            yield sim.emit_file("decide:approve", self.path, text=text, counted=True)

        def check() -> str | None:
            try:
                text = self.path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            match = APPROVED.search(text)
            return match.group(1).strip() if match else None

        status, value = sim.wait_until(check)
        if status != "ok":
            return status
        self.approved = value.removeprefix("**").strip() if isinstance(value, str) else value
        if not sim.config.auto_decide:
            yield sim.emit_file("decision:approve", self.path, detail=f"Approved: {value}")
        return "ok"
