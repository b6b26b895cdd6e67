"""TDD plan approval: exactly one inserted line, lock removed only after the marker is on disk."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from phasewatch.core import decide, protocol
from phasewatch.core.decide import files as decide_files
from phasewatch.core.tdd.approval import approval_line

from tests.helpers.decide import NOW

PLAN = """# TDD Task: Fix auto-compaction unapproved plan cascade

**Status:** pending
**Created:** 2026-02-20
**Last Updated:** 2026-02-20T10:00:00Z

---

## Slice 1: Pipe bypass detection in bash guard

**Status:** pending
**Source:** hooks/planner-bash-guard.sh
**Last Updated:** 2026-02-21

### Test 1: tee is blocked
Given `cat x | tee .tdd-progress.md` — émoji ✅ stays
When the guard runs
Then it exits 2

- **RED:** pending
- **GREEN:** pending
- **REFACTOR:** pending

**Depends on:** None | **Blocks:** Slice 2
"""


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "now_iso", lambda: NOW)


def write_plan(root: Path, text: str, newline: str = "\n", *, lock: bool = False) -> Path:
    path = root / ".tdd-progress.md"
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    if lock:
        (root / ".tdd-plan-locked").touch()
    return path


def journal(root: Path) -> list[dict]:
    return decide.read_journal(root / ".phasewatch-decisions.jsonl")


def inserted_lines(before: bytes, after: bytes) -> list[tuple[int, bytes]]:
    """Lines present in ``after`` but not ``before``; asserts nothing was removed or changed."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        assert op == "insert" and i1 == i2, (op, a[i1:i2], b[j1:j2])
        out += [(j, b[j]) for j in range(j1, j2)]
    return out


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_approve_inserts_exactly_one_line_after_last_updated(tmp_path: Path, newline: str) -> None:
    path = write_plan(tmp_path, PLAN, newline)
    before = path.read_bytes()
    result = decide.decide_approval(path, via="tui")
    assert result.outcome == "applied" and result.exit_code == 0, result.message
    after = path.read_bytes()
    marker = f"**Approved:** {NOW}{newline}".encode()
    assert inserted_lines(before, after) == [(5, marker)]  # right after header Last Updated
    assert after == before.replace(
        b"T10:00:00Z" + newline.encode(), b"T10:00:00Z" + newline.encode() + marker, 1
    )
    assert result.state_summary["approved"] is True and result.state_summary["locked"] is False
    [entry] = journal(tmp_path)
    assert entry["action"] == "approve" and entry["outcome"] == "applied"


def test_approve_journals_its_intent_first_and_its_claim(tmp_path: Path) -> None:
    """Journal first (an intent before the rename), and both lines carry the approval's claim
    (core.decide.claims): the applied line is what a second press tests the file with."""
    path = write_plan(tmp_path, PLAN)
    result = decide.decide_approval(path)
    assert result.outcome == "applied" and result.footprint is not None
    intent, applied = decide.read_journal(tmp_path / ".phasewatch-decisions.jsonl", intents=True)
    assert [intent["outcome"], applied["outcome"]] == ["intent", "applied"]
    assert intent["claim"] == applied["claim"] == result.footprint.claim
    assert applied["claim"]["decision"] == "approve" and applied["claim"]["marker"].endswith(NOW)
    assert decide.claims.holds_bytes(applied["claim"], path.read_bytes()) is True
    assert decide.claims.holds_bytes(applied["claim"], PLAN.encode()) is False


def test_lock_removed_only_after_the_marker_is_written(tmp_path: Path, monkeypatch) -> None:
    path = write_plan(tmp_path, PLAN, lock=True)
    seen_at_unlink = []
    real_unlink = os.unlink

    def unlink(p, *args, **kwargs):
        if Path(p).name == ".tdd-plan-locked":
            seen_at_unlink.append(decide.approved_text(path.read_bytes()))
        return real_unlink(p, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", unlink)
    result = decide.decide_approval(path)
    assert result.outcome == "applied" and ".tdd-plan-locked removed" in result.message
    assert seen_at_unlink == [f"**Approved:** {NOW}"]
    assert not (tmp_path / ".tdd-plan-locked").exists()


def test_lock_kept_when_the_approval_is_not_written(tmp_path: Path) -> None:
    path = write_plan(
        tmp_path,
        PLAN.replace("**Last Updated:**", "**Approved:** yes\n**Last Updated:**"),
        lock=True,
    )
    result = decide.decide_approval(path)
    assert result.outcome == "refused-invalid" and "already approved" in result.message
    assert (tmp_path / ".tdd-plan-locked").exists()


@pytest.mark.parametrize(
    "line",
    ["**Approved:** 2026-02-20", "Approved: by hugo", "**approved:** x", "*APPROVED: x"],
)
def test_already_approved_variants_are_refused(tmp_path: Path, line: str) -> None:
    path = write_plan(tmp_path, PLAN + "\n" + line + "\n")
    before = path.read_bytes()
    result = decide.decide_approval(path)
    assert result.outcome == "refused-invalid" and result.exit_code == 2
    assert path.read_bytes() == before
    assert journal(tmp_path)[-1]["outcome"] == "refused-invalid"


def test_no_last_updated_goes_after_the_header_bold_lines(tmp_path: Path) -> None:
    text = PLAN.replace("**Last Updated:** 2026-02-20T10:00:00Z\n", "")
    path = write_plan(tmp_path, text)
    before = path.read_bytes()
    assert decide.decide_approval(path).outcome == "applied"
    assert inserted_lines(before, path.read_bytes()) == [(4, f"**Approved:** {NOW}\n".encode())]


def test_title_only_goes_after_the_title(tmp_path: Path) -> None:
    path = write_plan(tmp_path, "# TDD Task: x\n\n## Slice 1: a\n**Status:** pending\n")
    before = path.read_bytes()
    assert decide.decide_approval(path).outcome == "applied"
    assert inserted_lines(before, path.read_bytes()) == [(1, f"**Approved:** {NOW}\n".encode())]


def test_unterminated_last_line(tmp_path: Path) -> None:
    path = write_plan(tmp_path, "# TDD Task: x\n**Last Updated:** 2026-02-20")
    assert decide.decide_approval(path).outcome == "applied"
    assert (
        path.read_bytes()
        == f"# TDD Task: x\n**Last Updated:** 2026-02-20\n**Approved:** {NOW}".encode()
    )


def test_mode_kept(tmp_path: Path) -> None:
    path = write_plan(tmp_path, PLAN)
    os.chmod(path, 0o600)
    assert decide.decide_approval(path).outcome == "applied"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".tdd-progress.md.phasewatch-*"))


