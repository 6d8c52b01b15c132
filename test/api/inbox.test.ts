import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { client, expectProblem } from '../support/http';
import { passkeyPerson, signedDecision, type PasskeyPerson } from '../support/inbox-people';
import { useStack } from '../support/stack';

/*
 * The reviewer's inbox over HTTP: a person's own queue (routings escalated to them, requests naming them),
 * and decisions signed by their passkey that anyone can check offline with their DID document alone.
 */

const stack = useStack();
let reviews = 0;

/** A reviewer of its own capability, linked to the person, and a routing that needs a human of it. */
async function routingEscalatedTo(person: PasskeyPerson) {
  const orchAdmin = client(stack.baseUrl, await stack.token(['orch:admin']));
  const capability = `inbox_review_${String(++reviews)}`;
  const reviewerDid = `did:web:inbox.test:reviewers:${capability}`;
  const linked = await orchAdmin('PUT', `/v1/orch/reviewers/${reviewerDid}`, {
    json: {
      display_name: `Reviewer ${capability}`,
      capabilities: { [capability]: 0.9 },
      passport_id: person.passport_id,
    },
  });
  expect(linked.status).toBe(204);
  const routing = await orchAdmin('POST', '/v1/orch/routing', {
    json: {
      task_type: 'claim_review',
      ai_agent_id: 'urn:inbox:agent:claims',
      ai_confidence: 0.42,
      ai_recommendation: 'Pay the claim in full',
      context: { claim: 'CLM-7', amount: 900 },
      required_capabilities: [{ capability_id: capability, min_weight: 0.8 }],
    },
  });
  expect(routing.body.assigned_to).toMatchObject({ type: 'human', did: reviewerDid });
  return { routingId: routing.body.routing_id as string, reviewerDid };
}

