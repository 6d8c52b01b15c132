import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { createRoutingActivities, RoutingContext } from '../../activities/routing';
import type { AppendProvenanceInput } from '../../domain/provenance/records';
import type { LoadedReviewer } from '../../domain/routing/reviewer-assignment';
import { DEFAULT_RISK_THRESHOLDS } from '../../domain/routing/risk';
import type { RoutingTask } from '../../domain/routing/decision';
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
import { routeTaskWorkflow } from '../../workflows/route-task';
import type { createNotificationActivities } from '../../activities/notifications';
import { registerSearchAttributes } from '../../app/temporal';
import { eventually } from '../support/eventually';
import { sharedWorkflowBundle } from '../support/stack';

type Activities = ReturnType<typeof createRoutingActivities> & ReturnType<typeof createNotificationActivities>;

const reviewer = (
  did: string,
  chain_level: number,
  capabilities: Record<string, number> = { diagnosis: 0.9 },
): LoadedReviewer => ({
  did,
  display_name: did,
  capabilities,
  chain_level,
  available: true,
  open_assignments: 0,
  capacity: null,
});

const FIFTEEN_MINUTES = 15 * 60;

let env: TestWorkflowEnvironment;
let appended: AppendProvenanceInput[];
let projections: RoutingState[];
let reviewers: LoadedReviewer[];
let context: Omit<RoutingContext, 'reviewers'>;
let reviewerLoads: string[][];
/** The routing as a resolution claimed in Postgres (by the API) left it, which the next step finds. */
let claimedResolution: RoutingState | undefined;

const baseContext = (): Omit<RoutingContext, 'reviewers'> => ({
  autonomy_profile: 'balanced',
  agent: null,
  domain: 'general',
  safety: { domain: 'general', boundaries: [], risk_thresholds: DEFAULT_RISK_THRESHOLDS, task_types: [] },
  rules: [],
  rule_set: { version: 1, enabled: 0 },
});

/** In-memory activities: the test is about the workflow's timing and choices, not Postgres. */
const activities: Activities = {
  async loadRoutingContext() {
    return { ...context, reviewers };
  },
  async loadReviewers(required) {
    reviewerLoads.push(required.map((need) => need.capability_id));
    return reviewers;
  },
  async recordRoutingStep({ provenance, projection }) {
    // A resolution claimed in Postgres took the next version: the step is not recorded.
    if (claimedResolution) return { resolved_meanwhile: claimedResolution };
    projections.push(projection.state);
    let anchor = { transaction_id: '', block_number: 0 };
    for (const record of provenance) {
      const index = appended.findIndex(
        (a) => a.entry.subject_id === record.entry.subject_id && a.entry.step_id === record.entry.step_id,
      );
      if (index < 0) appended.push(record);
      const position = index < 0 ? appended.length - 1 : index;
      anchor = { transaction_id: `tx-${position}`, block_number: position + 1 };
    }
    return anchor;
  },
  // The reviewer's notifications run beside the workflow; their sending is tested over HTTP (test/api/decision-links.test.ts).
  sendDecisionMail: async () => 'not_configured',
  postDecisionToSlack: async () => 'not_configured',
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
  reviewerLoads = [];
  claimedResolution = undefined;
  reviewers = [reviewer('did:x:first', 1), reviewer('did:x:second', 2), reviewer('did:x:third', 3)];
  context = baseContext();
});

const DECISION_STEPS = ['capability_assessment', 'risk_evaluation', 'context_analysis', 'routing_decision'];
const stepIds = () => appended.map((a) => a.entry.step_id);
const eventsOf = (stepId: string) => appended.find((a) => a.entry.step_id === stepId)?.events?.map((e) => e.event);

function input(
  task: Partial<RoutingTask>,
  options: { timeouts?: RouteTaskInput['escalation_timeouts_seconds']; window?: number; review?: number } = {},
): RouteTaskInput {
  return {
    routing_id: `rt_${randomUUID()}`,
    requested_by: 'test',
    escalation_timeouts_seconds: options.timeouts ?? {
      low: FIFTEEN_MINUTES,
      medium: FIFTEEN_MINUTES,
      high: FIFTEEN_MINUTES,
      urgent: FIFTEEN_MINUTES,
    },
    autonomous_escalation_window_seconds: options.window ?? 3600,
    review_window_seconds: options.review,
    task: {
      task_type: 'diagnosis',
      context: {},
      ai_agent_id: 'urn:acme:agent:dx:1',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.8 }],
      safety_requirements: {},
      escalation_conditions: {},
      ...task,
    },
  };
}

