"""The generated iSDLC corpus (``tests/conformance/isdlc/generated.jsonl.gz``, made by
``make corpus`` from the real framework's own code) and phasewatch's agreement with it.

Each record is one state the framework's code wrote (or a single-field mutation of one), judged
by the framework's own validators: ``v829`` (state-write-validator at the V9-C era), ``head``
(state-logic today) and ``vs`` (validate-state). See ``tests/conformance/isdlc/README.md``.

The severity contract (README "Severity"), as figures over the whole corpus:

- ``valid_exit0``: every state validate-state calls VALID: ``check`` exits 0 (no error);
- ``silent_quiet``: every state on which all the framework's validators are silent: no warning
  or error (and no loud transition finding for a write every validator allowed);
- ``v9_warned``: every V9 warning (either era): a warning or error at the location it names;
- ``invalid_error``: every state validate-state calls INVALID: an error (exit 1);
- ``blocked_error``: every write a validator blocks (V7/V8): an error of the transition audit;
- ``cli_quiet``: every write of the framework's own CLIs (which no hook judges): no error of the
  transition audit.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
from phasewatch.core.findings import Finding, Severity
from phasewatch.core.snapshot import Snapshot, evaluate
from phasewatch.core.sources import parse_document

CORPUS = Path(__file__).parent.parent / "conformance" / "isdlc" / "generated.jsonl.gz"
SOURCE = ".isdlc/state.json"
LOUD = (Severity.ERROR, Severity.WARNING)


@cache
def load() -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    """(header, records) of the committed corpus, every state whole (see :func:`compact`)."""
    with gzip.open(CORPUS, "rt", encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    records = lines[1:]
    for rec in records:
        if "delta" in rec:
            rec["state"] = patch(records[rec["prev"]]["state"], rec.pop("delta"))
    return lines[0], tuple(records)


#: The step of a phase-advance.cjs run that advanced the workflow.
ADVANCED = "phase-advance -> ADVANCED"


def fresh_inits() -> list[dict[str, Any]]:
    """States right after workflow-init.cjs on a project the framework's installer set up."""
    _, records = load()
    return [
        r["state"]
        for r in records
        if r["step"].startswith("workflow-init")
        and r["prev"] is not None
        and records[r["prev"]]["step"].startswith("installer")
    ]


# A record's state is stored as its change from the state before it (``prev``), when that is
# smaller: {"~": {key: change or new value}, "-": [removed keys]}, nested for objects.
_SET, _DEL = "~", "-"


def diff(old: Any, new: Any) -> Any:
    """The change from ``old`` to ``new`` (objects recursively); :func:`patch` undoes it."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return {_SET: new}
    out: dict[str, Any] = {}
    changed = {k: v for k, v in new.items() if k not in old or old[k] != v}
    if changed:
        out[_SET] = {
            k: (diff(old[k], v) if isinstance(old.get(k), dict) and isinstance(v, dict) else [v])
            for k, v in changed.items()
        }
    removed = [k for k in old if k not in new]
    if removed:
        out[_DEL] = removed
    return out


def patch(old: Any, change: dict[str, Any]) -> Any:
    """``old`` with ``change`` (from :func:`diff`) applied."""
    if not isinstance(old, dict) or not isinstance(change.get(_SET, {}), dict):
        return change.get(_SET)  # a whole new value
    out = {k: v for k, v in old.items() if k not in change.get(_DEL, ())}
    for k, v in change.get(_SET, {}).items():  # [value] replaces, a change object recurses
        out[k] = v[0] if isinstance(v, list) else patch(old.get(k), v)
    return out


def compact(path: Path) -> None:
    """Rewrite the corpus at ``path`` with each state as its change from ``prev`` where that
    is smaller (``make corpus`` does this after the walks)."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    records = lines[1:]
    out = [json.dumps(lines[0], ensure_ascii=False)]
    for rec in records:
        prev = rec["prev"]
        rec = dict(rec)
        if prev is not None and isinstance(records[prev]["state"], dict):
            change = diff(records[prev]["state"], rec["state"])
            if patch(records[prev]["state"], change) == rec["state"] and len(
                json.dumps(change)
            ) < len(json.dumps(rec["state"])):
                rec["delta"] = change
                del rec["state"]
        out.append(json.dumps(rec, ensure_ascii=False, separators=(",", ":")))
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as fh:
        fh.write("\n".join(out) + "\n")


