"""Repairs proven with the real iSDLC framework (docs/formats.md#repair).

From the generated corpus (states the framework's own code wrote, tests/helpers/generated_corpus.py)
a seeded sample of cases is damaged the way the framework's bug reports describe, through the
framework's own ``writeState``:

* a **stale write**: a later state M written back with the orchestration fields of an earlier
  state N of the same workflow (a sub-agent holding an old copy);
* **location drift**: one location of a state changed (the top-level pointer, a status in one
  map, the index, the pointer left behind).

A stale write that the framework's V8 (either era) would block, had its hook run, must be
repaired (the others, where N was not behind M, may or may not be: a stale copy from before a
rollback moves fields forward). ``phasewatch repair`` (``--against`` M for the stale write, the location plan otherwise, ``--yes``)
repairs it, and the framework judges the result (tests/conformance/isdlc/repair.cjs):
``validate-state.cjs`` must say VALID, the V9-C era's ``state-write-validator.cjs`` and today's
``state-logic.cjs`` must allow the repair write with no V9 warning, and ``phase-advance.cjs`` (the
next step) must answer exactly as it does on the undamaged state, and so must the delegation
guards (``phase-sequence-guard.cjs``'s "OUT-OF-ORDER PHASE DELEGATION", ``phase-loop-controller``)
on a delegation to the undamaged state's current phase. Needs node and a git directory
of the framework (``ISDLC_REPO``); skipped without them.

The stale-write corpus (tests/helpers/stale_corpus.py: stale writes, drift and both, made by the
framework's own code) is repaired the same way (``--against`` S_k, the last good state, except
for a drift) and each applied repair judged against S_k: VALID, allowed by both eras, and the
next step (``phase-advance.cjs``, the delegation guards) as on S_k (issue 40, item 4).
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import shutil
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from phasewatch.core.decide.command import RepairCommand, run_repair
from phasewatch.core.decide.plans import get

from tests.helpers import stale_corpus as S
from tests.helpers.generated_corpus import load

HEAD = "0689df912ef7c375b34c1486693ce19f737a8b9a"
V829 = "829e80d1052284c6c9d80cad758e5821f05dcbd8"
REPO = Path(os.environ.get("ISDLC_REPO", "/work/.mirror/vihang-hub+isdlc-framework/repo"))
DRIVER = Path(__file__).parent / "conformance" / "isdlc" / "repair.cjs"
SEED = 29
STALE_CASES = 120
DRIFT_CASES = 80

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or not (REPO / "HEAD").exists(),
    reason="needs node and a git directory of the iSDLC framework (ISDLC_REPO)",
)


@pytest.fixture(scope="session")
def framework(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Today's framework and the V9-C era's validator, extracted with ``git archive``."""
    out = []
    for commit in (HEAD, V829):
        tree = tmp_path_factory.mktemp(f"isdlc-{commit[:8]}")
        archive = subprocess.run(
            ["git", f"--git-dir={REPO}", "archive", commit], check=True, capture_output=True
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        out.append(tree)
    return out[0], out[1]


def node(framework: tuple[Path, Path], mode: str, jobs: list[dict[str, Any]], tmp: Path) -> Any:
    jobs_file = tmp / f"{mode}-jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    # cwd: whatever the framework's code writes relative to it lands in tmp, not here
    run = subprocess.run(
        ["node", str(DRIVER), "--framework", str(framework[0]), "--validator",
         str(framework[1]), "--mode", mode, "--jobs", str(jobs_file)],
        check=True, capture_output=True, text=True, timeout=300, cwd=tmp,
    )  # fmt: skip
    return json.loads(run.stdout)


# ----------------------------------------------------------------------------- the cases

ORCHESTRATION_AW = ("current_phase", "current_phase_index", "phase_status")


def _v9(verdict: dict[str, Any]) -> list[str]:
    return [w for w in verdict.get("w") or () if str(w).startswith("V9")]


def _clean(rec: dict[str, Any]) -> bool:
    """A persisted walk state with an active workflow, VALID, on which no V9 warns."""
    aw = rec["state"].get("active_workflow")
    return (
        rec["kind"] == "walk"
        and rec["persisted"]
        and isinstance(aw, dict)
        and isinstance(aw.get("phases"), list)
        and isinstance(aw.get("current_phase"), str)
        and rec["vs"]["result"] == "VALID"
        and not any(_v9(rec[k]) for k in ("v829", "head", "vs"))
    )


def _identity(state: dict[str, Any]) -> Any:
    aw = state["active_workflow"]
    return [aw.get(k) for k in ("type", "slug", "artifact_folder", "started_at", "phases")]


def _orchestration(state: dict[str, Any]) -> Any:
    aw = state["active_workflow"]
    records = state.get("phases") if isinstance(state.get("phases"), dict) else {}
    return (
        state.get("current_phase"),
        state.get("active_agent"),
        [aw.get(k) for k in ORCHESTRATION_AW],
        {k: r.get("status") for k, r in records.items() if isinstance(r, dict)},
    )


def stale_copy(newer: dict[str, Any], older: dict[str, Any]) -> dict[str, Any]:
    """``newer`` with ``older``'s orchestration fields: what a sub-agent holding ``older``
    writes back."""
    out = copy.deepcopy(newer)
    for key in ("current_phase", "active_agent"):
        if key in older:
            out[key] = older[key]
    for key in ORCHESTRATION_AW:
        if key in older["active_workflow"]:
            out["active_workflow"][key] = copy.deepcopy(older["active_workflow"][key])
    old_records = older.get("phases") if isinstance(older.get("phases"), dict) else {}
    for key, rec in (out.get("phases") or {}).items():
        old = old_records.get(key)
        if isinstance(rec, dict) and isinstance(old, dict) and "status" in old:
            rec["status"] = old["status"]
    return out


def _drifts(state: dict[str, Any]) -> list[tuple[str, Any]]:
    """The single-location changes that apply to ``state``: (name, how)."""
    aw = state["active_workflow"]
    phases, current = aw["phases"], aw["current_phase"]
    pos = phases.index(current) if current in phases else None
    summary = aw.get("phase_status") if isinstance(aw.get("phase_status"), dict) else {}
    records = state.get("phases") if isinstance(state.get("phases"), dict) else {}
    out: list[tuple[str, Any]] = []
    if pos is None:
        return out
    if state.get("current_phase") and len(phases) > 1:
        out.append(("top-level pointer", ("top", next(p for p in phases if p != current))))
    for k in phases[:pos]:
        rec = records.get(k)
        if summary.get(k) == "completed" and isinstance(rec, dict) and rec.get("status"):
            out.append(("earlier phase, detail map", ("detail", k)))
            out.append(("earlier phase, summary map", ("summary", k)))
    rec = records.get(current)
    if (
        summary.get(current) == "in_progress"
        and isinstance(rec, dict)
        and rec.get("status") == "in_progress"
    ):
        out.append(("activation half-written", ("activation", current)))
    index = aw.get("current_phase_index")
    if isinstance(index, int) and index == pos and pos >= 1:
        out.append(("index behind", ("index", 0)))
    if (
        isinstance(index, int)
        and index == pos >= 2
        and summary.get(phases[pos - 2]) == "completed"
        and summary.get(current) == "in_progress"
    ):
        out.append(("pointer left behind", ("pointer", phases[pos - 2])))
    return out


def drift(state: dict[str, Any], how: tuple[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(state)
    aw = out["active_workflow"]
    kind, arg = how
    if kind == "top":
        out["current_phase"] = arg
    elif kind == "detail":
        out["phases"][arg]["status"] = "in_progress"
    elif kind == "summary":
        aw["phase_status"][arg] = "in_progress"
    elif kind == "activation":
        aw["phase_status"][arg] = "pending"
    elif kind == "index":
        aw["current_phase_index"] = arg
    else:
        aw["current_phase"] = arg
    return out


@dataclass
class Case:
    kind: str  # "stale-write" or the drift's name
    reference: dict[str, Any]  # the undamaged state (M, or S)
    damaged: dict[str, Any]  # what the framework's writeState is given
    earlier: dict[str, Any] | None = None  # stale write: N


def cases() -> list[Case]:
    records = load()[1]
    rng = random.Random(SEED)
    clean = [r for r in records if _clean(r)]
    by_walk: dict[int, list[dict[str, Any]]] = {}
    for rec in records:
        if rec["kind"] == "walk" and rec["persisted"]:
            by_walk.setdefault(rec["walk"], []).append(rec)
    out: list[Case] = []
    for m in rng.sample(clean, len(clean)):
        if len([c for c in out if c.kind == "stale-write"]) >= STALE_CASES:
            break
        earlier = [
            n
            for n in by_walk[m["walk"]]
            if n["i"] < m["i"]
            and isinstance(n["state"].get("active_workflow"), dict)
            and _identity(n["state"]) == _identity(m["state"])
            and _orchestration(n["state"]) != _orchestration(m["state"])
        ]
        if earlier:
            n = rng.choice(earlier)
            out.append(
                Case("stale-write", m["state"], stale_copy(m["state"], n["state"]), n["state"])
            )
    drifts = 0
    kinds: Counter[str] = Counter()
    for s in rng.sample(clean, len(clean)):
        if drifts >= DRIFT_CASES:
            break
        options = _drifts(s["state"])
        if options:  # the kind drawn least so far, so that every kind is sampled
            fewest = min(kinds[name] for name, _ in options)
            name, how = rng.choice([o for o in options if kinds[o[0]] == fewest])
            kinds[name] += 1
            out.append(Case(name, s["state"], drift(s["state"], how)))
            drifts += 1
    return out


def _answer(result: dict[str, Any] | None) -> Any:
    """What phase-advance decided, without what differs by the write itself."""
    if not isinstance(result, dict):
        return result
    return {k: v for k, v in result.items() if k not in ("state_version", "message")}


# ----------------------------------------------------------------------------- the proof


def test_repairs_satisfy_the_framework(framework: tuple[Path, Path], tmp_path: Path) -> None:
    sample = cases()
    assert sample, "the corpus has no case"
    dirs = []
    for n, case in enumerate(sample):
        for name, doc in (("case", case.reference), ("ref", case.reference)):
            d = tmp_path / f"{name}-{n}" / ".isdlc"
            d.mkdir(parents=True)
            (d / "state.json").write_text(json.dumps(doc, indent=2, ensure_ascii=False))
        dirs.append(tmp_path / f"case-{n}")
        if case.earlier is not None:  # the version phasewatch saw: M, the disk before the write
            (tmp_path / f"case-{n}" / "seen.json").write_text(json.dumps(case.reference))
    written = node(
        framework,
        "stale",
        [{"dir": str(d), "state": c.damaged} for d, c in zip(dirs, sample, strict=True)],
        tmp_path,
    )
    assert [w["state_version"] for w in written] == [
        (c.reference.get("state_version") or 0) + 1 for c in sample
    ]
    counts: Counter[str] = Counter()
    judged_jobs, judged_cases = [], []
    for d, case, w in zip(dirs, sample, written, strict=True):
        blocked = w["v829"]["d"] == "block" or w["head"]["d"] == "block"
        if blocked:
            counts[f"{case.kind}: V8 would block"] += 1
        state = d / ".isdlc" / "state.json"
        damaged_text = state.read_text()
        damaged = json.loads(damaged_text)
        against = str(d / "seen.json") if case.earlier is not None else None
        out = io.StringIO()
        code = run_repair(RepairCommand(path=str(d), against=against, yes=True, json=True), out)
        answer = json.loads(out.getvalue())
        counts[f"{case.kind}: cases"] += 1
        if code != 0 or answer["outcome"] != "applied":
            # no plan, or only what cannot be known: nothing may have been written
            assert state.read_text() == damaged_text, answer
            counts[f"{case.kind}: {answer['outcome']}"] += 1
            # a write the framework's own V8 calls a regression is always repaired
            assert not (blocked and case.earlier is not None), (w, answer)
            continue
        plan = answer["plan"]
        if case.earlier is not None and plan["unknown"]:
            # the write also moved fields forward (a copy from before a rollback): the plan
            # restores what went back and leaves the rest; judged apart, below
            case.kind = "stale-write, also forward"
        counts[f"{case.kind}: repaired"] += 1
        repaired = json.loads(state.read_text())
        # only the planned values and state_version changed
        back = copy.deepcopy(repaired)
        for change in plan["changes"]:
            node_ = back
            for key in change["path"][:-1]:
                node_ = node_[key]
            node_[change["path"][-1]] = change["current"]
        assert back.pop("state_version") == damaged.pop("state_version") + 1
        assert back == damaged
        if case.earlier is not None:  # every restored value is M's (the mirror: or the pointer)
            for change in plan["changes"]:
                assert change["proposed"] in (
                    get(case.reference, tuple(change["path"])),
                    *([repaired["active_workflow"]["current_phase"]]
                      if change["path"] == ["current_phase"] else []),
                )  # fmt: skip
        judged_jobs.append({"dir": str(d), "ref": str(d.parent / d.name.replace("case", "ref")),
                            "prev": damaged_text, "scratch": str(d.parent / f"judge-{d.name}"),
                            "phase": case.reference["active_workflow"]["current_phase"]})  # fmt: skip
        judged_cases.append(case)
    verdicts = node(framework, "judge", judged_jobs, tmp_path) if judged_jobs else []
    failures = []
    for case, v in zip(judged_cases, verdicts, strict=True):
        problems: list[str] = []
        if case.kind.endswith("also forward"):
            pass  # judged on validity and the write being allowed; V9, next step: counted
        if v["vs"]["result"] != "VALID":
            problems.append(f"validate-state {v['vs']}")
        for era in ("v829", "head"):
            if v[era]["d"] != "allow":
                problems.append(f"{era} blocked: {v[era].get('r')}")
        warned = _v9(v["v829"]) + _v9(v["head"]) + _v9(v["vs"])
        if warned:
            problems.append(f"V9 {warned}")
        else:
            counts[f"{case.kind}: no V9"] += 1
        if v["vs"]["result"] == "VALID":
            counts[f"{case.kind}: VALID"] += 1
        g = v["guards"]
        if "block" in g["damaged"].values():
            counts[f"{case.kind}: a delegation guard blocked the damaged state"] += 1
        if g["repaired"] == g["ref"]:
            counts[f"{case.kind}: delegation guards as undamaged"] += 1
        else:
            problems.append(f"delegation guards {g}")
        if _answer(v["next"]) == _answer(v["next_ref"]):
            counts[f"{case.kind}: next step as undamaged"] += 1
        else:
            problems.append(f"phase-advance {v['next']} != {v['next_ref']}")
        if (problems and not case.kind.endswith("also forward")) or (
            case.kind.endswith("also forward")
            and any(
                p.startswith(("validate-state", "v829 blocked", "head blocked")) for p in problems
            )
        ):
            failures.append((case.kind, problems))
    print(json.dumps(dict(sorted(counts.items())), indent=1))
    assert not failures, failures[:5]
    assert counts["stale-write: repaired"] >= counts["stale-write: V8 would block"] > 0


# ----------------------------------------------------------------------------- the stale corpus


def _next_differs(v: dict[str, Any]) -> list[str]:
    """How the framework's next step on a repaired state differs from that on S_k."""
    out = []
    if _answer(v["next"]) != _answer(v["next_ref"]):
        out.append(f"phase-advance {_answer(v['next'])} != {_answer(v['next_ref'])}")
    if v.get("guards") and v["guards"]["repaired"] != v["guards"]["ref"]:
        out.append(f"delegation guards {v['guards']['repaired']} != {v['guards']['ref']}")
    return out


def with_work(case: dict[str, Any]) -> dict[str, Any]:
    """What a perfect repair leaves: S_k, plus the sub-agent's own work (its skill_usage_log
    entries; its evidence on the phase its copy was at, unless a retry or rollback since the
    copy reset that phase: then it is the work of the attempt the controller threw away,
    S_k's as the reset left it; stale_corpus.own_work)."""
    good = copy.deepcopy(case["good"])
    damaged = case["writes"][-1]["state"]
    if case.get("work") == "log" and isinstance(damaged.get("skill_usage_log"), list):
        log = good.setdefault("skill_usage_log", [])
        seen = {json.dumps(x, sort_keys=True) for x in log}
        log += [x for x in damaged["skill_usage_log"] if json.dumps(x, sort_keys=True) not in seen]
    for path in S.own_work(case, damaged):
        if path[0] == "phases":
            good.setdefault("phases", {}).setdefault(path[1], {})[path[2]] = get(damaged, path)
    return good


@pytest.fixture(scope="session")
def stale_corpus_repairs(
    framework: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory
) -> list[tuple[S.Repaired, dict[str, Any]]]:
    """``phasewatch repair`` on every case of the stale corpus (tests/helpers/stale_corpus.py),
    and the framework's verdicts (repair.cjs judge) on each applied one."""
    applied, jobs = [], []
    cases = S.load()[2]
    # every case as the corpus repairs it, then each drift against the copy seen (the
    # dashboard's way: the version before the write)
    runs = [(c, None, "stale-corpus-repairs") for c in cases]
    runs += [(c, c["good"], "drift-repairs") for c in cases if c["kind"] == "drift"]
    roots: dict[str, Path] = {}
    for case, seen_copy, kind in runs:
        tmp = roots.get(kind) or roots.setdefault(kind, tmp_path_factory.mktemp(kind))
        r = S.repair(case, tmp, seen_copy)
        if r.repaired is None:
            continue
        ref = tmp / f"ref-{case['id']}"
        (ref / ".isdlc").mkdir(parents=True)
        (ref / ".isdlc" / "state.json").write_text(json.dumps(with_work(case), indent=2))
        aw = case["good"].get("active_workflow")
        jobs.append({"dir": str(tmp / f"case-{case['id']}"), "ref": str(ref),
                     "prev": json.dumps(r.damaged, indent=2), "scratch": str(tmp / f"judge-{case['id']}"),
                     "phase": aw.get("current_phase") if isinstance(aw, dict) else None})  # fmt: skip
        applied.append(r)
    verdicts = node(framework, "judge", jobs, tmp) if jobs else []
    return list(zip(applied, verdicts, strict=True))


def test_the_stale_corpus_is_repaired_somewhere(
    stale_corpus_repairs: list[tuple[S.Repaired, dict[str, Any]]],
) -> None:
    """The figures below would prove nothing if no repair were applied."""
    assert len(stale_corpus_repairs) >= 100


def test_a_repair_leaves_the_next_step_of_the_undamaged_state(
    stale_corpus_repairs: list[tuple[S.Repaired, dict[str, Any]]],
) -> None:
    """Every applied repair of the stale corpus: phase-advance.cjs and the delegation guards
    answer as on the undamaged state S_k with the sub-agent's own work in it (measured 0 of
    304, 74 of them drifts repaired against S_k; 70 of 185 before the repair put back
    everything the framework reads)."""
    fig = S.Figure("repair_next_differs")
    for r, v in stale_corpus_repairs:
        differs = _next_differs(v)
        fig.check(not differs, f"case {r.case['id']} {r.case['name']}: {differs}"[:400])
    print(fig)
    assert not fig.misses, f"{fig}\n" + "\n".join(fig.misses[:15])


def test_a_repair_is_valid_and_allowed(
    stale_corpus_repairs: list[tuple[S.Repaired, dict[str, Any]]],
) -> None:
    """Every applied repair of the stale corpus: VALID, and allowed by V7/V8 of both eras as a
    write over the damaged state (measured 0 misses of 304)."""
    fig = S.Figure("repair_refused")
    for r, v in stale_corpus_repairs:
        wrong = [era for era in ("v829", "head") if v[era]["d"] != "allow"]
        if v["vs"]["result"] != "VALID":
            wrong.append(f"validate-state {v['vs'].get('errors')}")
        fig.check(not wrong, f"case {r.case['id']} {r.case['name']}: {wrong} {v['v829'].get('r')}")
    print(fig)
    assert not fig.misses, f"{fig}\n" + "\n".join(fig.misses[:15])
