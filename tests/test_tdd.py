"""phasewatch.core.tdd: parsing .tdd-progress.md, the stop hook's count, the rules, loading."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.sources import Project
from phasewatch.core.tdd import (
    TDD_MAX_BYTES,
    StopHookView,
    TddPlan,
    audit_tdd,
    load_tdd,
    normalise_status,
    parse_progress,
    slice_numbers,
    stop_hook_view,
    true_remaining,
)

FIXTURES = Path(__file__).parent / "fixtures" / "tdd"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def plan_text(
    *slices: str,
    status: str = "in-progress",
    approved: str | None = "**Approved:** 2026-03-02T14:03:11Z",
    style: str = "planner",
) -> str:
    head = ["# TDD Task: Example", "", f"**Status:** {status}", "**Created:** 2026-03-01"]
    head.append("**Last Updated:** 2026-03-02")
    if approved is not None:
        head.append(approved)
    head += ["", "---", ""]
    if style == "template":
        head += ["## Test Specifications", ""]
    return "\n".join(head) + "\n" + "\n".join(slices)


def sl(
    n: int,
    status: str = "pending",
    *,
    level: int = 2,
    red: str = "pending",
    green: str = "pending",
    refactor: str = "pending",
    depends: str = "none",
    blocks: str = "none",
) -> str:
    h = "#" * level
    return f"""{h} Slice {n}: Slice number {n}

**Status:** {status}
**Source:** `lib/s{n}.dart`
**Tests:** 1

{h}# Test 1: does thing {n}
Given: a precondition
When: an action
Then: an outcome

{h}# Phase Tracking
- **RED:** {red}
- **GREEN:** {green}
- **REFACTOR:** {refactor}

**Depends on:** {depends} | **Blocks:** {blocks}

