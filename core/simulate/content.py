"""Realistic words for a simulated project: descriptions, agents, summaries, hook reasons,
escalation details, review summaries. Pure data and small formatting helpers."""

from __future__ import annotations

import random

from msgspec import Struct

from ..protocol import phase_prefix, primary_agent


class Topic(Struct, frozen=True):
    description: str
    slug: str
    noun: str  # what the work is about, for summaries
    module: str  # source package name


FEATURE_TOPICS = (
    Topic("Add rate limiting to the public API", "rate-limit", "rate limiter", "ratelimit"),
    Topic("Export monthly reports as CSV", "csv-export", "CSV exporter", "reports"),
    Topic("Single sign-on with OpenID Connect", "oidc-sso", "OIDC login flow", "auth"),
    Topic(
        "Webhook retries with exponential backoff", "webhook-retry", "webhook retry queue", "hooks"
    ),
    Topic("Audit trail for admin actions", "admin-audit-trail", "audit trail", "audit"),
    Topic("Café menu localisation (fr, de, ja)", "menu-i18n", "localised menu catalogue", "i18n"),
)
FIX_TOPICS = (
    Topic(
        "Session cookie not refreshed after password change",
        "session-cookie-refresh",
        "session refresh",
        "auth",
    ),
    Topic(
        "Duplicate invoices when payment webhook is retried",
        "duplicate-invoices",
        "invoice idempotency",
        "billing",
    ),
    Topic(
        "Timezone drift in scheduled report emails",
        "report-tz-drift",
        "report scheduler",
        "scheduler",
    ),
    Topic(
        "Upload fails for file names with non-ASCII characters",
        "non-ascii-upload",
        "upload path encoding",
        "uploads",
    ),
)
PROJECT_NAMES = ("orders-service", "acme-portal", "billing-api", "field-notes", "atlas-web")

SUB_AGENTS = {
    "00-quick-scan": ("quick-scan-agent",),
    "01-requirements": ("requirements-analyst", "domain-researcher"),
    "02-impact-analysis": ("impact-analyzer", "entry-point-finder", "risk-assessor"),
    "02-tracing": ("trace-code-analyzer", "execution-path-tracer", "trace-synthesizer"),
    "03-architecture": ("solution-architect", "adr-writer"),
    "04-design": ("system-designer", "interface-designer"),
    "05-test-strategy": ("test-design-engineer", "test-case-generator"),
    "06-implementation": ("software-developer", "test-writer", "refactoring-assistant"),
    "16-quality-loop": ("quality-loop-engineer", "test-runner", "coverage-analyzer", "lint-fixer"),
    "08-code-review": ("qa-engineer", "security-reviewer"),
}

SKILLS = {
    "00": ("QS-001", "codebase-scan"),
    "01": ("REQ-002", "requirements-elicitation"),
    "02": ("IA-003", "impact-mapping"),
    "03": ("ARCH-001", "architecture-decision"),
    "04": ("DES-004", "module-design"),
    "05": ("TEST-002", "test-case-design"),
    "06": ("DEV-001", "code-implementation"),
    "16": ("QL-002", "quality-loop"),
    "08": ("QA-005", "code-review"),
}

# Which iteration requirements a phase has (the framework's iteration-requirements.json, roughly)
REQUIREMENTS = {
    "00": frozenset(),
    "01": frozenset({"elicitation", "constitution"}),
    "02": frozenset(),
    "03": frozenset({"constitution"}),
    "04": frozenset({"constitution"}),
    "05": frozenset({"constitution"}),
    "06": frozenset({"tests", "constitution"}),
    "07": frozenset({"tests"}),
    "11": frozenset({"tests"}),
    "16": frozenset({"tests"}),
    "08": frozenset({"constitution"}),
}

ARTICLES = ("I", "II", "III", "V", "VII", "IX", "X", "XIV")

SUMMARIES = {
    "00": "Quick scan: {n} modules touched, scope {scope}; no blocking unknowns for the {noun}",
    "01": "Captured {n} functional and 4 non-functional requirements for the {noun}; 3 user stories approved",
    "02": "Impact analysis: {n} entry points and 2 high-risk call paths affected by the {noun}",
    "03": "Architecture: ADR-00{n} records the {noun} design; no new external dependencies",
    "04": "Module design for the {noun}: {n} interfaces, error taxonomy and config schema defined",
    "05": "Test strategy: {n} test cases (unit, integration, contract) mapped to every requirement",
    "06": "Implemented the {noun}; {n} tests passing, coverage 91%, all constitutional articles met",
    "07": "Integration tests green against the staging stack ({n} suites)",
    "08": "Code review passed: {n} minor findings fixed, no blockers, security review clean",
    "11": "Local test run: {n} suites passing",
    "16": "Quality loop: {n} iterations, lint clean, coverage 91%, mutation score 78%",
}

TRACE_SUMMARY = "Root cause traced for the {noun}: {n} call paths analysed, fault isolated"


