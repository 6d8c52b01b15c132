/**
 * Records the histories the replay test replays: run with `npx tsx scripts/histories/record-histories.ts
 * [name …]` after a deliberate, versioned change to a workflow (only the histories named, or all of them),
 * and commit the JSON files. Files recorded by earlier versions stay as they are while routings they
 * describe may still be open: they prove those still replay.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createRoutingActivities } from '../../activities/routing';
import type { LoadedReviewer } from '../../domain/routing/reviewer-assignment';
import { DEFAULT_RISK_THRESHOLDS } from '../../domain/routing/risk';
import { provisionTemporal } from '../provision-temporal';
import { registerSearchAttributes } from '../../app/temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import {
  assignUpdate,
  decideUpdate,
  escalateUpdate,
  reportConfidenceUpdate,
  resolveUpdate,
  reviewerAvailableSignal,
  routingResolvedSignal,
  statusQuery,
  type RouteTaskInput,
  type RoutingState,
} from '../../contracts/route-task';
import { routingDecision } from '../../contracts/route-task-decision';
import { decideRoutingMoments } from '../../domain/routing/moments';
import { routeTaskWorkflow } from '../../workflows/route-task';

const team: LoadedReviewer[] = [
  {
    did: 'did:x:first',
    display_name: 'First',
    capabilities: { diagnosis: 0.9 },
    chain_level: 1,
    available: true,
    open_assignments: 0,
    capacity: null,
  },
  {
    did: 'did:x:second',
    display_name: 'Second',
    capabilities: { diagnosis: 0.9, oncology: 0.9 },
    chain_level: 2,
    available: true,
    open_assignments: 2,
    capacity: 5,
  },
];
const cardiologist: LoadedReviewer = {
  did: 'did:x:cardiologist',
  display_name: 'Cardiologist',
  capabilities: { diagnosis: 0.9, cardiology: 0.9 },
  chain_level: 1,
  available: true,
  open_assignments: 0,
  capacity: null,
};
let reviewers = team;

const { EventType } = temporal.api.enums.v1;

const activities: ReturnType<typeof createRoutingActivities> = {
  loadRoutingContext: async () => ({
    autonomy_profile: 'balanced' as const,
    agent: null,
    domain: 'general',
    safety: { domain: 'general', boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] },
    rules: [
      {
        rule_id: 'er_record',
        rule_name: 'notify on diagnosis',
        priority: 'medium',
        conditions: [{ condition_type: 'task_type', operator: '==', value: 'diagnosis' }],
        actions: [{ action: 'notify_supervisor', notification_threshold: 'medium' }],
      },
    ],
    rule_set: { version: 1, enabled: 1 },
    reviewers,
  }),
  loadReviewers: async () => reviewers,
  recordRoutingStep: (() => {
    let block = 0;
    return async () =>
      claimed ? { resolved_meanwhile: claimed } : { transaction_id: `tx-${++block}`, block_number: block };
  })(),
};
/** The routing as a resolution claimed in Postgres left it, which the next step finds instead of recording. */
let claimed: RoutingState | undefined;

/** What the API's claim of a resolution records: the next version, completed, with the resolution. */
function claimedBy(state: RoutingState, reviewer_did: string): RoutingState {
  const at = new Date().toISOString();
  return {
    ...state,
    version: state.version + 1,
    status: 'completed',
    updated_at: at,
    resolution: {
      reviewer_did,
      outcome: 'approved',
      resolved_at: at,
      ledger_anchor: { transaction_id: 'tx-claim', block_number: 9 },
    },
  };
}

function routingInput(changes: Partial<RouteTaskInput['task']>): RouteTaskInput {
  return {
    routing_id: `rt_${randomUUID()}`,
    requested_by: 'recorder',
    escalation_timeouts_seconds: { low: 900, medium: 900, high: 900, urgent: 900 },
    autonomous_escalation_window_seconds: 3600,
    task: {
      task_type: 'diagnosis',
      context: {},
      ai_agent_id: 'urn:acme:agent:dx:1',
      ai_confidence: 0.9,
      required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.8 }],
      safety_requirements: {},
      escalation_conditions: {},
      ...changes,
    },
  };
}

