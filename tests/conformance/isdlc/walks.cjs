#!/usr/bin/env node
/*
 * The generated iSDLC corpus: seeded random walks of the real framework's own code, every state
 * it writes judged by the framework's own validators.  `make corpus` runs it (see README.md here).
 *
 *   node tests/conformance/isdlc/walks.cjs \
 *       --framework /tmp/isdlc-head --framework-commit <sha> \
 *       --validator /tmp/isdlc-829e --validator-commit <sha> \
 *       [--walks 120] [--seed 1] [--out tests/conformance/isdlc/generated.jsonl.gz]
 *
 * This file holds no framework code: it `require`s the framework from the paths given.
 *
 * Two eras of the framework drive the walks:
 * - antigravity: the CLIs of src/antigravity (workflow-init with and without .isdlc/process.json,
 *   every workflow type, --light, --start-phase, --interrupt; phase-advance answering gate-logic's
 *   BLOCKED with the evidence it asks for; workflow-retry; workflow-rollback --confirm;
 *   workflow-finalize with the completion enforcer; cancel per the orchestrator; a next workflow);
 * - claude: the Phase-Loop Controller protocol of src/claude/commands/isdlc.md (orchestrator
 *   init and init-only, STEP 3c-prime + timing, 3e + timing, 3e-review gates with continue /
 *   review / redo, escalations written by common.cjs addPendingEscalation and answered retry /
 *   skip / cancel, finalize, cancel) through common.cjs's helpers and writeState().
 * Then single-field mutations of the states the walks wrote.
 *
 * Every state is judged three ways, each by the framework's own code:
 * - `v829`: state-write-validator.cjs check() at the --validator commit (V1-V3, V7, V8, V9-A/B/C),
 *   as a Write of the state over the file that was on disk before it;
 * - `head`: src/claude/hooks/lib/state-logic.cjs check() at the --framework commit (V1-V3, V7, V8,
 *   V9-A/B), the same way;
 * - `vs`: src/antigravity/validate-state.cjs run on the state as the file.
 *
 * Output: gzipped JSON lines.  The first line is the header {source, counts}; then one record per
 * state: {i, walk, era, kind: walk|mutation, step, prev (index of the record on disk before it, or
 * null), via (hook: an agent's or the controller's Write, which the hook judges; cli: a framework
 * CLI's own write), state, persisted, v829, head, vs}.  A verdict is {d: allow|block, r: reason,
 * w: [rule], s: [rule]} where rule is V9-A:<key>, V9-B, V9-C or V1/V2/V3:<key>; `s`, on a blocked
 * write only, holds the warnings the state itself draws (a block returns before them).
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { spawnSync } = require('child_process');

const {
    parseArgs, validatorWarnings, runAntigravity, answerGate, reviewThenResume, seeded,
} = require('./lib.cjs');

const ARGS = parseArgs(process.argv.slice(2),
    { walks: '120', seed: '1', out: path.join(__dirname, 'generated.jsonl.gz') });
const FW = path.resolve(ARGS.framework);
const VAL = path.resolve(ARGS.validator);
const SCRATCH = fs.mkdtempSync(path.join(os.tmpdir(), 'isdlc-walks-'));
const PROJECT = path.join(SCRATCH, 'project');
const JUDGE = path.join(SCRATCH, 'judge');
const STATE = path.join(PROJECT, '.isdlc', 'state.json');
const JUDGE_STATE = path.join(JUDGE, '.isdlc', 'state.json');
process.env.CLAUDE_PROJECT_DIR = PROJECT;

const common = require(path.join(FW, 'src/claude/hooks/lib/common.cjs'));
const stateLogic = require(path.join(FW, 'src/claude/hooks/lib/state-logic.cjs'));
const enforcer = require(path.join(FW, 'src/claude/hooks/workflow-completion-enforcer.cjs'));
const v829 = require(path.join(VAL, 'src/claude/hooks/state-write-validator.cjs'));
const SHIPPED = JSON.parse(fs.readFileSync(path.join(FW, 'src/isdlc/config/workflows.json'), 'utf8')).workflows;
const OLD = JSON.parse(fs.readFileSync(path.join(VAL, 'src/isdlc/config/workflows.json'), 'utf8')).workflows;
const MANIFEST = JSON.parse(fs.readFileSync(path.join(FW, 'src/isdlc/config/skills-manifest.json'), 'utf8'));

// ------------------------------------------------------------------ randomness and clock

const rand = seeded(ARGS.seed);
const chance = (p) => rand() < p;
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

let tick = 0;
function now() {
    tick += 1;
    return new Date(Date.UTC(2026, 2, 2, 9, 0, 0) + tick * 97000).toISOString();
}
const clone = (x) => JSON.parse(JSON.stringify(x));
const readDisk = () => (fs.existsSync(STATE) ? JSON.parse(fs.readFileSync(STATE, 'utf8')) : null);
const scrub = (text) => String(text).split(JUDGE).join('<project>').split(PROJECT).join('<project>');

// The controller's PHASE_AGENT_MAP (isdlc.md STEP 3c-prime), else the manifest's owner of the phase.
const CONTROLLER_AGENT = {
    '01-requirements': 'requirements-analyst', '02-tracing': 'trace-analyst',
    '02-impact-analysis': 'impact-analyst', '03-architecture': 'solution-architect',
    '04-design': 'software-designer', '05-test-strategy': 'test-design-engineer',
    '06-implementation': 'software-developer', '07-testing': 'quality-assurance-engineer',
    '08-code-review': 'code-reviewer', '16-quality-loop': 'quality-assurance-engineer',
};
function agentFor(key) {
    if (CONTROLLER_AGENT[key]) return CONTROLLER_AGENT[key];
    for (const [agent, own] of Object.entries(MANIFEST.ownership || {})) {
        if (own && own.phase === key) return agent;
    }
    return null;
}

/** The framework's agent file for a phase (src/claude/agents/<NN>-<agent>.md), by agent name. */
function agentFile(key) {
    const dir = path.join(FW, 'src/claude/agents');
    const agent = agentFor(key) || 'sdlc-orchestrator';
    const file = fs.readdirSync(dir).find((f) => f.endsWith(`-${agent}.md`) || f === `${agent}.md`);
    return path.join(dir, file || '00-sdlc-orchestrator.md');
}

