"""``make reliability``: the writer against a racing owner, a second writer and planted links.

Prints, per case: cases tried, crashes, hangs, data lost, misreports; exits 1 on any of the last
four. ``RELIABILITY_SCALE=small`` runs a CI-sized pass. Not part of pytest: it measures.

* ``owner-race`` and ``slow-owner``: the owner as the framework writes (``owner.py``: the
  Phase-Loop Controller writing back ``active_workflow`` and ``pending_escalations`` from a copy
  it read before thinking, with ``writeState``'s truncating write or the atomic one, and where
  node and an iSDLC checkout are present (``ISDLC_CHECKOUT``, default ``/tmp/isdlc-head``) the
  framework's own ``writeState``; skipped with the reason printed otherwise). ``owner-race``:
  it thinks up to 4 ms, decisions are watched 0.25 s; ``slow-owner``: up to 200 ms, watched
  1 s. Decisions of every kind (continue, review, resume, redo, retry, skip), judged in the
  final file with the decisions' own test (``core.decide.claims.holds``). *Raced*: an owner
  write fell in the decision's window; *reverted*: reported reverted (or a race not in the
  file); *misreport*: reported kept and not in the final file (unless the owner read before
  the decision and wrote after its window: a *late revert*, the documented gap), or reported
  reverted and in it; *data lost*: an owner write missing and not reported by a race.
* ``two-writers``: two phasewatch processes bump counters; any lost bump is data lost.
* ``links``: state/journal/temp/lock/progress linked outside, a FIFO at each; anything written
  outside is data lost, an ``applied`` through a link a misreport, a blocked call a hang.
* ``torn-reads``: another process truncates then writes the state 10,000 times (documents of
  equal length, so the start of one and the end of the next would parse) while the reader reads
  it. *Misreport*: a read that returns a document nobody wrote.
* ``kill-9``: a process answering gates in a loop is killed with SIGKILL at a random moment, 300
  times, on one project. *Data lost*: a state that no longer parses, or a decision in the file
  with no journal line (not even its intent); *misreport*: a decision journalled ``applied`` that
  is not in the file; *hang*: a decision after the kills that does not finish (stale temp files
  or a lock left behind by a killed writer must not block the next one).
* ``terminal``: a project whose directory names, state strings and plugin names carry terminal
  escapes (OSC 52 clipboard, OSC 0 title, C1 CSI) and markup. The real dashboard runs in a
  pseudo-terminal and visits every screen; ``phasewatch check`` runs in one and piped. Every
  raw byte they wrote is scanned. *Misreport*: a hostile sequence reached the terminal;
  *crash*: a traceback; *hang*: the dashboard did not quit on ``q``.
* ``fs-faults``: ``state.json`` as a FIFO, a directory, a 40 MB file, binary junk, a link to
  ``/dev/zero``, and gone: ``phasewatch check``, ``phasewatch review continue`` and the dashboard
  (in a pseudo-terminal, quit with ``q``) on each. *Crash*: a traceback or an exit code that is
  not the documented one; *hang*: no answer in 20 s; *data lost*: the fault's file changed.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import random
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

from phasewatch.core import decide, protocol

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for the writer program
import owner  # tests/reliability/owner.py, beside this file
import torn_writer
from phasewatch.core.sources import read_json

SMALL = os.environ.get("RELIABILITY_SCALE") == "small"
HERE = Path(__file__).resolve().parent


def _state() -> dict:
    return {
        "state_version": 1,
        "counters": {"owner_writes": 0},
        "active_workflow": {"review_history": [], "phases": ["06"], "current_phase": "06",
                            "supervised_review": {"phase": "06", "status": "gate_presented"}},
    }  # fmt: skip


def _project(tmp: Path, program: str) -> tuple[Path, Path]:
    (tmp / ".isdlc").mkdir()
    path = tmp / ".isdlc" / "state.json"
    path.write_text(json.dumps(_state(), indent=2))
    script = tmp / "program.py"
    script.write_text(program)
    return path, script


#: The owner variants (``owner.py``): how it writes, and how long it thinks between reading its
#: copy and writing it back. The ``node`` ones run the framework's own ``writeState``.
FAST_VARIANTS = ("truncating-fast", "atomic-fast", "node-fast", "node-atomic-fast")
SLOW_VARIANTS = ("truncating-slow", "atomic-slow", "node-slow")
ISDLC_CHECKOUT = Path(os.environ.get("ISDLC_CHECKOUT", "/tmp/isdlc-head"))


def _node_missing() -> str | None:
    """Why the framework's own writeState cannot run here (None: it can)."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (ISDLC_CHECKOUT / owner.HOOKS_LIB).is_file():
        return f"no iSDLC checkout at {ISDLC_CHECKOUT} (set ISDLC_CHECKOUT)"
    return None


