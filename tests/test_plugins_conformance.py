"""The plugin audit against the real Plugin Freedom System's files (tests/conformance/plugins).

Every error and warning on the real repository's registry layouts is listed in
``verdicts.json`` (reviewed: each is real drift or damage); the audit must give exactly those.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from functools import cache
from pathlib import Path

import pytest
from phasewatch.core.findings import Severity
from phasewatch.core.plugins import load_registry, summary_json
from phasewatch.core.sources import Project

CORPUS = Path(__file__).parent / "conformance" / "plugins"
VERDICTS = json.loads((CORPUS / "verdicts.json").read_text(encoding="utf-8"))
HEAD = "e9af91e9419f"
# A fork's tree is the upstream commit it started from plus the files it changed (README).
FORK = "forks/topazh1-9eb93fac98ef"
LAYERS = {FORK: (HEAD, FORK)}


@cache
def _root(snapshot: str, tmp: Path) -> Path:
    layers = LAYERS.get(snapshot)
    if layers is None:
        return CORPUS / snapshot
    root = tmp / snapshot.replace("/", "-")
    for layer in layers:
        shutil.copytree(CORPUS / layer, root, dirs_exist_ok=True)
    return root


@pytest.fixture(scope="module")
def tmp(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("corpus")


def _registry(snapshot: str, tmp: Path | None = None):
    return load_registry(Project(root=_root(snapshot, tmp) if tmp else CORPUS / snapshot))


def _verdicts(snapshot: str, tmp: Path) -> list[list[str]]:
    reg = _registry(snapshot, tmp)
    return sorted(
        [f.rule_id, str(f.severity), f.source, f.path]
        for f in reg.findings
        if f.severity != Severity.INFO
    )


def test_the_corpus_is_complete():
    dirs = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and p.name != "forks")
    dirs += sorted(f"forks/{p.name}" for p in (CORPUS / "forks").iterdir())
    assert sorted(dirs) == sorted(VERDICTS) and len(dirs) == 8


@pytest.mark.parametrize("snapshot", sorted(VERDICTS))
def test_exactly_the_reviewed_verdicts(snapshot, tmp):
    assert _verdicts(snapshot, tmp) == VERDICTS[snapshot]


@pytest.mark.parametrize("snapshot", sorted(VERDICTS))
def test_no_audit_crash_and_no_unread_status(snapshot, tmp):
    ids = {f.rule_id for f in _registry(snapshot, tmp).findings}
    assert "AUDIT-INTERNAL" not in ids and "PLG-STATUS-UNKNOWN" not in ids


def test_consistent_history_gives_no_error_or_warning():
    assert VERDICTS["28875c65568e"] == [] and VERDICTS["7b7f540c96b1"] == []


def test_head_reads_every_notes_md_current_status():
    reg = _registry(HEAD)
    notes = [r for r in reg.plugins if r.entry is not None]
    assert len(notes) == 13 and all(r.entry.source.endswith("NOTES.md") for r in notes)
    assert all(r.entry.status is not None and r.entry.status.kind != "unknown" for r in notes)


def test_head_drift_installed_vs_ideated_is_found():
    reg = _registry(HEAD)
    drum = reg.get("Drum808")
    f = next(f for f in drum.findings if f.rule_id == "PLG-STATUS-DRIFT")
    assert f.severity == Severity.ERROR
    assert (f.actual, f.expected) == ("📦 Installed", "💡 Ideated")
    row = next(r for r in summary_json(reg) if r["name"] == "Drum808")
    assert row == {
        "name": "Drum808",
        "table_status": "📦 Installed",
        "entry_status": "💡 Ideated",
        "handoff_stage": None,
        "drift": True,
    }


def test_head_no_version_marks_agree():
    """`-` in the table and `N/A` in NOTES.md both mean "no version" (ClapMachine, LushVerb)."""
    reg = _registry(HEAD)
    for name in ("ClapMachine", "LushVerb", "MinimalKick"):
        rec = reg.get(name)
        assert (rec.table.version, rec.entry.version) == ("-", "N/A")
        assert not any(f.rule_id == "PLG-VERSION-DRIFT" for f in rec.findings)
        assert rec.version is None


def test_head_ideation_handoffs_are_valid():
    reg = _registry(HEAD)
    ideation = [r for r in reg.plugins if r.handoff and r.handoff.stage_marker == "ideation"]
    assert {r.name for r in ideation} >= {"GainKnob", "DriveVerb"}
    gain = reg.get("GainKnob").handoff  # `last_updated: 2025-11-10 15:30:00`, the template's form
    assert gain.status == "creative_brief_complete" and gain.last_updated.form == "datetime"
    for rec in ideation:
        assert rec.handoff.status in ("creative_brief_complete", "complete")
        assert not [
            f
            for f in rec.findings
            if f.rule_id.startswith("PLG-CH-")
            and f.source == rec.handoff.source
            and f.rule_id not in ("PLG-CH-STALE", "PLG-CH-DATE-DRIFT")
        ]


@pytest.mark.parametrize(
    ("snapshot", "plugin"), [("fb26968a6853", "FlutterVerb"), ("7c44ca90e413", "FlutterVerb")]
)
def test_label_suffix_is_drift_for_the_system_check(snapshot, plugin):
    rec = _registry(snapshot).get(plugin)
    f = next(f for f in rec.findings if f.rule_id == "PLG-STATUS-DRIFT")
    assert f.severity == Severity.WARNING and "system's own check" in f.message
    assert rec.table.status.key == rec.entry.status.key  # same meaning
    assert rec.drift and "validateRegistryConsistency" in rec.drift[0].reason


def test_check_json_has_a_plugin_summary(capsys):
    """``phasewatch check --json`` on the real HEAD registry: one summary per plugin."""
    from phasewatch.tui.cli import main

    main(["check", "--json", str(CORPUS / HEAD)])
    doc = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in doc["plugins"]}
    assert len(rows) == 16 and all(
        set(row) == {"name", "table_status", "entry_status", "handoff_stage", "drift"}
        for row in rows.values()
    )
    assert rows["Drum808"]["drift"] is True and rows["Scatter"]["drift"] is True
    assert rows["GainKnob"] == {
        "name": "GainKnob",
        "table_status": "📦 Installed",
        "entry_status": "📦 Installed",
        "handoff_stage": "ideation",
        "drift": True,  # the ideation handoff is still there (and dated before the registry)
    }
    assert rows["AngelGrain"]["entry_status"] is None  # no NOTES.md
    assert rows["ClapMachine"]["drift"] is False


def test_check_json_plugins_is_null_without_a_registry(tmp_path, capsys):
    from phasewatch.tui.cli import main

    (tmp_path / ".tdd-progress.md").write_text("# Plan\n")
    main(["check", "--json", str(tmp_path)])
    assert json.loads(capsys.readouterr().out)["plugins"] is None


def test_fork_label_suffix_and_ideation_handoff(tmp):
    """topazh1's fork: NOTES.md `🚧 Stage 1 (Foundation)` vs table `🚧 Stage 1`; an ideation
    handoff stamped `2026-02-27 00:00:00` with extra ui_mockup_* fields."""
    reg = _registry(FORK, tmp)
    mix = reg.get("MixMentor")
    f = next(f for f in mix.findings if f.rule_id == "PLG-STATUS-DRIFT")
    assert f.severity == Severity.WARNING and "'Stage 1' with 'Stage 1 Foundation'" in f.message
    assert (mix.table.version, mix.entry.version) == ("-", "-")
    bugos = reg.get("BugosEQ")
    assert (
        bugos.handoff.stage_marker == "ideation"
        and bugos.handoff.status == "creative_brief_complete"
    )
    assert not [f for f in bugos.findings if f.rule_id.startswith("PLG-CH-")]


# ------------------------------------------------------------- variants judged by the system

_spec = importlib.util.spec_from_file_location("pfs_generate", CORPUS / "generate.py")
GENERATE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GENERATE)
VARIANTS = json.loads((CORPUS / "variants.json").read_text(encoding="utf-8"))


def _flags(root: Path, plugin: str) -> set[tuple[str, str, str, str]]:
    """Warnings and errors about ``plugin`` or the registry table (not other plugins), from the
    registry files the system's check reads (PLUGINS.md, NOTES.md): a handoff's findings
    (``.continue-here.md``, its contracts) are another check's. A row may spell the name in
    another case, so names are compared case-insensitively."""
    out = set()
    name = plugin.casefold()
    for f in load_registry(Project(root=root)).findings:
        if f.severity == Severity.INFO or f.source.endswith(".continue-here.md"):
            continue
        source, path = f.source.casefold(), f.path.casefold()
        if (
            f"/{name}/" in source
            or f"[{name}]" in path
            or path.startswith("table.")
            or path.startswith(f"{name}.")
        ):
            out.add((f.rule_id, str(f.severity), f.source, f.path))
    return out


@cache
def _baseline_flags(snapshot: str, plugin: str, tmp: Path) -> frozenset:
    root = GENERATE.build(snapshot, tmp / f"base-{snapshot.replace('/', '-')}")
    return frozenset(_flags(root, plugin))


def test_the_variants_are_many_and_both_ways():
    cases = VARIANTS["cases"]
    assert len(cases) >= 300
    flagged = [c for c in cases if GENERATE.flagged_by_system(c)]
    assert 50 <= len(flagged) <= len(cases) - 50
    shapes = VARIANTS["shapes"]
    assert len(shapes) >= 240 and {c["shape"] for c in shapes} == set(GENERATE.SHAPES)
    flagged = [c for c in shapes if GENERATE.flagged_by_system(c)]
    assert 40 <= len(flagged) <= len(shapes) - 40
    updaters = [c for c in shapes if c["shape"].startswith("updater-")]
    assert updaters and all(c["patch"] for c in updaters)  # the updater's edits, recorded


@pytest.mark.parametrize("case", VARIANTS["cases"] + VARIANTS["shapes"], ids=lambda c: c["id"])
def test_flagged_exactly_where_the_systems_own_check_flags(case, tmp, tmp_path):
    """A variant the system's check (now, or after its own updater ran) calls drift gets a
    warning or error on that plugin; one it finds consistent gets none beyond the snapshot's."""
    root = GENERATE.build(case["snapshot"], tmp_path / "tree")
    GENERATE.apply(case, root)
    new = _flags(root, case["plugin"]) - _baseline_flags(case["snapshot"], case["plugin"], tmp)
    if GENERATE.flagged_by_system(case):
        assert new, case
    else:
        assert not new, (case, new)


@pytest.mark.parametrize("key", sorted(VARIANTS["baseline"]))
def test_the_unedited_snapshots_agree_with_the_systems_check(key, tmp):
    snapshot, plugin = key.split(":")
    status = {f for f in _baseline_flags(snapshot, plugin, tmp) if ".status" in f[3]}
    assert bool(status) == GENERATE.flagged_by_system(VARIANTS["baseline"][key]), key
