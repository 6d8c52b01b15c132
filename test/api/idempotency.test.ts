import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startExtraApp } from '../support/app';
import { call, expectProblem, type CallOptions } from '../support/http';
import { signedInPerson } from '../support/identity';
import { devServerAddress, useStack } from '../support/stack';

/** A seeded reviewer (scripts/dev-seed.ts) who takes medical diagnoses. */
const ADA = 'did:web:handoff.local:reviewers:ada';

let token: string;

const stack = useStack();
beforeAll(async () => {
  token = await stack.token(['orch:admin'], 'idempotent-client');
});

const newKey = () => `key-${randomUUID()}`;
const routingBody = (requestId: string) => ({
  request_id: requestId,
  task_type: 'summarize',
  ai_agent_id: 'urn:acme:agent:sum:1',
  ai_confidence: 0.93,
});
const post = (body: unknown, key: string, options: CallOptions & { baseUrl?: string } = {}) =>
  call(options.baseUrl ?? stack.baseUrl, 'POST', '/v1/orch/routing', {
    token,
    json: body,
    ...options,
    headers: { 'idempotency-key': key, ...options.headers },
  });
const routingsFor = async (requestId: string) =>
  (await stack.database.db('routings').where({ request_id: requestId }).select('routing_id')).map(
    (row: { routing_id: string }) => row.routing_id,
  );

async function until(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('Idempotency-Key on POST /v1/orch/routing', () => {
  it('replays the first response with Idempotent-Replayed: true and routes once', async () => {
    const key = newKey();
    const requestId = `replay-${randomUUID()}`;
    const first = await post(routingBody(requestId), key);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replay = await post(routingBody(requestId), key);
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('location')).toBe(`/v1/orch/routing/${first.body.routing_id}`);
    expect(await routingsFor(requestId)).toEqual([first.body.routing_id]);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const key = newKey();
    const requestId = `order-${randomUUID()}`;
    const first = await post(routingBody(requestId), key);
    const { ai_confidence, ai_agent_id, task_type, request_id } = routingBody(requestId);
    const replay = await post({ ai_confidence, ai_agent_id, task_type, request_id }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.routing_id).toBe(first.body.routing_id);
  });

  it('keeps no result for a request refused as invalid, so the corrected request may use the same key', async () => {
    const key = newKey();
    const requestId = `corrected-${randomUUID()}`;
    const refused = await post({ ...routingBody(requestId), ai_confidence: 7 }, key);
    expectProblem(refused, 400, 'validation_failed');

    const corrected = await post(routingBody(requestId), key);
    expect(corrected.status).toBe(200);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
    expect(await routingsFor(requestId)).toEqual([corrected.body.routing_id]);
  });

  it('documents the keys it takes: 1 to 255 visible ASCII characters', async () => {
    const doc = (await call(stack.baseUrl, 'GET', '/openapi.json')).body;
    const header = doc.paths['/v1/orch/routing'].post.parameters.find(
      (parameter: { name: string }) => parameter.name.toLowerCase() === 'idempotency-key',
    );
    const pattern = new RegExp(header.schema.pattern);
    const documented = {
      test: (key: string) =>
        key.length >= header.schema.minLength && key.length <= header.schema.maxLength && pattern.test(key),
    };
    for (const key of ['a b', 'clé', '', 'x'.repeat(256)]) {
      expect(documented.test(key)).toBe(false);
      expectProblem(await post(routingBody(`refused-${randomUUID()}`), key), 400, 'validation_failed');
    }
    const admitted = `~!${newKey()}`;
    expect(documented.test(admitted)).toBe(true);
    expect((await post(routingBody(`admitted-${randomUUID()}`), admitted)).status).toBe(200);
  });

  it('answers 409 idempotency_key_reused for the same key with a different body', async () => {
    const key = newKey();
    const requestId = `reuse-${randomUUID()}`;
    expect((await post(routingBody(requestId), key)).status).toBe(200);
    const reused = await post({ ...routingBody(requestId), ai_confidence: 0.5 }, key);
    expectProblem(reused, 409, 'idempotency_key_reused');
    expect(await routingsFor(requestId)).toHaveLength(1);
  });

  it('answers 409 with Retry-After while the first request is in flight, and the first still completes', async () => {
    // An escalation by hand waits for the routing workflow's Update, which no worker answers while they are stopped.
    const ada = await signedInPerson(stack, { did: ADA });
    const routed = await post(
      {
        task_type: 'medical_diagnosis',
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.4,
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      },
      newKey(),
    );
    expect(routed.body).toMatchObject({ decision: 'escalate_to_human', assigned_to: { did: ADA } });
    const key = newKey();
    const escalate = () =>
      call(stack.baseUrl, 'POST', '/v1/orch/escalation/manual', {
        token: ada.sessionToken,
        json: { routing_id: routed.body.routing_id, escalation_reason: 'second opinion' },
        headers: { 'idempotency-key': key },
      });
    await stack.stopWorker();
    let first: ReturnType<typeof escalate> | undefined;
    try {
      first = escalate();
      await until(
        async () => (await stack.database.db('idempotency_keys').where({ idempotency_key: key }).first()) !== undefined,
      );

      const duplicate = await escalate();
      expectProblem(duplicate, 409, 'idempotency_request_in_flight');
      const retryAfter = Number(duplicate.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(5);
    } finally {
      await stack.startWorker();
    }
    const completed = await first;
    expect(completed.status).toBe(200);
    const replay = await escalate();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(completed.body);
  });

  it('executes concurrent duplicates once', async () => {
    const key = newKey();
    const requestId = `concurrent-${randomUUID()}`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => post(routingBody(requestId), key)));

    const ok = replies.filter((reply) => reply.status === 200);
    const inFlight = replies.filter((reply) => reply.status === 409);
    expect(ok.length + inFlight.length).toBe(5);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((reply) => reply.body.routing_id)).size).toBe(1);
    for (const reply of inFlight) expect(reply.body.type).toBe('/problems/idempotency_request_in_flight');
    expect(await routingsFor(requestId)).toEqual([ok[0]!.body.routing_id]);
  });

  it('keeps keys per principal: another caller’s same key runs its own request', async () => {
    const key = newKey();
    const requestId = `per-principal-${randomUUID()}`;
    const mine = await post(routingBody(requestId), key);
    const theirs = await post(routingBody(requestId), key, {
      token: await stack.token(['orch:write'], 'someone-else'),
    });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.routing_id).not.toBe(mine.body.routing_id);
    expect((await routingsFor(requestId)).sort()).toEqual([mine.body.routing_id, theirs.body.routing_id].sort());
  });

  it('releases the key when the first attempt fails on our side, so a retry runs', async () => {
    const key = newKey();
    const requestId = `released-${randomUUID()}`;
    const connection = await Connection.connect({ address: devServerAddress() });
    const broken = await startExtraApp(stack, {
      temporal: new Client({ connection, namespace: stack.config.TEMPORAL_NAMESPACE }),
    });
    await connection.close();
    // A compliance report starts its workflow in the request, so a closed Temporal connection fails it on our side.
    const report = (baseUrl: string) =>
      call(baseUrl, 'POST', '/v1/orch/compliance/report', {
        token,
        json: {
          report_type: 'quarterly_regulatory',
          period: '2026-Q3',
          domains: [requestId],
          include_violations: true,
        },
        headers: { 'idempotency-key': key, prefer: 'respond-async' },
      });
    try {
      expect((await report(broken.baseUrl)).status).toBe(500);
    } finally {
      await broken.close();
    }
    const retry = await report(stack.baseUrl);
    expect(retry.status).toBe(202);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    ['300 characters long', 'k'.repeat(300)],
    ['containing a space', 'two words'],
  ])('answers 400 for a key %s', async (_name, key) => {
    const reply = await post(routingBody(`invalid-${randomUUID()}`), key);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([expect.objectContaining({ field: 'Idempotency-Key', code: 'invalid_format' })]);
  });
});

