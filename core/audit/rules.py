"""Every rule the iSDLC state audit can raise, registered once at import.

Ids are stable and grouped by family:

- ``SYNC-*``   the three redundant locations disagree (docs/formats.md#three-locations)
- ``ACT-*``    fields STEP 3c-prime must have written for an active phase
  (docs/formats.md#phase-loop)
- ``INIT-*``   workflow initialisation (docs/formats.md#phase-loop)
- ``BOUNDS-*`` index and phase keys within the workflow (docs/formats.md#the-active-workflow)
- ``FINAL-*``  completion and ``workflow_history`` shape (docs/formats.md#phase-loop)
- ``FIELD-*``  field sanity: versions, status vocabularies, required keys (docs/formats.md#isdlc)
- ``EVID-*``   "completed" without evidence (docs/framework-facts.md#the-validators, V1-V3)
- ``ESC-*``    ``pending_escalations`` (docs/formats.md#escalations)
- ``REV-*``    the supervised review gate (docs/formats.md#supervised-review-gate)
- ``TIME-*``   timestamps and durations
- ``ALIAS-*``  legacy / unknown phase keys (docs/formats.md#workflow-definitions-and-phase-keys)
- ``TR-*``     previous -> current state (docs/formats.md#write-guards, docs/formats.md#phase-loop)
- ``AUDIT-INTERNAL`` a rule check itself failed (never expected; keeps the dashboard alive)
"""

from __future__ import annotations

from ..checks import AUDIT_INTERNAL  # noqa: F401 (listed in RULES with the others)
from ..findings import Rule, Severity, rule

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741


def _r(id: str, sev: Severity, title: str, seed: str, fix: str, scope: str = "snapshot") -> Rule:
    return rule(id, sev, title, seed=seed, fix=fix, scope=scope)


def _t(id: str, sev: Severity, title: str, seed: str, fix: str) -> Rule:
    return _r(id, sev, title, seed, fix, scope="transition")


