"""Record the TDD plugin's real stop hook on real and mutated progress files (see README.md).

Usage (from the repository root)::

    python tests/conformance/tdd/generate.py /path/to/claude-code-tdd-workflow.git [COMMIT]

Besides the named mutations, a seeded walk (``SEED``) composes them with line edits
(``random-NNN``), runs the hook beside a leftover ``.tdd-plan-locked`` (``lock-NNN``) and on
files over phasewatch's read cap (``big``: recorded as a recipe, rebuilt by the replay).

The plugin's repository is a git directory (bare is fine); nothing of it is copied here but the
progress files its tests, its history and its planning archive hold (data), mutated, and the
verdicts its hook gave on them. The hook runs under ``bash -x`` in a scratch directory with
``LC_ALL=C.UTF-8``; the trace gives its ``TOTAL_SLICES``/``TERMINAL_SLICES`` even when it allows.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
PHASEWATCH_FIXTURES = HERE.parents[1] / "fixtures" / "tdd"
LEGACY_COMMIT = "6f08a12b5d0865a8d1c017e27bed116be5c73f76"  # v1.6.5: before the Approved: marker
HEREDOC = re.compile(rb"cat > \"\$tmp_dir/\.tdd-progress\.md\" <<'EOF'\n(.*?)^EOF$", re.S | re.M)
PLANNING = (
    "planning/20260220_1200_fix_compaction_unapproved_plan_cascade.md",
    "planning/20260228_1030_fix_approval_reliability.md",
)
MARKER = b"**Approved:** 2026-02-20T10:00:00Z"
TERMINAL = (b"pass", b"done", b"complete", b"fail", b"skip")
STATUS = re.compile(rb"^(.*?status\*{0,2}:\*{0,2})[ \t]*(.*?)(\r?)$", re.I | re.M)
HEADING = re.compile(rb"^#{2,3}[ \t]*(slice|step)([ \t]+)(\d)", re.I | re.M)
APPROVAL = re.compile(rb"^.*approved.*\n", re.I | re.M)


def git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


# ----------------------------------------------------------------------------- seeds


def seeds(repo: str, commit: str) -> Iterator[tuple[str, bytes, bool]]:
    """(name, bytes, small): progress files from the plugin and from phasewatch's own fixtures."""
    for tag, rev in (("hooktest", commit), ("hooktest165", LEGACY_COMMIT)):
        test = git(repo, "show", f"{rev}:test/hooks/check_tdd_progress_test.sh")
        for i, m in enumerate(HEREDOC.finditer(test)):
            yield f"{tag}-{i:02d}", m.group(1), True
    log = git(repo, "log", "--all", "--format=%H", "--", ".tdd-progress.md").split()
    for rev in log:
        try:
            yield (
                f"history-{rev[:7].decode()}",
                git(repo, "show", f"{rev.decode()}:.tdd-progress.md"),
                False,
            )
        except subprocess.CalledProcessError:
            continue  # the commit that deleted it
    for path in PLANNING:
        yield f"planning-{Path(path).stem[:13]}", git(repo, "show", f"{commit}:{path}"), False
    for path in sorted(PHASEWATCH_FIXTURES.glob("*.md")):
        yield f"phasewatch-{path.stem}", path.read_bytes(), True
    yield from synthetic()


def synthetic() -> Iterator[tuple[str, bytes, bool]]:
    """Shapes no real file had: empty, a negative count, a NUL past grep's first 32 KiB read."""
    yield "synthetic-empty", b"", True
    done = b"".join(b"## Slice %d: s\n**Status:** done\n" % n for n in range(1, 4))
    yield "synthetic-negative", b"# T\n" + MARKER + b"\n**Status:** done\n" + done, True
    body = b"".join(
        b"## Slice %d: s\n%s\n**Status:** %s\n"
        % (n, b"x" * 700, TERMINAL[n % 5] if n % 3 else b"pending")
        for n in range(1, 60)
    )
    late_nul = body + b"**Status:** pending\x00Status: done\n"
    yield "synthetic-late-nul", b"# T\n" + MARKER + b"\n" + late_nul, False


# ----------------------------------------------------------------------------- mutations


def approve(raw: bytes, marker: bytes = MARKER) -> bytes:
    """Replace any marker-ish line by ``marker`` on line 2 (after the title)."""
    raw = APPROVAL.sub(b"", raw)
    head, sep, rest = raw.partition(b"\n")
    return head + b"\n" + marker + b"\n" + rest if sep else marker + b"\n" + raw


def statuses(value: Callable[[int, bytes], bytes]) -> Callable[[bytes], bytes]:
    def mutate(raw: bytes) -> bytes:
        count = iter(range(1_000_000))
        return STATUS.sub(lambda m: m.group(1) + value(next(count), m.group(2)) + m.group(3), raw)

    return mutate


