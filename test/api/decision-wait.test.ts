import type { Server } from 'node:http';
import { buildApp } from '../../api/app';
import type { Config } from '../../app/config';
import { createAppDeps } from '../../app/deps';
import { closeServer, listen } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { createDecisionWaits, type DecisionWaits, type DecisionWaitSettings } from '../../services/decisions/waits';
import { startExtraApp } from '../support/app';
import { eventually } from '../support/eventually';
import { client, expectProblem, type CallResult } from '../support/http';
import { signedInPerson } from '../support/identity';
import { resolveAs } from '../support/people';
import { useStack } from '../support/stack';

let api: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  api = client(stack.baseUrl, await stack.token());
});

const ADA = 'did:web:handoff.local:reviewers:ada';

async function escalatedRouting(): Promise<string> {
  const routed = await api('POST', '/v1/orch/routing', {
    json: {
      task_type: 'medical_diagnosis',
      ai_agent_id: 'urn:acme:agent:diagnosis:7',
      ai_confidence: 0.62,
      required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
    },
  });
  expect(routed.body).toMatchObject({ decision: 'escalate_to_human', assigned_to: { did: ADA } });
  return routed.body.routing_id;
}

/** A request that is answered later, with when it was answered. */
function timed(reply: Promise<CallResult>): Promise<CallResult & { at: number }> {
  return reply.then((result) => ({ ...result, at: Date.now() }));
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An API instance on the stack's database whose waits use these settings (and LISTEN only when listen is set). */
async function instanceWith(settings: DecisionWaitSettings, options: { listen: boolean; config?: Partial<Config> }) {
  const config: Config = { ...stack.config, ...options.config };
  const logger = createLogger({ level: config.LOG_LEVEL, silent: !process.env.HANDOFF_TEST_LOGS });
  const deps = createAppDeps(config, { db: stack.database.db, temporal: stack.temporal, logger, listenUrl: undefined });
  const decisions: DecisionWaits = createDecisionWaits({
    listenUrl: options.listen ? stack.database.url : undefined,
    logger,
    settings,
  });
  const server: Server = await listen(
    buildApp({ ...deps, decisions, settings: { ...deps.settings, publicBaseUrl: 'http://127.0.0.1' } }),
    { host: '127.0.0.1', port: 0 },
  );
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    decisions,
    async close() {
      await closeServer(server);
      await decisions.close();
      await deps.revocations.close();
    },
  };
}

