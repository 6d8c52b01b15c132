import { spawn } from 'node:child_process';
import path from 'node:path';
import { createHandoff, HandoffError, verifyWebhook, type Handoff } from '@handoff/sdk';
import { registerAgent, taskId } from '../support/agents';
import { client } from '../support/http';
import { resolveAs } from '../support/people';
import { startStack, type Stack } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';

let stack: Stack;
let receiver: WebhookReceiver;
let handoff: Handoff;

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_DELAYS_SECONDS: '1,1,1',
    WEBHOOK_RETRY_JITTER: '0',
  });
  receiver = await startWebhookReceiver();
  handoff = createHandoff({ baseUrl: stack.baseUrl, token: await stack.token() });
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

const ADA = 'did:web:handoff.local:reviewers:ada';
const diagnosis = {
  task_type: 'medical_diagnosis',
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};

/** The generator's --check on a document, in a child process: openapi-typescript needs ESM, which jest's CommonJS runtime cannot load. */
function checkSdkAgainst(document: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/generate-sdk.ts', '--check', '--from', '-'], {
      cwd: path.join(__dirname, '..', '..'),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(document);
  });
}

describe('@handoff/sdk', () => {
  it('is generated from the document the API serves (npm run sdk:generate), and a change of the document is noticed', async () => {
    const served = await (await fetch(`${stack.baseUrl}/openapi.json`)).text();
    expect(await checkSdkAgainst(served)).toEqual({ code: 0, output: expect.stringContaining('is current') });
    const changed = served.replace(
      '"summary":"Read the status and progress of a routing"',
      '"summary":"Read a routing"',
    );
    expect(changed).not.toBe(served);
    expect((await checkSdkAgainst(changed)).code).toBe(1);
  }, 120_000);

  it('routes a task below 0.70 to a human and waits for the decision without polling', async () => {
    const decision = await handoff.routeTask(diagnosis, { idempotencyKey: `sdk-${Date.now()}` });
    expect(decision).toMatchObject({ decision: 'escalate_to_human', assigned_to: { type: 'human', did: ADA } });

    const waiting = handoff.waitForDecision({ routing_id: decision.routing_id }, { timeoutSeconds: 30 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      (await resolveAs(stack, decision.routing_id, ADA, { outcome: 'modified', modified_recommendation: 'order a CT' }))
        .status,
    ).toBe(200);
    const decided = await waiting;
    expect(decided).toMatchObject({
      routing_id: decision.routing_id,
      status: 'completed',
      resolution: { reviewer_did: ADA, outcome: 'modified' },
    });
  });

  it('lets an agent with its API key alone route a task and wait for the human’s decision on it by its task id', async () => {
    const agent = createHandoff({
      baseUrl: stack.baseUrl,
      token: (await registerAgent(client(stack.baseUrl, await stack.token()))).api_key,
    });
    const task_id = taskId('sdk case/7');
    const body = {
      task_id,
      task_type: 'medical_diagnosis',
      ai_assessment: { confidence: 0.62 },
      required_capabilities: diagnosis.required_capabilities,
    };
    const { data: routed } = await agent.client.POST('/v1/orch/route', { body });
    expect(routed).toMatchObject({ routing_decision: 'escalate_to_human', assigned_human: ADA });
    // The routing's own read needs orch:read, which an agent key does not hold.
    await expect(
      agent.waitForDecision({ routing_id: routed!.routing_id }, { timeoutSeconds: 1 }),
    ).rejects.toMatchObject({ status: 403 });

    const waiting = agent.waitForDecision({ task_id }, { timeoutSeconds: 30 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      (await resolveAs(stack, routed!.routing_id, ADA, { outcome: 'approved', comment: 'MRI is right' })).status,
    ).toBe(200);
    expect(await waiting).toMatchObject({
      routing_id: routed!.routing_id,
      status: 'completed',
      resolution: { reviewer_did: ADA, outcome: 'approved', comment: 'MRI is right' },
    });
    await expect(
      agent.waitForDecision({ task_id: taskId('never-routed') }, { timeoutSeconds: 1 }),
    ).rejects.toMatchObject({ status: 404, problem: { type: '/problems/routing_not_found' } });
  });

  it('returns the routing still in progress when its own timeout passes first', async () => {
    const decision = await handoff.routeTask(diagnosis);
    const startedAt = Date.now();
    const still = await handoff.waitForDecision({ routing_id: decision.routing_id }, { timeoutSeconds: 1 });
    expect(still.status).toBe('in_progress');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
  });

  it('throws a HandoffError carrying the problem of a refusal', async () => {
    const refused = handoff.routeTask({ ...diagnosis, ai_confidence: 1.7 });
    await expect(refused).rejects.toBeInstanceOf(HandoffError);
    await expect(refused).rejects.toMatchObject({ status: 400, problem: { type: '/problems/validation_failed' } });
  });

  it('verifies a real delivery’s signature and rejects a tampered one', async () => {
    const admin = client(stack.baseUrl, await stack.token());
    const subscribed = await admin('POST', '/v1/orch/webhooks', {
      json: { url: receiver.url('/sdk'), events: ['routing.decided'] },
    });
    expect(subscribed.status).toBe(201);
    const secret = subscribed.body.secret as string;
    await handoff.routeTask({ task_type: 'summarize', ai_agent_id: 'urn:acme:agent:sum:1', ai_confidence: 0.93 });
    await receiver.waitFor(() => receiver.on('/sdk').length > 0);
    const delivery = receiver.on('/sdk')[0]!;
    const header = delivery.headers['x-svc-signature'] as string;

    expect(verifyWebhook(header, delivery.rawBody, secret)).toEqual({ ok: true, timestamp: expect.any(Number) });
    expect(verifyWebhook(header, delivery.rawBody.replace('routing.decided', 'routing.decidex'), secret)).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(verifyWebhook(header, delivery.rawBody, `${secret}x`)).toEqual({
      ok: false,
      reason: 'no_matching_signature',
    });
    expect(
      verifyWebhook(header, delivery.rawBody, secret, { nowSeconds: Math.floor(Date.now() / 1000) + 3600 }),
    ).toEqual({ ok: false, reason: 'timestamp_out_of_tolerance' });
    expect(verifyWebhook('v1=abc', delivery.rawBody, secret)).toEqual({ ok: false, reason: 'malformed' });
  });
});
