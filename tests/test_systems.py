"""The seam of core.systems: a system registered in SYSTEMS reaches the session's update,
``check --json`` and ``check``'s text without any other module knowing it (docs/design.md#systems).

The toy system below lives in this test only: ``TOY.md`` holds one line per thing; a line
``bad`` is a finding."""

from __future__ import annotations

import json
from pathlib import Path

import phasewatch.core.systems as systems
import pytest
from phasewatch.core.findings import Rule, Severity, make
from phasewatch.core.report import audit_project
from phasewatch.core.session import ProjectSession
from phasewatch.core.sources import Project
from phasewatch.core.systems import PLUGINS, TDD, Configure, Loaded, Spans, SystemKey
from phasewatch.tui.cli import main

R_TOY = Rule("TOY-BAD", Severity.WARNING, "A bad thing.", "docs/design.md#systems", "Fix it.")


class ToySystem:
    name = "toy"
    title = "toy list"

    def watch(self, project: Project) -> tuple[set[Path], set[Path]]:
        return {project.root / "TOY.md"}, set()

    def owns(self, project: Project, path: Path) -> bool:
        return path == project.root / "TOY.md"

    def load(self, project: Project, configure: Configure, *, known: bool) -> Loaded[list[str]]:
        path = project.root / "TOY.md"
        try:
            things = path.read_text().split()
        except FileNotFoundError:
            return Loaded(None, [], path, "missing")
        findings = [
            make(R_TOY, source="TOY.md", path=f"$[{i}]", message="bad", actual=thing)
            for i, thing in enumerate(things)
            if thing == "bad"
        ]
        return Loaded(things, configure(findings), path, "ok")

    def summary(self, data: list[str] | None) -> object:
        return None if data is None else {"things": len(data)}

    def check_line(self, summary: object) -> Spans:
        assert isinstance(summary, dict)
        return [("TOY.md  ", "bold"), (f"{summary['things']} things", "")]


TOY_SYSTEM = ToySystem()
TOY: SystemKey[list[str]] = SystemKey(
    "toy", f"{__name__}:TOY_SYSTEM", lambda p: (p.root / "TOY.md",)
)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setattr(systems, "SYSTEMS", (*systems.SYSTEMS, TOY))
    (tmp_path / "TOY.md").write_text("a bad c\n")
    return tmp_path


def test_a_registered_system_reaches_the_session_update(toy: Path) -> None:
    session = ProjectSession(toy)
    update = session.refresh()
    view = update.system(TOY)
    assert view.data == ["a", "bad", "c"]
    assert [f.actual for f in view.findings] == ["bad"]
    assert "toy" in update.project.systems
    assert toy / "TOY.md" in update.watch_files
    assert update.files["TOY.md"].kind == "toy" and update.files["TOY.md"].ok
    assert any(f.rule_id == "TOY-BAD" for f in update.findings_for())

    (toy / "TOY.md").write_text("a b c d\n")
    again = session.refresh([toy / "TOY.md"])
    assert again.system(TOY).data == ["a", "b", "c", "d"]
    assert again.system(TOY).rev == view.rev + 1
    assert not again.system(TOY).findings

    still = session.refresh([toy / "TOY.md"])  # nothing changed: the revision stays
    assert still.system(TOY).rev == again.system(TOY).rev


def test_a_registered_system_reaches_check_json_and_text(
    toy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = audit_project(toy)
    assert report.to_json()["toy"] == {"things": 3}
    assert [f.rule_id for f in report.findings] == ["TOY-BAD"]

    main(["check", "--json", str(toy)])
    doc = json.loads(capsys.readouterr().out)
    assert doc["toy"] == {"things": 3} and "toy" in doc["systems"]
    assert doc["summary"]["warning"] == 1

    main(["check", str(toy)])
    out = capsys.readouterr().out
    assert "  TOY.md  3 things" in out.splitlines()
    assert "TOY-BAD" in out


def test_a_system_that_raises_keeps_the_dashboard_alive(
    toy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = ProjectSession(toy)
    first = session.refresh()

    def broken(*_args: object, **_kwargs: object) -> Loaded[list[str]]:
        raise ValueError("parser bug")

    monkeypatch.setattr(TOY_SYSTEM, "load", broken)
    update = session.refresh([toy / "TOY.md"])
    assert update.system(TOY) == first.system(TOY)  # the last data is kept
    assert any(e.startswith("toy list: ValueError") for e in update.errors)


def test_an_unloaded_system_reads_as_empty(tmp_path: Path) -> None:
    update = ProjectSession(tmp_path).refresh()
    assert update.system(PLUGINS).data is None and update.system(PLUGINS).rev == 0
    assert update.system(TDD).data is None
    assert update.system(TOY).findings == ()


def test_the_registry_names_are_unique_and_found_by_discovery(tmp_path: Path) -> None:
    names = [key.name for key in systems.SYSTEMS]
    assert len(set(names)) == len(names) and "isdlc" not in names
    for key in systems.SYSTEMS:
        assert key.system().name == key.name
    (tmp_path / "PLUGINS.md").write_text("# Plugins\n")
    assert Project(tmp_path).systems == ["plugins"]
    (tmp_path / ".tdd-plan-locked").write_text("")
    assert Project(tmp_path).systems == ["tdd", "plugins"]


def test_a_system_not_used_here_is_never_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discovery and the watch targets come from the markers: a system whose module does not
    even exist costs nothing until its file appears."""
    ghost: SystemKey[object] = SystemKey(
        "ghost", "phasewatch.no_such_module:SYSTEM", lambda p: (p.root / "GHOST.md",)
    )
    monkeypatch.setattr(systems, "SYSTEMS", (*systems.SYSTEMS, ghost))
    update = ProjectSession(tmp_path).refresh()
    assert tmp_path / "GHOST.md" in update.watch_files
    assert "ghost" not in update.project.systems and "ghost" not in update.systems
    assert audit_project(tmp_path).to_json()["ghost"] is None


def test_a_system_whose_files_appear_later_is_loaded_and_watched(tmp_path: Path) -> None:
    session = ProjectSession(tmp_path)
    first = session.refresh()
    assert tmp_path / "PLUGINS.md" in first.watch_files
    assert tmp_path / "plugins" in first.watch_dirs
    assert first.system(PLUGINS).data is None

    handoff = tmp_path / "plugins" / "Knob" / ".continue-here.md"
    handoff.parent.mkdir(parents=True)
    later = session.refresh([handoff.parent])
    assert handoff.parent in later.watch_dirs  # the plugin's directory is watched now
    handoff.write_text("---\nplugin: Knob\nstage: 1\nstatus: in_progress\n---\n")
    update = session.refresh([handoff])
    registry = update.system(PLUGINS).data
    assert registry is not None and [r.name for r in registry.plugins] == ["Knob"]
    assert update.system(PLUGINS).rev == 1 and "plugins" in update.project.systems