def _choose(doc: dict, rng: random.Random, n: int) -> tuple[str, str, dict] | None:
    """A decision a person could take on ``doc``: (kind, action, keywords), or None."""
    aw = doc.get("active_workflow") or {}
    gate = aw.get("supervised_review") or {}
    if doc.get("pending_escalations") and rng.random() < 0.5:
        return "escalation", rng.choice(("retry", "skip")), {}
    redo = ("redo", {"guidance": f"redo #{n}: tighten the tests"})
    redo_ok = (gate.get("redo_count") or 0) < protocol.MAX_REDOS
    if gate.get("status") == "gate_presented":
        pick = rng.random()
        if pick < 0.25 and redo_ok:
            return "review", *redo
        return "review", "continue" if pick < 0.7 else "review", {}
    if gate.get("status") == "reviewing":
        return ("review", *redo) if redo_ok and rng.random() < 0.3 else ("review", "resume", {})
    return None


#: Claims a later decision cannot make true again: a revert of one of these that the final
#: file holds was no revert (for the others, the next skip or retry re-clears the same
#: escalations, and a review pause is held by any later entry for its phase).
STAMPED = ("review continue", "review resume", "review redo")


def _race_owner(tmp: Path, variant: str, writes: int, window: float) -> dict[str, int]:
    """Decisions of every kind, each watched for ``window`` s, against one owner variant."""
    (tmp / ".isdlc").mkdir(parents=True)
    path = tmp / ".isdlc" / "state.json"
    path.write_bytes(owner.stringify(owner.initial_state()))
    log = tmp / "owner-times.json"
    env = {**os.environ, "ISDLC_CHECKOUT": str(ISDLC_CHECKOUT)}
    proc = subprocess.Popen([sys.executable, owner.__file__, str(path), variant, str(writes),
                             "5", str(log)], env=env)  # fmt: skip
    rng = random.Random(7)
    decisions: list[tuple[decide.DecisionResult, float, float]] = []  # result, applied, end
    crashes = 0
    while proc.poll() is None:
        try:
            seen = json.loads(path.read_bytes())
        except ValueError:
            continue
        choice = _choose(seen, rng, len(decisions))
        if choice is None:
            time.sleep(0.002)
            continue
        kind, action, kw = choice
        call = decide.decide_review if kind == "review" else decide.decide_escalation
        try:
            result = call(path, action, seen=seen, who="reliability", **kw)
            applied_at = time.monotonic()
            decide.confirm(path, result, window)
        except Exception as exc:  # a crash is what this counts
            crashes += 1
            print(f"  {variant}: {type(exc).__name__}: {exc}")
            continue
        decisions.append((result, applied_at, time.monotonic()))
    proc.wait(timeout=60)
    crashes += proc.returncode != 0
    final = json.loads(path.read_bytes())
    owner_times = json.loads(log.read_text()) if log.exists() else []
    counts = {"decisions": 0, "raced": 0, "reverted": 0, "late reverts": 0, "misreported": 0}
    for result, applied_at, end in decisions:
        if result.outcome == "race":  # the writer's own look-again saw the owner write
            counts["decisions"] += 1
            counts["raced"] += 1
            counts["reverted"] += result.version_after is None  # said: not in the file
            continue
        if result.footprint is None:
            continue  # refused: nothing was decided
        counts["decisions"] += 1
        verdict = result.confirmation.verdict if result.confirmation else None
        counts["raced"] += verdict in ("held", "reverted")
        claim = result.footprint.claim
        in_file = decide.claims.holds(claim, final)
        if result.outcome == "reverted":
            counts["reverted"] += 1
            counts["misreported"] += in_file and claim["decision"] in STAMPED
        elif not in_file:  # reported kept, not in the file: late (owner slower than the watch)?
            late = any(read < applied_at and written > end for read, written in owner_times)
            counts["late reverts" if late else "misreported"] += 1
            if not late:
                print(f"  {variant}: kept but not in the file: {result.action} {claim}")
    lost_owner = writes - final["counters"]["owner_writes"]
    races = sum(r.outcome == "race" for r, _a, _e in decisions)
    return {"cases": counts["decisions"], "crashes": crashes, "hangs": 0,
            "data lost": max(0, lost_owner - races), "misreports": counts["misreported"],
            "raced": counts["raced"], "reverted": counts["reverted"],
            "late reverts": counts["late reverts"], "owner writes": writes}  # fmt: skip