/** The input the routing service starts a routing with: the decision made and recorded before the start (services/routing/submit.ts). */
async function decidedInput(base: RouteTaskInput): Promise<RouteTaskInput> {
  const { reviewers: candidates, ...context } = await activities.loadRoutingContext(base.task);
  const { moments, verdict } = decideRoutingMoments({ task: base.task, ...context });
  const decided_at = new Date().toISOString();
  const made = routingDecision({ input: base, domain: context.domain, moments, verdict, candidates, decided_at });
  const { task } = base;
  const state: RoutingState = {
    routing_id: base.routing_id,
    task_type: task.task_type,
    ai_agent_id: task.ai_agent_id,
    ai_confidence: task.ai_confidence,
    escalation_chain: [],
    ...made.changes,
    decision_result: {
      ...made.changes.decision_result,
      provenance: {
        ...made.changes.decision_result.provenance,
        ledger_anchor: { transaction_id: 'tx-decision', block_number: 1 },
      },
    },
    version: 1,
    created_at: decided_at,
    updated_at: decided_at,
  };
  return { ...base, decided: { decided: made.decided, state } };
}

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: testServer } },
  });
  await registerSearchAttributes(env.connection, 'default');
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record',
    workflowBundle: await bundleWorkflows(),
    activities,
  });
  // Waits until the worker has completed a workflow task after the last event of this type, so that what the
  // test changes next is not seen by the step before.
  const handled = async (
    handle: { fetchHistory(): Promise<{ events?: Array<{ eventType?: unknown }> | null }> },
    eventType: string,
  ) => {
    for (;;) {
      const events = (await handle.fetchHistory()).events ?? [];
      const names = events.map((event) => String(EventType[event.eventType as number] ?? event.eventType));
      const at = names.lastIndexOf(`EVENT_TYPE_${eventType}`);
      if (at >= 0 && names.slice(at).includes('EVENT_TYPE_WORKFLOW_TASK_COMPLETED')) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const wanted = process.argv.slice(2);
  const recording = (name: string) => wanted.length === 0 || wanted.includes(name.replace(/\.json$/, ''));
  const write = async (name: string, workflowId: string) => {
    const file = path.join(__dirname, '../../test/workflows/histories', name);
    writeFileSync(
      file,
      `${JSON.stringify(JSON.parse(historyToJSON(await env.client.workflow.getHandle(workflowId).fetchHistory())), null, 2)}\n`,
    );
    console.log(`wrote ${file}`);
  };
  await worker.runUntil(async () => {
    if (recording('route-task-agent-confidence-escalated-then-resolved')) {
      // Autonomous in escalation mode; the agent's confidence drops (a human takes over); the first level
      // times out; the second reviewer resolves.
      reviewers = team;
      const agentPath = routingInput({ routing_mode: 'escalation' });
      const handle = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: agentPath.routing_id,
        args: [agentPath],
      });
      await handle.executeUpdate(decideUpdate);
      await handle.executeUpdate(reportConfidenceUpdate, {
        args: [{ confidence: 0.55, proceed_autonomously: false, agent_id: 'urn:acme:agent:dx:1' }],
      });
      await env.sleep('16 minutes');
      await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:second', outcome: 'approved' }] });
      await handle.result();
      await write('route-task-agent-confidence-escalated-then-resolved.json', agentPath.routing_id);
    }

    if (recording('route-task-manual-escalation-then-expired')) {
      // Escalated at the decision, moved by hand to a target capability, then expired at the top of the chain.
      reviewers = team;
      const manualPath = routingInput({ ai_confidence: 0.5 });
      const manual = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: manualPath.routing_id,
        args: [manualPath],
      });
      await manual.executeUpdate(decideUpdate);
      await manual.executeUpdate(escalateUpdate, {
        args: [
          {
            reason: 'needs oncology',
            requested_by: { type: 'human', did: 'did:x:lead' },
            target_capability: 'oncology',
            urgency: 'high',
          },
        ],
      });
      await manual.result();
      await write('route-task-manual-escalation-then-expired.json', manualPath.routing_id);
    }

    if (recording('route-task-queued-then-signalled-then-resolved')) {
      // Nobody holds cardiology: queued; its level rises once; a signal finds nobody, the next one the
      // cardiologist, who resolves.
      reviewers = team;
      const queuedPath = routingInput({
        ai_confidence: 0.5,
        required_capabilities: [{ capability_id: 'cardiology', min_weight: 0.8 }],
      });
      const queued = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: queuedPath.routing_id,
        args: [queuedPath],
      });
      await queued.executeUpdate(decideUpdate);
      await env.sleep('16 minutes');
      await queued.signal(reviewerAvailableSignal);
      await handled(queued, 'WORKFLOW_EXECUTION_SIGNALED');
      reviewers = [...team, cardiologist];
      await queued.signal(reviewerAvailableSignal);
      await queued.executeUpdate(resolveUpdate, { args: [{ reviewer_did: cardiologist.did, outcome: 'approved' }] });
      await queued.result();
      await write('route-task-queued-then-signalled-then-resolved.json', queuedPath.routing_id);
    }

    if (recording('route-task-agent-escalated-to-queue-then-assigned-by-admin')) {
      // Autonomous in escalation mode; the agent asks for a cardiologist, whom nobody is: queued; an admin
      // assigns a reviewer of their choice, who resolves.
      reviewers = team;
      const adminPath = routingInput({ routing_mode: 'escalation' });
      const assigned = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: adminPath.routing_id,
        args: [adminPath],
      });
      await assigned.executeUpdate(decideUpdate);
      await assigned.executeUpdate(escalateUpdate, {
        args: [
          {
            reason: 'needs cardiology',
            requested_by: { type: 'ai_agent', did: 'did:x:agent', agent_id: 'urn:acme:agent:dx:1' },
            target_capability: 'cardiology',
          },
        ],
      });
      await assigned.executeUpdate(assignUpdate, {
        args: [
          {
            reviewer: { did: 'did:x:second', capabilities: { diagnosis: 0.9 }, chain_level: 2 },
            assigned_by: { subject: 'admin', principal_id: 'sub:admin' },
            reason: 'covers cardiology',
          },
        ],
      });
      await assigned.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:second', outcome: 'rejected' }] });
      await assigned.result();
      await write('route-task-agent-escalated-to-queue-then-assigned-by-admin.json', adminPath.routing_id);
    }

    if (recording('route-task-autonomous-reopened-for-review-then-resolved')) {
      // Decided for the agent (ai_first), completed; two days later a supervisor reopens it for review
      // within the seven-day window; the reviewer resolves.
      reviewers = team;
      const reviewPath = { ...routingInput({}), review_window_seconds: 7 * 24 * 3600 };
      const reviewed = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: reviewPath.routing_id,
        args: [reviewPath],
      });
      await reviewed.executeUpdate(decideUpdate);
      await env.sleep('2 days');
      await reviewed.executeUpdate(escalateUpdate, {
        args: [{ reason: 'the diagnosis looks wrong', requested_by: { type: 'human', did: 'did:x:supervisor' } }],
      });
      await reviewed.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'rejected' }] });
      await reviewed.result();
      await write('route-task-autonomous-reopened-for-review-then-resolved.json', reviewPath.routing_id);
    }

    if (recording('route-task-resolved-by-claim-signal')) {
      // Escalated at the decision; the reviewer's resolution is claimed in Postgres and signalled, twice (the outbox may).
      reviewers = team;
      const claimPath = routingInput({ ai_confidence: 0.5 });
      const signalled = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: claimPath.routing_id,
        args: [claimPath],
      });
      await signalled.executeUpdate(decideUpdate);
      const resolved = claimedBy(await signalled.query(statusQuery), 'did:x:first');
      await signalled.signal(routingResolvedSignal, resolved);
      await signalled.signal(routingResolvedSignal, resolved).catch(() => undefined);
      await signalled.result();
      await write('route-task-resolved-by-claim-signal.json', claimPath.routing_id);
    }

    if (recording('route-task-decided-in-request-then-resolved-by-claim')) {
      // Decided and recorded by the API before the start (a human at the decision); the resolution is claimed in Postgres and signalled.
      reviewers = team;
      const requestPath = await decidedInput(routingInput({ ai_confidence: 0.5 }));
      const decided = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: requestPath.routing_id,
        args: [requestPath],
      });
      await handled(decided, 'WORKFLOW_EXECUTION_STARTED');
      await decided.signal(routingResolvedSignal, claimedBy(requestPath.decided!.state, 'did:x:first'));
      await decided.result();
      await write('route-task-decided-in-request-then-resolved-by-claim.json', requestPath.routing_id);
    }

    if (recording('route-task-decided-in-request-then-timed-out-then-resolved-by-claim')) {
      // Decided and recorded by the API before the start (a human at the decision); the first level times out
      // and the routing moves up the chain; the second reviewer's resolution is claimed in Postgres and signalled.
      reviewers = team;
      const climbingPath = await decidedInput(routingInput({ ai_confidence: 0.5 }));
      const climbing = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: climbingPath.routing_id,
        args: [climbingPath],
      });
      await handled(climbing, 'WORKFLOW_EXECUTION_STARTED');
      await env.sleep('16 minutes');
      await climbing.signal(routingResolvedSignal, claimedBy(await climbing.query(statusQuery), 'did:x:second'));
      await climbing.result();
      await write('route-task-decided-in-request-then-timed-out-then-resolved-by-claim.json', climbingPath.routing_id);
    }

    if (recording('route-task-decided-in-request-then-escalated-by-hand-then-expired')) {
      // Decided and recorded by the API before the start; moved by hand to a target capability, then expired
      // at the top of the chain.
      reviewers = team;
      const movedPath = await decidedInput(routingInput({ ai_confidence: 0.5 }));
      const moved = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: movedPath.routing_id,
        args: [movedPath],
      });
      await moved.executeUpdate(escalateUpdate, {
        args: [
          {
            reason: 'needs oncology',
            requested_by: { type: 'human', did: 'did:x:lead' },
            target_capability: 'oncology',
            urgency: 'high',
          },
        ],
      });
      await moved.result();
      await write('route-task-decided-in-request-then-escalated-by-hand-then-expired.json', movedPath.routing_id);
    }

    if (recording('route-task-timeout-found-resolved')) {
      // Escalated at the decision; the resolution is claimed before the first level times out, and its signal
      // is late: the escalation step finds the routing resolved and the workflow closes with it.
      reviewers = team;
      const latePath = routingInput({ ai_confidence: 0.5 });
      const overtaken = await env.client.workflow.start(routeTaskWorkflow, {
        taskQueue: 'record',
        workflowId: latePath.routing_id,
        args: [latePath],
      });
      await overtaken.executeUpdate(decideUpdate);
      claimed = claimedBy(await overtaken.query(statusQuery), 'did:x:first');
      await env.sleep('16 minutes');
      await overtaken.result();
      claimed = undefined;
      await write('route-task-timeout-found-resolved.json', latePath.routing_id);
    }
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
