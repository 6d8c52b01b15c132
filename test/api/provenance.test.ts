import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { appendProvenance } from '../../db/ledger';
import { ledgerSealingLag } from '../../db/ledger-blocks';
import { ledgerOrigin } from '../../app/config';
import { client, expectProblem, type CallResult } from '../support/http';
import { resolveAs } from '../support/people';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let api: ReturnType<typeof client>;
let verifierKey: string;
const scratch = mkdtempSync(path.join(tmpdir(), 'handoff-verify-'));

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.baseUrl, await stack.token());
  verifierKey = (await api('GET', '/v1/ledger/key')).body.verifier_key;
});
afterAll(async () => {
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const lowConfidenceDiagnosis = {
  task_type: 'medical_diagnosis',
  ai_agent_id: 'urn:acme:agent:diagnosis:7',
  ai_confidence: 0.62,
  ai_recommendation: 'order an MRI',
  required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
};

/** Runs `npm run verify` as a user would, offline, on a file written from what the API answered. */
function verifyOffline(name: string, content: string, extra: string[] = []) {
  const file = path.join(scratch, name);
  writeFileSync(file, content);
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', '..', 'scripts', 'verify.ts'), '--key', verifierKey, ...extra, file],
    { encoding: 'utf8' },
  );
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

async function eventually(
  request: () => Promise<CallResult>,
  done: (reply: CallResult) => boolean,
): Promise<CallResult> {
  for (let attempt = 0; ; attempt += 1) {
    const reply = await request();
    if (done(reply) || attempt > 150) return reply;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('GET /v1/orch/provenance/{routing_id}', () => {
  it('returns the decision chain with rules evaluated, anchors and accountability', async () => {
    const routed = await api('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    const id = routed.body.routing_id as string;
    await resolveAs(stack, id, 'did:web:handoff.local:reviewers:ada', { outcome: 'approved' });

    const { status, body } = await api('GET', `/v1/orch/provenance/${id}`);
    expect(status).toBe(200);
    // The spec's four decision moments, then the reviewer's resolution.
    expect(body.decision_chain.map((step: { action: string }) => step.action)).toEqual([
      'capability_assessed',
      'risk_evaluated',
      'context_analyzed',
      'routing_decided',
      'routing_resolved',
    ]);
    expect(body.decision_chain[3]).toMatchObject({
      step_id: 'routing_decision',
      actor: { type: 'orch_core', did: 'did:web:handoff.local:orch-core' },
      input_data: { task_type: 'medical_diagnosis', ai_confidence: 0.62 },
      output_data: { decision: 'escalate_to_human', reason: 'ai_confidence_below_threshold' },
      reasoning: expect.stringContaining('ai_confidence_below_threshold'),
    });
    expect(body.decision_chain[3].rules_evaluated).toEqual(
      expect.arrayContaining([{ rule_id: 'fourth_law', triggered: true, reason: 'ai_confidence_below_threshold' }]),
    );
    expect(body.decision_chain[4]).toMatchObject({
      actor: { type: 'human', did: 'did:web:handoff.local:reviewers:ada' },
      action: 'routing_resolved',
    });
    expect(body.ledger_anchors[3]).toMatchObject({
      step_id: 'routing_decision',
      ...routed.body.provenance.ledger_anchor,
    });
    expect(body.accountability).toEqual({
      primary_decision_maker: 'did:web:handoff.local:reviewers:ada',
      ai_support_provided: true,
      human_oversight_present: true,
      all_safety_checks_passed: false,
    });
    expect(body.proof_url).toBe(`/v1/orch/provenance/${id}/proof`);
  });

  it('is 404 for a routing with no records', async () => {
    expectProblem(
      await api('GET', '/v1/orch/provenance/rt_00000000-0000-0000-0000-000000000009'),
      404,
      'routing_not_found',
    );
  });
});

describe('proof bundles', () => {
  it('proves every step of a routing against one signed checkpoint, and `npm run verify` accepts it offline', async () => {
    const routed = await api('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    const id = routed.body.routing_id as string;
    await resolveAs(stack, id, 'did:web:handoff.local:reviewers:ada', { outcome: 'approved' });
    const { status, body } = await eventually(
      () => api('GET', `/v1/orch/provenance/${id}/proof`),
      (reply) => reply.status === 200,
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      format: 'handoff-ledger-inclusion/v1',
      verifier_key: verifierKey,
      tree_size: expect.any(Number),
    });
    expect(body.records.map((record: { step_id: string }) => record.step_id)).toEqual([
      'capability_assessment',
      'risk_evaluation',
      'context_analysis',
      'routing_decision',
      'resolution',
    ]);
    expect(body.records[3]).toMatchObject({
      transaction_id: routed.body.provenance.ledger_anchor.transaction_id,
      block_number: routed.body.provenance.ledger_anchor.block_number,
    });
    expect(JSON.parse(body.records[3].body)).toMatchObject({ subject_id: id, action: 'routing_decided' });

    const verified = verifyOffline('routing-bundle.json', JSON.stringify(body));
    expect(verified).toMatchObject({ status: 0, output: expect.stringContaining('VERIFIED') });

    const records = body.records as Array<{ body: string }>;
    const edited = {
      ...body,
      records: records.map((record, index) =>
        index === 3 ? { ...record, body: record.body.replace('"ai_confidence":0.62', '"ai_confidence":0.92') } : record,
      ),
    };
    expect(verifyOffline('edited-bundle.json', JSON.stringify(edited))).toMatchObject({
      status: 1,
      output: expect.stringContaining('does not lead to the checkpoint'),
    });
    const otherKey = {
      status: verifyOffline('routing-bundle.json', JSON.stringify(body), ['--key', 'someone.else/log+12345678+AQ=='])
        .status,
    };
    expect(otherKey.status).toBe(2);
  });

  it('answers 202 with Retry-After while a record’s block is unsealed, then the bundle', async () => {
    await stack.stopWorker();
    const anchor = await appendProvenance(stack.database.db, {
      entry: {
        subject_id: 'any-record',
        step_id: 'one',
        timestamp: new Date().toISOString(),
        actor: { type: 'ai_agent', agent_id: 'urn:acme:agent:x:1' },
        action: 'logged',
        input_data: {},
        output_data: {},
        reasoning: 'r',
      },
    });
    const pending = await api('GET', `/v1/ledger/records/${anchor.transaction_id}/proof`);
    expect(pending.status).toBe(202);
    expect(pending.headers.get('retry-after')).toBe('1');
    expect(pending.body).toEqual({
      status: 'pending',
      transaction_id: anchor.transaction_id,
      block_number: anchor.block_number,
      retry_after_seconds: 1,
    });

    await stack.startWorker();
    const proved = await eventually(
      () => api('GET', `/v1/ledger/records/${anchor.transaction_id}/proof`),
      (reply) => reply.status === 200,
    );
    expect(proved.body.records).toEqual([
      expect.objectContaining({ transaction_id: anchor.transaction_id, block_number: anchor.block_number }),
    ]);
    expect(verifyOffline('record-bundle.json', JSON.stringify(proved.body)).status).toBe(0);
  });

  it('proves against an older checkpoint on request, and refuses sizes that do not hold the record', async () => {
    const { tree_size } = await ledgerSealingLag(stack.database.db);
    const routed = await api('POST', '/v1/orch/routing', { json: { ai_confidence: 0.95 } });
    const tx = routed.body.provenance.ledger_anchor.transaction_id as string;
    const latest = await eventually(
      () => api('GET', `/v1/ledger/records/${tx}/proof`),
      (reply) => reply.status === 200,
    );
    expect((await api('GET', `/v1/ledger/records/${tx}/proof?tree_size=${latest.body.tree_size}`)).body.tree_size).toBe(
      latest.body.tree_size,
    );
    expectProblem(
      await api('GET', `/v1/ledger/records/${tx}/proof?tree_size=${tree_size}`),
      422,
      'ledger_proof_unavailable',
    );
    expectProblem(
      await api('GET', `/v1/ledger/records/${tx}/proof?tree_size=999999999`),
      404,
      'ledger_checkpoint_not_found',
    );
    expectProblem(await api('GET', `/v1/ledger/records/${'0'.repeat(64)}/proof`), 404, 'ledger_record_not_found');
    expectProblem(await api('GET', '/v1/ledger/records/not-a-transaction/proof'), 400, 'validation_failed');
  });

  it('needs orch:read for records’ proofs, which carry their bodies', async () => {
    const auditor = client(stack.baseUrl, await stack.token(['audit:read']));
    expectProblem(await auditor('GET', `/v1/ledger/records/${'0'.repeat(64)}/proof`), 403, 'insufficient_scope');
    expectProblem(
      await client(stack.baseUrl)('GET', `/v1/ledger/records/${'0'.repeat(64)}/proof`),
      401,
      'unauthorized',
    );
  });
});

describe('the public log', () => {
  it('publishes its origin and key, and its latest checkpoint, without credentials', async () => {
    const anonymous = client(stack.baseUrl);
    const key = await anonymous('GET', '/v1/ledger/key');
    expect(key.status).toBe(200);
    expect(key.body).toMatchObject({
      origin: ledgerOrigin(stack.config),
      algorithm: 'Ed25519',
      key_id: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    expect(key.body.verifier_key).toBe(
      `${key.body.origin}+${key.body.key_id}+${Buffer.concat([Buffer.from([1]), Buffer.from(key.body.public_key, 'base64')]).toString('base64')}`,
    );

    const checkpoint = await anonymous('GET', '/v1/ledger/checkpoint');
    expect(checkpoint.status).toBe(200);
    const origin = key.body.origin as string;
    expect(
      checkpoint.body.checkpoint.startsWith(
        `${origin}\n${checkpoint.body.tree_size}\n${checkpoint.body.root_hash}\n\n— ${origin} `,
      ),
    ).toBe(true);
  });

  it('proves a later checkpoint extends an earlier one', async () => {
    const first = (await api('GET', '/v1/ledger/checkpoint')).body;
    await api('POST', '/v1/orch/routing', { json: { ai_confidence: 0.91 } });
    const later = await eventually(
      () => api('GET', '/v1/ledger/checkpoint'),
      (reply) => reply.body.tree_size > first.tree_size,
    );
    const consistency = await client(stack.baseUrl)(
      'GET',
      `/v1/ledger/consistency?first=${first.tree_size}&second=${later.body.tree_size}`,
    );
    expect(consistency.status).toBe(200);
    expect(consistency.body).toMatchObject({
      first: { tree_size: first.tree_size, checkpoint: first.checkpoint },
      second: { tree_size: later.body.tree_size },
    });
    expect(verifyOffline('consistency.json', JSON.stringify(consistency.body))).toMatchObject({
      status: 0,
      output: expect.stringContaining('extends the tree'),
    });

    const forged = {
      ...consistency.body,
      proof: consistency.body.proof.map((hash: string, i: number) =>
        i === 0 ? Buffer.alloc(32, 1).toString('base64') : hash,
      ),
    };
    expect(verifyOffline('forged-consistency.json', JSON.stringify(forged)).status).toBe(1);
    expectProblem(
      await api('GET', `/v1/ledger/consistency?first=${later.body.tree_size + 1000}`),
      422,
      'ledger_proof_unavailable',
    );
  });
});

describe('GET /v1/ledger/export', () => {
  /** A decision record of these tests' own, sealed, so that they hold without the file's earlier tests. */
  let decisionTx: string;
  beforeAll(async () => {
    const routed = await api('POST', '/v1/orch/routing', { json: lowConfidenceDiagnosis });
    decisionTx = routed.body.provenance.ledger_anchor.transaction_id as string;
    expect(
      (
        await eventually(
          () => api('GET', `/v1/ledger/records/${decisionTx}/proof`),
          (reply) => reply.status === 200,
        )
      ).status,
    ).toBe(200);
  });

  it('streams the log for `npm run verify`, which finds a record edited behind the service’s back', async () => {
    const auditor = client(stack.baseUrl, await stack.token(['audit:read']));
    const kept = (await api('GET', '/v1/ledger/checkpoint')).body.checkpoint as string;
    writeFileSync(path.join(scratch, 'kept-checkpoint.txt'), kept);
    const exported = await auditor('GET', '/v1/ledger/export');
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ format: 'handoff-ledger-export/v1', verifier_key: verifierKey });
    expect(lines[lines.length - 1]).toMatchObject({ end: { tree_size: expect.any(Number) } });
    const clean = verifyOffline('export.ndjson', exported.text, [
      '--trusted-checkpoint',
      path.join(scratch, 'kept-checkpoint.txt'),
    ]);
    expect(clean).toMatchObject({ status: 0, output: expect.stringContaining('is a prefix of this log') });

    const leaf = lines.find((line) => line.leaf?.transaction_id === decisionTx)!.leaf as {
      transaction_id: string;
      body: string;
    };
    await stack.database.db.transaction(async (trx) => {
      await trx.raw('alter table ledger_entries disable trigger user');
      await trx('ledger_entries')
        .where({ transaction_id: leaf.transaction_id })
        .update({ body: leaf.body.replace('"reasoning":"', '"reasoning":"(edited) ') });
      await trx.raw('alter table ledger_entries enable trigger user');
    });
    const tampered = await auditor('GET', '/v1/ledger/export');
    const caught = verifyOffline('tampered.ndjson', tampered.text);
    expect(caught).toMatchObject({ status: 1, output: expect.stringContaining('a record was changed') });
    expect(verifyOffline('cut.ndjson', exported.text.split('\n').slice(0, -2).join('\n')).output).toContain(
      'cut short',
    );

    await stack.database.db.transaction(async (trx) => {
      await trx.raw('alter table ledger_entries disable trigger user');
      await trx('ledger_entries').where({ transaction_id: leaf.transaction_id }).update({ body: leaf.body });
      await trx.raw('alter table ledger_entries enable trigger user');
    });
  });

  it('gives another organization the same log with these records withheld, which verifies, and still shows an edit to one of them', async () => {
    const created = await client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'))(
      'POST',
      '/v1/organizations',
      { json: { org_did: 'did:web:gamma.example', name: 'Gamma' } },
    );
    expect(created.status).toBe(201);
    const outsider = client(
      stack.baseUrl,
      await stack.token(['audit:read'], 'gamma-auditor', created.body.organization_id as string),
    );
    const ours = (await client(stack.baseUrl, await stack.token(['audit:read']))('GET', '/v1/ledger/export')).text;
    const leaf = ours
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.leaf?.transaction_id === decisionTx)!.leaf as {
      index: number;
      transaction_id: string;
      body: string;
    };
    const exported = await outsider('GET', '/v1/ledger/export');
    expect(exported.status).toBe(200);
    const lines = exported.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({ organization_id: created.body.organization_id });
    expect(lines.find((line) => line.withheld_leaf?.index === leaf.index)).toBeDefined();
    expect(exported.text).not.toContain(leaf.transaction_id);
    expect(verifyOffline('withheld.ndjson', exported.text)).toMatchObject({
      status: 0,
      output: expect.stringMatching(/leaves \(\d+ of other organizations, withheld: checked by hash only\)/),
    });

    const forged = exported.text.replace(
      /"leaf_hash":"[^"]+"/,
      `"leaf_hash":"${Buffer.alloc(32, 7).toString('base64')}"`,
    );
    expect(verifyOffline('forged-withheld.ndjson', forged)).toMatchObject({
      status: 1,
      output: expect.stringContaining('a record was changed'),
    });
    const truncated = exported.text.replace(/"leaf_hash":"[^"]+"/, '"leaf_hash":"AAAA"');
    expect(verifyOffline('truncated-withheld.ndjson', truncated)).toMatchObject({
      status: 1,
      output: expect.stringContaining('has no SHA-256 leaf hash'),
    });
    await stack.database.db.transaction(async (trx) => {
      await trx.raw('alter table ledger_entries disable trigger user');
      await trx('ledger_entries')
        .where({ transaction_id: leaf.transaction_id })
        .update({ body: leaf.body.replace('{', '{"edited":true,') });
      await trx.raw('alter table ledger_entries enable trigger user');
    });
    try {
      expect(verifyOffline('edited-withheld.ndjson', (await outsider('GET', '/v1/ledger/export')).text)).toMatchObject({
        status: 1,
        output: expect.stringContaining('a record was changed'),
      });
    } finally {
      await stack.database.db.transaction(async (trx) => {
        await trx.raw('alter table ledger_entries disable trigger user');
        await trx('ledger_entries').where({ transaction_id: leaf.transaction_id }).update({ body: leaf.body });
        await trx.raw('alter table ledger_entries enable trigger user');
      });
    }
  });

  it('needs audit:read', async () => {
    expectProblem(
      await client(stack.baseUrl, await stack.token(['orch:read']))('GET', '/v1/ledger/export'),
      403,
      'insufficient_scope',
    );
  });
});

describe('the OpenAPI document', () => {
  it('documents the ledger, audit, compliance and platform provenance operations with their scopes', async () => {
    const doc = (await client(stack.baseUrl)('GET', '/openapi.json')).body;
    const operation = (path: string, method: string) => doc.paths[path][method];
    expect(operation('/v1/ledger/key', 'get')).not.toHaveProperty('security');
    expect(operation('/v1/ledger/records/{transaction_id}/proof', 'get')).toMatchObject({
      security: [{ bearerAuth: ['orch:read'] }],
      'x-rate-limit-category': 'provenance-queries',
    });
    expect(
      operation('/v1/orch/provenance/{routing_id}/proof', 'get').responses['202'].content['application/json'].schema,
    ).toEqual({ $ref: '#/components/schemas/ProofPending' });
    expect(operation('/v1/orch/audit', 'get')).toMatchObject({
      security: [{ bearerAuth: ['audit:read'] }],
      'x-rate-limit-category': 'audit-logs',
    });
    expect(doc.components.schemas.AuditEntryPage.description).toMatch(/cursor-pagination envelope/);
    expect(operation('/v1/orch/compliance/report', 'post')).toMatchObject({
      security: [{ bearerAuth: ['orch:admin'] }],
    });
    expect(operation('/v1/provenance/query', 'post')).toMatchObject({ security: [{ bearerAuth: ['platform:read'] }] });
    expect(operation('/v1/provenance/attestations', 'post')).toMatchObject({
      security: [{ bearerAuth: ['platform:write'] }],
    });
    expect(doc.components.schemas.InclusionBundle.properties.records.items.required).toEqual(
      expect.arrayContaining(['body', 'leaf_index', 'inclusion_proof']),
    );
    expect(
      doc.components.schemas.ComplianceReport.properties.compliance_status.properties.hipaa_compliant.description,
    ).toMatch(/human_oversight_high_risk/);
  });

  it('documents what the ledger operations take and give: first is required for a consistency proof, the export is JSON lines', async () => {
    const doc = (await client(stack.baseUrl)('GET', '/openapi.json')).body;
    expect(doc.paths['/v1/ledger/consistency'].get.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'first', in: 'query', required: true })]),
    );
    expectProblem(await client(stack.baseUrl)('GET', '/v1/ledger/consistency'), 400, 'validation_failed');
    expect(Object.keys(doc.paths['/v1/ledger/export'].get.responses['200'].content)).toEqual(['application/x-ndjson']);
  });
});