def _over_variants(tmp: Path, variants: tuple[str, ...], writes: int, window: float) -> dict:
    missing = _node_missing()
    total: dict[str, int] = {}
    for variant in variants:
        if variant.startswith("node") and missing:
            print(f"  {variant}: skipped ({missing})")
            continue
        started = time.monotonic()
        counts = _race_owner(tmp / variant, variant, writes, window)
        shown = ", ".join(f"{k} {v}" for k, v in counts.items() if k not in ("hangs",))
        print(f"  {variant:17} {shown} ({time.monotonic() - started:.1f}s)")
        for key, value in counts.items():
            total[key] = total.get(key, 0) + value
    return total


def owner_race(tmp: Path) -> dict[str, int]:
    """The controller thinking up to 4 ms (every write variant); decisions watched 0.25 s."""
    return _over_variants(tmp, FAST_VARIANTS, 300 if SMALL else 1200, 0.25)


def slow_owner(tmp: Path) -> dict[str, int]:
    """The controller thinking up to 200 ms; decisions watched 1 s."""
    return _over_variants(tmp, SLOW_VARIANTS, 40 if SMALL else 200, 1.0)


WRITER = r"""
import sys
from phasewatch.core import decide
path, n, tag = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def bump(doc):
    doc["counters"][tag] = doc["counters"].get(tag, 0) + 1
    return "bumped"
bad = sum(decide.apply_update(path, bump, action="bump", settle=0).outcome != "applied"
          for _ in range(n))
print(bad)
"""


def two_writers(tmp: Path) -> dict[str, int]:
    n = 50 if SMALL else 250
    path, script = _project(tmp, WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), str(path), str(n), t],
                              stdout=subprocess.PIPE, text=True) for t in "ab"]  # fmt: skip
    outs = [p.communicate(timeout=300)[0] for p in procs]
    crashes = sum(p.returncode != 0 for p in procs)
    final = json.loads(path.read_text())["counters"]
    refused = sum(int(o or 0) for o in outs)
    lost = 2 * n - refused - final.get("a", 0) - final.get("b", 0)
    return {"cases": 2 * n, "crashes": crashes, "hangs": 0, "data lost": lost, "misreports": 0}


def links(tmp: Path) -> dict[str, int]:
    outside = tmp / "outside.txt"
    cases = lost = misreports = hangs = 0
    for name in ("state.json", decide.JOURNAL_NAME, "phasewatch.lock", "tmp", "fifo"):
        root = tmp / name.replace(".", "_")
        (root / ".isdlc").mkdir(parents=True)
        state = root / ".isdlc" / "state.json"
        state.write_text(json.dumps(_state(), indent=2))
        outside.write_text(json.dumps(_state(), indent=2))
        before = outside.read_bytes()
        target = decide.temp_path(state) if name == "tmp" else root / ".isdlc" / name
        if name == "fifo":
            state.unlink()
            os.mkfifo(state)
        else:
            target.unlink(missing_ok=True)
            target.symlink_to(outside)
        started = time.monotonic()
        result = decide.decide_review(state, "continue")
        hangs += time.monotonic() - started > 10
        cases += 1
        lost += outside.read_bytes() != before
        misreports += name == "state.json" and result.outcome == "applied"
    return {"cases": cases, "crashes": 0, "hangs": hangs, "data lost": lost,
            "misreports": misreports}  # fmt: skip


