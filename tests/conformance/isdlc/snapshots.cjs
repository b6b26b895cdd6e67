#!/usr/bin/env node
/*
 * The framework's own phase snapshots and metrics on a set of states: corpus/phase-snapshots.json.
 *
 *   node tests/conformance/isdlc/snapshots.cjs --framework /tmp/isdlc-head [--out <file>]
 *
 * --framework: a work tree of vihang-hub/isdlc-framework (commit in corpus/source.json). This
 * file holds no framework code: it requires src/claude/hooks/lib/common.cjs from that path and
 * records what its collectPhaseSnapshots(state) returns for each state below (states written
 * here, as the orchestrator's cancel and finalize would hand them over).
 */
'use strict';

const fs = require('fs');
const path = require('path');

function arg(name, fallback) {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : fallback;
}

const framework = arg('--framework');
if (!framework) {
    console.error('usage: snapshots.cjs --framework <isdlc work tree> [--out file]');
    process.exit(2);
}
const out = arg('--out', path.join(__dirname, 'corpus', 'phase-snapshots.json'));
const common = require(path.resolve(framework, 'src/claude/hooks/lib/common.cjs'));

const T0 = '2026-03-04T09:00:00.000Z';
const at = (minutes) => new Date(Date.parse(T0) + minutes * 60000).toISOString();

function feature(extra = {}) {
    return {
        state_version: 12,
        active_workflow: {
            type: 'feature',
            phases: ['01-requirements', '02-impact-analysis', '03-architecture', '06-implementation'],
            current_phase: '03-architecture',
            started_at: T0,
            cancelled_at: at(95.5),
            ...extra,
        },
        phases: {
            '01-requirements': {
                status: 'completed', started: T0, completed: at(12.5), gate_passed: at(12.5),
                summary: '7 requirements, 26 AC, 4 NFRs', artifacts: ['requirements-spec.md'],
                timing: { started_at: T0, completed_at: at(12.5), wall_clock_minutes: 12.5 },
            },
            '02-impact-analysis': {
                status: 'completed', started: at(13), completed: at(40.49), gate_passed: at(40.49),
                artifacts: [],
                iteration_requirements: { test_iteration: { current_iteration: 3, completed: true } },
            },
            '03-architecture': {
                status: 'in_progress', started: at(41),
                iteration_requirements: { test_iteration: { current: 10, escalated: true } },
            },
        },
        history: [
            { timestamp: at(20), agent: 'impact-analysis-orchestrator', action: 'mapped 14 modules' },
            { timestamp: at(30), agent: 'impact-analysis-orchestrator', action: 'blast radius: 3 services' },
            { timestamp: at(45), agent: 'impact-analysis-orchestrator', action: 'after the phase' },
        ],
    };
}

const long = 'x'.repeat(149) + '\u{1F680}' + 'tail';
const cases = {
    'cancelled feature': feature(),
    'finalized (completed_at wins)': feature({ completed_at: at(200) }),
    'no active workflow': { phases: { '01-requirements': { status: 'completed' } } },
    'no phases map': { active_workflow: { phases: ['01-requirements'], started_at: T0 } },
    'empty workflow phase list': { active_workflow: { phases: [], started_at: T0, cancelled_at: at(3) }, phases: { a: {} } },
    'phase list not an array': { active_workflow: { phases: 'oops' }, phases: { a: {} } },
    'odd records': {
        active_workflow: { phases: ['01-requirements', '04-design', '05-test-strategy', 7, '08-code-review'], started_at: 'not a date', cancelled_at: at(1) },
        phases: {
            '01-requirements': { status: '', started: at(10), completed: at(5), summary: long, timing: null },
            '04-design': 0,
            '05-test-strategy': { started: 'yesterday', completed: at(2), summary: 42, artifacts: 'a.md', timing: [1, 2],
                iteration_requirements: { test_iteration: { current_iteration: 0 } } },
            7: { status: 'completed', gate_passed: at(1) },
            '08-code-review': { status: 'completed', started: at(0), completed: at(0.5), gate_passed: true,
                iteration_requirements: { test_iteration: { current_iteration: 1, completed: false, escalated: false } } },
        },
        history: 'not a list',
    },
    'history fallback without a time range': {
        active_workflow: { phases: ['06-implementation'], started_at: T0, cancelled_at: at(61) },
        phases: { '06-implementation': { status: 'in_progress', started: T0 } },
        history: [
            { timestamp: at(1), agent: 'software-developer', action: 'wrote the parser' },
            { timestamp: at(2), agent: 'someone-else', action: 'not this one' },
            { timestamp: at(3), agent: 'software-developer', action: '' },
        ],
    },
    'rounding halves up': {
        active_workflow: { phases: ['a', 'b', 'c'], started_at: T0, cancelled_at: at(2.5) },
        phases: {
            a: { status: 'completed', started: T0, completed: at(0.5) },
            b: { status: 'completed', started: T0, completed: at(1.5) },
            c: { status: 'completed', started: T0, completed: at(0.49) },
        },
    },
};

const records = Object.entries(cases).map(([name, state]) => ({
    case: name,
    state,
    result: common.collectPhaseSnapshots(state),
}));
fs.writeFileSync(out, JSON.stringify({ function: 'collectPhaseSnapshots', cases: records }, null, 2) + '\n');
console.log(`${records.length} cases -> ${out}`);
