import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compactVerify, importJWK } from 'jose';
import { appendProvenanceBatch } from '../../db/ledger';
import { ledgerSealingLag } from '../../db/ledger-blocks';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import type { ProvenanceEntry } from '../../domain/provenance/records';
import { client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

let platform: ReturnType<typeof client>;
let key: { verifier_key: string; public_key: string; origin: string };
/** An orchestration agent of the caller's organization: what an attestation names. */
const AUDITOR = 'urn:acme:agent:auditor:1';

const record = (subject_id: string, step_id: string, extra: Partial<ProvenanceEntry>): { entry: ProvenanceEntry } => ({
  entry: {
    subject_id,
    step_id,
    timestamp: '2026-09-01T10:00:00.000Z',
    actor: { type: 'ai_agent', agent_id: 'urn:acme:agent:claims:3' },
    action: 'claim_assessed',
    input_data: { claim: 'windscreen' },
    output_data: { payout: 420 },
    reasoning: 'The photos show a chipped windscreen',
    ...extra,
  },
});

const stack = useStack();
beforeAll(async () => {
  platform = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write']));
  key = (await client(stack.baseUrl)('GET', '/v1/ledger/key')).body;
  const orchAdmin = client(stack.baseUrl, await stack.token(['orch:admin']));
  expect(
    (
      await orchAdmin('POST', '/v1/orch/agents/register', {
        json: { agent_id: AUDITOR, agent_name: 'Auditor', agent_type: 'audit' },
      })
    ).status,
  ).toBe(201);
  await appendProvenanceBatch(stack.database.db, [
    record('claim-1', 'assess', {}),
    record('claim-1', 'review', {
      actor: { type: 'human', did: 'did:web:insurer.example:adjusters:maria' },
      action: 'claim_reviewed',
      reasoning: 'Payout approved after a call',
    }),
    record('claim-2', 'assess', {
      timestamp: '2026-09-20T10:00:00.000Z',
      input_data: { claim: 'bumper' },
      reasoning: 'A dented bumper',
    }),
  ]);
  while ((await ledgerSealingLag(stack.database.db)).unsealed_leaves > 0)
    await new Promise((resolve) => setTimeout(resolve, 50));
});

const query = (body: unknown) => platform('POST', '/v1/provenance/query', { json: body });

describe('POST /v1/provenance/query', () => {
  it('finds records by their words, newest first, with their hash, anchor and leaf', async () => {
    const { status, body } = await query({ query: 'windscreen' });
    expect(status).toBe(200);
    expect(body).toMatchObject({ total_count: 2, has_more: false, next_cursor: null });
    expect(body.data.map((r: { step_id: string }) => r.step_id)).toEqual(['review', 'assess']);
    expect(body.data[1]).toMatchObject({
      subject_id: 'claim-1',
      action: 'claim_assessed',
      actor: { type: 'ai_agent', agent_id: 'urn:acme:agent:claims:3' },
      input_data: { claim: 'windscreen' },
      record_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      ledger_anchor: { transaction_id: expect.stringMatching(/^[0-9a-f]{64}$/), block_number: expect.any(Number) },
      leaf_index: expect.any(Number),
      sealed: true,
    });
  });

  it('narrows by filters and finds one record by its subject, transaction id or hash', async () => {
    const ids = async (body: unknown) =>
      (await query(body)).body.data.map((r: { subject_id: string; step_id: string }) => `${r.subject_id}/${r.step_id}`);
    expect(await ids({ query: '*', filters: { actor_id: 'did:web:insurer.example:adjusters:maria' } })).toEqual([
      'claim-1/review',
    ]);
    expect(
      await ids({
        query: '*',
        filters: { actor_type: 'ai_agent', action: 'claim_assessed', from: '2026-09-10T00:00:00Z' },
      }),
    ).toEqual(['claim-2/assess']);
    expect(await ids({ query: 'claim-2' })).toEqual(['claim-2/assess']);
    const one = (await query({ query: 'bumper' })).body.data[0];
    expect(await ids({ query: one.transaction_id })).toEqual(['claim-2/assess']);
    expect(await ids({ query: one.record_hash })).toEqual(['claim-2/assess']);
    expect(await ids({ query: '*', filters: { subject_id: 'claim-1', sealed: false } })).toEqual([]);
  });

  it('pages with a cursor', async () => {
    const first = await query({ query: '*', filters: { subject_id: 'claim-1' }, limit: 1 });
    expect(first.body).toMatchObject({ has_more: true, total_count: 2 });
    const second = await query({
      query: '*',
      filters: { subject_id: 'claim-1' },
      limit: 1,
      cursor: first.body.next_cursor,
    });
    expect(second.body.data.map((r: { step_id: string }) => r.step_id)).toEqual(['assess']);
  });

  it.each([
    ['no query', { filters: {} }, 'query'],
    ['an unknown filter', { query: '*', filters: { colour: 'red' } }, 'filters'],
    ['a limit above 100', { query: '*', limit: 500 }, 'limit'],
    ['a malformed date', { query: '*', filters: { from: 'yesterday' } }, 'filters.from'],
  ])('rejects %s', async (_name, body, field) => {
    const reply = await query(body);
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });

  it('needs platform:read', async () => {
    expectProblem(
      await client(stack.baseUrl, await stack.token(['orch:read']))('POST', '/v1/provenance/query', {
        json: { query: '*' },
      }),
      403,
      'insufficient_scope',
    );
  });
});

describe('POST /v1/provenance/attestations', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'handoff-attest-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const verifyOffline = (document: unknown) => {
    const file = path.join(scratch, `${Math.random()}.json`);
    writeFileSync(file, JSON.stringify(document));
    return spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, '..', '..', 'scripts', 'verify.ts'), '--key', key.verifier_key, file],
      { encoding: 'utf8' },
    );
  };

  it('signs an attestation over a record’s leaf with the log’s key, which any JOSE library and `npm run verify` accept', async () => {
    const target = (await query({ query: 'bumper' })).body.data[0];
    const request = {
      agentId: AUDITOR,
      organizationId: DEFAULT_ORGANIZATION_ID,
      recordHash: target.record_hash,
      timestamp: '2026-09-21T09:00:00Z',
    };
    const created = await platform('POST', '/v1/provenance/attestations', { json: request });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      attestationId: expect.stringMatching(/^att_[0-9a-f]{32}$/),
      agentId: AUDITOR,
      organizationId: DEFAULT_ORGANIZATION_ID,
      recordHash: target.record_hash,
      timestamp: '2026-09-21T09:00:00.000Z',
      issuer: key.origin,
      record: {
        transaction_id: target.transaction_id,
        block_number: target.ledger_anchor.block_number,
        leaf_index: target.leaf_index,
      },
      ledger_anchor: { transaction_id: expect.any(String), block_number: expect.any(Number) },
    });
    expect(created.headers.get('location')).toBe(`/v1/provenance/attestations/${created.body.attestationId}`);

    const publicKey = await importJWK(
      { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(key.public_key, 'base64').toString('base64url') },
      'EdDSA',
    );
    const { payload, protectedHeader } = await compactVerify(created.body.signature, publicKey);
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'handoff-attestation+jws', kid: key.verifier_key });
    expect(JSON.parse(new TextDecoder().decode(payload))).toMatchObject({
      type: 'handoff-attestation/v1',
      record_hash: target.record_hash,
      agent_id: 'urn:acme:agent:auditor:1',
    });

    expect(verifyOffline(created.body)).toMatchObject({ status: 0, stdout: expect.stringContaining('VERIFIED') });
    expect(verifyOffline({ ...created.body, agentId: 'urn:acme:agent:impostor:1' })).toMatchObject({
      status: 1,
      stdout: expect.stringContaining('is not what was signed'),
    });

    const again = await platform('POST', '/v1/provenance/attestations', { json: request });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);
    expect((await platform('GET', `/v1/provenance/attestations/${created.body.attestationId}`)).body).toEqual(
      created.body,
    );
    // The attestation is itself in the log.
    expect((await query({ query: created.body.attestationId })).body.data).toEqual([
      expect.objectContaining({
        action: 'provenance_attested',
        transaction_id: created.body.ledger_anchor.transaction_id,
      }),
    ]);
  });

  it('is 404 for a hash no record has, and 400 for one that is not a hash', async () => {
    const body = {
      agentId: AUDITOR,
      organizationId: DEFAULT_ORGANIZATION_ID,
      recordHash: 'f'.repeat(64),
      timestamp: '2026-09-21T09:00:00Z',
    };
    expectProblem(
      await platform('POST', '/v1/provenance/attestations', { json: body }),
      404,
      'ledger_record_not_found',
    );
    expectProblem(
      await platform('POST', '/v1/provenance/attestations', { json: { ...body, recordHash: 'abc' } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await platform('GET', `/v1/provenance/attestations/att_${'0'.repeat(32)}`),
      404,
      'attestation_not_found',
    );
  });

  it('signs only for the caller’s organization and an agent of it, and stores nothing else', async () => {
    const target = (await query({ query: 'bumper' })).body.data[0];
    const request = {
      agentId: AUDITOR,
      organizationId: DEFAULT_ORGANIZATION_ID,
      recordHash: target.record_hash,
      timestamp: '2026-09-22T09:00:00Z',
    };
    const attestations = () => stack.database.db('ledger_attestations').count<{ count: string }[]>({ count: '*' });
    const before = await attestations();
    for (const organizationId of ['org_acme', `${DEFAULT_ORGANIZATION_ID} `]) {
      expectProblem(
        await platform('POST', '/v1/provenance/attestations', { json: { ...request, organizationId } }),
        403,
        'attestation_organization_mismatch',
      );
    }
    const person = await signedInPerson(stack);
    const operator = await stack.token(['cloud:admin:global'], 'operator');
    const other = await client(stack.baseUrl, operator)('POST', '/v1/organizations', {
      json: { org_did: 'did:web:other.example', name: 'Other' },
    });
    const otherAdmin = client(
      stack.baseUrl,
      await stack.token(['orch:admin'], 'other-admin', other.body.organization_id),
    );
    expect(
      (
        await otherAdmin('POST', '/v1/orch/agents/register', {
          json: { agent_id: 'urn:other:agent:auditor:1', agent_name: 'Other auditor', agent_type: 'audit' },
        })
      ).status,
    ).toBe(201);
    for (const agentId of ['urn:acme:agent:impostor:1', person.passport_id, person.did, 'urn:other:agent:auditor:1']) {
      expectProblem(
        await platform('POST', '/v1/provenance/attestations', { json: { ...request, agentId } }),
        422,
        'attestation_agent_not_found',
      );
    }
    expect(await attestations()).toEqual(before);

    const agentPassport = await platform('POST', '/v1/passports', { json: { type: 'agent', name: 'Attesting agent' } });
    expect(agentPassport.status).toBe(201);
    const byPassport = await platform('POST', '/v1/provenance/attestations', {
      json: { ...request, agentId: agentPassport.body.data.did },
    });
    expect(byPassport.status).toBe(201);
    expect(byPassport.body).toMatchObject({
      agentId: agentPassport.body.data.did,
      organizationId: DEFAULT_ORGANIZATION_ID,
    });
  });

  it('needs platform:write', async () => {
    const reader = client(stack.baseUrl, await stack.token(['platform:read']));
    expectProblem(
      await reader('POST', '/v1/provenance/attestations', {
        json: { agentId: 'a', organizationId: 'o', recordHash: 'f'.repeat(64), timestamp: '2026-09-21T09:00:00Z' },
      }),
      403,
      'insufficient_scope',
    );
  });
});
