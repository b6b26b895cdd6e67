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

module.exports = { parseArgs, validatorWarnings, runAntigravity, answerGate, reviewThenResume };