let started: string[] = [];

/**
 * Runs the test's worker; afterwards terminates what the test left open, since a timer firing for a
 * workflow whose worker is gone would stop the time-skipping server from skipping for later tests.
 */
async function withWorker<T>(run: (taskQueue: string) => Promise<T>): Promise<T> {
  const taskQueue = `wf-${randomUUID()}`;
  started = [];
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await sharedWorkflowBundle(),
    activities,
  });
  try {
    return await worker.runUntil(run(taskQueue));
  } finally {
    for (const id of started)
      await env.client.workflow
        .getHandle(id)
        .terminate('test finished')
        .catch(() => undefined);
  }
}

async function start(taskQueue: string, args: RouteTaskInput) {
  const handle = await env.client.workflow.start(routeTaskWorkflow, {
    taskQueue,
    workflowId: args.routing_id,
    args: [args],
  });
  started.push(args.routing_id);
  return { handle, decided: await handle.executeUpdate(decideUpdate) };
}

/** A timer's duration in seconds, to the nanosecond its history gives. */
const timerSeconds = (event: {
  timerStartedEventAttributes?: { startToFireTimeout?: { seconds?: unknown; nanos?: number | null } | null } | null;
}) => {
  const timeout = event.timerStartedEventAttributes!.startToFireTimeout!;
  return Number(timeout.seconds) + (timeout.nanos ?? 0) / 1e9;
};

/** How much shorter than due a timer may run: the workflow's time since its deadline's start, on a loaded machine. */
const TIMER_SLACK_SECONDS = 5;

/**
 * Expects the history's timers to run the seconds given, in order. Deadlines count from the decision or from
 * the step that set them, so the time the workflow took since (its local activities, a busy worker) comes off:
 * a timer up to TIMER_SLACK_SECONDS short counts as due. One counted from another moment, or longer than due,
 * shows as it ran.
 */
function expectTimers(history: { events?: Parameters<typeof timerSeconds>[0][] | null }, expected: number[]): void {
  const timers = history.events!.filter((event) => event.timerStartedEventAttributes).map(timerSeconds);
  const asDue = timers.map((seconds, index) => {
    const short = expected[index]! - seconds;
    return short >= 0 && short < TIMER_SLACK_SECONDS ? expected[index] : seconds;
  });
  expect(asDue).toEqual(expected);
}

const agentRequest = {
  type: 'ai_agent' as const,
  did: 'did:web:handoff.local:agents:dx',
  agent_id: 'urn:acme:agent:dx:1',
};

const notifyAt = (threshold: 'low' | 'medium' | 'high' | 'urgent') => ({
  rule_id: `er_notify_${threshold}`,
  rule_name: `tell the lead at ${threshold}`,
  priority: 'medium' as const,
  conditions: [{ condition_type: 'task_type', operator: '==' as const, value: 'diagnosis' }],
  actions: [{ action: 'notify_supervisor' as const, notification_threshold: threshold }],
});

/** The routing as the API's claim of a resolution records it: the next version, completed, with the resolution and its anchor. */
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

describe('routeTaskWorkflow with a resolution claimed in Postgres', () => {
  it('closes with the resolution its signal carries, and refuses what comes after', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      const resolved = claimedBy(await handle.query(statusQuery), 'did:x:first');
      await handle.signal(routingResolvedSignal, resolved);
      // Delivered again by the outbox: taken once.
      await handle.signal(routingResolvedSignal, resolved).catch(() => undefined);
      const result = await handle.result();
      expect(result).toMatchObject({
        status: 'completed',
        version: resolved.version,
        resolution: { reviewer_did: 'did:x:first', ledger_anchor: { transaction_id: 'tx-claim' } },
      });
      // The workflow itself recorded nothing after its decision: the claim wrote the resolution.
      expect(stepIds()).toEqual(DECISION_STEPS);
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'late', requested_by: agentRequest }] }),
      ).rejects.toBeDefined();
    });
  });

  it('a level timeout that finds the routing resolved records no escalation and closes with the resolution, signal or not', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      // The claim committed, and its signal is still on its way when the level's time runs out.
      claimedResolution = claimedBy(await handle.query(statusQuery), 'did:x:first');
      await env.sleep('16 minutes');
      const result = await handle.result();
      expect(result).toMatchObject({
        status: 'completed',
        escalation_level: 'low',
        assigned_to: { did: 'did:x:first' },
        resolution: { reviewer_did: 'did:x:first' },
      });
      expect(result.escalation_chain).toHaveLength(1);
      expect(stepIds()).toEqual(DECISION_STEPS);
    });
  });

  it('an escalation request that finds the routing resolved is refused as closed', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      claimedResolution = claimedBy(await handle.query(statusQuery), 'did:x:first');
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'second opinion', requested_by: agentRequest }] }),
      ).rejects.toMatchObject({ cause: { type: 'routing_closed' } });
      expect((await handle.result()).status).toBe('completed');
    });
  });
});

