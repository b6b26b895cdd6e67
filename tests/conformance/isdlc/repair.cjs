#!/usr/bin/env node
/*
 * The framework's own code on phasewatch's repairs (tests/test_repair_framework.py drives it).
 * No framework code here: it is `require`d from the work trees given on the command line.
 *
 *   node tests/conformance/isdlc/repair.cjs --framework DIR --validator DIR --mode stale|judge \
 *       --jobs FILE
 *
 * --mode stale: jobs [{dir, state}]: the framework's writeState() (common.cjs, --framework) writes
 *   `state` into <dir>/.isdlc/state.json, as a sub-agent's stale copy is written (state_version =
 *   disk + 1, JSON.stringify(state, null, 2)). Prints [{dir, state_version, v829, head}]: v829
 *   and head, what the write validators' check() says of that write (V8 blocks a regression;
 *   today's hooks do not run it, so the write lands).
 * --mode judge: jobs [{dir, ref, prev}]: <dir> holds a repaired state, `prev` the content that was
 *   on disk before the repair, <ref> the same project as it was before the damage. Prints, one
 *   per job: v829 and head (the write validators' check() on the repair as a Write over `prev`:
 *   {d, w: [rules]}), vs (validate-state.cjs on the repaired file), guards (with `phase`: the
 *   phase-sequence guard's and the phase-loop controller's check() on a Task delegating to
 *   `phase`, on the repaired, the damaged and the reference state), and next / next_ref
 *   (phase-advance.cjs run on the repaired project and on the reference: its JSON answer).
 *
 * The two CLIs run in this process (their module loaded afresh, process.exit and console.log
 * caught): hundreds of cases in a few seconds instead of a node start each.
 */
'use strict';

const fs = require('fs');
const path = require('path');

const {
    parseArgs, quiet, runCliInProcess, writeCheck, delegationGuards, warningNames,
} = require('./lib.cjs');

const ARGS = parseArgs(process.argv.slice(2), { mode: 'judge' });
const FW = path.resolve(ARGS.framework);
const VAL = path.resolve(ARGS.validator);
const jobs = JSON.parse(fs.readFileSync(ARGS.jobs, 'utf8'));

const runCli = (script, dir) => runCliInProcess(FW, script, dir);
const check = writeCheck;
const guards = (state, phase) => delegationGuards(FW, state, phase);

function stale() {
    const common = require(path.join(FW, 'src/claude/hooks/lib/common.cjs'));
    const v829 = require(path.join(VAL, 'src/claude/hooks/state-write-validator.cjs'));
    const head = require(path.join(FW, 'src/claude/hooks/lib/state-logic.cjs'));
    return jobs.map(({ dir, state }) => {
        const file = path.join(dir, '.isdlc', 'state.json');
        const prev = fs.readFileSync(file, 'utf8');
        const content = JSON.stringify(state, null, 2);
        // what the write hooks would say of this write, had they run (V8: a regression)
        const verdicts = { v829: check(v829, file, prev, content), head: check(head, file, prev, content) };
        fs.writeFileSync(file, prev);
        process.env.CLAUDE_PROJECT_DIR = dir;
        quiet(() => common.writeState(state));
        const disk = JSON.parse(fs.readFileSync(file, 'utf8'));
        return { dir, state_version: disk.state_version, ...verdicts };
    });
}

function judge() {
    const v829 = require(path.join(VAL, 'src/claude/hooks/state-write-validator.cjs'));
    const head = require(path.join(FW, 'src/claude/hooks/lib/state-logic.cjs'));
    return jobs.map(({ dir, ref, prev, scratch, phase }) => {
        const file = path.join(dir, '.isdlc', 'state.json');
        const content = fs.readFileSync(file, 'utf8');
        const judgeFile = path.join(scratch, '.isdlc', 'state.json');
        fs.mkdirSync(path.dirname(judgeFile), { recursive: true });
        const out = {
            dir,
            v829: check(v829, judgeFile, prev, content),
            head: check(head, judgeFile, prev, content),
        };
        const vs = runCli('validate-state.cjs', dir);
        out.vs = { result: vs.result, errors: vs.errors, w: vs.warnings ? warningNames(vs.warnings.join('\n')) : [] };
        if (phase) {
            const refState = JSON.parse(fs.readFileSync(path.join(ref, '.isdlc', 'state.json'), 'utf8'));
            out.guards = {
                repaired: guards(JSON.parse(content), phase),
                damaged: guards(JSON.parse(prev), phase),
                ref: guards(refState, phase),
            };
        }
        out.next = runCli('phase-advance.cjs', dir);
        out.next_ref = ref ? runCli('phase-advance.cjs', ref) : null;
        return out;
    });
}

process.stdout.write(JSON.stringify(ARGS.mode === 'stale' ? stale() : judge()));
