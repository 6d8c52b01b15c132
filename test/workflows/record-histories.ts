/**
 * Records the histories the replay test replays: run with `npx tsx test/workflows/record-histories.ts`
 * after a deliberate, versioned change to a workflow, and commit the JSON files. Files recorded by earlier
 * versions stay as they are while routings they describe may still be open: they prove those still replay.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createRoutingActivities } from '../../activities/routing';
import type { LoadedReviewer } from '../../domain/reviewer-assignment';
import { DEFAULT_RISK_THRESHOLDS } from '../../domain/risk';
import { provisionTemporal } from '../../scripts/provision-temporal';
import { registerSearchAttributes } from '../../app/temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { decideUpdate, escalateUpdate, reportConfidenceUpdate, resolveUpdate, type RouteTaskInput } from '../../contracts/route-task';
import { routeTaskWorkflow } from '../../workflows/route-task';

const reviewers: LoadedReviewer[] = [
  { did: 'did:x:first', display_name: 'First', capabilities: { diagnosis: 0.9 }, chain_level: 1, available: true, open_assignments: 0, capacity: null },
  { did: 'did:x:second', display_name: 'Second', capabilities: { diagnosis: 0.9, oncology: 0.9 }, chain_level: 2, available: true, open_assignments: 2, capacity: 5 },
];

const activities: ReturnType<typeof createRoutingActivities> = {
  loadRoutingContext: async () => ({
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
    return async () => ({ transaction_id: `tx-${++block}`, block_number: block });
  })(),
};

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

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServer } } });
  await registerSearchAttributes(env.connection, 'default');
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue: 'record', workflowBundle: await bundleWorkflows(), activities });
  const write = async (name: string, workflowId: string) => {
    const file = path.join(__dirname, 'histories', name);
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(await env.client.workflow.getHandle(workflowId).fetchHistory())), null, 2)}\n`);
    console.log(`wrote ${file}`);
  };
  await worker.runUntil(async () => {
    // Autonomous in escalation mode; the agent's confidence drops (a human takes over); the first level
    // times out; the second reviewer resolves.
    const agentPath = routingInput({ routing_mode: 'escalation' });
    const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue: 'record', workflowId: agentPath.routing_id, args: [agentPath] });
    await handle.executeUpdate(decideUpdate);
    await handle.executeUpdate(reportConfidenceUpdate, { args: [{ confidence: 0.55, proceed_autonomously: false, agent_id: 'urn:acme:agent:dx:1' }] });
    await env.sleep('16 minutes');
    await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:second', outcome: 'approved' }] });
    await handle.result();
    await write('route-task-agent-confidence-escalated-then-resolved.json', agentPath.routing_id);

    // Escalated at the decision, moved by hand to a target capability, then expired at the top of the chain.
    const manualPath = routingInput({ ai_confidence: 0.5 });
    const manual = await env.client.workflow.start(routeTaskWorkflow, { taskQueue: 'record', workflowId: manualPath.routing_id, args: [manualPath] });
    await manual.executeUpdate(decideUpdate);
    await manual.executeUpdate(escalateUpdate, { args: [{ reason: 'needs oncology', requested_by: { type: 'human', did: 'did:x:lead' }, target_capability: 'oncology', urgency: 'high' }] });
    await manual.result();
    await write('route-task-manual-escalation-then-expired.json', manualPath.routing_id);
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