def agent_for(key: str) -> str:
    return primary_agent(key) or "sdlc-orchestrator"


def summary_for(key: str, topic: Topic, rng: random.Random) -> str:
    prefix = phase_prefix(key)
    template = TRACE_SUMMARY if key == "02-tracing" else SUMMARIES.get(prefix, "{noun}: phase done")
    text = template.format(noun=topic.noun, n=rng.randint(3, 48), scope="medium")
    return text[:150]


def artifacts_for(key: str, folder: str, topic: Topic) -> list[str]:
    prefix = phase_prefix(key)
    mod = topic.module
    table = {
        "00": [f"docs/requirements/{folder}/quick-scan.md"],
        "01": [
            f"docs/requirements/{folder}/requirements-spec.md",
            f"docs/requirements/{folder}/user-stories.json",
        ],
        "02": [f"docs/requirements/{folder}/impact-analysis.md"],
        "03": [
            f"docs/architecture/{folder}/architecture-overview.md",
            f"docs/architecture/{folder}/adr-0007-{topic.slug}.md",
        ],
        "04": [
            f"docs/design/{folder}/module-design.md",
            f"docs/design/{folder}/interface-spec.yaml",
        ],
        "05": [
            f"docs/requirements/{folder}/test-strategy.md",
            f"docs/requirements/{folder}/test-cases.md",
        ],
        "06": [f"src/{mod}/__init__.py", f"src/{mod}/core.py", f"tests/{mod}/test_core.py"],
        "16": [f"docs/quality/{folder}/quality-report.md"],
        "08": [f"docs/requirements/{folder}/code-review-report.md"],
    }
    if key == "02-tracing":
        return [f"docs/requirements/{folder}/trace-analysis.md"]
    return table.get(prefix, [f"docs/{folder}/{key}.md"])


def gate_block_detail(key: str, iteration: int, max_iterations: int, failing: int) -> str:
    return (
        f"GATE BLOCKED: Iteration requirements not satisfied for phase '{key}'.\n"
        "\n"
        "Unsatisfied requirements:\n"
        f"  - test_iteration: tests not passing (last result: FAILED, iteration "
        f"{iteration}/{max_iterations})\n"
        f"    {failing} failing test(s); see the last test command output.\n"
        "\n"
        "The phase cannot advance until every iteration requirement is met.\n"
        "Options:\n"
        "  [R] Retry  - re-run the phase agent with the failure context\n"
        "  [S] Skip   - override the gate and continue (recorded in the audit trail)\n"
        "  [C] Cancel - cancel the workflow"
    )


def corridor_block_detail(key: str, iteration: int) -> str:
    return (
        f"ITERATION CORRIDOR: TEST_CORRIDOR active for phase '{key}'.\n"
        "\n"
        f"Tests are failing (iteration {iteration}). Advance and delegation requests are\n"
        "blocked until the tests pass. Allowed: Bash (test commands), Read, Write, Edit.\n"
        "Blocked request: Task(advance to next phase)"
    )


def constitution_block_detail(key: str, articles: list[str]) -> str:
    listed = "\n".join(f"  - Article {a}: not yet validated" for a in articles)
    return (
        f"CONSTITUTIONAL VALIDATION REQUIRED for phase '{key}'.\n"
        "\n"
        "The phase's artifacts have not been validated against the project constitution:\n"
        f"{listed}\n"
        "\n"
        "Run the constitutional self-check (max 5 iterations) before completing the phase."
    )


def review_summary(
    key: str,
    title: str,
    summary: str,
    artifacts: list[str],
    minutes: float,
    redo_count: int,
    completed_at: str,
) -> str:
    prefix = phase_prefix(key)
    lines = [
        f"# Phase {prefix} Summary: {title}",
        "",
        "**Status**: Completed",
        f"**Completed**: {completed_at}",
        f"**Duration**: {minutes:g} minutes",
        f"**Artifacts**: {len(artifacts)} files",
    ]
    if redo_count:
        lines.append(f"**Redo**: {redo_count} of 3")
    lines += ["", "## Summary", "", summary, "", "## Key Decisions", ""]
    lines += [
        "- Kept the change behind a feature flag until code review",
        "- Reused the existing error taxonomy instead of adding new exception types",
        "",
        "## Artifacts Created/Modified",
        "",
        "| File | Status |",
        "|------|--------|",
    ]
    lines += [f"| `{path}` | Created |" for path in artifacts]
    lines += [
        "",
        "## Review Options",
        "",
        "[C] Continue to the next phase  [R] Review artifacts  [D] Redo this phase",
        "",
    ]
    return "\n".join(lines)


def phase_title(key: str) -> str:
    return key.split("-", 1)[1].replace("-", " ").title() if "-" in key else key


def same_phase_reason(sub_agent: str, key: str) -> str:
    return f"Sub-agent '{sub_agent}' targets active phase {key} (intra-phase delegation)"
