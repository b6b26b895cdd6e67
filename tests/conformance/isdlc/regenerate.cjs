#!/usr/bin/env node
/*
 * Regenerate the iSDLC conformance corpus by running the real framework's own code.
 *
 *   node tests/conformance/isdlc/regenerate.cjs \
 *       --framework /tmp/isdlc-head  --framework-commit <sha> \
 *       --validator /tmp/isdlc-829e  --validator-commit <sha> \
 *       [--out tests/conformance/isdlc/corpus]
 *
 * --framework: a work tree of vihang-hub/isdlc-framework (src/claude/hooks/lib/common.cjs,
 *              src/antigravity/*.cjs, src/claude/hooks/workflow-completion-enforcer.cjs).
 * --validator: a work tree of the same repository at a commit whose
 *              src/claude/hooks/state-write-validator.cjs still holds V7/V8/V9 (e.g. 829e80d1).
 *
 * This file holds no framework code: it `require`s the framework from the paths given and drives
 * the protocol steps of src/claude/commands/isdlc.md (STEP 3c-prime, 3e, 3e-review) and the
 * orchestrator's init step in a scratch project. Every state write goes through the real
 * validator's check() first (its verdict: allow / block with reason / warnings) and then through
 * common.cjs writeState(); after each write validate-state.cjs is run on the file. The records
 * are written as JSON fixtures (see README.md in this folder).
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const { parseArgs, validatorWarnings, runAntigravity, answerGate, reviewThenResume } = require('./lib.cjs');

const ARGS = parseArgs(process.argv.slice(2), { out: path.join(__dirname, 'corpus') });
const FW = path.resolve(ARGS.framework);
const VAL = path.resolve(ARGS.validator);
const PROJECT = fs.mkdtempSync(path.join(os.tmpdir(), 'isdlc-conformance-'));
const STATE = path.join(PROJECT, '.isdlc', 'state.json');
process.env.CLAUDE_PROJECT_DIR = PROJECT;
fs.mkdirSync(path.join(PROJECT, '.isdlc'), { recursive: true });
fs.mkdirSync(path.join(PROJECT, 'docs', 'isdlc'), { recursive: true });
fs.writeFileSync(path.join(PROJECT, 'docs', 'isdlc', 'constitution.md'), '# Constitution\n');

const common = require(path.join(FW, 'src/claude/hooks/lib/common.cjs'));
const enforcer = require(path.join(FW, 'src/claude/hooks/workflow-completion-enforcer.cjs'));
const validator = require(path.join(VAL, 'src/claude/hooks/state-write-validator.cjs'));

// isdlc.md PHASE_AGENT_MAP (STEP 3c-prime active_agent resolution)
const AGENT = {
    '00-quick-scan': 'quick-scan-agent',
    '01-requirements': 'requirements-analyst',
    '02-tracing': 'trace-analyst',
    '02-impact-analysis': 'impact-analyst',
    '03-architecture': 'solution-architect',
    '04-design': 'software-designer',
    '05-test-strategy': 'test-design-engineer',
    '06-implementation': 'software-developer',
    '07-testing': 'quality-assurance-engineer',
    '08-code-review': 'code-reviewer',
    '11-local-testing': 'quality-assurance-engineer',
    '16-quality-loop': 'quality-assurance-engineer',
};
const FEATURE = ['00-quick-scan', '01-requirements', '02-impact-analysis', '03-architecture',
    '04-design', '05-test-strategy', '06-implementation', '16-quality-loop', '08-code-review'];

// ------------------------------------------------------------------ clock and file helpers

let tick = 0;
function now() {
    tick += 1;
    return new Date(Date.UTC(2026, 1, 20, 9, 0, 0) + tick * 180000).toISOString();
}
const clone = (x) => JSON.parse(JSON.stringify(x));
const readDisk = () => (fs.existsSync(STATE) ? JSON.parse(fs.readFileSync(STATE, 'utf8')) : null);
const scrub = (text) => text.split(PROJECT).join('<project>');

function baseProject() {
    return {
        project: { name: 'acme-api', created: '2026-01-12T08:30:00.000Z' },
        constitution: { enforced: true, path: 'docs/isdlc/constitution.md' },
        current_phase: null,
        active_agent: null,
        phases: {},
        active_workflow: null,
        workflow_history: [],
        pending_escalations: [],
        skill_usage_log: [],
        history: [],
        blockers: [],
        counters: { next_req_id: 31, next_bug_id: 7 },
    };
}

// ------------------------------------------------------------------ running the framework

function splitWarnings(stderr) {
    return validatorWarnings(stderr).map((w) => (/^V9/.test(w.rule)
        ? { rule: w.rule, text: scrub(w.text) }
        : { rule: 'V1-V3', text: scrub(w.issue || w.text) }));
}

function runValidator(content) {
    const saved = console.error;
    console.error = () => {};
    try {
        const input = { tool_name: 'Write', tool_input: { file_path: STATE, content } };
        const r = validator.check({ input });
        return {
            decision: r.decision,
            reason: r.stopReason ? scrub(r.stopReason) : null,
            warnings: splitWarnings(r.stderr),
        };
    } finally {
        console.error = saved;
    }
}

function runCli(script, args) {
    return runAntigravity(FW, PROJECT, script, args);
}

function validateState() {
    const r = runCli('validate-state.cjs', []);
    for (const key of ['errors', 'warnings']) {
        if (r[key]) r[key] = r[key].map(scrub);
    }
    return r;
}

// ------------------------------------------------------------------ recording

let records = [];

function record(step, state, extra) {
    records.push({ step, state: clone(state), ...extra, validate_state: validateState() });
}

/** An agent's Write of the whole file (the validator runs on it), persisted with writeState(). */
function write(step, mutate, opts = {}) {
    const disk = readDisk() || {};
    const next = clone(disk);
    mutate(next);
    if (!opts.keepVersion) next.state_version = (disk.state_version || 0) + 1;
    const verdict = runValidator(JSON.stringify(next, null, 2));
    if (verdict.decision === 'block') {
        records.push({ step, state: next, previous: disk, validator: verdict, persisted: false });
        return disk;
    }
    if (opts.raw) fs.writeFileSync(STATE, JSON.stringify(next, null, 2));
    else common.writeState(next);
    record(step, readDisk(), { validator: verdict, persisted: true });
    return readDisk();
}