describe('GET /v1/orch/routing/{routing_id}?wait=', () => {
  it('answers as soon as a signed-in reviewer resolves the routing', async () => {
    const id = await escalatedRouting();
    const waiting = timed(api('GET', `/v1/orch/routing/${id}?wait=20`));
    await pause(300);
    const resolved = await resolveAs(stack, id, ADA, { outcome: 'approved', comment: 'looks right' });
    expect(resolved.status).toBe(200);
    const resolvedAt = Date.now();
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      routing_id: id,
      status: 'completed',
      resolution: { reviewer_did: ADA, outcome: 'approved', comment: 'looks right' },
    });
    expect(answer.at - resolvedAt).toBeLessThan(5000);
  });

  it('wakes a waiter on another API instance', async () => {
    const other = await startExtraApp(stack);
    try {
      const id = await escalatedRouting();
      const waiting = timed(client(other.baseUrl, await stack.token())('GET', `/v1/orch/routing/${id}?wait=20`));
      await pause(300);
      expect((await resolveAs(stack, id, ADA, { outcome: 'rejected' })).status).toBe(200);
      const resolvedAt = Date.now();
      const answer = await waiting;
      expect(answer.body).toMatchObject({ routing_id: id, status: 'completed', resolution: { outcome: 'rejected' } });
      expect(answer.at - resolvedAt).toBeLessThan(5000);
    } finally {
      await other.close();
    }
  });

  it('is woken by the notification, not by its re-reads', async () => {
    const quiet = await instanceWith(
      { recheckWhileListeningMs: 60_000, recheckWithoutListenMs: 60_000, listenStartMs: 5000 },
      { listen: true },
    );
    try {
      const id = await escalatedRouting();
      const waiting = timed(client(quiet.baseUrl, await stack.token())('GET', `/v1/orch/routing/${id}?wait=30`));
      await eventually(
        async () => quiet.decisions.waiting,
        (count) => count === 1,
      );
      expect(quiet.decisions.listening).toBe(true);
      expect((await resolveAs(stack, id, ADA, { outcome: 'approved' })).status).toBe(200);
      const resolvedAt = Date.now();
      const answer = await waiting;
      expect(answer.body).toMatchObject({ status: 'completed' });
      expect(answer.at - resolvedAt).toBeLessThan(2000);
    } finally {
      await quiet.close();
    }
  });

  it('finds the decision by its re-reads when no notification comes', async () => {
    const deaf = await instanceWith(
      { recheckWhileListeningMs: 300, recheckWithoutListenMs: 300, listenStartMs: 1000 },
      { listen: false },
    );
    try {
      const id = await escalatedRouting();
      const waiting = timed(client(deaf.baseUrl, await stack.token())('GET', `/v1/orch/routing/${id}?wait=30`));
      await pause(300);
      expect(deaf.decisions.listening).toBe(false);
      expect((await resolveAs(stack, id, ADA, { outcome: 'approved' })).status).toBe(200);
      const resolvedAt = Date.now();
      const answer = await waiting;
      expect(answer.body).toMatchObject({ status: 'completed' });
      expect(answer.at - resolvedAt).toBeLessThan(2000);
    } finally {
      await deaf.close();
    }
  });

  it('answers the routing still in progress when the wait ends first', async () => {
    const id = await escalatedRouting();
    const startedAt = Date.now();
    const answer = await api('GET', `/v1/orch/routing/${id}?wait=2`);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1900);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ routing_id: id, status: 'in_progress', resolution: null });
  });

  it('waits past the request deadline without being cut as a timeout', async () => {
    const short = await instanceWith(
      { recheckWhileListeningMs: 2000, recheckWithoutListenMs: 1000, listenStartMs: 1000 },
      { listen: true, config: { REQUEST_TIMEOUT_MS: 1000 } },
    );
    try {
      const id = await escalatedRouting();
      const startedAt = Date.now();
      const answer = await client(short.baseUrl, await stack.token())('GET', `/v1/orch/routing/${id}?wait=2`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'in_progress' });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1900);
    } finally {
      await short.close();
    }
  });

  it('stops waiting when the client goes away', async () => {
    const instance = await instanceWith(
      { recheckWhileListeningMs: 60_000, recheckWithoutListenMs: 60_000, listenStartMs: 5000 },
      { listen: true },
    );
    try {
      const id = await escalatedRouting();
      const gone = new AbortController();
      const request = fetch(`${instance.baseUrl}/v1/orch/routing/${id}?wait=30`, {
        headers: { authorization: `Bearer ${await stack.token()}` },
        signal: gone.signal,
      });
      await eventually(
        async () => instance.decisions.waiting,
        (count) => count === 1,
      );
      gone.abort();
      await expect(request).rejects.toThrow();
      await eventually(
        async () => instance.decisions.waiting,
        (count) => count === 0,
        { timeoutMs: 2000 },
      );
    } finally {
      await instance.close();
    }
  });

  it('answers an undecided or unknown routing at once without wait, and refuses a wait over the bound', async () => {
    const id = await escalatedRouting();
    const startedAt = Date.now();
    expect((await api('GET', `/v1/orch/routing/${id}`)).body).toMatchObject({ status: 'in_progress' });
    expect(Date.now() - startedAt).toBeLessThan(1500);
    expectProblem(await api('GET', `/v1/orch/routing/${id}?wait=61`), 400, 'validation_failed');
    expectProblem(await api('GET', `/v1/orch/routing/${id}?wait=soon`), 400, 'validation_failed');
    expectProblem(await api('GET', '/v1/orch/routing/rt_nothing-here?wait=5'), 404, 'routing_not_found');
  });
});

describe('GET /v1/approvals/{approval_id}?wait=', () => {
  it('answers as soon as the approver answers, and pending when the wait ends first', async () => {
    const cfo = await signedInPerson(stack, { name: 'CFO' });
    const created = await api('POST', '/v1/approvals', {
      json: {
        org_did: 'did:web:acme.example',
        agent_id: 'agent://acme/payer@1.0.0',
        requester_passport_id: 'did:web:acme.example:agents:payer',
        approver_passport_id: cfo.did,
        action_description: 'Pay invoice 42 to Globex',
        request_data: { amount: 25_000, currency: 'EUR', payee: 'Globex' },
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const stillPending = await api('GET', `/v1/approvals/${id}?wait=1`);
    expect(stillPending.body).toMatchObject({ id, status: 'pending' });

    const waiting = timed(api('GET', `/v1/approvals/${id}?wait=20`));
    await pause(300);
    const answered = await client(stack.baseUrl, cfo.sessionToken)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'approved', comment: 'go' },
    });
    expect(answered.status).toBe(200);
    const answeredAt = Date.now();
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id, status: 'approved', responded_by: cfo.did, response_comment: 'go' });
    expect(answer.at - answeredAt).toBeLessThan(5000);
    expectProblem(await api('GET', '/v1/approvals/apr_nothing-here?wait=1'), 404, 'approval_not_found');
  });
});
