"""The stale-write corpus (``tests/conformance/isdlc/stale.jsonl.gz``, made by ``make corpus``
with ``stale.cjs`` from the real framework's own code) and phasewatch's figures on it.

Each case forks one of the framework's own walks (the generated corpus) at the controller's last
good state S_k with damage: a sub-agent's copy of an earlier state written back (through
``writeState()`` or raw), a location drift, or both, or two stale copies in a row. The framework
judged every damaging write (V7/V8 of both eras as a Write over the file before it,
``validate-state.cjs``, V9) and its next step on the damaged state and on S_k (``phase-advance.cjs``
and the delegation guards): ``differs`` says whether they differ. See
``tests/conformance/isdlc/README.md``.

The figures (issue 40, items 2 and 4), each a count of misses whose goal is 0:

- ``blocked_error`` (a): a damaging write either era's V7/V8 blocks: an error of the transition
  audit;
- ``allowed_quiet`` (b): a legit controller step of the walks (generated corpus: a persisted walk
  write that no hook would block: both eras allow it, or a framework CLI wrote it): no error of
  the transition audit;
- ``differs_flagged`` (c): a case whose next step differs from S_k's: an error or a warning (of
  its writes, or one the damaged state has that S_k has not: rule, place or message);
- ``repair_says_nothing``: ``phasewatch repair`` (against S_k, the copy seen) says "nothing to
  repair" (exit 0) on a case whose next step differs;
- ``repair_toward_damage``: an applied repair changes a field the damage left as S_k had it
  (and that the location plan would leave alone on S_k);
- ``repair_restores_deleted``: an applied stale-write repair leaves deleted what the write
  deleted of S_k (a phase record's fields, a review decision);
- ``repair_keeps_own_work``: an applied repair drops the sub-agent's own work (its
  ``skill_usage_log`` entry, its evidence);
- ``offer_undamaged``: ``plan_locations`` offers a repair on a walk state with no V9 warning;
- ``stale_plan_legit``: ``plan_stale_write`` plans a repair of a legit controller step.
"""

from __future__ import annotations

import gzip
import io
import json
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from phasewatch.core.audit.framework import marker_clears, marker_set_by_write
from phasewatch.core.decide.command import RepairCommand, run_repair
from phasewatch.core.decide.plans import get, plan_locations, plan_stale_write
from phasewatch.core.findings import Finding, Severity

from tests.helpers import generated_corpus as G

CORPUS = Path(__file__).parent.parent / "conformance" / "isdlc" / "stale.jsonl.gz"
LOUD = G.LOUD


# ----------------------------------------------------------------------------- the file


def _lines(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _expand(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``lines`` with every state whole (a stored change applied to the state before it)."""
    states: dict[int, Any] = {}
    for line in lines[1:]:
        if line["t"] == "state":
            if "delta" in line:
                line["state"] = G.patch(states[line["base"]], line.pop("delta"))
            states[line["i"]] = line["state"]
            continue
        before = states[line["good"]]
        for w in line["writes"]:
            if "delta" in w:
                w["state"] = G.patch(before, w.pop("delta"))
            before = w["state"]
    return lines


@cache
def load() -> tuple[dict[str, Any], dict[int, dict[str, Any]], tuple[dict[str, Any], ...]]:
    """(header, walk states by their index in the generated corpus, cases), every state whole:
    a case's ``good`` and ``copies`` are replaced by the states, each write holds its ``state``."""
    lines = _expand(_lines(CORPUS))
    states = {line["i"]: line["state"] for line in lines[1:] if line["t"] == "state"}
    cases = []
    for line in lines[1:]:
        if line["t"] == "case":
            case = dict(line)
            case["good_i"], case["good"] = case["good"], states[case["good"]]
            case["copies"] = [states[i] for i in case["copies"]]
            cases.append(case)
    return lines[0], states, tuple(cases)


def compact(path: Path) -> None:
    """Rewrite the corpus at ``path`` with each state as its change from the one before it (a
    walk state: the previous stored one of its walk; a write: the state it was written over),
    where that is smaller (``make corpus`` does this after ``stale.cjs``)."""
    lines = _expand(_lines(path))
    states: dict[int, Any] = {}

    def shrink(holder: dict[str, Any], before: Any) -> None:
        change = G.diff(before, holder["state"])
        if G.patch(before, change) == holder["state"] and len(json.dumps(change)) < len(
            json.dumps(holder["state"])
        ):
            holder["delta"] = change
            del holder["state"]

    out = [json.dumps(lines[0], ensure_ascii=False)]
    for line in lines[1:]:
        line = json.loads(json.dumps(line))
        if line["t"] == "state":
            states[line["i"]] = line["state"]
            if line["base"] is not None:
                shrink(line, states[line["base"]])
        else:
            before = states[line["good"]]
            for w in line["writes"]:
                after = w["state"]
                shrink(w, before)
                before = after
        out.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
    data = ("\n".join(out) + "\n").encode("utf-8")
    path.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))  # the same bytes each time