describe('the inbox queue', () => {
  it('lists the routings escalated to the person and the requests naming them, and nobody else’s', async () => {
    const ada = await passkeyPerson(stack, 'Ada');
    const bea = await passkeyPerson(stack, 'Bea');
    const { routingId, reviewerDid } = await routingEscalatedTo(ada);
    const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
    const request = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Refund 40 EUR',
        risk_level: 'critical',
        request_data: { amount: 40 },
        expires_in_seconds: 600,
      },
    });
    const mine = await ada.as('GET', '/v1/inbox/items');
    expect(mine.status).toBe(200);
    const routing = mine.body.data.find((item: { item_id: string }) => item.item_id === routingId);
    expect(routing).toMatchObject({
      kind: 'routing',
      agent_id: 'urn:inbox:agent:claims',
      recommendation: 'Pay the claim in full',
      confidence: 0.42,
      context: { claim: 'CLM-7', amount: 900 },
      deadline_kind: 'escalates',
      escalation_chain: [expect.objectContaining({ did: reviewerDid, current: true })],
      decisions: ['approved', 'rejected', 'modified'],
    });
    expect(routing.risk_factors).toContainEqual(
      expect.objectContaining({ factor: expect.stringMatching(/Fourth Law/) }),
    );
    expect(mine.body.data).toContainEqual(
      expect.objectContaining({
        item_id: request.body.id,
        kind: 'approval',
        urgency: 'urgent',
        deadline_kind: 'expires',
      }),
    );
    const detail = await ada.as('GET', `/v1/inbox/items/${routingId}`);
    expect(detail.body.provenance).toContainEqual(expect.objectContaining({ action: 'routing_decided' }));

    const theirs = await bea.as('GET', '/v1/inbox/items');
    expect(theirs.body.data.map((item: { item_id: string }) => item.item_id)).not.toContain(routingId);
    expect(theirs.body.data.map((item: { item_id: string }) => item.item_id)).not.toContain(request.body.id);
    expectProblem(await bea.as('GET', `/v1/inbox/items/${routingId}`), 404, 'inbox_item_not_found');
    expectProblem(await admin('GET', '/v1/inbox/items'), 403, 'person_required');
  });

  it('streams the queue as it changes (server-sent events)', async () => {
    const ada = await passkeyPerson(stack, 'Ada');
    const response = await fetch(`${stack.baseUrl}/v1/inbox/events`, {
      headers: { authorization: `Bearer ${ada.session}` },
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${String(pattern)}`);
        text += value;
      }
    };
    await until(/event: queue\ndata: \{"data":\[\]\}/);
    const { routingId } = await routingEscalatedTo(ada);
    await until(new RegExp(`"item_id":"${routingId}"`));
    await reader.cancel();
  });
});

describe('decisions signed by the reviewer’s passkey', () => {
  it('resolves a routing with a modified recommendation, and the signature verifies offline with the DID document alone', async () => {
    const ada = await passkeyPerson(stack, 'Ada');
    const { routingId } = await routingEscalatedTo(ada);
    const body = {
      decision: 'modified',
      comment: 'Pay 600 EUR: the rest is not covered.',
      modified_parameters: { recommendation: 'Pay 600 EUR of the claim' },
    };
    const decided = await ada.as('POST', `/v1/inbox/items/${routingId}/decision`, {
      json: await signedDecision(stack, ada, routingId, body),
    });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ item_id: routingId, status: 'completed' });
    const orch = client(stack.baseUrl, await stack.token(['orch:read']));
    expect((await orch('GET', `/v1/orch/routing/${routingId}`)).body).toMatchObject({
      status: 'completed',
      resolution: { outcome: 'modified' },
    });

    const bundle = await ada.as('GET', `/v1/inbox/items/${routingId}/signature`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.did_document.verificationMethod).toContainEqual(
      expect.objectContaining({
        id: `${ada.did}#passkey-${ada.authenticator.id}`,
        publicKeyJwk: expect.objectContaining({ kty: 'EC', crv: 'P-256' }),
      }),
    );
    const record = JSON.parse(bundle.body.ledger_record.body as string);
    expect(record.output_data).toMatchObject({
      outcome: 'modified',
      modified_recommendation: 'Pay 600 EUR of the claim',
    });
    expect(record.actor.decision_signature).toEqual(decided.body.signature);
    // The DID document as did:web resolves it publishes the same passkey.
    const served = await fetch(`${stack.baseUrl}/passports/${ada.passport_id}/did.json`).then((reply) => reply.json());
    expect(served).toEqual(bundle.body.did_document);

    const dir = mkdtempSync(join(tmpdir(), 'decision-'));
    const file = join(dir, 'bundle.json');
    writeFileSync(file, JSON.stringify(bundle.body));
    const verify = (path: string) =>
      spawnSync('npx', ['tsx', 'scripts/verify.ts', path], { encoding: 'utf8', cwd: join(__dirname, '../..') });
    const verified = verify(file);
    expect(verified.stdout).toMatch(/VERIFIED/);
    expect(verified.status).toBe(0);
    // A comment edited afterwards no longer matches what the passkey signed.
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify({ ...bundle.body, comment: 'Pay in full.' }));
    expect(verify(tampered).status).toBe(1);
  });

  it('refuses a tampered comment, another passkey’s signature and a replayed nonce', async () => {
    const ada = await passkeyPerson(stack, 'Ada');
    const bea = await passkeyPerson(stack, 'Bea');
    const { routingId } = await routingEscalatedTo(ada);
    const body = { decision: 'approved', comment: 'Fine by me.' };
    const tampered = await signedDecision(stack, ada, routingId, { ...body, comment: 'Reject it.' }, { signed: body });
    expectProblem(
      await ada.as('POST', `/v1/inbox/items/${routingId}/decision`, { json: tampered }),
      403,
      'decision_signature_invalid',
    );
    const byBea = await signedDecision(stack, ada, routingId, body, { signer: bea.authenticator });
    expectProblem(
      await ada.as('POST', `/v1/inbox/items/${routingId}/decision`, { json: byBea }),
      403,
      'decision_signature_invalid',
    );

    // A nonce answers once: the same signed decision sent again, to another item, is refused.
    const other = await routingEscalatedTo(ada);
    const first = await signedDecision(stack, ada, other.routingId, { decision: 'rejected' });
    expect((await ada.as('POST', `/v1/inbox/items/${other.routingId}/decision`, { json: first })).status).toBe(200);
    const replay = await signedDecision(
      stack,
      ada,
      routingId,
      { decision: 'rejected' },
      { nonce: first.signature.nonce },
    );
    expectProblem(
      await ada.as('POST', `/v1/inbox/items/${routingId}/decision`, { json: replay }),
      409,
      'decision_nonce_invalid',
    );
    const orch = client(stack.baseUrl, await stack.token(['orch:read']));
    expect((await orch('GET', `/v1/orch/routing/${routingId}`)).body.status).toBe('in_progress');
  });

  it('checks modified parameters against the request’s params_schema, by field, before it asks for a signature', async () => {
    const ada = await passkeyPerson(stack, 'Ada');
    const admin = client(stack.baseUrl, await stack.token(['platform:admin']));
    const created = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Refund order 88',
        request_data: { amount: 120, currency: 'EUR' },
        params_schema: {
          type: 'object',
          properties: { amount: { type: 'number', maximum: 100 }, currency: { type: 'string' } },
          required: ['amount'],
        },
        expires_in_seconds: 600,
      },
    });
    const id = created.body.id as string;
    const wrong = await signedDecision(stack, ada, id, { decision: 'approved', modified_parameters: { amount: 500 } });
    const refused = await ada.as('POST', `/v1/inbox/items/${id}/decision`, { json: wrong });
    expectProblem(refused, 400, 'validation_failed');
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ field: 'modified_parameters.amount' }));
    const right = await signedDecision(stack, ada, id, { decision: 'approved', modified_parameters: { amount: 90 } });
    expect((await ada.as('POST', `/v1/inbox/items/${id}/decision`, { json: right })).status).toBe(200);
    expect((await admin('GET', `/v1/approvals/${id}`)).body).toMatchObject({
      status: 'approved',
      modified_params: { amount: 90 },
      responded_by: ada.did,
    });
  });
});
