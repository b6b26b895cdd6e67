"""Where the files are, and reading them safely.

``discover()`` finds the project root and the systems present. ``read_json()`` reads a JSON file
that its owner writes non-atomically: an empty or cut document is retried briefly and reported as
*torn*; a ``StateReader`` keeps the last good document so the screen never goes blank.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import msgspec
from msgspec import Struct, field

from .files.read import MAX_BYTES, ReadRefused, read_regular
from .findings import Finding, Severity, make, rule
from .systems import registered
from .text import clean, clean_json, decode, json_is_clean, shorten

MAX_JSON_BYTES = MAX_BYTES  # a real state.json is KBs; larger is a finding, not a parse
#: A real workflow runs a few dozen phases; a document with more records or entries than this
#: is refused as too large (what each phase costs the dashboard: docs/performance.md#dashboard-size).
MAX_PHASES = 20_000
#: containers nested deeper than this are never read: msgspec's limit (which counts the
#: caller's stack too, so ten or so levels less in practice); json, its fallback, is held to
#: msgspec's answer. The writer's parser (core.decide.codec.MAX_NESTING) takes this much
MAX_JSON_NESTING = 998
_TOO_DEEP = f"nested too deeply (the reader takes about {MAX_JSON_NESTING - 10} levels)"

R_MISSING = rule(
    "READ-MISSING",
    Severity.WARNING,
    "A file the project's systems use is missing.",
    seed="docs/formats.md#where-the-files-are",
    fix="Start the workflow (or point phasewatch at the right directory).",
    scope="read",
)
R_TORN = rule(
    "READ-TORN",
    Severity.WARNING,
    "The file was empty or cut mid-document when read (its owner writes non-atomically).",
    seed="docs/formats.md#how-the-state-file-is-written",
    fix="Usually transient: the owner's next write completes the file; look again.",
    scope="read",
)
R_INVALID = rule(
    "READ-INVALID",
    Severity.ERROR,
    "The file is not valid JSON (and stayed so across retries).",
    seed="docs/formats.md#how-the-state-file-is-written",
    fix="Restore the file from git or a backup (the message says where the parse failed); the "
    "dashboard offers the last good version it saw on the Timeline, when it saw one.",
    scope="read",
)
R_UNREADABLE = rule(
    "READ-UNREADABLE",
    Severity.ERROR,
    "The file exists but cannot be read (permissions, a directory in its place, I/O error).",
    seed="docs/formats.md#where-the-files-are",
    fix="Check the file's permissions and owner.",
    scope="read",
)
R_TOO_LARGE = rule(
    "READ-TOO-LARGE",
    Severity.ERROR,
    f"The file is larger than {MAX_JSON_BYTES // (1024 * 1024)} MiB, or holds more than "
    f"{MAX_PHASES:,} phases; it is not audited.",
    seed="docs/formats.md#how-the-state-file-is-written",
    fix="Something is appending to or corrupting the file; inspect and restore it.",
    scope="read",
)
R_NOT_OBJECT = rule(
    "READ-NOT-OBJECT",
    Severity.ERROR,
    "The JSON document is valid but its top level is not an object.",
    seed="docs/formats.md#top-level-keys",
    fix="Restore the file: state.json must be a JSON object.",
    scope="read",
)
R_MONOREPO = rule(
    "READ-MONOREPO",
    Severity.WARNING,
    ".isdlc/monorepo.json is present but unusable, or names a project id that is not a single "
    "directory name (refused); projects were found by directory instead.",
    seed="docs/formats.md#where-the-files-are (monorepo.json)",
    fix="Fix monorepo.json: it needs a `projects` object of {id: {name, path, ...}}, each id "
    "a single directory name under .isdlc/projects.",
    scope="read",
)


# ---------------------------------------------------------------------------- discovery


def project_id_problem(project_id: str) -> str | None:
    """Why ``project_id`` cannot name a monorepo project, or None when it can: an id names the
    directory ``.isdlc/projects/<id>``, so it must be one path component (not empty, not ``.``
    or ``..``, no separator, not absolute). The id is named, cleaned, in the reason."""
    separators = {"/", "\\", os.sep, os.altsep or "/"}
    if (
        project_id in ("", ".", "..")
        or any(s in project_id for s in separators)
        or "\0" in project_id
    ):
        shown = shorten(clean(repr(project_id)), 80)
        return (
            f"project id {shown} is not a single directory name (empty, '.', '..', a path "
            "separator or an absolute path): refused, it could name a place outside the project"
        )
    return None


class StateSource(Struct, frozen=True):
    """One state.json: the repository's, or one monorepo project's."""

    project_id: str  # "" for a single-project repository
    path: Path
    name: str = ""


class Project(Struct):
    root: Path
    states: list[StateSource] = field(default_factory=list)
    monorepo: bool = False
    default_project: str | None = None
    findings: list[Finding] = field(default_factory=list)
    #: ``.isdlc`` could not be searched when discovered (mode 000 for us): nothing in it was
    #: listed, so discovery must run again once anything changes.
    unsearchable: bool = False

    @property
    def isdlc_dir(self) -> Path:
        return self.root / ".isdlc"

    @property
    def hook_log(self) -> Path:
        return self.isdlc_dir / "hook-activity.log"

    @property
    def reviews_dir(self) -> Path:
        return self.isdlc_dir / "reviews"

    @property
    def tdd_progress(self) -> Path:
        return self.root / ".tdd-progress.md"

    @property
    def tdd_lock(self) -> Path:
        return self.root / ".tdd-plan-locked"

    @property
    def plugins_md(self) -> Path:
        return self.root / "PLUGINS.md"

    @property
    def plugins_dir(self) -> Path:
        return self.root / "plugins"

    @property
    def systems(self) -> list[str]:
        """The systems used here: ``isdlc``, then each registered system whose files exist
        (:data:`core.systems.SYSTEMS`)."""
        found = []
        if self.isdlc_dir.is_dir():
            found.append("isdlc")
        found += [key.name for key in registered() if key.listed and key.present(self)]
        return found

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def state_for(self, project_id: str | None) -> StateSource | None:
        if not self.states:
            return None
        wanted = self.default_project if project_id is None else project_id
        for source in self.states:
            if source.project_id == wanted:
                return source
        return self.states[0]


def find_root(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Path:
    """The project root: an explicit ``path`` (or ``$CLAUDE_PROJECT_DIR``, or the current
    directory), walked up to the nearest ancestor holding ``.isdlc/``; else the start itself."""
    environ: Mapping[str, str] = os.environ if env is None else env
    if path is None:
        path = environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    start = Path(path).expanduser().resolve()
    if start.is_file():
        start = start.parent
    for candidate in (start, *start.parents):
        if (candidate / ".isdlc").is_dir():
            return candidate
    return start


def _searchable(directory: Path) -> bool:
    """False when ``directory`` exists but its entries cannot be looked up (mode 000 for us):
    ``Path.exists()`` raises there instead of answering."""
    try:
        os.stat(directory / "state.json")
    except PermissionError:
        return False
    except OSError:
        return True
    return True


def discover(
    path: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None
) -> Project:
    root = find_root(path, env)
    project = Project(root=root)
    isdlc = project.isdlc_dir
    if not _searchable(isdlc):
        project.findings.append(
            make(
                R_UNREADABLE,
                source=project.rel(isdlc),
                path="",
                expected="a directory phasewatch can list and read",
                actual="permission denied",
                message=f"{project.rel(isdlc)} cannot be searched (permission denied): no "
                "workflow file in it can be read",
                hint=f"Give your user read and search rights: chmod u+rx {project.rel(isdlc)}",
            )
        )
        project.states.append(StateSource("", isdlc / "state.json", root.name))
        project.unsearchable = True
        return project
    mono_file = isdlc / "monorepo.json"
    if mono_file.exists():
        project.monorepo = True
        result = read_json(mono_file, retries=1)
        ids: dict[str, str] = {}
        projects = result.data.get("projects") if result.data else None
        if isinstance(projects, dict):
            for pid, info in projects.items():
                problem = project_id_problem(str(pid))
                if problem is not None:  # never a path outside .isdlc/projects
                    project.findings.append(_bad_id(project.rel(mono_file), problem))
                    continue
                name = info.get("name") if isinstance(info, dict) else None
                ids[str(pid)] = str(name) if name else str(pid)
            default = result.data.get("default_project") if result.data else None
            if isinstance(default, str) and project_id_problem(default) is None:
                project.default_project = default
        else:
            project.findings.append(
                make(
                    R_MONOREPO,
                    source=project.rel(mono_file),
                    path="projects",
                    expected="object of projects",
                    actual=result.status if result.status != "ok" else type(projects).__name__,
                    message=f"monorepo.json: {result.error or 'no projects object'}",
                )
            )
        projects_dir = isdlc / "projects"
        if projects_dir.is_dir():
            for child in sorted(projects_dir.iterdir()):
                if (child / "state.json").exists():
                    ids.setdefault(child.name, child.name)
        for pid in sorted(ids):
            project.states.append(StateSource(pid, projects_dir / pid / "state.json", ids[pid]))
    root_state = isdlc / "state.json"
    if root_state.exists() or (isdlc.is_dir() and not project.states):
        project.states.insert(0, StateSource("", root_state, root.name))
    return project


def _bad_id(source: str, problem: str) -> Finding:
    return make(
        R_MONOREPO,
        source=source,
        path="projects",
        expected="project ids that are single directory names",
        actual="refused id",
        message=f"monorepo.json: {problem}",
    )


# ---------------------------------------------------------------------------- safe reading

ReadStatus = Literal["ok", "missing", "torn", "invalid", "unreadable", "too_large", "not_object"]


#: How long after its last write a file's stamp (size, mtime, inode) tells its content: a file
#: system's clock moves in ticks of a few milliseconds, so a second write in the same tick, of
#: the same size and in place, leaves the stamp as it was (git calls such entries "racy").
RACY_NS = 50_000_000


class FileStamp(Struct, frozen=True):
    size: int
    mtime_ns: int
    inode: int

    def settled(self, read_at_ns: int) -> bool:
        """A read begun at ``read_at_ns`` (``time.time_ns()``) saw this file's last write: any
        later write changes the stamp. A cache may only trust a settled stamp."""
        return read_at_ns - self.mtime_ns > RACY_NS

    @classmethod
    def of(cls, path: Path) -> FileStamp | None:
        try:
            st = path.stat()
        except OSError:
            return None
        return cls(st.st_size, st.st_mtime_ns, st.st_ino)


class ReadResult(Struct, frozen=True):
    path: Path
    status: ReadStatus
    data: dict[str, Any] | None = None
    error: str | None = None
    stamp: FileStamp | None = None
    attempts: int = 1
    #: The document as its owner reads it, where cleaning changed ``data`` (else None): the
    #: framework's own checks judge this one (core.audit.mirror), the screens show ``data``.
    exact: dict[str, Any] | None = None
    #: The read began after the file's last write had settled (:meth:`FileStamp.settled`): a
    #: cache keyed by ``stamp`` may keep it.
    settled: bool = False

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _looks_torn(text: str, exc: json.JSONDecodeError) -> bool:
    """Empty, or cut short: what a reader sees mid truncate-then-write. A prefix of a valid
    document fails on its last line (the owner indents, so every token sits on one line);
    a document whose last line closes the top-level object is not a prefix, and neither is
    text that does not open one (the owner writes an object: plain text is not torn)."""
    stripped = text.rstrip()
    if not stripped:
        return True
    if not stripped.lstrip().startswith("{"):
        return False
    if exc.pos >= len(stripped):
        return True
    return "\n" not in stripped[exc.pos :] and not stripped.endswith("}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (the owner's JSON.parse rejects it)")


def _parse(raw: bytes) -> Any:
    """Parse like the owner's ``JSON.parse``: a byte order mark and ``NaN``/``Infinity`` are
    errors (Python's json would accept both), invalid UTF-8 becomes U+FFFD as in node.

    msgspec first (faster: docs/performance.md#reading-and-planning): where it decodes a document,
    json decodes it to the same value. What it refuses (invalid UTF-8, a lone surrogate, a
    number out of a double's range, a broken document) goes to json, which takes it as
    ``JSON.parse`` does or says where it breaks. A property test holds the two together."""
    if raw.startswith(b"\xef\xbb\xbf"):
        raise ValueError("starts with a byte order mark (the owner's JSON.parse rejects it)")
    try:
        return msgspec.json.decode(raw)
    except RecursionError:  # before msgspec 0.19 (pyproject's floor is 0.18; make test-lowest)
        raise ValueError(_TOO_DEEP) from None
    except (msgspec.DecodeError, ValueError) as exc:  # DecodeError: not a ValueError
        if "recursion depth" in str(exc):
            raise ValueError(_TOO_DEEP) from None
    return json.loads(raw.decode("utf-8", errors="replace"), parse_constant=_reject_constant)


#: The documents :func:`read_json` parsed last with ``share=True``, by path: the session's
#: state reader and the framework views read the same ``state.json``, and a second parse of
#: a state at the read cap held ~110 MB more and took ~0.7 s more (docs/performance.md#dashboard-size).
#: The readers that share never change a document they are given.
_SHARED: dict[Path, ReadResult] = {}
SHARED_MAX = 8


def _lstamp(path: Path) -> FileStamp | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return FileStamp(st.st_size, st.st_mtime_ns, st.st_ino)


def read_json(
    path: Path, *, retries: int = 3, delay: float = 0.015, share: bool = False
) -> ReadResult:
    """Read and parse a JSON object file; never raises. Every string in it is cleaned.

    The read is :func:`~phasewatch.core.files.read.read_regular`'s: a FIFO, a device or a file
    over ``MAX_JSON_BYTES`` is never read, and a read that overlapped a write is retried (an
    empty or cut document too: ``torn``), so a torn write never parses as a state.

    ``share``: a file read again unchanged (the same size, mtime and inode as the last good
    read with ``share``, whose stamp had settled; a link is never the file: ``lstat``) gives
    that read's document, not a second read and parse of it (the read alone held twice the
    file's size for a moment, which the heap then kept)."""
    hit = _SHARED.get(path) if share else None
    if hit is not None and hit.stamp == _lstamp(path):  # unchanged: not even read again
        return hit
    attempts = 0
    last: ReadResult | None = None
    while True:
        attempts += 1
        started = time.time_ns()
        try:
            raw, st = read_regular(path, cap=MAX_JSON_BYTES)
        except ReadRefused as exc:
            if exc.kind == "missing":
                return ReadResult(path, "missing", error=exc.reason, attempts=attempts)
            if exc.kind == "too_large":
                return ReadResult(path, "too_large", error=exc.reason, attempts=attempts)
            status: ReadStatus = "torn" if exc.kind == "changed" else "unreadable"
            last = ReadResult(path, status, error=exc.reason, attempts=attempts)
            if status == "unreadable":
                return last
        else:
            stamp = FileStamp(st.st_size, st.st_mtime_ns, st.st_ino)
            hit = _SHARED.get(path) if share else None
            if hit is not None and hit.stamp == stamp:
                return hit
            result = parse_document(path, raw, stamp, attempts)
            if stamp.settled(started):
                result = msgspec.structs.replace(result, settled=True)
            if share and result.ok and result.settled:
                _SHARED.pop(path, None)
                _SHARED[path] = result
                while len(_SHARED) > SHARED_MAX:
                    del _SHARED[next(iter(_SHARED))]
            if result.status not in ("torn", "invalid"):  # a torn read can look invalid too
                return result
            last = result
        if attempts > retries:
            assert last is not None
            return last
        time.sleep(delay)


def parse_document(
    path: Path, raw: bytes, stamp: FileStamp | None = None, attempts: int = 1
) -> ReadResult:
    """The bytes of a JSON object file parsed as :func:`read_json` parses them (no retry)."""
    try:
        data = _parse(raw)
    except json.JSONDecodeError as exc:
        text = raw.decode("utf-8", errors="replace")
        status: ReadStatus = "torn" if _looks_torn(text, exc) else "invalid"
        where = (
            "empty file"
            if not text.strip()
            # (json's "Unterminated string starting at" already ends in "at")
            else f"{exc.msg.removesuffix(' at')} at line {exc.lineno} column {exc.colno}"
        )
        return ReadResult(path, status, error=where, stamp=stamp, attempts=attempts)
    except (RecursionError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) and str(exc) else type(exc).__name__
        return ReadResult(path, "invalid", error=reason, stamp=stamp, attempts=attempts)
    if not isinstance(data, dict):
        return ReadResult(
            path,
            "not_object",
            error=f"top level is {type(data).__name__}",
            stamp=stamp,
            attempts=attempts,
        )
    if (phases := _phase_count(data)) > MAX_PHASES:
        why = f"it holds {phases:,} phases (at most {MAX_PHASES:,} are read)"
        return ReadResult(path, "too_large", error=why, stamp=stamp, attempts=attempts)
    if json_is_clean(raw):  # the common case: no cleaning pass at all
        return ReadResult(path, "ok", data=data, stamp=stamp, attempts=attempts)
    cleaned = clean_json(data)
    exact = None if cleaned == data else data
    return ReadResult(path, "ok", data=cleaned, stamp=stamp, attempts=attempts, exact=exact)


def _phase_count(data: dict[str, Any]) -> int:
    """The larger of ``phases``' records and ``active_workflow.phases``' entries."""
    aw = data.get("active_workflow")
    listed = aw.get("phases") if isinstance(aw, dict) else None
    records = data.get("phases")
    return max(
        len(records) if isinstance(records, dict) else 0,
        len(listed) if isinstance(listed, list) else 0,
    )


def read_bytes(path: Path, *, max_bytes: int = 8 * 1024 * 1024) -> tuple[bytes | None, str | None]:
    """At most ``max_bytes`` of a regular file (larger ones are cut: text for a human, never a
    document to parse or rewrite); returns (bytes, error). Never reads a FIFO or a device."""
    try:
        return read_regular(path, cap=max_bytes, truncate=True)[0], None
    except ReadRefused as exc:
        return None, exc.reason


def read_text(path: Path, *, max_bytes: int = 8 * 1024 * 1024) -> tuple[str | None, str | None]:
    """Read a text file (cleaned); returns (text, error). Larger files are cut at ``max_bytes``."""
    raw, error = read_bytes(path, max_bytes=max_bytes)
    return (decode(raw), None) if raw is not None else (None, error)


class StateReader:
    """Reads one JSON file repeatedly, remembering the last good document.

    ``read()`` returns ``(result, data, findings)``: ``data`` is the fresh document when the read
    succeeded, otherwise the last good one (or None); findings explain any failure.
    """

    def __init__(self, path: Path, source: str) -> None:
        self.path = path
        self.source = source
        self.last_good: ReadResult | None = None

    def read(self) -> tuple[ReadResult, dict[str, Any] | None, list[Finding]]:
        result = read_json(self.path, share=True)
        if result.ok:
            self.last_good = result
            return result, result.data, []
        fallback = self.last_good.data if self.last_good else None
        return result, fallback, [read_finding(result, self.source, kept=fallback is not None)]


def read_finding(result: ReadResult, source: str, *, kept: bool = False) -> Finding:
    tail = " Showing the last good version." if kept else ""
    rules = {
        "missing": R_MISSING,
        "torn": R_TORN,
        "invalid": R_INVALID,
        "unreadable": R_UNREADABLE,
        "too_large": R_TOO_LARGE,
        "not_object": R_NOT_OBJECT,
    }
    r = rules.get(result.status, R_INVALID)
    hint = None
    if r is R_TORN and kept:  # only a version it saw can be shown meanwhile
        hint = f"{R_TORN.fix} The dashboard keeps showing the last good version it read meanwhile."
    if r is R_INVALID:  # a fix that fits what was seen: no promise of a version never read
        hint = (
            "Restore it from the last good version phasewatch showed (the Timeline holds its "
            "document) or from git; do not hand-edit."
            if kept
            else "phasewatch has not read a good version of this file: restore it from git "
            f"(git checkout -- {shlex.quote(source)}) or a backup, or let the workflow's next "
            "write replace it."
        )
    return make(
        r,
        source=source,
        path="$",
        expected="a JSON object",
        actual=result.error,
        message=f"{source}: {result.status.replace('_', ' ')} ({result.error}).{tail}",
        hint=hint,
    )