describe('Idempotency-Key on PUT /v1/orch/reviewers/{did}', () => {
  const did = 'did:web:example.com:reviewers:idem';
  const put = (body: unknown, key?: string) =>
    call(stack.baseUrl, 'PUT', `/v1/orch/reviewers/${did}`, {
      token,
      json: body,
      ...(key ? { headers: { 'idempotency-key': key } } : {}),
    });
  const stored = async () =>
    (await stack.database.db('reviewers').where({ did }).first()) as { display_name: string } | undefined;

  it('replays a 204 without running the write again', async () => {
    const key = newKey();
    const first = await put({ display_name: 'First', chain_level: 2 }, key);
    expect(first.status).toBe(204);

    // Someone else changes the reviewer in between; a replay must not write the first body back.
    expect((await put({ display_name: 'Changed since', chain_level: 2 })).status).toBe(204);
    const replay = await put({ display_name: 'First', chain_level: 2 }, key);
    expect(replay.status).toBe(204);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe('');
    expect((await stored())?.display_name).toBe('Changed since');
  });

  it('answers 409 idempotency_key_reused for the same key on another reviewer', async () => {
    const key = newKey();
    expect((await put({ display_name: 'Once' }, key)).status).toBe(204);
    const elsewhere = await call(stack.baseUrl, 'PUT', '/v1/orch/reviewers/did:web:example.com:reviewers:other', {
      token,
      json: { display_name: 'Once' },
      headers: { 'idempotency-key': key },
    });
    expectProblem(elsewhere, 409, 'idempotency_key_reused');
    expect(
      await stack.database.db('reviewers').where({ did: 'did:web:example.com:reviewers:other' }).first(),
    ).toBeUndefined();
  });
});