def blocked(verdicts: dict[str, Any]) -> bool:
    """Either era's write validator (V7/V8) blocks the write."""
    return "block" in (verdicts["v829"]["d"], verdicts["head"]["d"])


def kinds(cases: Iterable[dict[str, Any]]) -> Counter[str]:
    """How many cases of each kind: the name, drift shapes, and what a stale copy spans."""
    out: Counter[str] = Counter()
    for case in cases:
        out[case["name"]] += 1
        if case["shape"]:
            out[f"{case['name']}: {case['shape']}"] += 1
        for across in case["across"]:
            out[f"{case['kind']} across {across}"] += 1
        if case["differs"]:
            out[f"{case['name']}: next step differs"] += 1
        if any(blocked(w) for w in case["writes"]):
            out[f"{case['name']}: blocked by V7/V8"] += 1
        good = _aw(case["good"])
        for copy in map(_aw, case["copies"]):
            review = copy.get("supervised_review")
            if isinstance(review, dict) and review.get("status") == "redo_pending":
                out[f"{case['kind']} copy in a supervised redo (redo_pending)"] += 1
            if copy.get("recovery_action") and copy["recovery_action"] != good.get(
                "recovery_action"
            ):
                out[f"{case['kind']} copy with a recovery_action S_k does not hold"] += 1
    return out


def _aw(doc: Any) -> dict[str, Any]:
    aw = doc.get("active_workflow") if isinstance(doc, dict) else None
    return aw if isinstance(aw, dict) else {}


# ----------------------------------------------------------------------------- phasewatch


@dataclass
class Judged:
    case: dict[str, Any]
    writes: list[list[Finding]]  # each write's transition findings
    state: list[Finding]  # the damaged state's findings
    good: list[Finding]  # S_k's findings


@cache
def judged() -> tuple[Judged, ...]:
    """phasewatch's findings on every case: each write over the one before it, from S_k."""
    out = []
    for case in load()[2]:
        base = good = G.observe(case["good"])
        writes = []
        for w in case["writes"]:
            found, base = G.written(base, G.observe(w["state"]))
            writes.append(found)
        out.append(Judged(case, writes, list(base.findings), list(good.findings)))
    return tuple(out)


def _loud(found: Iterable[Finding], severities: tuple[Severity, ...] = LOUD) -> list[str]:
    return [f"{f.severity.value} {f.rule_id} {f.path}" for f in found if f.severity in severities]


def _new(found: list[Finding], before: list[Finding]) -> list[Finding]:
    """The findings of ``found`` that ``before`` has not (the same rule, place and message)."""
    seen = {(f.rule_id, f.path, f.message) for f in before}
    return [f for f in found if (f.rule_id, f.path, f.message) not in seen]


@dataclass
class Figure:
    """A count of misses (goal 0) over ``cases`` cases."""

    name: str
    cases: int = 0
    misses: list[str] = field(default_factory=list)
    by_kind: Counter[str] = field(default_factory=Counter)  # "<kind> miss" / "<kind> cases"

    def check(self, ok: bool, where: str, kind: str | None = None) -> None:
        self.cases += 1
        if kind is not None:
            self.by_kind[f"{kind} cases"] += 1
        if not ok:
            self.misses.append(where)
            if kind is not None:
                self.by_kind[f"{kind} miss"] += 1

    def breakdown(self) -> str:
        kinds = sorted({k.rsplit(" ", 1)[0] for k in self.by_kind})
        return ", ".join(
            f"{k} {self.by_kind[f'{k} miss']}/{self.by_kind[f'{k} cases']}" for k in kinds
        )

    def __str__(self) -> str:
        return f"{self.name}: {len(self.misses)} of {self.cases} (goal 0)"


def _where(case: dict[str, Any], why: str) -> str:
    extra = case["shape"] or ",".join(case["across"])
    return f"case {case['id']} {case['name']} ({extra}; S_k #{case['good_i']}): {why}"


