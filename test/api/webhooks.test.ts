import { randomUUID } from 'node:crypto';
import { outboxDispatcherId } from '../../contracts/dispatch-outbox';
import { listProvenanceForSubject } from '../../db/ledger';
import { verifySignature } from '../../lib/outbound/signature';
import { startExtraApp } from '../support/app';
import { emitEvents } from '../support/events';
import { client, expectProblem } from '../support/http';
import { startStack, type Stack } from '../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { workflowWaiting } from '../support/workflow-tasks';

let stack: Stack;
let receiver: WebhookReceiver;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  stack = await startStack({
    OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1',
    WEBHOOK_RETRY_DELAYS_SECONDS: '1,1,1',
    WEBHOOK_RETRY_JITTER: '0',
    // Longer than any test: deliveries that arrive at all were woken by the commit, not found by the poll.
    WEBHOOK_DISPATCH_POLL_MS: '600000',
  });
  receiver = await startWebhookReceiver();
  api = client(stack.baseUrl, await stack.token(['orch:admin', 'orch:write', 'platform:read']));
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

/** Subscribes a receiver path, and lets that endpoint know its secret as a subscriber would store it. */
async function subscribe(path: string, events: string[], extra: Record<string, unknown> = {}) {
  const reply = await api('POST', '/v1/orch/webhooks', { json: { url: receiver.url(path), events, ...extra } });
  expect(reply.status).toBe(201);
  receiver.knowSecret(path, reply.body.secret);
  return reply.body as { subscription_id: string; secret: string };
}

const eventIdsOn = (path: string) => receiver.on(path).map((delivery) => delivery.headers['x-svc-delivery-id']);

