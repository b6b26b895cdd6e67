import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phasewatch.core import sources
from phasewatch.core.sources import (
    MAX_JSON_BYTES,
    StateReader,
    discover,
    find_root,
    read_finding,
    read_json,
)

from tests import unprivileged


def write(path, text: str | bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)


# ------------------------------------------------------------------ discovery


def test_root_is_nearest_ancestor_with_isdlc(tmp_path):
    (tmp_path / ".isdlc").mkdir()
    deep = tmp_path / "src" / "pkg"
    deep.mkdir(parents=True)
    assert find_root(deep, env={}) == tmp_path


def test_root_falls_back_to_the_path(tmp_path):
    assert find_root(tmp_path, env={}) == tmp_path.resolve()


def test_claude_project_dir_used_when_no_path(tmp_path):
    (tmp_path / ".isdlc").mkdir()
    assert find_root(None, env={"CLAUDE_PROJECT_DIR": str(tmp_path)}) == tmp_path


def test_explicit_path_beats_environment(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    assert find_root(other, env={"CLAUDE_PROJECT_DIR": str(tmp_path)}) == other


def test_discover_single_repo_systems(tmp_path):
    write(tmp_path / ".isdlc/state.json", "{}")
    write(tmp_path / ".tdd-progress.md", "# TDD Task: x\n")
    write(tmp_path / "plugins/Kick/.continue-here.md", "---\nplugin: Kick\n---\n")
    project = discover(tmp_path, env={})
    assert project.systems == ["isdlc", "tdd", "plugins"]
    assert [s.path for s in project.states] == [tmp_path / ".isdlc/state.json"]
    assert project.hook_log == tmp_path / ".isdlc/hook-activity.log"


def test_discover_nothing(tmp_path):
    project = discover(tmp_path, env={})
    assert project.systems == [] and project.states == []


def test_discover_monorepo(tmp_path):
    mono = {
        "version": 1,
        "default_project": "web-frontend",
        "projects": {
            "api-service": {"name": "API", "path": "services/api"},
            "web-frontend": {"name": "Web", "path": "web"},
        },
    }
    write(tmp_path / ".isdlc/monorepo.json", json.dumps(mono))
    write(tmp_path / ".isdlc/projects/api-service/state.json", "{}")
    write(tmp_path / ".isdlc/projects/orphan/state.json", "{}")
    project = discover(tmp_path, env={})
    assert project.monorepo
    ids = [s.project_id for s in project.states]
    assert ids == ["api-service", "orphan", "web-frontend"]
    assert project.state_for(None).project_id == "web-frontend"
    assert project.state_for("api-service").name == "API"


def test_discover_monorepo_with_broken_json_reports_and_scans(tmp_path):
    write(tmp_path / ".isdlc/monorepo.json", "{not json")
    write(tmp_path / ".isdlc/projects/a/state.json", "{}")
    project = discover(tmp_path, env={})
    assert [s.project_id for s in project.states] == ["a"]
    assert [f.rule_id for f in project.findings] == ["READ-MONOREPO"]


# ------------------------------------------------------------------ safe reading


def test_read_ok_and_cleaned(tmp_path):
    p = tmp_path / "s.json"
    write(p, json.dumps({"a": "x\x1b]0;t\x07y", "n": 1}, indent=2))
    r = read_json(p)
    assert r.ok and r.data == {"a": "xy", "n": 1}
    assert r.stamp is not None and r.stamp.size == p.stat().st_size


@pytest.mark.parametrize(
    ("content", "status"),
    [
        ("", "torn"),
        ('{\n  "state_version": 4,\n  "phases": {', "torn"),
        ("{ nope }", "invalid"),
        ('{\n  "active": tr', "torn"),
        ('{\n  "n": 12', "torn"),
        ('{\n  "a": 1,\n  oops\n  "b": 2\n}', "invalid"),
        (b"\x00\xff\xfe\x89PNG\r\n\x1a\n", "invalid"),
        ("[1, 2]", "not_object"),
        ("[" * 100_000, "invalid"),
    ],
    ids=[
        "empty",
        "cut",
        "garbage",
        "cut-literal",
        "cut-number",
        "bad-middle",
        "binary",
        "array",
        "deep-prefix",
    ],
)
def test_bad_content_is_a_status_not_an_exception(tmp_path, content, status):
    p = tmp_path / "s.json"
    write(p, content)
    r = read_json(p, retries=1, delay=0)
    assert r.status == status and r.data is None
    assert r.attempts == (2 if status in {"torn", "invalid"} else 1)


def test_deeply_nested_valid_prefix_is_invalid_not_a_crash(tmp_path):
    p = tmp_path / "s.json"
    write(p, "[" * 100_000 + "]" * 100_000)
    assert read_json(p, retries=0).status == "invalid"


def test_missing_file(tmp_path):
    r = read_json(tmp_path / "nope.json")
    assert r.status == "missing" and r.attempts == 1


def test_directory_in_place_of_file(tmp_path):
    (tmp_path / "s.json").mkdir()
    assert read_json(tmp_path / "s.json").status == "unreadable"


def test_permission_denied():
    """Run unprivileged (as ``nobody`` when the suite runs as root, which reads everything)."""
    work = unprivileged.workdir()
    try:
        script = (
            "import sys\n"
            "from pathlib import Path\n"
            "from phasewatch.core.sources import read_json\n"
            "p = Path(sys.argv[1]) / 's.json'\n"
            "p.write_text('{}'); p.chmod(0)\n"
            "r = read_json(p)\n"
            "print(r.status, r.error, sep='|')\n"
            "p.chmod(0o644)\n"
        )
        proc = unprivileged.run(script, str(work))
        status, _, error = proc.stdout.strip().partition("|")
        assert status == "unreadable" and "ermission" in error, (proc.stdout, proc.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_permission_denied_simulated(tmp_path, monkeypatch):

    p = tmp_path / "s.json"
    write(p, "{}")
    real_open = os.open

    def deny(file, *a, **k):
        if str(file) == str(p):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *a, **k)

    monkeypatch.setattr(os, "open", deny)
    r = read_json(p)
    assert r.status == "unreadable" and "permission denied" in r.error.lower()


def test_huge_file_is_refused_without_parsing(tmp_path):
    p = tmp_path / "s.json"
    with open(p, "wb") as fh:  # 50 MB of a JSON string
        fh.write(b'{"x": "')
        chunk = b"a" * (1024 * 1024)
        for _ in range(50):
            fh.write(chunk)
        fh.write(b'"}')
    assert p.stat().st_size > MAX_JSON_BYTES
    r = read_json(p)
    assert r.status == "too_large" and r.data is None


def test_state_reader_keeps_last_good(tmp_path):
    p = tmp_path / "s.json"
    write(p, '{"state_version": 7}')
    reader = StateReader(p, ".isdlc/state.json")
    result, data, findings = reader.read()
    assert result.ok and data == {"state_version": 7} and findings == []
    write(p, '{"state_version": 8, "phas')  # caught mid-write
    result, data, findings = reader.read()
    assert result.status == "torn"
    assert data == {"state_version": 7}
    assert [f.rule_id for f in findings] == ["READ-TORN"]
    assert "last good" in findings[0].message
    p.unlink()
    result, data, findings = reader.read()
    assert result.status == "missing" and data == {"state_version": 7}
    assert findings[0].rule_id == "READ-MISSING"


def test_torn_read_recovers_when_the_writer_finishes(tmp_path, monkeypatch):
    p = tmp_path / "s.json"
    write(p, "")
    import phasewatch.core.sources as sources

    def finish(_delay):
        write(p, '{"state_version": 2}')

    monkeypatch.setattr(sources.time, "sleep", finish)
    r = read_json(p)
    assert r.ok and r.attempts == 2 and r.data == {"state_version": 2}


@settings(max_examples=150)
@given(st.binary(max_size=2000))
def test_read_json_never_raises(tmp_path, blob):
    p = tmp_path / "fuzz.json"
    p.write_bytes(blob)
    r = read_json(p, retries=0)
    assert r.status in {"ok", "torn", "invalid", "not_object"}


def test_an_unsearchable_isdlc_is_a_finding_with_the_fix_not_a_traceback(
    tmp_path, monkeypatch, capsys
):
    """Mode 000 on .isdlc for a non-root user (simulated: root ignores modes): every lookup
    inside it fails with EACCES, where Path.exists() raises instead of answering."""

    from phasewatch.tui.cli import main

    (tmp_path / ".isdlc").mkdir()
    (tmp_path / ".isdlc" / "state.json").write_text("{}")
    inside = str(tmp_path / ".isdlc") + os.sep
    real_stat, real_open = os.stat, os.open

    def deny(fn):
        def call(path, *args, **kwargs):
            if os.fspath(path).startswith(inside):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return fn(path, *args, **kwargs)

        return call

    monkeypatch.setattr(os, "stat", deny(real_stat))
    monkeypatch.setattr(os, "open", deny(real_open))
    assert main(["check", str(tmp_path)]) == 2
    out = capsys.readouterr().out
    assert "cannot be searched" in out and "chmod u+rx .isdlc" in out and "Traceback" not in out


def test_invalid_state_is_a_read_error_finding(tmp_path):
    p = tmp_path / "s.json"
    write(p, b'{"x": NaN}')
    _result, data, findings = StateReader(p, ".isdlc/state.json").read()
    assert data is None
    assert [f.rule_id for f in findings] == ["READ-INVALID"]
    assert "NaN is not JSON" in findings[0].message


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_owner_json_parse_agrees(tmp_path):
    """The oracle: node's JSON.parse on the same bytes throws exactly where we say invalid."""
    cases = {
        "bom": b'\xef\xbb\xbf{"a": 1}',
        "nan": b'{"a": NaN}',
        "inf": b'{"a": Infinity}',
        "ninf": b'{"a": -Infinity}',
        "ok": b'{"a": 1e999, "b": "\\ud800"}',
    }
    for name, content in cases.items():
        write(tmp_path / f"{name}.json", content)
    script = (
        "const fs = require('fs');"
        "for (const f of process.argv.slice(1)) {"
        " try { JSON.parse(fs.readFileSync(f, 'utf8')); console.log('ok'); }"
        " catch (e) { console.log('throws'); } }"
    )
    paths = [str(tmp_path / f"{name}.json") for name in cases]
    out = subprocess.run(["node", "-e", script, *paths], capture_output=True, text=True, check=True)
    node = out.stdout.split()
    ours = ["ok" if read_json(Path(p), retries=0).ok else "throws" for p in paths]
    assert ours == node == ["throws", "throws", "throws", "throws", "ok"]


def test_lone_surrogate_is_cleaned_away(tmp_path):
    p = tmp_path / "s.json"
    write(p, b'{"a": "x\\ud800y", "\\udfff": 1}')
    r = read_json(p)
    assert r.ok and r.data == {"a": "xy", "": 1}
    json.dumps(r.data, ensure_ascii=False).encode("utf-8")  # printable and encodable


def _json_only(raw: bytes):
    """The reference: json alone, as ``_parse`` read documents before its msgspec fast path."""
    try:
        return "ok", json.loads(raw.decode("utf-8", errors="replace"),
                                parse_constant=sources._reject_constant)  # fmt: skip
    except (ValueError, RecursionError) as exc:
        return "error", _kind(exc)


def _kind(exc: Exception) -> str:
    """A refusal's kind: too deep, or not JSON (json's JSONDecodeError and the owner-like
    refusals, a byte order mark or NaN, are all ValueErrors: the same verdict)."""
    return "RecursionError" if isinstance(exc, RecursionError) else "ValueError"


def _parsed_or_error(raw: bytes):
    try:
        return "ok", sources._parse(raw)
    except (ValueError, RecursionError) as exc:
        return "error", _kind(exc)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300)