def figure_blocked_error(judgements: Iterable[Judged]) -> Figure:
    """(a) every damaging write either era blocks: an error of the transition audit."""
    fig = Figure("blocked_error")
    for j in judgements:
        for n, (w, found) in enumerate(zip(j.case["writes"], j.writes, strict=True)):
            if blocked(w):
                reason = w["head"].get("r") or w["v829"].get("r")
                fig.check(
                    any(f.severity is Severity.ERROR for f in found),
                    _where(j.case, f"write {n + 1}: {reason}: {_loud(found)}"),
                    j.case["name"],
                )
    return fig


def figure_differs_flagged(judgements: Iterable[Judged]) -> Figure:
    """(c) every case whose next step differs from S_k's: an error or warning, or a finding
    that names a stale write (``core.audit.stale_write``: information where the framework is
    silent, docs/severity.md, and the dashboard offers its repair)."""
    from phasewatch.core.audit import stale_write

    fig = Figure("differs_flagged")
    for j in judgements:
        if j.case["differs"]:
            loud = [x for found in j.writes for x in _loud(found)] + _loud(_new(j.state, j.good))
            loud += [f.rule_id for found in j.writes for f in stale_write(found)]
            fig.check(bool(loud), _where(j.case, str(j.case["next"])[:300]), j.case["name"])
    return fig


def figure_allowed_quiet(judgements: Iterable[G.Judged]) -> Figure:
    """(b) every legit controller step of the walks (a persisted walk write no hook would block:
    both eras allow it, or a framework CLI wrote it): no error of the transition audit. Among
    the CLI writes are some V8 of an era would block were they a Write (workflow-rollback,
    workflow-init --interrupt, workflow-finalize resuming a suspended workflow)."""
    fig = Figure("allowed_quiet")
    for j in judgements:
        rec = j.rec
        if rec["kind"] != "walk" or not rec["persisted"] or rec["prev"] is None:
            continue
        if G.blocked(rec):  # a hook's write an era blocks (the framework's CLIs: none judges)
            continue
        errors = _loud(j.transition, (Severity.ERROR,))
        kind = rec.get("via", "hook")
        if "block" in (rec["v829"]["d"], rec["head"]["d"]):  # a CLI's write: no hook judges it
            kind += ", V7/V8 would block"
        fig.check(not errors, f"#{rec['i']} {rec['era']} {rec['step']}: {errors}", kind)
    return fig


# ----------------------------------------------------------------------------- repair


@dataclass
class Repaired:
    case: dict[str, Any]
    code: int
    answer: dict[str, Any]
    damaged: dict[str, Any]
    repaired: dict[str, Any] | None  # the file after an applied repair


def seen(case: dict[str, Any]) -> dict[str, Any] | None:
    """The copy ``phasewatch repair --against`` is given: S_k, the last state phasewatch saw
    before the damage (none for a drift: the location plan)."""
    return None if case["kind"] == "drift" else case["good"]


def repair(case: dict[str, Any], root: Path, copy: dict[str, Any] | None = None) -> Repaired:
    """``phasewatch repair --yes --json`` on the damaged state, in a project under ``root``,
    ``--against`` ``copy`` (default: :func:`seen`)."""
    project = root / f"case-{case['id']}"
    (project / ".isdlc").mkdir(parents=True)
    damaged = case["writes"][-1]["state"]
    (project / ".isdlc" / "state.json").write_text(json.dumps(damaged, indent=2))
    against = None
    if (copy := copy or seen(case)) is not None:
        against = str(project / "seen.json")
        Path(against).write_text(json.dumps(copy))
    out = io.StringIO()
    code = run_repair(RepairCommand(path=str(project), against=against, yes=True, json=True), out)
    answer = json.loads(out.getvalue())
    after = json.loads((project / ".isdlc" / "state.json").read_text())
    applied = answer.get("outcome") == "applied"
    return Repaired(case, code, answer, damaged, after if applied else None)


@cache
def repaired() -> tuple[Repaired, ...]:
    with tempfile.TemporaryDirectory(prefix="phasewatch-stale-") as tmp:
        return tuple(repair(case, Path(tmp)) for case in load()[2])


def figure_repair_says_nothing(results: Iterable[Repaired]) -> Figure:
    """Exit 0 "nothing to repair" on a case whose next step differs from S_k's."""
    fig = Figure("repair_says_nothing")
    for r in results:
        if r.case["differs"]:
            nothing = r.code == 0 and r.answer.get("outcome") == "nothing-to-repair"
            fig.check(not nothing, _where(r.case, r.answer.get("message", "")), r.case["name"])
    return fig


@cache
def drifts_against_the_copy() -> tuple[Repaired, ...]:
    """The drifts repaired as the dashboard repairs them: against S_k, the version it saw
    before the write."""
    with tempfile.TemporaryDirectory(prefix="phasewatch-drift-") as tmp:
        return tuple(
            repair(case, Path(tmp), case["good"]) for case in load()[2] if case["kind"] == "drift"
        )


