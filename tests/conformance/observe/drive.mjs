/*
 * `make corpus` (observe part): projects written by the iSDLC framework's own writers, and what
 * the framework's own views answer on each; tests/test_observe_conformance.py replays them.
 *
 *   node tests/conformance/observe/drive.mjs --framework <isdlc work tree> --commit <sha> \
 *        --projects 96 --seed 7 --out tests/conformance/observe/recorded.jsonl.gz
 *
 * No framework code is in this file: every writer and view is imported from the work tree given
 * by --framework (commit 0689df91, see README.md here):
 *   writers  src/core/observability/state-tracking.js  appendSubAgentLog, appendHookEvent,
 *                                                       appendArtifactProduced
 *            src/core/observability/orchestrator-hooks.js  createObservabilityCallbacks (the
 *                                                       phase loop's onPhaseStart/Complete/Error)
 *            src/core/backlog/item-state.js              writeMetaJson (-> updateAnalysisIndex)
 *            src/claude/hooks/lib/common.cjs             writeState, logHookEvent,
 *                                                       collectPhaseSnapshots
 *            src/claude/hooks/test-watcher.cjs           check() (iteration_requirements.test_iteration)
 *            src/claude/hooks/dispatchers/post-skill-dispatcher.cjs  (spawned: skill_usage_log)
 *   views    src/dashboard/server.js                     startDashboardServer -> GET /api/state
 *            src/core/observability/cli-formatter.js     formatWorkflowTrace, formatWorkflowSummary
 * What this script writes itself is said where it does (`planted`): a workflow_history entry
 * built as workflow-finalize.cjs builds it, time passing on an analysis item, corrupt hook log
 * lines, and the fields no writer writes (iteration_tracking, the formatter's snapshot names).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!args.framework || !args.out) {
    console.error('usage: drive.mjs --framework DIR --commit SHA --out FILE [--projects N --seed S]');
    process.exit(2);
}
const fw = path.resolve(args.framework);
const imp = (rel) => import(pathToFileURL(path.join(fw, rel)).href);
const require = createRequire(import.meta.url);
const tracking = await imp('src/core/observability/state-tracking.js');
const { createObservabilityCallbacks } = await imp('src/core/observability/orchestrator-hooks.js');
const itemState = await imp('src/core/backlog/item-state.js');
const { startDashboardServer } = await imp('src/dashboard/server.js');
const formatter = await imp('src/core/observability/cli-formatter.js');
const common = require(path.join(fw, 'src/claude/hooks/lib/common.cjs'));
const testWatcher = require(path.join(fw, 'src/claude/hooks/test-watcher.cjs'));
const requirements = JSON.parse(fs.readFileSync(path.join(fw, 'src/isdlc/config/iteration-requirements.json'), 'utf8'));
const manifestText = fs.readFileSync(path.join(fw, 'src/isdlc/config/skills-manifest.json'), 'utf8');
const manifest = JSON.parse(manifestText);
const personaDir = path.join(fw, 'src/claude/agents');
const personaFiles = fs.readdirSync(personaDir).filter((f) => /^persona-.*\.md$/.test(f)).sort();

// a seeded generator (mulberry32)
let seed = Number(args.seed || 7) >>> 0;
function rand() {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];
const chance = (p) => rand() < p;
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const WORKFLOWS = {
    feature: ['00-quick-scan', '01-requirements', '02-impact-analysis', '03-architecture', '04-design',
        '05-test-strategy', '06-implementation', '16-quality-loop', '08-code-review'],
    fix: ['01-requirements', '02-tracing', '05-test-strategy', '06-implementation', '16-quality-loop', '08-code-review'],
    'test-run': ['11-local-testing', '07-testing', '08-code-review'],
};
const AGENTS = Object.keys(manifest.ownership);
const PROVIDERS = ['claude', 'codex', 'antigravity', undefined];
const T0 = Date.parse('2026-11-02T09:00:00.000Z');
const iso = (ms) => new Date(ms).toISOString();

function withProject(dir, fn) {
    const before = process.env.CLAUDE_PROJECT_DIR;
    process.env.CLAUDE_PROJECT_DIR = dir;
    try { return fn(); } finally { process.env.CLAUDE_PROJECT_DIR = before; }
}

/** A workflow's active_workflow + phases at phase index k (statuses as the phase loop leaves them). */
function workflowState(type, k, t) {
    const phases = WORKFLOWS[type];
    const slug = `REQ-${int(1, 999)}-${pick(['login', 'cache', 'export', 'ünïcode-slug', 'x'.repeat(50)])}`;
    const aw = { type, phases, current_phase: phases[k], current_phase_index: k, started_at: iso(t),
        phase_status: {} };
    if (chance(0.8)) aw.slug = slug; else aw.artifact_folder = slug;
    const ph = {};
    phases.forEach((p, i) => {
        if (i > k && chance(0.5)) return; // not initialised yet
        let status = i < k ? 'completed' : i === k ? 'in_progress' : 'pending';
        if (i < k && chance(0.1)) status = pick(['complete', 'skipped']);
        if (i === k && chance(0.1)) status = pick(['failed', 'running']);
        ph[p] = { status, started: i <= k ? iso(t + i * 600000) : null };
        if (i < k) {
            ph[p].completed = iso(t + i * 600000 + 300000);
            if (chance(0.7)) ph[p].timing = { started_at: ph[p].started, completed_at: ph[p].completed,
                wall_clock_minutes: int(0, 45), retries: int(0, 2) };
            if (chance(0.6)) ph[p].summary = pick(['7 requirements, 26 AC', 'design done', 'tests green  twice', '']);
        }
        aw.phase_status[p] = status;
    });
    return { active_workflow: aw, phases: ph, skill_usage_log: [], history: [] };
}

