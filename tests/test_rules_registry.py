"""The rule registry: complete definitions, unique ids, and every id the tests produce is
registered; every audit rule has a failing case in the audit test tables."""

from __future__ import annotations

import re

from phasewatch.core import audit
from phasewatch.core.audit import audit_state, audit_transition
from phasewatch.core.findings import Finding, Severity, get_rule
from phasewatch.core.models import parse_state
from phasewatch.core.rules import all_rules

from tests import factories as F
from tests.helpers.audit_snapshot_cases import SNAPSHOT_CASES, WALKS
from tests.helpers.audit_transition_cases import TRANSITION_CASES

SRC = ".isdlc/state.json"
ID = re.compile(r"^[A-Z]+(-[A-Z0-9]+)+$")
SCOPES = {"snapshot", "transition", "read", "hooklog", "tdd", "plugins"}


def test_every_registered_rule_is_complete() -> None:
    rules = all_rules()
    assert rules
    seen: set[str] = set()
    for r in rules:
        assert r.id not in seen, r.id
        seen.add(r.id)
        assert ID.match(r.id), r.id
        assert r.title.strip() and r.seed.strip() and r.fix.strip(), r.id
        assert isinstance(r.severity, Severity)
        assert r.scope in SCOPES, (r.id, r.scope)
        assert get_rule(r.id) is r


def test_audit_rules_are_registered_with_their_scope() -> None:
    ids = [r.id for r in audit.RULES]
    assert len(ids) == len(set(ids))
    for r in audit.RULES:
        assert get_rule(r.id) == r
        assert r.scope == ("transition" if r.id.startswith("TR-") else "snapshot"), r.id
    families = {r.id.split("-")[0] for r in audit.RULES}
    assert {
        "SYNC",
        "INIT",
        "BOUNDS",
        "FINAL",
        "FIELD",
        "EVID",
        "ESC",
        "REV",
        "TIME",
        "ALIAS",
        "TR",
    } <= families


def _corpus_findings() -> list[Finding]:
    found: list[Finding] = []
    for case in SNAPSHOT_CASES:
        for doc in (case.bad(), case.good()):
            state, schema = parse_state(doc, SRC)
            found += schema + audit_state(state, doc, SRC)
    for tcase in TRANSITION_CASES:
        for prev, cur in (tcase.bad(), tcase.good()):
            ps, _ = parse_state(prev, SRC)
            cs, _ = parse_state(cur, SRC)
            found += audit_transition(ps, prev, cs, cur, SRC)
    for walk in WALKS.values():
        prev_state = prev_doc = None
        for _, doc in walk():
            state, _ = parse_state(doc, SRC)
            found += audit_state(state, doc, SRC)
            if prev_state is not None:
                found += audit_transition(prev_state, prev_doc, state, doc, SRC)
            prev_state, prev_doc = state, doc
    return found


def test_every_finding_produced_in_tests_uses_a_registered_rule() -> None:
    registered = {r.id for r in all_rules()}
    produced = {f.rule_id for f in _corpus_findings()}
    assert produced, "the corpus produced no findings"
    assert produced <= registered, produced - registered


def test_every_audit_rule_has_a_failing_and_a_passing_case() -> None:
    covered = {c.rule_id for c in SNAPSHOT_CASES} | {c.rule_id for c in TRANSITION_CASES}
    missing = {r.id for r in audit.RULES} - covered - {"AUDIT-INTERNAL"}
    assert not missing, f"rules without a test case: {sorted(missing)}"
    unknown = covered - {r.id for r in audit.RULES}
    assert not unknown, unknown


def test_finding_severity_defaults_to_the_rule() -> None:
    doc = F.setpath(F.feature_state(), "active_workflow.phase_status.04-design", "in_progress")
    state, _ = parse_state(doc, SRC)
    for f in audit_state(state, doc, SRC):
        if f.rule_id == "SYNC-STATUS":
            assert f.severity == get_rule("SYNC-STATUS").severity
            assert f.hint == get_rule("SYNC-STATUS").fix


def test_plain_words_on_screen_references_apart() -> None:
    """Titles and fixes of the iSDLC rules carry no spec references: those live in ``seed``."""
    ref = re.compile(r"\b(BUG|REQ|INV|FR|IR|AC|TS|NFR)-\d|\bseed\b|§")
    for r in all_rules():
        if r.scope in ("snapshot", "transition"):
            assert not ref.search(r.title) and not ref.search(r.fix), r.id


def test_all_rules_misses_no_module_that_registers_rules() -> None:
    """In a fresh interpreter, all_rules() then importing every module of core registers no rule
    more: no rule module is left out (the systems' ones come from SYSTEMS)."""
    import subprocess
    import sys

    code = (
        "import importlib, pkgutil\n"
        "import phasewatch.core as core\n"
        "from phasewatch.core.findings import registered_rules\n"
        "from phasewatch.core.rules import all_rules\n"
        "first = {r.id for r in all_rules()}\n"
        "for m in pkgutil.walk_packages(core.__path__, 'phasewatch.core.'):\n"
        "    if not m.name.endswith('__main__'):\n"
        "        importlib.import_module(m.name)\n"
        "print(sorted({r.id for r in registered_rules()} - first))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]", proc.stdout


def test_the_rule_modules_follow_the_systems_registry(monkeypatch) -> None:
    from phasewatch.core import rules, systems

    for key in systems.SYSTEMS:
        assert key.where.partition(":")[0] in rules.rule_modules()
    extra = systems.SystemKey("extra", "phasewatch.core.diff:diff_json", lambda p: ())
    monkeypatch.setattr(systems, "SYSTEMS", (*systems.SYSTEMS, extra))
    assert rules.rule_modules()[-1] == "phasewatch.core.diff"