def figure_drift_with_the_copy(results: Iterable[Repaired]) -> Figure:
    """A drift whose next step differs, repaired against the copy seen (the dashboard's way):
    never "nothing to repair" with exit 0."""
    fig = figure_repair_says_nothing(results)
    fig.name = "drift_with_the_copy"
    return fig


def figure_repair_toward_damage(results: Iterable[Repaired]) -> Figure:
    """An applied repair changes a field the damage had left as S_k had it, and that the
    location plan leaves alone on S_k itself (toward the damaged values: a correct mirror
    overwritten, the index raised to a drifted pointer)."""
    fig = Figure("repair_toward_damage")
    for r in results:
        if r.repaired is None:
            continue
        good = r.case["good"]
        on_good = plan_locations(good)
        standing = {tuple(c.path) for c in on_good.changes} if on_good is not None else set()
        wrong = [
            ".".join(c["path"])
            for c in r.answer["plan"]["changes"]
            if get(good, tuple(c["path"])) == get(r.damaged, tuple(c["path"]))
            and c["proposed"] != get(good, tuple(c["path"]))
            and tuple(c["path"]) not in standing
        ]
        fig.check(not wrong, _where(r.case, f"changed {wrong}"), r.case["name"])
    return fig


def _records(doc: Any) -> dict[str, Any]:
    phases = doc.get("phases") if isinstance(doc, dict) else None
    return phases if isinstance(phases, dict) else {}


def _reviews(doc: Any) -> list[Any]:
    history = _aw(doc).get("review_history")
    return history if isinstance(history, list) else []


def deleted(good: dict[str, Any], damaged: dict[str, Any]) -> list[str]:
    """What the damage deleted or emptied of S_k, when both hold the same workflow: a phase
    record's fields (its status aside: the orchestration fields are judged apart) and review
    decisions (``active_workflow.review_history``, common.cjs ``recordReviewAction``)."""
    if _identity(good) != _identity(damaged):
        return []
    out = []
    for key, rec in _records(good).items():
        if not isinstance(rec, dict):
            continue
        now = _records(damaged).get(key)
        now = now if isinstance(now, dict) else {}
        out += [f"phases.{key}.{f}" for f in rec if f != "status" and f not in now]
    out += [f"review {e.get('phase')} {e.get('action')}" for e in _reviews(good)
            if isinstance(e, dict) and e not in _reviews(damaged)]  # fmt: skip
    return out


def _identity(doc: Any) -> Any:
    aw = _aw(doc)
    return [aw.get(k) for k in ("type", "slug", "started_at", "phases")] if aw else None


def figure_repair_restores_deleted(results: Iterable[Repaired]) -> Figure:
    """An applied stale-write repair puts back what the write deleted of S_k (item 4)."""
    fig = Figure("repair_restores_deleted")
    for r in results:
        if r.repaired is None or seen(r.case) is None:
            continue
        lost = deleted(r.case["good"], r.damaged)
        if lost:
            still = [x for x in lost if x in deleted(r.case["good"], r.repaired)]
            fig.check(not still, _where(r.case, f"still deleted {still}"), r.case["name"])
    return fig


def own_work(case: dict[str, Any], damaged: dict[str, Any]) -> list[tuple[str, ...]]:
    """Where the sub-agent's own work (``work``) is in the damaged state. Its evidence on a
    phase that a retry or rollback since its copy reset is the work of the attempt the
    controller threw away (workflow-retry.cjs, workflow-rollback.cjs clear it), not work to
    keep."""
    if case["work"] == "log":
        return [("skill_usage_log",)]
    if case["work"] == "evidence":
        copy = case["copies"][0]
        aw = copy.get("active_workflow")
        key = aw.get("current_phase") if isinstance(aw, dict) else copy.get("current_phase")
        reset = marker_set_by_write(damaged, case["good"]) and marker_clears(case["good"], key)
        if not reset and isinstance(
            get(damaged, ("phases", str(key), "constitutional_validation")), dict
        ):
            return [("phases", str(key), "constitutional_validation")]
    return []


def figure_repair_keeps_own_work(results: Iterable[Repaired]) -> Figure:
    """An applied repair keeps what the sub-agent added: its log entry, its evidence."""
    fig = Figure("repair_keeps_own_work")
    for r in results:
        if r.repaired is None:
            continue
        for path in own_work(r.case, r.damaged):
            before, after = get(r.damaged, path), get(r.repaired, path)
            kept = (
                all(e in after for e in before)
                if isinstance(before, list) and isinstance(after, list)
                else before == after
            )
            fig.check(kept, _where(r.case, f"{'.'.join(path)} not kept"), r.case["name"])
    return fig


