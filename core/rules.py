"""Every rule phasewatch can raise: the iSDLC modules' and each registered system's.

:func:`all_rules` imports every module that registers rules, so the table is complete (it feeds
``phasewatch check --rules``, SARIF and the README table, which a test keeps in step). The
systems' modules come from the :data:`~core.systems.SYSTEMS` registry (importing a system's
module imports its package, whose ``rules.py`` registers its rules); only the iSDLC modules are
listed here. It lives apart from ``core.findings`` because the systems registry imports
``core.findings``.
"""

from __future__ import annotations

import importlib

from .findings import Rule, registered_rules
from .systems import registered

#: The iSDLC side (the state, its reads and the hook log), which is no system of the registry.
ISDLC_RULE_MODULES = (
    "phasewatch.core.findings",
    "phasewatch.core.checks",
    "phasewatch.core.sources",
    "phasewatch.core.models",
    "phasewatch.core.audit",
    "phasewatch.core.hooklog",
)


def rule_modules() -> tuple[str, ...]:
    """Every module that registers rules: the iSDLC ones, then each system's module."""
    return ISDLC_RULE_MODULES + tuple(key.where.partition(":")[0] for key in registered())


def all_rules() -> list[Rule]:
    """Every rule, sorted by id (each rule module imported first)."""
    for name in rule_modules():
        importlib.import_module(name)
    return registered_rules()
