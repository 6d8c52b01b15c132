import { randomUUID } from 'node:crypto';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import { APPROVAL_WORKFLOW, type ApprovalState } from '../../contracts/approval';
import { reportConfidenceUpdate, type RouteTaskInput } from '../../contracts/route-task';
import { findPendingStart, insertPendingStart } from '../../db/workflow-starts';
import { escalationTimeouts } from '../../app/deps';
import { platformSettings } from '../../app/platform';
import { createApproval, type PlatformServiceDeps } from '../../services/approvals/approvals';
import { respondToApproval } from '../../services/approvals/answers';
import { submitRouting, type RoutingServiceDeps } from '../../services/routing/submit';
import { sendRoutingUpdate } from '../../services/routing/updates';
import { STALE_SIGNAL_MS } from '../../services/workflow-starts/signals';
import { STALE_START_MS } from '../../services/workflow-starts/starts';
import { eventually } from '../support/eventually';
import { client, type CallResult } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { startStack, type Stack } from '../support/stack';
import { firstTaskCompleted } from '../support/workflow-tasks';

/**
 * The crash points of the hot paths (docs/architecture.md, "Hot paths"): a process killed between the commit
 * and the workflow's start, an answer racing the expiry, the same answer twice at once, and an answer
 * signalled while no worker runs. Each ends with exactly one outcome, recorded once.
 */

let stack: Stack;
let api: ReturnType<typeof client>;
let platform: PlatformServiceDeps;
let routing: RoutingServiceDeps;

const PAYER = 'did:web:acme.example:agents:payer';
const CFO = 'did:web:acme.example:people:cfo';
let cfo: SignedInPerson;
let asCfo: ReturnType<typeof client>;
/** The CFO as a signed-in principal, for the service calls a crash test makes directly. */
const cfoCaller = () => ({
  id: `passport:${cfo.passport_id}`,
  kind: 'session',
  organization_id: 'org_default',
  scopes: ['approvals:respond'],
  actor: { passport_id: cfo.passport_id, did: cfo.did, credential: { type: 'device_key' as const, id: cfo.kid } },
});

beforeAll(async () => {
  // The dispatcher polls often, so a start a crash left behind is made within seconds.
  stack = await startStack({ WEBHOOK_DISPATCH_POLL_MS: '500' });
  api = client(stack.baseUrl, await stack.token());
  cfo = await signedInPerson(stack, { did: CFO });
  asCfo = client(stack.baseUrl, cfo.sessionToken);
  platform = {
    db: stack.database.db,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    settings: platformSettings(stack.config),
  };
  routing = {
    db: stack.database.db,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    escalationTimeoutsSeconds: escalationTimeouts(stack.config),
    autonomousEscalationWindowSeconds: 0,
    reviewWindowSeconds: 0,
  };
});
afterAll(() => stack?.stop());

