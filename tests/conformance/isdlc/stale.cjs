#!/usr/bin/env node
/*
 * The stale-write corpus: the framework's own walks (generated.jsonl.gz, written by walks.cjs)
 * forked at random points into the damage a sub-agent's old copy of state.json does, each
 * damaging write made and judged by the framework's own code.  `make corpus` runs it after the
 * walks (see README.md here).
 *
 *   node tests/conformance/isdlc/stale.cjs --framework /tmp/isdlc-head --validator /tmp/isdlc-829e \
 *       [--in generated.jsonl.gz] [--out stale.jsonl.gz] [--seed 11] [--forks 150] \
 *       [--drifts 14] [--mixed 40]
 *
 * This file holds no framework code: it `require`s the framework from the paths given.
 *
 * A walk's on-disk states S_0 .. S_n are the controller's steps (every persisted walk record).
 * A case forks the walk at S_k (the controller's last good state) with damage:
 * - stale: a sub-agent's copy S_(k-j), j = 1..5 steps earlier (across whatever lies between:
 *   retry, rollback, supervised redo, escalations, cancel, finalize, a new workflow, an
 *   interrupt, a review gate, plain advances), plus its own work (none, a skill_usage_log entry,
 *   the constitutional evidence of its phase), written back over S_k twice: through common.cjs
 *   writeState() (state_version = disk + 1: `stale/writeState`) and as a raw write of the copy
 *   with its own state_version (`stale/raw`);
 * - drift: one location of S_k (one on which no V9 warns) changed, written through writeState(): the pointer
 *   (active_workflow.current_phase) ahead or behind, ahead with the top-level mirror, the mirror
 *   alone, current_phase_index ahead or behind, one status map (phase_status or phases[k].status);
 * - mixed: a stale copy with a drift in it (`mixed/stale+drift`), or two stale copies written
 *   one after the other (`mixed/stale twice`), through writeState().
 * Every damaging write lands (the hooks of today's framework do not stop a writeState(), and a
 * raw write bypasses them); what the framework says of it is recorded:
 * - `v829` / `head`: the V9-C era's state-write-validator.cjs check() and today's
 *   state-logic.cjs check() on the write as a Write over the file on disk before it:
 *   {d: allow|block, w: [warnings], r: the block's first line, s: (blocked) the warnings of the
 *   state written over itself, as check() returns before them on a block};
 * - `vs`: validate-state.cjs on the damaged file {result, errors, w};
 * - `next`: the framework's next step on the damaged state and on S_k: phase-advance.cjs's answer
 *   (without state_version and message) and the delegation guards (phase-sequence-guard.cjs,
 *   phase-loop-controller.cjs) on a Task delegating to S_k's current phase; `differs`: they differ.
 *
 * Output: gzipped JSON lines.  Header {source, counts}; then {t: "state", i, walk, base, state}
 * for every walk state a case uses (i: its index in generated.jsonl.gz; base: the previous one of
 * the same walk stored here, or null); then one {t: "case", ...} per case: {id, kind, name, era,
 * walk, good (i of S_k), copies ([i of each copy]), back ([j]), across ([what lies between]),
 * work, shape, writes: [{state, v829, head}], vs, next: {damaged, good}, differs}.
 * tests/helpers/stale_corpus.py stores each state as its change from the one before (--compact).
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');

const {
    parseArgs, quiet, runCliInProcess, writeCheck, delegationGuards, warningNames, seeded,
} = require('./lib.cjs');

const ARGS = parseArgs(process.argv.slice(2), {
    in: path.join(__dirname, 'generated.jsonl.gz'), out: path.join(__dirname, 'stale.jsonl.gz'),
    seed: '11', forks: '150', drifts: '14', mixed: '40',
});
const FW = path.resolve(ARGS.framework);
const VAL = path.resolve(ARGS.validator);
const SCRATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'isdlc-stale-'));
const common = require(path.join(FW, 'src/claude/hooks/lib/common.cjs'));
const stateLogic = require(path.join(FW, 'src/claude/hooks/lib/state-logic.cjs'));
const v829 = require(path.join(VAL, 'src/claude/hooks/state-write-validator.cjs'));

// ------------------------------------------------------------------ randomness

const rand = seeded(ARGS.seed);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
function shuffle(xs) {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i -= 1) {
        const j = Math.floor(rand() * (i + 1));
        [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
}
const clone = (x) => JSON.parse(JSON.stringify(x));
const text = (state) => JSON.stringify(state, null, 2);

// ------------------------------------------------------------------ the walks

/** generated.jsonl.gz's change format (tests/helpers/generated_corpus.py patch()). */
function patch(old, change) {
    const set = change['~'] === undefined ? {} : change['~'];
    if (old === null || typeof old !== 'object' || Array.isArray(old)
        || set === null || typeof set !== 'object' || Array.isArray(set)) return change['~'];
    const out = {};
    for (const [k, v] of Object.entries(old)) if (!(change['-'] || []).includes(k)) out[k] = v;
    for (const [k, v] of Object.entries(set)) out[k] = Array.isArray(v) ? v[0] : patch(old[k], v);
    return out;
}

