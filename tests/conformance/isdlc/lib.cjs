/*
 * What the two drivers of the real framework share (regenerate.cjs: the named corpus;
 * walks.cjs: the generated one). No framework code: the framework is `require`d or spawned from
 * the work trees given on the command line.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

/** `--some-flag value` pairs as {someFlag: value}; --framework and --validator are required. */
function parseArgs(argv, defaults) {
    const out = { ...defaults };
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i].replace(/^--/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase());
        out[key] = argv[i + 1];
    }
    for (const need of ['framework', 'validator']) {
        if (!out[need]) {
            console.error(`missing --${need} DIR (see the comment at the top of the script)`);
            process.exit(2);
        }
    }
    return out;
}

/**
 * The write validator's warnings (its stderr), one object each: {rule, key, phase, issue, text}.
 * rule: V9-A / V9-B / V9-C, or V1 / V2 / V3 (a "Suspicious state.json write" naming its count);
 * key: the phase a V9-A names; phase, issue: a V1-V3's lines.
 */
function validatorWarnings(stderr) {
    if (!stderr) return [];
    return stderr.split(/\n(?=\[state-write-validator\])/).map((text) => {
        const v9 = /\[state-write-validator\] (V9-[ABC]) WARNING: (?:Phase status divergence for '([^']*)')?/.exec(text);
        if (v9) return { rule: v9[1], key: v9[2], text };
        const phase = /Phase: (.*)/.exec(text);
        const issue = /Issue: (.*)/.exec(text);
        const kind = issue && /^(constitutional_validation|interactive_elicitation|test_iteration)/.exec(issue[1]);
        const rule = kind ? { constitutional_validation: 'V1', interactive_elicitation: 'V2', test_iteration: 'V3' }[kind[1]] : 'V?';
        return { rule, phase: phase ? phase[1] : '', issue: issue ? issue[1] : '', text };
    });
}

/** Run one of the framework's src/antigravity CLIs in `cwd`; its last JSON object, or
 *  {result: 'UNPARSEABLE'} with what it printed. */
function runAntigravity(framework, cwd, script, args) {
    const r = spawnSync(process.execPath, [path.join(framework, 'src/antigravity', script), ...args], {
        cwd, env: process.env, encoding: 'utf8',
    });
    try {
        return JSON.parse(r.stdout.slice(r.stdout.indexOf('{', r.stdout.lastIndexOf('\n{') + 1)));
    } catch (e) {
        return { result: 'UNPARSEABLE', stdout: r.stdout, stderr: r.stderr };
    }
}

/**
 * What a phase agent does about phase-advance.cjs's BLOCKED (gate-logic.cjs): writes the missing
 * artifacts it names under `project`, and returns a state mutation that records the evidence
 * (`evidence(record)`) and the delegation each "Phase agent '<name>'" requirement asks for.
 */
function answerGate(project, blocked, evidence, now) {
    const key = blocked.phase;
    for (const d of blocked.details || []) {
        const m = /missing: (.*)$/.exec(d.reason || '');
        for (const rel of m ? m[1].split(', ') : []) {
            fs.mkdirSync(path.dirname(path.join(project, rel)), { recursive: true });
            fs.writeFileSync(path.join(project, rel), '# artifact\n');
        }
    }
    return (s) => {
        s.phases = s.phases || {};
        evidence(s.phases[key] || (s.phases[key] = {}));
        for (const d of blocked.details || []) {
            const agent = /Phase agent '([^']+)'/.exec(d.reason || '');
            if (agent) {
                s.skill_usage_log = s.skill_usage_log || [];
                s.skill_usage_log.push({ timestamp: now(), agent: agent[1], agent_phase: key,
                    skill_id: 'DEL-001', status: 'executed' });
            }
        }
    };
}

/** STEP 3e-review's [R] Review: the gate paused (reviewing), then resumed and recorded
 *  (common.cjs recordReviewAction), two writes through `write(step, mutate)`. */