/** The test watcher's own check() on `runs` test results in the current phase. */
function runTests(state, runs) {
    for (let i = 0; i < runs; i++) {
        const pass = chance(0.35);
        const input = { tool_name: 'Bash', tool_input: { command: 'npm test' },
            tool_result: pass ? '12 passing\n0 failing\nexit code 0' : '9 passing\n3 failing\nexit code 1' };
        testWatcher.check({ input, state, requirements });
    }
}

function addAgents(state, count, t) {
    const aw = state.active_workflow;
    for (let i = 0; i < count; i++) {
        const status = i === count - 1 ? pick(['running', 'running', 'completed', 'failed']) : pick(['completed', 'completed', 'failed', 'running']);
        tracking.appendSubAgentLog(state, {
            parent_agent: chance(0.8) ? 'sdlc-orchestrator' : undefined,
            agent: chance(0.95) ? pick(AGENTS) : undefined,
            agent_id: chance(0.5) ? `a${i}` : undefined,
            phase: chance(0.9) ? pick(chance(0.8) ? aw.phases.slice(0, aw.current_phase_index + 1) : aw.phases) : undefined,
            started_at: iso(t + i * 60000),
            completed_at: status === 'running' ? null : iso(t + i * 60000 + 45000),
            status,
            duration_ms: status === 'running' ? null : int(1000, 900000),
            tokens_used: chance(0.7) ? int(100, 90000) : null,
            provider: pick(PROVIDERS),
        });
    }
}

/** The phase loop's own observability callbacks, in the order the loop calls them: start and
 *  complete (or error, then start again) for each phase before the current one, start for it. */
function phaseLoop(state) {
    const holder = { state };
    const cb = createObservabilityCallbacks({ readState: () => holder.state, writeState: (s) => { holder.state = s; } }, pick(PROVIDERS));
    const aw = state.active_workflow;
    aw.phases.slice(0, aw.current_phase_index).forEach((p) => {
        cb.onPhaseStart(p);
        if (chance(0.15)) { cb.onError(p, 'gate blocked'); cb.onPhaseStart(p); }
        cb.onPhaseComplete(p, { duration_ms: int(1000, 1800000), tokens_used: chance(0.5) ? int(100, 50000) : undefined,
            files: chance(0.4) ? [`docs/requirements/x/${p}.md`] : undefined });
    });
    if (state.phases[aw.current_phase] && state.phases[aw.current_phase].status !== 'completed') cb.onPhaseStart(aw.current_phase);
}