function loadWalks() {
    const lines = zlib.gunzipSync(fs.readFileSync(ARGS.in)).toString('utf8').split('\n').filter(Boolean);
    const records = lines.slice(1).map((l) => JSON.parse(l));
    for (const rec of records) {
        if (rec.delta !== undefined) rec.state = patch(records[rec.prev].state, rec.delta);
    }
    const chains = new Map();
    for (const rec of records) {
        if (rec.kind !== 'walk' || !rec.persisted) continue;
        if (!chains.has(rec.walk)) chains.set(rec.walk, []);
        chains.get(rec.walk).push(rec);
    }
    for (const chain of chains.values()) {
        chain.forEach((rec, n) => {
            if (n > 0 && rec.prev !== chain[n - 1].i) throw new Error(`walk ${rec.walk}: #${rec.i} is not over #${chain[n - 1].i}`);
        });
    }
    return [...chains.values()];
}

/** What a controller step was, by its recorded step name. */
function tag(step) {
    if (/workflow-retry|escalation answer retry/.test(step)) return 'retry';
    if (/workflow-rollback/.test(step)) return 'rollback';
    if (/--interrupt/.test(step)) return 'interrupt';
    if (/gate redo|redo reset|redo re-3e/.test(step)) return 'redo';
    if (/cancel/.test(step)) return 'cancel';
    if (/^escalation/.test(step)) return 'escalation';
    if (/workflow-finalize .*FINALIZED|completion enforcer/.test(step)) return 'finalize';
    if (/workflow-init|orchestrator init/.test(step)) return 'new workflow';
    if (/3e-review|gate (review|resume|continue)/.test(step)) return 'review gate';
    return 'advance';
}
const TAGS = ['retry', 'rollback', 'redo', 'escalation', 'cancel', 'finalize', 'new workflow',
    'interrupt', 'review gate', 'advance'];

const same = (a, b) => {
    const x = { ...a, state_version: 0 };
    const y = { ...b, state_version: 0 };
    return JSON.stringify(x) === JSON.stringify(y);
};

/** Every (walk, k, j): S_k with the copy S_(k-j), the copy different from S_k. */
function forkPoints(chains) {
    const out = [];
    for (const chain of chains) {
        for (let k = 1; k < chain.length; k += 1) {
            for (let j = 1; j <= Math.min(5, k); j += 1) {
                if (same(chain[k - j].state, chain[k].state)) continue;
                const across = [...new Set(chain.slice(k - j + 1, k + 1).map((r) => tag(r.step)))];
                out.push({ chain, k, j, across });
            }
        }
    }
    return out;
}

// ------------------------------------------------------------------ damage

/** The sub-agent's own work in its copy. */
function ownWork(copy, kind) {
    const aw = copy.active_workflow;
    const key = aw && typeof aw.current_phase === 'string' ? aw.current_phase : copy.current_phase;
    if (kind === 'log') {
        copy.skill_usage_log = Array.isArray(copy.skill_usage_log) ? copy.skill_usage_log : [];
        copy.skill_usage_log.push({ timestamp: '2026-03-09T12:00:00.000Z', agent: copy.active_agent || 'sub-agent',
            agent_phase: key || null, skill_id: 'DEL-001', status: 'executed' });
    } else if (kind === 'evidence' && key && copy.phases && typeof copy.phases === 'object') {
        const rec = copy.phases[key] || (copy.phases[key] = {});
        rec.constitutional_validation = { status: 'compliant', completed: true, iterations_used: 2, max_iterations: 5 };
    }
    return copy;
}

