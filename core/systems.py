"""The seam between phasewatch and the systems it watches beside the iSDLC state
(docs/design.md#systems).

A system (the TDD plugin, the Plugin Freedom System) is one :class:`System` object in its own
package (``core/<system>/system.py``): which files are its, how they are read and audited into
one data object with findings, and how that object is summarised for ``phasewatch check``. The
session, ``check`` and ``check --json`` know systems only through :data:`SYSTEMS`.

:data:`SYSTEMS` holds :class:`SystemKey` s, not the systems themselves: a key names its system's
module, imported the first time the system is needed (a project without a plugin registry never
pays for the registry's readers), and says which files mean the system is present (discovery
needs no import). A key also types the data: ``update.system(TDD).data`` is a
:class:`~core.tdd.TddPlan` for the type checker, without ``Any``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from msgspec import Struct, field

from .findings import Finding

if TYPE_CHECKING:
    from .plugins.model import Registry
    from .sources import Project
    from .tdd.model import TddPlan

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: The user's config as a function (``core.config.apply_config`` bound to it): a system applies
#: it to every finding it hands out, the ones inside its data object included.
Configure = Callable[[Iterable[Finding]], list[Finding]]
#: One line of ``check``'s text output: (text, style) spans, styles in rich's words.
Spans = list[tuple[str, str]]


class Loaded(Struct, Generic[T_co], frozen=True):
    """What a system's :meth:`System.load` read: its data (None: nothing to show), every
    finding, and the status of its main file (``core.session.FileStatus``'s words: ok, missing,
    unreadable) at ``path``."""

    data: T_co | None
    findings: list[Finding]
    path: Path
    status: str


class System(Protocol[T]):
    """One watched system. ``name`` is its word everywhere: ``Project.systems``, the key of
    ``check --json`` and of ``SessionUpdate.systems``, ``FileStatus.kind``."""

    name: str
    title: str  # what it is called in an error line ("TDD plan")

    def watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        """(files, directories) to watch, including ones that do not exist yet."""
        ...

    def owns(self, project: Project, path: Path) -> bool:
        """Whether a change at ``path`` means :meth:`load` should run again."""
        ...

    def load(self, project: Project, configure: Configure, *, known: bool) -> Loaded[T] | None:
        """Read and audit the system's files; never raises on bad input. ``known``: the session
        has data from an earlier load. None: nothing here and nothing to report."""
        ...

    def summary(self, data: T | None) -> object:
        """``check --json``'s value under :attr:`name` (JSON types; None: nothing to report)."""
        ...

    def check_line(self, summary: object) -> Spans:
        """``check``'s text line for a non-None :meth:`summary` (no indent, never markup)."""
        ...


class SystemKey(Struct, Generic[T], frozen=True):
    """A registered system: its ``name``, the ``"module:attribute"`` of its :class:`System`,
    and ``markers``: the files whose presence means the project uses it (paths on the
    ``Project``; a path may hold a glob component, ``plugins/*/.continue-here.md``)."""

    name: str
    where: str
    markers: Callable[[Project], tuple[Path, ...]]
    #: False for a view of the iSDLC files rather than a system of its own (``observability``):
    #: loaded and reported the same, but not named in ``Project.systems``.
    listed: bool = True
    _loaded: list[System[T]] = field(default_factory=list)  # the system, once imported

    def system(self) -> System[T]:
        """The system (its module imported on first use)."""
        if not self._loaded:
            module, _, attr = self.where.partition(":")
            self._loaded.append(cast("System[T]", getattr(importlib.import_module(module), attr)))
        return self._loaded[0]

    def markers_watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        """What to watch before the system is used: each plain marker file, and the directory
        above a glob's first wildcard (``plugins/`` for ``plugins/*/.continue-here.md``)."""
        files: set[Path] = set()
        dirs: set[Path] = set()
        for marker in self.markers(project):
            glob = _glob_start(marker)
            if glob is None:
                files.add(marker)
            else:
                dirs.add(glob[0])
        return files, dirs

    def near(self, project: Project, path: Path) -> bool:
        """Whether a change at ``path`` may make the system used (a marker, or anything in a
        marker's directory)."""
        files, dirs = self.markers_watch(project)
        return path in files or any(d == path or d in path.parents for d in dirs)

    def present(self, project: Project) -> bool:
        """Whether one of the markers exists (False where it cannot be looked up)."""
        for marker in self.markers(project):
            glob = _glob_start(marker)
            try:
                if glob is None and marker.exists():
                    return True
                if glob is not None and any(glob[0].glob(glob[1])):
                    return True
            except OSError:
                continue
        return False


def _glob_start(path: Path) -> tuple[Path, str] | None:
    """(the directory above the first wildcard component, the pattern from there on); None
    for a plain path."""
    parts = path.parts
    for i, part in enumerate(parts):
        if any(ch in part for ch in "*?["):
            return Path(*parts[:i]), str(Path(*parts[i:]))
    return None


class SystemView(Struct, Generic[T_co], frozen=True):
    """One system in a ``SessionUpdate``: its data (None: none), its findings (the user's
    config applied) and ``rev``, the times data or findings changed this session (a screen
    re-renders when it moved)."""

    name: str
    data: T_co | None = None
    findings: tuple[Finding, ...] = ()
    rev: int = 0


TDD: SystemKey[TddPlan] = SystemKey(
    "tdd", "phasewatch.core.tdd.system:SYSTEM", lambda p: (p.tdd_progress, p.tdd_lock)
)
PLUGINS: SystemKey[Registry] = SystemKey(
    "plugins",
    "phasewatch.core.plugins.system:SYSTEM",
    lambda p: (p.plugins_md, p.plugins_dir / "*" / ".continue-here.md"),
)

#: What the framework's own views show (docs/observability.md): a plain JSON object.
OBSERVE: SystemKey[dict[str, Any]] = SystemKey(
    "observability",
    "phasewatch.core.observe.system:SYSTEM",
    lambda p: (p.isdlc_dir / "state.json", p.isdlc_dir / "analysis-index.json"),
    listed=False,
)
#: Every system beside the iSDLC state, in the order ``check`` prints them.
SYSTEMS: tuple[SystemKey[Any], ...] = (TDD, PLUGINS, OBSERVE)


def registered() -> tuple[SystemKey[Any], ...]:
    """:data:`SYSTEMS`, looked up at each call (a test may register one more)."""
    return SYSTEMS