// ------------------------------------------------------------------ judging (the framework's code)

function quiet(fn) {
    const saved = [console.error, console.log];
    console.error = () => {};
    console.log = () => {};
    try { return fn(); } finally { [console.error, console.log] = saved; }
}

/** The warnings as rule names: V9-A:<key>, V9-B, V9-C, V1/V2/V3:<phase>. */
function warningRules(stderr) {
    return validatorWarnings(stderr).map((w) => (w.rule === 'V9-A' ? `V9-A:${w.key}`
        : /^V9/.test(w.rule) ? w.rule : `${w.rule}:${w.phase}`));
}

/** One validator's verdict on writing `content` over `prev` (null: no file). */
function runCheck(mod, prev, content) {
    if (prev === null) fs.rmSync(JUDGE_STATE, { force: true });
    else fs.writeFileSync(JUDGE_STATE, JSON.stringify(prev, null, 2));
    const input = { tool_name: 'Write', tool_input: { file_path: JUDGE_STATE, content } };
    const r = quiet(() => mod.check({ input }));
    const out = { d: r.decision };
    if (r.stopReason) out.r = scrub(r.stopReason);
    const w = warningRules(r.stderr);
    if (w.length) out.w = w;
    return out;
}

function validateStateOn(content) {
    fs.writeFileSync(JUDGE_STATE, content);
    let parsed;
    for (let attempt = 1; parsed === undefined; attempt += 1) {
        const r = spawnSync(process.execPath, [path.join(FW, 'src/antigravity/validate-state.cjs')], {
            cwd: JUDGE, env: { ...process.env, CLAUDE_PROJECT_DIR: JUDGE }, encoding: 'utf8',
        });
        try {
            parsed = JSON.parse(r.stdout);
        } catch (e) { // a busy machine can refuse a process: try again, never record a guess
            if (attempt >= 5) {
                throw new Error(`validate-state.cjs gave no verdict (status ${r.status}, ${r.error}): ${r.stderr}`);
            }
            spawnSync('sleep', [String(attempt)]);
        }
    }
    const out = { result: parsed.result };
    if (parsed.errors) out.errors = parsed.errors.map(scrub);
    if (parsed.warnings) out.w = warningRules(parsed.warnings.join('\n'));
    return out;
}