def torn_reads(tmp: Path) -> dict[str, int]:
    cycles = 2000 if SMALL else 10000
    path = tmp / "state.json"
    path.write_bytes(b"{}")
    written = torn_writer.documents()
    writer = subprocess.Popen([sys.executable, torn_writer.__file__, str(path), str(cycles)])
    reads = parsed = torn = misreports = crashes = 0
    try:
        while writer.poll() is None:
            try:
                result = read_json(path, retries=0)
            except Exception:  # a crash is what this counts
                crashes += 1
                continue
            reads += 1
            torn += result.status == "torn"
            if result.ok and result.data != {}:
                parsed += 1
                misreports += result.data not in written
    finally:
        writer.kill()
        writer.wait()
    return {"cases": reads, "crashes": crashes + (writer.returncode not in (0, -9)), "hangs": 0,
            "data lost": 0, "misreports": misreports, "writer cycles": cycles,
            "whole documents": parsed, "refused as torn": torn}  # fmt: skip


ANSWERER = r"""
import sys
from phasewatch.core.decide import apply_update, decide_review  # loaded before "ready"
path = sys.argv[1]

def present(doc):
    doc["active_workflow"]["supervised_review"] = {"phase": "06", "status": "gate_presented"}
    doc["state_version"] += 1
    return "gate presented"

print("ready", flush=True)
while True:
    apply_update(path, present, action="present", settle=0)
    decide_review(path, "continue", who="kill-9")
"""