/** A framework CLI that writes the file itself (workflow-init, phase-advance, finalize).
 *  A BLOCKED result leaves the file as it was, so it is not recorded. */
function cli(step, script, args) {
    const result = runCli(script, args);
    if (result.result !== 'BLOCKED') {
        record(step, readDisk(), { cli: { script, args, result: result.result } });
    }
    return result;
}

function flush(name, description) {
    const file = path.join(ARGS.out, `${name}.json`);
    const doc = { scenario: name, description, steps: records };
    fs.writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
    records = [];
    fs.rmSync(STATE, { force: true });
}

// ------------------------------------------------------------------ protocol steps (isdlc.md)

/** Orchestrator init (00-sdlc-orchestrator.md section 3 steps 3-6). */
function orchestratorInit(type, phases, { initOnly, supervised } = {}) {
    return (s) => {
        common.resetPhasesForWorkflow(s, phases);
        const status = {};
        phases.forEach((p, i) => { status[p] = i === 0 && !initOnly ? 'in_progress' : 'pending'; });
        s.active_workflow = {
            type, description: 'Add per-tenant rate limiting', slug: 'REQ-0031-rate-limit',
            artifact_folder: 'REQ-0031-rate-limit', started_at: now(), phases: [...phases],
            current_phase: phases[0], current_phase_index: 0, phase_status: status,
            gate_mode: 'strict', flags: { light: false, supervised: Boolean(supervised) },
        };
        s.current_phase = phases[0];
        if (supervised) {
            s.supervised_mode = { enabled: true, review_phases: supervised, parallel_summary: true,
                auto_advance_timeout: null };
        }
    };
}