def test_expect_sha256_conflict(tmp_path: Path) -> None:
    path = write_plan(tmp_path, PLAN, lock=True)
    seen = hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_bytes(path.read_bytes() + b"\n## Slice 2: more\n")  # the planner kept writing
    before = path.read_bytes()
    result = decide.decide_approval(path, expect_sha256=seen)
    assert result.outcome == "refused-conflict" and result.exit_code == 3
    assert path.read_bytes() == before and (tmp_path / ".tdd-plan-locked").exists()
    ok = decide.decide_approval(path, expect_sha256=hashlib.sha256(before).hexdigest())
    assert ok.outcome == "applied"


def test_missing_or_empty_plan_is_nothing_to_approve(tmp_path: Path) -> None:
    result = decide.decide_approval(tmp_path / ".tdd-progress.md")
    assert result.outcome == "refused-invalid" and "nothing to approve" in result.message
    (tmp_path / ".tdd-progress.md").write_text("\n\n")
    assert decide.decide_approval(tmp_path / ".tdd-progress.md").outcome == "refused-invalid"


def test_discard_only_removes_the_lock(tmp_path: Path) -> None:
    path = write_plan(tmp_path, PLAN, lock=True)
    before = path.read_bytes()
    result = decide.decide_approval(path, discard=True)
    assert result.outcome == "applied"
    assert not (tmp_path / ".tdd-plan-locked").exists() and path.read_bytes() == before
    again = decide.decide_approval(path, discard=True)
    assert again.outcome == "refused-invalid" and "nothing to discard" in again.message
    assert [e["outcome"] for e in journal(tmp_path)] == ["applied", "refused-invalid"]
    assert all(e["action"] == "approve --discard" for e in journal(tmp_path))


def test_approval_race_leaves_the_lock(tmp_path: Path, monkeypatch) -> None:
    path = write_plan(tmp_path, PLAN, lock=True)
    real_fsync_dir = decide_files._fsync_dir
    fired = []

    def fsync_dir(d):
        real_fsync_dir(d)
        if not fired:
            fired.append(1)
            path.write_bytes(PLAN.encode() + b"\n## Slice 9: the planner again\n")

    monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)
    result = decide.decide_approval(path)
    assert result.outcome == "race" and "lock left in place" in result.message
    assert (tmp_path / ".tdd-plan-locked").exists()


@pytest.mark.parametrize("finishes", [True, False])
def test_approval_raced_by_a_slow_writer(tmp_path: Path, monkeypatch, finishes: bool) -> None:
    """The planner truncates the plan right after our rename and is descheduled: when it
    finishes (keeping the marker) the approval stands; when the file is still empty at the end
    of the look-again, the verdict is uncertain, never "NOT in the file"."""
    path = write_plan(tmp_path, PLAN, lock=True)
    monkeypatch.setattr(decide_files, "UNSETTLED_SECONDS", 1.0 if finishes else 0.1)
    real_fsync_dir = decide_files._fsync_dir
    fired: list[bytes] = []

    def finish() -> None:
        time.sleep(0.15)
        path.write_bytes(fired[0] + b"\n## Slice 9: the planner again\n")

    def fsync_dir(d):
        real_fsync_dir(d)
        if not fired:
            fired.append(path.read_bytes())
            path.write_bytes(b"")
            if finishes:
                threading.Thread(target=finish, daemon=True).start()

    monkeypatch.setattr(decide_files, "_fsync_dir", fsync_dir)
    result = decide.decide_approval(path)
    if finishes:
        assert result.outcome == "applied" and "marker kept" in result.message, result.message
        assert not (tmp_path / ".tdd-plan-locked").exists()
    else:
        assert result.outcome == "race" and "uncertain" in result.message, result.message
        assert "NOT in the file" not in result.message
        assert (tmp_path / ".tdd-plan-locked").exists()


@pytest.mark.parametrize("line", ["- **APPROVED:** x", "  Approved: x", "**Approved**: x"])
def test_a_lookalike_the_hook_rejects_is_not_approval(tmp_path: Path, line: str) -> None:
    """Already approved exactly when the stop hook's test accepts a line; the marker that
    ``approve`` inserts passes that same test."""
    path = write_plan(tmp_path, PLAN + "\n" + line + "\n")
    assert approval_line(path.read_bytes()) is None
    result = decide.decide_approval(path)
    assert result.outcome == "applied"
    assert approval_line(path.read_bytes()) is not None
