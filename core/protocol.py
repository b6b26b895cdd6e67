"""Facts of the iSDLC protocol (docs/framework-facts.md) shared by the audit, simulator and writer."""

from __future__ import annotations

import re
from datetime import UTC, datetime

STATUS_RANK = {"pending": 0, "in_progress": 1, "completed": 2}
PHASE_STATUSES = frozenset(STATUS_RANK)

WORKFLOWS: dict[str, tuple[str, ...]] = {
    "feature": (
        "00-quick-scan",
        "01-requirements",
        "02-impact-analysis",
        "03-architecture",
        "04-design",
        "05-test-strategy",
        "06-implementation",
        "16-quality-loop",
        "08-code-review",
    ),
    "fix": (
        "01-requirements",
        "02-tracing",
        "05-test-strategy",
        "06-implementation",
        "16-quality-loop",
        "08-code-review",
    ),
    "build": ("05-test-strategy", "06-implementation", "16-quality-loop", "08-code-review"),
    "test-run": ("11-local-testing", "07-testing"),
    "upgrade": ("15-upgrade-plan", "15-upgrade-execute", "08-code-review"),
}
WORKFLOW_TYPES = frozenset({*WORKFLOWS, "test-generate"})

PHASE_ALIASES = {
    "13-test-deploy": "12-test-deploy",
    "14-production": "13-production",
    "15-operations": "14-operations",
    "16-upgrade-plan": "15-upgrade-plan",
    "16-upgrade-execute": "15-upgrade-execute",
}

# Agent names accepted per phase (docs/framework-facts.md, "Who runs a phase"): the controller's
# PHASE_AGENT_MAP (isdlc.md STEP 3c-prime, both eras: impact-analyst, software-designer,
# code-reviewer, quality-assurance-engineer, ...), the orchestrator's names, and the owners the
# skills manifest gives each phase (ownership.<agent>.phase, which hooks' delegation checks
# read: getAgentPhase in common.cjs). All are legal.
_AGENTS_BY_KEY = {
    "02-impact-analysis": {
        "impact-analysis-orchestrator",
        "impact-analyst",
        "impact-analyzer",
        "entry-point-finder",
        "risk-assessor",
        "cross-validation-verifier",
    },
    "02-tracing": {
        "tracing-orchestrator",
        "trace-analyst",
        "symptom-analyzer",
        "execution-path-tracer",
        "root-cause-identifier",
    },
    "09-validation": {"security-compliance-auditor"},
    "10-local-testing": {"quality-assurance-engineer"},
    "10-cicd": {"cicd-engineer"},
    "11-local-testing": {"quality-assurance-engineer", "integration-tester", "environment-builder"},
    "11-deployment": {"release-engineer"},
    "12-test-deploy": {"release-engineer", "deployment-engineer-staging"},
    "13-production": {"release-engineer", "release-manager"},
    "14-operations": {"site-reliability-engineer"},
}
_AGENTS_BY_PREFIX = {
    "00": {"quick-scan-agent"},
    "01": {"requirements-analyst"},
    "03": {"solution-architect"},
    "04": {"system-designer", "software-designer"},
    "05": {"test-design-engineer", "test-strategy-critic", "test-strategy-refiner"},
    "06": {"software-developer"},
    "07": {"integration-tester", "quality-assurance-engineer"},
    "08": {"qa-engineer", "code-reviewer"},
    "09": {"security-engineer"},
    "15": {"upgrade-engineer"},
    "16": {"quality-loop-engineer", "quality-assurance-engineer"},
}

# The phase keys the framework's installer writes as pending skeleton records when it sets a
# project up (src/core/installer generateState; docs/framework-facts.md, "The installer"). No
# workflow runs them; they stay until a workflow's init or the completion enforcer resets phases.
INSTALLER_PHASE_KEYS = frozenset(
    {
        "01-requirements",
        "02-architecture",
        "03-design",
        "04-test-strategy",
        "05-implementation",
        "06-testing",
        "07-code-review",
        "08-validation",
        "09-cicd",
        "10-local-testing",
        "11-test-deploy",
        "12-production",
        "13-operations",
    }
)

ESCALATION_TYPES = {
    "gate_blocked": "gate-blocker",
    "corridor_blocked": "iteration-corridor",
    "constitution_blocked": "constitution-validator",
}
MAX_ESCALATIONS = 20
ESCALATION_DEDUP_SECONDS = 60
MAX_REDOS = 3
REVIEW_STATUSES = frozenset({"gate_presented", "reviewing", "redo_pending", "completed"})
HOOK_EVENTS = frozenset(
    {
        "block",
        "allow",
        "warn",
        "error",
        "skip",
        "self-heal",
        "same-phase-bypass",
        "timeout_warning",
        "format-validation-warning",
        "template-drift",
    }
)

_PHASE_KEY = re.compile(r"^(\d{2})-[a-z0-9-]+$")


def canonical_phase(key: str) -> str:
    return PHASE_ALIASES.get(key, key)


def phase_prefix(key: str) -> str:
    """The part before the first ``-`` ("06" for "06-implementation")."""
    return key.split("-", 1)[0]


def is_phase_key(key: str) -> bool:
    return bool(_PHASE_KEY.match(key))


def agents_for(key: str) -> frozenset[str]:
    """Agent names accepted for a phase key; empty when the protocol names none."""
    key = canonical_phase(key)
    if key in _AGENTS_BY_KEY:
        return frozenset(_AGENTS_BY_KEY[key])
    return frozenset(_AGENTS_BY_PREFIX.get(phase_prefix(key), ()))


def primary_agent(key: str) -> str | None:
    key = canonical_phase(key)
    names = {
        "02-impact-analysis": "impact-analysis-orchestrator",
        "02-tracing": "tracing-orchestrator",
        "05": "test-design-engineer",
        "08": "qa-engineer",
        "16": "quality-loop-engineer",
    }
    if key in names:
        return names[key]
    prefix = phase_prefix(key)
    if prefix in names:
        return names[prefix]
    agents = _AGENTS_BY_PREFIX.get(prefix)
    return next(iter(agents)) if agents and len(agents) == 1 else None


_REVIEW_PREFIX = re.compile(r"[0-9]{2}")  # JavaScript \d: ASCII digits only


def review_phases(supervised_mode: object) -> str | list[str]:
    """``review_phases`` read exactly like the framework's ``readSupervisedModeConfig``.

    ``"all"`` unless the value is a list holding at least one two-digit prefix string (``"03"``);
    then only those prefixes. Anything else (``null``, ``"some"``, ``{}``, ``[0]``, full keys such
    as ``"00-quick-scan"``) falls back to ``"all"``: the gate fires for every phase.
    """
    value = supervised_mode.get("review_phases") if isinstance(supervised_mode, dict) else None
    if isinstance(value, list):
        prefixes = [p for p in value if isinstance(p, str) and _REVIEW_PREFIX.fullmatch(p)]
        if prefixes:
            return prefixes
    return "all"


def review_selected(supervised_mode: object, phase_key: str) -> bool:
    """Whether the review gate fires for ``phase_key`` (``shouldReviewPhase``): only when
    ``enabled`` is exactly ``true``."""
    if not isinstance(supervised_mode, dict) or supervised_mode.get("enabled") is not True:
        return False
    phases = review_phases(supervised_mode)
    return phases == "all" or phase_prefix(phase_key) in phases


def parse_iso(value: object) -> datetime | None:
    """Parse an ISO-8601 timestamp or date (``Z`` accepted); None if it is not one."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def now_iso() -> str:
    """Current UTC time the way the owner writes it: ``2026-03-04T09:12:03.418Z``."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