/** STEP 3c-prime and 3c-prime-timing. */
function activate(key) {
    return (s) => {
        const rec = s.phases[key] || (s.phases[key] = {});
        const at = now();
        rec.status = 'in_progress';
        if (!rec.started) rec.started = at;
        if (!rec.timing) rec.timing = { started_at: at, retries: 0 };
        else rec.timing.retries = (rec.timing.retries || 0) + 1;
        s.active_workflow.current_phase = key;
        s.active_workflow.phase_status[key] = 'in_progress';
        s.current_phase = key;
        s.active_agent = AGENT[key];
    };
}

/** STEP 3e and 3e-timing (one write). */
function complete(key, { advance = true } = {}) {
    return (s) => {
        const rec = s.phases[key];
        const at = now();
        rec.status = 'completed';
        rec.summary = `${key} done: artifacts written and gate passed`;
        rec.completed = at;
        rec.gate_passed = at;
        rec.timing.completed_at = at;
        rec.timing.wall_clock_minutes = 3;
        if (advance) s.active_workflow.current_phase_index += 1;
        s.active_workflow.phase_status[key] = 'completed';
        s.active_workflow.budget_status = 'on_track';
    };
}

function gate(key) {
    return (s) => {
        s.active_workflow.supervised_review = { phase: key, status: 'gate_presented', paused_at: null,
            resumed_at: null, redo_count: 0, redo_guidance_history: [] };
    };
}

function reviewGate(key) {
    const config = common.readSupervisedModeConfig(readDisk());
    if (!common.shouldReviewPhase(config, key)) return;
    write(`3e-review gate ${key}`, gate(key));
    if (key === '01-requirements' || key === '05-test-strategy') {
        write(`gate continue ${key}`, (s) => {
            common.recordReviewAction(s, key, 'continue', { timestamp: now() });
            delete s.active_workflow.supervised_review;
        });
    } else if (key === '03-architecture') {
        reviewThenResume(write, common, key, now);
    } else {
        redo(key);
    }
}

function redo(key) {
    write(`gate redo ${key}`, (s) => {
        const rv = s.active_workflow.supervised_review;
        rv.redo_count += 1;
        rv.redo_guidance_history.push('Cover the error paths too.');
        rv.status = 'redo_pending';
    });
    write(`redo reset ${key}`, (s) => {
        s.phases[key].status = 'in_progress';
        s.active_workflow.phase_status[key] = 'in_progress';
    });
    write(`redo re-3e ${key}`, (s) => {
        s.phases[key].status = 'completed';
        s.phases[key].summary = `${key} redone with guidance`;
        s.active_workflow.phase_status[key] = 'completed';
    });
    write(`gate continue after redo ${key}`, (s) => {
        common.recordReviewAction(s, key, 'redo', { redo_count: 1, guidance: 'Cover the error paths too.',
            timestamp: now() });
        delete s.active_workflow.supervised_review;
    });
}

function runPhases(phases, { lastAdvance = true } = {}) {
    phases.forEach((key, i) => {
        write(`3c-prime ${key}`, activate(key));
        write(`3e ${key}`, complete(key, { advance: lastAdvance || i < phases.length - 1 }));
        reviewGate(key);
    });
}

function finalizeAndEnforce() {
    cli('workflow-finalize', 'workflow-finalize.cjs', ['--skip-merge']);
    const saved = console.error;
    console.error = () => {};
    try {
        enforcer.check({ input: { tool_name: 'Write', tool_input: { file_path: STATE } } });
    } finally {
        console.error = saved;
    }
    record('completion enforcer (clearTransientFields)', readDisk(),
        { hook: 'workflow-completion-enforcer' });
}

// ------------------------------------------------------------------ scenarios

