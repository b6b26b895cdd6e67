"""The Plugin Freedom System as a :class:`core.systems.System` (docs/design.md#systems)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..systems import Configure, Loaded, Spans, System
from ..text import plural
from . import load_registry
from .model import Registry
from .summary import summary_json

if TYPE_CHECKING:
    from ..sources import Project


class PluginsSystem:
    name = "plugins"
    title = "plugin registry"

    def watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        """``PLUGINS.md``, ``plugins/``, each plugin's directory and its ``.ideas``."""
        files, dirs = {project.plugins_md}, {project.plugins_dir}
        try:
            children = [c for c in project.plugins_dir.iterdir() if c.is_dir()]
        except OSError:
            children = []
        for child in children:
            dirs |= {child, child / ".ideas"}
        return files, dirs

    def owns(self, project: Project, path: Path) -> bool:
        d = project.plugins_dir
        return path == project.plugins_md or path == d or d in path.parents

    def load(
        self, project: Project, configure: Configure, *, known: bool
    ) -> Loaded[Registry] | None:
        if not known and "plugins" not in project.systems:
            return None
        registry = load_registry(project)
        for rec in registry.plugins:
            rec.findings = configure(rec.findings)
        registry.findings = configure(registry.findings)
        status = "ok" if project.plugins_md.exists() else "missing"
        return Loaded(registry, list(registry.findings), project.plugins_md, status)

    def summary(self, data: Registry | None) -> object:
        return summary_json(data)

    def check_line(self, summary: object) -> Spans:
        assert isinstance(summary, list)
        return [(f"PLUGINS.md  {plural(len(summary), 'plugin')}", "")]


SYSTEM: System[Registry] = PluginsSystem()  # (the type checker holds it to the protocol)