/** A blocked write's verdict says nothing of the state itself (check() returns before its V9
 *  and V1-V3 checks): `s` then holds the warnings of the same state written over no file. */
function verdict(mod, prev, content) {
    const v = runCheck(mod, prev, content);
    if (v.d === 'block') {
        const alone = runCheck(mod, null, content);
        if (alone.w) v.s = alone.w;
    }
    return v;
}

function judge(prev, state) {
    const content = JSON.stringify(state, null, 2);
    return {
        v829: verdict(v829, prev, content),
        head: verdict(stateLogic, prev, content),
        vs: validateStateOn(content),
    };
}

// ------------------------------------------------------------------ recording

const records = [];
const counts = {};
let walkId = 0;
let era = '';
let lastIndex = null; // the record that is on disk now
let lastJson = null;

function record(step, state, prevIndex, prevState, extra = {}) {
    const rec = { i: records.length, walk: walkId, era, kind: extra.kind || 'walk', step,
        via: extra.via || 'hook', prev: prevIndex, state, persisted: extra.persisted !== false,
        ...judge(prevState, state) };
    records.push(rec);
    const key = `${rec.era}/${rec.kind}`;
    counts[key] = (counts[key] || 0) + 1;
    return rec;
}

/** The file changed on disk (a CLI or writeState wrote it): record the new state. */
function observe(step, via = 'cli') {
    const disk = readDisk();
    const json = JSON.stringify(disk);
    if (disk === null || json === lastJson) return;
    const prevState = lastJson === null ? null : JSON.parse(lastJson);
    const rec = record(step, disk, lastIndex, prevState, { via });
    lastIndex = rec.i;
    lastJson = json;
}

/** An agent's or the controller's Write of the whole file: judged, then persisted with
 *  writeState() unless the era's validator blocks it (the hook's block stops the write). */
function write(step, mutate, { raw = false } = {}) {
    const disk = readDisk() || {};
    const next = clone(disk);
    mutate(next);
    const content = JSON.stringify(next, null, 2);
    const validator = era === 'claude' ? v829 : stateLogic;
    const verdict = runCheck(validator, readDisk(), content);
    if (verdict.d === 'block') {
        record(step, next, lastIndex, readDisk(), { persisted: false });
        return false;
    }
    if (raw) fs.writeFileSync(STATE, content);
    else common.writeState(next); // bumps state_version to disk + 1
    observe(step, 'hook');
    return true;
}

function runCli(script, args, note = '') {
    const result = runAntigravity(FW, PROJECT, script, args);
    observe(`${script.replace('.cjs', '')} ${args.filter((a) => a !== '--description').join(' ')}`.trim()
        + ` -> ${result.result}${note}`, 'cli');
    return result;
}

// ------------------------------------------------------------------ the scratch project

function baseProject() {
    return {
        project: { name: 'acme-api', created: '2026-01-12T08:30:00.000Z' },
        constitution: { enforced: true, path: 'docs/isdlc/constitution.md' },
        state_version: int(1, 40),
        current_phase: null, active_agent: null, phases: {}, active_workflow: null,
        workflow_history: [], pending_escalations: [], skill_usage_log: [], history: [],
        blockers: [], counters: { next_req_id: 31, next_bug_id: 7 },
    };
}

/** The framework's installer (src/core/installer installCore) sets up the project: its
 *  state.json has no state_version yet, the top-level current_phase 01-requirements and
 *  skeleton records under the installer's own phase keys. */
function install() {
    const script = `import { installCore } from ${JSON.stringify(path.join(FW, 'src/core/installer/index.js'))};\n`
        + `await installCore(${JSON.stringify(PROJECT)}, { projectName: 'acme-api' });`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`installCore failed: ${r.stderr}`);
}