# ----------------------------------------------------------------------------- SYNC (IR-001)
SYNC_STATUS = _r(
    "SYNC-STATUS",
    W,
    "phases[k].status and active_workflow.phase_status[k] name different statuses (the "
    "framework's V9-A).",
    "V9-A in state-logic.cjs / state-write-validator.cjs (docs/framework-facts.md#the-validators)",
    "Do not copy one over the other by hand: `phasewatch repair` proposes the status where the "
    "workflow's position decides it, and says when it cannot; otherwise find on the Timeline "
    "the write (a phase start or completion) that stopped half-way and let the controller "
    "re-run it. Hooks act on phases[k].",
)
SYNC_INIT_WINDOW = _r(
    "SYNC-INIT-WINDOW",
    I,
    "Just initialised: phase_status says the first phase is in_progress, its phases[k] record "
    "still pending. Legal until the phase is activated.",
    "isdlc.md STEP 3c-prime; orchestrator init; V9-A "
    "(docs/framework-facts.md#init-and-what-a-processjson-skips)",
    "Nothing to do: the orchestrator writes both locations when it starts the phase. If the "
    "workflow never starts, re-run the controller.",
)
SYNC_DETAIL_MISSING = _r(
    "SYNC-DETAIL-MISSING",
    I,
    "A phase the workflow runs has no phases[k] record (one finding lists those not yet written).",
    "docs/formats.md#phase-records",
    "Nothing to do for a phase not completed: the framework writes the record when a step first"
    " writes the phase (workflow-init.cjs writes none). A phase phase_status calls completed"
    " lost its record to a later write: find that write on the Timeline.",
)
SYNC_SUMMARY_MISSING = _r(
    "SYNC-SUMMARY-MISSING",
    I,
    "A phase the workflow runs has no active_workflow.phase_status entry.",
    "docs/formats.md#phase-loop (init)",
    "The summary map lost an entry the workflow's init wrote. Check on the Timeline which "
    "write dropped it; the phase's next start or completion writes it again.",
)
SYNC_CURRENT = _r(
    "SYNC-CURRENT",
    W,
    "The top-level current_phase names a different phase than active_workflow.current_phase "
    "(the framework's V9-B).",
    "V9-B in state-logic.cjs / state-write-validator.cjs (docs/framework-facts.md#the-validators)",
    "Hooks that read the top-level copy act on the wrong phase. The phase loop's next phase "
    "start (isdlc.md STEP 3c-prime) writes both, but phase-advance.cjs writes only "
    "active_workflow.current_phase, so after it the copy stays stale. If the workflow is idle, "
    "`phasewatch repair` sets the copy from active_workflow.current_phase.",
)
SYNC_INDEX = _r(
    "SYNC-INDEX",
    W,
    "current_phase_index points neither at active_workflow.current_phase nor one past it "
    "(the framework's V9-C).",
    "V9-C in state-write-validator.cjs, until March 2026 (docs/framework-facts.md#the-validators)",
    "One of the two pointers is stale; the phase loop follows the index, so a wrong index "
    "re-runs or skips a phase. `phasewatch repair` fixes the cases the statuses decide and "
    "says when they do not; then compare on the Timeline which pointer moved last.",
)
SYNC_PENDING_CURRENT = _r(
    "SYNC-PENDING-CURRENT",
    I,
    "active_workflow.current_phase names a phase still marked pending.",
    "docs/formats.md#phase-loop (STEP 3c-prime)",
    "The phase start was written only in part: hooks will block the phase agent. Let the "
    "controller start this phase again (it sets the status, start time and agent in"
    " one write).",
)
LOOP_INDEX_PAST = _r(
    "LOOP-INDEX-PAST",
    I,
    "current_phase_index is one past the current phase, which no status map calls completed, "
    "and no supervised redo runs: the next phase-advance.cjs skips the phase (past the last "
    "one it answers WORKFLOW_COMPLETE).",
    "docs/formats.md#phase-loop (STEP 3e)",
    "Only STEP 3e (completing the phase) or a redo leaves the index there. Lowering the index "
    "is what the framework's V8 blocks, so `phasewatch repair` names it and writes nothing: "
    "find on the Timeline the write that moved it.",
)
LOOP_POINTER_BEHIND = _r(
    "LOOP-POINTER-BEHIND",
    I,
    "The phase at current_phase_index is in progress while active_workflow.current_phase "
    "stays on the phase before it.",
    "docs/formats.md#phase-loop (STEP 3c-prime)",
    "STEP 3c-prime writes the pointer and the status in one write: `phasewatch repair` moves "
    "the pointer onto the phase in progress.",
)
LOOP_COMPLETED_AHEAD = _r(
    "LOOP-COMPLETED-AHEAD",
    I,
    "phase_status calls a phase completed that the workflow has not reached (after both "
    "current_phase and current_phase_index).",
    "docs/formats.md#phase-loop (STEP 3e)",
    "phase-advance.cjs will treat it as done. Lowering a status is what the framework's V8 "
    "blocks, so `phasewatch repair` names it and writes nothing: find on the Timeline the write "
    "that set it.",
)
SYNC_AGENT = _r(
    "SYNC-AGENT",
    I,
    "active_agent is not an agent that runs the current phase.",
    "docs/framework-facts.md#who-runs-a-phase",
    "Usually left from an earlier phase; the orchestrator sets it when it starts the next "
    "phase. If the phase is running, the delegation went to another agent: check the hook "
    "log.",
)

# ----------------------------------------------------------------------------- ACT (IR-002)
ACT_STARTED = _r(
    "ACT-STARTED",
    I,
    "A phase the orchestrator activated (in_progress or completed) has no phases[k].started.",
    "docs/formats.md#phase-loop (STEP 3c-prime)",
    "The phase start normally records the start time; durations and stall detection need it. "
    "Nothing breaks immediately: check which write activated the phase.",
)
ACT_TIMING = _r(
    "ACT-TIMING",
    I,
    "A phase is in_progress or completed but phases[k].timing.started_at is missing.",
    "docs/formats.md#phase-records (timing)",
    "The phase start initialises timing.started_at on the first run (timing is best-effort).",
)

