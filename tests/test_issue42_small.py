"""The smaller items of issue 42 (deliverable 6/7), one test each."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from phasewatch.core.export import to_sarif
from phasewatch.core.findings import Severity
from phasewatch.core.report import audit_project
from phasewatch.core.rules import all_rules
from phasewatch.core.sources import ReadResult, read_finding
from phasewatch.core.tdd import parse_progress
from phasewatch.core.tdd.rules import audit_tdd


def test_rules_in_a_pipe_keep_every_id_on_one_line_for_grep(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "phasewatch", "check", "--rules"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )  # stdout is a pipe
    lines = done.stdout.splitlines()
    rules = all_rules()
    for r in rules:
        hits = [line for line in lines if line.startswith(f"{r.id}\t")]
        assert len(hits) == 1, r.id
        assert hits[0].split("\t")[1] == str(r.severity)
    assert lines[-1] == f"{len(rules)} rules"


def test_a_mistyped_command_gets_did_you_mean(tmp_path: Path):
    for typo, meant in (("chek", "check"), ("reviw", "review"), ("compltion", "completion")):
        done = subprocess.run(
            [sys.executable, "-m", "phasewatch", typo],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert done.returncode == 2
        assert f"did you mean `phasewatch {meant}`?" in done.stderr
    (tmp_path / "chek").mkdir()  # a directory of that name is a directory, not a typo
    from phasewatch.tui.cli import _did_you_mean

    assert _did_you_mean([str(tmp_path / "chek")]) is None
    assert _did_you_mean(["zzzz-no-such"]) is None


def test_a_torn_read_promises_the_last_good_version_only_when_one_was_read():
    torn = ReadResult(Path("s.json"), "torn", error="Expecting value at line 3 column 1")
    never = read_finding(torn, ".isdlc/state.json", kept=False)
    assert "last good version" not in (never.hint or "") + never.message
    seen = read_finding(torn, ".isdlc/state.json", kept=True)
    assert "last good version" in seen.hint and "last good version" in seen.message
    assert " at at " not in never.message + (never.hint or "")


def test_hook_miscount_reads_in_words():
    """Was "0 slice lines − 1 terminal Status lines": a subtraction below zero, in symbols."""
    text = (
        "# F\n\n**Approved:** 2026-01-01\n\n### Slice 1: a\n\n**Status:** done\n\n"
        "### Slice 2: b\n\n**Status:** pending\n"
    )
    found = [f for f in audit_tdd(parse_progress(text.encode()), "f")]
    f = next(f for f in found if f.rule_id == "TDD-HOOK-MISCOUNT")
    assert "−" not in f.message
    assert (
        "finds 0 slice headings and 1 terminal Status line, so it counts 0 remaining" in f.message
    )


def test_sarif_rule_names_are_not_their_ids():
    rules = all_rules()
    doc = to_sarif(audit_project(Path(__file__).parent), rules, "0")
    descriptors = doc["runs"][0]["tool"]["driver"]["rules"]
    assert len(descriptors) == len(rules)
    assert all(
        d["name"] != d["id"] and re.fullmatch(r"[A-Z][A-Za-z0-9]*", d["name"]) for d in descriptors
    )
    assert len({d["name"] for d in descriptors}) == len(descriptors)
    assert Severity.ERROR  # (the import is the findings' own)


def test_completion_descriptions_show_no_raw_markup():
    for shell in ("bash", "zsh", "tcsh"):
        done = subprocess.run(
            [sys.executable, "-m", "phasewatch", "completion", shell],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "``" not in done.stdout and "**" not in done.stdout, shell


async def test_the_palette_has_one_keys_entry(tmp_path: Path):
    from phasewatch.tui.app import PhasewatchApp

    from tests.helpers.app import frozen_clock

    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(120, 36)):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles.count("Keys") == 1 and len(titles) == len(set(titles))


async def test_escalation_keys_are_not_offered_when_nothing_is_pending(tmp_path: Path):
    from phasewatch.tui.app import PhasewatchApp
    from phasewatch.tui.screens.escalations import EscalationsScreen

    from tests import factories as F
    from tests.helpers.app import frozen_clock, wait_until, write_state

    write_state(tmp_path / ".isdlc" / "state.json", F.feature_state())  # no escalation
    app = PhasewatchApp(tmp_path, clock=frozen_clock, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        app.action_console("escalations", "any")
        await wait_until(pilot, lambda: isinstance(app.screen, EscalationsScreen))
        screen = app.screen
        for action, params in (("answer", ("retry",)), ("skip", ()), ("cancel_workflow", ())):
            assert screen.check_action(action, params) is False
        shown = {b.binding.description for b in screen.active_bindings.values() if b.enabled}
        assert not {"Retry phase", "Skip (override)…", "Cancel workflow…"} & shown


def test_the_i_marker_legend_says_where_i_stands_after_a_phase_completes():
    """Between STEP 3e and the next start, I marks current_phase's row (core.locations), so the
    legend cannot say only "the phase at current_phase_index"."""
    from phasewatch.core.locations import location_rows
    from phasewatch.core.models import parse_state
    from phasewatch.widgets.location_matrix import POINTER_LEGEND, pointer_text

    from tests.helpers.repair import PHASES, state

    doc = state(1)
    doc["phases"][PHASES[1]]["status"] = "completed"  # STEP 3e: completed, index one past
    doc["active_workflow"]["phase_status"][PHASES[1]] = "completed"
    doc["active_workflow"]["current_phase_index"] = 2
    parsed = parse_state(doc, "s")[0]
    rows = {r.key: r for r in location_rows(parsed)}
    assert "I" in pointer_text(rows[PHASES[1]]) and "I" not in pointer_text(rows[PHASES[2]])
    assert "one past a phase just completed: I stays on it" in POINTER_LEGEND


def test_the_plugin_screen_speaks_plain_words():
    """Was `contract numbering (0, 2-6)`, `stage ? · 0-6` and `? unsealed`."""
    from phasewatch.widgets import plugin_table as T

    assert all("contract" not in v and "?" not in v for v in T.NUMBERINGS.values())
    assert all(v.startswith("of ") for v in T.SHORT_NUMBERING.values())
    source = Path(T.__file__).read_text(encoding="utf-8")
    assert '"? unsealed"' not in source and "no checksum yet" in source