function addEvents(state, t) {
    const aw = state.active_workflow;
    for (let i = int(0, 4); i > 0; i--) {
        tracking.appendHookEvent(state, { timestamp: iso(t + i), hook: pick(['gate-blocker', 'iteration-corridor', 'constitution']),
            phase: pick(aw.phases), action: pick(['blocked', 'warned', 'allowed']), reason: chance(0.8) ? 'artifact missing' : undefined,
            resolution: chance(0.4) ? 'retried' : undefined, provider: pick(PROVIDERS) });
    }
    for (let i = int(0, 4); i > 0; i--) {
        tracking.appendArtifactProduced(state, { timestamp: iso(t + i), phase: pick(aw.phases),
            file_path: `docs/requirements/x/${pick(['spec.md', 'design.md', 'tasks.md'])}`, action: pick(['created', 'modified', undefined]) });
    }
}

/** A finished workflow: its phase snapshots by collectPhaseSnapshots, the entry as
 *  workflow-finalize.cjs builds it ({...active_workflow, status, completed_at}, planted) with the
 *  completion enforcer's phase_snapshots + metrics. */
function finishedWorkflow(t) {
    const type = pick(Object.keys(WORKFLOWS));
    const n = WORKFLOWS[type].length;
    const state = workflowState(type, n - 1, t);
    const last = WORKFLOWS[type][n - 1];
    state.phases[last].status = 'completed';
    state.phases[last].completed = iso(t + n * 600000);
    if (chance(0.5)) {
        state.active_workflow.current_phase = pick(['06-implementation', '07-testing']);
        state.phases[state.active_workflow.current_phase] = state.phases[state.active_workflow.current_phase] || { status: 'completed' };
        runTests(state, int(1, 4));
        state.active_workflow.current_phase = last;
    }
    if (chance(0.5)) phaseLoop(state); else if (chance(0.6)) addAgents(state, int(1, 5), t);
    if (chance(0.6)) addEvents(state, t);
    const { phase_snapshots, metrics } = common.collectPhaseSnapshots(state);
    const status = pick(['completed', 'completed', 'cancelled']);
    const entry = { ...state.active_workflow, status, completed_at: iso(t + n * 600000), phase_snapshots, metrics };
    if (status === 'cancelled') Object.assign(entry, { cancelled_at: entry.completed_at, cancellation_reason: 'user_cancelled' });
    if (chance(0.25)) {
        // planted: the snapshot names cli-formatter.js reads (no writer writes them at this commit)
        entry.phase_snapshots = phase_snapshots.map((s) => ({ phase: s.key, status: s.status,
            wall_clock_minutes: int(0, 30), iterations_used: int(1, 4), coverage_percent: chance(0.5) ? int(50, 99) : undefined,
            summary: s.summary, provider: pick(PROVIDERS) }));
    }
    return entry;
}

/** Planted: values no writer writes but a hand or another tool may, to hold phasewatch to the
 *  framework's reading of odd input (JavaScript truthiness, substring indexOf, thrown errors). */