# ----------------------------------------------------------------------------- INIT (IR-008)
INIT_INDEX = _r(
    "INIT-INDEX",
    I,
    "Freshly initialised workflow whose current_phase_index is not 0.",
    "docs/formats.md#phase-loop (init)",
    "Workflow init must set current_phase_index = 0.",
)
INIT_CURRENT = _r(
    "INIT-CURRENT",
    I,
    "Freshly initialised workflow whose current_phase is not the first phase.",
    "docs/formats.md#phase-loop (init)",
    "Workflow init must set active_workflow.current_phase = phases[0].",
)
INIT_STATUS = _r(
    "INIT-STATUS",
    I,
    "Before any phase started, phase_status holds a value init never writes.",
    "docs/formats.md#phase-loop (init)",
    "Init writes the first phase pending or in_progress and every other pending (or "
    "skipped). Check which writer changed the map before the first activation.",
)
INIT_SKELETON = _r(
    "INIT-SKELETON",
    I,
    "A phase record at init still carries data from an earlier run (not reset to the skeleton).",
    "docs/formats.md#phase-records (resetPhasesForWorkflow)",
    "Reset phases[k] to {status: pending, started: null, completed: null, gate_passed: null, "
    "artifacts: []} at workflow init.",
)
INIT_PHASES = _r(
    "INIT-PHASES",
    I,
    "active_workflow.phases is not an ordered subset of the workflow type's definition.",
    "docs/formats.md#workflow-definitions-and-phase-keys",
    "Expected after adaptive sizing only; otherwise check which writer changed the phase list.",
)

# ----------------------------------------------------------------------------- BOUNDS (IR-009)
BOUNDS_INDEX = _r(
    "BOUNDS-INDEX",
    I,
    "current_phase_index is outside 0..len(active_workflow.phases).",
    "docs/formats.md#the-active-workflow (current_phase_index)",
    "Set current_phase_index to the position of current_phase in active_workflow.phases.",
)
BOUNDS_INDEX_BEHIND = _r(
    "BOUNDS-INDEX-BEHIND",
    I,
    "current_phase is completed but current_phase_index still points at it, and a later "
    "phase remains.",
    "docs/formats.md#phase-loop (STEP 3e)",
    "The phase's completion did not advance the index, so the loop would re-run a completed phase. Let the"
    " controller redo the completion's bookkeeping for it (index = position + 1) rather than editing "
    "by hand.",
)
BOUNDS_CURRENT = _r(
    "BOUNDS-CURRENT",
    E,
    "active_workflow.current_phase is not one of the workflow's phases (validate-state INVALID).",
    "validate-state.cjs validateWorkflowShape (docs/framework-facts.md#the-validators)",
    "Point current_phase at a key of active_workflow.phases, spelled exactly as there.",
)
BOUNDS_STALE_PHASE = _r(
    "BOUNDS-STALE-PHASE",
    I,
    "phases / phase_status has an entry for a phase the active workflow does not run.",
    "docs/formats.md#phase-records (resetPhasesForWorkflow)",
    "Remove stale entries from earlier workflows (resetPhasesForWorkflow).",
)
BOUNDS_EMPTY = _r(
    "BOUNDS-EMPTY",
    I,
    "The active workflow has no phases.",
    "docs/formats.md#workflow-definitions-and-phase-keys",
    "Re-initialise the workflow; an empty phase list cannot run.",
)
BOUNDS_DUPLICATE = _r(
    "BOUNDS-DUPLICATE",
    I,
    "A phase key appears more than once in active_workflow.phases (after alias normalisation).",
    "docs/formats.md#workflow-definitions-and-phase-keys (aliases)",
    "Remove the duplicate: the index would point at two positions for one phase.",
)

