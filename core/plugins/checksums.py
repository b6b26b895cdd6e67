"""Contract files against the sha256 checksums the handoff recorded
(docs/formats.md#contract-checksums).

A contract changed after its checksum was recorded is tampering (``PLG-CONTRACT-TAMPERED``);
a recorded checksum for a missing file and a contract without a checksum are reported too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from ..checks import Emitter
from ..sources import Project
from ..text import shorten
from .frontmatter import scalar
from .handoff import ContinueHere
from .handoff_fields import CONTRACT_FILES, SHA
from .model import ChecksumState
from .names import rel
from .rules import R_CONTRACT_MISSING, R_CONTRACT_TAMPERED, R_CONTRACT_UNSEALED, R_UNREADABLE

# (one class, defined with the registry's model: a copy here was a second, unrelated type)
ChecksumStateName = Literal[
    "ok", "mismatch", "missing-file", "missing-checksum", "malformed", "null", "unreadable"
]


def sha256_of(path: Path) -> str | None:
    """``sha256:<hex>`` of a file's bytes, None if it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
    except OSError:
        return None
    return "sha256:" + digest.hexdigest()


def _unsealed(em: Emitter, project: Project, ch: ContinueHere, ideas: Path) -> list[ChecksumState]:
    """An old-format handoff without ``contract_checksums``: nothing can be verified."""
    states = [
        ChecksumState(
            key, rel(project, ideas / f), "missing-checksum" if (ideas / f).is_file() else "null"
        )
        for key, f in CONTRACT_FILES.items()
    ]
    present = [f for f in CONTRACT_FILES.values() if (ideas / f).is_file()]
    if present and not ch.has("contract_checksums"):
        em.add(
            R_CONTRACT_UNSEALED,
            "front_matter.contract_checksums",
            f"{ch.source}: no contract_checksums (an old-format handoff); changes to the "
            "contract files cannot be detected.",
            expected="contract_checksums for " + ", ".join(present),
            actual=None,
        )
    return states


def _one(em: Emitter, project: Project, ch: ContinueHere, key: str, path: Path) -> ChecksumState:
    sums = ch.contract_checksums or {}
    file = rel(project, path)
    restore = f"git checkout HEAD -- {rel(project, path.parent)}/"
    value = sums.get(key)
    if value is None or scalar(value) == "null":
        if not path.is_file():
            return ChecksumState(key, file, "null")
        em.add(
            R_CONTRACT_UNSEALED,
            f"contract_checksums.{key}",
            f"{ch.source}: {file} exists but no checksum is recorded for it.",
            expected="sha256:<hex>",
            actual=None if key not in sums else "null",
        )
        return ChecksumState(key, file, "missing-checksum")
    m = SHA.fullmatch((scalar(value) or "").strip())
    if not m:
        return ChecksumState(key, file, "malformed", shorten(str(sums[key]), 80))
    want = "sha256:" + m.group(1).lower()
    if not path.exists():
        em.add(
            R_CONTRACT_MISSING,
            f"contract_checksums.{key}",
            f"{ch.source}: a checksum is recorded for {file}, which is missing.",
            expected=want,
            actual="missing file",
            hint=restore,
        )
        return ChecksumState(key, file, "missing-file", want)
    return _compare(em, ch, key, file, path, want, restore)


def _compare(
    em: Emitter, ch: ContinueHere, key: str, file: str, path: Path, want: str, restore: str
) -> ChecksumState:
    actual = sha256_of(path)
    if actual is None:
        em.add(
            R_UNREADABLE,
            "$",
            f"{file}: cannot be read to verify its checksum.",
            source=file,
            expected="a readable contract file",
            actual="unreadable",
        )
        return ChecksumState(key, file, "unreadable", want)
    if actual == want:
        return ChecksumState(key, file, "ok", want, actual)
    em.add(
        R_CONTRACT_TAMPERED,
        f"contract_checksums.{key}",
        f"{file}: contract changed after checksum (recorded in {ch.source}).",
        expected=want,
        actual=actual,
        hint=f"{restore}  (or, if the change was intended, recompute the checksums in "
        ".continue-here.md)",
    )
    return ChecksumState(key, file, "mismatch", want, actual)


def check_checksums(
    em: Emitter, project: Project, ch: ContinueHere, base: Path
) -> list[ChecksumState]:
    """Every contract file of the plugin at ``base`` against the handoff's checksums."""
    if ch.front_matter is None:
        return []
    ideas = base / ".ideas"
    if ch.contract_checksums is None:
        return _unsealed(em, project, ch, ideas)
    return [_one(em, project, ch, key, ideas / f) for key, f in CONTRACT_FILES.items()]