describe('routeTaskWorkflow', () => {
  it('records the four decision moments, then moves up the chain after a 15-minute level and takes the resolution', async () => {
    await withWorker(async (taskQueue) => {
      const { handle, decided } = await start(taskQueue, input({}));
      expect(decided).toMatchObject({
        ok: true,
        decision: {
          decision: 'escalate_to_human',
          assigned_to: { did: 'did:x:first' },
          escalation_level: 'low',
          estimated_response_time: FIFTEEN_MINUTES,
          fourth_law_triggered: true,
        },
      });
      expect(stepIds()).toEqual(DECISION_STEPS);
      expect(eventsOf('routing_decision')).toEqual(['routing.decided', 'routing.escalated', 'escalation.triggered']);

      await env.sleep('14 minutes');
      expect((await handle.query(statusQuery)).escalation_chain).toHaveLength(1);
      await env.sleep('2 minutes');
      const escalated = await handle.query(statusQuery);
      expect(escalated).toMatchObject({ escalation_level: 'medium', assigned_to: { did: 'did:x:second' } });
      expect(escalated.escalation_chain.map((entry) => [entry.level, entry.did, entry.escalation_level])).toEqual([
        [1, 'did:x:first', 'low'],
        [2, 'did:x:second', 'medium'],
      ]);

      const resolution = await handle.executeUpdate(resolveUpdate, {
        args: [{ reviewer_did: 'did:x:second', outcome: 'approved' }],
      });
      expect(resolution.ledger_anchor.block_number).toBe(6);
      expect((await handle.result()).status).toBe('completed');
      expect(stepIds()).toEqual([...DECISION_STEPS, 'escalation:2', 'resolution']);
      expect(projections.map((p) => p.version)).toEqual([1, 2, 3]);
    });
  });

  it('expires after the last level of the chain times out, with each level’s own timeout', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(
        taskQueue,
        input({}, { timeouts: { low: 60, medium: 120, high: 180, urgent: 240 } }),
      );
      const final = await handle.result();
      expect(final.status).toBe('expired');
      expect(final.escalation_chain.map((entry) => entry.did)).toEqual(['did:x:first', 'did:x:second', 'did:x:third']);
      expectTimers(await handle.fetchHistory(), [60, 120, 180]);
      expect(stepIds()).toEqual([...DECISION_STEPS, 'escalation:2', 'escalation:3', 'expiry']);
      expect(eventsOf('expiry')).toEqual(['audit.critical']);
    });
  });

  it('finishes at once for an autonomous ai_first decision, with no timer, and emits routing.completed', async () => {
    await withWorker(async (taskQueue) => {
      const { handle, decided } = await start(taskQueue, input({ ai_confidence: 0.95 }));
      expect(decided).toMatchObject({ ok: true, decision: { decision: 'ai_autonomous' } });
      expect((await handle.result()).status).toBe('completed');
      const history = await handle.fetchHistory();
      expect(history.events!.some((event) => event.timerStartedEventAttributes)).toBe(false);
      expect(eventsOf('routing_decision')).toEqual(['routing.decided', 'routing.completed']);
    });
  });

  it('queues a human decision nobody qualifies for: its level rises at each timeout, supervisors told, and it expires past urgent', async () => {
    context = { ...baseContext(), rules: [notifyAt('high')], rule_set: { version: 1, enabled: 1 } };
    await withWorker(async (taskQueue) => {
      const { handle, decided } = await start(
        taskQueue,
        input(
          { required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.99 }] },
          { timeouts: { low: 60, medium: 120, high: 180, urgent: 240 } },
        ),
      );
      expect(decided).toMatchObject({
        ok: true,
        decision: {
          decision: 'escalate_to_human',
          assigned_to: null,
          queued: {
            reason: 'no_qualified_reviewer',
            required_capabilities: [{ capability_id: 'diagnosis', min_weight: 0.99 }],
          },
          estimated_response_time: 60,
        },
      });
      expect((await handle.query(statusQuery)).status).toBe('queued');
      const final = await handle.result();
      expect(final).toMatchObject({ status: 'expired', escalation_level: 'urgent', escalation_chain: [] });
      expectTimers(await handle.fetchHistory(), [60, 120, 180, 240]);
      expect(stepIds()).toEqual([...DECISION_STEPS, 'queue:1', 'queue:2', 'queue:3', 'expiry']);
      expect(eventsOf('routing_decision')).toEqual(['routing.decided', 'routing.queued']);
      expect(eventsOf('queue:1')).toEqual(['routing.queued']);
      expect(eventsOf('queue:2')).toEqual(['routing.queued', 'escalation.supervisor_notified']);
      expect(eventsOf('queue:3')).toEqual(['routing.queued']);
      expect(appended.find((a) => a.entry.step_id === 'expiry')!.events).toEqual([
        { event: 'audit.critical', data: expect.objectContaining({ reason: 'no_qualified_reviewer' }) },
      ]);
    });
  });

  it('assigns a queued routing when told a reviewer is available, and the chain runs from there', async () => {
    reviewers = [];
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      await handle.signal(reviewerAvailableSignal);
      expect((await handle.query(statusQuery)).status).toBe('queued');

      reviewers = [reviewer('did:x:first', 1), reviewer('did:x:second', 2)];
      await handle.signal(reviewerAvailableSignal);
      // The signal's effect takes activities, and a query does not wait for them.
      const assigned = await eventually(
        () => handle.query(statusQuery),
        (state) => state.status === 'in_progress',
      );
      expect(assigned).toMatchObject({
        status: 'in_progress',
        assigned_to: { did: 'did:x:first' },
        escalation_chain: [{ level: 1, did: 'did:x:first', escalation_level: 'low' }],
      });
      expect(eventsOf('escalation:1')).toEqual(['routing.escalated', 'escalation.triggered']);
      await env.sleep('16 minutes');
      expect((await handle.query(statusQuery)).assigned_to?.did).toBe('did:x:second');
    });
  });

  it('lets an admin assign a queued routing, and refuses once it no longer waits', async () => {
    reviewers = [];
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      const assignment = {
        reviewer: { did: 'did:x:lead', capabilities: { general_review: 1 }, chain_level: 2 },
        assigned_by: { subject: 'admin', principal_id: 'sub:admin' },
        reason: 'on call',
      };
      const assigned = await handle.executeUpdate(assignUpdate, { args: [assignment] });
      expect(assigned).toMatchObject({
        status: 'assigned',
        assigned_to: { did: 'did:x:lead', capabilities_matched: [] },
        escalation_chain: [{ level: 1, did: 'did:x:lead' }],
      });
      expect(appended.find((a) => a.entry.step_id === 'escalation:1')!.entry).toMatchObject({
        action: 'assigned_by_admin',
        actor: { type: 'human', did: 'admin', instance_id: 'sub:admin' },
      });
      await expect(handle.executeUpdate(assignUpdate, { args: [assignment] })).rejects.toMatchObject({
        cause: { type: 'routing_not_queued' },
      });
      await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:lead', outcome: 'approved' }] });
    });
  });

  it('queues an autonomous routing its agent escalates when nobody qualifies, instead of leaving it with the agent', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({ ai_confidence: 0.9, routing_mode: 'escalation' }));
      reviewers = [];
      const escalated = await handle.executeUpdate(escalateUpdate, {
        args: [{ reason: 'unsure', requested_by: agentRequest, target_capability: 'cardiology', urgency: 'high' }],
      });
      expect(escalated).toMatchObject({
        ok: true,
        escalation: {
          status: 'queued',
          assigned_to: null,
          escalation_level: 'high',
          queued: {
            required_capabilities: [
              { capability_id: 'diagnosis', min_weight: 0.8 },
              { capability_id: 'cardiology', min_weight: 0 },
            ],
          },
        },
      });
      expect(await handle.query(statusQuery)).toMatchObject({ status: 'queued', escalation_level: 'high' });
      expect(eventsOf('escalation_attempt:1')).toEqual(['routing.queued']);
      await expect(
        handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'approved' }] }),
      ).rejects.toMatchObject({ cause: { type: 'routing_not_awaiting_review' } });

      reviewers = [reviewer('did:x:cardiologist', 1, { diagnosis: 0.9, cardiology: 0.9 })];
      await handle.signal(reviewerAvailableSignal);
      const assigned = await eventually(
        () => handle.query(statusQuery),
        (state) => state.status === 'in_progress',
      );
      expect(assigned).toMatchObject({
        status: 'in_progress',
        assigned_to: { did: 'did:x:cardiologist' },
      });
    });
  });

  it('assigns the least-loaded qualified reviewer of the first level', async () => {
    reviewers = [
      { ...reviewer('did:x:busy', 1), open_assignments: 4 },
      { ...reviewer('did:x:idle', 1), open_assignments: 1 },
      reviewer('did:x:senior', 2),
    ];
    await withWorker(async (taskQueue) => {
      const { decided } = await start(taskQueue, input({}));
      expect(decided).toMatchObject({
        ok: true,
        decision: {
          assigned_to: { did: 'did:x:idle', capabilities_matched: [{ capability_id: 'diagnosis', weight: 0.9 }] },
        },
      });
    });
  });

  it('rejects a second resolution and a reviewer who is not on the chain', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      await expect(
        handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:third', outcome: 'approved' }] }),
      ).rejects.toMatchObject({ cause: { type: 'reviewer_not_assigned' } });
      await handle.executeUpdate(resolveUpdate, {
        args: [{ reviewer_did: 'did:x:first', outcome: 'rejected', comment: 'wrong' }],
      });
      await expect(
        handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'approved' }] }),
      ).rejects.toBeDefined();
      expect((await handle.result()).resolution).toMatchObject({
        reviewer_did: 'did:x:first',
        outcome: 'rejected',
        comment: 'wrong',
      });
    });
  });

  it('keeps an autonomous routing in escalation mode open: the agent escalates it to a human, who resolves it', async () => {
    await withWorker(async (taskQueue) => {
      const { handle, decided } = await start(taskQueue, input({ ai_confidence: 0.9, routing_mode: 'escalation' }));
      expect(decided).toMatchObject({ ok: true, decision: { decision: 'ai_autonomous' } });
      expect((await handle.query(statusQuery)).status).toBe('completed');

      await env.sleep('30 minutes');
      const escalated = await handle.executeUpdate(escalateUpdate, {
        args: [{ reason: 'patient history is contradictory', requested_by: agentRequest, urgency: 'high' }],
      });
      expect(escalated).toMatchObject({
        ok: true,
        escalation: {
          status: 'assigned',
          assigned_to: { type: 'human', did: 'did:x:first' },
          escalation_level: 'high',
          escalation_chain: [{ level: 1, did: 'did:x:first', escalation_level: 'high' }],
        },
      });
      const state = await handle.query(statusQuery);
      expect(state).toMatchObject({ status: 'in_progress', assigned_to: { did: 'did:x:first' } });
      expect(state.escalated_at).toBeDefined();
      expect(eventsOf('escalation:1')).toEqual(['routing.escalated', 'escalation.triggered']);
      expect(appended.find((a) => a.entry.step_id === 'escalation:1')!.entry.actor).toEqual({
        type: 'ai_agent',
        did: agentRequest.did,
        agent_id: agentRequest.agent_id,
      });

      await handle.executeUpdate(resolveUpdate, {
        args: [{ reviewer_did: 'did:x:first', outcome: 'modified', modified_recommendation: 'wait' }],
      });
      expect((await handle.result()).status).toBe('completed');
    });
  });

  it('escalates an autonomous routing when its agent reports confidence below 0.70, and suggests reviewers', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({ ai_confidence: 0.9, routing_mode: 'escalation' }));
      const above = await handle.executeUpdate(reportConfidenceUpdate, {
        args: [{ confidence: 0.8, proceed_autonomously: true, agent_id: agentRequest.agent_id }],
      });
      expect(above).toMatchObject({
        fourth_law_triggered: false,
        human_assigned: false,
        status: 'completed',
        suggested_reviewers: [],
      });

      const below = await handle.executeUpdate(reportConfidenceUpdate, {
        args: [
          { confidence: 0.4, proceed_autonomously: true, reason: 'new lab results', agent_id: agentRequest.agent_id },
        ],
      });
      expect(below).toMatchObject({
        fourth_law_triggered: true,
        human_assigned: true,
        status: 'in_progress',
        assigned_to: { did: 'did:x:first' },
        escalation: { ok: true, escalation: { assigned_to: { did: 'did:x:first' } } },
      });
      expect(below.suggested_reviewers[0]).toBe('did:x:first');
      expect(stepIds()).toEqual([...DECISION_STEPS, 'confidence:1', 'confidence:2', 'escalation:1']);
    });
  });

  it('closes the escalation window when it ends; later requests are refused', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(
        taskQueue,
        input({ ai_confidence: 0.9, routing_mode: 'escalation' }, { window: 600 }),
      );
      const final = await handle.result();
      expect(final.status).toBe('completed');
      expectTimers(await handle.fetchHistory(), [600]);
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'late', requested_by: agentRequest }] }),
      ).rejects.toBeDefined();
    });
  });

  it('keeps a completed ai_first routing open to a supervisor’s review: a human reopens it days later, the agent may not', async () => {
    const SEVEN_DAYS = 7 * 24 * 3600;
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({ ai_confidence: 0.9 }, { review: SEVEN_DAYS }));
      expect((await handle.query(statusQuery)).status).toBe('completed');
      await env.sleep('3 days');
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'x', requested_by: agentRequest }] }),
      ).rejects.toMatchObject({ cause: { type: 'routing_closed' } });
      await expect(
        handle.executeUpdate(reportConfidenceUpdate, {
          args: [{ confidence: 0.2, proceed_autonomously: true, agent_id: agentRequest.agent_id }],
        }),
      ).rejects.toMatchObject({ cause: { type: 'routing_closed' } });

      const reopened = await handle.executeUpdate(escalateUpdate, {
        args: [{ reason: 'the diagnosis looks wrong', requested_by: { type: 'human', did: 'did:x:supervisor' } }],
      });
      expect(reopened).toMatchObject({
        ok: true,
        escalation: {
          status: 'assigned',
          assigned_to: { did: 'did:x:first' },
          escalation_level: 'low',
          escalation_chain: [{ level: 1, did: 'did:x:first' }],
        },
      });
      expect(await handle.query(statusQuery)).toMatchObject({
        status: 'in_progress',
        decision: 'ai_autonomous',
        assigned_to: { did: 'did:x:first' },
      });
      expect(eventsOf('escalation:1')).toEqual(['routing.escalated', 'escalation.triggered']);
      await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'rejected' }] });
      expect(await handle.result()).toMatchObject({ status: 'completed', resolution: { outcome: 'rejected' } });
    });
  });

  it('closes a completed routing when its review window ends, after the agent’s shorter window; history stays two timers long', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(
        taskQueue,
        input({ ai_confidence: 0.9, routing_mode: 'escalation' }, { window: 600, review: 3600 }),
      );
      await env.sleep('20 minutes');
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'late', requested_by: agentRequest }] }),
      ).rejects.toMatchObject({ cause: { type: 'routing_closed' } });
      const final = await handle.result();
      expect(final.status).toBe('completed');
      const history = await handle.fetchHistory();
      expectTimers(history, [600, 3000]);
      expect(history.events!.length).toBeLessThan(40);
      await expect(
        handle.executeUpdate(escalateUpdate, {
          args: [{ reason: 'too late', requested_by: { type: 'human', did: 'did:x:supervisor' } }],
        }),
      ).rejects.toBeDefined();
    });
  });

  it('refuses escalation of an ai_first autonomous routing', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({ ai_confidence: 0.9 }));
      await handle.result();
      await expect(
        handle.executeUpdate(escalateUpdate, { args: [{ reason: 'x', requested_by: agentRequest }] }),
      ).rejects.toBeDefined();
    });
  });

  it('moves a human-held routing by hand to a reviewer with the target capability, never lowering its urgency', async () => {
    reviewers = [reviewer('did:x:first', 1), reviewer('did:x:oncologist', 1, { diagnosis: 0.9, oncology: 0.95 })];
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({ context: { amount: 20_000 } }));
      expect((await handle.query(statusQuery)).escalation_level).toBe('high');
      const moved = await handle.executeUpdate(escalateUpdate, {
        args: [
          {
            reason: 'needs an oncologist',
            requested_by: { type: 'human', did: 'did:x:lead' },
            target_capability: 'oncology',
            min_weight: 0.9,
            urgency: 'low',
          },
        ],
      });
      expect(moved).toMatchObject({
        ok: true,
        escalation: {
          assigned_to: {
            did: 'did:x:oncologist',
            capabilities_matched: [
              { capability_id: 'diagnosis', weight: 0.9 },
              { capability_id: 'oncology', weight: 0.95 },
            ],
          },
          escalation_level: 'high',
        },
      });
      expect((await handle.query(statusQuery)).escalation_chain.map((e) => e.did)).toEqual([
        'did:x:first',
        'did:x:oncologist',
      ]);
      // The first reviewer is still on the chain and may still resolve.
      await handle.executeUpdate(resolveUpdate, { args: [{ reviewer_did: 'did:x:first', outcome: 'approved' }] });
    });
  });

  it('reports no qualified reviewer for an escalation without changing who holds the routing', async () => {
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}));
      const refused = await handle.executeUpdate(escalateUpdate, {
        args: [{ reason: 'x', requested_by: { type: 'human', did: 'did:x:lead' }, target_capability: 'astrophysics' }],
      });
      expect(refused).toMatchObject({
        ok: false,
        code: 'no_qualified_reviewer',
        required_capabilities: [
          { capability_id: 'diagnosis', min_weight: 0.8 },
          { capability_id: 'astrophysics', min_weight: 0 },
        ],
      });
      expect((await handle.query(statusQuery)).assigned_to?.did).toBe('did:x:first');
      expect(stepIds()).toContain('escalation_attempt:1');
    });
  });

  it('tells the supervisor once, when the level first reaches a rule’s threshold', async () => {
    context = {
      ...baseContext(),
      rules: [
        {
          rule_id: 'er_notify',
          rule_name: 'tell the lead',
          priority: 'medium',
          conditions: [{ condition_type: 'task_type', operator: '==', value: 'diagnosis' }],
          actions: [{ action: 'notify_supervisor', notification_threshold: 'medium' }],
        },
      ],
      rule_set: { version: 4, enabled: 1 },
    };
    await withWorker(async (taskQueue) => {
      const { handle } = await start(taskQueue, input({}, { timeouts: { low: 60, medium: 60, high: 60, urgent: 60 } }));
      await handle.result();
      expect(eventsOf('routing_decision')).not.toContain('escalation.supervisor_notified');
      expect(eventsOf('escalation:2')).toEqual(['escalation.triggered', 'escalation.supervisor_notified']);
      expect(eventsOf('escalation:3')).toEqual(['escalation.triggered']);
      expect(appended.find((a) => a.entry.step_id === 'context_analysis')!.entry.rules_evaluated).toEqual([
        { rule_id: 'er_notify', triggered: true, reason: 'task_type diagnosis == diagnosis' },
      ]);
    });
  });

  it('assigns from the candidates the context brought, and loads reviewers again only for a rule’s own capability', async () => {
    reviewers = [
      reviewer('did:x:first', 1, { diagnosis: 0.9 }),
      reviewer('did:x:oncologist', 1, { diagnosis: 0.9, oncology: 0.95 }),
    ];
    await withWorker(async (taskQueue) => {
      await start(taskQueue, input({}));
      expect(reviewerLoads).toEqual([]);
      context = {
        ...baseContext(),
        rules: [
          {
            rule_id: 'er_onco',
            rule_name: 'oncology',
            priority: 'high',
            conditions: [{ condition_type: 'task_type', operator: '==', value: 'diagnosis' }],
            actions: [{ action: 'escalate_to_human', target_capability: 'oncology', min_weight: 0.9, urgency: 'high' }],
          },
        ],
      };
      const { decided } = await start(taskQueue, input({}));
      expect(reviewerLoads).toEqual([['diagnosis', 'oncology']]);
      expect(decided).toMatchObject({
        ok: true,
        decision: { assigned_to: { did: 'did:x:oncologist' }, rules_triggered: ['er_onco'] },
      });
    });
  });
});