function scenarioFeatureSupervised() {
    write('project', (s) => Object.assign(s, baseProject()), { raw: true });
    write('orchestrator init-only', orchestratorInit('feature', FEATURE, { initOnly: true,
        supervised: ['01', '03', '04', '05'] }));
    runPhases(FEATURE);
    finalizeAndEnforce();
    cli('workflow-init build (second workflow)', 'workflow-init.cjs', ['--type', 'build',
        '--description', 'Export reports as CSV']);
    advanceAll(4);
    flush('feature-supervised-then-build', 'Orchestrator init-only, every phase through STEP 3c-prime '
        + 'and 3e, supervised gates (continue, review, redo), workflow-finalize.cjs, the completion '
        + 'enforcer, then a second workflow by workflow-init.cjs advanced by phase-advance.cjs.');
}

/** The evidence a phase agent writes before the gate (what gate-logic.cjs's BLOCKED asks for). */
function satisfyGate(blocked) {
    write(`agent evidence ${blocked.phase}`, answerGate(PROJECT, blocked, (rec) => {
        rec.constitutional_validation = { status: 'compliant', completed: true, iterations_used: 1,
            max_iterations: 5 };
        rec.iteration_requirements = {
            test_iteration: { completed: true, current_iteration: 2, max_iterations: 10,
                last_test_result: 'passed', status: 'success' },
            interactive_elicitation: { completed: true, menu_interactions: 2 },
        };
    }, now));
}

/** phase-advance.cjs until it reports WORKFLOW_COMPLETE, answering each BLOCKED like an agent. */
function advanceAll(limit) {
    for (let i = 0; i < limit; i += 1) {
        const r = cli('phase-advance', 'phase-advance.cjs', []);
        if (r.result === 'WORKFLOW_COMPLETE') return;
        if (r.result === 'BLOCKED') satisfyGate(r);
        else if (r.result !== 'ADVANCED') return;
    }
}

function scenarioBuildLastIndex() {
    write('project', (s) => Object.assign(s, baseProject()), { raw: true });
    cli('workflow-init build', 'workflow-init.cjs', ['--type', 'build', '--description', 'Export CSV']);
    advanceAll(12);
    write('agent completes the last phase (index stays len-1)', (s) => {
        const aw = s.active_workflow;
        const last = aw.phases[aw.phases.length - 1];
        aw.phase_status[last] = 'completed';
        s.phases[last] = Object.assign(s.phases[last] || {}, { status: 'completed', completed_at: now() });
    });
    cli('workflow-finalize', 'workflow-finalize.cjs', ['--skip-merge']);
    flush('build-antigravity-last-index', 'workflow-init.cjs, phase-advance.cjs to the last phase '
        + '(each gate answered with the evidence gate-logic.cjs asks for), the last phase completed '
        + 'with current_phase_index still len-1, workflow-finalize.cjs.');
}

function scenarioInitFull() {
    write('project', (s) => Object.assign(s, baseProject()), { raw: true });
    write('orchestrator init (first phase in_progress in phase_status)',
        orchestratorInit('feature', FEATURE, {}));
    write('3c-prime 00-quick-scan', activate('00-quick-scan'));
    flush('feature-init-full', 'The orchestrator init that sets the first phase in_progress in '
        + 'phase_status only (V9-A warns until STEP 3c-prime), then STEP 3c-prime.');
}

