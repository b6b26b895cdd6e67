"""The front-matter field checks of ``.continue-here.md`` (contract rules 2-8,
docs/formats.md#handoff-file), each typing
one field onto the :class:`~.handoff.ContinueHere` and reporting what the real system would not
accept. They run in order (``phase`` needs ``stage``) through the shared rule runner.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..checks import Emitter
from ..findings import Rule, Severity
from ..text import shorten
from .dates import parse_date
from .frontmatter import scalar, yaml_bool, yaml_float
from .rules import (
    R_CH_CHECKSUM_FORMAT,
    R_CH_COMPLEXITY,
    R_CH_DATE,
    R_CH_FIELD_MISSING,
    R_CH_PHASE,
    R_CH_PHASED,
    R_CH_PLUGIN,
    R_CH_STAGE,
    R_CH_STATUS,
)

if TYPE_CHECKING:
    from .handoff import ContinueHere

CONTRACT_FILES = {
    "creative_brief": "creative-brief.md",
    "parameter_spec": "parameter-spec.md",
    "architecture": "architecture.md",
    "plan": "plan.md",
}
# The contract's values, then the real system's: context-resume reads paused/blocked/ready, and
# the ideation and improvement skills write their own "brief complete" statuses.
VALID_CH_STATUS = (
    "in_progress",
    "complete",
    "workflow_complete",
    "paused",
    "blocked",
    "ready",
    "creative_brief_complete",
    "improvement_brief_complete",
)
# Non-numeric stages the real system writes and its context-resume skill documents.
STAGE_MARKERS = ("ideation", "improvement_planning", "mockup")
SHA = re.compile(r"sha256:([0-9a-fA-F]{64})")
PHASE = re.compile(r"(\d+)\.(\d+)")
_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,40}")
_YAML11_BOOLS = ("yes", "no", "on", "off", "y", "n")


def check_required(em: Emitter, ch: ContinueHere) -> None:
    for key in ("plugin", "stage", "status", "last_updated"):
        if not ch.has(key):
            em.add(
                R_CH_FIELD_MISSING,
                f"front_matter.{key}",
                f"{ch.source}: required field `{key}` is missing.",
                expected=key,
                actual=None,
            )


def check_plugin(em: Emitter, ch: ContinueHere) -> None:
    """Rule 2: ``plugin`` is the directory name."""
    if not ch.has("plugin"):
        return
    plugin = ch.plugin = scalar(ch.raw("plugin"))
    if plugin != ch.directory:
        near = plugin is not None and plugin.strip().casefold() == ch.directory.casefold()
        em.add(
            R_CH_PLUGIN,
            "front_matter.plugin",
            f"{ch.source}: plugin is {plugin!r} but the directory is {ch.directory!r}.",
            expected=ch.directory,
            actual=plugin,
            severity=Severity.WARNING if near else None,
        )


def check_stage(em: Emitter, ch: ContinueHere) -> None:
    """Rule 3: an integer 0-6, or a stage marker the real system writes (``ideation``)."""
    if not ch.has("stage"):
        return
    raw = ch.raw("stage")
    text = (scalar(raw) or "").strip()
    if text in STAGE_MARKERS:
        ch.stage_marker = text
        return
    if re.fullmatch(r"\d{1,3}", text) and int(text) <= 6:
        ch.stage = int(text)
        return
    hint = None
    if PHASE.fullmatch(text):
        hint = f'stage is the integer part: stage: {text.split(".")[0]}, phase: "{text}"'
    # a word like `ui_design` is a workflow marker the system does not document: a warning
    marker = _IDENTIFIER.fullmatch(text) is not None
    why = "out of range 0-6" if text.isdigit() else "not an integer 0-6"
    if marker:
        why = f"a stage marker the system does not document ({', '.join(STAGE_MARKERS)})"
    em.add(
        R_CH_STAGE,
        "front_matter.stage",
        f"{ch.source}: stage {raw!r} is {why}.",
        expected="integer 0-6 or " + "/".join(STAGE_MARKERS),
        actual=raw,
        hint=hint,
        severity=Severity.WARNING if marker else None,
    )


def check_phase(em: Emitter, ch: ContinueHere) -> None:
    """Rule 4: ``phase`` is null or ``N.M`` with N the stage."""
    if not ch.has("phase"):
        return
    raw = ch.raw("phase")
    text = scalar(raw)
    if raw is None or text == "null":
        return
    if text is None or not PHASE.fullmatch(text.strip()):
        em.add(
            R_CH_PHASE,
            "front_matter.phase",
            f"{ch.source}: phase {raw!r} is neither null nor N.M.",
            expected='null or "N.M"',
            actual=raw,
        )
        return
    ch.phase = text.strip()
    major = int(ch.phase.split(".")[0])
    if ch.stage is not None and major != ch.stage:
        em.add(
            R_CH_PHASE,
            "front_matter.phase",
            f"{ch.source}: phase {ch.phase} does not belong to stage {ch.stage}.",
            expected=f"{ch.stage}.M",
            actual=ch.phase,
        )


def check_status(em: Emitter, ch: ContinueHere) -> None:
    if not ch.has("status"):
        return
    raw = ch.raw("status")
    ch.status = text = scalar(raw)
    if text in VALID_CH_STATUS:
        return
    guess = re.sub(r"[\s-]+", "_", (text or "").strip().lower())
    near = guess in VALID_CH_STATUS
    # `ready_for_dsp`, `mockup_created`: the real agents coin status words and /continue reads
    # them as text, so a coined word is information; anything else is a warning
    coined = not near and _IDENTIFIER.fullmatch(text or "") is not None
    note = " (a word the system's agents coin; /continue reads it as text)" if coined else ""
    em.add(
        R_CH_STATUS,
        "front_matter.status",
        f"{ch.source}: status {raw!r} is not one of {', '.join(VALID_CH_STATUS)}{note}.",
        expected="|".join(VALID_CH_STATUS),
        actual=raw,
        severity=Severity.INFO if near or coined else None,
    )
    if near:
        ch.status = guess


def check_last_updated(em: Emitter, ch: ContinueHere) -> None:
    """Rule 5, as the real system writes it: a date or an ISO timestamp."""
    if not ch.has("last_updated"):
        return
    raw = ch.raw("last_updated")
    parsed = ch.last_updated = parse_date(scalar(raw))
    if parsed.form not in ("iso", "datetime"):
        em.add(
            R_CH_DATE,
            "front_matter.last_updated",
            f"{ch.source}: last_updated {raw!r} is not YYYY-MM-DD[ HH:MM:SS] "
            f"({parsed.note or parsed.form}).",
            expected="YYYY-MM-DD or YYYY-MM-DD HH:MM:SS",
            actual=raw,
        )


def _null_after_stage0(em: Emitter, ch: ContinueHere, key: str, r: Rule, expected: str) -> None:
    """Null is allowed until Stage 0 is done; absent after it is information, null a warning."""
    if not ch.stage0_done:
        return
    absent = not ch.has(key)
    em.add(
        r,
        f"front_matter.{key}",
        f"{ch.source}: {key} is {'missing' if absent else 'null'} after Stage 0 completed.",
        expected=expected,
        actual=None,
        severity=Severity.INFO if absent else None,
    )


def check_complexity(em: Emitter, ch: ContinueHere) -> None:
    """Rule 6: a number 1.0-5.0 (null allowed until Stage 0 is done)."""
    raw = ch.raw("complexity_score")
    path = "front_matter.complexity_score"
    if raw is not None:
        number = yaml_float(scalar(raw))
        if number is not None and 1.0 <= number <= 5.0:
            ch.complexity_score = number
            return
        em.add(
            R_CH_COMPLEXITY,
            path,
            f"{ch.source}: complexity_score {raw!r} is not a number 1.0-5.0.",
            expected="1.0-5.0",
            actual=raw,
            severity=Severity.ERROR,
        )
    else:
        _null_after_stage0(em, ch, "complexity_score", R_CH_COMPLEXITY, "1.0-5.0")


def check_phased(em: Emitter, ch: ContinueHere) -> None:
    """Rule 7: ``phased_implementation`` is a boolean (null allowed until Stage 0 is done)."""
    raw = ch.raw("phased_implementation")
    typed = yaml_bool(raw)
    path = "front_matter.phased_implementation"
    if isinstance(typed, bool):
        ch.phased_implementation = typed
    elif typed == "invalid":
        word = str(raw).strip().lower()
        yaml11 = word in _YAML11_BOOLS
        note = " (a YAML 1.1 boolean some readers take as a string)" if yaml11 else ""
        em.add(
            R_CH_PHASED,
            path,
            f"{ch.source}: phased_implementation {raw!r} is not true/false{note}.",
            expected="true|false|null",
            actual=raw,
            severity=None if yaml11 else Severity.ERROR,
        )
        if yaml11:
            ch.phased_implementation = word in ("yes", "on", "y")
    else:
        _null_after_stage0(em, ch, "phased_implementation", R_CH_PHASED, "true|false")


def check_routing(em: Emitter, ch: ContinueHere) -> None:
    """The fields /continue routes on (typed only; free text in the real system)."""
    mode = yaml_bool(ch.raw("orchestration_mode"))
    ch.orchestration_mode = mode if isinstance(mode, bool) else None
    ch.next_action = scalar(ch.raw("next_action"))
    ch.next_phase = scalar(ch.raw("next_phase"))


def check_checksum_format(em: Emitter, ch: ContinueHere) -> None:
    """Rule 8: each contract checksum is ``sha256:<64 hex>`` or null."""
    sums = ch.raw("contract_checksums")
    if not isinstance(sums, dict):
        if sums is not None:
            em.add(
                R_CH_CHECKSUM_FORMAT,
                "front_matter.contract_checksums",
                f"{ch.source}: contract_checksums is not a mapping of file -> checksum.",
                expected="mapping",
                actual=scalar(sums) or type(sums).__name__,
            )
        return
    ch.contract_checksums = sums
    for key, fname in CONTRACT_FILES.items():
        value = sums.get(key)
        text = scalar(value)
        if value is None or text == "null" or (text is not None and SHA.fullmatch(text.strip())):
            continue
        em.add(
            R_CH_CHECKSUM_FORMAT,
            f"contract_checksums.{key}",
            f"{ch.source}: checksum for {fname} is {shorten(str(value), 60)!r}, not sha256:<64 hex>.",
            expected="sha256:<64 hex>",
            actual=shorten(str(value), 80),
        )


FIELD_CHECKS = (
    check_required,
    check_plugin,
    check_stage,
    check_phase,
    check_status,
    check_last_updated,
    check_complexity,
    check_phased,
    check_routing,
    check_checksum_format,
)
