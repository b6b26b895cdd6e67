"""The framework's checks are JavaScript; :mod:`core.audit.framework` mirrors them in Python.
Its value helpers (truthiness, ``===``, ``<``) are held to node itself on generated JSON values
(skipped where node is not installed)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from typing import Any

import pytest
from phasewatch.core.audit import framework as F

NODE = shutil.which("node")
ATOMS: list[Any] = [
    None, True, False, 0, 1, -1, 2, 0.5, 1.0, 10, 9, 1e21, -0.0,
    "", "0", "1", "10", "9", " 12 ", "1e3", "0x1A", "0b11", "0o7", "abc", "Infinity", "-Infinity",
    "pending", "in_progress", "completed", "\u200b", "06-implementation",
    [], [1], [1, 2], ["2"], [[]], [None], {}, {"a": 1},
]  # fmt: skip


def _values(n: int, seed: int) -> list[tuple[Any, Any]]:
    rng = random.Random(seed)
    return [(rng.choice(ATOMS), rng.choice(ATOMS)) for _ in range(n)]


def _node(pairs: list[tuple[Any, Any]]) -> list[list[bool]]:
    script = (
        "const pairs = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(pairs.map(([a, b]) => [!!a, a === b, a < b])));"
    )
    out = subprocess.run(
        [NODE or "node", "-e", script], input=json.dumps(pairs), capture_output=True, text=True,
        check=True, timeout=60,
    )  # fmt: skip
    return json.loads(out.stdout)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_truthiness_equality_and_order_are_javascripts() -> None:
    pairs = _values(3000, seed=24)
    # every atom against every atom too, so no pair is left to chance
    pairs += [(a, b) for a in ATOMS for b in ATOMS]
    # JSON round trip: what node receives is what Python compares
    pairs = [tuple(p) for p in json.loads(json.dumps(pairs))]
    for (a, b), (t, eq, lt) in zip(pairs, _node(pairs), strict=True):
        assert F.truthy(a) is t, (a,)
        assert F.strict_equal(a, b) is eq, (a, b)
        assert F.less(a, b) is lt, (a, b)