/** The location drifts that apply to `state`: [[shape, mutate]]. */
function drifts(state) {
    const aw = state.active_workflow;
    if (!aw || !Array.isArray(aw.phases) || typeof aw.current_phase !== 'string') return [];
    const phases = aw.phases;
    const pos = phases.indexOf(aw.current_phase);
    if (pos < 0) return [];
    const out = [];
    const other = (k) => pick(phases.filter((p) => p !== k));
    if (pos + 1 < phases.length) {
        out.push(['pointer ahead', (s) => { s.active_workflow.current_phase = phases[pos + 1]; }]);
        out.push(['pointer ahead + mirror', (s) => {
            s.active_workflow.current_phase = phases[pos + 1];
            s.current_phase = phases[pos + 1];
        }]);
    }
    if (pos > 0) out.push(['pointer behind', (s) => { s.active_workflow.current_phase = phases[pos - 1]; }]);
    if (phases.length > 1) out.push(['mirror', (s) => { s.current_phase = other(s.current_phase); }]);
    if (Number.isInteger(aw.current_phase_index)) {
        if (aw.current_phase_index + 1 < phases.length) {
            out.push(['index ahead', (s) => { s.active_workflow.current_phase_index += 1; }]);
        }
        if (aw.current_phase_index > 0) out.push(['index behind', (s) => { s.active_workflow.current_phase_index -= 1; }]);
    }
    const status = (v) => pick(['pending', 'in_progress', 'completed'].filter((x) => x !== v));
    if (aw.phase_status && typeof aw.phase_status === 'object') {
        out.push(['phase_status', (s) => {
            const k = pick(phases);
            s.active_workflow.phase_status[k] = status(s.active_workflow.phase_status[k]);
        }]);
    }
    const recs = phases.filter((k) => state.phases && state.phases[k] && typeof state.phases[k] === 'object');
    if (recs.length) {
        out.push(['phases[k].status', (s) => {
            const k = pick(recs);
            s.phases[k].status = status(s.phases[k].status);
        }]);
    }
    return out;
}
const SHAPES = ['pointer ahead', 'pointer ahead + mirror', 'pointer behind', 'mirror', 'index ahead',
    'index behind', 'phase_status', 'phases[k].status'];

// ------------------------------------------------------------------ the framework's verdicts

