import { call, client, expectProblem } from '../support/http';
import { startStack, type Stack } from '../support/stack';

let stack: Stack;
let admin: ReturnType<typeof client>;
let other: ReturnType<typeof client>;
let agentDid = '';

const uri = (name: string) => `capability://default/${name}`;
const define = (name: string, extra: Record<string, unknown> = {}) =>
  admin('POST', '/v1/capabilities', { json: { capabilityId: uri(name), name, description: `${name} work`, ...extra } });
const grant = (json: Record<string, unknown>) => admin('POST', '/v1/capability-grants', { json });
const match = (json: Record<string, unknown>) => admin('POST', '/v1/capabilities/match', { json });

beforeAll(async () => {
  stack = await startStack();
  admin = client(stack.baseUrl, await stack.token(['platform:admin', 'orch:admin']));
  const org = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:other.example', name: 'Other' },
  });
  other = client(stack.baseUrl, await stack.token(['platform:admin'], 'bob', org.body.organization_id as string));
  expect((await admin('POST', '/v1/passports', { json: { type: 'organization', name: 'Default' } })).status).toBe(201);
  const agent = await admin('POST', '/v1/passports', { json: { type: 'agent', name: 'Echo' } });
  agentDid = agent.body.data.did as string;
  for (const name of ['clinician', 'triage', 'billing']) expect((await define(name)).status).toBe(201);
  expect((await define('physician', { implies: [uri('clinician')] })).status).toBe(201);
  expect((await define('cardiology', { implies: ['capability://physician'], skills: ['skill://ecg'] })).status).toBe(
    201,
  );
});
afterAll(() => stack?.stop());

describe('definitions', () => {
  it('defines with the organization’s URI, lists, reads by URI, and refuses a second definition', async () => {
    const read = await admin('GET', `/v1/capabilities/${encodeURIComponent('capability://cardiology')}`);
    expect(read.body).toMatchObject({ capabilityId: uri('cardiology'), implies: ['physician'], status: 'proposed' });
    const page = await admin('GET', '/v1/capabilities?limit=2');
    // Five defined here, three by the seeded reviewers' capabilities (written through to grants).
    expect(page.body).toMatchObject({ has_more: true, total_count: 8 });
    expect(page.body.data.map((d: { capabilityId: string }) => d.capabilityId)).toEqual([
      uri('billing'),
      uri('cardiology'),
    ]);
    expectProblem(await define('triage'), 409, 'capability_exists');
    expectProblem(
      await admin('POST', '/v1/capabilities', {
        json: { capabilityId: 'capability://other/x', name: 'x', description: 'x' },
      }),
      400,
      'validation_failed',
    );
  });

  it('imports the valid entries and reports each invalid one by index, as batch routing does', async () => {
    const reply = await admin('POST', '/v1/capabilities/import', {
      json: {
        capabilityDefinitions: [
          { capabilityId: uri('radiology'), name: 'Radiology', description: 'Images', version: '1.0', skills: ['mri'] },
          { capabilityId: uri('radiology'), name: 'Again', description: 'Repeat' },
          { name: 'No id', description: 'x' },
          { capabilityId: uri('triage'), name: 'Triage', description: 'exists' },
        ],
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      status: 'partial',
      importedCount: 1,
      imported: [{ capabilityId: uri('radiology') }],
    });
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ index: 1, errors: [expect.objectContaining({ code: 'duplicate' })] }),
      expect.objectContaining({
        index: 2,
        errors: [expect.objectContaining({ field: 'capabilityId', code: 'REQUIRED_FIELD_MISSING' })],
      }),
      expect.objectContaining({ index: 3, errors: [expect.objectContaining({ code: 'capability_exists' })] }),
    ]);
  });

  it('promotes into a new version of the organization’s ontology package, with its skill ontology', async () => {
    expectProblem(
      await admin('POST', `/v1/capabilities/${encodeURIComponent(uri('cardiology'))}/promote`, { json: {} }),
      400,
      'validation_failed',
    );
    for (const name of ['physician', 'cardiology']) {
      const promoted = await admin('POST', `/v1/capabilities/${name}/promote`, {
        json: { reason: 'reviewed by the board' },
      });
      expect(promoted.status).toBe(200);
    }
    expectProblem(
      await admin('POST', '/v1/capabilities/cardiology/promote', { json: { reason: 'again' } }),
      409,
      'capability_already_promoted',
    );
    expect((await admin('GET', '/v1/ontology-packages')).body.data).toEqual([
      expect.objectContaining({ name: 'organization', latestVersion: 2, versions: 2 }),
    ]);
    const first = await admin('GET', '/v1/ontology-packages/organization/versions/1');
    expect(first.body.definitions.map((d: { capabilityId: string }) => d.capabilityId)).toEqual([uri('physician')]);
    const skills = await admin('GET', '/v1/ontology-packages/organization/skills');
    expect(skills.body.capabilities).toContainEqual({
      capabilityId: uri('cardiology'),
      skills: ['skill://ecg'],
      implies: [uri('physician'), uri('clinician')],
    });
    expectProblem(
      await admin('GET', '/v1/ontology-packages/organization/versions/9'),
      404,
      'ontology_package_not_found',
    );
  });
});