def warnings(rec: dict[str, Any]) -> set[str]:
    """Every warning the framework raises on the state (``s``: a blocked write's state alone)."""
    out = set(rec["vs"].get("w", ()))
    for era in ("v829", "head"):
        out |= {*rec[era].get("w", ()), *rec[era].get("s", ())}
    return out


def blocked(rec: dict[str, Any]) -> bool:
    """A write an agent or the controller made (through the hook) that a validator blocks.
    The framework's CLIs write the file themselves: no hook judges them."""
    return (
        rec["prev"] is not None
        and rec.get("via", "hook") == "hook"
        and "block" in (rec["v829"]["d"], rec["head"]["d"])
    )


def v9_paths(rule: str) -> set[str]:
    """Where a V9 warning points: the finding must name one of these paths."""
    kind, _, key = rule.partition(":")
    if kind == "V9-A":
        return {f"phases.{key}.status", f"active_workflow.phase_status.{key}", f"phases.{key}"}
    if kind == "V9-B":
        return {"current_phase", "active_workflow.current_phase"}
    return {"active_workflow.current_phase_index", "active_workflow.current_phase"}


@dataclass
class Judged:
    rec: dict[str, Any]
    state: list[Finding]
    transition: list[Finding]


def observe(state: Any, previous: Snapshot | None = None) -> Snapshot:
    """What ``check`` and the dashboard make of ``state`` written as the framework writes it
    (``JSON.stringify(state, null, 2)``): read through the same parser and cleaning."""
    raw = json.dumps(state, indent=2, ensure_ascii=False).encode("utf-8", "surrogatepass")
    result = parse_document(Path(SOURCE), raw)
    return evaluate(result.data, SOURCE, previous, read=result)


#: The corpus is judged in this many parts (one test each, so the workers share the ~30 s of
#: it). A part holds whole chains of records (a walk and the mutations of its states), so the
#: state before a write is always judged in the same part.
PARTS = 8


@cache
def parts() -> tuple[tuple[int, ...], ...]:
    """The indexes of the records of each part, in order; the parts about the same size."""
    _, records = load()
    root: dict[int, int] = {}
    chains: dict[int, list[int]] = {}
    for i, rec in enumerate(records):
        root[i] = i if rec["prev"] is None else root[rec["prev"]]
        chains.setdefault(root[i], []).append(i)
    out: list[list[int]] = [[] for _ in range(PARTS)]
    for chain in sorted(chains.values(), key=len, reverse=True):
        min(out, key=len).extend(chain)
    return tuple(tuple(sorted(part)) for part in out)


@cache
def judged_part(part: int) -> tuple[Judged, ...]:
    """phasewatch's findings on the records of ``part`` (the state alone, and the write over
    ``prev``)."""
    _, records = load()
    snaps: dict[int, Snapshot] = {}
    out = []
    for i in parts()[part]:
        rec = records[i]
        snap = observe(rec["state"])
        transition: list[Finding] = []
        prev = rec["prev"]
        if prev is not None and isinstance(records[prev]["state"], dict):
            before = snaps.get(prev) or observe(records[prev]["state"])
            transition, snap = written(before, snap)
        snaps[rec["i"]] = snap
        out.append(Judged(rec, list(snap.findings), transition))
    return tuple(out)


def judged() -> tuple[Judged, ...]:
    """phasewatch's findings on every record."""
    return tuple(j for part in range(PARTS) for j in judged_part(part))


def unjudged() -> tuple[Judged, ...]:
    """Every record with no findings: enough for what the framework says (a figure's cases
    depend on the record alone), in no time."""
    _, records = load()
    return tuple(Judged(rec, [], []) for rec in records)


def write_findings(base: Snapshot, snap: Snapshot) -> list[Finding]:
    """The findings ``snap``'s state gets only because it was written over ``base``'s (the
    transition audit's); none when the two are the same document."""
    return written(base, snap)[0]