@given(
    _JSON_VALUES,
    st.booleans(),
    st.lists(st.tuples(st.integers(min_value=0), st.binary(max_size=3)), max_size=3),
)
def test_the_fast_parse_agrees_with_json(value, ascii_only, edits):
    """Documents (some edited into invalid UTF-8, lone surrogates, big numbers, broken
    syntax): the msgspec fast path gives json's value, or json's verdict where it refuses."""
    raw = json.dumps({"v": value, "big": 10**30, "far": 1e308}, ensure_ascii=ascii_only).encode(
        "utf-8", errors="surrogatepass"
    )
    for at, insert in edits:
        at %= len(raw) + 1
        raw = raw[:at] + insert + raw[at:]
    assert _parsed_or_error(raw) == _json_only(raw)


@pytest.mark.parametrize(
    "raw",
    [b'{"a": "\\ud800"}', b'{"a": 1e400}', b'{"a": "\xff"}', b'{"a": 1, "a": 2}'],
    ids=["lone-surrogate", "out-of-range", "invalid-utf8", "duplicate-key"],
)
def test_what_the_fast_parse_refuses_json_decides(raw):
    assert _parsed_or_error(raw) == _json_only(raw)


@pytest.mark.parametrize("raw", [b"[" * 5000, b"[" * 5000 + b"]" * 5000, b'{"a":' * 2000 + b"1"])
def test_too_deep_is_msgspecs_answer_whatever_the_stack(raw):
    """Nesting msgspec refuses is refused as such (a ValueError that says so), never handed
    to json, whose RecursionError would be read as a broken document."""
    with pytest.raises(ValueError, match="nested too deeply"):
        sources._parse(raw)


