"""phasewatch's iSDLC verdicts against the real framework's (tests/conformance/isdlc/corpus).

Every state in the corpus was written and judged by the framework's own code (see the README
there). The contract:

- a state the framework accepts without a warning (validator allow, no V1-V3/V9 warning,
  ``validate-state.cjs`` VALID) gets no error and no warning from phasewatch;
- every V9 warning has a phasewatch finding at the location it names, every V1-V3 warning an
  evidence finding;
- a state ``validate-state.cjs`` calls INVALID gets an error;
- a write the validator blocks (V7/V8) is an error of the transition audit;
- consecutive accepted writes are a legal transition (no error or warning);
- the review gate fires exactly when ``readSupervisedModeConfig`` + ``shouldReviewPhase`` say so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core.audit import audit_transition
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.models import parse_state
from phasewatch.core.protocol import review_selected
from phasewatch.core.snapshot import evaluate

CORPUS = Path(__file__).parent / "conformance" / "isdlc" / "corpus"
SOURCE = ".isdlc/state.json"
LOUD = (Severity.ERROR, Severity.WARNING)


def _scenarios() -> list[dict[str, Any]]:
    docs = [json.loads(p.read_text()) for p in sorted(CORPUS.glob("*.json"))]
    return [d for d in docs if "steps" in d]


STEPS = [
    pytest.param(doc, i, id=f"{doc['scenario']}#{i}:{step['step']}")
    for doc in _scenarios()
    for i, step in enumerate(doc["steps"])
]


def _warnings(step: dict[str, Any]) -> list[dict[str, str]]:
    return (step.get("validator") or {}).get("warnings") or []


def accepted_quietly(step: dict[str, Any]) -> bool:
    """The framework took the write and said nothing about it."""
    verdict = step.get("validate_state") or {}
    return (
        step.get("persisted", True)
        and not _warnings(step)
        and verdict.get("result") == "VALID"
        and not verdict.get("warnings")
    )


def findings(state: dict[str, Any]) -> list[Finding]:
    return list(evaluate(state, SOURCE).findings)


def loud(found: list[Finding]) -> list[str]:
    return [f"{f.rule_id} {f.path}: {f.message}" for f in found if f.severity in LOUD]


def _v9_paths(warning: dict[str, str]) -> set[str]:
    if warning["rule"] == "V9-A":
        key = re.search(r"divergence for '([^']+)'", warning["text"]).group(1)
        return {f"phases.{key}.status", f"active_workflow.phase_status.{key}", f"phases.{key}"}
    if warning["rule"] == "V9-B":
        return {"current_phase"}
    return {"active_workflow.current_phase_index", "active_workflow.current_phase"}


def test_corpus_is_there() -> None:
    assert len(STEPS) >= 80
    assert any(accepted_quietly(s.values[0]["steps"][s.values[1]]) for s in STEPS)


# a blocked write never became the file: it is judged as a transition only
PERSISTED = [p for p in STEPS if p.values[0]["steps"][p.values[1]].get("persisted", True)]


@pytest.mark.parametrize(("doc", "i"), PERSISTED)
def test_state_verdict_agrees(doc: dict[str, Any], i: int) -> None:
    step = doc["steps"][i]
    found = findings(step["state"])
    if accepted_quietly(step):
        assert loud(found) == []
    for warning in _warnings(step):
        if warning["rule"].startswith("V9"):
            paths = _v9_paths(warning)
            assert any(f.path in paths for f in found), (warning, [f.path for f in found])
        else:
            assert any(f.rule_id.startswith("EVID-") for f in found), warning
    if (step.get("validate_state") or {}).get("result") == "INVALID":
        assert any(f.severity is Severity.ERROR for f in found), step["validate_state"]


def _pair(doc: dict[str, Any], i: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    step = doc["steps"][i]
    if "previous" in step:
        return step["previous"], step["state"]
    if i == 0:
        return None
    return doc["steps"][i - 1]["state"], step["state"]


def _transition(prev: dict[str, Any], cur: dict[str, Any]) -> list[Finding]:
    ps, _ = parse_state(prev, SOURCE)
    cs, _ = parse_state(cur, SOURCE)
    return audit_transition(ps, prev, cs, cur, SOURCE)


def _has_previous(doc: dict[str, Any], i: int) -> bool:
    pair = _pair(doc, i)
    return pair is not None and isinstance(pair[0], dict) and bool(pair[0])


WRITES = [p for p in STEPS if _has_previous(*p.values)]


@pytest.mark.parametrize(("doc", "i"), WRITES)
def test_transition_verdict_agrees(doc: dict[str, Any], i: int) -> None:
    step = doc["steps"][i]
    pair = _pair(doc, i)
    assert pair is not None
    found = _transition(*pair)
    if not step.get("persisted", True):
        assert any(f.severity is Severity.ERROR for f in found), step["validator"]["reason"]
    elif "validator" in step and accepted_quietly(step):
        assert loud(found) == []


SUPERVISED = json.loads((CORPUS / "supervised-mode.json").read_text())["rows"]


@pytest.mark.parametrize(
    "row", SUPERVISED, ids=[f"{json.dumps(r['supervised_mode'])}-{r['phase']}" for r in SUPERVISED]
)
def test_review_selection_is_the_framework_parser(row: dict[str, Any]) -> None:
    assert review_selected(row["supervised_mode"], row["phase"]) is row["reviewed"]