describe('webhook subscriptions', () => {
  it('creates a subscription, shows its secret once, and records the change in provenance', async () => {
    const created = await api('POST', '/v1/orch/webhooks', {
      json: {
        url: receiver.url('/crud'),
        events: ['routing.decided', 'routing.decided', 'audit.critical'],
        description: 'ops',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      subscription_id: expect.stringMatching(/^whsub_[0-9a-f]{32}$/),
      url: receiver.url('/crud'),
      events: ['audit.critical', 'routing.decided'],
      description: 'ops',
      status: 'enabled',
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    expect(created.headers.get('location')).toBe(`/v1/orch/webhooks/${created.body.subscription_id}`);
    const id = created.body.subscription_id;

    const read = await api('GET', `/v1/orch/webhooks/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.text).not.toContain(created.body.secret);
    expect(read.body.secrets).toEqual([{ created_at: expect.any(String), expires_at: null }]);
    // Sealed at rest: the secret is nowhere in the database in the clear.
    const stored = await stack.database.db('webhook_secrets').where({ subscription_id: id });
    expect(JSON.stringify(stored)).not.toContain(created.body.secret.slice('whsec_'.length));

    const patched = await api('PATCH', `/v1/orch/webhooks/${id}`, { json: { events: ['*'], description: null } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['*'], description: null });

    const listed = await api('GET', '/v1/orch/webhooks?event=agent.registered&limit=100');
    expect(listed.body.data.map((row: { subscription_id: string }) => row.subscription_id)).toContain(id);

    expect((await api('DELETE', `/v1/orch/webhooks/${id}`)).status).toBe(204);
    expectProblem(await api('GET', `/v1/orch/webhooks/${id}`), 404, 'webhook_not_found');
    expect(await stack.database.db('webhook_secrets').where({ subscription_id: id })).toEqual([]);

    const records = await listProvenanceForSubject(stack.database.db, id);
    expect(records.map((record) => [record.entry.step_id, record.entry.action])).toEqual([
      ['v1:created', 'webhook_subscription_created'],
      ['v2:updated', 'webhook_subscription_updated'],
      ['v3:deleted', 'webhook_subscription_deleted'],
    ]);
    expect(JSON.stringify(records)).not.toContain(created.body.secret);
    expect(records[0]!.entry.output_data).toMatchObject({
      url_origin: new URL(receiver.url('/')).origin,
      url_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('answers a retried create with the same Idempotency-Key with the subscription, never the secret again', async () => {
    const body = { url: receiver.url('/idem'), events: ['routing.completed'] };
    const first = await api('POST', '/v1/orch/webhooks', {
      json: body,
      headers: { 'idempotency-key': 'create-idem-1' },
    });
    const again = await api('POST', '/v1/orch/webhooks', {
      json: body,
      headers: { 'idempotency-key': 'create-idem-1' },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ subscription_id: first.body.subscription_id, secret: null });
    const other = await api('POST', '/v1/orch/webhooks', {
      json: { ...body, events: ['audit.critical'] },
      headers: { 'idempotency-key': 'create-idem-1' },
    });
    expectProblem(other, 409, 'idempotency_key_reused');
  });

  it('refuses private and loopback URLs unless the allowlist admits them', async () => {
    const strict = await startExtraApp(stack, { config: { OUTBOUND_PRIVATE_ALLOWLIST: [] } });
    try {
      const strictApi = client(strict.baseUrl, await stack.token(['orch:admin']));
      for (const url of [
        receiver.url('/private'),
        'http://10.0.0.8/hook',
        'http://localhost:9/hook',
        'http://[::1]/hook',
      ]) {
        const refused = await strictApi('POST', '/v1/orch/webhooks', { json: { url, events: ['*'] } });
        expectProblem(refused, 422, 'destination_refused');
        expect(refused.body.errors).toEqual([
          { field: 'url', code: 'destination_refused', message: expect.stringContaining('private or loopback') },
        ]);
      }
      const existing = await subscribe('/private-ok', ['audit.critical']);
      expectProblem(
        await strictApi('PATCH', `/v1/orch/webhooks/${existing.subscription_id}`, {
          json: { url: 'http://192.168.1.10/hook' },
        }),
        422,
        'destination_refused',
      );
    } finally {
      await strict.close();
    }
  });

  it.each([
    ['an unknown event kind', { url: 'https://example.com/hook', events: ['routing.exploded'] }, 'events.0'],
    ['no events', { url: 'https://example.com/hook', events: [] }, 'events'],
    ['a non-http URL', { url: 'ftp://example.com/hook', events: ['*'] }, 'url'],
    ['a URL that is not absolute', { url: 'hooks.example.com/handoff', events: ['*'] }, 'url'],
    ['credentials in the URL', { url: 'https://user:pw@example.com/hook', events: ['*'] }, 'url'],
    ['an unknown field', { url: 'https://example.com/hook', events: ['*'], secret: 'mine' }, ''],
  ])('rejects %s with a field error', async (_name, body, field) => {
    const reply = await api('POST', '/v1/orch/webhooks', { json: body });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('is in the OpenAPI document, with every event kind and the Idempotency-Key semantics of create', async () => {
    const doc = (await api('GET', '/openapi.json')).body;
    const create = doc.paths['/v1/orch/webhooks'].post;
    expect(create).toMatchObject({ operationId: 'createWebhook', security: [{ bearerAuth: ['orch:admin'] }] });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['200', '201', '409', '422', '503']));
    expect(create.parameters).toEqual([
      expect.objectContaining({
        in: 'header',
        name: 'idempotency-key',
        description: expect.stringContaining('secret null'),
      }),
    ]);
    expect(doc.components.schemas.EventKind.enum).toEqual(
      expect.arrayContaining(['routing.escalated', 'audit.critical', 'webhook.endpoint_disabled']),
    );
    expect(doc.paths['/v1/orch/webhooks/{subscription_id}/deliveries/{delivery_id}/replay'].post.operationId).toBe(
      'replayWebhookDelivery',
    );
    expect(doc.paths['/v1/events'].get).toMatchObject({
      operationId: 'listEvents',
      security: [{ bearerAuth: ['platform:read'] }],
    });
  });

  it('needs orch:admin', async () => {
    const reader = client(stack.baseUrl, await stack.token(['orch:read', 'orch:write']));
    expectProblem(await reader('GET', '/v1/orch/webhooks'), 403, 'insufficient_scope');
    expectProblem(
      await reader('POST', '/v1/orch/webhooks', { json: { url: receiver.url('/x'), events: ['*'] } }),
      403,
      'insufficient_scope',
    );
  });
});

describe('webhook deliveries', () => {
  it('delivers a routing’s events, signed, to the kinds each endpoint subscribed to', async () => {
    const some = await subscribe('/routing-some', ['routing.decided', 'routing.escalated']);
    const taskId = `task-${randomUUID()}`;
    await subscribe('/routing-all', ['routing.decided', 'routing.escalated', 'escalation.triggered']);
    const routed = await api('POST', '/v1/orch/routing', {
      json: {
        task_id: taskId,
        task_type: 'medical_diagnosis',
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.62,
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      },
    });
    expect(routed.status).toBe(200);
    const routingId = routed.body.routing_id;
    const mine = (path: string) =>
      receiver
        .on(path)
        .filter((delivery) => delivery.body.data.task_id === routingId || delivery.body.data.routing_id === routingId);
    await receiver.waitFor(() => mine('/routing-some').length === 2 && mine('/routing-all').length === 3);

    const escalated = mine('/routing-all').find((delivery) => delivery.body.event === 'routing.escalated')!;
    expect(Object.keys(escalated.body).sort()).toEqual(['created_at', 'data', 'event', 'id']);
    expect(escalated.body).toMatchObject({
      id: expect.stringMatching(/^evt_/),
      event: 'routing.escalated',
      // The caller's own task id, and the routing's id beside it.
      data: {
        task_id: taskId,
        routing_id: routingId,
        reason: 'ai_confidence_below_threshold',
        assigned_human: routed.body.assigned_to.did,
      },
    });
    expect(new Date(escalated.body.created_at).toISOString()).toBe(escalated.body.created_at);
    expect(escalated.headers['x-svc-delivery-id']).toBe(escalated.body.id);
    expect(escalated.headers['x-svc-event']).toBe('routing.escalated');
    expect(escalated.headers['x-svc-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(
      [...mine('/routing-some'), ...mine('/routing-all')].every(
        (delivery) => delivery.verified && delivery.status === 200,
      ),
    ).toBe(true);
    expect(
      mine('/routing-some')
        .map((delivery) => delivery.body.event)
        .sort(),
    ).toEqual(['routing.decided', 'routing.escalated']);

    // The delivery log, and the event it delivered, with the provenance record it was appended with.
    const deliveries = await api('GET', `/v1/orch/webhooks/${some.subscription_id}/deliveries?limit=10`);
    expect(deliveries.body.data).toHaveLength(2);
    const { delivery_id } = deliveries.body.data.find(
      (delivery: { event: string }) => delivery.event === 'routing.decided',
    );
    const decided = await waitForDelivery(some.subscription_id, delivery_id, 'succeeded');
    expect(decided).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      failure_reason: null,
      replay_of: null,
    });
    // Bulk fan-out apart from the human-facing paths: its own task queue, fair per organization.
    const workflow = await stack.temporal.workflow.getHandle(decided.delivery_id).describe();
    expect(workflow.taskQueue).toBe(`${stack.taskQueue}-deliveries`);
    expect(workflow.raw.workflowExecutionInfo?.priority?.fairnessKey).toBe('org_default');
    const detail = await api('GET', `/v1/orch/webhooks/${some.subscription_id}/deliveries/${decided.delivery_id}`);
    expect(detail.body.attempt_log).toEqual([
      expect.objectContaining({
        attempt: 1,
        url: receiver.url('/routing-some'),
        status_code: 200,
        outcome: 'delivered',
        response_snippet: 'ok',
        error: null,
      }),
    ]);
    const event = await api('GET', `/v1/events/${decided.event_id}`);
    expect(event.body).toMatchObject({
      event: 'routing.decided',
      provenance: {
        subject_id: routingId,
        step_id: 'routing_decision',
        ledger_anchor: routed.body.provenance.ledger_anchor,
        url: `/v1/orch/provenance/${routingId}`,
      },
    });
  });

  it('retries a receiver that fails and then recovers, with the same X-Svc-Delivery-ID every time', async () => {
    const { subscription_id } = await subscribe('/flaky', ['audit.critical']);
    receiver.respond('/flaky', (delivery, count) =>
      count <= 2 ? { status: 500, body: 'down for maintenance' } : { status: delivery.verified ? 200 : 400 },
    );
    const [eventId] = await emitEvents(stack.database.db, [
      { event: 'audit.critical', data: { reason: 'flaky test' } },
    ]);
    await receiver.waitFor(() => receiver.on('/flaky').length === 3);

    expect(eventIdsOn('/flaky')).toEqual([eventId, eventId, eventId]);
    expect(receiver.on('/flaky').map((delivery) => [delivery.status, delivery.verified])).toEqual([
      [500, true],
      [500, true],
      [200, true],
    ]);
    const [delivery] = (await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries?event_id=${eventId!}`)).body
      .data;
    await waitForDelivery(subscription_id, delivery.delivery_id, 'succeeded');
    const detail = await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries/${delivery.delivery_id}`);
    expect(detail.body).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(
      detail.body.attempt_log.map((attempt: { outcome: string; status_code: number; response_snippet: string }) => [
        attempt.outcome,
        attempt.status_code,
        attempt.response_snippet,
      ]),
    ).toEqual([
      ['failed', 500, 'down for maintenance'],
      ['failed', 500, 'down for maintenance'],
      ['delivered', 200, ''],
    ]);
    // A success ends the endpoint's run of failures.
    expect((await api('GET', `/v1/orch/webhooks/${subscription_id}`)).body.failing_since).toBeNull();
  });

  it('honours Retry-After: the next attempt comes no sooner than the receiver asked', async () => {
    await subscribe('/busy', ['agent.registered']);
    receiver.respond('/busy', (_delivery, count) =>
      count === 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200 },
    );
    await emitEvents(stack.database.db, [{ event: 'agent.registered', data: { agent_id: 'urn:x:agent:busy:1' } }]);
    await receiver.waitFor(() => receiver.on('/busy').length === 2);
    const [first, second] = receiver.on('/busy');
    // The schedule says 1 s; the receiver asked for 3.
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(3000);
  });

  it('disables an endpoint that answers 410 Gone, and says so with a webhook.endpoint_disabled event', async () => {
    const gone = await subscribe('/gone', ['safety.violation']);
    await subscribe('/ops', ['webhook.endpoint_disabled']);
    const alive = await subscribe('/alive', ['safety.violation']);
    receiver.respond('/gone', () => ({ status: 410 }));
    await emitEvents(stack.database.db, [{ event: 'safety.violation', data: { n: 1 } }]);
    await receiver.waitFor(() =>
      receiver.on('/ops').some((delivery) => delivery.body.data.subscription_id === gone.subscription_id),
    );

    const notice = receiver.on('/ops').find((delivery) => delivery.body.data.subscription_id === gone.subscription_id)!;
    expect(notice.verified).toBe(true);
    expect(notice.body).toMatchObject({
      event: 'webhook.endpoint_disabled',
      data: { reason: 'endpoint_gone', last_status_code: 410 },
    });
    expect((await api('GET', `/v1/orch/webhooks/${gone.subscription_id}`)).body).toMatchObject({
      status: 'disabled',
      disabled_reason: 'endpoint_gone',
    });
    const recorded = await api('GET', `/v1/events/${notice.body.id}`);
    expect(recorded.body.provenance).toMatchObject({ subject_id: gone.subscription_id, step_id: 'v2:disabled' });

    // Nothing more goes to the disabled endpoint; the other endpoint for the same kind still receives.
    const [next] = await emitEvents(stack.database.db, [{ event: 'safety.violation', data: { n: 2 } }]);
    await receiver.waitFor(() => eventIdsOn('/alive').includes(next));
    expect(receiver.on('/gone')).toHaveLength(1);
    expectProblem(
      await api('POST', `/v1/orch/webhooks/${alive.subscription_id}/deliveries/whdel_nope/replay`),
      404,
      'webhook_delivery_not_found',
    );

    // Re-enabling is the owner's call.
    const enabled = await api('PATCH', `/v1/orch/webhooks/${gone.subscription_id}`, { json: { status: 'enabled' } });
    expect(enabled.body).toMatchObject({
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
    });
  });

  it('signs with both secrets during a rotation overlap, and with the new one alone after', async () => {
    const { subscription_id, secret: first } = await subscribe('/rotating', ['audit.provenance_logged']);
    const rotated = await api('POST', `/v1/orch/webhooks/${subscription_id}/rotate-secret`, {
      json: { overlap_seconds: 3600 },
    });
    expect(rotated.status).toBe(200);
    const second = rotated.body.secret as string;
    expect(second).not.toBe(first);
    expect(Date.parse(rotated.body.previous_secrets_expire_at) - Date.now()).toBeGreaterThan(3500_000);
    expect((await api('GET', `/v1/orch/webhooks/${subscription_id}`)).body.secrets).toHaveLength(2);

    // The receiver still holds the old secret: the delivery verifies, and would with the new one too.
    const [during] = await emitEvents(stack.database.db, [{ event: 'audit.provenance_logged', data: { n: 1 } }]);
    await receiver.waitFor(() => eventIdsOn('/rotating').includes(during));
    const overlap = receiver.on('/rotating').find((delivery) => delivery.body.id === during)!;
    expect(overlap).toMatchObject({ signatures: 2, verified: true, status: 200 });
    expect(verifySignature(overlap.headers['x-svc-signature'] as string, overlap.rawBody, second).ok).toBe(true);

    const ended = await api('POST', `/v1/orch/webhooks/${subscription_id}/rotate-secret`, {
      json: { overlap_seconds: 0 },
    });
    const third = ended.body.secret as string;
    receiver.knowSecret('/rotating', third);
    const [after] = await emitEvents(stack.database.db, [{ event: 'audit.provenance_logged', data: { n: 2 } }]);
    await receiver.waitFor(() => eventIdsOn('/rotating').includes(after));
    const single = receiver.on('/rotating').find((delivery) => delivery.body.id === after)!;
    expect(single).toMatchObject({ signatures: 1, verified: true });
    for (const old of [first, second])
      expect(verifySignature(single.headers['x-svc-signature'] as string, single.rawBody, old).ok).toBe(false);
  });

  it('replays a finished delivery as a new delivery of the same event, with the same X-Svc-Delivery-ID', async () => {
    const { subscription_id } = await subscribe('/replayed', ['routing.completed']);
    const [eventId] = await emitEvents(stack.database.db, [
      { event: 'routing.completed', data: { routing_id: 'rt_replay' } },
    ]);
    await receiver.waitFor(() => eventIdsOn('/replayed').includes(eventId));
    const [original] = (await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries?event_id=${eventId!}`)).body
      .data;
    await waitForDelivery(subscription_id, original.delivery_id, 'succeeded');

    const replay = await api('POST', `/v1/orch/webhooks/${subscription_id}/deliveries/${original.delivery_id}/replay`, {
      headers: { 'idempotency-key': 'replay-1' },
    });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({
      delivery_id: expect.stringMatching(/^whdel_/),
      replay_of: original.delivery_id,
      event_id: eventId,
      status: 'pending',
    });
    expect(replay.body.delivery_id).not.toBe(original.delivery_id);
    const repeated = await api(
      'POST',
      `/v1/orch/webhooks/${subscription_id}/deliveries/${original.delivery_id}/replay`,
      { headers: { 'idempotency-key': 'replay-1' } },
    );
    expect(repeated.body.delivery_id).toBe(replay.body.delivery_id);

    await waitForDelivery(subscription_id, replay.body.delivery_id, 'succeeded');
    const copies = receiver.on('/replayed').filter((delivery) => delivery.body.id === eventId);
    expect(copies).toHaveLength(2);
    expect(copies[1]!.rawBody).toBe(copies[0]!.rawBody);
    expect(copies.map((copy) => [copy.headers['x-svc-delivery-id'], copy.verified])).toEqual([
      [eventId, true],
      [eventId, true],
    ]);
    const listed = await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries?event_id=${eventId!}`);
    expect(listed.body.data.map((delivery: { delivery_id: string }) => delivery.delivery_id).sort()).toEqual(
      [original.delivery_id, replay.body.delivery_id].sort(),
    );
  });

  it('does not replay a delivery that is still retrying, and stops it when its subscription is deleted', async () => {
    const { subscription_id } = await subscribe('/down', ['escalation.triggered']);
    receiver.respond('/down', () => ({ status: 500 }));
    const [eventId] = await emitEvents(stack.database.db, [
      { event: 'escalation.triggered', data: { task_id: 'rt_down' } },
    ]);
    await receiver.waitFor(() => eventIdsOn('/down').includes(eventId));
    const [delivery] = (await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries?event_id=${eventId!}`)).body
      .data;
    await waitForDelivery(subscription_id, delivery.delivery_id, 'retrying');
    expectProblem(
      await api('POST', `/v1/orch/webhooks/${subscription_id}/deliveries/${delivery.delivery_id}/replay`),
      409,
      'webhook_delivery_in_progress',
    );

    expect((await api('DELETE', `/v1/orch/webhooks/${subscription_id}`)).status).toBe(204);
    const stopped = await waitForDelivery(subscription_id, delivery.delivery_id, 'cancelled');
    expect(stopped).toMatchObject({ failure_reason: 'subscription_deleted' });
  });
});

