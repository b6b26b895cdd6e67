"""One Hypothesis profile for the whole suite (no test overrides these settings).

The suite runs on loaded 2-core machines: no deadline (a slow example is not a failing one) and
no health check that judges speed or size (``too_slow``, ``data_too_large``; ``large_base_example``
is about size too). ``function_scoped_fixture``: the property tests that take ``tmp_path`` write
their own file names per example (each example's files are its own), so the fixture being shared
across examples is intended. Each test still sets its own ``max_examples``.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "phasewatch",
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
        HealthCheck.function_scoped_fixture,
    ],
)
settings.load_profile("phasewatch")

#: ``-n auto`` starts this many workers per usable CPU. About a third of the suite's summed test
#: time is waiting (Pilot pauses, timers, subprocesses), not computing: one worker per core leaves
#: the cores idle that long, extra workers fill it. The whole suite on the shared 2-core machine
#: (wall s, and the CPU s other work took meanwhile): 3 workers 136 (31), 4 workers 127 (26), 6
#: workers 142 (29) with a sixth more CPU time (250 s against 215 s): past 4 they only contend
#: for the two cores. 2 workers: 201 (181) and 276 (302); no quiet run, 152-156 before.
WORKERS_PER_CPU = 2


@pytest.hookimpl(optionalhook=True)  # (make test-lowest runs without pytest-xdist)
def pytest_xdist_auto_num_workers(config) -> int | None:
    """``-n auto``: WORKERS_PER_CPU workers per usable CPU (``PYTEST_XDIST_AUTO_NUM_WORKERS``
    still decides when set)."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # (xdist's own hook reads it)
    affinity = getattr(os, "sched_getaffinity", None)  # (Linux: the CPUs this process may use)
    cpus = len(affinity(0)) if affinity else os.cpu_count() or 1
    return WORKERS_PER_CPU * cpus