let dirs = 0;
function project(content) {
    dirs += 1;
    const dir = path.join(SCRATCH, `p${dirs}`);
    fs.mkdirSync(path.join(dir, '.isdlc'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.isdlc', 'state.json'), content);
    return dir;
}
const JUDGE_FILE = path.join(project('{}'), '.isdlc', 'state.json');
// what the framework's hooks log (hook-activity.log) goes to a scratch project, never here
process.env.CLAUDE_PROJECT_DIR = project('{}');

function verdict(mod, prev, content) {
    const v = writeCheck(mod, JUDGE_FILE, prev, content);
    if (!v.w.length) delete v.w;
    if (v.d === 'block') {
        const alone = writeCheck(mod, JUDGE_FILE, content, content).w;
        if (alone.length) v.s = alone;
    }
    return v;
}

/** Write `state` over the file holding `prevText`: through writeState() or raw. The damaged
 *  file's text and the two eras' verdicts on it. */
function damage(prevText, state, via) {
    let content = text(state);
    if (via === 'writeState') {
        const dir = project(prevText);
        const saved = process.env.CLAUDE_PROJECT_DIR; // (set above: never undefined)
        process.env.CLAUDE_PROJECT_DIR = dir;
        try {
            quiet(() => common.writeState(state));
        } finally {
            process.env.CLAUDE_PROJECT_DIR = saved;
        }
        content = fs.readFileSync(path.join(dir, '.isdlc', 'state.json'), 'utf8');
    }
    return { content, v829: verdict(v829, prevText, content), head: verdict(stateLogic, prevText, content) };
}

function nextStep(state, phase) {
    const dir = project(text(state));
    const answer = runCliInProcess(FW, 'phase-advance.cjs', dir);
    delete answer.state_version;
    delete answer.message;
    const advance = JSON.parse(JSON.stringify(answer).split(dir).join('<project>'));
    return { advance, guards: phase ? delegationGuards(FW, state, phase) : null };
}

function validateState(content) {
    const r = runCliInProcess(FW, 'validate-state.cjs', project(content));
    const out = { result: r.result };
    if (r.errors && r.errors.length) out.errors = r.errors;
    const w = r.warnings ? warningNames(r.warnings.join('\n')) : [];
    if (w.length) out.w = w;
    return out;
}

// ------------------------------------------------------------------ cases

const pool = new Map(); // i -> record used
const cases = [];
const counts = {};

function addCase(c, good, writes) {
    for (const rec of [good, ...c.copyRecs]) pool.set(rec.i, rec);
    const final = JSON.parse(writes[writes.length - 1].content);
    const aw = good.state.active_workflow;
    const phase = (aw && aw.current_phase) || null;
    const next = { damaged: nextStep(final, phase), good: nextStep(good.state, phase) };
    const out = {
        t: 'case', id: cases.length, kind: c.name.split('/')[0], name: c.name, era: good.era,
        walk: good.walk, good: good.i, copies: c.copyRecs.map((r) => r.i), back: c.back || [],
        across: c.across || [], work: c.work || null, shape: c.shape || null,
        writes: writes.map((w) => ({ state: JSON.parse(w.content), v829: w.v829, head: w.head })),
        vs: validateState(writes[writes.length - 1].content), next,
        differs: JSON.stringify(next.damaged) !== JSON.stringify(next.good),
    };
    cases.push(out);
    counts[c.name] = (counts[c.name] || 0) + 1;
}

/** About `n` fork points, drawn evenly over what lies between the copy and S_k, in walk order. */
function stratified(points, n) {
    const chosen = new Set();
    const quota = Math.ceil(n / TAGS.length);
    for (const t of TAGS) {
        const with_ = shuffle(points.filter((p) => p.across.includes(t) && !chosen.has(p)));
        for (const p of with_.slice(0, quota)) chosen.add(p);
    }
    return [...chosen].sort((a, b) => a.chain[a.k].i - b.chain[b.k].i || a.j - b.j);
}

function staleCases(points) {
    for (const p of stratified(points, Number(ARGS.forks))) {
        const good = p.chain[p.k];
        const copyRec = p.chain[p.k - p.j];
        const work = pick(['none', 'log', 'evidence']);
        const copy = ownWork(clone(copyRec.state), work);
        for (const via of ['writeState', 'raw']) {
            addCase({ name: `stale/${via}`, copyRecs: [copyRec], back: [p.j], across: p.across, work },
                good, [damage(text(good.state), copy, via)]);
        }
    }
}

/** No V9 of either era warns about the walk state (a drift is then the only disagreement). */
function clean(rec) {
    const all = [rec.v829.w, rec.v829.s, rec.head.w, rec.head.s, rec.vs.w].flat().filter(Boolean);
    return !all.some((w) => /^V9/.test(w));
}

function driftCases(chains) {
    const goods = shuffle(chains.flat().filter((r) => clean(r) && drifts(r.state).length));
    for (const shape of SHAPES) {
        let n = 0;
        for (const good of goods) {
            if (n >= Number(ARGS.drifts)) break;
            const option = drifts(good.state).find(([name]) => name === shape);
            if (!option) continue;
            const state = clone(good.state);
            option[1](state);
            if (same(state, good.state)) continue;
            addCase({ name: 'drift/writeState', copyRecs: [], shape }, good,
                [damage(text(good.state), state, 'writeState')]);
            n += 1;
        }
    }
}

function mixedCases(points) {
    let n = 0;
    for (const p of shuffle(stratified(points, 2 * Number(ARGS.mixed)))) {
        if (n >= Number(ARGS.mixed)) break;
        const good = p.chain[p.k];
        const copyRec = p.chain[p.k - p.j];
        const options = drifts(copyRec.state);
        if (!options.length) continue;
        const [shape, fn] = pick(options);
        const copy = clone(copyRec.state);
        fn(copy);
        addCase({ name: 'mixed/stale+drift', copyRecs: [copyRec], back: [p.j], across: p.across, shape },
            good, [damage(text(good.state), copy, 'writeState')]);
        n += 1;
    }
    n = 0;
    for (const p of shuffle(stratified(points, 2 * Number(ARGS.mixed)))) {
        if (n >= Number(ARGS.mixed)) break;
        const good = p.chain[p.k];
        const others = [];
        for (let j = 1; j <= Math.min(5, p.k); j += 1) {
            if (j !== p.j && !same(p.chain[p.k - j].state, p.chain[p.k - p.j].state)) others.push(j);
        }
        if (!others.length) continue;
        const back = [p.j, pick(others)];
        const copyRecs = back.map((j) => p.chain[p.k - j]);
        const first = damage(text(good.state), clone(copyRecs[0].state), 'writeState');
        const second = damage(first.content, clone(copyRecs[1].state), 'writeState');
        const across = [...new Set(p.chain.slice(p.k - Math.max(...back) + 1, p.k + 1).map((r) => tag(r.step)))];
        addCase({ name: 'mixed/stale twice', copyRecs, back, across }, good, [first, second]);
        n += 1;
    }
}

function main() {
    const chains = loadWalks();
    const points = forkPoints(chains);
    staleCases(points);
    driftCases(chains);
    mixedCases(points);
    const byWalk = new Map();
    const states = [...pool.values()].sort((a, b) => a.i - b.i).map((rec) => {
        const base = byWalk.has(rec.walk) ? byWalk.get(rec.walk) : null;
        byWalk.set(rec.walk, rec.i);
        return { t: 'state', i: rec.i, walk: rec.walk, base, state: rec.state };
    });
    const header = {
        source: {
            repository: 'https://github.com/vihang-hub/isdlc-framework',
            framework_commit: ARGS.frameworkCommit || null, validator_commit: ARGS.validatorCommit || null,
            seed: Number(ARGS.seed), walks: path.basename(ARGS.in),
        },
        counts,
    };
    const lines = [header, ...states, ...cases].map((x) => JSON.stringify(x));
    fs.writeFileSync(ARGS.out, zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }));
    fs.rmSync(SCRATCH, { recursive: true, force: true });
    console.error(`${cases.length} cases (${states.length} walk states): ${JSON.stringify(counts)} -> ${ARGS.out}`);
}

main();