/** One valid mid-workflow state, then a write of each mutation of it. */
function scenarioMutations() {
    const setup = () => {
        write('project', (s) => Object.assign(s, baseProject()), { raw: true });
        write('orchestrator init-only', orchestratorInit('feature', FEATURE, { initOnly: true }));
        runPhases(FEATURE.slice(0, 2));
        write('3c-prime 02-impact-analysis', activate('02-impact-analysis'));
    };
    const cases = {
        'skipped-vs-pending': (s) => { s.active_workflow.phase_status['04-design'] = 'skipped'; },
        'top-level-current-differs': (s) => { s.current_phase = '01-requirements'; },
        'top-level-current-null': (s) => { s.current_phase = null; s.active_agent = null; },
        'index-two-ahead': (s) => { s.active_workflow.current_phase_index = 4; },
        'index-one-ahead-in-progress': (s) => { s.active_workflow.current_phase_index = 3; },
        'summary-completed-detail-in-progress': (s) => {
            s.active_workflow.phase_status['02-impact-analysis'] = 'completed';
        },
        'state-version-string': (s) => { s.state_version = String(s.state_version + 1); },
        'current-phase-not-in-phases': (s) => { s.active_workflow.current_phase = '09-security'; },
        'phase-status-invalid-value': (s) => { s.active_workflow.phase_status['04-design'] = 'done'; },
        'index-not-a-number': (s) => { s.active_workflow.current_phase_index = '2'; },
        'v1-constitution-zero': (s) => {
            s.phases['01-requirements'].constitutional_validation = { completed: true, iterations_used: 0 };
        },
        'v2-elicitation-zero': (s) => {
            s.phases['01-requirements'].iteration_requirements = {
                interactive_elicitation: { completed: true, menu_interactions: 0 } };
        },
        'v3-test-iteration-zero': (s) => {
            s.phases['01-requirements'].iteration_requirements = {
                test_iteration: { completed: true, current_iteration: 0 } };
        },
        'stale-version': (s) => { s.state_version -= 3; },
        'unversioned': (s) => { delete s.state_version; },
        'index-regression': (s) => { s.active_workflow.current_phase_index = 1; },
        'phase-status-regression': (s) => {
            s.active_workflow.phase_status['01-requirements'] = 'pending';
        },
        'phases-status-regression': (s) => { s.phases['01-requirements'].status = 'in_progress'; },
    };
    for (const [name, mutate] of Object.entries(cases)) {
        setup();
        records = records.slice(-1);  // the valid state the mutation starts from is enough
        write(`mutation ${name}`, mutate, { raw: true,
            keepVersion: ['stale-version', 'unversioned', 'state-version-string'].includes(name) });
        if (name === 'state-version-string') {
            common.writeState(readDisk());
            record('a hook writes with writeState()', readDisk(), {});
        }
        flush(`mutation-${name}`, `A valid state mid-feature (02-impact-analysis in progress), then `
            + `one write: ${name}.`);
    }
}

/** readSupervisedModeConfig + shouldReviewPhase on every review_phases shape. */
function supervisedTable() {
    const shapes = ['all', [], ['03'], ['00', '06'], ['00-quick-scan'], ['03', '06-implementation'],
        [0], [3, '06'], null, 'some', {}, 'ALL', [' 03'], ['3'], ['003'], true, 7];
    const rows = [];
    for (const enabled of [true, false, 'true', null]) {
        for (const review_phases of shapes) {
            const supervised_mode = { enabled, review_phases };
            const config = common.readSupervisedModeConfig({ supervised_mode });
            for (const phase of ['00-quick-scan', '03-architecture', '06-implementation']) {
                rows.push({ supervised_mode, phase, reviewed: common.shouldReviewPhase(config, phase) });
            }
        }
    }
    for (const sm of [null, 'yes', [], [{ enabled: true }]]) {
        const config = common.readSupervisedModeConfig({ supervised_mode: sm });
        rows.push({ supervised_mode: sm, phase: '03-architecture',
            reviewed: common.shouldReviewPhase(config, '03-architecture') });
    }
    fs.writeFileSync(path.join(ARGS.out, 'supervised-mode.json'),
        JSON.stringify({ function: 'readSupervisedModeConfig + shouldReviewPhase', rows }, null, 2) + '\n');
}

function main() {
    fs.mkdirSync(ARGS.out, { recursive: true });
    scenarioFeatureSupervised();
    scenarioBuildLastIndex();
    scenarioInitFull();
    scenarioMutations();
    supervisedTable();
    fs.writeFileSync(path.join(ARGS.out, 'source.json'), JSON.stringify({
        repository: 'https://github.com/vihang-hub/isdlc-framework',
        framework_commit: ARGS.frameworkCommit || null,
        validator_commit: ARGS.validatorCommit || null,
    }, null, 2) + '\n');
    fs.rmSync(PROJECT, { recursive: true, force: true });
}

main();
