import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createRoutingActivities } from '../../activities/routing';
import type { AppendProvenanceInput } from '../../domain/provenance';
import type { Reviewer } from '../../domain/reviewer-assignment';
import type { RoutingTask } from '../../domain/routing-decision';
import { decideUpdate, resolveUpdate, routeTaskWorkflow, statusQuery, type RouteTaskInput, type RoutingState } from '../../workflows/route-task';
import { registerSearchAttributes } from '../../runtime/temporal';
import { sharedWorkflowBundle } from '../support/stack';

type Activities = ReturnType<typeof createRoutingActivities>;

const reviewers: Reviewer[] = [
  { did: 'did:x:first', display_name: 'First', capabilities: { diagnosis: 0.9 }, chain_level: 1, available: true },
  { did: 'did:x:second', display_name: 'Second', capabilities: { diagnosis: 0.9 }, chain_level: 2, available: true },
  { did: 'did:x:third', display_name: 'Third', capabilities: { diagnosis: 0.9 }, chain_level: 3, available: true },
];

const FIFTEEN_MINUTES = 15 * 60;

let env: TestWorkflowEnvironment;
let appended: AppendProvenanceInput[];
let projections: RoutingState[];

/** In-memory activities: the test is about the workflow's timing and choices, not Postgres. */
const activities: Activities = {
  async loadReviewers() {
    return reviewers;
  },
  async recordRoutingStep({ provenance, projection }) {
    projections.push(projection.state);
    const index = appended.findIndex((a) => a.entry.subject_id === provenance.entry.subject_id && a.entry.step_id === provenance.entry.step_id);
    if (index >= 0) return { transaction_id: `tx-${index}`, block_number: index + 1 };
    appended.push(provenance);
    return { transaction_id: `tx-${appended.length - 1}`, block_number: appended.length };
  },
};

beforeAll(async () => {
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: process.env.HANDOFF_TEST_TEMPORAL_TEST_SERVER! } },
  });
  await registerSearchAttributes(env.connection, env.namespace ?? 'default');
});
afterAll(() => env?.teardown());
beforeEach(() => {
  appended = [];
  projections = [];
});

function input(task: Partial<RoutingTask>, timeouts = { low: FIFTEEN_MINUTES, medium: FIFTEEN_MINUTES, high: FIFTEEN_MINUTES, urgent: FIFTEEN_MINUTES }): RouteTaskInput {
  return {
    routing_id: `rt_${randomUUID()}`,
    requested_by: 'test',
    escalation_timeouts_seconds: timeouts,
    task: {
      task_type: 'diagnosis',
      context: {},
      ai_agent_id: 'agent-1',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.8 }],
      safety_requirements: {},
      escalation_conditions: {},
      ...task,
    },
  };
}

async function withWorker<T>(run: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `wf-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: await sharedWorkflowBundle(), activities });
  return worker.runUntil(run(taskQueue));
}

describe('routeTaskWorkflow', () => {
  it('moves up the chain when a 15-minute level passes without a resolution, then takes the resolution', async () => {
    await withWorker(async (taskQueue) => {
      const args = input({});
      const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue, workflowId: args.routing_id, args: [args] });
      const decided = await handle.executeUpdate(decideUpdate);
      expect(decided).toMatchObject({ ok: true, decision: { decision: 'escalate_to_human', assigned_to: { did: 'did:x:first' }, escalation_level: 'low', estimated_response_time: FIFTEEN_MINUTES } });

      await env.sleep('14 minutes');
      expect((await handle.query(statusQuery)).escalation_chain).toHaveLength(1);
      await env.sleep('2 minutes');
      const escalated = await handle.query(statusQuery);
      expect(escalated.escalation_level).toBe('medium');
      expect(escalated.assigned_to?.did).toBe('did:x:second');
      expect(escalated.escalation_chain.map((entry) => [entry.level, entry.did, entry.escalation_level])).toEqual([
        [1, 'did:x:first', 'low'],
        [2, 'did:x:second', 'medium'],
      ]);

      const resolution = await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:second', outcome: 'approved' }] });
      expect(resolution.ledger_anchor.block_number).toBe(3);
      const final = await handle.result();
      expect(final.status).toBe('completed');
      expect(appended.map((a) => a.entry.step_id)).toEqual(['routing_decision', 'escalation:2', 'resolution']);
      expect(appended[1]!.events).toEqual([expect.objectContaining({ event: 'escalation.triggered' })]);
      expect(projections.map((p) => p.version)).toEqual([1, 2, 3]);
    });
  });

  it('expires after the last level of the chain times out, with each level’s own timeout', async () => {
    await withWorker(async (taskQueue) => {
      const args = input({}, { low: 60, medium: 120, high: 180, urgent: 240 });
      const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue, workflowId: args.routing_id, args: [args] });
      await handle.executeUpdate(decideUpdate);
      const started = Date.now();
      const final = await handle.result();
      expect(final.status).toBe('expired');
      expect(final.escalation_chain.map((entry) => entry.did)).toEqual(['did:x:first', 'did:x:second', 'did:x:third']);
      expect(final.escalation_level).toBe('high');
      // low 60 s, then medium 120 s, then high 180 s with nobody above: six minutes of workflow time.
      const history = await handle.fetchHistory();
      const timers = history.events!.filter((event) => event.timerStartedEventAttributes).map((event) => Number(event.timerStartedEventAttributes!.startToFireTimeout!.seconds));
      expect(timers).toEqual([60, 120, 180]);
      expect(appended.map((a) => a.entry.step_id)).toEqual(['routing_decision', 'escalation:2', 'escalation:3', 'expiry']);
      expect(Date.now() - started).toBeLessThan(60_000);
    });
  });

  it('finishes at once for an autonomous decision, with no timer', async () => {
    await withWorker(async (taskQueue) => {
      const args = input({ ai_confidence: 0.95 });
      const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue, workflowId: args.routing_id, args: [args] });
      expect(await handle.executeUpdate(decideUpdate)).toMatchObject({ ok: true, decision: { decision: 'ai_autonomous' } });
      expect((await handle.result()).status).toBe('completed');
      const history = await handle.fetchHistory();
      expect(history.events!.some((event) => event.timerStartedEventAttributes)).toBe(false);
    });
  });

  it('fails the assignment, not the workflow, when nobody holds the capability', async () => {
    await withWorker(async (taskQueue) => {
      const args = input({ required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.99 }] });
      const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue, workflowId: args.routing_id, args: [args] });
      expect(await handle.executeUpdate(decideUpdate)).toMatchObject({ ok: false, code: 'no_qualified_reviewer' });
      expect((await handle.result()).status).toBe('failed');
    });
  });

  it('rejects a second resolution and a reviewer who is not on the chain', async () => {
    await withWorker(async (taskQueue) => {
      const args = input({});
      const handle = await env.client.workflow.start(routeTaskWorkflow, { taskQueue, workflowId: args.routing_id, args: [args] });
      await handle.executeUpdate(decideUpdate);
      await expect(handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:third', outcome: 'approved' }] })).rejects.toMatchObject({
        cause: { type: 'reviewer_not_assigned' },
      });
      await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'rejected', comment: 'wrong' }] });
      await expect(handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'approved' }] })).rejects.toBeDefined();
      const final = await handle.result();
      expect(final.resolution).toMatchObject({ reviewer_did: 'did:x:first', outcome: 'rejected', comment: 'wrong' });
    });
  });
});
