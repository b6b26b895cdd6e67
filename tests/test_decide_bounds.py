"""Nothing outside the project (issue 25, item 3).

* A monorepo project id is one path component: discovery, the command line's ``--project`` and
  the writer refuse an absolute id, one with a separator, ``.``/``..`` or an empty one, and name
  it (cleaned) in the message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from phasewatch.core import decide
from phasewatch.core.sources import discover, project_id_problem
from phasewatch.tui import cli

from tests.test_decide_support import feature_state, load

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX paths, links and modes")

BAD_IDS = ["/etc", "../../outside", "..", ".", "", "a/b", "api/../../x", "x\\y"]
HOSTILE = "\u202eevil\u200b\x1b]0;t\x07"  # a bidi override, a zero-width space, an OSC


def _victim(tmp_path: Path) -> Path:
    """``outside/state.json``: what a ``../..`` id would name from ``proj/.isdlc/projects``."""
    victim = tmp_path / "outside" / "state.json"
    victim.parent.mkdir()
    victim.write_bytes(decide.dumps(feature_state()).encode())
    return victim


def _monorepo(tmp_path: Path, ids: list[str]) -> Path:
    root = tmp_path / "proj"
    (root / ".isdlc" / "projects" / "api").mkdir(parents=True)
    (root / ".isdlc" / "projects" / "api" / "state.json").write_bytes(
        decide.dumps(feature_state()).encode()
    )
    projects = {pid: {"name": pid or "empty", "path": "x"} for pid in ["api", *ids]}
    (root / ".isdlc" / "monorepo.json").write_text(
        json.dumps(
            {"version": 1, "default_project": ids[0] if ids else "api", "projects": projects}
        )
    )
    return root


@pytest.mark.parametrize("pid", [*BAD_IDS, HOSTILE + "/x"])
def test_a_project_id_that_is_not_one_component_is_named(pid: str) -> None:
    problem = project_id_problem(pid)
    assert problem is not None
    assert "\x1b" not in problem and "\u202e" not in problem and "\u200b" not in problem


@pytest.mark.parametrize("pid", ["api", "web-frontend", "a.b", "..x", "x..", "svc_1"])
def test_an_ordinary_project_id_is_accepted(pid: str) -> None:
    assert project_id_problem(pid) is None


def test_discovery_drops_ids_that_leave_the_projects_directory(tmp_path: Path) -> None:
    _victim(tmp_path)
    root = _monorepo(tmp_path, ["../../outside", "/etc", "..", HOSTILE + "/x"])
    project = discover(root, env={})
    assert [s.project_id for s in project.states] == ["api"]
    assert all(root / ".isdlc" / "projects" in s.path.parents for s in project.states)
    messages = " ".join(f.message for f in project.findings)
    assert "../../outside" in messages and "/etc" in messages
    assert "\x1b" not in messages and "\u202e" not in messages and "\u200b" not in messages
    assert project.default_project is None  # the default named a refused id


def test_the_command_line_refuses_a_bad_project_id(tmp_path: Path, capsys) -> None:
    victim = _victim(tmp_path)
    before = victim.read_bytes()
    root = _monorepo(tmp_path, [])
    for pid in ["../../outside", "/etc", "..", ""]:
        code = cli.main(["review", "continue", str(root), "--project", pid])
        out = capsys.readouterr().out
        assert code == 2 and "project id" in out and repr(pid)[1:-1] in out, out
    assert victim.read_bytes() == before
    assert load(root / ".isdlc" / "projects" / "api" / "state.json")["state_version"] == 41


def test_the_dashboard_refuses_a_bad_project_id(tmp_path: Path, capsys, monkeypatch) -> None:
    from phasewatch.tui import dashboard

    opened: list[object] = []
    monkeypatch.setattr(dashboard, "run_dashboard", lambda *a, **k: opened.append(a) or 0)
    root = _monorepo(tmp_path, [])
    code = cli.main([str(root), "--project", "../../outside"])
    err = capsys.readouterr().err
    assert code == 2 and "project id" in err and "../../outside" in err and not opened


def test_the_writer_refuses_a_path_through_a_bad_project_id(tmp_path: Path) -> None:
    root = _monorepo(tmp_path, [])
    projects = root / ".isdlc" / "projects"
    nested = projects / "api" / "deeper"
    nested.mkdir()
    (nested / "state.json").write_bytes(decide.dumps(feature_state()).encode())
    for target in (nested / "state.json", projects / "state.json"):
        before = target.read_bytes() if target.exists() else None
        result = decide.decide_review(target, "continue")
        assert result.outcome == "refused-invalid" and "project" in result.message, result
        assert (target.read_bytes() if target.exists() else None) == before