def test_a_corrupt_state_gets_a_fix_that_fits_what_was_seen(tmp_path):
    """Never a promise of a "last good version" phasewatch did not read."""
    p = tmp_path / ".isdlc" / "state.json"
    p.parent.mkdir()
    p.write_text('{"state_version": 1, oops}')
    never = read_finding(read_json(p, retries=0), ".isdlc/state.json")
    assert never.rule_id == "READ-INVALID" and "has not read a good version" in never.hint
    assert "git checkout -- .isdlc/state.json" in never.hint
    reader = StateReader(p, ".isdlc/state.json")
    p.write_text('{"state_version": 1}')
    assert reader.read()[0].ok
    p.write_text('{"state_version": 2, oops}')
    _, kept, (finding,) = reader.read()
    assert kept is not None and "last good version phasewatch showed" in finding.hint


def test_every_cut_of_a_state_reads_as_torn_never_raises(tmp_path):
    """A state cut off at any byte (a non-atomic write seen half-way) is ``torn``, whichever
    decoder refused it: msgspec before 0.19 raised a DecodeError that is no ValueError
    (pyproject's floor is 0.18; ``make test-lowest`` runs this there)."""
    whole = json.dumps({"state_version": 3, "phases": {"01-requirements": {"status": "done"}}})
    p = tmp_path / "state.json"
    for cut in range(1, len(whole)):
        write(p, whole[:cut])
        r = read_json(p, retries=0)
        assert r.status in {"torn", "invalid"} and r.data is None, (cut, r)
        assert r.error, cut


def test_check_on_a_cut_off_state_reports_it_and_exits_2(tmp_path):
    """README: exit 2 when nothing could be read; a line, never a traceback."""
    import sys

    write(tmp_path / ".isdlc" / "state.json", '{"state_version": 3, "phases": {"01-req')
    proc = subprocess.run(
        [sys.executable, "-m", "phasewatch", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "READ-TORN" in proc.stdout