describe('the outbox dispatcher', () => {
  it('loses nothing and delivers nothing twice when it fails between starting deliveries and marking them dispatched', async () => {
    const { subscription_id } = await subscribe('/crash', ['audit.critical']);
    const db = stack.database.db;
    // The first marking fails, as a crash of the dispatcher after its workflow starts would leave things;
    // a sequence counts the tries, since it is not rolled back with the failed transaction.
    await db.raw('create sequence dispatch_marks');
    await db.raw(`
      create function fail_first_dispatch() returns trigger language plpgsql as $$
      begin
        if new.dispatched_at is not null and nextval('dispatch_marks') = 1 then
          raise exception 'simulated crash between dispatch and marking';
        end if;
        return new;
      end $$`);
    await db.raw(
      `create trigger fail_first_dispatch before update on outbox_events for each row execute function fail_first_dispatch()`,
    );
    try {
      const ids = await emitEvents(
        db,
        [1, 2, 3, 4, 5].map((n) => ({ event: 'audit.critical' as const, data: { n, reason: 'crash test' } })),
      );
      await waitUntil(
        async () => (await db('outbox_events').whereIn('event_id', ids).whereNotNull('dispatched_at')).length === 5,
      );
      const { rows } = await db.raw<{ rows: { last_value: number }[] }>('select last_value from dispatch_marks');
      // One failed marking, then the five rows marked by the retried pass.
      expect(rows[0]!.last_value).toBeGreaterThanOrEqual(6);
      await waitUntil(async () => {
        const page = await api('GET', `/v1/orch/webhooks/${subscription_id}/deliveries?status=succeeded&limit=100`);
        return page.body.data.length === 5;
      });
      expect(eventIdsOn('/crash').sort()).toEqual([...ids].sort());
    } finally {
      await db.raw('drop trigger fail_first_dispatch on outbox_events');
      await db.raw('drop function fail_first_dispatch()');
      await db.raw('drop sequence dispatch_marks');
    }
  });

  it('delivers the events committed while no worker ran once one starts again', async () => {
    await subscribe('/restart', ['routing.escalated']);
    await workflowWaiting(stack, outboxDispatcherId(stack.taskQueue));
    await stack.stopWorker();
    const ids = await emitEvents(stack.database.db, [
      { event: 'routing.escalated', data: { task_id: 'rt_restart', reason: 'test', assigned_human: 'did:x:ada' } },
    ]);
    await stack.startWorker();
    // The dispatcher's next task waits out the stopped worker's sticky queue before the new worker gets it.
    await receiver.waitFor(() => eventIdsOn('/restart').includes(ids[0]), 45_000);
    expect(eventIdsOn('/restart')).toEqual(ids);
  });
});

async function waitUntil(done: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the delivery as the API returns it
async function waitForDelivery(subscriptionId: string, deliveryId: string, status: string): Promise<any> {
  let last: unknown;
  await waitUntil(async () => {
    const reply = await api('GET', `/v1/orch/webhooks/${subscriptionId}/deliveries/${deliveryId}`);
    last = reply.body;
    return reply.status === 200 && reply.body.status === status;
  }).catch(() => {
    throw new Error(`delivery ${deliveryId} did not become ${status}: ${JSON.stringify(last)}`);
  });
  return last;
}