# ----------------------------------------------------------------------------- FINAL (IR-010)
FINAL_PENDING = _r(
    "FINAL-PENDING",
    I,
    "Every phase is done and current_phase_index == len(phases): finalize is pending.",
    "docs/formats.md#phase-loop (finalize)",
    "Nothing to do: the controller finalizes next (archive to workflow_history, "
    "active_workflow = null).",
)
FINAL_INCOMPLETE = _r(
    "FINAL-INCOMPLETE",
    I,
    "current_phase_index == len(phases) but some phase is not completed.",
    "docs/formats.md#phase-loop (finalize)",
    "The index ran past an unfinished phase: set it back to that phase (rollback) or complete it.",
)
FINAL_HISTORY = _r(
    "FINAL-HISTORY",
    I,
    "A workflow_history entry lacks fields finalize writes.",
    "docs/formats.md#phase-loop (finalize)",
    "phase_snapshots and metrics are added by the completion enforcer right after finalize "
    "(info until then); other missing fields mean the entry was written by hand or "
    "truncated.",
)
FINAL_CANCELLED = _r(
    "FINAL-CANCELLED",
    I,
    "A cancelled workflow_history entry lacks cancelled_at or cancellation_reason.",
    "docs/formats.md#escalations (Cancel); docs/framework-facts.md#cancel",
    "Record cancelled_at and cancellation_reason when cancelling.",
)
FINAL_SNAPSHOTS = _r(
    "FINAL-SNAPSHOTS",
    I,
    "A completed workflow_history entry has a different number of phase_snapshots than phases.",
    "docs/formats.md#phase-loop (finalize: collectPhaseSnapshots)",
    "collectPhaseSnapshots() should produce one snapshot per phase.",
)
FINAL_STATUS = _r(
    "FINAL-STATUS",
    I,
    "A workflow_history entry has a status other than completed / cancelled.",
    "docs/formats.md#phase-loop (finalize)",
    "Use status 'completed' or 'cancelled'.",
)

# ----------------------------------------------------------------------------- FIELD (IR-011/012)
FIELD_VERSION = _r(
    "FIELD-VERSION",
    E,
    "state_version is not a number (validate-state INVALID), missing, or below 1.",
    "validate-state.cjs; writeState (docs/formats.md#how-the-state-file-is-written)",
    "writeState() writes an integer, disk + 1. A string or other type makes "
    "validate-state.cjs reject the file and the next writeState() restart the counter at 1, "
    "so stale writes go unnoticed.",
)
FIELD_SHAPE = _r(
    "FIELD-SHAPE",
    E,
    "current_phase_index is not a number, or phases is not an array (validate-state INVALID).",
    "validate-state.cjs validateWorkflowShape (docs/framework-facts.md#the-validators)",
    "validate-state.cjs rejects the file and phase-advance.cjs cannot move on: write the index "
    "as a number and phases as the workflow's ordered list of phase keys.",
)
FIELD_STATUS = _r(
    "FIELD-STATUS",
    E,
    "A phase status is outside the protocol's vocabulary (in phase_status: validate-state "
    "INVALID).",
    "validate-state.cjs validateWorkflowShape (docs/framework-facts.md#the-validators)",
    "phases[k].status is pending|in_progress|completed; phase_status[k] also allows "
    "skipped, and validate-state.cjs rejects any other value there.",
)
FIELD_WORKFLOW_TYPE = _r(
    "FIELD-WORKFLOW-TYPE",
    I,
    "active_workflow.type is not a known workflow type.",
    "docs/formats.md#workflow-definitions-and-phase-keys",
    "Known: feature, fix, build, test-run, test-generate, upgrade. Phase order can't be checked.",
)
FIELD_REQUIRED = _r(
    "FIELD-REQUIRED",
    I,
    "active_workflow lacks a field the phase loop depends on.",
    "docs/formats.md#the-active-workflow",
    "Restore type, phases, current_phase, current_phase_index, phase_status and started_at.",
)
FIELD_SUMMARY = _r(
    "FIELD-SUMMARY",
    I,
    "A completed phase has no summary, or one longer than 150 characters.",
    "docs/formats.md#phase-loop (STEP 3e)",
    "The phase's completion stores a non-empty summary of at most 150 characters.",
)
FIELD_ENUM = _r(
    "FIELD-ENUM",
    I,
    "A field has a value outside its documented vocabulary.",
    "docs/formats.md#the-active-workflow and docs/formats.md#phase-records (budget_status, "
    "sizing.intensity, recovery_action.type, constitutional_validation.status, test history "
    "result)",
    "Check the writer: readers that switch on this value will fall through.",
)