---
"""


def ids(findings) -> list[str]:
    return sorted(f.rule_id for f in findings)


def by_id(findings, rule_id):
    found = [f for f in findings if f.rule_id == rule_id]
    assert len(found) == 1, findings
    return found[0]


# ---------------------------------------------------------------------------- parsing


def test_planner_fixture():
    p = parse_progress(fixture("planner.md"))
    assert p.task == "Rate limiter for the upload API"
    assert (p.header_status_raw, p.header_status) == ("in-progress", "in_progress")
    assert p.created == "2026-03-02" and p.last_updated == "2026-03-04T10:15:00Z"
    assert p.approved == "2026-03-02T14:03:11Z" and p.approved_in_header
    assert p.approved_at is not None and p.approved_at.hour == 14
    assert p.heading_style == "planner"
    assert [(s.number, s.status) for s in p.slices] == [
        (1, "done"),
        (2, "in_progress"),
        (3, "pending"),
    ]
    s1, s2, s3 = p.slices
    assert s1.name == "Token bucket core" and s1.level == 2 and s1.line_no == 16
    assert s1.source == "lib/limiter/bucket.dart"
    assert s1.tests_count == 3 and len(s1.test_specs) == 3
    assert all(t.given and t.when and t.then for t in s1.test_specs)
    assert (s1.acceptance_ticked, s1.acceptance_total) == (1, 2)
    assert s1.phases == {"RED": "done", "GREEN": "done", "REFACTOR": "skipped (nothing to clean)"}
    assert s1.blocks == (2, 3) and s1.depends_on == ()
    assert s2.status_raw == "IN_PROGRESS (GREEN running)" and s2.status_note == "GREEN running"
    assert s2.tests == ("test/limiter/registry_test.dart",) and s2.tests_count is None
    assert s2.depends_on == (1,) and s2.blocks == (3,)
    assert s3.depends_on == (1, 2)
    assert s3.phases_filled == [] and not s3.progressing
    assert s2.phases_filled == ["RED", "GREEN"]
    assert p.notes == []
    assert audit_tdd(p, ".tdd-progress.md") == []


def test_template_fixture():
    p = parse_progress(fixture("template.md"))
    assert p.heading_style == "template"
    assert [(s.number, s.level, s.status) for s in p.slices] == [(4, 3, "done"), (5, 3, "pending")]
    s4, s5 = p.slices
    assert s4.tests == ("test/hooks/planner_bash_guard_test.sh", "test/hooks/common_test.sh")
    assert [t.number for t in s4.test_specs] == [1, 2]
    assert all(t.given and t.when and t.then for t in s4.test_specs)
    assert (s4.acceptance_ticked, s4.acceptance_total) == (2, 2)
    assert s4.blocks == (5,) and s5.depends_on == (4,)
    assert s5.tests_count == 4
    # the "Test Results Tracking" Status after the slices belongs to no slice
    assert s5.status_lines == 1
    assert p.approved is None and not p.is_approved


def test_mixed_heading_styles_and_numbering_not_from_one():
    text = plan_text(sl(7), sl(8, level=3), sl(9))
    p = parse_progress(text)
    assert p.heading_style == "mixed"
    assert [s.number for s in p.slices] == [7, 8, 9]


def test_slice_section_ends_at_next_heading_of_same_or_higher_level():
    text = plan_text(
        sl(1, "done"), "## Implementation Notes\n\n**Status:** pass\n- **RED:** done\n"
    )
    p = parse_progress(text)
    (s,) = p.slices
    assert s.status == "done" and s.phases["RED"] == "pending"


def test_step_headings_count_as_slices():
    p = parse_progress("# TDD Task: x\n\n## Step 2: do it\n**Status:** pass\n")
    assert [(s.number, s.status) for s in p.slices] == [(2, "pass")]


@pytest.mark.parametrize(
    ("raw", "status", "note"),
    [
        ("pending", "pending", None),
        ("PENDING", "pending", None),
        ("in-progress", "in_progress", None),
        ("in_progress", "in_progress", None),
        ("In Progress", "in_progress", None),
        ("done", "done", None),
        ("Done (verified by tdd-verifier)", "done", "verified by tdd-verifier"),
        ("pass", "pass", None),
        ("PASS — 12/12 green", "pass", "12/12 green"),
        ("fail", "fail", None),
        ("FAIL (flaky timer test)", "fail", "flaky timer test"),
        ("skip", "skip", None),
        ("skipped (covered by slice 2)", "skip", "covered by slice 2"),
        ("Skipped", "skip", None),
        ("complete", "done", None),
        ("`done`", "done", None),
        ("✅ done", "done", None),
        ("GREEN", "in_progress", None),
        ("blocked on review", "unknown", "on review"),
        ("", "unknown", None),
        ("???", "unknown", None),
    ],
)
def test_status_spellings(raw, status, note):
    assert normalise_status(raw) == (status, note)


def test_every_status_spelling_in_a_file():
    words = ["pending", "in-progress", "in_progress", "done", "pass", "fail", "skip", "skipped"]
    text = plan_text(*(sl(i + 1, w.upper() + " (note)") for i, w in enumerate(words)))
    p = parse_progress(text)
    assert [s.status for s in p.slices] == [
        "pending",
        "in_progress",
        "in_progress",
        "done",
        "pass",
        "fail",
        "skip",
        "skip",
    ]
    assert {s.status_note for s in p.slices} == {"note"}


@pytest.mark.parametrize(
    "marker",
    [
        "**Approved:** 2026-03-02T14:03:11Z",
        "Approved: 2026-03-02T14:03:11Z",
        "**approved:** 2026-03-02T14:03:11Z",
        "APPROVED: 2026-03-02",
        "*Approved:* 2026-03-02",
    ],
)
def test_approved_marker_variants(marker):
    p = parse_progress(plan_text(sl(1), approved=marker))
    assert p.is_approved and p.approved_line_no == 6 and p.approved_in_header
    assert p.approved_at is not None
    assert p.notes == []


@pytest.mark.parametrize(
    "marker",
    [
        "**Approved**: 2026-03-02T14:03:11Z",
        "- **Approved:** 2026-03-02",
        "  **Approved:** 2026-03-02",
        "***Approved:*** 2026-03-02",
        "__Approved__: 2026-03-02",
    ],
)
def test_marker_lookalikes_the_hook_rejects_are_not_approval(marker):
    p = parse_progress(plan_text(sl(1), approved=marker))
    assert not p.is_approved and p.approval_lookalike_line_no == 6
    assert any("does not accept" in n for n in p.notes)


def test_approved_marker_without_value_or_date_counts_but_is_noted():
    p = parse_progress(plan_text(sl(1), approved="**Approved:** yes"))
    assert p.is_approved and p.approved == "yes" and p.approved_at is None
    assert any("without a timestamp" in n for n in p.notes)


def test_not_approved_when_only_mentioned_in_prose():
    p = parse_progress(plan_text(sl(1), approved="The plan needs an `Approved:` line."))
    assert not p.is_approved


def test_approved_marker_outside_the_header_is_noted():
    text = plan_text(sl(1), approved=None) + "\n**Approved:** 2026-03-02\n"
    p = parse_progress(text)
    assert p.is_approved and not p.approved_in_header
    assert any("outside the header" in n for n in p.notes)


def test_code_fences_are_ignored_for_structure():
    text = plan_text(sl(1), "```markdown\n## Slice 9: example in a fence\n**Status:** done\n```\n")
    p = parse_progress(text)
    assert [s.number for s in p.slices] == [1]


def test_duplicate_slice_numbers_and_second_status_are_noted():
    text = plan_text(sl(1), sl(1)).replace("**Tests:** 1", "**Tests:** 1\n**Status:** done", 1)
    p = parse_progress(text)
    assert len(p.slices) == 2
    assert any("appears twice" in n for n in p.notes)
    assert any("another Status line" in n for n in p.notes)
    assert p.slices[0].status == "pending" and p.slices[0].status_lines == 2


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("none", []),
        ("Slice 1", [1]),
        ("Slice 1, Slice 2, Slice 4", [1, 2, 4]),
        ("Slices 1-5", [1, 2, 3, 4, 5]),
        ("Slices 2, 3", [2, 3]),
        ("Slice 3 (partial), 1", [3, 1]),
    ],
)
def test_slice_numbers(text, numbers):
    assert slice_numbers(text) == numbers


def test_date_only_header_values():
    p = parse_progress(plan_text(sl(1), approved="**Approved:** 2026-03-02"))
    assert p.created == "2026-03-01" and p.approved == "2026-03-02"
    assert p.approved_at is not None and p.approved_at.year == 2026


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "\x00\x01\x02\xff",
        "#" * 100_000,
        "## Slice 99999999999999999999: huge",
        "## Slice 1:\n" * 5000,
        "**Status:**",
        "- **RED:**\n" * 10,
        "\n".join(["```"] * 7),
        "x" * 2_000_000,
    ],
)
def test_parse_progress_junk_never_raises(junk):
    p = parse_progress(junk)
    assert isinstance(p, TddPlan)
    audit_tdd(p, "f")


def test_parse_progress_accepts_bytes():
    p = parse_progress(fixture("planner.md").encode() + b"\xff\xfe")
    assert len(p.slices) == 3


@settings(max_examples=300)
@given(st.text(max_size=600))
def test_parse_progress_never_raises(text):
    p = parse_progress(text)
    assert isinstance(p, TddPlan)
    audit_tdd(p, "f")
    assert p.hook == stop_hook_view(text)


_PIECES = st.sampled_from(
    [
        "## Slice 1: a\n",
        "### Slice 2: b\n",
        "## Step 3\n",
        "**Status:** done\n",
        "**Status:** pending\n",
        "Status: FAIL (x)\n",
        "- **RED:** done\n",
        "**Approved:** 2026-01-01\n",
        "**Depends on:** Slice 1 | **Blocks:** Slice 2\n",
        "#### Test 1: t\nGiven: x\n",
        "- [x] ok\n",
        "```\n",
        "# TDD Task: t\n",
    ]
)


@settings(max_examples=300)
@given(st.lists(_PIECES | st.text(max_size=30), max_size=40))
def test_parse_progress_never_raises_on_plausible_fragments(parts):
    text = "".join(parts)
    p = parse_progress(text)
    audit_tdd(p, "f")
    assert p.hook == stop_hook_view(text)
    assert p.hook.decision == ("block" if p.hook.approved and p.hook.remaining > 0 else "allow")


# ---------------------------------------------------------------------------- stop hook


def view_of(hook: StopHookView) -> tuple[bool, int, int, int, str]:
    return hook.approved, hook.total, hook.terminal, hook.remaining, hook.decision


def test_stop_hook_counts_planner_style_like_true_count():
    text = fixture("planner.md")
    assert view_of(stop_hook_view(text)) == (True, 3, 1, 2, "block")
    assert true_remaining(parse_progress(text)) == 2


def test_stop_hook_allows_an_unapproved_plan():
    text = plan_text(sl(1, "done"), sl(2), approved=None)
    assert view_of(stop_hook_view(text)) == (False, 2, 1, 1, "allow")
    assert "no Approved: marker" in stop_hook_view(text).reason
    rejected = plan_text(sl(1, "done"), sl(2), approved="- **Approved:** 2026-03-02")
    assert stop_hook_view(rejected).decision == "allow"


def test_stop_hook_ignores_template_slices():
    text = fixture("template.md")
    view = stop_hook_view(text)
    assert view.total == 0 and view.remaining == 0 and not view.blocks_stop
    p = parse_progress(text)
    assert true_remaining(p) == 1
    f = by_id(audit_tdd(p, "f"), "TDD-HOOK-MISCOUNT")
    assert (f.expected, f.actual) == (1, 0)
    assert "`###` level" in f.message and "would allow the stop" in f.message


def test_header_done_hides_a_pending_slice():
    text = plan_text(sl(1, "done"), sl(2, "pending"), status="done")
    assert view_of(stop_hook_view(text)) == (True, 2, 2, 0, "allow")
    p = parse_progress(text)
    assert true_remaining(p) == 1
    findings = audit_tdd(p, "f")
    f = by_id(findings, "TDD-HOOK-MISCOUNT")
    assert (f.expected, f.actual) == (1, 0)
    assert "header Status" in f.message
    assert "TDD-HEADER-CONTRADICTS" in ids(findings)


def test_stop_hook_regexes_follow_grep_semantics():
    text = "\n".join(
        [
            "## Slice 1: a",
            "  ## slice 2: leading spaces count",
            "##Slice 3: no space counts",
            "### Slice 4: not counted",
            "## Slice five: no digit, not counted",
            "## Step 6: counted",
            "**Status:** done",  # bold counts (\\*{0,2} after the colon)
            "status: Completed",  # complete... matches
            "Overall status: passing, see CI",  # anywhere in a line
            "**Status** : done",  # space before the colon: not counted
            "Status: PENDING",
            "status: done; status: pass",  # one line counts once (grep -c)
            "\u00a0## Slice 7: a no-break space is not \\s: not counted",
            "**Status:**\u00a0done",  # nor here
            "**Status:** \x1b[32mdone",  # an escape before the word: not terminal
        ]
    )
    assert view_of(stop_hook_view(text)) == (False, 4, 4, 0, "allow")


def test_a_failed_slice_is_finished_like_the_plugin_says():
    text = plan_text(sl(1, "done"), sl(2, "pass"), sl(3, "skip"), sl(4, "fail"), sl(5, "weird"))
    p = parse_progress(text)
    assert true_remaining(p) == 1 == p.hook.remaining
    assert "TDD-HOOK-MISCOUNT" not in ids(audit_tdd(p, "f"))


def test_a_heading_indented_up_to_three_spaces_is_a_slice():
    text = plan_text(sl(1, "done"), " " + sl(2), "   " + sl(3))
    p = parse_progress(text)
    assert [s.number for s in p.slices] == [1, 2, 3]
    assert true_remaining(p) == 2 == p.hook.remaining


def test_status_the_hook_cannot_read_is_explained():
    text = plan_text(sl(1, "done"), sl(2)).replace("**Status:** done", "**Status:**\u00a0done")
    p = parse_progress(text)
    assert p.slices[0].status == "done" and p.hook.terminal == 0
    f = by_id(audit_tdd(p, "f"), "TDD-HOOK-MISCOUNT")
    assert "slice 1: finished, but its Status line is not terminal" in f.message


def test_no_miscount_when_hook_agrees():
    p = parse_progress(plan_text(sl(1, "done"), sl(2)))
    assert "TDD-HOOK-MISCOUNT" not in ids(audit_tdd(p, "f"))


def test_terminal_status_outside_slices_is_explained():
    text = plan_text(sl(1), sl(2)) + "\n## Test Results\n\n**Tests Status:** pass\n"
    f = by_id(audit_tdd(parse_progress(text), "f"), "TDD-HOOK-MISCOUNT")
    assert (f.expected, f.actual) == (2, 1)
    assert "other terminal `status:` line" in f.message


# ---------------------------------------------------------------------------- rules


def test_unapproved_progress_by_status():
    p = parse_progress(plan_text(sl(1, "done"), sl(2), approved=None))
    f = by_id(audit_tdd(p, "f"), "TDD-UNAPPROVED-PROGRESS")
    # no marker and no lock: perhaps a plan from plugin v1.6.5 or older, which wrote neither
    assert f.severity == "warning" and f.path == "slice 1.status"
    assert "v1.6.5 and older" in f.message


def test_a_rejected_marker_is_named():
    p = parse_progress(plan_text(sl(1, "done"), sl(2), approved="- **Approved:** 2026-03-02"))
    findings = audit_tdd(p, "f")
    f = by_id(findings, "TDD-APPROVAL-NOT-ACCEPTED")
    assert "Line 6" in f.message and f.severity == "warning"
    assert "TDD-UNAPPROVED-PROGRESS" in ids(findings)


def test_unapproved_progress_by_phase_tracking_only():
    p = parse_progress(plan_text(sl(1, "pending", red="done"), approved=None))
    f = by_id(audit_tdd(p, "f"), "TDD-UNAPPROVED-PROGRESS")
    assert f.path == "slice 1.RED"


def test_unapproved_but_untouched_plan_is_fine():
    p = parse_progress(plan_text(sl(1), sl(2), approved=None, status="pending"))
    assert audit_tdd(p, "f") == []


def test_lock_after_approval_is_info_with_the_plugins_history():
    """The plugin dropped .tdd-plan-locked in 1.11.0: beside an accepted marker it is a
    leftover, never an error or a warning, even while the approved slices progress."""
    for slices in ((sl(1),), (sl(1, "done"), sl(2, "in-progress", red="done"))):
        p = parse_progress(plan_text(*slices))
        p.lock_exists = True
        findings = audit_tdd(p, "f")
        f = by_id(findings, "TDD-LOCK-AFTER-APPROVAL")
        assert f.path == "header.Approved" and f.severity == "info"
        assert "1.11.0" in f.message
        assert [x for x in findings if x.severity != "info"] == []
    p.lock_exists = False
    assert "TDD-LOCK-AFTER-APPROVAL" not in ids(audit_tdd(p, "f"))


def test_lock_with_progress():
    p = parse_progress(plan_text(sl(1, "in-progress"), approved=None))
    p.lock_exists = True
    findings = audit_tdd(p, "f")
    lock = by_id(findings, "TDD-LOCK-PROGRESS")
    assert lock.path == "slice 1.status" and lock.severity == "info"
    assert "before 1.11.0" in lock.message.lower() and "approval was still pending" in lock.message
    # the stop hook lets the session stop; nothing reads the lock since 1.11.0: no error
    unapproved = by_id(findings, "TDD-UNAPPROVED-PROGRESS")
    assert unapproved.severity == "warning"
    assert [f.severity for f in findings if f.severity == "error"] == []
    p2 = parse_progress(plan_text(sl(1), approved=None))
    p2.lock_exists = True  # planning still under way: lock, no progress -> fine
    assert audit_tdd(p2, "f") == []


def test_header_contradictions():
    done_header = parse_progress(plan_text(sl(1, "done"), sl(2, "in-progress"), status="done"))
    f = by_id(audit_tdd(done_header, "f"), "TDD-HEADER-CONTRADICTS")
    assert f.path == "header.Status" and "1 of 2" in f.message
    pending_header = parse_progress(plan_text(sl(1, "done"), sl(2, "pass"), status="pending"))
    f = by_id(audit_tdd(pending_header, "f"), "TDD-HEADER-CONTRADICTS")
    assert "all 2" in f.message
    consistent = parse_progress(plan_text(sl(1, "done"), sl(2, "skip"), status="done"))
    assert "TDD-HEADER-CONTRADICTS" not in ids(audit_tdd(consistent, "f"))


def test_dependency_order():
    text = plan_text(sl(1, "pending"), sl(2, "done", depends="Slice 1"))
    f = by_id(audit_tdd(parse_progress(text), "f"), "TDD-DEPENDENCY-ORDER")
    assert f.path == "slice 2.status" and "2 before 1" in f.message
    via_blocks = plan_text(sl(1, "in-progress", blocks="Slice 2"), sl(2, "pass"))
    assert "TDD-DEPENDENCY-ORDER" in ids(audit_tdd(parse_progress(via_blocks), "f"))
    ok = plan_text(sl(1, "done"), sl(2, "done", depends="Slice 1"), sl(3, depends="Slice 9"))
    assert "TDD-DEPENDENCY-ORDER" not in ids(audit_tdd(parse_progress(ok), "f"))


def test_unknown_and_missing_status():
    text = plan_text(sl(1, "blocked on review"), sl(2, "pending"), status="Planning")
    findings = audit_tdd(parse_progress(text), "f")
    unknown = [f for f in findings if f.rule_id == "TDD-UNKNOWN-STATUS"]
    assert {f.path for f in unknown} == {"slice 1.status", "header.Status"}
    assert all(f.severity == "info" for f in unknown)
    missing = parse_progress(plan_text(sl(1).replace("**Status:** pending\n", "")))
    f = by_id(audit_tdd(missing, "f"), "TDD-UNKNOWN-STATUS")
    assert "no Status line" in f.message and f.actual is None


def test_no_slices():
    p = parse_progress("# TDD Task: half written\n\n**Status:** pending\n")
    f = by_id(audit_tdd(p, "f"), "TDD-NO-SLICES")
    assert f.severity == "warning"
    assert "TDD-NO-SLICES" not in ids(audit_tdd(parse_progress(plan_text(sl(1))), "f"))


# ---------------------------------------------------------------------------- loading


def test_load_tdd_absent(tmp_path):
    assert load_tdd(Project(root=tmp_path)) == (None, [])


def test_load_tdd_with_legacy_lock(tmp_path):
    (tmp_path / ".tdd-progress.md").write_text(plan_text(sl(1, "done"), approved=None))
    (tmp_path / ".tdd-plan-locked").touch()
    plan, findings = load_tdd(Project(root=tmp_path))
    assert plan is not None and plan.lock_exists
    assert {"TDD-LOCK-PROGRESS", "TDD-UNAPPROVED-PROGRESS"} <= set(ids(findings))
    assert all(f.source == ".tdd-progress.md" for f in findings)


def test_load_tdd_unreadable(tmp_path):
    (tmp_path / ".tdd-progress.md").mkdir()
    plan, findings = load_tdd(Project(root=tmp_path))
    assert plan is None and ids(findings) == ["READ-UNREADABLE"]


def test_load_tdd_cleans_terminal_escapes(tmp_path):
    text = plan_text(sl(1)).replace("Slice number 1", "Evil \x1b]0;title\x07name\x1b[31m")
    (tmp_path / ".tdd-progress.md").write_text(text)
    plan, _ = load_tdd(Project(root=tmp_path))
    assert plan is not None and plan.slices[0].name == "Evil name"


@settings(max_examples=300)
@given(st.binary(max_size=600))
def test_parse_progress_never_raises_on_bytes(raw):
    p = parse_progress(raw)
    audit_tdd(p, "f")
    assert p.hook == stop_hook_view(raw)
    assert p.line_count == raw.count(b"\n") + 1  # numbered like the hook's lines
    assert p.is_approved == p.hook.approved


# ---------------------------------------------------------------------------- over the read cap


def _over_cap(head: bytes, tail: bytes, size: int) -> bytes:
    filler = b"filler line, not a slice and not a status\n"
    return head + filler * (size // len(filler) + 1) + tail


@pytest.mark.parametrize(
    ("head", "tail", "decision", "total", "terminal"),
    [
        # slices pending past the cap: the hook (which greps the whole file) blocks
        (b"# T\n**Approved:** x\n", b"## Slice 1: a\n**Status:** pending\n", "block", 1, 0),
        # the slices are done past the cap: the hook allows
        (b"# T\n**Approved:** x\n## Slice 1: a\n", b"**Status:** done\n", "allow", 1, 1),
        # the marker itself past the cap: approved
        (b"# T\n## Slice 1: a\n", b"**Approved:** x\n", "block", 1, 0),
    ],
)
def test_a_file_over_the_cap_is_decided_on_all_of_it(
    tmp_path, head, tail, decision, total, terminal
):
    raw = _over_cap(head, tail, TDD_MAX_BYTES)
    assert len(raw) > TDD_MAX_BYTES
    (tmp_path / ".tdd-progress.md").write_bytes(raw)
    plan, findings = load_tdd(Project(root=tmp_path))
    assert plan is not None and plan.hook == stop_hook_view(raw)
    assert (plan.hook.decision, plan.hook.total, plan.hook.terminal) == (decision, total, terminal)
    assert plan.is_approved
    assert "TDD-HOOK-MISCOUNT" not in ids(findings)  # the structure is cut, the verdict is not
    assert any("read cap" in n for n in plan.notes)
