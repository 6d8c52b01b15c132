/**
 * Records the histories the replay test replays: run with `npx tsx test/workflows/record-histories.ts`
 * after a deliberate, versioned change to a workflow, and commit the JSON files.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { provisionTemporal } from '../../scripts/provision-temporal';
import { registerSearchAttributes } from '../../runtime/temporal';
import { bundleWorkflows } from '../../workers/create-worker';
import { decideUpdate, resolveUpdate, routeTaskWorkflow, type RouteTaskInput } from '../../workflows/route-task';

const reviewers = [
  { did: 'did:x:first', display_name: 'First', capabilities: { diagnosis: 0.9 }, chain_level: 1, available: true },
  { did: 'did:x:second', display_name: 'Second', capabilities: { diagnosis: 0.9 }, chain_level: 2, available: true },
];

async function main(): Promise<void> {
  const { testServer } = await provisionTemporal();
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServer } } });
  await registerSearchAttributes(env.connection, 'default');
  let block = 0;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'record',
    workflowBundle: await bundleWorkflows(),
    activities: {
      loadReviewers: async () => reviewers,
      recordRoutingStep: async () => ({ transaction_id: `tx-${++block}`, block_number: block }),
    },
  });
  await worker.runUntil(async () => {
    const input: RouteTaskInput = {
      routing_id: `rt_${randomUUID()}`,
      requested_by: 'recorder',
      escalation_timeouts_seconds: { low: 900, medium: 900, high: 900, urgent: 900 },
      task: {
        task_type: 'diagnosis',
        context: {},
        ai_agent_id: 'agent-1',
        ai_confidence: 0.5,
        required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.8 }],
        safety_requirements: {},
        escalation_conditions: {},
      },
    };
    const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue: 'record', workflowId: input.routing_id, args: [input] });
    await handle.executeUpdate(decideUpdate);
    await env.sleep('16 minutes');
    await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:second', outcome: 'approved' }] });
    await handle.result();
    const file = path.join(__dirname, 'histories', 'route-task-escalated-then-resolved.json');
    writeFileSync(file, `${JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2)}\n`);
    console.log(`wrote ${file}`);
  });
  await env.teardown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
