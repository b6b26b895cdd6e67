"""The files the framework's own dashboard reads, read the phasewatch way (bounded, never
raising, a failed read said in plain words instead of hidden behind the last good one).

Where each file is: docs/observability.md#the-files (the paths ``src/dashboard/server.js``
is started with, commit 0689df91, and the installed-project fallbacks the hooks use).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files.read import ReadRefused, read_regular
from ..sources import FileStamp, read_json
from ..text import clean_json, decode

if TYPE_CHECKING:
    from ..sources import Project

#: The framework's page shows the last 50 lines of the hook log (server.js scanHookLog).
HOOK_TAIL_LINES = 50
#: Bytes read from the end of the hook log to find them (a line over ~5 KB on average is cut
#: short, docs/observability.md#bounds).
HOOK_TAIL_BYTES = 256 * 1024
#: The manifests, the index and a meta.json are small; larger is refused.
DOC_BYTES = 4 * 1024 * 1024
#: Persona files the directory scan looks at, and bytes of each (the frontmatter is in its first
#: 20 lines).
MAX_PERSONAS = 200
PERSONA_BYTES = 16 * 1024
#: A slug names a directory under docs/requirements/: one plain name, nothing else.
_SLUG = re.compile(r"^[^/\\\x00]+$")


class Problems:
    """The files that could not be read, one plain sentence each (shown, never hidden)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.items: list[dict[str, str]] = []

    def add(self, path: Path, message: str) -> None:
        self.items.append({"file": self.project.rel(path), "message": message})


def first_existing(paths: tuple[Path, ...]) -> Path:
    """The first of ``paths`` that exists (a dangling link counts), else the first."""
    for path in paths:
        if os.path.lexists(path):
            return path
    return paths[0]


def skills_manifest_path(project: Project) -> Path:
    root = project.root
    return first_existing(
        (
            root / "src" / "isdlc" / "config" / "skills-manifest.json",
            root / ".claude" / "hooks" / "config" / "skills-manifest.json",
            root / ".isdlc" / "config" / "skills-manifest.json",
        )
    )


def external_manifest_path(project: Project) -> Path:
    return project.root / "docs" / "isdlc" / "external-skills-manifest.json"


def persona_dir(project: Project) -> Path:
    root = project.root
    return first_existing((root / "src" / "claude" / "agents", root / ".claude" / "agents"))


def analysis_index_path(project: Project) -> Path:
    return project.isdlc_dir / "analysis-index.json"


def meta_path(project: Project, slug: str) -> Path | None:
    """docs/requirements/<slug>/meta.json, or None for a slug that is no plain name."""
    if not _SLUG.match(slug) or slug in (".", ".."):
        return None
    return project.root / "docs" / "requirements" / slug / "meta.json"


class DocCache:
    """The JSON files of the last load by their stamp (size, mtime, inode): a reload caused by
    another file (the hook log grows on every hook) parses none of them again. At most
    :data:`CACHED` files; beyond that it starts over."""

    CACHED = 256

    def __init__(self) -> None:
        self.docs: dict[Path, tuple[FileStamp, dict[str, Any] | None, str | None]] = {}
        self.parses = 0  # files read (tests)

    def read(self, path: Path) -> tuple[dict[str, Any] | None, str | None, bool]:
        """(the document, why it could not be read, whether it is missing)."""
        stamp = FileStamp.of(path)
        if stamp is None:
            self.docs.pop(path, None)
        else:
            hit = self.docs.get(path)
            if hit is not None and hit[0] == stamp:
                return hit[1], hit[2], False
        result = read_json(path, retries=2, delay=0.01, share=True)
        if result.status == "missing":
            return None, None, True
        self.parses += 1
        error = None
        if not result.ok:
            error = f"{result.status.replace('_', ' ')}: {result.error or ''}".rstrip(": ")
        if result.stamp is not None and result.settled:  # (a racy stamp tells nothing)
            if len(self.docs) >= self.CACHED:
                self.docs.clear()
            self.docs[path] = (result.stamp, result.data if result.ok else None, error)
        return (result.data if result.ok else None), error, False


def read_doc(
    path: Path, problems: Problems, cache: DocCache | None = None
) -> dict[str, Any] | None:
    """A JSON object file, or None (missing: silently; anything else unreadable: a problem)."""
    data, error, _missing = (cache or DocCache()).read(path)
    if error is not None:
        problems.add(path, error)
    return data


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def hook_tail(path: Path, problems: Problems) -> list[Any]:
    """The last :data:`HOOK_TAIL_LINES` lines of the hook log, each parsed as the framework's
    page parses it: ``JSON.parse`` of the line, or ``...`` (:data:`Ellipsis`) for a line it
    cannot parse. Reads at most :data:`HOOK_TAIL_BYTES` from the end; never the whole log."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.add(path, f"cannot open it: {exc.strerror or exc}")
        return []
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            problems.add(path, "not a regular file")
            return []
        start = max(0, st.st_size - HOOK_TAIL_BYTES)
        raw = os.pread(fd, st.st_size - start, start)
    except OSError as exc:
        problems.add(path, f"cannot read it: {exc.strerror or exc}")
        return []
    finally:
        os.close(fd)
    text = raw.decode("utf-8", errors="replace").strip()
    if not text:
        return []
    lines = text.split("\n")
    if start > 0:
        lines = lines[1:]  # the first one may be cut
    out: list[Any] = []
    for line in lines[-HOOK_TAIL_LINES:]:
        try:
            out.append(clean_json(json.loads(line, parse_constant=_reject_constant)))
        except (ValueError, RecursionError):
            out.append(...)
    return out


def personas(directory: Path, problems: Problems) -> list[dict[str, Any]]:
    """``persona-*.md`` in ``directory`` (sorted by name), each with the ``role_type`` of its
    frontmatter (server.js scanPersonas: the first 20 lines)."""
    try:
        names = sorted(
            n for n in os.listdir(directory) if n.startswith("persona-") and n.endswith(".md")
        )
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.add(directory, f"cannot list it: {exc.strerror or exc}")
        return []
    out: list[dict[str, Any]] = []
    for name in names[:MAX_PERSONAS]:
        role: str | None = None
        try:
            raw, _ = read_regular(directory / name, cap=PERSONA_BYTES, truncate=True)
        except ReadRefused:
            raw = b""
        inside = False
        for line in decode(raw).split("\n")[:20]:
            if line.strip() == "---":
                if inside:
                    break
                inside = True
                continue
            if inside:
                m = re.match(r"role_type:\s*(.+)", line)
                if m:
                    role = m.group(1).strip()
                    break
        shown = decode(os.fsencode(name[len("persona-") : -len(".md")]))
        out.append({"name": shown, "role_type": role})
    return out
