"""The suite's own rules for a busy machine: one Hypothesis profile (tests/conftest.py) that no
test overrides, and no deadline or speed health check anywhere."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, settings

HERE = Path(__file__).parent


def test_one_profile_with_no_deadline_and_no_speed_checks():
    assert settings.default.deadline is None
    for check in (HealthCheck.too_slow, HealthCheck.data_too_large):
        assert check in settings.default.suppress_health_check


def test_no_test_overrides_the_profile():
    overrides = re.compile(
        r"settings\(.*deadline|suppress_health_check|register_profile|load_profile"
    )
    found = [
        f"{p.name}:{n}"
        for p in sorted(HERE.rglob("*.py"))
        if p.name not in ("conftest.py", Path(__file__).name)
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if overrides.search(line)
    ]
    assert found == []