function reviewThenResume(write, common, key, now) {
    const paused = now();
    write(`gate review ${key}`, (s) => {
        Object.assign(s.active_workflow.supervised_review, { status: 'reviewing', paused_at: paused });
    });
    write(`gate resume ${key}`, (s) => {
        const resumed = now();
        Object.assign(s.active_workflow.supervised_review, { status: 'completed', resumed_at: resumed });
        common.recordReviewAction(s, key, 'review', { paused_at: paused, resumed_at: resumed });
        delete s.active_workflow.supervised_review;
    });
}

/** A seeded random number generator (mulberry32): `rand()` in [0, 1), the same run each seed. */
function seeded(seed) {
    let state = Number(seed) >>> 0;
    return () => {
        state = (state + 0x6D2B79F5) >>> 0;
        let t = state;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

/** `fn()` with console.error and console.log silenced (the framework's hooks print). */
function quiet(fn) {
    const saved = [console.error, console.log];
    console.error = () => {};
    console.log = () => {};
    try { return fn(); } finally { [console.error, console.log] = saved; }
}

class Exit extends Error {}

/**
 * One of src/antigravity's CLIs run in this process with `dir` as its project (its module
 * loaded afresh, process.exit and console.log caught): its first JSON answer. Hundreds of runs
 * in a few seconds instead of a node start each.
 */
function runCliInProcess(framework, script, dir) {
    const file = path.join(framework, 'src/antigravity', script);
    const printed = [];
    const saved = [console.log, console.error, process.exit, process.env.CLAUDE_PROJECT_DIR];
    console.log = (s) => printed.push(String(s));
    console.error = () => {};
    process.exit = (code) => { throw new Exit(String(code)); };
    process.env.CLAUDE_PROJECT_DIR = dir;
    try {
        delete require.cache[require.resolve(file)];
        require(file);
    } catch (e) {
        if (!(e instanceof Exit)) throw e;
    } finally {
        [console.log, console.error, process.exit] = saved;
        // (an unset variable stays unset: assigning undefined would set it to "undefined")
        if (saved[3] === undefined) delete process.env.CLAUDE_PROJECT_DIR;
        else process.env.CLAUDE_PROJECT_DIR = saved[3];
    }
    try {
        return JSON.parse(printed[0]);
    } catch (e) {
        return { result: 'UNPARSEABLE', printed };
    }
}

/** The warnings as short names: V9-A:<key>, V9-B, V9-C, V1 / V2 / V3. */
function warningNames(stderr) {
    return validatorWarnings(stderr).map((w) => (w.rule === 'V9-A' ? `V9-A:${w.key}` : w.rule));
}

/** A write validator's check() on writing `content` over `prev` (text) at `file`:
 *  {d: allow|block, w: [warning names], r: the block's first line}. */
function writeCheck(mod, file, prev, content) {
    fs.writeFileSync(file, prev);
    const r = quiet(() => mod.check({ input: { tool_name: 'Write', tool_input: { file_path: file, content } } }));
    const out = { d: r.decision, w: warningNames(r.stderr) };
    if (r.stopReason) out.r = r.stopReason.split('\n')[0];
    return out;
}

/** The delegation guards on a Task delegating to `phase` (the phase-sequence guard's
 *  "OUT-OF-ORDER PHASE DELEGATION", the phase-loop controller's "without progress tracking"):
 *  {sequence, loop}, each allow or block. */
function delegationGuards(framework, state, phase) {
    const input = { tool_name: 'Task', tool_input: { prompt: `Phase ${phase}`, description: '' } };
    const one = (file) => quiet(() => require(path.join(framework, 'src/claude/hooks', file)).check({ input, state })).decision;
    return { sequence: one('phase-sequence-guard.cjs'), loop: one('phase-loop-controller.cjs') };
}

module.exports = {
    parseArgs, validatorWarnings, runAntigravity, answerGate, reviewThenResume,
    quiet, runCliInProcess, warningNames, writeCheck, delegationGuards, seeded,
};