# ----------------------------------------------------------------------------- EVID (AC-004g)
EVID_CONST_ZERO = _r(
    "EVID-CONST-ZERO",
    W,
    "constitutional_validation.completed is true with iterations_used missing or below 1 "
    "(the framework's V1).",
    "validatePhase V1 (docs/framework-facts.md#the-validators)",
    "The validation never ran: re-run the phase's constitutional check.",
)
EVID_TEST_ZERO = _r(
    "EVID-TEST-ZERO",
    W,
    "test_iteration.completed is true with current_iteration missing or below 1 (the "
    "framework's V3).",
    "validatePhase V3 (docs/framework-facts.md#the-validators)",
    "No test iteration ran: re-run the tests for this phase.",
)
EVID_ELICIT_ZERO = _r(
    "EVID-ELICIT-ZERO",
    W,
    "interactive_elicitation.completed is true with menu_interactions missing or below 1 "
    "(the framework's V2).",
    "validatePhase V2 (docs/framework-facts.md#the-validators)",
    "The user was never asked: re-run the elicitation.",
)

# ----------------------------------------------------------------------------- ESC
ESC_PENDING = _r(
    "ESC-PENDING",
    I,
    "Escalations are waiting for an answer (Retry / Skip / Cancel).",
    "docs/formats.md#escalations",
    "Answer the escalation; every answer clears pending_escalations.",
)
ESC_CAP = _r(
    "ESC-CAP",
    I,
    "More than 20 pending escalations (the framework keeps at most 20).",
    "docs/formats.md#escalations (limits)",
    "A writer bypassed the cap; older blockers may have been masked. Answer and clear them.",
)
ESC_DUPLICATE = _r(
    "ESC-DUPLICATE",
    I,
    "Two escalations with the same hook+phase+type within 60 s (should have been deduplicated).",
    "docs/formats.md#escalations (limits)",
    "The dedup window was not applied; answer once, the array is cleared.",
)
ESC_TYPE = _r(
    "ESC-TYPE",
    I,
    "An escalation has an unknown type.",
    "docs/formats.md#escalations",
    "Known types: gate_blocked, corridor_blocked, constitution_blocked.",
)
ESC_HOOK = _r(
    "ESC-HOOK",
    I,
    "An escalation's hook does not match its type.",
    "docs/formats.md#escalations",
    "gate_blocked comes from gate-blocker, corridor_blocked from iteration-corridor, "
    "constitution_blocked from constitution-validator.",
)
ESC_PHASE = _r(
    "ESC-PHASE",
    I,
    "An escalation names a phase the active workflow does not run (or no workflow is active).",
    "docs/formats.md#escalations",
    "Stale escalation: answer it (clears the array) and check which hook wrote it.",
)

