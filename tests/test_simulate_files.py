"""The simulator writes files byte for byte the way their owners do (FORMATS.md 1)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from phasewatch.core.simulate import HookLog, hook_line, iso, js_number, stringify, write_state
from phasewatch.core.simulate.clock import VirtualClock
from phasewatch.core.simulate.files import HOOK_LOG_KEEP_LINES, HOOK_LOG_MAX_BYTES, render_state

NODE = shutil.which("node")
NODE_STRINGIFY = (
    "const fs=require('fs');const v=JSON.parse(fs.readFileSync(0,'utf8'));"
    "const i=process.argv[1]==='compact'?undefined:2;"
    "process.stdout.write(JSON.stringify(v,null,i))"
)


def node_stringify(text: str, *, compact: bool = False) -> str:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", NODE_STRINGIFY, "compact" if compact else "indent"],
        input=text.encode("utf-8"),
        capture_output=True,
        check=True,
        timeout=20,
    )
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, "1"),
        (0, "0"),
        (-0.0, "0"),
        (12.5, "12.5"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (1e16, "10000000000000000"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (123456789.125, "123456789.125"),
        (-3.25, "-3.25"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (float("nan"), "null"),
        (float("inf"), "null"),
        (2**53, "9007199254740992"),
    ],
)
def test_js_number_prints_like_ecmascript(value: float, expected: str) -> None:
    assert js_number(value) == expected


TRICKY = {
    "b": 1,
    "10": [1.0, 0.5, 1e21, 1e-7, 1e16, -0.0, 100.0, 3.14159],
    "2": {},
    "01": [],
    "4294967294": "max index",
    "4294967295": "not an index",
    "-1": None,
    "text": 'café ☕ 日本 \u2028 \x01\x1f\x7f "quoted" back\\slash \t\n\r\b\f',
    "lone": "\ud800 and \udfff",
    "nested": {"list": [[], {}, [{"a": True, "b": False}]], "z": None},
}


def test_indent_and_compact_forms_match_python_json_for_plain_documents() -> None:
    doc = {"a": [1, {"b": "é", "c": []}], "d": {}, "e": None, "f": True, "g": "x\ny"}
    assert stringify(doc, 2) == json.dumps(doc, indent=2, ensure_ascii=False)
    assert stringify(doc) == json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def test_integer_like_keys_come_first_like_js_objects() -> None:
    out = json.loads(stringify(TRICKY, 2))
    assert list(out)[:4] == ["2", "10", "4294967294", "b"]
    assert stringify({"b": 1, "3": 2, "1": 3}) == '{"1":3,"3":2,"b":1}'


def test_strings_escape_like_json_stringify() -> None:
    assert stringify("\x01\x7f\u2028é\ud800") == '"\\u0001\x7f\u2028é\\ud800"'
    assert stringify('"\\\b\f\n\r\t') == '"\\"\\\\\\b\\f\\n\\r\\t"'


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@pytest.mark.parametrize("compact", [False, True])
def test_matches_node_json_stringify(compact: bool) -> None:
    text = json.dumps(TRICKY, ensure_ascii=True)  # what node parses: the same values
    expected = node_stringify(text, compact=compact)
    assert stringify(json.loads(text), None if compact else 2) == expected


def test_write_state_is_writeState(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    first = write_state(path, {"project": {"name": "x"}})
    assert first == b'{\n  "project": {\n    "name": "x"\n  },\n  "state_version": 1\n}'
    inode = os.stat(path).st_ino

    doc = {"state_version": 3, "phases": {}, "wall_clock_minutes": 7.0, "name": "Zoë"}
    path.write_bytes(render_state({**doc, "state_version": 41}))
    data = write_state(path, doc)
    assert doc["state_version"] == 3  # the caller's object is not mutated
    assert data == path.read_bytes()
    assert not data.endswith(b"\n")
    assert data.decode("utf-8") == (
        '{\n  "state_version": 42,\n  "phases": {},\n  "wall_clock_minutes": 7,\n  "name": "Zoë"\n}'
    )
    assert os.stat(path).st_ino == inode  # truncated and rewritten, not replaced


def test_hook_line_is_compact_with_the_exact_key_order() -> None:
    line = hook_line(
        "2026-03-04T09:12:03.418Z",
        "state-write-validator",
        "warn",
        "06-implementation",
        None,
        "V7: state_version 41 < disk 43",
    )
    assert line == (
        '{"ts":"2026-03-04T09:12:03.418Z","hook":"state-write-validator","event":"warn",'
        '"phase":"06-implementation","agent":null,"reason":"V7: state_version 41 < disk 43"}\n'
    )


def test_hook_log_rotates_in_place_to_the_newest_500_lines(tmp_path: Path) -> None:
    log = HookLog(tmp_path / "hook-activity.log")
    reason = "Sub-agent 'test-runner' targets active phase 16-quality-loop " + "x" * 120
    n = 0
    inode = None
    size_before = 0
    while True:
        n += 1
        rotated = log.append(
            "2026-03-04T09:12:03.418Z", "phase-loop-controller", "same-phase-bypass",
            "16-quality-loop", "test-runner", f"{reason} #{n}",
        )  # fmt: skip
        inode = inode or os.stat(log.path).st_ino
        if rotated:
            break
        size_before = os.stat(log.path).st_size
        assert size_before <= HOOK_LOG_MAX_BYTES  # not rotated while at most 1 MiB
    line_len = len(hook_line("2026-03-04T09:12:03.418Z", "p", "e", "p", "a", reason)) + 6
    assert size_before + line_len > HOOK_LOG_MAX_BYTES  # the append that crossed 1 MiB rotated
    data = log.path.read_bytes()
    lines = data.decode("utf-8").splitlines()
    assert data.endswith(b"\n")
    assert len(lines) == HOOK_LOG_KEEP_LINES
    assert [json.loads(x)["reason"].rsplit("#", 1)[1] for x in (lines[0], lines[-1])] == [
        str(n - HOOK_LOG_KEEP_LINES + 1),
        str(n),
    ]
    assert os.stat(log.path).st_ino == inode
    assert log.rotations == 1 and log.lines_written == n


def test_virtual_clock_and_iso_format() -> None:
    clock = VirtualClock(datetime(2026, 3, 4, 9, 12, 3, 418000, tzinfo=UTC))
    assert iso(clock.now()) == "2026-03-04T09:12:03.418Z"
    clock.advance(0.0004)  # at least one millisecond: timestamps always move
    assert iso(clock.now()) == "2026-03-04T09:12:03.419Z"
    clock.advance(61.5)
    assert iso(clock.now()) == "2026-03-04T09:13:04.919Z"
