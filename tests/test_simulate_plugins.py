"""The Plugin Freedom System player (core/simulate/plugins.py) against the PLG-* audit."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import yaml
from phasewatch.core.findings import Severity
from phasewatch.core.plugins import audit_plugins, load_registry
from phasewatch.core.simulate.plugins import PLUGIN_FAULTS, PluginPipeline, PluginStep
from phasewatch.core.sources import discover

# The seed's front matter, key for key and in order (seed 002 section 1.1).
SEED_KEYS = [
    "plugin",
    "stage",
    "phase",
    "status",
    "last_updated",
    "complexity_score",
    "phased_implementation",
    "orchestration_mode",
    "next_action",
    "next_phase",
    "contract_checksums",
]
CONTRACTS = {
    "creative_brief": "creative-brief.md",
    "parameter_spec": "parameter-spec.md",
    "architecture": "architecture.md",
    "plan": "plan.md",
}
# fault -> the rule ids it must trip (checked against the audit, not against the module)
EXPECTED_RULES = {
    "plugin-drift": {"PLG-STATUS-DRIFT"},
    "plugin-tamper": {"PLG-CONTRACT-TAMPERED"},
    "plugin-stage-drift": {"PLG-STAGE-DRIFT"},
    "plugin-timeline": {"PLG-TIMELINE-ORDER", "PLG-DATE-DRIFT"},
}


def serious(directory: Path) -> list[str]:
    return [
        f"{f.rule_id}: {f.message}"
        for f in audit_plugins(discover(directory))
        if f.severity in (Severity.ERROR, Severity.WARNING)
    ]


def front_matter(path: Path) -> tuple[list[str], dict]:
    text = path.read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert m, text[:200]
    keys = [line.split(":", 1)[0] for line in m.group(1).splitlines() if not line.startswith(" ")]
    return keys, yaml.safe_load(m.group(1))


@pytest.mark.parametrize(
    ("plugins", "seed"),
    [
        (("MinimalKick", "GainKnob"), 0),
        (("MinimalKick", "GainKnob"), 7),
        (("GainKnob",), 1),
        (("MinimalKick", "GainKnob", "TapeWarm", "Plate_Verb", "sub-bass"), 2),
        (("MinimalKick", "GainKnob", "TapeWarm", "Plate_Verb", "sub-bass"), 11),
    ],
)
def test_fault_free_run_is_clean_after_every_step(tmp_path, plugins, seed):
    seen_checksums = 0
    steps = 0
    for step in PluginPipeline(tmp_path, plugins=plugins, seed=seed).steps():
        steps += 1
        assert serious(tmp_path) == [], step.line()
        registry = load_registry(discover(tmp_path))
        for rec in registry.plugins:
            states = {c.state for c in rec.checksums}
            assert states <= {"ok", "null"}, (step.line(), rec.name, rec.checksums)
            seen_checksums += sum(c.state == "ok" for c in rec.checksums)
    assert steps > 0 and seen_checksums > 0
    registry = load_registry(discover(tmp_path))
    assert registry.layout == "full-entries"
    assert registry.numbering == "contract-0-6"
    assert {r.name for r in registry.plugins} == set(plugins)
    for rec in registry.plugins:
        assert rec.status is not None and rec.status.display == "📦 Installed"
        assert rec.handoff is None  # deleted at install
        assert not (tmp_path / "plugins" / rec.name / ".continue-here.md").exists()


def test_status_sequences_follow_the_seed_state_machine(tmp_path):
    seen: dict[str, list[str]] = {}
    for step in PluginPipeline(tmp_path, seed=3).steps():
        statuses = seen.setdefault(step.plugin, [])
        if not statuses or statuses[-1] != step.status:
            statuses.append(step.status)
    # seed 002 Appendix C (plus the plain "Ideated" before its draft parameters, and Stage 5
    # validation running before Working, Appendix A)
    head = ["💡 Ideated", "💡 Ideated (Draft Params)", "🚧 Stage 0", "🚧 Stage 2"]
    tail = ["🚧 Stage 5", "✅ Working", "📦 Installed"]
    assert seen["GainKnob"] == [*head, "🚧 Stage 3", "🚧 Stage 4", *tail]
    phased = [f"🚧 Stage {s}" for s in ("3.1", "3.2", "3.3", "3", "4.1", "4.2", "4.3", "4")]
    assert seen["MinimalKick"] == [*head, *phased, *tail]


def test_handoff_front_matter_and_checksums_match_the_contract(tmp_path):
    checked = 0
    for step in PluginPipeline(tmp_path, seed=5).steps():
        handoff = tmp_path / "plugins" / step.plugin / ".continue-here.md"
        if not handoff.exists():
            continue
        keys, fm = front_matter(handoff)
        assert keys == SEED_KEYS
        assert fm["plugin"] == step.plugin
        assert isinstance(fm["stage"], int) and 0 <= fm["stage"] <= 6
        assert fm["status"] in ("in_progress", "complete", "workflow_complete")
        assert fm["orchestration_mode"] is True
        assert str(fm["last_updated"]) == step.date
        for key, fname in CONTRACTS.items():
            path = tmp_path / "plugins" / step.plugin / ".ideas" / fname
            recorded = fm["contract_checksums"][key]
            if path.exists():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                assert recorded == f"sha256:{digest}", (step.line(), key)
                checked += 1
            else:
                assert recorded is None
        text = handoff.read_text(encoding="utf-8")
        for section in (
            "## Current State:",
            "## Completed So Far",
            "## Next Steps",
            "## Build Artifacts",
            "## Testing Checklist",
            "## Context to Preserve",
        ):
            assert f"\n{section}" in text
    assert checked > 20


def test_complex_plugin_handoff_phases_and_next_steps(tmp_path):
    handoffs = []
    for step in PluginPipeline(tmp_path, plugins=("MinimalKick",)).steps():
        path = tmp_path / "plugins" / "MinimalKick" / ".continue-here.md"
        if path.exists():
            _, fm = front_matter(path)
            handoffs.append(
                (step.name, fm["stage"], fm["phase"], fm["next_action"], fm["next_phase"])
            )
    by_name = {h[0]: h[1:] for h in handoffs}
    assert by_name["stage-0"][0] == 0
    assert by_name["stage-2"] == (2, None, "invoke_dsp_agent", 3.1)
    assert by_name["stage-3.2"] == (3, 3.2, "continue_dsp_phase_3.3", 3.3)
    assert by_name["stage-3"] == (3, None, "invoke_gui_agent", 4.1)
    assert by_name["stage-4"] == (4, None, "begin_stage_5", None)
    assert by_name["working"] == (5, None, "install", None)


def test_plugins_md_has_both_locations_and_a_chronological_timeline(tmp_path):
    for _ in PluginPipeline(tmp_path, seed=4).steps():
        pass
    text = (tmp_path / "PLUGINS.md").read_text(encoding="utf-8")
    assert "| Plugin Name | Status | Version | Last Updated |" in text
    for name in ("MinimalKick", "GainKnob"):
        assert f"| {name} | 📦 Installed | 1.0.0 |" in text
        entry = text.split(f"### {name}\n", 1)[1].split("\n---", 1)[0]
        for field in ("**Status:** 📦 Installed", "**Version:**", "**Created:**", "**Type:**"):
            assert field in entry
        assert "**Description:**" in entry and "**Lifecycle Timeline:**" in entry
        dates = re.findall(r"^- \*\*(\d{4}-\d{2}-\d{2})(?: \(Stage [\d.]+\))?:\*\* \S", entry, re.M)
        assert len(dates) >= 8 and dates == sorted(dates)
        last = re.search(r"\*\*Last Updated:\*\* (\S+)", entry)
        assert last and last.group(1) == dates[-1]


@pytest.mark.parametrize("fault", sorted(PLUGIN_FAULTS))
@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_each_fault_trips_its_rule(tmp_path, fault, seed):
    pipeline = PluginPipeline(
        tmp_path, plugins=("MinimalKick", "GainKnob", "TapeWarm"), faults={fault}, seed=seed
    )
    fired: PluginStep | None = None
    for step in pipeline.steps():
        rules = {
            f.rule_id
            for f in audit_plugins(discover(tmp_path))
            if f.severity in (Severity.ERROR, Severity.WARNING)
        }
        if step.fault is None and fired is None:
            assert rules == set(), step.line()  # clean until the fault
            continue
        if fired is None:
            fired = step
            assert step.fault == fault
            assert EXPECTED_RULES[fault] <= rules, (step.line(), rules)
            break
    assert fired is not None
    assert pipeline.summary.faults[fault] == (fired.plugin, fired.seq)
    assert set(PLUGIN_FAULTS[fault].rules) == EXPECTED_RULES[fault]


def test_drift_fault_leaves_the_full_entry_behind_the_table(tmp_path):
    for step in PluginPipeline(tmp_path, faults={"plugin-drift"}, seed=2).steps():
        if step.fault:
            break
    registry = load_registry(discover(tmp_path))
    rec = registry.get(step.plugin)
    assert rec is not None and rec.table is not None and rec.entry is not None
    assert rec.table.status.display == step.status
    assert rec.entry.status is not None and rec.entry.status.display != step.status
    assert any(d.column == "status" for d in rec.drift)


def test_faults_are_reproducible_and_depend_on_the_seed(tmp_path):
    def run(seed: int, where: Path) -> tuple[list[str], dict[str, bytes]]:
        steps = [
            s.line() for s in PluginPipeline(where, faults=set(PLUGIN_FAULTS), seed=seed).steps()
        ]
        files = {
            p.relative_to(where).as_posix(): p.read_bytes() for p in where.rglob("*") if p.is_file()
        }
        return steps, files

    a = run(9, tmp_path / "a")
    assert a == run(9, tmp_path / "b")
    assert a[0] != run(10, tmp_path / "c")[0]


def test_tampering_is_sealed_again_by_the_next_update_of_that_plugin(tmp_path):
    fired = None
    for step in PluginPipeline(tmp_path, faults={"plugin-tamper"}, seed=1).steps():
        if step.fault:
            fired = step
        elif fired is not None and step.plugin == fired.plugin:
            # the next sub-agent recalculates the checksums (seed 3.2)
            assert "PLG-CONTRACT-TAMPERED" not in {
                f.rule_id for f in audit_plugins(discover(tmp_path))
            }
            break
    assert fired is not None


def test_writes_truncate_in_place_and_stop_ends_the_run(tmp_path):
    inodes = set()
    seen: list[PluginStep] = []
    pipeline = PluginPipeline(tmp_path, on_step=seen.append, seed=0)
    for step in pipeline.steps():
        inodes.add((tmp_path / "PLUGINS.md").stat().st_ino)
        if step.seq == 6:
            pipeline.stop()
    assert len(inodes) == 1  # same file rewritten, never replaced
    assert [s.seq for s in seen] == [1, 2, 3, 4, 5, 6]
    assert pipeline.summary.status == "stopped" and pipeline.summary.steps == 6


def test_run_with_pauses_completes(tmp_path):
    pipeline = PluginPipeline(tmp_path, plugins=("GainKnob",), fast=False, speed=1e6)
    summary = pipeline.run()
    assert summary.status == "completed"
    assert summary.steps == len(pipeline.order)


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown fault"):
        PluginPipeline(tmp_path, faults={"plugin-nope"})
    with pytest.raises(ValueError, match="directory name"):
        PluginPipeline(tmp_path, plugins=("../escape",))
    with pytest.raises(ValueError, match="speed"):
        PluginPipeline(tmp_path, speed=0)
