"""Read a project's files and build the ``observability`` object (docs/observability.md)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from . import read
from .rules import audit_observed
from .trace import history
from .view import observe

if TYPE_CHECKING:
    from ..findings import Finding
    from ..sources import Project


def load_observed(
    project: Project, *, now_ms: float | None = None, cache: read.DocCache | None = None
) -> dict[str, Any]:
    """The framework dashboard's facts and the status report's, for ``project`` (its
    ``.isdlc/state.json``, as the framework's server reads). Never raises on bad input: a file
    that could not be read is named in ``problems``."""
    return load_audited(project, now_ms=now_ms, cache=cache)[0]


def load_audited(
    project: Project, *, now_ms: float | None = None, cache: read.DocCache | None = None
) -> tuple[dict[str, Any], list[Finding]]:
    """:func:`load_observed` and the contradictions between its facts (core.observe.rules)."""
    now = time.time() * 1000 if now_ms is None else now_ms
    problems = read.Problems(project)
    cache = cache or read.DocCache()
    state = read.read_doc(project.isdlc_dir / "state.json", problems, cache)
    index = read.read_doc(read.analysis_index_path(project), problems, cache)

    def meta(slug: str) -> Any:
        path = read.meta_path(project, slug)
        return None if path is None else read.read_doc(path, problems, cache)

    manifest = read.read_doc(read.skills_manifest_path(project), problems, cache)
    view = observe(
        state,
        index=index,
        meta=meta,
        skills_manifest=manifest,
        external_manifest=read.read_doc(read.external_manifest_path(project), problems, cache),
        hook_lines=read.hook_tail(project.hook_log, problems),
        personas=read.personas(read.persona_dir(project), problems),
        now_ms=now,
    )
    data = {
        "schema": 1,
        "at": datetime.fromtimestamp(now / 1000, UTC).isoformat().replace("+00:00", "Z"),
        **view,
        **history(state),
        "problems": problems.items,
    }
    return data, audit_observed(state, manifest)