# ----------------------------------------------------------------------------- REV
REV_REDO_LIMIT = _r(
    "REV-REDO-LIMIT",
    I,
    "supervised_review.redo_count is above 3 (redo is only offered while redo_count < 3).",
    "docs/formats.md#supervised-review-gate (redo)",
    "Something bypassed the redo limit; continue or review instead.",
)
REV_NOT_COMPLETED = _r(
    "REV-NOT-COMPLETED",
    I,
    "A review gate is open for a phase that is not completed.",
    "docs/formats.md#supervised-review-gate (presented)",
    "The gate is presented after the phase is completed; finish the phase (or set redo_pending for a redo).",
)
REV_NOT_SELECTED = _r(
    "REV-NOT-SELECTED",
    I,
    "A review gate is open for a phase supervised_mode.review_phases does not select.",
    "docs/formats.md#supervised-review-gate (review_phases)",
    "Check supervised_mode.review_phases (prefix before the first '-', [] means all).",
)
REV_MODE_OFF = _r(
    "REV-MODE-OFF",
    I,
    "active_workflow.supervised_review is set while supervised_mode is not enabled.",
    "docs/formats.md#supervised-review-gate (enabled)",
    "Either enable supervised_mode (enabled: true) or resolve and delete supervised_review.",
)
REV_STATUS = _r(
    "REV-STATUS",
    I,
    "supervised_review.status is not a known review status.",
    "docs/formats.md#supervised-review-gate",
    "Known: gate_presented, reviewing, redo_pending, completed. A restarting controller won't "
    "re-offer the gate.",
)
REV_PHASE = _r(
    "REV-PHASE",
    I,
    "supervised_review.phase is missing or not a phase of the workflow.",
    "docs/formats.md#supervised-review-gate",
    "Set supervised_review.phase to the phase that was just completed.",
)
REV_BYPASSED = _r(
    "REV-BYPASSED",
    I,
    "The workflow moved to another phase while the review gate is still open.",
    "docs/formats.md#supervised-review-gate (continue)",
    "Record the gate decision (review_history) and delete supervised_review before the next "
    "phase activates.",
)

# ----------------------------------------------------------------------------- TIME
TIME_ORDER = _r(
    "TIME-ORDER",
    I,
    "A completion/resume timestamp is earlier than its start.",
    "docs/formats.md#phase-records (timing)",
    "Check the clock of the writer; durations computed from these are negative.",
)
TIME_NEGATIVE = _r(
    "TIME-NEGATIVE",
    I,
    "timing.wall_clock_minutes is negative.",
    "docs/formats.md#phase-records (timing)",
    "Recompute wall_clock_minutes from timing.started_at and completed_at.",
)
TIME_COMPLETED_MISSING = _r(
    "TIME-COMPLETED-MISSING",
    I,
    "A completed phase has no completion timestamp.",
    "docs/formats.md#phase-loop (3e-timing)",
    "The completion sets timing.completed_at (best-effort: metrics will be incomplete).",
)
TIME_UNPARSEABLE = _r(
    "TIME-UNPARSEABLE",
    I,
    "A timestamp field is not an ISO-8601 date/time.",
    "docs/formats.md#phase-records",
    "Write ISO-8601 UTC (e.g. 2026-03-04T09:12:03.418Z).",
)

# ----------------------------------------------------------------------------- ALIAS
ALIAS_LEGACY = _r(
    "ALIAS-LEGACY",
    I,
    "A legacy phase key is used (normalizePhaseKey maps it to a canonical key).",
    "normalizePhaseKey (docs/formats.md#workflow-definitions-and-phase-keys)",
    "Prefer the canonical key; hooks self-heal but tools that don't normalise will miss it.",
)
ALIAS_DUPLICATE = _r(
    "ALIAS-DUPLICATE",
    I,
    "Both a legacy key and its canonical key are present in the same map.",
    "docs/formats.md#workflow-definitions-and-phase-keys (aliases)",
    "Merge the two entries under the canonical key; readers may pick either.",
)
ALIAS_UNKNOWN = _r(
    "ALIAS-UNKNOWN",
    I,
    "A phase key is not part of any known workflow (e.g. an old key like 02-architecture).",
    "docs/formats.md#workflow-definitions-and-phase-keys",
    "Old or custom key: phasewatch cannot map it to an agent or definition.",
)