function freshProject() {
    fs.rmSync(PROJECT, { recursive: true, force: true });
    const installed = chance(0.5);
    if (installed) install();
    fs.mkdirSync(path.join(PROJECT, '.isdlc', 'workflows'), { recursive: true });
    fs.mkdirSync(path.join(PROJECT, 'docs', 'isdlc'), { recursive: true });
    if (!installed) fs.writeFileSync(path.join(PROJECT, 'docs', 'isdlc', 'constitution.md'), '# Constitution\n');
    // The older feature and fix workflows as the project's own (custom) definitions: the
    // shipped list no longer has them, and only a `fix` workflow may --interrupt. The loader
    // wants each phase's agent file (it finds no shipped phase list): the framework's own.
    for (const name of ['feature', 'fix']) {
        fs.writeFileSync(path.join(PROJECT, '.isdlc', 'workflows', `${name}x.yaml`),
            `name: ${name}\ndescription: the older ${name} workflow\nphases:\n`
            + OLD[name].phases.map((p) => `  - phase: ${p}\n    agent: ${agentFile(p)}\n`).join(''));
    }
    lastIndex = null;
    lastJson = null;
    if (!installed) fs.writeFileSync(STATE, JSON.stringify(baseProject(), null, 2));
    observe(installed ? 'installer (installCore)' : 'project (no workflow yet)');
}

// ------------------------------------------------------------------ protocol steps (isdlc.md)

const aw = () => (readDisk() || {}).active_workflow || null;

/** STEP 3c-prime and 3c-prime-timing: one write. */
function activate(key) {
    return write(`3c-prime ${key}`, (s) => {
        s.phases = s.phases || {};
        const rec = s.phases[key] || (s.phases[key] = {});
        const at = now();
        rec.status = 'in_progress';
        if (!rec.started) rec.started = at;
        if (!rec.timing || !rec.timing.started_at) rec.timing = { started_at: at, retries: 0 };
        else rec.timing.retries = (rec.timing.retries || 0) + 1;
        s.active_workflow.current_phase = key;
        s.active_workflow.phase_status[key] = 'in_progress';
        s.current_phase = key;
        s.active_agent = agentFor(key);
    });
}

/** STEP 3e and 3e-timing: one write (the index moves on, the next phase is left to 3c-prime). */
function complete(key, { advance = true, evidence = true } = {}) {
    return write(`3e ${key}`, (s) => {
        const rec = s.phases[key] || (s.phases[key] = {});
        const at = now();
        rec.status = 'completed';
        rec.summary = `${key} done: artifacts written and gate passed`;
        rec.completed = at;
        rec.gate_passed = at;
        rec.timing = rec.timing || { started_at: at, retries: 0 };
        rec.timing.completed_at = at;
        rec.timing.wall_clock_minutes = int(1, 90);
        if (evidence) addEvidence(rec);
        if (advance) s.active_workflow.current_phase_index += 1;
        s.active_workflow.phase_status[key] = 'completed';
        s.active_workflow.budget_status = pick(['on_track', 'on_track', 'approaching', 'exceeded']);
    });
}

function addEvidence(rec) {
    rec.constitutional_validation = { status: 'compliant', completed: true, iterations_used: int(1, 3),
        max_iterations: 5 };
    rec.iteration_requirements = {
        test_iteration: { completed: true, current_iteration: int(1, 4), max_iterations: 10,
            last_test_result: 'passed', status: 'success' },
        interactive_elicitation: { completed: true, menu_interactions: int(1, 4) },
    };
}

