"""The one approval test (phasewatch.core.tdd.approval) against the stop hook's own grep."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core.tdd.approval import approval_line, find_approval, lookalike_line

HOOK_APPROVAL = r"^\*{0,2}Approved:\*{0,2}"  # the hook's pattern (grep -qiE), for the oracle


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        (b"**Approved:** 2026-03-02T14:03:11Z\n", 0),
        (b"# T\n\nApproved: yes\n", 2),
        (b"# T\napproved:\n", 1),
        (b"# T\n*APPROVED:* x", 1),
        (b"# T\n- **Approved:** x\n", None),
        (b"# T\n  **Approved:** x\n", None),
        (b"# T\n\t**Approved:** x\n", None),
        (b"# T\n***Approved:** x\n", None),
        (b"# T\n**Approved**: x\n", None),
        (b"\xef\xbb\xbf**Approved:** x\n", None),  # a BOM defeats line 1 ...
        (b"\xef\xbb\xbf# T\n**Approved:** x\n", 1),  # ... and only line 1
        (b"# T\r\n**Approved:** x\r\n", 1),  # CRLF: the \r ends the previous line's text
        (b"junk\r**Approved:** x\n", None),  # a lone \r does not start a line
        (b"junk\x00**Approved:** x\n", 0),  # a NUL does (grep splits binary files there)
        (b"Approved x\nApproved :\n", None),
        (b"", None),
    ],
)
def test_approval_line(raw, line):
    assert approval_line(raw) == line


def test_find_approval_returns_the_value_up_to_the_line_end():
    assert find_approval(b"# T\n**Approved:** 2026-03-02\nnext\n") == (1, b"** 2026-03-02")
    assert find_approval(b"Approved:x\x00rest\n") == (0, b"x")


def test_lookalike_is_reported_only_before_a_real_marker():
    assert lookalike_line(b"# T\n- **Approved:** x\n") == 1
    assert lookalike_line(b"# T\n**Approved:** x\n- **Approved:** y\n") is None
    assert lookalike_line(b"- **Approved:** x\n**Approved:** y\n") == 0
    assert lookalike_line(b"# T\nApproved: x\n") is None


def _grep_accepts(raw: bytes) -> bool:
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    done = subprocess.run(
        ["grep", "-qiE", HOOK_APPROVAL], input=raw, env=env, check=False, capture_output=True
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


_PIECES = st.sampled_from(
    [
        b"Approved:",
        b"approved:",
        b"APPROVED:",
        b"**",
        b"*",
        b"***",
        b"- ",
        b" ",
        b"\t",
        b"\n",
        b"\r\n",
        b"\r",
        b"\x00",
        b"\xef\xbb\xbf",
        b"\xc2\xa0",
        b"\xff",
        b"x",
        b"Approved",
        b":",
    ]
)


@pytest.mark.skipif(shutil.which("grep") is None, reason="grep not available")
@settings(max_examples=150)
@given(st.lists(_PIECES, max_size=12).map(b"".join))
def test_approval_agrees_with_the_hooks_grep(raw):
    assert (approval_line(raw) is not None) == _grep_accepts(raw)