def figure_dashboard_offer(judgements: Iterable[Judged]) -> Figure:
    """A case whose next step differs: the dashboard, having seen S_k and then each write,
    offers a repair (or names why none is safe) beside the findings (core.review)."""
    from phasewatch.core.review import repair_offer
    from phasewatch.core.snapshot import evaluate

    fig = Figure("dashboard_offer")
    for j in judgements:
        if not j.case["differs"]:
            continue
        timeline = [evaluate(j.case["good"], G.SOURCE)]
        for w in j.case["writes"]:
            timeline.append(evaluate(w["state"], G.SOURCE, timeline[-1]))
        offer = repair_offer(timeline[-1], timeline)
        fig.check(offer is not None, _where(j.case, "no repair offered"), j.case["name"])
    return fig


def figure_offer_undamaged() -> Figure:
    """``plan_locations`` on every walk state no V9 of either era warns about: no plan."""
    fig = Figure("offer_undamaged")
    for rec in G.load()[1]:
        if rec["kind"] != "walk" or not rec["persisted"] or not isinstance(rec["state"], dict):
            continue
        if any(w.startswith("V9") for w in G.warnings(rec)):
            continue
        plan = plan_locations(rec["state"])
        fig.check(plan is None, f"#{rec['i']} {rec['era']} {rec['step']}: {_plan(plan)}")
    return fig


def figure_stale_plan_legit() -> Figure:
    """``plan_stale_write`` on every legit controller step (a persisted walk write both eras
    allow, against the state before it): nothing offered (no plan, or one that says it is not
    a stale write)."""
    fig = Figure("stale_plan_legit")
    _, records = G.load()
    for rec in records:
        if rec["kind"] != "walk" or not rec["persisted"] or rec["prev"] is None or G.blocked(rec):
            continue
        before = records[rec["prev"]]["state"]
        if not (isinstance(before, dict) and isinstance(rec["state"], dict)):
            continue
        plan = plan_stale_write(before, rec["state"])
        # a plan that says "not a stale write" (stale False) is neither offered nor applied
        offered = plan is not None and (bool(plan.changes) or plan.stale)
        fig.check(not offered, f"#{rec['i']} {rec['era']} {rec['step']}: {_plan(plan)}")
    return fig


def _plan(plan: Any) -> str:
    if plan is None:
        return "-"
    doc = plan.to_json()
    return str(
        [(".".join(c["path"]), c["current"], c["proposed"]) for c in doc["changes"]]
        + [".".join(u["path"]) for u in doc["unknown"]]
    )[:300]


def main(argv: list[str]) -> int:
    """Print the kinds and figures (``python -m tests.helpers.stale_corpus``) and the first 8
    misses of each; ``--misses NAME``: every miss of the figure NAME; ``--compact FILE`` first
    stores each state of FILE as its change from the one before."""
    if argv[:1] == ["--compact"]:
        compact(Path(argv[1]))
    only = argv[1] if argv[:1] == ["--misses"] else None
    _, states, cases = load()
    print(f"stale corpus: {len(cases)} cases over {len(states)} walk states")
    for kind, n in sorted(kinds(cases).items()):
        print(f"  {n:4} {kind}")
    judgements = judged()
    figs = [
        figure_blocked_error(judgements),
        figure_allowed_quiet(G.judged()),
        figure_differs_flagged(judgements),
        figure_repair_says_nothing(repaired()),
        figure_drift_with_the_copy(drifts_against_the_copy()),
        figure_dashboard_offer(judgements),
        figure_repair_toward_damage(repaired()),
        figure_repair_restores_deleted(repaired()),
        figure_repair_keeps_own_work(repaired()),
        figure_offer_undamaged(),
        figure_stale_plan_legit(),
    ]
    outcomes = Counter(f"{r.case['name']}: {r.answer.get('outcome')}" for r in repaired())
    print("phasewatch repair (--against S_k; a drift: the location plan):")
    for outcome, n in sorted(outcomes.items()):
        print(f"  {n:4} {outcome}")
    print("figures:")
    for fig in figs:
        print(f"  {fig}" + (f" [{fig.breakdown()}]" if fig.by_kind else ""))
    for fig in figs:
        if only in (None, fig.name):
            for miss in fig.misses if only else fig.misses[:8]:
                print(f"  MISS {fig.name} {miss}")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