/** STEP 3e-review: the gate, then a random answer (continue / review / redo up to 3 times). */
function reviewGate(key) {
    const config = common.readSupervisedModeConfig(readDisk());
    if (!common.shouldReviewPhase(config, key)) return;
    write(`3e-review gate ${key}`, (s) => {
        s.active_workflow.supervised_review = { phase: key, status: 'gate_presented', paused_at: null,
            resumed_at: null, redo_count: 0, redo_guidance_history: [] };
    });
    for (;;) {
        const sr = (aw() || {}).supervised_review;
        if (!sr) return;
        const answer = pick(sr.redo_count < 3 ? ['continue', 'continue', 'review', 'redo'] : ['continue', 'review']);
        if (answer === 'continue') {
            write(`gate continue ${key}`, (s) => {
                common.recordReviewAction(s, key, 'continue', { timestamp: now() });
                delete s.active_workflow.supervised_review;
            });
            return;
        }
        if (answer === 'review') {
            reviewThenResume(write, common, key, now);
            return;
        }
        const guidance = pick(['Cover the error paths too.', 'Split the module.', 'Name the limits.']);
        write(`gate redo ${key}`, (s) => {
            const rv = s.active_workflow.supervised_review;
            rv.redo_count += 1;
            rv.redo_guidance_history.push(guidance);
            rv.status = 'redo_pending';
        });
        write(`redo reset ${key}`, (s) => {
            s.phases[key].status = 'in_progress';
            s.active_workflow.phase_status[key] = 'in_progress';
        });
        activate(key); // the phase re-runs from 3c-prime (timing.retries += 1)
        write(`redo re-3e ${key}`, (s) => {
            s.phases[key].status = 'completed';
            s.phases[key].summary = `${key} redone with guidance`;
            s.phases[key].timing.completed_at = now();
            s.active_workflow.phase_status[key] = 'completed';
            const rv = s.active_workflow.supervised_review;
            common.recordReviewAction(s, key, 'redo', { redo_count: rv.redo_count, guidance, timestamp: now() });
            rv.status = 'gate_presented';
        });
    }
}

/** A hook's escalation (common.cjs addPendingEscalation + writeState). */
function escalate(key) {
    const [type, hook] = pick([['gate_blocked', 'gate-blocker'], ['corridor_blocked', 'iteration-corridor'],
        ['constitution_blocked', 'constitution-validator']]);
    write(`escalation ${type} ${key}`, (s) => {
        common.addPendingEscalation(s, { type, hook, phase: key,
            detail: `GATE BLOCKED: ${key}\nRequirement not met: ${pick(['test_iteration', 'artifact_presence'])}`,
            timestamp: now() });
    });
}

/** The orchestrator's cancel (00-sdlc-orchestrator.md "Cancellation Process"). */
function cancel() {
    write('cancel (orchestrator)', (s) => {
        const w = s.active_workflow;
        const at = now();
        w.cancelled_at = at;
        const snaps = common.collectPhaseSnapshots(s);
        const entry = {
            type: w.type, id: w.artifact_folder ? w.artifact_folder.split('-').slice(0, 2).join('-') : null,
            description: w.description, started_at: w.started_at, cancelled_at: at,
            cancelled_at_phase: w.current_phase, cancellation_reason: pick(['Scope changed', 'Superseded by REQ-0040']),
            status: 'cancelled', merged_commit: null, phases: [...(w.phases || [])],
            phase_snapshots: snaps.phase_snapshots || [], metrics: snaps.metrics || {},
        };
        if (w.git_branch) {
            entry.git_branch = { ...w.git_branch, status: 'abandoned', abandoned_at: at };
        }
        s.workflow_history = s.workflow_history || [];
        s.workflow_history.push(entry);
        s.active_workflow = null;
    });
    enforce();
}

function enforce() {
    quiet(() => enforcer.check({ input: { tool_name: 'Write', tool_input: { file_path: STATE } } }));
    observe('completion enforcer');
}

// ------------------------------------------------------------------ the Claude era walk