def headings(template: bytes) -> Callable[[bytes], bytes]:
    def mutate(raw: bytes) -> bytes:
        return HEADING.sub(
            lambda m: template.replace(b"W", m.group(1)).replace(b"N", m.group(3)), raw
        )

    return mutate


def _line_op(index: int, op: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    def mutate(raw: bytes) -> bytes:
        lines = raw.split(b"\n")
        hits = [i for i, line in enumerate(lines) if b"tatus" in line]
        if hits:
            i = hits[index % len(hits)]
            lines[i] = op(lines[i])
        return b"\n".join(lines)

    return mutate


MUTATIONS: dict[str, Callable[[bytes], bytes]] = {
    "approved": approve,
    "crlf": lambda r: approve(r).replace(b"\n", b"\r\n"),
    "cr-only": lambda r: approve(r).replace(b"\n", b"\r"),
    "bom": lambda r: b"\xef\xbb\xbf" + approve(r),
    "bom-marker-line1": lambda r: b"\xef\xbb\xbf" + MARKER + b"\n" + APPROVAL.sub(b"", r),
    "unapproved": lambda r: APPROVAL.sub(b"", r),
    "marker-bullet": lambda r: approve(r, b"- " + MARKER),
    "marker-indent": lambda r: approve(r, b"  " + MARKER),
    "marker-tab": lambda r: approve(r, b"\t" + MARKER),
    "marker-bold-colon-out": lambda r: approve(r, b"**Approved**: 2026-02-20"),
    "marker-lower-plain": lambda r: approve(r, b"approved: yes"),
    "marker-3stars": lambda r: approve(r, b"***Approved:*** 2026-02-20"),
    "marker-underscores": lambda r: approve(r, b"__Approved__: 2026-02-20"),
    "marker-nbsp-before": lambda r: approve(r, b"\xc2\xa0**Approved:** 2026-02-20"),
    "marker-after-nul": lambda r: approve(r, b"x\x00**Approved:** 2026-02-20"),
}
for _w in TERMINAL:
    MUTATIONS[f"all-{_w.decode()}"] = lambda r, w=_w: statuses(lambda i, v: w)(approve(r))
    MUTATIONS[f"all-{_w.decode()}-upper"] = lambda r, w=_w: statuses(lambda i, v: w.upper())(
        approve(r)
    )
_ROTATION = (
    b"done",
    b"in_progress",
    b"FAIL",
    b"pending",
    b"Passed",
    b"skipped",
    b"RED",
    b"Complete",
)
_STATUS_FORMS: dict[str, Callable[[int, bytes], bytes]] = {
    "rotate": lambda i, v: _ROTATION[i % len(_ROTATION)],
    "value-bold": lambda i, v: b"**" + v + b"**",
    "nbsp": lambda i, v: b"\xc2\xa0" + v,
    "emspace": lambda i, v: b"\xe2\x80\x83" + v,
    "narrow-nbsp": lambda i, v: b"\xe2\x80\xaf" + v,
    "ideographic-space": lambda i, v: b"\xe3\x80\x80" + v,
    "tab": lambda i, v: b"\t" + v,
    "vt": lambda i, v: b"\x0b" + v,
    "ansi": lambda i, v: b"\x1b[32m" + v + b"\x1b[0m",
    "bell": lambda i, v: b"\x07" + v,
    # a terminal word in turn, with grep -i's odd folds (and two it does not make)
    "long-s": lambda i, v: TERMINAL[i % 5].replace(b"s", b"\xc5\xbf"),
    "dotless-i": lambda i, v: TERMINAL[i % 5].replace(b"i", b"\xc4\xb1"),
    "kelvin": lambda i, v: TERMINAL[i % 5].replace(b"k", b"\xe2\x84\xaa"),
    "fullwidth": lambda i, v: TERMINAL[i % 5].replace(b"d", b"\xef\xbd\x84"),
    "invalid-utf8": lambda i, v: b"\xff" + v,
}
for _name, _form in _STATUS_FORMS.items():
    MUTATIONS[f"status-{_name}"] = lambda r, f=_form: statuses(f)(approve(r))
_HEADING_FORMS = {
    "indent1": b" ## W N",
    "indent3": b"   ## W N",
    "indent4": b"    ## W N",
    "tab": b"\t## W N",
    "h3": b"### W N",
    "h1": b"# W N",
    "nospace": b"##W N",
    "nbsp-after-hashes": b"##\xc2\xa0W N",
    "nbsp-before-number": b"## W\xc2\xa0N",
    "emspace": b"##\xe2\x80\x83W\xe2\x80\x83N",
    "upper": b"## SLICE N",
    "step": b"## Step N",
    "long-s": b"## \xc5\xbflice N",
    "dotless-i": b"## sl\xc4\xb1ce N",
    "ansi": b"\x1b[1m## W N",
    "bom-style-zwsp": b"\xe2\x80\x8b## W N",
}
for _name, _tpl in _HEADING_FORMS.items():
    MUTATIONS[f"heading-{_name}"] = lambda r, t=_tpl: headings(t)(approve(r))
MUTATIONS.update(
    {
        "status-key-bold-colon-out": lambda r: approve(r).replace(b"**Status:**", b"**Status**:"),
        "status-bullet": lambda r: approve(r).replace(b"\n**Status:**", b"\n- **Status:**"),
        "nul-in-status": lambda r: _line_op(1, lambda line: line.replace(b":", b":\x00", 1))(
            approve(r)
        ),
        "nul-joins-lines": lambda r: _line_op(0, lambda line: line + b"\x00Status: done")(
            approve(r)
        ),
        "two-status-one-line": lambda r: _line_op(2, lambda line: line + b" status: pass")(
            approve(r)
        ),
        "header-status-done": lambda r: approve(r).replace(
            b"**Status:** pending", b"**Status:** done", 1
        ),
    }
)
BIG_FILE_MUTATIONS = (
    "approved",
    "unapproved",
    "crlf",
    "status-rotate",
    "heading-indent3",
    "status-nbsp",
)


FULL_SEEDS = (
    "hooktest-01",
    "hooktest-02",
    "hooktest-03",
    "phasewatch-planner",
    "phasewatch-template",
)


def _chosen(j: int, name: str, small: bool) -> dict[str, Callable[[bytes], bytes]]:
    """Every mutation for a few seeds; for the others every fourth one, in turn (so each
    mutation meets several seeds), and only a handful for the large files."""
    if name in FULL_SEEDS:
        return MUTATIONS
    if name == "synthetic-late-nul":
        return {"crlf": MUTATIONS["crlf"]}
    if not small:
        return {k: MUTATIONS[k] for k in BIG_FILE_MUTATIONS}
    return {k: m for i, (k, m) in enumerate(MUTATIONS.items()) if (i + j) % 4 == 0}


def cases(repo: str, commit: str) -> Iterator[tuple[str, bytes]]:
    for j, (name, raw, small) in enumerate(seeds(repo, commit)):
        yield f"{name}__original", raw
        seen = {raw}
        for label, mutate in _chosen(j, name, small).items():
            out = mutate(raw)
            if out not in seen:  # a mutation that changes nothing adds nothing
                seen.add(out)
                yield f"{name}__{label}", out


# ----------------------------------------------------------------------------- seeded walk

SEED = 24
RANDOM_CASES = 320
LOCK_CASES = 48
_FRAGMENTS = (
    b"## Slice 9: extra",
    b"### Slice 8: template",
    b"**Status:** done",
    b"**Status:** in_progress",
    b"Status: pass",
    b"- **Status:** skip",
    b"**Approved:** 2026-03-01T09:00:00Z",
    b"**Approved**: yes",
    b"## Step 3",
    b"  ## slice 4 indented",
    b"**Status:**\xc2\xa0done",
    b"```",
    b"",
)


def _line_edit(rng: random.Random, raw: bytes) -> bytes:
    lines = raw.split(b"\n")
    i = rng.randrange(len(lines))
    op = rng.choice(("delete", "duplicate", "swap", "insert", "insert"))
    if op == "delete" and len(lines) > 1:
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines.insert(i, rng.choice(_FRAGMENTS))
    return b"\n".join(lines)


def walk(pool: list[tuple[str, bytes]]) -> Iterator[tuple[str, bytes, bool]]:
    """(name, bytes, lock): seeded compositions of mutations and line edits of small seeds, then
    the same beside a ``.tdd-plan-locked`` (half of them approved)."""
    rng = random.Random(SEED)
    names = sorted(MUTATIONS)
    for n in range(RANDOM_CASES + LOCK_CASES):
        seed_name, raw = rng.choice(pool)
        for _ in range(rng.randint(0, 2)):
            raw = MUTATIONS[rng.choice(names)](raw)
        for _ in range(rng.randint(1, 4)):
            raw = _line_edit(rng, raw)
        if n < RANDOM_CASES:
            yield f"random-{n:03d}__{seed_name}", raw, False
        else:
            raw = approve(raw) if n % 2 else APPROVAL.sub(b"", raw)
            yield f"lock-{n - RANDOM_CASES:03d}__{seed_name}", raw, True


# Files over phasewatch's 8 MiB read cap (TDD_MAX_BYTES): a head, filler, a tail. Recorded as
# recipes (the replay rebuilds the bytes); the filler is lines of ``width`` bytes, or one line.
BIG_SIZE = 8 * 1024 * 1024 + 4096
BIG = {
    "big-pending-past-cap": (
        b"# T\n" + MARKER + b"\n",
        80,
        b"## Slice 1: a\n**Status:** pending\n",
    ),
    "big-done-past-cap": (
        b"# T\n" + MARKER + b"\n## Slice 1: a\n## Slice 2: b\n",
        4096,
        b"**Status:** done\n**Status:** pass\n",
    ),
    "big-marker-past-cap": (b"# T\n## Slice 1: a\n", 4096, MARKER + b"\n"),
    "big-no-marker": (b"# T\n## Slice 1: a\n", 4096, b"**Status:** pending\n"),
    "big-one-line": (b"# T\n" + MARKER + b"\n## Slice 1: a\n", 0, b"status: done\n"),
    "big-one-line-spaces": (b"# T\n" + MARKER + b"\n## Slice 1: a\n**Status:**", -1, b"done\n"),
    "big-nul-past-cap": (b"# T\n" + MARKER + b"\n", 4096, b"## Slice 1\x00Status: done\n"),
}


def big_bytes(head: bytes, width: int, tail: bytes, size: int = BIG_SIZE) -> bytes:
    """``width`` > 0: filler lines of that many bytes; 0: one line of ``x``; -1: one run of
    spaces (the hook's ``\\s*`` spans it)."""
    if width > 0:
        line = b"f" * (width - 1) + b"\n"
        return head + line * (size // width + 1) + tail
    return head + (b"x" if width == 0 else b" ") * size + tail


# ----------------------------------------------------------------------------- the real hook

TRACE = re.compile(rb"^\++ (TOTAL_SLICES|TERMINAL_SLICES)=(-?\d+)$", re.M)


def run_hook(hook: Path, raw: bytes, lock: bool = False) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, ".tdd-progress.md").write_bytes(raw)
        if lock:
            Path(tmp, ".tdd-plan-locked").touch()
        env = {**os.environ, "LC_ALL": "C.UTF-8"}
        done = subprocess.run(
            ["bash", "-x", str(hook)],
            input=b'{"stop_hook_active": false}\n',
            cwd=tmp,
            env=env,
            capture_output=True,
            check=False,
        )
    counts = {k.decode(): int(v) for k, v in TRACE.findall(done.stderr)}
    reached = b"TOTAL_SLICES=" in done.stderr
    decision = "allow"
    if done.stdout.strip():
        decision = json.loads(done.stdout)["decision"]
    record: dict[str, object] = {"exit": done.returncode, "decision": decision, "approved": reached}
    if reached:
        record["total"] = counts.get("TOTAL_SLICES", 0)
        record["terminal"] = counts.get("TERMINAL_SLICES", 0)
    if lock:
        record["lock"] = True
    return record


def main(repo: str, commit: str = "HEAD") -> None:
    commit = git(repo, "rev-parse", commit).decode().strip()
    with tempfile.TemporaryDirectory() as tree:
        hook = Path(tree, "check-tdd-progress.sh")
        hook.write_bytes(git(repo, "show", f"{commit}:hooks/check-tdd-progress.sh"))
        out = HERE / "cases"
        out.mkdir(exist_ok=True)
        for old in out.glob("*.md"):
            old.unlink()
        verdicts: dict[str, object] = {}
        pool: list[tuple[str, bytes]] = []
        for name, raw in cases(repo, commit):
            (out / f"{name}.md").write_bytes(raw)
            verdicts[name] = run_hook(hook, raw)
            if len(raw) < 20_000:
                pool.append((name, raw))
        for name, raw, lock in walk(pool):
            (out / f"{name}.md").write_bytes(raw)
            verdicts[name] = run_hook(hook, raw, lock)
        big: dict[str, object] = {}
        for name, (head, width, tail) in BIG.items():
            record = run_hook(hook, big_bytes(head, width, tail))
            big[name] = {
                "head": head.decode("latin-1"),
                "width": width,
                "tail": tail.decode("latin-1"),
                "size": BIG_SIZE,
                **record,
            }
    doc = {
        "repository": "hugo-bluecorn/claude-code-tdd-workflow",
        "commit": commit,
        "hook": "hooks/check-tdd-progress.sh",
        "locale": "C.UTF-8",
        "seed": SEED,
        "cases": verdicts,
        "big": big,
    }
    (HERE / "verdicts.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    blocks = sum(1 for v in verdicts.values() if v["decision"] == "block")  # type: ignore[index]
    kinds = {k: sum(n.startswith(k) for n in verdicts) for k in ("random-", "lock-")}
    print(f"{len(verdicts)} cases ({kinds}), {blocks} blocked, {len(big)} big, commit {commit}")


if __name__ == "__main__":
    main(*sys.argv[1:])
