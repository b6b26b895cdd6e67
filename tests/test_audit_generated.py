"""phasewatch's verdicts against the real framework's on the generated corpus: seeded random
walks of the framework's own code (both eras) and single-field mutations of their states, each
judged by the framework's own validators (``make corpus``; tests/conformance/isdlc/README.md).

The severity contract (docs/severity.md) as five figures, each of which must hold on every
record: see :mod:`tests.helpers.generated_corpus`.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import generated_corpus as G

FIGURES = G.FIGURES


def test_the_corpus_is_large_and_covers_both_eras_and_mutations() -> None:
    header, records = G.load()
    counts = header["counts"]
    assert len(records) == sum(counts.values())
    for kind in ("antigravity/walk", "claude/walk", "antigravity/mutation", "claude/mutation"):
        assert counts.get(kind, 0) >= 150, (kind, counts)


@pytest.mark.parametrize(
    "step",
    [
        "workflow-init --type",  # every init
        "process.json",  # phases skipped by the project's process.json (recorded in the step)
        "--interrupt -> INITIALIZED",
        "workflow-retry -> RETRIED",
        "workflow-rollback --to-phase",
        "workflow-finalize --skip-merge -> FINALIZED",
        "completion enforcer",
        "phase-advance -> ADVANCED",
        "orchestrator init-only",
        "3c-prime",
        "3e ",
        "gate continue",
        "gate review",
        "gate redo",
        "escalation answer retry",
        "escalation answer skip",
        "cancel (orchestrator)",
    ],
)
def test_the_walks_drive_every_step(step: str) -> None:
    _, records = G.load()
    assert any(step in r["step"] for r in records if r["kind"] == "walk"), step


def test_the_framework_raises_every_verdict_somewhere() -> None:
    """A corpus in which the framework never objects would prove nothing (the cases are the
    framework's verdicts: no need to judge the corpus for them)."""
    figs = G.figures(G.unjudged())
    for name in FIGURES:
        assert figs[name].cases >= 20, figs[name]


# The corpus is judged in parts (G.judged_part, ~30 s in all, cached per process); the tests of
# one part share an xdist_group, so with ``--dist loadgroup`` (make test) one worker judges it.
@pytest.mark.parametrize(
    ("name", "part"),
    [
        pytest.param(name, part, marks=pytest.mark.xdist_group(f"generated-corpus-{part}"))
        for part in range(G.PARTS)
        for name in FIGURES
    ],
)
def test_agreement(name: str, part: int) -> None:
    fig = G.figures(G.judged_part(part))[name]
    assert fig.held == fig.cases, f"{fig}\n" + "\n".join(fig.misses[:20])


def test_the_parts_are_the_whole_corpus() -> None:
    _, records = G.load()
    indexes = sorted(i for part in G.parts() for i in part)
    assert indexes == list(range(len(records)))
    part = {i: n for n, indexes in enumerate(G.parts()) for i in indexes}
    assert all(part[r["prev"]] == part[r["i"]] for r in records if r["prev"] is not None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(json_values, json_values)
def test_a_state_stored_as_a_change_comes_back_whole(old: object, new: object) -> None:
    """The corpus stores most states as their change from the one before (compact)."""
    assert G.patch(old, G.diff(old, new)) == new