function claudeInit(type, phases) {
    const initOnly = chance(0.7);
    const supervised = chance(0.5);
    write(initOnly ? `orchestrator init-only ${type}` : `orchestrator init ${type}`, (s) => {
        common.resetPhasesForWorkflow(s, phases);
        const status = {};
        phases.forEach((p, i) => { status[p] = i === 0 && !initOnly ? 'in_progress' : 'pending'; });
        const slug = `${type === 'fix' ? 'BUG' : 'REQ'}-00${int(10, 99)}-rate-limit`;
        s.active_workflow = {
            type, description: 'Add per-tenant rate limiting', slug, artifact_folder: slug,
            started_at: now(), phases: [...phases], current_phase: phases[0], current_phase_index: 0,
            phase_status: status, gate_mode: 'strict', flags: { light: false, supervised },
        };
        if (chance(0.5)) s.active_workflow.git_branch = { name: `feature/${slug}`, status: 'active', created_at: now() };
        s.current_phase = phases[0];
        if (supervised) {
            s.supervised_mode = { enabled: true, review_phases: pick(['all', ['01', '03'], ['06'], ['05', '08'], []]),
                parallel_summary: true, auto_advance_timeout: null };
        }
    });
}

function claudeWalk() {
    const type = pick(['feature', 'fix', 'feature', 'test-run', 'upgrade', 'test-generate']);
    let phases = [...OLD[type].phases];
    if (type === 'feature' && chance(0.3)) phases = phases.filter((p) => p !== '03-architecture' && p !== '04-design');
    claudeInit(type, phases);
    for (let i = 0; i < phases.length; i += 1) {
        const key = phases[i];
        if (chance(0.15)) {
            escalate(key);
            if (chance(0.3)) escalate(key);
            const answer = pick(['retry', 'skip', 'skip', 'cancel']);
            write(`escalation answer ${answer} ${key}`, (s) => { s.pending_escalations = []; });
            if (answer === 'cancel') { cancel(); return; }
        }
        activate(key);
        if (chance(0.04)) { cancel(); return; }
        if (chance(0.1)) write(`agent evidence ${key}`, (s) => addEvidence(s.phases[key]));
        complete(key, { evidence: chance(0.8) });
        reviewGate(key);
    }
    // finalize: the antigravity CLI moves the workflow into history, then the enforcer.
    runCli('workflow-finalize.cjs', ['--skip-merge']);
    enforce();
}

// ------------------------------------------------------------------ the antigravity era walk

function satisfyGate(blocked) {
    write(`agent evidence ${blocked.phase}`, answerGate(PROJECT, blocked, addEvidence, now));
}

/** workflow-init's arguments (and the project's process.json, written here): [args, note]. */
function initArgs() {
    const types = Object.keys(SHIPPED).filter((t) => SHIPPED[t].phases && !/^R\d/.test(SHIPPED[t].phases[0]))
        .concat(['feature', 'fix']);
    const type = pick(types);
    const phases = (SHIPPED[type] || OLD[type]).phases;
    const args = ['--type', type, '--description', pick(['Export reports as CSV', 'Login crash on empty password'])];
    fs.rmSync(path.join(PROJECT, '.isdlc', 'process.json'), { force: true });
    let note = '';
    if (chance(0.3)) {
        const keep = phases.filter(() => chance(0.6)).concat(chance(0.2) ? [pick(['07-testing', '09-bogus', '02-tracing'])] : []);
        fs.writeFileSync(path.join(PROJECT, '.isdlc', 'process.json'), JSON.stringify({ [type]: keep }, null, 2));
        note = ` (process.json: ${type} = [${keep.join(', ')}])`;
    } else if (chance(0.2)) {
        args.push('--light');
    }
    if (chance(0.15)) args.push('--start-phase', pick(phases));
    if (chance(0.3)) args.push('--supervised');
    return [args, note];
}