def written(base: Snapshot, snap: Snapshot) -> tuple[list[Finding], Snapshot]:
    """:func:`write_findings`, and ``snap`` as a session that saw ``base`` first holds it (with
    what the session saw of each workflow, core.audit.seen)."""
    # the same bytes as ``snap``, read once: judged again over ``base``
    after = evaluate(snap.raw, SOURCE, base, read=snap.read)
    snap = msgspec.structs.replace(snap, seen=after.seen)
    if base.raw == snap.raw and not (
        base.read and snap.read and base.read.exact != snap.read.exact
    ):
        return [], snap
    return _transition_only(after.findings, snap.findings), snap


def _transition_only(both: list[Finding], alone: list[Finding]) -> list[Finding]:
    """The findings a state gets only because of the write before it."""
    seen = [(f.rule_id, f.path, f.message) for f in alone]
    rest = []
    for f in both:
        key = (f.rule_id, f.path, f.message)
        if key in seen:
            seen.remove(key)
        else:
            rest.append(f)
    return rest


@dataclass
class Figure:
    name: str
    held: int = 0
    cases: int = 0
    misses: list[str] = field(default_factory=list)

    def check(self, ok: bool, rec: dict[str, Any], why: str) -> None:
        self.cases += 1
        if ok:
            self.held += 1
        else:
            self.misses.append(f"#{rec['i']} {rec['era']}/{rec['kind']} {rec['step']}: {why}")

    def __str__(self) -> str:
        return f"{self.name}: {self.held}/{self.cases}"


def _loud(found: list[Finding]) -> list[str]:
    return [f"{f.severity.value} {f.rule_id} {f.path}" for f in found if f.severity in LOUD]


#: The agreement figures, in the order the module's docstring gives them.
FIGURES = (
    "valid_exit0",
    "silent_quiet",
    "v9_warned",
    "invalid_error",
    "blocked_error",
    "cli_quiet",
)


def figures(judgements: Iterable[Judged] | None = None) -> dict[str, Figure]:
    """The figures over ``judgements`` (every record's, by default)."""
    figs = {n: Figure(n) for n in FIGURES}
    for j in judged() if judgements is None else judgements:
        rec = j.rec
        errors = [f for f in j.state if f.severity is Severity.ERROR]
        valid = rec["vs"]["result"] == "VALID"
        warned = warnings(rec)
        if valid:
            figs["valid_exit0"].check(not errors, rec, str(_loud(errors)))
        else:
            figs["invalid_error"].check(bool(errors), rec, str(rec["vs"].get("errors")))
        if valid and not warned:
            quiet_write = blocked(rec) or not _loud(j.transition)
            figs["silent_quiet"].check(
                not _loud(j.state) and quiet_write, rec, str(_loud(j.state) + _loud(j.transition))
            )
        for rule in sorted(w for w in warned if w.startswith("V9")):
            paths = v9_paths(rule)
            hit = any(f.severity in LOUD and f.path in paths for f in j.state)
            figs["v9_warned"].check(hit, rec, f"{rule}: {_loud(j.state)}")
        if rec.get("via") == "cli" and rec["prev"] is not None:
            errors_tr = [f for f in j.transition if f.severity is Severity.ERROR]
            figs["cli_quiet"].check(not errors_tr, rec, str(_loud(errors_tr)))
        if blocked(rec):
            figs["blocked_error"].check(
                any(f.severity is Severity.ERROR for f in j.transition),
                rec,
                f"{rec['v829'].get('r') or rec['head'].get('r')}: {_loud(j.transition)}",
            )
    return figs


def iter_misses(figs: dict[str, Figure]) -> Iterator[str]:
    for fig in figs.values():
        for miss in fig.misses:
            yield f"{fig.name} {miss}"


def main(argv: list[str]) -> int:
    """Print the agreement figures (``python -m tests.helpers.generated_corpus``);
    ``--compact FILE`` first stores each state of FILE as its change from the one before."""
    if argv[:1] == ["--compact"]:
        compact(Path(argv[1]))
    header, records = load()
    print(f"corpus: {len(records)} states, {json.dumps(header['counts'], sort_keys=True)}")
    figs = figures()
    for fig in figs.values():
        print(f"  {fig}")
    misses = list(iter_misses(figs))
    for miss in misses[:40]:
        print(f"  MISS {miss}")
    return 1 if misses else 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