# ----------------------------------------------------------------------------- transitions
TR_VERSION_DOWN = _t(
    "TR-VERSION-DOWN",
    E,
    "state_version went down: a stale snapshot was written over newer state (the framework's V7).",
    "checkVersionLock V7 (docs/framework-facts.md#the-validators)",
    "Restore the newer state from the timeline; the writer must re-read state.json before writing.",
)
TR_VERSION_SAME = _t(
    "TR-VERSION-SAME",
    I,
    "The content changed but state_version did not.",
    "writeState (docs/formats.md#how-the-state-file-is-written)",
    "Some writer bypassed writeState(); its writes defeat the optimistic lock.",
)
TR_VERSION_JUMP = _t(
    "TR-VERSION-JUMP",
    I,
    "state_version rose by more than 1 between two observations.",
    "docs/formats.md#how-the-state-file-is-written",
    "Usually writes coalesced by the watcher; some writers also bump by hand.",
)
TR_VERSION_LOST = _t(
    "TR-VERSION-LOST",
    E,
    "state_version disappeared where the disk had one (the framework's V7 rejects such a write).",
    "checkVersionLock V7 (docs/framework-facts.md#the-validators)",
    "Find the legacy writer; its writes are not protected against stale reads.",
)
TR_INDEX_DOWN = _t(
    "TR-INDEX-DOWN",
    E,
    "current_phase_index went down, and this write recorded no rollback (the framework's V8).",
    "checkPhaseFieldProtection V8, both eras (docs/framework-facts.md#the-validators)",
    "A stale subagent snapshot was written: `phasewatch repair --against` an earlier copy "
    "restores exactly the fields that went back.",
)
TR_STATUS_DOWN = _t(
    "TR-STATUS-DOWN",
    E,
    "A phase status went backwards (completed -> in_progress/pending, in_progress -> "
    "pending): the framework's V8.",
    "checkPhaseFieldProtection V8, both eras (docs/framework-facts.md#the-validators)",
    "Legitimate only for a supervised redo or a retry/rollback this write records. "
    "Otherwise a stale snapshot was written: `phasewatch repair --against` an earlier copy "
    "restores exactly the fields that went back.",
)
TR_NEXT_ACTIVATED = _t(
    "TR-NEXT-ACTIVATED",
    I,
    "The write that completed phase k also activated phase k+1 (phase-advance.cjs does this by "
    "design; the phase loop's STEP 3e does not).",
    "docs/formats.md#phase-loop (STEP 3e); phase-advance.cjs lines 150-153",
    "Nothing to do if phase-advance.cjs made the write. Under the phase loop, STEP 3e only "
    "completes k and bumps the index, and STEP 3c-prime starts k+1: a write doing both is "
    "another writer.",
)
TR_CURRENT_BACK = _t(
    "TR-CURRENT-BACK",
    I,
    "current_phase moved back to an earlier phase without a rollback.",
    "docs/formats.md#write-guards",
    "A subagent wrote back its launch-time snapshot: `phasewatch repair --against` an earlier "
    "copy restores current_phase (and what else went back).",
)
TR_STARTED_CHANGED = _t(
    "TR-STARTED-CHANGED",
    I,
    "phases[k].started (or timing.started_at) changed although it was already set.",
    "docs/formats.md#phase-loop (STEP 3c-prime)",
    "A retry or redo must keep the original start time.",
)
TR_WORKFLOW_REPLACED = _t(
    "TR-WORKFLOW-REPLACED",
    I,
    "active_workflow was replaced or cleared without the old one being archived.",
    "docs/formats.md#write-guards; docs/formats.md#phase-loop (finalize)",
    "A stale write reverted the workflow: restore the newer state from the timeline.",
)
TR_WORKFLOW_STARTED = _t(
    "TR-WORKFLOW-STARTED",
    I,
    "A new workflow was started.",
    "docs/formats.md#phase-loop (init)",
    "Nothing to do.",
)
TR_PHASES_CHANGED = _t(
    "TR-PHASES-CHANGED",
    I,
    "active_workflow.phases changed inside one workflow.",
    "docs/formats.md#workflow-definitions-and-phase-keys (light sizing)",
    "Removing pending phases is adaptive sizing (info); removing or reordering started phases "
    "corrupts the index.",
)
TR_REVIEW_LOST = _t(
    "TR-REVIEW-LOST",
    I,
    "An open review gate disappeared without a review_history entry.",
    "docs/formats.md#supervised-review-gate (restart)",
    "The gate decision was lost (stale write?): check review_history and re-present the gate.",
)
TR_RECOVERY = _t(
    "TR-RECOVERY",
    I,
    "A recovery action (retry / rollback / resume) was recorded.",
    "docs/formats.md#the-active-workflow (recovery_action)",
    "Nothing to do; regressions it explains are not reported.",
)
TR_MARKER_OLD = _t(
    "TR-MARKER-OLD",
    I,
    "recovery_action went back to an older retry or rollback, or was removed: a copy from "
    "before the latest one was written back and undoes it.",
    "docs/framework-facts.md#recovery-markers",
    "A sub-agent wrote back an old copy: `phasewatch repair --against` the state before this "
    "write puts back what the retry or rollback had set, where that is safe.",
)
TR_INDEX_SKIP = _t(
    "TR-INDEX-SKIP",
    I,
    "current_phase_index moved forward past a phase no status map calls completed: the next "
    "phase-advance.cjs skips it.",
    "phase-advance.cjs (docs/formats.md#phase-loop)",
    "Find on the Timeline the write that moved the index; `phasewatch repair --against` the "
    "state before it when it was a stale write.",
)
TR_CURRENT_UNSTARTED = _t(
    "TR-CURRENT-UNSTARTED",
    I,
    "active_workflow.current_phase moved onto a phase phase_status still calls pending: the "
    "controller's activation (STEP 3c-prime) writes the pointer and in_progress together.",
    "docs/formats.md#phase-loop (STEP 3c-prime)",
    "A sub-agent or a hand edit moved the pointer: `phasewatch repair --against` the state "
    "before this write puts it back.",
)
TR_COMPLETED_ELSEWHERE = _t(
    "TR-COMPLETED-ELSEWHERE",
    I,
    "phase_status[k] became completed for a phase that was not the current one: the "
    "controller completes only the phase it runs.",
    "docs/formats.md#phase-loop (STEP 3e, phase-advance.cjs)",
    "The next phase-advance reads the forged status: `phasewatch repair --against` the state "
    "before this write puts it back.",
)
TR_EVIDENCE_LOST = _t(
    "TR-EVIDENCE-LOST",
    I,
    "A write removed a phase's gate evidence or skill_usage_log entries that no retry or "
    "rollback of it cleared: phase-advance.cjs and the gate then judge the phase without them.",
    "docs/formats.md#repair (phase-advance's gate checks)",
    "A sub-agent wrote back an old copy: `phasewatch repair --against` the state before this "
    "write puts the evidence and entries back.",
)

#: The transition rules that say a write was a stale copy written back: the dashboard offers a
#: stale-write repair for them, and ``plan_stale_write`` plans one only when the audit finds
#: one of them between the copy seen and the file. Those the framework's V7/V8 would block are
#: errors; the others are information (the framework is silent on them: docs/severity.md).
STALE_WRITE_RULES = frozenset(
    {
        TR_VERSION_DOWN.id,
        TR_INDEX_DOWN.id,
        TR_STATUS_DOWN.id,
        TR_CURRENT_BACK.id,
        TR_INDEX_SKIP.id,
        TR_CURRENT_UNSTARTED.id,
        TR_COMPLETED_ELSEWHERE.id,
        TR_MARKER_OLD.id,
        TR_EVIDENCE_LOST.id,
        TR_WORKFLOW_REPLACED.id,
        TR_REVIEW_LOST.id,
    }
)

# AUDIT-INTERNAL is the check runner's own rule (core/checks.py), listed here with the others.

RULES: tuple[Rule, ...] = tuple(v for v in list(globals().values()) if isinstance(v, Rule))