function antigravityWalk() {
    runCli('workflow-init.cjs', ...initArgs());
    let workflows = 1;
    for (let op = 0; op < 40; op += 1) {
        const w = aw();
        if (!w) {
            if (workflows >= 3 || chance(0.4)) return;
            workflows += 1;
            runCli('workflow-init.cjs', ...initArgs());
            continue;
        }
        const last = w.phases[w.phases.length - 1];
        const r = rand();
        if (r < 0.5) {
            const res = runCli('phase-advance.cjs', []);
            if (res.result === 'BLOCKED') satisfyGate(res);
            if (res.result === 'WORKFLOW_COMPLETE') {
                write(`agent completes the last phase ${last}`, (s) => {
                    const a = s.active_workflow;
                    const k = a.current_phase;
                    a.phase_status[k] = 'completed';
                    s.phases = s.phases || {};
                    s.phases[k] = Object.assign(s.phases[k] || {}, { status: 'completed', completed_at: now() });
                });
                runCli('workflow-finalize.cjs', ['--skip-merge']);
                if (chance(0.7)) enforce();
            }
        } else if (r < 0.62) {
            activate(w.current_phase); // a phase agent's 3c-prime in an antigravity session
        } else if (r < 0.7) {
            runCli('workflow-retry.cjs', []);
        } else if (r < 0.78) {
            const idx = w.phases.indexOf(w.current_phase);
            if (idx > 0) runCli('workflow-rollback.cjs', ['--to-phase', w.phases[int(0, idx - 1)], '--confirm']);
        } else if (r < 0.84) {
            runCli('workflow-init.cjs', ['--type', 'fix', '--description', 'Hotfix crash', '--interrupt']);
        } else if (r < 0.88) {
            cancel();
        } else if (r < 0.93) {
            runCli('workflow-finalize.cjs', ['--skip-merge']); // NOT_COMPLETE unless at the end
        } else {
            escalate(w.current_phase);
            write(`escalation answer ${w.current_phase}`, (s) => { s.pending_escalations = []; });
        }
    }
}

// ------------------------------------------------------------------ mutations

const STATUSES = ['pending', 'in_progress', 'completed', 'skipped', 'done', 'PENDING', '', null, 3];

function mutations(s) {
    const out = [];
    const w = s.active_workflow;
    const keys = Object.keys(s.phases || {});
    const wkeys = w && Array.isArray(w.phases) ? w.phases : [];
    const add = (name, fn) => out.push([name, fn]);
    if (w) {
        add('aw.current_phase_index +1', (x) => { x.active_workflow.current_phase_index += 1; });
        add('aw.current_phase_index -1', (x) => { x.active_workflow.current_phase_index -= 1; });
        add('aw.current_phase_index null', (x) => { x.active_workflow.current_phase_index = null; });
        add('aw.current_phase_index string', (x) => { x.active_workflow.current_phase_index = String(x.active_workflow.current_phase_index); });
        add('aw.current_phase_index len', (x) => { x.active_workflow.current_phase_index = wkeys.length; });
        add('aw.current_phase other', (x) => { x.active_workflow.current_phase = pick(wkeys.length ? wkeys : ['01-requirements']); });
        add('aw.current_phase unknown', (x) => { x.active_workflow.current_phase = '09-security'; });
        add('aw.current_phase null', (x) => { x.active_workflow.current_phase = null; });
        add('aw.current_phase unicode', (x) => { x.active_workflow.current_phase = '06-implementation\u200b'; });
        add('aw.phases missing', (x) => { delete x.active_workflow.phases; });
        add('aw.phases object', (x) => { x.active_workflow.phases = { a: 1 }; });
        add('aw.phase_status missing', (x) => { delete x.active_workflow.phase_status; });
        add('aw.extra key', (x) => { x.active_workflow.x_note = 'extra \u202e key'; });
        add('aw.recovery_action rollback', (x) => { x.active_workflow.recovery_action = { type: 'rollback', phase: x.active_workflow.current_phase, timestamp: now() }; });
        for (const k of wkeys) {
            add(`aw.phase_status[${k}] =`, (x) => { x.active_workflow.phase_status = x.active_workflow.phase_status || {}; x.active_workflow.phase_status[k] = pick(STATUSES); });
            add(`aw.phase_status[${k}] missing`, (x) => { if (x.active_workflow.phase_status) delete x.active_workflow.phase_status[k]; });
        }
        add('suspended_workflow copy', (x) => { x.suspended_workflow = clone(x.active_workflow); });
        add('suspended_workflow bad index', (x) => { x.suspended_workflow = { ...clone(x.active_workflow), current_phase_index: 'two' }; });
        add('aw.supervised_review gate', (x) => { x.active_workflow.supervised_review = { phase: x.active_workflow.current_phase, status: 'gate_presented', paused_at: null, resumed_at: null, redo_count: 0, redo_guidance_history: [] }; });
    } else {
        add('active_workflow {}', (x) => { x.active_workflow = {}; });
    }
    for (const k of keys) {
        add(`phases[${k}].status =`, (x) => { if (x.phases[k]) x.phases[k].status = pick(STATUSES); });
        add(`phases[${k}] missing`, (x) => { delete x.phases[k]; });
        add(`phases[${k}] null`, (x) => { x.phases[k] = null; });
        add(`phases[${k}].constitutional_validation.iterations_used 0`, (x) => { if (x.phases[k]) x.phases[k].constitutional_validation = { completed: true, iterations_used: pick([0, null, -1]) }; });
        add(`phases[${k}].test_iteration 0`, (x) => { if (x.phases[k]) x.phases[k].iteration_requirements = { test_iteration: { completed: true, current_iteration: 0 } }; });
        add(`phases[${k}].elicitation 0`, (x) => { if (x.phases[k]) x.phases[k].iteration_requirements = { interactive_elicitation: { completed: true, menu_interactions: 0 } }; });
    }
    add('current_phase other', (x) => { x.current_phase = pick(wkeys.length ? wkeys : ['01-requirements']); });
    add('current_phase null', (x) => { x.current_phase = null; });
    add('active_agent other', (x) => { x.active_agent = pick(['software-developer', 'qa-engineer', 'environment-builder', null]); });
    add('state_version -1', (x) => { x.state_version -= 1; });
    add('state_version string', (x) => { x.state_version = String(x.state_version); });
    add('state_version missing', (x) => { delete x.state_version; });
    add('pending_escalations junk', (x) => { x.pending_escalations = [{ type: 'gate_blocked', hook: 'gate-blocker', phase: x.current_phase, detail: 'line\nline \u2066x\u2069', timestamp: now() }]; });
    add('extra top-level key', (x) => { x.x_extra = { nested: [1, 2] }; });
    add('project.name unicode', (x) => { x.project = { ...(x.project || {}), name: 'acme \u202eipa\u202c \u{E0041}' }; });
    add('phases null', (x) => { x.phases = null; });
    return out;
}

