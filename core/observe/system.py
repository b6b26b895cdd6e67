"""The framework's own views' facts as a :class:`core.systems.System` (docs/design.md#systems,
docs/observability.md): watched and reloaded like the TDD plan and the plugin registry, summarised
for ``check --json`` under ``observability``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..systems import Configure, Loaded, Spans, System
from . import read
from .load import load_audited

if TYPE_CHECKING:
    from ..sources import Project


#: A DocCache per project root (the newest few; a system object serves every session).
_CACHES: dict[Path, read.DocCache] = {}
MAX_ROOTS = 8


def cache_for(project: Project) -> read.DocCache:
    cache = _CACHES.pop(project.root, None) or read.DocCache()
    _CACHES[project.root] = cache  # (now the newest)
    while len(_CACHES) > MAX_ROOTS:
        del _CACHES[next(iter(_CACHES))]
    return cache


def _fixed(project: Project) -> set[Path]:
    return {
        project.isdlc_dir / "state.json",
        read.analysis_index_path(project),
        project.hook_log,
        read.skills_manifest_path(project),
        read.external_manifest_path(project),
    }


def _files(project: Project) -> set[Path]:
    """The files to watch: the fixed ones and each analysis item's meta.json."""
    files = _fixed(project)
    problems = read.Problems(project)
    index = read.read_doc(read.analysis_index_path(project), problems, cache_for(project))
    items = index.get("items") if index else None
    for item in (items if isinstance(items, list) else [])[:200]:
        slug = item.get("slug") if isinstance(item, dict) else None
        path = read.meta_path(project, slug) if isinstance(slug, str) else None
        if path is not None:
            files.add(path)
    return files


class ObserveSystem:
    name = "observability"
    title = "framework views"

    def watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        return _files(project), {read.persona_dir(project)}

    def owns(self, project: Project, path: Path) -> bool:
        requirements = project.root / "docs" / "requirements"
        return (
            path in _fixed(project)
            or (path.name == "meta.json" and path.parent.parent == requirements)
            or path.parent == read.persona_dir(project)
        )

    def load(self, project: Project, configure: Configure, *, known: bool) -> Loaded[Any]:
        data, findings = load_audited(project, cache=cache_for(project))
        # its own file is the analysis index (the state's status is the session's own)
        index = read.analysis_index_path(project)
        bad = any(p["file"] == project.rel(index) for p in data["problems"])
        status = "unreadable" if bad else "ok" if index.exists() else "missing"
        return Loaded(data, configure(findings), index, status)

    def summary(self, data: Any) -> object:
        return data

    def check_line(self, summary: object) -> Spans:
        assert isinstance(summary, dict)
        return [("framework views  ", "bold"), (headline(summary), "")]


def headline(data: dict[str, Any]) -> str:
    """One line: what the framework's page would show first (plain text)."""
    parts = [str(data["status"])]
    if data["slug"] is not None:
        parts.append(str(data["slug"]))
    if data["status"] == "Building":
        prog = data["progress"]
        parts.append(f"{data['current_phase']} ({prog['completed']}/{prog['total']} phases)")
        agent = data["active_agent"]
        if agent is not None:
            parts.append(
                f"agent {agent['agent']} {'running' if agent['running'] else agent['status']}"
            )
        it = data["iteration_progress"]
        if it is not None:
            parts.append(f"iteration {it['current']}/{it['max']}")
    aa = data["active_analysis"]
    if aa is not None:
        parts.append(f"analysing {aa['slug']} {aa['phases_completed']}/{aa['phases_total']}")
    if data["workflows"]:
        parts.append(f"{data['workflows']} finished workflows")
    if data["problems"]:
        parts.append(f"{len(data['problems'])} unreadable files")
    return " · ".join(parts)


SYSTEM: System[Any] = ObserveSystem()
