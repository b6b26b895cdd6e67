"""One Hypothesis profile for the whole suite (no test overrides these settings).

The suite runs on loaded 2-core machines: no deadline (a slow example is not a failing one) and
no health check that judges speed or size (``too_slow``, ``data_too_large``; ``large_base_example``
is about size too). ``function_scoped_fixture``: the property tests that take ``tmp_path`` write
their own file names per example (each example's files are its own), so the fixture being shared
across examples is intended. Each test still sets its own ``max_examples``.
"""

from __future__ import annotations

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
