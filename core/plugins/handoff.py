"""``plugins/<Name>/.continue-here.md``: YAML front matter plus Markdown sections
(docs/formats.md#handoff-file).

The real system writes more than its contract (docs/formats.md#handoff-file): ideation
handoffs say ``stage: ideation`` and ``status: creative_brief_complete``; its templates stamp
``last_updated: YYYY-MM-DD HH:MM:SS``; its context-resume skill reads
``paused``/``blocked``/``ready`` statuses. Those are valid here.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct, field

from ..checks import Emitter, run_checks
from ..findings import Finding, Severity
from ..text import shorten
from .dates import ParsedDate
from .frontmatter import load_yaml_literal
from .handoff_fields import FIELD_CHECKS
from .markdown import FENCE, HEADING, ascii_words, fix_mojibake, strip_md
from .rules import R_CH_FRONTMATTER, R_CH_SECTION, R_CH_YAML

REQUIRED_SECTIONS = (
    "Current State",
    "Completed So Far",
    "Next Steps",
    "Build Artifacts",
    "Testing Checklist",
    "Context to Preserve",
)
# A resuming agent cannot work without these; the others are absent from the real system's own
# templates (its Stage 0 and ideation handoffs have neither Build Artifacts nor a checklist).
ESSENTIAL_SECTIONS = ("Current State", "Completed So Far", "Next Steps")


class ContinueHere(Struct):
    """``plugins/<Name>/.continue-here.md``: raw fields plus typed ones (None when invalid)."""

    source: str
    directory: str
    front_matter: dict[str, Any] | None = None  # literal text values
    error: str | None = None
    plugin: str | None = None
    stage: int | None = None
    stage_marker: str | None = None  # "ideation", "improvement_planning", "mockup"
    phase: str | None = None
    status: str | None = None
    last_updated: ParsedDate | None = None
    complexity_score: float | None = None
    phased_implementation: bool | None = None
    orchestration_mode: bool | None = None
    next_action: str | None = None
    next_phase: str | None = None
    contract_checksums: dict[str, Any] | None = None
    sections: list[str] = field(default_factory=list)  # heading texts, in order
    missing_sections: list[str] = field(default_factory=list)

    def raw(self, key: str) -> Any:
        return (self.front_matter or {}).get(key)

    def has(self, key: str) -> bool:
        return self.front_matter is not None and key in self.front_matter

    @property
    def stage_label(self) -> str | None:
        """``3`` / ``3.2`` / ``ideation``: where the handoff says the plugin is."""
        if self.phase:
            return self.phase
        return str(self.stage) if self.stage is not None else self.stage_marker

    @property
    def stage0_done(self) -> bool:
        """Past Stage 0 (null complexity/phased are then no longer allowed)."""
        if self.stage is None:
            return False
        return self.stage > 0 or self.status in ("complete", "workflow_complete")


def _front_matter(em: Emitter, ch: ContinueHere, lines: list[str]) -> int:
    """Read the ``---`` block into ``ch.front_matter``; return the first body line's index."""
    start = next((i for i, line in enumerate(lines) if line.strip()), len(lines))
    if start >= len(lines) or lines[start].rstrip() != "---":
        ch.error = "no front matter"
        first = shorten(lines[start]) if start < len(lines) else "empty file"
        em.add(
            R_CH_FRONTMATTER,
            "front_matter",
            f"{ch.source}: no YAML front matter; the workflow cannot be resumed from it.",
            expected="--- YAML ---",
            actual=first,
        )
        return 0
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].rstrip() in ("---", "...")), None
    )
    if end is None:
        ch.error = "unclosed front matter"
        em.add(
            R_CH_FRONTMATTER,
            "front_matter",
            f"{ch.source}: front matter is never closed (no second `---` line).",
            expected="--- ... ---",
            actual="unclosed",
        )
        return 0
    _yaml(em, ch, "\n".join(lines[start + 1 : end]))
    return end + 1


def _yaml(em: Emitter, ch: ContinueHere, text: str) -> None:
    value, error, dups = load_yaml_literal(text)
    if error or not isinstance(value, dict):
        ch.error = error or "not a mapping"
        what = f"invalid YAML: {error}" if error else "front matter is not a mapping of fields"
        actual = error or (type(value).__name__ if value is not None else "empty")
        em.add(
            R_CH_YAML,
            "front_matter",
            f"{ch.source}: {what}.",
            expected="valid YAML" if error else "mapping",
            actual=actual,
        )
        return
    ch.front_matter = value
    for key in dict.fromkeys(dups):
        em.add(
            R_CH_YAML,
            f"front_matter.{key}",
            f"{ch.source}: `{key}` is given twice; readers disagree on which one counts.",
            expected="one value",
            actual="duplicate key",
            severity=Severity.WARNING,
        )


def _section_title(heading: str) -> str:
    return ascii_words(strip_md(fix_mojibake(heading)))


def _sections(em: Emitter, ch: ContinueHere, body: list[str]) -> None:
    """Rule 9: the Markdown sections a resuming agent reads."""
    fenced = False
    for line in body:
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else HEADING.match(line)
        if m:
            ch.sections.append(strip_md(m.group(2)))
    titles = [_section_title(s) for s in ch.sections]
    for required in REQUIRED_SECTIONS:
        want = required.lower()
        if not any(t == want or t.startswith((want + " ", want + ":")) for t in titles):
            ch.missing_sections.append(required)
    if ch.front_matter is None and not ch.sections:
        return
    for missing in ch.missing_sections:
        if missing in ESSENTIAL_SECTIONS:
            em.add(
                R_CH_SECTION,
                f'sections["{missing}"]',
                f"{ch.source}: no `## {missing}` section.",
                expected=missing,
                actual=None,
            )


def parse_continue_here(
    text: str, directory: str, source: str | None = None
) -> tuple[ContinueHere, list[Finding]]:
    """Parse and validate (the contract's rules 1-9 in docs/formats.md#handoff-file, as the real
    system reads them). Never raises."""
    source = source or f"plugins/{directory}/.continue-here.md"
    ch = ContinueHere(source=source, directory=directory)
    em = Emitter(source)
    lines = (text or "").splitlines()
    body_from = _front_matter(em, ch, lines)
    _sections(em, ch, lines[body_from:])
    if ch.front_matter is not None:
        run_checks(em, FIELD_CHECKS, ch)
    return ch, em.findings