/** A Temporal client whose process dies as it is about to start a workflow: the commit is made, the start never. */
function killedBeforeStart(): Client {
  const crashing = new Client({ connection: stack.temporal.connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  Object.assign(crashing.workflow, {
    start: () => Promise.reject(new Error('process killed between the commit and the start')),
  });
  return crashing;
}

async function workflowStatus(workflowId: string): Promise<string | undefined> {
  try {
    return (await stack.temporal.workflow.getHandle(workflowId).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Moves a committed start's or signal's row back in time, as if the sweep's grace for it had passed. */
async function age(table: 'workflow_starts' | 'workflow_signals', workflowId: string, byMs: number): Promise<void> {
  const aged = await stack.database
    .db(table)
    .where({ workflow_id: workflowId })
    .update({ created_at: stack.database.db.raw('created_at - make_interval(secs => ?)', [byMs / 1000]) });
  expect(aged).toBe(1);
}

async function pendingSignals(workflowId: string): Promise<number> {
  return (await stack.database.db('workflow_signals').where({ workflow_id: workflowId })).length;
}

/** A Temporal client whose process dies as it is about to signal a workflow: the claim is committed, the signal never sent. */
function killedBeforeSignal(): Client {
  const crashing = new Client({ connection: stack.temporal.connection, namespace: stack.config.TEMPORAL_NAMESPACE });
  Object.assign(crashing.workflow, {
    getHandle: () => ({ signal: () => Promise.reject(new Error('process killed between the claim and the signal')) }),
  });
  return crashing;
}

async function ledgerSteps(subjectId: string): Promise<string[]> {
  const rows = await stack.database
    .db('ledger_entries')
    .where({ subject_id: subjectId })
    .orderBy('seq')
    .select<{ step_id: string }[]>('step_id');
  return rows.map((row) => row.step_id);
}

async function events(subjectId: string): Promise<string[]> {
  const rows = await stack.database
    .db('outbox_events as e')
    .join('ledger_entries as p', 'p.seq', 'e.provenance_seq')
    .where('p.subject_id', subjectId)
    .orderBy('e.event')
    .select<{ event: string }[]>('e.event');
  return rows.map((row) => row.event);
}

async function openApproval(body: Record<string, unknown> = {}): Promise<string> {
  const created = await api('POST', '/v1/approvals', {
    json: {
      requester_passport_id: PAYER,
      approver_passport_id: CFO,
      action_description: 'Pay invoice 42',
      request_data: { amount: 25_000 },
      ...body,
    },
  });
  expect(created.status).toBe(201);
  return (created.body as { id: string }).id;
}

const approve = (id: string, by = CFO): Promise<CallResult> =>
  asCfo('POST', `/v1/approvals/${id}/respond`, { json: { decision: 'approved', responded_by: by } });

describe('answered at commit (docs/architecture.md, "Answered at commit")', () => {
  it('routing: a read right after the answer returns the committed record, and the workflow is started behind the answer', async () => {
    const routed = await api('POST', '/v1/orch/routing', {
      json: { task_type: 'summarize', ai_agent_id: 'urn:acme:agent:sum:1', ai_confidence: 0.93 },
    });
    expect(routed.status).toBe(200);
    const { routing_id, decision } = routed.body as { routing_id: string; decision: string };
    const read = await api('GET', `/v1/orch/routing/${routing_id}`);
    expect(read).toMatchObject({ status: 200, body: { routing_id, decision, status: expect.any(String) } });
    await eventually(
      () => workflowStatus(routing_id),
      (status) => status !== undefined,
    );
    await eventually(
      () => findPendingStart(stack.database.db, routing_id),
      (pending) => pending === undefined,
    );
  });

  it('approval: a read and a wait right after the answer see the committed request', async () => {
    const id = await openApproval();
    expect((await api('GET', `/v1/approvals/${id}`)).body).toMatchObject({ id, status: 'pending' });
    const waited = await api('GET', `/v1/approvals/${id}?wait=1`);
    expect(waited).toMatchObject({ status: 200, body: { id, status: 'pending' } });
    await eventually(
      () => workflowStatus(id),
      (status) => status === 'RUNNING',
    );
  });

  it('routing: an Update sent before the workflow has started starts it from its pending start and is taken', async () => {
    const routing_id = `rt_${randomUUID()}`;
    const answered = await submitRouting(
      { ...routing, temporal: killedBeforeStart() },
      {
        routing_id,
        requested_by: 'sub:test',
        organization_id: 'org_default',
        task: {
          task_type: 'medical_diagnosis',
          context: {},
          ai_agent_id: 'urn:acme:agent:diagnosis:7',
          ai_confidence: 0.62,
          required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
          safety_requirements: {},
          escalation_conditions: {},
        },
      },
    );
    expect(answered.ok).toBe(true);
    expect(await workflowStatus(routing_id)).toBeUndefined();
    const reported = await sendRoutingUpdate(routing, 'org_default', routing_id, reportConfidenceUpdate, [
      { confidence: 0.4, proceed_autonomously: false, agent_id: 'urn:acme:agent:diagnosis:7' },
    ]);
    expect(reported).toMatchObject({ ok: true, result: { fourth_law_triggered: true } });
    expect(await workflowStatus(routing_id)).toBe('RUNNING');
  });
});

describe('a process killed between the commit and the start', () => {
  it('routing: the decision is recorded and not lost; a retry of the request answers the same decision and starts the workflow', async () => {
    const submission = {
      routing_id: `rt_${randomUUID()}`,
      requested_by: 'sub:test',
      task: {
        task_type: 'medical_diagnosis',
        context: {},
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.62,
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
        safety_requirements: {},
        escalation_conditions: {},
      },
      organization_id: 'org_default',
    } satisfies Pick<RouteTaskInput, 'routing_id' | 'requested_by' | 'task' | 'organization_id'>;
    // Answered at commit: the start behind the answer is what the crash took.
    const answered = await submitRouting({ ...routing, temporal: killedBeforeStart() }, submission);
    expect(answered).toMatchObject({ ok: true, decision: { decision: 'escalate_to_human' } });
    expect(await workflowStatus(submission.routing_id)).toBeUndefined();
    expect(await findPendingStart(stack.database.db, submission.routing_id)).toMatchObject({
      workflow_type: 'routeTaskWorkflow',
    });
    const recorded = await api('GET', `/v1/orch/routing/${submission.routing_id}`);
    expect(recorded).toMatchObject({ status: 200, body: { status: 'in_progress', decision: 'escalate_to_human' } });
    const steps = await ledgerSteps(submission.routing_id);

    const retried = await submitRouting(routing, submission);
    expect(retried.decision.routing_id).toBe(submission.routing_id);
    expect(retried.decision.decision).toBe('escalate_to_human');
    expect(await workflowStatus(submission.routing_id)).toBe('RUNNING');
    await eventually(
      () => findPendingStart(stack.database.db, submission.routing_id),
      (pending) => pending === undefined,
    );
    // Decided once: the retry recorded nothing more.
    expect(await ledgerSteps(submission.routing_id)).toEqual(steps);
    expect(steps).toEqual(['capability_assessment', 'risk_evaluation', 'context_analysis', 'routing_decision']);
  });

  it('approval: the outbox dispatcher starts the workflow the crash left unstarted, and it then takes its answer', async () => {
    const approval_id = `apr_${randomUUID()}`;
    const opened = await createApproval(
      { ...platform, temporal: killedBeforeStart() },
      { approval_id, requested_by: 'sub:test' },
      {
        requester_passport_id: PAYER,
        action_description: 'Pay invoice 43',
        request_data: { amount: 10 },
        alternatives: [],
      },
    );
    expect(opened).toMatchObject({ ok: true, approval: { status: 'pending' } });
    expect(await workflowStatus(approval_id)).toBeUndefined();
    expect((await api('GET', `/v1/approvals/${approval_id}`)).body).toMatchObject({ status: 'pending' });
    // Two passes of the sweep leave a start younger than STALE_START_MS to the process that committed it...
    await sleep(1000);
    expect(await workflowStatus(approval_id)).toBeUndefined();
    // ...and once it is that old (its row aged instead of the test waiting), the next pass makes it.
    await age('workflow_starts', approval_id, STALE_START_MS);

    await eventually(
      () => workflowStatus(approval_id),
      (status) => status === 'RUNNING',
      { timeoutMs: 30_000, everyMs: 250 },
    );
    await eventually(
      () => findPendingStart(stack.database.db, approval_id),
      (pending) => pending === undefined,
    );
    expect((await approve(approval_id)).status).toBe(200);
    const ended = await (await stack.startedWorkflow(approval_id)).result();
    expect(ended).toMatchObject({ status: 'approved', responded_by: CFO });
    expect(await ledgerSteps(approval_id)).toEqual(['requested', 'responded']);
  });

  it('approval: a start Temporal refuses as it stands stays pending and does not hold back the sweep of the starts behind it', async () => {
    // A start no retry makes (a search attribute the namespace does not know), committed before the crash's.
    const refused = `apr_${randomUUID()}`;
    await insertPendingStart(stack.database.db, {
      workflow_id: refused,
      workflow_type: APPROVAL_WORKFLOW,
      task_queue: stack.taskQueue,
      args: [],
      search_attributes: [{ key: { name: 'HandoffNoSuchAttribute', type: 'KEYWORD' }, value: 'x' }],
    });
    await age('workflow_starts', refused, 2 * STALE_START_MS);
    const approval_id = `apr_${randomUUID()}`;
    await createApproval(
      { ...platform, temporal: killedBeforeStart() },
      { approval_id, requested_by: 'sub:test' },
      {
        requester_passport_id: PAYER,
        action_description: 'Pay invoice 45',
        request_data: { amount: 10 },
        alternatives: [],
      },
    );
    await age('workflow_starts', approval_id, STALE_START_MS);
    try {
      await eventually(
        () => workflowStatus(approval_id),
        (status) => status === 'RUNNING',
        { timeoutMs: 30_000, everyMs: 250 },
      );
      expect(await workflowStatus(refused)).toBeUndefined();
      expect(await findPendingStart(stack.database.db, refused)).toMatchObject({ workflow_id: refused });
    } finally {
      await stack.database.db('workflow_starts').where({ workflow_id: refused }).delete();
    }
  });

  it('approval: an answer to a request whose start a crash prevented starts its workflow with the answer', async () => {
    const approval_id = `apr_${randomUUID()}`;
    await createApproval(
      { ...platform, temporal: killedBeforeStart() },
      { approval_id, requested_by: 'sub:test' },
      {
        requester_passport_id: PAYER,
        action_description: 'Pay invoice 44',
        request_data: { amount: 10 },
        alternatives: [],
      },
    );
    const answered = await respondToApproval(platform, approval_id, cfoCaller(), {
      decision: 'rejected',
      response_kind: 'rejected',
    });
    expect(answered).toMatchObject({ ok: true, approval: { status: 'rejected' } });
    // The person is answered from the claim; the signal, starting the workflow with it, follows.
    await eventually(
      () => workflowStatus(approval_id),
      (status) => status !== undefined,
    );
    const ended = await (await stack.startedWorkflow(approval_id)).result();
    expect(ended).toMatchObject({ status: 'rejected', responded_by: CFO });
    await eventually(
      () => findPendingStart(stack.database.db, approval_id),
      (pending) => pending === undefined,
    );
    await eventually(
      () => pendingSignals(approval_id),
      (count) => count === 0,
    );
    expect(await ledgerSteps(approval_id)).toEqual(['requested', 'responded']);
  });
});

describe('a process killed between the claim and the signal', () => {
  it('the answer is the person’s at once; the dispatcher delivers the ended signal the crash held back, and the workflow carries it on', async () => {
    const id = await openApproval();
    const answered = await respondToApproval({ ...platform, temporal: killedBeforeSignal() }, id, cfoCaller(), {
      decision: 'approved',
      response_kind: 'approved',
    });
    expect(answered).toMatchObject({ ok: true, approval: { status: 'approved', responded_by: CFO } });
    expect(await pendingSignals(id)).toBe(1);
    expect(await workflowStatus(id)).toBe('RUNNING');
    // A second answer meets the claim, not the workflow: refused at once.
    expect((await approve(id)).status).toBe(409);
    // The sweep (every 0.5 s here) leaves a signal younger than STALE_SIGNAL_MS to the process that committed it...
    await sleep(1500);
    expect(await pendingSignals(id)).toBe(1);
    // ...and delivers it once it is that old (its row aged instead of the test waiting 30 s).
    await age('workflow_signals', id, STALE_SIGNAL_MS);

    const ended = await (await stack.startedWorkflow(id)).result();
    expect(ended).toMatchObject({ status: 'approved', responded_by: CFO });
    await eventually(
      () => pendingSignals(id),
      (count) => count === 0,
    );
    expect(await ledgerSteps(id)).toEqual(['requested', 'responded']);
  });
});

describe('exactly one ending', () => {
  it('the same answer sent many times at once: one wins (200), every other is 409 at once; one record, one event', async () => {
    const id = await openApproval();
    const replies = await Promise.all(Array.from({ length: 12 }, () => approve(id)));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(1);
    expect(
      replies.filter((reply) => reply.status === 409).map((reply) => (reply.body as { type: string }).type),
    ).toEqual(Array(11).fill('/problems/approval_not_pending'));
    const ended = await (await stack.startedWorkflow(id)).result();
    expect(ended).toMatchObject({ status: 'approved' });
    expect(await ledgerSteps(id)).toEqual(['requested', 'responded']);
    expect(await events(id)).toEqual(['approval.approved', 'approval.requested']);
  });

  it('answers racing the expiry: each request ends once, answered or expired, and its workflow, row and ledger agree', async () => {
    const ids = await Promise.all(Array.from({ length: 6 }, () => openApproval({ expires_in_seconds: 2 })));
    const opened = (await api('GET', `/v1/approvals/${ids[0]!}`)).body as { expires_at: string };
    // Keep answering from just before the deadline until past it, so the answer and the expiry meet.
    const until = Date.parse(opened.expires_at) + 1500;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(opened.expires_at) - Date.now() - 300)));
    const wins = new Map<string, number>();
    while (Date.now() < until) {
      const replies = await Promise.all(ids.map((id) => approve(id)));
      replies.forEach((reply, at) => {
        if (reply.status === 200) wins.set(ids[at]!, (wins.get(ids[at]!) ?? 0) + 1);
        else expect(reply.status).toBe(409);
      });
    }
    for (const id of ids) {
      const ended: ApprovalState = await (await stack.startedWorkflow(id)).result();
      const row = (await api('GET', `/v1/approvals/${id}`)).body as { status: string };
      const steps = await ledgerSteps(id);
      expect(['approved', 'expired']).toContain(ended.status);
      expect(row.status).toBe(ended.status);
      expect(steps).toEqual(['requested', ended.status === 'approved' ? 'responded' : 'expired']);
      expect(wins.get(id) ?? 0).toBe(ended.status === 'approved' ? 1 : 0);
    }
  });
});

describe('a signal that arrives while no worker runs', () => {
  it('the answer is recorded and answered at once; the workflow carries it on when a worker is back', async () => {
    const id = await openApproval();
    await firstTaskCompleted(stack, id);
    await stack.stopWorker();
    try {
      const answered = await approve(id);
      expect(answered).toMatchObject({ status: 200, body: { status: 'approved', responded_by: CFO } });
      expect((await api('GET', `/v1/approvals/${id}`)).body).toMatchObject({ status: 'approved' });
      expect(await workflowStatus(id)).toBe('RUNNING');
    } finally {
      await stack.startWorker();
    }
    const ended = await (await stack.startedWorkflow(id)).result();
    expect(ended).toMatchObject({ status: 'approved', responded_by: CFO });
    expect(await ledgerSteps(id)).toEqual(['requested', 'responded']);
  });
});