const ODDITIES = ['domains-string', 'external-null', 'index-odd', 'hook-odd', 'persona-odd', 'skill-inferred', 'slug-odd'];
function oddity(dir, name) {
    const edit = (rel, fn) => {
        const file = path.join(dir, rel);
        if (!fs.existsSync(file)) return false;
        fs.writeFileSync(file, JSON.stringify(fn(JSON.parse(fs.readFileSync(file, 'utf8'))), null, 2));
        return true;
    };
    const state = JSON.parse(fs.readFileSync(path.join(dir, '.isdlc/state.json'), 'utf8'));
    const cur = (state.active_workflow && state.active_workflow.current_phase) || '01-requirements';
    const now = new Date(Date.now() - 5000).toISOString();
    switch (name) {
    case 'domains-string': {
        const req = path.join(dir, 'docs/requirements');
        const slugs = fs.existsSync(req) ? fs.readdirSync(req).sort() : [];
        let done = false;
        for (const slug of slugs) done = edit(`docs/requirements/${slug}/meta.json`, (m) => ({ ...m, acceptance: { domains: 'requirements,design' } })) || done;
        return done ? name : null;
    }
    case 'external-null':
        fs.mkdirSync(path.join(dir, 'docs/isdlc'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'docs/isdlc/external-skills-manifest.json'), JSON.stringify({ skills: [{ name: 'a' }, null] }));
        return name;
    case 'index-odd': {
        const file = path.join(dir, '.isdlc/analysis-index.json');
        const index = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { items: [] };
        index.items.push({ slug: 'ODD-1', last_activity_at: 'not a date', analysis_status: 'raw' },
            { slug: 'ODD-2', last_activity_at: now, analysis_status: 'analyzed' },
            { slug: 'ODD-3', last_activity_at: now, phases_completed: 'x', item_type: 0 });
        fs.writeFileSync(file, JSON.stringify(index, null, 2));
        return name;
    }
    case 'hook-odd':
        fs.appendFileSync(path.join(dir, '.isdlc/hook-activity.log'), [
            JSON.stringify({ hook: 'x', event: '', phase: cur }), '[1,2]', '{"phase":7}',
            JSON.stringify({ ts: 0, hook: false, event: 'BLOCK', phase: cur, reason: 'r' }), ''].join('\n'));
        return name;
    case 'persona-odd':
        fs.mkdirSync(path.join(dir, 'src/claude/agents'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'src/claude/agents/persona-empty-role.md'), '---\nname: x\nrole_type:   \n---\n');
        fs.writeFileSync(path.join(dir, 'src/claude/agents/persona-no-frontmatter.md'), 'role_type: contributing\n');
        return name;
    case 'skill-inferred': {
        const log = (state.active_workflow && state.active_workflow.sub_agent_log) || [];
        const agent = log.length ? log[log.length - 1].agent : null;
        const own = agent && manifest.ownership[agent] ? manifest.ownership[agent].skills : ['x'];
        return edit('.isdlc/state.json', (s) => ({ ...s, skill_usage_log: [...(s.skill_usage_log || []),
            { skill_name: own[0], source: 'inferred', agent }, { skill_name: 42, source: 'tool_call' }] })) ? name : null;
    }
    case 'slug-odd':
        return edit('.isdlc/state.json', (s) => (s.active_workflow ? { ...s, active_workflow: { ...s.active_workflow, slug: 0, artifact_folder: 'folder-slug' } } : s)) ? name : null;
    default:
        return null;
    }
}

