"""Registry statuses (``💡 Ideated``, ``🚧 Stage 3.2``, ``✅ Working``, ``📦 Installed``).

Two comparisons live here, because the real system makes two: :attr:`Status.key` is what the
status *means* (kind, stage, phase, draft); :attr:`Status.system_words` is what the Plugin Freedom
System's own ``validateRegistryConsistency`` compares (every character but ASCII letters, digits
and spaces removed, whitespace collapsed, case kept), so ``🚧 Stage 1 (Foundation)`` and
``🚧 Stage 1`` mean the same but are drift for the system's own check.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from msgspec import Struct

from .markdown import ascii_words, fix_mojibake

StatusKind = Literal["ideated", "stage", "working", "installed", "unknown", "empty"]
_EMOJI = {"💡": "ideated", "🚧": "stage", "✅": "working", "📦": "installed"}
_KIND_EMOJI = {v: k for k, v in _EMOJI.items()}

STAGE_RE = re.compile(
    r"\bstage\s*(\d{1,3})(?:\.(\d{1,3}))?(?:\s*(?:phase|p)\s*(?:\d{1,3}\.)?(\d{1,3}))?"
)
_SYSTEM_DROP = re.compile(r"[^a-zA-Z0-9 ]")
_LABEL = re.compile(r"\(([^()]*)\)\s*$")


def system_words(raw: str) -> str:
    """The status as the system's drift check sees it: ``sed 's/[^a-zA-Z0-9 ]//g' | xargs``."""
    return " ".join(_SYSTEM_DROP.sub("", raw.replace("\t", " ")).split())


class Status(Struct, frozen=True):
    """A registry status, normalised: emoji (also as mojibake), bold, bullets, case removed."""

    raw: str
    kind: StatusKind
    stage: int | None = None
    phase: str | None = None  # "3.2" for "🚧 Stage 3.2"
    draft: bool = False  # "💡 Ideated (Draft Params)"
    emoji: str | None = None  # the status emoji found, repaired
    text: str = ""  # canonical words, e.g. "Stage 3.2", "Ideated (Draft Params)"
    label: str | None = None  # a suffix the canonical words do not carry: "Foundation"

    @property
    def key(self) -> tuple[Any, ...]:
        """What must be equal for two locations to agree in meaning (docs/formats.md#drift)."""
        if self.kind in ("unknown", "empty"):
            return (self.kind, self.text.casefold())
        return (self.kind, self.stage, self.phase, self.draft)

    @property
    def system_words(self) -> str:
        return system_words(self.raw)

    @property
    def display(self) -> str:
        emoji = _KIND_EMOJI.get(self.kind)
        return f"{emoji} {self.text}" if emoji else self.text

    @property
    def emoji_conflict(self) -> bool:
        return bool(self.emoji and self.kind in _KIND_EMOJI and _EMOJI.get(self.emoji) != self.kind)


def _label(readable: str, canonical: str) -> str | None:
    """The trailing ``(...)`` of a status that is not part of its canonical words."""
    m = _LABEL.search(readable)
    if m is None or f"({m.group(1)})".casefold() in canonical.casefold():
        return None
    return m.group(1).strip() or None


def _stage_status(raw: str, m: re.Match[str], emoji: str | None, readable: str) -> Status:
    stage = int(m.group(1))
    phase = f"{stage}.{int(m.group(2))}" if m.group(2) else None
    if m.group(3) and not phase:
        phase = f"{stage}.{int(m.group(3))}"
    text = f"Stage {phase or stage}"
    return Status(raw, "stage", stage, phase, emoji=emoji, text=text, label=_label(readable, text))


def normalise_status(raw: str | None) -> Status:
    """``"**🚧 Stage 3.2**"`` -> Status(kind="stage", stage=3, phase="3.2"); never raises."""
    raw = raw or ""
    fixed = fix_mojibake(raw)
    emoji = next((ch for ch in fixed if ch in _EMOJI), None)
    plain = re.sub(r"^\s*(?:[-*+]\s+)+", "", fixed)
    plain = plain.replace("**", "").replace("__", "").replace("`", "")
    words = ascii_words(plain)
    readable = " ".join(re.sub(r"[^\w.()/:,' -]+", " ", plain).split())
    if not words:
        return Status(raw, "empty", emoji=emoji, text=readable)
    # "💡 Ideated (Paused at Stage 2)" is ideated: the words before the label decide
    head = ascii_words(_LABEL.sub("", plain)) or words
    m = STAGE_RE.search(head)
    if m and not (emoji == "💡" and "ideat" in head):
        return _stage_status(raw, m, emoji, readable)
    if "ideat" in words:
        draft = "draft" in words
        text = "Ideated (Draft Params)" if draft else "Ideated"
        return Status(
            raw, "ideated", draft=draft, emoji=emoji, text=text, label=_label(readable, text)
        )
    for kind in ("working", "installed"):
        if re.search(rf"\b{kind}\b", words):
            text = kind.capitalize()
            return Status(raw, kind, emoji=emoji, text=text, label=_label(readable, text))
    return Status(raw, "unknown", emoji=emoji, text=readable)