describe('grants and matching', () => {
  const ada = 'did:web:caps.test:people:ada';
  const bea = 'did:web:caps.test:people:bea';
  const cid = 'did:web:caps.test:people:cid';

  beforeAll(async () => {
    expect((await grant({ personDID: ada, capabilities: [uri('cardiology')], weight: 0.9 })).status).toBe(201);
    expect((await grant({ personDID: bea, capabilities: [uri('physician'), uri('triage')], weight: 0.7 })).status).toBe(
      201,
    );
    // Cid is an absent reviewer: their grant stands, and they never match.
    expect(
      (
        await admin('PUT', `/v1/orch/reviewers/${cid}`, {
          json: { display_name: 'Cid', capabilities: {}, available: false },
        })
      ).status,
    ).toBe(204);
    expect((await grant({ personDID: cid, capabilities: [uri('physician')], weight: 1 })).status).toBe(201);
    expect((await grant({ agentDID: agentDid, capabilities: [uri('triage')], weight: 0.8 })).status).toBe(201);
  });

  it('follows implications, ranks by weight, says why, and never matches an absent reviewer', async () => {
    const reply = await match({ requiredCapabilities: [{ capabilityId: uri('clinician'), minWeight: 0.5 }] });
    expect(reply.status).toBe(200);
    expect(reply.body.matches.map((m: { did: string }) => m.did)).toEqual([ada, bea]);
    expect(reply.body.matches[0]).toMatchObject({
      subjectType: 'person',
      score: 0.9,
      matched: [
        { capabilityId: uri('clinician'), weight: 0.9, via: [uri('cardiology'), uri('physician'), uri('clinician')] },
      ],
      reason: expect.stringContaining('cardiology at 0.9, which implies physician → clinician'),
    });
  });

  it('relaxes a required capability after its stated wait, and matches agents', async () => {
    const required = [uri('physician'), { capabilityId: uri('triage'), relaxAfterSeconds: 60 }];
    expect((await match({ requiredCapabilities: required })).body.matches.map((m: { did: string }) => m.did)).toEqual([
      bea,
    ]);
    const later = await match({ requiredCapabilities: required, taskContext: { waitedSeconds: 60 } });
    // Bea holds both (mean 0.7); Ada's relaxed triage counts 0 (mean 0.45).
    expect(later.body.matches.map((m: { did: string }) => m.did)).toEqual([bea, ada]);
    expect(later.body.matches[1].relaxed).toEqual([uri('triage')]);
    const agents = await match({ requiredCapabilities: [uri('triage')], taskContext: { subjectTypes: ['agent'] } });
    expect(agents.body.matches).toEqual([expect.objectContaining({ subjectType: 'agent', did: agentDid, score: 0.8 })]);
  });

  it('never matches an expired or revoked grant; revoking twice answers the first revocation', async () => {
    const dee = 'did:web:caps.test:people:dee';
    const granted = await grant({
      personDID: dee,
      capabilities: [uri('billing')],
      expiresAt: new Date(Date.now() + 1500).toISOString(),
    });
    expect(granted.body.data[0]).toMatchObject({
      subjectDid: dee,
      weight: 1,
      issuer: expect.stringMatching(/^did:web:/),
    });
    expect((await match({ requiredCapabilities: [uri('billing')] })).body.matches).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await match({ requiredCapabilities: [uri('billing')] })).body.matches).toEqual([]);
    expectProblem(
      await grant({ personDID: dee, capabilities: [uri('billing')], expiresAt: '2020-01-01T00:00:00Z' }),
      422,
      'grant_expiry_past',
    );

    const bea2 = await grant({ personDID: 'did:web:caps.test:people:eve', capabilities: [uri('billing')] });
    const grantId = bea2.body.data[0].grantId as string;
    expect((await admin('POST', `/v1/capability-grants/${grantId}/revoke`, { json: { reason: 'left' } })).status).toBe(
      201,
    );
    const again = await admin('POST', `/v1/capability-grants/${grantId}/revoke`, { json: {} });
    expect(again).toMatchObject({ status: 200, body: { revokeReason: 'left' } });
    expect((await match({ requiredCapabilities: [uri('billing')] })).body.matches).toEqual([]);
  });

  it('refuses a missing list with REQUIRED_FIELD_MISSING, and undefined capabilities in a grant', async () => {
    const reply = await match({ taskContext: {} });
    expectProblem(reply, 400, 'validation_failed');
    expect(reply.body.errors).toEqual([
      expect.objectContaining({ field: 'requiredCapabilities', code: 'REQUIRED_FIELD_MISSING' }),
    ]);
    expectProblem(await grant({ personDID: ada, capabilities: [uri('nothing')] }), 422, 'capability_not_defined');
    expectProblem(
      await grant({ agentDID: 'did:web:caps.test:agents:none', capabilities: [uri('triage')] }),
      422,
      'agent_passport_not_found',
    );
  });

  it('lists a Passport’s capabilities with what they imply', async () => {
    const passports = await stack.database.db('passports').where({ did: agentDid }).first('passport_id');
    const reply = await admin('GET', `/v1/passports/${passports.passport_id as string}/capabilities`);
    expect(reply.body).toMatchObject({
      did: agentDid,
      capabilities: [{ capabilityId: uri('triage'), weight: 0.8, impliedBy: null }],
    });
    const skills = await admin('POST', '/v1/skills/verify', {
      json: { subjectDid: ada, skills: ['skill://ecg', uri('clinician'), uri('billing')] },
    });
    expect(skills.body.skills.map((s: { verified: boolean }) => s.verified)).toEqual([true, true, false]);
  });
});