function skillCall(dir, skill) {
    const r = spawnSync(process.execPath, [path.join(fw, 'src/claude/hooks/dispatchers/post-skill-dispatcher.cjs')], {
        input: JSON.stringify({ tool_name: 'Skill', tool_input: { skill } }),
        env: { ...process.env, CLAUDE_PROJECT_DIR: dir }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`post-skill-dispatcher: ${r.stderr}`);
}

function getJson(url) {
    return new Promise((resolve, reject) => {
        http.get(url, (res) => {
            let body = '';
            res.on('data', (c) => { body += c; });
            res.on('end', () => { try { resolve(JSON.parse(body)); } catch (e) { reject(e); } });
        }).on('error', reject);
    });
}

function readTree(dir, rel = '', out = {}) {
    for (const name of fs.readdirSync(path.join(dir, rel)).sort()) {
        const r = rel ? `${rel}/${name}` : name;
        const st = fs.statSync(path.join(dir, r));
        if (st.isDirectory()) readTree(dir, r, out);
        else if (r !== 'src/isdlc/config/skills-manifest.json' && !(r.startsWith('src/claude/agents/') && personaFiles.includes(name))) out[r] = fs.readFileSync(path.join(dir, r), 'utf8');
    }
    return out;
}

async function project(n) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pw-observe-'));
    const kind = pick(['build', 'build', 'analysis', 'idle', 'both']);
    fs.mkdirSync(path.join(dir, '.isdlc'), { recursive: true });
    // the framework's own manifest and personas, where its server.js looks (a dogfooding project)
    fs.mkdirSync(path.join(dir, 'src/isdlc/config'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/isdlc/config/skills-manifest.json'), manifestText);
    if (chance(0.8)) {
        fs.mkdirSync(path.join(dir, 'src/claude/agents'), { recursive: true });
        for (const f of personaFiles) if (chance(0.8)) fs.copyFileSync(path.join(personaDir, f), path.join(dir, 'src/claude/agents', f));
    }
    const external = [];
    if (chance(0.6)) {
        for (let i = int(0, 3); i > 0; i--) external.push(pick([{ name: `ext-skill-${i}`, file: `ext-${i}.md` }, { skill_id: `EXT-${i}` }, {}]));
        fs.mkdirSync(path.join(dir, 'docs/isdlc'), { recursive: true });
        fs.writeFileSync(path.join(dir, 'docs/isdlc/external-skills-manifest.json'), JSON.stringify({ version: '1.1.0', skills: external }, null, 2));
    }
    const t = T0 + n * 86400000;
    let state = { skill_usage_log: [], history: [], phases: {} };
    let subagents = null; // planted: appendSubAgentLog with random agents, phases and statuses
    if (kind === 'build' || kind === 'both') {
        const type = pick(Object.keys(WORKFLOWS));
        const tested = WORKFLOWS[type].findIndex((p) => p === '06-implementation' || p === '07-testing');
        const k = tested >= 0 && chance(0.5) ? tested : int(0, WORKFLOWS[type].length - 1);
        state = workflowState(type, k, t);
        const cur = state.active_workflow.current_phase;
        state.phases[cur] = state.phases[cur] || { status: 'in_progress' };
        if (chance(0.6)) runTests(state, int(1, 12));
        if (chance(0.15)) state.phases[cur].iteration_tracking = { current: int(0, 6), max: pick([5, 10, 0]) }; // planted
        if (chance(0.5)) { phaseLoop(state); subagents = 'phase-loop'; } else if (chance(0.7)) { addAgents(state, int(1, 6), t); subagents = 'planted'; }
        if (chance(0.7)) addEvents(state, t);
    }
    if (kind !== 'build' || chance(0.3)) {
        state.workflow_history = [];
        for (let i = int(kind === 'idle' ? 1 : 0, 7); i > 0; i--) state.workflow_history.push(finishedWorkflow(t - i * 86400000));
    }
    withProject(dir, () => common.writeState(state));
    // skills used: the real dispatcher writes skill_usage_log
    if (state.active_workflow && chance(0.8)) {
        const log = state.active_workflow.sub_agent_log || [];
        const agent = log.length ? log[log.length - 1].agent : null;
        const own = agent && manifest.ownership[agent] ? manifest.ownership[agent].skills : [];
        for (let i = int(1, 4); i > 0; i--) {
            const skill = chance(0.5) && own.length ? pick(own) : chance(0.5) ? pick(manifest.ownership[pick(AGENTS)].skills) : pick(external.map((s) => s.name || s.skill_id).concat(['some-skill']));
            if (skill) skillCall(dir, skill);
        }
    }
    // the hook log, by the framework's logger
    withProject(dir, () => {
        const phases = state.active_workflow ? state.active_workflow.phases : ['01-requirements'];
        for (let i = chance(0.2) ? int(40, 90) : int(0, 20); i > 0; i--) {
            common.logHookEvent(pick(['gate-blocker', 'test-watcher', 'iteration-corridor']), pick(['allow', 'block', 'warn', 'skip', 'error']),
                { phase: chance(0.9) ? pick(phases) : undefined, reason: chance(0.7) ? 'why' : undefined, agent: chance(0.3) ? 'x' : undefined });
        }
    });
    if (chance(0.15)) fs.appendFileSync(path.join(dir, '.isdlc/hook-activity.log'), pick(['{"cut": \n', 'null\n', '42\n', '"text"\n'])); // planted
    // analysis items, by writeMetaJson (which updates the index)
    if (kind === 'analysis' || kind === 'both' || chance(0.3)) {
        const ANALYSIS = ['00-quick-scan', '01-requirements', '02-impact-analysis', '03-architecture', '04-design'];
        const DOMAINS = ['requirements', 'architecture', 'design', 'tasks'];
        const items = int(1, 4);
        for (let i = 0; i < items; i++) {
            const slug = `${pick(['REQ', 'BUG'])}-GH-${int(100, 400)}-${pick(['auth', 'paging', 'cache'])}-${i}`;
            const slugDir = path.join(dir, 'docs/requirements', slug);
            fs.mkdirSync(slugDir, { recursive: true });
            const meta = { source_id: chance(0.8) ? `GH-${int(1, 500)}` : undefined, item_type: pick(['FEATURE', 'BUG', 'REQ']),
                phases_completed: ANALYSIS.slice(0, int(0, 5)), created_at: iso(t - 3600000) };
            if (chance(0.7)) meta.acceptance = { domains: DOMAINS.filter(() => chance(0.6)) };
            itemState.writeMetaJson(slugDir, meta);
        }
        // planted: time passes for some items (the index's last_activity_at moved back)
        const file = path.join(dir, '.isdlc/analysis-index.json');
        const index = JSON.parse(fs.readFileSync(file, 'utf8'));
        for (const item of index.items) {
            if (chance(0.45)) item.last_activity_at = iso(Date.now() - pick([10 * 60000, 3 * 3600000, 86400000 * 9]));
            else item.last_activity_at = iso(Date.now() - int(0, 30) * 1000);
        }
        fs.writeFileSync(file, JSON.stringify(index, null, 2));
    }
    const planted = chance(0.4) ? oddity(dir, pick(ODDITIES)) : null;
    // the framework's answers
    const server = await startDashboardServer({
        stateJsonPath: path.join(dir, '.isdlc/state.json'), port: 0,
        personaDir: path.join(dir, 'src/claude/agents'), hookLogPath: path.join(dir, '.isdlc/hook-activity.log'),
        skillsManifestPath: path.join(dir, 'src/isdlc/config/skills-manifest.json'),
        externalSkillsManifestPath: path.join(dir, 'docs/isdlc/external-skills-manifest.json'),
        docsBasePath: path.join(dir, 'docs'), dashboardHtmlPath: path.join(dir, '.isdlc/dashboard.html'),
    });
    const api = await getJson(`${server.url}/api/state`);
    await server.close();
    const final = JSON.parse(fs.readFileSync(path.join(dir, '.isdlc/state.json'), 'utf8'));
    const history = final.workflow_history || [];
    const record = {
        name: `p${String(n).padStart(3, '0')}-${kind}`,
        files: readTree(dir),
        subagents,
        planted,
        personas: fs.existsSync(path.join(dir, 'src/claude/agents')) ? fs.readdirSync(path.join(dir, 'src/claude/agents')).sort() : null,
        api,
        traces: history.map((w) => formatter.formatWorkflowTrace(w)),
        summary: formatter.formatWorkflowSummary(history),
    };
    fs.rmSync(dir, { recursive: true, force: true });
    return record;
}

const lines = [JSON.stringify({ framework: 'vihang-hub/isdlc-framework', commit: args.commit || null, seed: Number(args.seed || 7),
    shared: { 'src/isdlc/config/skills-manifest.json': manifestText,
        ...Object.fromEntries(personaFiles.map((f) => [`src/claude/agents/${f}`, fs.readFileSync(path.join(personaDir, f), 'utf8')])) } })];
const count = Number(args.projects || 96);
for (let n = 0; n < count; n++) lines.push(JSON.stringify(await project(n)));
fs.writeFileSync(args.out, zlib.gzipSync(lines.join('\n') + '\n', { level: 9 }));
console.log(`${count} projects -> ${args.out}`);