def kill_9(tmp: Path) -> dict[str, int]:
    kills = 30 if SMALL else 300
    path, script = _project(tmp, ANSWERER)
    journal = decide.journal_path(tmp)
    rng = random.Random(9)
    lost = misreports = hangs = crashes = 0
    for _ in range(kills):
        child = subprocess.Popen([sys.executable, str(script), str(path)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert child.stdout is not None
        child.stdout.readline()  # the writer imported (its parts load on first use) and deciding
        time.sleep(rng.uniform(0.0, 0.15))
        child.send_signal(signal.SIGKILL)
        _, err = child.communicate(timeout=30)
        crashes += "Traceback" in err
        try:
            history = json.loads(path.read_text())["active_workflow"]["review_history"]
        except (ValueError, KeyError):
            lost += 1
            break
        entries = [e for e in decide.read_journal(journal, intents=True)
                   if e.get("action") == "review continue"]  # fmt: skip
        intents = sum(e.get("outcome") == "intent" for e in entries)
        applied = sum(e.get("outcome") == "applied" for e in entries)
        lost += len(history) > intents  # a decision in the file that left no trace at all
        misreports += applied > len(history)
    started = time.monotonic()  # what the killed writers left behind must not block the next
    decide.decide_review(path, "continue", who="after")
    hangs += time.monotonic() - started > 10
    final = json.loads(path.read_text())["active_workflow"]["review_history"]
    return {"cases": kills, "crashes": crashes, "hangs": hangs, "data lost": lost,
            "misreports": misreports, "decisions in the file": len(final)}  # fmt: skip


#: Printed raw, these set the clipboard (OSC 52) and the title, and colour the screen (C1 CSI).
#: (No "/": it names directories too.)
HOSTILE = "x\x1b]52;c;aGk=\x07\x1b]0;pwned\x07\x9b31my[b]z[@click=app.quit]q"
SHOWN = b"xy[b]z[@click=app.quit]q"  # what the cleaning leaves, shown literally
FORBIDDEN = (b"\x1b]52;c;aGk=", b"\x1b]0;pwned", b"\xc2\x9b31m", b"\x9b31m")


def _hostile_project(tmp: Path) -> Path:
    root = tmp / f"proj{HOSTILE}"
    isdlc = root / ".isdlc"
    doc = _state()
    doc["project"] = {"name": HOSTILE}
    aw = doc["active_workflow"]
    aw.update(type=HOSTILE, description=HOSTILE, phases=[f"06-{HOSTILE}"],
              current_phase=f"06-{HOSTILE}", phase_status={f"06-{HOSTILE}": "in_progress"})  # fmt: skip
    aw.pop("supervised_review")
    doc["pending_escalations"] = [{"type": "gate_blocked", "hook": HOSTILE, "detail": HOSTILE,
                                   "phase": f"06-{HOSTILE}", "timestamp": "2026-03-04T09:20:00.000Z"}]  # fmt: skip
    for where in (isdlc / "projects" / HOSTILE, isdlc / "projects" / "api", isdlc):
        where.mkdir(parents=True, exist_ok=True)
        (where / "state.json").write_text(json.dumps(doc, indent=2))
    (isdlc / "monorepo.json").write_text('{"version": 1, "projects": {}}')
    (isdlc / "hook-activity.log").write_text(json.dumps(
        {"ts": "2026-03-04T09:20:00.000Z", "hook": HOSTILE, "event": "block",
         "phase": HOSTILE, "agent": HOSTILE, "reason": HOSTILE}) + "\n")  # fmt: skip
    notes = root / "plugins" / HOSTILE / ".continue-here.md"
    notes.parent.mkdir(parents=True)
    notes.write_text(f"---\nplugin: {HOSTILE}\nstage: 1\n---\n", encoding="utf-8")
    (root / "PLUGINS.md").write_text(f"| Plugin Name | Status |\n|---|---|\n| {HOSTILE} | x |\n")
    (root / ".tdd-progress.md").write_text(f"# TDD Progress: {HOSTILE}\n\n## Slice 1: {HOSTILE}\n")
    return root


#: A command still running this long is hung. Every case here ends in well under a second on a
#: quiet machine; beside two CPU burners on this VM one `review` of a FIFO took 5.5 s from a
#: cold start and the whole fs_faults case 11-51 s across three runs, and one CI run counted a
#: `review` over 20 s (the old limit) as a hang. A real hang (a blocking open) never ends.
HANG_S = 60


def _in_a_terminal(
    argv: list[str], keys: list[bytes], seconds: float, after: bytes | None = None
) -> tuple[bytes, bool]:
    """Run ``argv`` in a 120x36 pseudo-terminal, typing ``keys`` spaced over ``seconds``; the
    raw bytes it wrote, and whether it was still running :data:`HANG_S` after the last key.
    The keys start 1.5 s in, or once the output holds ``after`` (a slow start on a starved
    machine must not have its ``q`` quit it before the screen this case scans is drawn; a
    start that never shows it still gets the keys, :data:`HANG_S` in)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a terminal of its own
        os.environ["TERM"] = "xterm-256color"
        os.execv(argv[0], argv)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    out = bytearray()
    pause = seconds / max(1, len(keys))
    started = time.monotonic()
    deadline = started + seconds + 2 * HANG_S
    pending = list(keys)
    next_key = started + (1.5 if after is None else HANG_S)  # let it start
    status = None
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed its terminal
                chunk = b""
            out += chunk
            if not chunk:
                break
            if after is not None and after in out[-65536 - len(after) :]:
                next_key, after = min(next_key, time.monotonic() + 0.3), None
        if pending and time.monotonic() >= next_key:
            os.write(fd, pending.pop(0))
            next_key = time.monotonic() + pause
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
    hung = os.waitpid(pid, os.WNOHANG)[0] == 0 if status is None else False
    if hung:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(fd)
    return bytes(out), hung


def terminal(tmp: Path) -> dict[str, int]:
    root = _hostile_project(tmp)
    exe = [sys.executable, "-m", "phasewatch"]
    runs = {
        "dashboard": _in_a_terminal(
            [*exe, str(root)],
            [b"\x1b", *(k.encode() for k in "123456wea1"), b"q"],
            6 if SMALL else 12,
            after=SHOWN,  # the project's data drawn (its hostile name, cleaned)
        ),
        "check (terminal)": _in_a_terminal([*exe, "check", str(root)], [], 0),
    }
    piped = subprocess.run([*exe, "check", str(root)], capture_output=True, timeout=60)
    runs["check (piped)"] = (piped.stdout + piped.stderr, False)
    piped = subprocess.run([*exe, "check", "--json", str(root)], capture_output=True, timeout=60)
    runs["check --json"] = (piped.stdout + piped.stderr, False)
    leaked = {name: [f for f in FORBIDDEN if f in out] for name, (out, _) in runs.items()}
    shown = {name: out.count(SHOWN) for name, (out, _) in runs.items()}
    for name, count in shown.items():
        if not count:  # the names never reached the output: the scan proved nothing
            print(f"  {name}: the hostile strings were not shown at all")
    for name, found in leaked.items():
        if found:
            print(f"  {name}: wrote {found}")
    return {"cases": len(runs), "crashes": sum(b"Traceback" in out for out, _ in runs.values()),
            "hangs": sum(hung for _, hung in runs.values()),
            "data lost": 0,
            "misreports": sum(bool(f) for f in leaked.values()) + sum(not n for n in shown.values()),
            "bytes scanned": sum(len(out) for out, _ in runs.values()),
            "hostile strings shown cleaned": sum(shown.values())}  # fmt: skip


def _fault(root: Path, kind: str) -> None:
    state = root / ".isdlc" / "state.json"
    state.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(state)
    elif kind == "directory":
        state.mkdir()
    elif kind == "huge":
        with open(state, "wb") as fh:
            fh.write(b'{"state_version": 1, "pad": "')
            fh.write(b"x" * (40 << 20))
            fh.write(b'"}')
    elif kind == "junk":
        state.write_bytes(bytes(random.Random(3).randrange(256) for _ in range(4096)))
    elif kind == "dev-zero":
        state.symlink_to("/dev/zero")
    # "gone": .isdlc exists, state.json does not


def _fingerprint(path: Path) -> tuple[int, int] | None:
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    return (st.st_mode, st.st_size)


def fs_faults(tmp: Path) -> dict[str, int]:
    exe = [sys.executable, "-m", "phasewatch"]
    cases = crashes = hangs = lost = 0
    for kind in ("fifo", "directory", "huge", "junk", "dev-zero", "gone"):
        root = tmp / kind
        _fault(root, kind)
        state = root / ".isdlc" / "state.json"
        before = _fingerprint(state)
        check_codes = {0} if kind == "gone" else {1, 2}  # no state yet is a warning, not an error
        for argv, ok_codes in (([*exe, "check", str(root)], check_codes),
                               ([*exe, "review", "continue", str(root)], {2})):  # fmt: skip
            cases += 1
            try:
                done = subprocess.run(argv, capture_output=True, timeout=HANG_S)
            except subprocess.TimeoutExpired:
                hangs += 1
                print(f"  {kind}: {argv[3]} hung")
                continue
            bad = b"Traceback" in done.stderr or done.returncode not in ok_codes
            crashes += bad
            if bad:
                print(f"  {kind}: {argv[3]} exit {done.returncode}: {done.stderr[-300:]!r}")
        if not SMALL or kind in ("fifo", "junk"):
            cases += 1
            out, hung = _in_a_terminal([*exe, str(root)], [b"q"], 2)
            hangs += hung
            crashes += b"Traceback" in out
        lost += _fingerprint(state) != before
    return {"cases": cases, "crashes": crashes, "hangs": hangs, "data lost": lost,
            "misreports": 0}  # fmt: skip


def main() -> int:
    failed = False
    cases = (owner_race, slow_owner, two_writers, links, torn_reads, kill_9, terminal, fs_faults)
    for case in cases:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.monotonic()
            try:
                counts = case(Path(tmp))
            except Exception as exc:
                counts = {"cases": 0, "crashes": 1, "hangs": 0, "data lost": 0, "misreports": 0}
                print(f"{case.__name__}: {type(exc).__name__}: {exc}")
        took = time.monotonic() - started
        bad = sum(counts[k] for k in ("crashes", "hangs", "data lost", "misreports"))
        failed |= bad > 0
        shown = ", ".join(f"{k} {v}" for k, v in counts.items())
        print(f"{case.__name__:12} {'FAIL' if bad else 'ok':4} {shown} ({took:.1f}s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