function mutate(count) {
    const sources = records.filter((r) => r.kind === 'walk' && r.persisted);
    for (let n = 0; n < count; n += 1) {
        const src = pick(sources);
        era = src.era;
        const options = mutations(src.state);
        const [name, fn] = pick(options);
        const next = clone(src.state);
        fn(next);
        if (!/^state_version/.test(name) && typeof next.state_version === 'number') next.state_version += 1;
        if (JSON.stringify(next) === JSON.stringify(src.state)) continue;
        walkId = src.walk;
        const rec = record(`mutation ${name}`, next, src.i, src.state, { kind: 'mutation' });
        rec.persisted = (era === 'claude' ? rec.v829 : rec.head).d !== 'block';
    }
}

// ------------------------------------------------------------------ main

function main() {
    fs.mkdirSync(path.join(JUDGE, '.isdlc'), { recursive: true });
    const walks = Number(ARGS.walks);
    for (let n = 0; n < walks; n += 1) {
        walkId = n;
        era = n % 2 === 0 ? 'antigravity' : 'claude';
        freshProject();
        if (era === 'claude') claudeWalk();
        else antigravityWalk();
    }
    mutate(Number(ARGS.mutations || Math.round(records.length * 0.6)));
    const header = {
        source: {
            repository: 'https://github.com/vihang-hub/isdlc-framework',
            framework_commit: ARGS.frameworkCommit || null,
            validator_commit: ARGS.validatorCommit || null,
            seed: Number(ARGS.seed), walks,
        },
        counts,
    };
    const lines = [JSON.stringify(header)].concat(records.map((r) => JSON.stringify(r)));
    fs.writeFileSync(ARGS.out, zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }));
    fs.rmSync(SCRATCH, { recursive: true, force: true });
    console.error(`${records.length} states: ${JSON.stringify(counts)} -> ${ARGS.out}`);
}

main();