describe('courses and permissions', () => {
  it('records a completion a grant cites as evidence, and refuses evidence of another subject', async () => {
    const course = await admin('POST', '/v1/courses', {
      json: { title: 'Triage 101', description: 'Basics', capabilities: [uri('triage')] },
    });
    expect(course).toMatchObject({ status: 201, body: { title: 'Triage 101', capabilities: [uri('triage')] } });
    expect((await admin('GET', '/v1/courses')).body.data).toHaveLength(1);
    const fay = 'did:web:caps.test:people:fay';
    const done = await admin('POST', `/v1/courses/${course.body.courseId as string}/completions`, {
      json: { subjectDid: fay },
    });
    expect(done.status).toBe(201);
    const evidence = { courseCompletionId: done.body.completionId as string };
    const granted = await grant({ personDID: fay, capabilities: [uri('triage')], evidence });
    expect(granted.body.data[0].evidence).toEqual({ course_completion_id: evidence.courseCompletionId });
    expectProblem(
      await grant({ personDID: 'did:web:caps.test:people:gus', capabilities: [uri('triage')], evidence }),
      422,
      'evidence_mismatch',
    );
    expectProblem(
      await admin('POST', '/v1/courses', { json: { title: 'x', description: 'y', capabilities: [uri('nope')] } }),
      422,
      'capability_not_defined',
    );
  });

  it('shows each effective capability with its source', async () => {
    const reply = await admin('GET', '/v1/permissions');
    expect(reply.body.permissions).toContainEqual(
      expect.objectContaining({ capability: 'capabilities:grant', source: 'role', via: 'platform:admin' }),
    );
  });
});

describe('tenant isolation', () => {
  it('answers another organization’s definition, grant, course and Passport with 404, and matches none of its grants', async () => {
    expectProblem(await other('GET', `/v1/capabilities/triage`), 404, 'capability_not_found');
    expectProblem(
      await other('POST', `/v1/capabilities/triage/promote`, { json: { reason: 'x' } }),
      404,
      'capability_not_found',
    );
    const grants = await admin('GET', '/v1/capability-grants?limit=1');
    const grantId = grants.body.data[0].grantId as string;
    expectProblem(await other('GET', `/v1/capability-grants/${grantId}`), 404, 'capability_grant_not_found');
    expectProblem(
      await other('POST', `/v1/capability-grants/${grantId}/revoke`, { json: {} }),
      404,
      'capability_grant_not_found',
    );
    expect((await other('GET', '/v1/capability-grants')).body.data).toEqual([]);
    expect(
      (await other('POST', '/v1/capabilities/match', { json: { requiredCapabilities: ['triage'] } })).body.matches,
    ).toEqual([]);
    expectProblem(
      await other('POST', '/v1/capabilities/match', { json: { requiredCapabilities: [uri('triage')] } }),
      400,
      'validation_failed',
    );
    const course = (await admin('GET', '/v1/courses')).body.data[0].courseId as string;
    expectProblem(await other('GET', `/v1/courses/${course}`), 404, 'course_not_found');
    expectProblem(await other('GET', '/v1/ontology-packages/organization/skills'), 404, 'ontology_package_not_found');
  });
});
