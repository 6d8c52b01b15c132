import { randomUUID } from 'node:crypto';
import { parseVerifierKey } from '../../lib/signed-note';
import { verifyExport } from '../../services/ledger/verify-export';
import { call, expectProblem, type CallResult } from '../support/http';
import type { OpenApiDocument } from '../support/openapi-document';
import { eventually } from '../support/eventually';
import { plainConnector } from '../support/connectors';
import { signedInPerson } from '../support/identity';
import { startStack, type Stack } from '../support/stack';

/*
 * Tenant isolation, generated from the served OpenAPI document: every operation must be classified here,
 * either probed across tenants (organization B's caller aims at organization A's resources and must get
 * what an unknown id gets, or a list without them) or named as not tenant-scoped with the reason. A new
 * operation fails the test until it is classified.
 */
jest.setTimeout(300_000);

let stack: Stack;
let document: OpenApiDocument;
let tokenA: string;
let tokenB: string;
/** Organization A's resources, created through the API by A's caller. */
const a = {
  organization_b: '',
  installation_id: '',
  organization_connector_id: '',
  asset_id: '',
  cover_id: '',
  agent_id: '',
  agent_task_id: '',
  routing_id: '',
  rule_id: '',
  subscription_id: '',
  client_id: '',
  pat_id: '',
  event_id: '',
  capability_uri: '',
  grant_id: '',
  proof: '',
  proof_id: '',
  course_id: '',
  agent_did: '',
  platform_agent_id: '',
  platform_agent_uri: '',
  deployment_id: '',
  execution_id: '',
  workflow_id: '',
  task_id: '',
  callback_secret_id: '',
  record_hash: '',
  transaction_id: '',
  attestation_id: '',
  passport_id: '',
  kid: '',
  delegation_id: '',
  token_id: '',
  report_id: '',
  approval_id: '',
  prompt_key: '',
  call_id: '',
};
const CAPABILITY = 'capability://alpha/summarize';
const ADA_PASSPORT = 'did:web:tenancy.test:people:ada';

const REVIEWER = 'did:web:tenancy.test:reviewers:ada';
/** A reviewer DID both organizations register, each with a capacity of one: B filling its own leaves A's free. */
const LOADED_REVIEWER = 'did:web:tenancy.test:reviewers:loaded';
const LOAD_CAPABILITY = 'tenancy_load';
const SAFETY_DOMAIN = 'alpha-vault';
const ALPHA_THRESHOLDS = { low: 0.11, medium: 0.22, high: 0.33, critical: 0.44 };

const asA = (method: string, path: string, json?: unknown) =>
  call(stack.baseUrl, method, path, { token: tokenA, ...(json === undefined ? {} : { json }) });
const asB = (method: string, path: string, json?: unknown) =>
  call(stack.baseUrl, method, path, { token: tokenB, ...(json === undefined ? {} : { json }) });
/** A signed-in person of organization B: human acts need one, so their probes reach the tenant check. */
let personB = '';
const asPersonB = (method: string, path: string, json?: unknown) =>
  call(stack.baseUrl, method, path, { token: personB, ...(json === undefined ? {} : { json }) });

beforeAll(async () => {
  stack = await startStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
  tokenA = await stack.token(['orch:admin', 'audit:read', 'platform:admin'], 'alice');
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:beta.example', name: 'Beta' },
  });
  expect(created.status).toBe(201);
  a.organization_b = created.body.organization_id;
  tokenB = await stack.token(['orch:admin', 'audit:read', 'platform:admin'], 'bob', a.organization_b);

  expect(
    (await asA('PUT', `/v1/orch/reviewers/${REVIEWER}`, { display_name: 'Ada', capabilities: { general_review: 0.9 } }))
      .status,
  ).toBe(204);
  expect(
    (
      await asA('PUT', `/v1/orch/reviewers/${LOADED_REVIEWER}`, {
        display_name: 'Loaded at Alpha',
        capabilities: { [LOAD_CAPABILITY]: 0.9 },
        capacity: 1,
      })
    ).status,
  ).toBe(204);
  const agent = await asA('POST', '/v1/orch/agents/register', {
    agent_id: 'urn:alpha:agent:triage:1',
    agent_name: 'Triage',
    agent_type: 'triage',
  });
  expect(agent.status).toBe(201);
  a.agent_id = agent.body.agent_id;
  a.agent_task_id = `alpha-task-${randomUUID()}`;
  const agentTask = await call(stack.baseUrl, 'POST', '/v1/orch/route', {
    token: tokenA,
    headers: { 'x-agent-id': a.agent_id },
    json: { task_id: a.agent_task_id, task_type: 'summarize', ai_assessment: { confidence: 0.4 } },
  });
  expect(agentTask.status).toBe(200);
  const routing = await asA('POST', '/v1/orch/routing', {
    task_type: 'summarize',
    ai_agent_id: a.agent_id,
    ai_confidence: 0.4,
  });
  expect(routing.status).toBe(200);
  a.routing_id = routing.body.routing_id;
  const rule = await asA('POST', '/v1/orch/escalation/rules', {
    rule_name: 'Alpha shipments',
    conditions: [{ condition_type: 'task_type', operator: '==', value: 'alpha_shipment' }],
    actions: [{ action: 'notify_supervisor', notification_threshold: 'low' }],
    priority: 'medium',
  });
  expect(rule.status).toBe(201);
  a.rule_id = rule.body.rule_id;
  const webhook = await asA('POST', '/v1/orch/webhooks', {
    url: 'http://127.0.0.1:9/alpha',
    events: ['routing.decided'],
  });
  expect(webhook.status).toBe(201);
  a.subscription_id = webhook.body.subscription_id;
  const account = await asA('POST', '/v1/orch/service-accounts', { name: 'alpha-ci', scopes: ['orch:read'] });
  expect(account.status).toBe(201);
  a.client_id = account.body.client_id;
  const pat = await asA('POST', '/v1/auth/tokens', { name: 'alpha-reader', scopes: ['orch:read'] });
  expect(pat.status).toBe(201);
  a.pat_id = pat.body.token_id;
  // A's platform resources: an agent (whose endpoint refuses, so its execution retries), a call of it, a DAG
  // waiting on its approval (so A's workload is never empty), a task, a callback secret and an attestation.
  const platformAgent = await asA('POST', '/v1/agents', {
    agent_uri: 'agent://default/summarizer@1.0.0',
    endpoint_url: 'http://127.0.0.1:9/run',
    capabilities: [CAPABILITY],
  });
  expect(platformAgent.status).toBe(201);
  a.platform_agent_id = platformAgent.body.agent_id;
  a.platform_agent_uri = platformAgent.body.agent_uri;
  const deployment = await asA('POST', `/v1/agents/${a.platform_agent_id}/deployments`, {
    environment: 'production',
    version: '1.0.0',
    parameters: { tone: 'alpha' },
  });
  expect(deployment.status).toBe(201);
  a.deployment_id = deployment.body.deployment_id;
  expect(
    (await asA('PUT', `/v1/orch/safety/config/${SAFETY_DOMAIN}`, { risk_thresholds: ALPHA_THRESHOLDS, boundaries: [] }))
      .status,
  ).toBe(200);
  const execution = await asA('POST', '/v1/agents/call', {
    agentUri: a.platform_agent_uri,
    capabilityUri: CAPABILITY,
    passport: ADA_PASSPORT,
    parameters: { text: 'alpha' },
  });
  expect(execution.status).toBe(202);
  a.execution_id = execution.body.id;
  const dag = await asA('POST', '/v1/workflows', {
    name: 'alpha-approval',
    nodes: [
      {
        id: 'sign-off',
        node_type: 'approval',
        node_name: 'Sign off',
        input: {},
        visual_metadata: {},
        approval: { action_description: 'Alpha sign-off', approver_passport_id: ADA_PASSPORT },
      },
    ],
    edges: [],
  });
  expect(dag.status).toBe(201);
  a.workflow_id = dag.body.workflow_id;
  const task = await asA('POST', '/v1/tasks', {
    title: 'Alpha summary',
    task_type: 'summarize',
    required_capabilities: ['summarize'],
    ai_confidence: 0.93,
  });
  expect(task.status).toBe(201);
  a.task_id = task.body.task_id;
  const secret = await asA('POST', '/v1/callback-secrets');
  expect(secret.status).toBe(201);
  a.callback_secret_id = secret.body.id;
  const records = await asA('POST', '/v1/provenance/query', { query: a.routing_id });
  expect(records.body.data.length).toBeGreaterThan(0);
  a.record_hash = records.body.data[0].record_hash;
  a.transaction_id = records.body.data[0].ledger_anchor.transaction_id;
  const attestation = await asA('POST', '/v1/provenance/attestations', {
    agentId: a.agent_id,
    organizationId: 'org_default',
    recordHash: a.record_hash,
    timestamp: '2026-09-21T09:00:00Z',
  });
  expect(attestation.status).toBe(201);
  a.attestation_id = attestation.body.attestationId;
  const report = await asA('POST', '/v1/orch/compliance/report', {
    report_type: 'quarterly_regulatory',
    period: '2026-Q3',
    domains: [],
  });
  expect([201, 202]).toContain(report.status);
  a.report_id = report.body.report_id;
  const passport = await asA('POST', '/v1/passports', { type: 'agent', name: 'Alpha agent' });
  expect(passport.status).toBe(201);
  a.passport_id = passport.body.data.passportId;
  a.kid = passport.body.data.publicKeyJwk.kid;
  a.agent_did = passport.body.data.did;
  await setUpCapabilities();
  const person = await signedInPerson(stack);
  const delegation = await call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', {
    json: { subject_token: person.sessionToken },
  });
  expect(delegation.status).toBe(201);
  a.delegation_id = delegation.body.delegation_id;
  a.token_id = delegation.body.token_id;
  const approval = await asA('POST', '/v1/approvals', {
    requester_passport_id: ADA_PASSPORT,
    action_description: 'Alpha payment',
    request_data: { amount: 5 },
    alternatives: [],
  });
  expect(approval.status).toBe(201);
  a.approval_id = approval.body.id;
  personB = (await signedInPerson(stack, { organization_id: a.organization_b })).sessionToken;
  const cover = await asA('POST', '/v1/covers', {
    covered_did: ADA_PASSPORT,
    covering_did: 'did:web:tenancy.test:people:bea',
    ends_at: new Date(Date.now() + 86_400_000).toISOString(),
  });
  expect(cover.status).toBe(201);
  a.cover_id = cover.body.cover_id;
  // A connector of the deployment's catalog, installed by A (active at once: it has no OAuth).
  const operator = await stack.token(['cloud:admin:global'], 'operator');
  const connector = await call(stack.baseUrl, 'PUT', '/v1/marketplace/connectors/tenancy-mailer', {
    token: operator,
    json: plainConnector('Tenancy mailer'),
  });
  expect(connector.status).toBe(200);
  const installed = await asA('POST', '/v1/marketplace/connectors/tenancy-mailer/install', {
    deployment_mode: 'cloud',
    config: { workspace: 'alpha' },
    granted_permissions: [],
  });
  expect(installed.status).toBe(201);
  a.installation_id = installed.body.installation_id;
  const orgConnector = await asA('POST', '/v1/connectors', {
    orgId: 'org_default',
    connectorName: 'Alpha mailer',
    connectorType: 'marketplace',
    configuration: { installation_id: a.installation_id },
  });
  expect(orgConnector.status).toBe(201);
  a.organization_connector_id = orgConnector.body.connectorId;
  // An asset of A's, seen by all of A's members (org_internal): never by B, approved or not.
  const submitted = await asA('POST', '/v1/marketplace/assets', {
    name: 'Alpha tool',
    asset_type: 'agent',
    visibility: 'org_internal',
    manifest: { name: 'Alpha tool', version: '1.0.0' },
  });
  expect(submitted.status).toBe(201);
  a.asset_id = submitted.body.id;
  const prompt = await asA('POST', '/v1/prompts/alpha-brief/versions', {
    version: '1.0.0',
    content: 'Alpha brief',
    meta: {},
  });
  expect(prompt.status).toBe(201);
  a.prompt_key = 'alpha-brief';
  // A recorded reasoning call of A's, as /v1/reason leaves one (no provider runs in this test).
  a.call_id = `rsn_${randomUUID()}`;
  await stack.database.db('reasoning_calls').insert({
    call_id: a.call_id,
    organization_id: 'org_default',
    principal_id: 'sub:alice',
    task: 'general',
    complexity: 'simple',
    budget: 'optimize',
    prompt_hash: 'a'.repeat(64),
    success: true,
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: 0.001,
    duration_ms: 12,
    streamed: false,
    routing_decision: JSON.stringify({}),
  });
  const events = await asA('GET', '/v1/events?limit=1');
  expect(events.body.data).toHaveLength(1);
  a.event_id = events.body.data[0].id;
  // Every probe aims at a real id: one left empty would make its 404 prove nothing.
  expect(Object.entries(a).filter(([, value]) => typeof value !== 'string' || value === '')).toEqual([]);
  document = (await call(stack.baseUrl, 'GET', '/openapi.json')).body as OpenApiDocument;
});

afterAll(async () => {
  await stack?.stop();
});

/** A's capability graph: a promoted definition, a grant to its agent issued by that agent's Passport, a proof of it submitted, a course. */
async function setUpCapabilities(): Promise<void> {
  const defined = await asA('POST', '/v1/capabilities', {
    capabilityId: 'alpha_skill',
    name: 'Alpha',
    description: 'A',
  });
  a.capability_uri = defined.body.capabilityId;
  expect((await asA('POST', '/v1/capabilities/alpha_skill/promote', { reason: 'A' })).status).toBe(200);
  const granted = await asA('POST', '/v1/capability-grants', {
    agentDID: a.agent_did,
    capabilities: [a.capability_uri],
    issuerPassportId: a.passport_id,
  });
  a.grant_id = granted.body.data[0].grantId;
  a.proof = (await asA('POST', `/v1/capability-grants/${a.grant_id}/proofs`, { taskId: 't1' })).body.proof;
  const submitted = await asA('POST', '/v1/capability-proofs', {
    agentId: a.agent_did,
    skillId: a.capability_uri,
    proofDocument: a.proof,
  });
  a.proof_id = submitted.body.proofId;
  const course = await asA('POST', '/v1/courses', { title: 'A', description: 'A', capabilities: [a.capability_uri] });
  a.course_id = course.body.courseId;
}

const refused = (status: number) => (reply: CallResult) => expect(reply.status).toBe(status);

const notFound = (reply: CallResult) => {
  expect({ status: reply.status, body: reply.body as unknown }).toMatchObject({ status: 404, body: { status: 404 } });
};
/** An id of the same form as A's that names nothing. */
const unknownLike = (id: string) => `${id.slice(0, -8)}00000000`;
/** B's reply for A's id is the reply for an id that names nothing: the same status and problem type. */
const sameAsUnknown =
  (method: string, path: (id: string) => string, id: () => string, body?: unknown): Probe =>
  async () => {
    const [theirs, unknown] = [await asB(method, path(id()), body), await asB(method, path(unknownLike(id())), body)];
    const shape = (reply: CallResult) => ({
      status: reply.status,
      type: (reply.body as { type?: unknown } | undefined)?.type,
      is_revoked: (reply.body as { is_revoked?: unknown } | undefined)?.is_revoked,
    });
    expect(shape(theirs)).toEqual(shape(unknown));
    // Nothing was read or made of A's id either: a read, rotation or revocation would answer 200/201.
    expect([200, 201]).not.toContain(theirs.status);
  };
/** A list B sees does not hold A's item. */
const listWithout = (field: string, value: () => string) => (reply: CallResult) => {
  expect(reply.status).toBe(200);
  expect((reply.body.data as Array<Record<string, unknown>>).map((item) => item[field])).not.toContain(value());
};

type Probe = () => Promise<void>;
async function* linesOf(text: string): AsyncGenerator<string> {
  yield* text.split('\n');
}
const probe =
  (method: string, path: () => string, check: (reply: CallResult) => void, body?: unknown): Probe =>
  async () =>
    check(await asB(method, path(), body));

/** Operations B's caller aims at A's resources; keyed `METHOD path` as the document names them. */
const CROSS_TENANT: Record<string, Probe> = {
  'GET /v1/capabilities': probe(
    'GET',
    () => '/v1/capabilities',
    listWithout('capabilityId', () => a.capability_uri),
  ),
  // A capability URI with A's org segment is no capability of B's.
  'POST /v1/capabilities': probe('POST', () => '/v1/capabilities', refused(400), {
    capabilityId: 'capability://default/alpha_skill',
    name: 'x',
    description: 'x',
  }),
  'POST /v1/capabilities/import': async () =>
    expect(
      (
        await asB('POST', '/v1/capabilities/import', {
          capabilityDefinitions: [{ capabilityId: a.capability_uri, name: 'x', description: 'x' }],
        })
      ).body,
    ).toMatchObject({ status: 'failed', importedCount: 0 }),
  'POST /v1/capabilities/match': async () =>
    expect(
      (await asB('POST', '/v1/capabilities/match', { requiredCapabilities: ['alpha_skill'] })).body.matches,
    ).toEqual([]),
  'GET /v1/capabilities/{capability_id}': probe('GET', () => '/v1/capabilities/alpha_skill', notFound),
  'POST /v1/capabilities/{capability_id}/promote': probe(
    'POST',
    () => '/v1/capabilities/alpha_skill/promote',
    notFound,
    {
      reason: 'probe',
    },
  ),
  'GET /v1/capability-grants': probe(
    'GET',
    () => '/v1/capability-grants',
    listWithout('grantId', () => a.grant_id),
  ),
  'POST /v1/capability-grants': async () =>
    refused(422)(await asB('POST', '/v1/capability-grants', { agentDID: a.agent_did, capabilities: ['alpha_skill'] })),
  'GET /v1/capability-grants/{grant_id}': probe('GET', () => `/v1/capability-grants/${a.grant_id}`, notFound),
  'POST /v1/capability-grants/{grant_id}/revoke': probe(
    'POST',
    () => `/v1/capability-grants/${a.grant_id}/revoke`,
    notFound,
    {},
  ),
  'POST /v1/capability-grants/{grant_id}/proofs': probe(
    'POST',
    () => `/v1/capability-grants/${a.grant_id}/proofs`,
    notFound,
    {},
  ),
  'POST /v1/capability-proofs': async () =>
    notFound(
      await asB('POST', '/v1/capability-proofs', {
        agentId: a.agent_did,
        skillId: 'alpha_skill',
        proofDocument: a.proof,
      }),
    ),
  'GET /v1/capability-proofs/{proof_id}': probe('GET', () => `/v1/capability-proofs/${a.proof_id}`, notFound),
  'POST /v1/capability-proofs/verify': async () =>
    notFound(
      await asB('POST', '/v1/capability-proofs/verify', {
        agentDid: a.agent_did,
        capabilityProof: a.proof,
        taskId: 't1',
      }),
    ),
  'POST /v1/skills/verify': async () =>
    expect(
      (await asB('POST', '/v1/skills/verify', { subjectDid: a.agent_did, skills: ['alpha_skill'] })).body.skills[0]
        .verified,
    ).toBe(false),
  'GET /v1/passports/{passport_id}/capabilities': probe(
    'GET',
    () => `/v1/passports/${a.passport_id}/capabilities`,
    notFound,
  ),
  'GET /v1/ontology-packages': async () => expect((await asB('GET', '/v1/ontology-packages')).body.data).toEqual([]),
  'GET /v1/ontology-packages/{name}/versions/{version}': probe(
    'GET',
    () => '/v1/ontology-packages/organization/versions/1',
    notFound,
  ),
  'GET /v1/ontology-packages/{name}/skills': probe('GET', () => '/v1/ontology-packages/organization/skills', notFound),
  'GET /v1/courses': probe(
    'GET',
    () => '/v1/courses',
    listWithout('courseId', () => a.course_id),
  ),
  'POST /v1/courses': async () =>
    refused(422)(await asB('POST', '/v1/courses', { title: 'x', description: 'x', capabilities: [a.capability_uri] })),
  'GET /v1/courses/{course_id}': probe('GET', () => `/v1/courses/${a.course_id}`, notFound),
  'POST /v1/courses/{course_id}/completions': async () =>
    notFound(await asB('POST', `/v1/courses/${a.course_id}/completions`, { subjectDid: a.agent_did })),
  'GET /v1/prompts': probe(
    'GET',
    () => '/v1/prompts',
    (reply) => {
      expect(reply.status).toBe(200);
      expect(JSON.stringify(reply.body.data)).not.toContain(a.prompt_key);
    },
  ),
  'GET /v1/prompts/{key}': probe('GET', () => `/v1/prompts/${a.prompt_key}`, notFound),
  'GET /v1/prompts/{key}/versions': probe('GET', () => `/v1/prompts/${a.prompt_key}/versions`, notFound),
  'GET /v1/prompts/{key}/versions/{version}': probe(
    'GET',
    () => `/v1/prompts/${a.prompt_key}/versions/1.0.0`,
    notFound,
  ),
  'POST /v1/prompts/{key}/rollback': probe('POST', () => `/v1/prompts/${a.prompt_key}/rollback`, notFound, {
    target_version: '1.0.0',
  }),
  'POST /v1/prompts/{key}/versions/{version}/deprecate': probe(
    'POST',
    () => `/v1/prompts/${a.prompt_key}/versions/1.0.0/deprecate`,
    notFound,
    {},
  ),
  'GET /v1/prompts/{key}/statistics': probe('GET', () => `/v1/prompts/${a.prompt_key}/statistics`, notFound),
  'GET /v1/prompts/{key}/affinity': probe('GET', () => `/v1/prompts/${a.prompt_key}/affinity`, notFound),
  'POST /v1/reasoning-calls/{call_id}/signals': probe(
    'POST',
    () => `/v1/reasoning-calls/${a.call_id}/signals`,
    notFound,
    { signal: 'negative' },
  ),
  'GET /v1/approvals': probe(
    'GET',
    () => '/v1/approvals',
    listWithout('id', () => a.approval_id),
  ),
  'GET /v1/approvals/{approval_id}': probe('GET', () => `/v1/approvals/${a.approval_id}`, notFound),
  'GET /v1/inbox/items/{item_id}/signature': probe('GET', () => `/v1/inbox/items/${a.approval_id}/signature`, notFound),
  'POST /v1/approvals/{approval_id}/respond': async () =>
    notFound(await asPersonB('POST', `/v1/approvals/${a.approval_id}/respond`, { decision: 'approved' })),
  'POST /v1/approvals/{approval_id}/cancel': async () =>
    notFound(await asPersonB('POST', `/v1/approvals/${a.approval_id}/cancel`, { reason: 'probe' })),
  'GET /v1/escalations': probe(
    'GET',
    () => '/v1/escalations',
    listWithout('id', () => a.approval_id),
  ),
  'POST /v1/escalations/{approval_id}/respond': async () =>
    notFound(await asPersonB('POST', `/v1/escalations/${a.approval_id}/respond`, { decision: 'approve' })),
  'GET /v1/organizations': probe(
    'GET',
    () => '/v1/organizations',
    (reply) => {
      expect(reply.status).toBe(200);
      expect(reply.body.data.map((org: { organization_id: string }) => org.organization_id)).toEqual([
        a.organization_b,
      ]);
    },
  ),
  'GET /v1/organizations/{organization_id}': probe('GET', () => '/v1/organizations/org_default', notFound),
  'GET /v1/orch/routing/{routing_id}': probe('GET', () => `/v1/orch/routing/${a.routing_id}`, notFound),
  // Human acts: B's signed-in person, so that the refusal is the tenant's 404 and not 403 person_required.
  'POST /v1/orch/routing/{routing_id}/resolve': async () =>
    notFound(await asPersonB('POST', `/v1/orch/routing/${a.routing_id}/resolve`, { outcome: 'approved' })),
  'POST /v1/orch/routing/{routing_id}/feedback': async () =>
    notFound(
      await asPersonB('POST', `/v1/orch/routing/${a.routing_id}/feedback`, { verdict: 'flagged', reason: 'probe' }),
    ),
  'POST /v1/orch/routing/{routing_id}/assign': async () => {
    // B's own reviewer of the same DID (DIDs are unique per organization), so that only the routing is A's.
    expect(
      (
        await asB('PUT', `/v1/orch/reviewers/${REVIEWER}`, {
          display_name: 'Ada at Beta',
          capabilities: { general_review: 0.9 },
        })
      ).status,
    ).toBe(204);
    notFound(await asB('POST', `/v1/orch/routing/${a.routing_id}/assign`, { reviewer_did: REVIEWER, reason: 'probe' }));
  },
  // B's own agent reaches no task of A's agent, and B cannot speak for A's agent.
  'GET /v1/orch/route/{task_id}': async () => {
    expect(
      (
        await asB('POST', '/v1/orch/agents/register', {
          agent_id: 'urn:beta:agent:waiter:1',
          agent_name: 'Beta waiter',
          agent_type: 'triage',
        })
      ).status,
    ).toBe(201);
    const asAgent = (agentId: string, taskId: string) =>
      call(stack.baseUrl, 'GET', `/v1/orch/route/${taskId}?wait=1`, {
        token: tokenB,
        headers: { 'x-agent-id': agentId },
      });
    const [theirs, unknown] = [
      await asAgent('urn:beta:agent:waiter:1', a.agent_task_id),
      await asAgent('urn:beta:agent:waiter:1', unknownLike(a.agent_task_id)),
    ];
    expectProblem(theirs, 404, 'routing_not_found');
    expect(theirs.body.type).toBe(unknown.body.type);
    expectProblem(await asAgent(a.agent_id, a.agent_task_id), 403, 'agent_not_registered');
  },
  'GET /v1/orch/routing/history': probe(
    'GET',
    () => '/v1/orch/routing/history',
    listWithout('routing_id', () => a.routing_id),
  ),
  'POST /v1/orch/escalation/manual': async () =>
    notFound(
      await asPersonB('POST', '/v1/orch/escalation/manual', { routing_id: a.routing_id, escalation_reason: 'probe' }),
    ),
  'GET /v1/orch/provenance/{routing_id}': probe('GET', () => `/v1/orch/provenance/${a.routing_id}`, notFound),
  'GET /v1/orch/provenance/{routing_id}/proof': probe(
    'GET',
    () => `/v1/orch/provenance/${a.routing_id}/proof`,
    notFound,
  ),
  // B may hold a reviewer of the same DID (the assign probe makes one); A's, named Ada, never shows.
  'GET /v1/orch/reviewers': probe(
    'GET',
    () => '/v1/orch/reviewers',
    listWithout('display_name', () => 'Ada'),
  ),
  // The same DID in B is B's own reviewer: B's PUT changes nothing of A's, and B's routings fill B's capacity only.
  'PUT /v1/orch/reviewers/{did}': async () => {
    const loadOf = async (as: typeof asA) =>
      (
        (await as('GET', `/v1/orch/reviewers?capability=${LOAD_CAPABILITY}`)).body.data as Array<{
          did: string;
          display_name: string;
          capacity: number;
          open_assignments: number;
        }>
      ).map(({ did, display_name, capacity, open_assignments }) => ({ did, display_name, capacity, open_assignments }));
    const alpha = { did: LOADED_REVIEWER, display_name: 'Loaded at Alpha', capacity: 1 };
    expect(
      (
        await asB('PUT', `/v1/orch/reviewers/${LOADED_REVIEWER}`, {
          display_name: 'Loaded at Beta',
          capabilities: { [LOAD_CAPABILITY]: 0.9 },
          capacity: 1,
        })
      ).status,
    ).toBe(204);
    const needsLoaded = {
      task_type: 'summarize',
      ai_agent_id: 'urn:tenancy:agent:load:1',
      ai_confidence: 0.4,
      required_capabilities: [{ capability_id: LOAD_CAPABILITY, min_weight: 0.8 }],
    };
    const ofB = await asB('POST', '/v1/orch/routing', needsLoaded);
    expect(ofB.body.assigned_to).toMatchObject({ type: 'human', did: LOADED_REVIEWER });
    expect(await loadOf(asB)).toEqual([
      { did: LOADED_REVIEWER, display_name: 'Loaded at Beta', capacity: 1, open_assignments: 1 },
    ]);
    expect(await loadOf(asA)).toEqual([{ ...alpha, open_assignments: 0 }]);
    // A's reviewer still has room: A's routing is assigned to it, not queued for want of one.
    const ofA = await asA('POST', '/v1/orch/routing', needsLoaded);
    expect(ofA.body.assigned_to).toMatchObject({ type: 'human', did: LOADED_REVIEWER });
    expect(await loadOf(asA)).toEqual([{ ...alpha, open_assignments: 1 }]);
    expect(await loadOf(asB)).toEqual([
      { did: LOADED_REVIEWER, display_name: 'Loaded at Beta', capacity: 1, open_assignments: 1 },
    ]);
  },
  'GET /v1/orch/agents': probe(
    'GET',
    () => '/v1/orch/agents',
    listWithout('agent_id', () => a.agent_id),
  ),
  'GET /v1/orch/agents/{agent_id}': probe('GET', () => `/v1/orch/agents/${encodeURIComponent(a.agent_id)}`, notFound),
  'PATCH /v1/orch/agents/{agent_id}': probe(
    'PATCH',
    () => `/v1/orch/agents/${encodeURIComponent(a.agent_id)}`,
    notFound,
    { status: 'suspended' },
  ),
  'POST /v1/orch/agents/{agent_id}/api-key': probe(
    'POST',
    () => `/v1/orch/agents/${encodeURIComponent(a.agent_id)}/api-key`,
    notFound,
  ),
  'GET /v1/orch/agents/{agent_id}/performance': probe(
    'GET',
    () => `/v1/orch/agents/${encodeURIComponent(a.agent_id)}/performance`,
    notFound,
  ),
  'GET /v1/orch/escalation/rules': probe(
    'GET',
    () => '/v1/orch/escalation/rules',
    listWithout('rule_id', () => a.rule_id),
  ),
  'GET /v1/orch/escalation/rules/{rule_id}': probe('GET', () => `/v1/orch/escalation/rules/${a.rule_id}`, notFound),
  'PATCH /v1/orch/escalation/rules/{rule_id}': probe(
    'PATCH',
    () => `/v1/orch/escalation/rules/${a.rule_id}`,
    notFound,
    { description: 'probe' },
  ),
  'DELETE /v1/orch/escalation/rules/{rule_id}': probe(
    'DELETE',
    () => `/v1/orch/escalation/rules/${a.rule_id}`,
    notFound,
  ),
  'POST /v1/orch/escalation/rules/{rule_id}/enable': probe(
    'POST',
    () => `/v1/orch/escalation/rules/${a.rule_id}/enable`,
    notFound,
  ),
  'POST /v1/orch/escalation/rules/{rule_id}/disable': probe(
    'POST',
    () => `/v1/orch/escalation/rules/${a.rule_id}/disable`,
    notFound,
  ),
  'GET /v1/orch/webhooks': probe(
    'GET',
    () => '/v1/orch/webhooks',
    listWithout('subscription_id', () => a.subscription_id),
  ),
  'GET /v1/orch/webhooks/{subscription_id}': probe('GET', () => `/v1/orch/webhooks/${a.subscription_id}`, notFound),
  'PATCH /v1/orch/webhooks/{subscription_id}': probe(
    'PATCH',
    () => `/v1/orch/webhooks/${a.subscription_id}`,
    notFound,
    { description: 'probe' },
  ),
  'DELETE /v1/orch/webhooks/{subscription_id}': probe(
    'DELETE',
    () => `/v1/orch/webhooks/${a.subscription_id}`,
    notFound,
  ),
  'POST /v1/orch/webhooks/{subscription_id}/rotate-secret': probe(
    'POST',
    () => `/v1/orch/webhooks/${a.subscription_id}/rotate-secret`,
    notFound,
    { overlap_seconds: 0 },
  ),
  'GET /v1/orch/webhooks/{subscription_id}/deliveries': probe(
    'GET',
    () => `/v1/orch/webhooks/${a.subscription_id}/deliveries`,
    notFound,
  ),
  'GET /v1/orch/webhooks/{subscription_id}/deliveries/{delivery_id}': probe(
    'GET',
    () => `/v1/orch/webhooks/${a.subscription_id}/deliveries/whdel_probe`,
    notFound,
  ),
  'POST /v1/orch/webhooks/{subscription_id}/deliveries/{delivery_id}/replay': probe(
    'POST',
    () => `/v1/orch/webhooks/${a.subscription_id}/deliveries/whdel_probe/replay`,
    notFound,
  ),
  'GET /v1/orch/service-accounts': probe(
    'GET',
    () => '/v1/orch/service-accounts',
    listWithout('client_id', () => a.client_id),
  ),
  'DELETE /v1/orch/service-accounts/{client_id}': probe(
    'DELETE',
    () => `/v1/orch/service-accounts/${a.client_id}`,
    notFound,
  ),
  'GET /v1/auth/tokens': probe(
    'GET',
    () => '/v1/auth/tokens',
    listWithout('token_id', () => a.pat_id),
  ),
  'GET /v1/auth/tokens/{token_id}': probe('GET', () => `/v1/auth/tokens/${a.pat_id}`, notFound),
  'DELETE /v1/auth/tokens/{token_id}': probe('DELETE', () => `/v1/auth/tokens/${a.pat_id}`, notFound),
  'GET /v1/orch/audit': probe(
    'GET',
    () => '/v1/orch/audit',
    listWithout('routing_id', () => a.routing_id),
  ),
  'GET /v1/events/{event_id}': probe('GET', () => `/v1/events/${a.event_id}`, notFound),
  'GET /v1/agents': probe(
    'GET',
    () => '/v1/agents',
    listWithout('agent_id', () => a.platform_agent_id),
  ),
  'GET /v1/agents/{agent_id}': probe('GET', () => `/v1/agents/${a.platform_agent_id}`, notFound),
  // Agent URIs name their organization: B cannot take A's (nor A's agent id, derived from it); B's own URI is B's.
  'POST /v1/agents': async () => {
    const register = (agent_uri: string) =>
      asB('POST', '/v1/agents', { agent_uri, endpoint_url: 'http://127.0.0.1:9/run', capabilities: [CAPABILITY] });
    for (const uri of [
      a.platform_agent_uri,
      'agent://default/summarizer@2.0.0',
      'agent://org_default/summarizer@1.0.0',
    ])
      expectProblem(await register(uri), 403, 'agent_uri_foreign_organization');
    const own = await register(`agent://${a.organization_b}/summarizer@1.0.0`);
    expect(own.status).toBe(201);
    expect(own.body.agent_id).not.toBe(a.platform_agent_id);
    expect((await asB('GET', `/v1/agents/${own.body.agent_id}`)).body.deployments).toEqual([]);
  },
  'GET /v1/orch/safety/config': probe(
    'GET',
    () => `/v1/orch/safety/config?domain=${SAFETY_DOMAIN}`,
    (reply) => expectProblem(reply, 404, 'safety_domain_not_found'),
  ),
  'PUT /v1/orch/safety/config/{domain}': async () => {
    const thresholds = { low: 0.5, medium: 0.6, high: 0.7, critical: 0.8 };
    expect(
      (await asB('PUT', `/v1/orch/safety/config/${SAFETY_DOMAIN}`, { risk_thresholds: thresholds, boundaries: [] }))
        .body,
    ).toMatchObject({ risk_thresholds: thresholds });
    expect((await asA('GET', `/v1/orch/safety/config?domain=${SAFETY_DOMAIN}`)).body).toMatchObject({
      risk_thresholds: ALPHA_THRESHOLDS,
    });
  },
  'PATCH /v1/agents/{agent_id}': probe('PATCH', () => `/v1/agents/${a.platform_agent_id}`, notFound, {
    status: 'inactive',
  }),
  'POST /v1/agents/{agent_id}/deployments': probe(
    'POST',
    () => `/v1/agents/${a.platform_agent_id}/deployments`,
    notFound,
    { environment: 'production', version: '1.0.0', parameters: {} },
  ),
  'POST /v1/agents/call': async () =>
    expectProblem(
      await asB('POST', '/v1/agents/call', {
        agentUri: a.platform_agent_uri,
        capabilityUri: CAPABILITY,
        passport: ADA_PASSPORT,
        parameters: {},
      }),
      404,
      'agent_not_found',
    ),
  'POST /v1/agents/{agent_id}/call': probe('POST', () => `/v1/agents/${a.platform_agent_id}/call`, notFound, {
    task: 'summarize',
    parameters: {},
  }),
  'GET /v1/executions': probe(
    'GET',
    () => '/v1/executions',
    listWithout('id', () => a.execution_id),
  ),
  'GET /v1/executions/{execution_id}': probe('GET', () => `/v1/executions/${a.execution_id}`, notFound),
  'POST /v1/executions/{execution_id}/cancel': probe(
    'POST',
    () => `/v1/executions/${a.execution_id}/cancel`,
    notFound,
    { reason: 'probe' },
  ),
  'GET /v1/marketplace/installations': probe(
    'GET',
    () => '/v1/marketplace/installations',
    listWithout('installation_id', () => a.installation_id),
  ),
  'GET /v1/marketplace/installations/{installation_id}': probe(
    'GET',
    () => `/v1/marketplace/installations/${a.installation_id}`,
    notFound,
  ),
  'GET /v1/marketplace/installations/{installation_id}/reconnect-link': probe(
    'GET',
    () => `/v1/marketplace/installations/${a.installation_id}/reconnect-link`,
    notFound,
  ),
  'PATCH /v1/marketplace/installations/{installation_id}': probe(
    'PATCH',
    () => `/v1/marketplace/installations/${a.installation_id}`,
    notFound,
    { status: 'suspended' },
  ),
  'POST /v1/marketplace/installations/{installation_id}/invocations': probe(
    'POST',
    () => `/v1/marketplace/installations/${a.installation_id}/invocations`,
    notFound,
    { operation: 'probe', outcome: 'success', duration_ms: 1 },
  ),
  'GET /v1/marketplace/installations/{installation_id}/usage': probe(
    'GET',
    () => `/v1/marketplace/installations/${a.installation_id}/usage`,
    notFound,
  ),
  'GET /v1/connectors': probe(
    'GET',
    () => '/v1/connectors',
    listWithout('connectorId', () => a.organization_connector_id),
  ),
  'GET /v1/connectors/{connector_id}': probe('GET', () => `/v1/connectors/${a.organization_connector_id}`, notFound),
  // B names A's organization (404), or its own with A's installation behind the connector (422).
  'POST /v1/connectors': async () => {
    const body = {
      connectorName: 'x',
      connectorType: 'marketplace',
      configuration: { installation_id: a.installation_id },
    };
    expectProblem(
      await asB('POST', '/v1/connectors', { ...body, orgId: 'org_default' }),
      404,
      'organization_not_found',
    );
    expectProblem(
      await asB('POST', '/v1/connectors', { ...body, orgId: a.organization_b }),
      422,
      'installation_not_usable',
    );
  },
  'GET /v1/marketplace/assets': probe(
    'GET',
    () => '/v1/marketplace/assets',
    listWithout('id', () => a.asset_id),
  ),
  'GET /v1/marketplace/assets/{asset_id}': probe('GET', () => `/v1/marketplace/assets/${a.asset_id}`, notFound),
  // B cannot rate through A's installation: it is not one of B's organization.
  'POST /v1/marketplace/connectors/{connector_id}/ratings': async () => {
    const reply = await asB('POST', '/v1/marketplace/connectors/tenancy-mailer/ratings', {
      rating: 1,
      installation_id: a.installation_id,
    });
    expectProblem(reply, 403, 'installation_not_verified');
  },
  // B has no installation of the connector A installed: its uninstall finds none, and A's stays.
  'DELETE /v1/marketplace/connectors/{connector_id}/install': probe(
    'DELETE',
    () => '/v1/marketplace/connectors/tenancy-mailer/install',
    notFound,
  ),
  'GET /v1/covers': probe(
    'GET',
    () => '/v1/covers',
    listWithout('cover_id', () => a.cover_id),
  ),
  'GET /v1/covers/{cover_id}': probe('GET', () => `/v1/covers/${a.cover_id}`, notFound),
  'DELETE /v1/covers/{cover_id}': probe('DELETE', () => `/v1/covers/${a.cover_id}`, notFound),
  'GET /v1/callback-secrets': probe(
    'GET',
    () => '/v1/callback-secrets',
    listWithout('id', () => a.callback_secret_id),
  ),
  'GET /v1/workflows': probe(
    'GET',
    () => '/v1/workflows',
    listWithout('workflow_id', () => a.workflow_id),
  ),
  'GET /v1/workflows/{workflow_id}': probe('GET', () => `/v1/workflows/${a.workflow_id}`, notFound),
  'GET /v1/workflows/{workflow_id}/stats': probe('GET', () => `/v1/workflows/${a.workflow_id}/stats`, notFound),
  'GET /v1/workflows/{workflow_id}/provenance': probe(
    'GET',
    () => `/v1/workflows/${a.workflow_id}/provenance`,
    notFound,
  ),
  'GET /v1/tasks/{task_id}': probe('GET', () => `/v1/tasks/${a.task_id}`, notFound),
  'GET /v1/tasks/{task_id}/status': probe('GET', () => `/v1/tasks/${a.task_id}/status`, notFound),
  'POST /v1/provenance/query': probe(
    'POST',
    () => '/v1/provenance/query',
    (reply) => {
      expect(reply.status).toBe(200);
      expect(JSON.stringify(reply.body.data)).not.toContain(a.routing_id);
    },
    { query: '*' },
  ),
  // The log signs for B only about B: not A's record, not in A's name, not for A's agent.
  'POST /v1/provenance/attestations': async () => {
    expect(
      (
        await asB('POST', '/v1/orch/agents/register', {
          agent_id: 'urn:beta:agent:auditor:1',
          agent_name: 'Beta auditor',
          agent_type: 'audit',
        })
      ).status,
    ).toBe(201);
    const attest = (fields: Record<string, string>) =>
      asB('POST', '/v1/provenance/attestations', {
        agentId: 'urn:beta:agent:auditor:1',
        organizationId: a.organization_b,
        recordHash: a.record_hash,
        timestamp: '2026-09-21T09:00:00Z',
        ...fields,
      });
    expectProblem(await attest({}), 404, 'ledger_record_not_found');
    expectProblem(await attest({ organizationId: 'org_default' }), 403, 'attestation_organization_mismatch');
    for (const agentId of [a.agent_id, a.platform_agent_id, a.passport_id])
      expectProblem(await attest({ agentId }), 422, 'attestation_agent_not_found');
  },
  'GET /v1/provenance/attestations/{attestation_id}': probe(
    'GET',
    () => `/v1/provenance/attestations/${a.attestation_id}`,
    notFound,
  ),
  'GET /v1/ledger/records/{transaction_id}/proof': probe(
    'GET',
    () => `/v1/ledger/records/${a.transaction_id}/proof`,
    notFound,
  ),
  'GET /v1/ledger/export': async () => {
    // A's record is exported once its block is sealed.
    await eventually(
      () => asA('GET', `/v1/ledger/records/${a.transaction_id}/proof`),
      (reply) => reply.status === 200,
    );
    const verifier = parseVerifierKey((await asA('GET', '/v1/ledger/key')).body.verifier_key);
    const exportOf = async (as: typeof asA) => {
      const reply = await as('GET', '/v1/ledger/export');
      expect(reply.status).toBe(200);
      return {
        text: reply.text,
        lines: reply.text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Record<string, Record<string, unknown>>),
      };
    };
    const ofA = await exportOf(asA);
    const ofB = await exportOf(asB);
    const index = ofA.lines.find((line) => line.leaf?.transaction_id === a.transaction_id)!.leaf!.index;
    expect(ofB.lines[0]).toMatchObject({ organization_id: a.organization_b });
    expect(ofB.lines.find((line) => line.withheld_leaf?.index === index)).toEqual({
      withheld_leaf: {
        index,
        block_number: expect.any(Number),
        leaf_hash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/),
      },
    });
    for (const id of [a.transaction_id, a.routing_id]) expect(ofB.text).not.toContain(id);
    // Withheld or not, the leaves make the same signed trees.
    for (const { text } of [ofA, ofB]) expect(await verifyExport(linesOf(text), verifier)).toMatchObject({ ok: true });
  },
  'GET /v1/platform/status': async () => {
    // A's DAG waits on its approval: A's workload is not empty, B's is.
    expect((await asA('GET', '/v1/platform/status')).body.workload).toMatchObject({
      running_workflows: expect.any(Number),
    });
    expect((await asA('GET', '/v1/platform/status')).body.workload.running_workflows).toBeGreaterThan(0);
    expect((await asB('GET', '/v1/platform/status')).body.workload).toEqual({
      pending_approvals: 0,
      queued_executions: 0,
      processing_executions: 0,
      running_workflows: 0,
    });
  },
  'GET /v1/orch/compliance/reports/{report_id}': probe(
    'GET',
    () => `/v1/orch/compliance/reports/${a.report_id}`,
    notFound,
  ),
  'GET /v1/passports/{passport_id}': probe('GET', () => `/v1/passports/${a.passport_id}`, notFound),
  'GET /v1/passports/{passport_id}/jwks': probe('GET', () => `/v1/passports/${a.passport_id}/jwks`, notFound),
  'GET /v1/passports/{passport_id}/did': probe('GET', () => `/v1/passports/${a.passport_id}/did`, notFound),
  'GET /v1/passports/{passport_id}/attestations': probe(
    'GET',
    () => `/v1/passports/${a.passport_id}/attestations`,
    notFound,
  ),
  'GET /v1/passports/{passport_id}/attestations/{attestation_id}': probe(
    'GET',
    () => `/v1/passports/${a.passport_id}/attestations/att_probe`,
    notFound,
  ),
  'POST /v1/passports/{passport_id}/attestations': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/attestations`,
    notFound,
    { skill: 'probe' },
  ),
  'GET /v1/passports/{passport_id}/consents': probe('GET', () => `/v1/passports/${a.passport_id}/consents`, notFound),
  'POST /v1/passports/{passport_id}/consents': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/consents`,
    notFound,
    { consentTimestamp: '2026-11-01T09:30:00Z', description: 'probe' },
  ),
  'POST /v1/passports/{passport_id}/organization-links': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/organization-links`,
    notFound,
    { linkingCode: 'AAAA-AAAA-AAAA', email: 'probe@beta.example' },
  ),
  'POST /v1/passports/{passport_id}/organization-links/verify': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/organization-links/verify`,
    notFound,
    { verificationCode: '123456' },
  ),
  'POST /v1/passports/{passport_id}/delegations': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/delegations`,
    notFound,
    { delegateeDID: 'did:web:beta.example:agents:probe', capabilities: ['agents:read'] },
  ),
  'POST /v1/passports/{passport_id}/keys/rotate': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/keys/rotate`,
    notFound,
    { passphrase: 'probe' },
  ),
  'POST /v1/passports/{passport_id}/keys/{kid}/revoke': probe(
    'POST',
    () => `/v1/passports/${a.passport_id}/keys/${a.kid}/revoke`,
    notFound,
    { reason: 'probe' },
  ),
  ...recoveryProbes(),
  'GET /v1/delegation-tokens': probe(
    'GET',
    () => '/v1/delegation-tokens',
    listWithout('token_id', () => a.token_id),
  ),
  'GET /v1/delegation-tokens/by-delegation/{delegation_id}': sameAsUnknown(
    'GET',
    (id) => `/v1/delegation-tokens/by-delegation/${id}`,
    () => a.delegation_id,
  ),
  'GET /v1/delegation-tokens/{token_id}': sameAsUnknown(
    'GET',
    (id) => `/v1/delegation-tokens/${id}`,
    () => a.token_id,
  ),
  'POST /v1/delegation-tokens/{token_id}/rotate': sameAsUnknown(
    'POST',
    (id) => `/v1/delegation-tokens/${id}/rotate`,
    () => a.token_id,
    { reason: 'probe' },
  ),
  'POST /v1/delegation-tokens/{token_id}/revoke': sameAsUnknown(
    'POST',
    (id) => `/v1/delegation-tokens/${id}/revoke`,
    () => a.token_id,
    { reason: 'probe' },
  ),
  'GET /v1/delegations/{delegation_id}': sameAsUnknown(
    'GET',
    (id) => `/v1/delegations/${id}`,
    () => a.delegation_id,
  ),
  'GET /v1/delegations/{delegation_id}/revocation': sameAsUnknown(
    'GET',
    (id) => `/v1/delegations/${id}/revocation`,
    () => a.delegation_id,
  ),
  'POST /v1/delegations/{delegation_id}/revoke': sameAsUnknown(
    'POST',
    (id) => `/v1/delegations/${id}/revoke`,
    () => a.delegation_id,
    { reason: 'probe' },
  ),
  'GET /v1/delegations/revocations': probe(
    'GET',
    () => '/v1/delegations/revocations',
    listWithout('delegation_id', () => a.delegation_id),
  ),
  'GET /v1/events': probe(
    'GET',
    () => '/v1/events',
    (reply) => {
      expect(reply.status).toBe(200);
      expect(JSON.stringify(reply.body.data)).not.toContain(a.routing_id);
    },
  ),
};

/** Operations with nothing of one tenant to reach: public, the deployment's own, or acting only on what the caller names in its own organization. */
const NOT_TENANT_SCOPED: Record<string, string> = {
  'GET /v1/admin/health/organizations':
    'the deployment operator’s view of every organization (cloud:admin:global, cloud mode), across tenants by design',
  'PUT /v1/marketplace/connectors/{connector_id}':
    'the connector catalog is the deployment’s, registered by cloud:admin:global and shared by every organization',
  'POST /v1/marketplace/connectors/{connector_id}/install':
    'installs into the caller’s own organization; A’s installation is probed by the reads, the update and the uninstall above',
  'POST /v1/marketplace/assets':
    'submits into the caller’s own organization; A’s asset is probed by the list and the read above',
  'POST /v1/covers': 'sets a cover in the caller’s own organization; reading and ending A’s are probed above',
  'GET /v1/permissions':
    'the caller’s own permissions: its credential’s and its own Passport’s grants, within its organization',
  'GET /v1/models/{model_id}/statistics':
    'a shared model’s statistics, counted over the caller’s organization’s calls only (db/reasoning-calls.ts)',
  'GET /v1/models': 'the model registry is the deployment’s reference data, shared by every organization',
  'GET /v1/models/{model_id}': 'the model registry is the deployment’s reference data, shared by every organization',
  'POST /v1/models': 'deployment administration (cloud:admin:global): the shared model registry',
  'PATCH /v1/models/{model_id}': 'deployment administration (cloud:admin:global): the shared model registry',
  'POST /v1/models/benchmarks':
    'deployment administration (cloud:admin:global): benchmarks of the shared registry’s models',
  'POST /v1/reason':
    'calls a model for the caller; the call is recorded in the caller’s organization (its statistics are probed above)',
  'POST /v1/reason/stream':
    'calls a model for the caller; the call is recorded in the caller’s organization (its statistics are probed above)',
  'POST /v1/prompts/{key}/versions':
    'publishes in the caller’s organization: a key of another organization is another prompt (reads probed above)',
  'POST /v1/approvals': 'opens in the caller’s organization; reads and answers of it are probed above',
  'POST /v1/health/check': 'raises its escalation item in the caller’s organization; the queue is probed above',
  'POST /v1/organizations': 'deployment administration (cloud:admin:global): creates a new organization',
  'POST /v1/orch/service-accounts':
    'creates in the caller’s organization (service accounts are listed per organization, probed above)',
  'POST /v1/auth/tokens':
    'creates in the caller’s organization (personal access tokens are listed per organization, probed above)',
  'POST /v1/orch/routing': 'creates in the caller’s organization; reads of it are probed above',
  'POST /v1/orch/escalation/rules': 'creates in the caller’s organization; reads of it are probed above',
  'POST /v1/orch/escalation/rules/dry-run': 'measures against the caller’s organization’s history and rules only',
  'POST /v1/orch/agents/register':
    'creates in the caller’s organization; agent ids are global identifiers (a DID), so a taken one answers 409',
  'POST /v1/orch/webhooks': 'creates in the caller’s organization; reads of it are probed above',
  'POST /v1/orch/safety/check': 'judged by the caller’s organization’s configuration',
  'GET /v1/orch/boundaries': 'judged by the caller’s organization’s configuration for its own agent',
  'POST /v1/orch/route': 'an agent acts on its own tasks; the agent belongs to the key’s organization',
  'POST /v1/orch/batch-route': 'an agent acts on its own tasks',
  'POST /v1/orch/confidence': 'an agent acts on its own tasks',
  'POST /v1/orch/escalate': 'an agent acts on its own tasks',
  'POST /v1/orch/provenance': 'an agent acts on its own tasks',
  'POST /v1/workflows':
    'creates in the caller’s organization; its agent nodes find agents of that organization only (probed by the calls above)',
  'POST /v1/tasks':
    'creates in the caller’s organization, choosing among that organization’s agents; reads of it are probed above',
  'POST /v1/callback-secrets': 'creates the caller’s own secret; the list is probed above',
  'POST /v1/orch/compliance/report':
    'creates in the caller’s organization a report of that organization’s records only; reads of it are probed above',
  'POST /v1/passports': 'creates in the caller’s organization; reads of it are probed above',
  'POST /v1/passports/device-challenges':
    'a challenge for a person of the caller’s organization, minted there by the (public) device ceremony',
  'POST /v1/delegation-tokens': 'delegates the caller’s own authority to an agent of the caller’s organization',
  'POST /v1/webauthn/registration/options': 'enrolls a person in the admin’s own organization',
  'GET /v1/inbox/items':
    'the signed-in person’s own queue, read within their organization only (test/api/inbox.test.ts: another person sees none of it)',
  'GET /v1/inbox/events': 'the signed-in person’s own queue, live; the same read as GET /v1/inbox/items',
  'GET /v1/inbox/items/{item_id}': 'an item of the signed-in person’s own queue; any other id is 404',
  'POST /v1/inbox/decision-nonces': 'a nonce issued to the signed-in person themself',
  'POST /v1/inbox/items/{item_id}/decision':
    'decides an item of the signed-in person’s own queue only; any other id is 404',
  'POST /v1/webauthn/recovery/start':
    'finds the Passport by its DID within the caller’s organization only: another organization’s DID is passport_not_found, as POST …/recovery/requests (probed above)',
  'GET /v1/notification-policy': 'the caller’s own organization’s policy; no id in the path names another’s',
  'PUT /v1/notification-policy': 'the caller’s own organization’s policy; no id in the path names another’s',
  'POST /v1/employees':
    'invites into the caller’s organization; its linking code links Passports of that organization only',
  'GET /v1/employees':
    'lists the caller’s organization’s employees only (probed across organizations in test/api/organization-links.test.ts)',
  'GET /v1/employees/{employee_id}':
    'reads in the caller’s organization only: another’s employee is 404 (test/api/organization-links.test.ts)',
};

/** Guardian recovery, aimed at A's Passport: B's reply is the reply for a Passport that does not exist. */
function recoveryProbes(): Record<string, Probe> {
  const passport = () => a.passport_id;
  const base = (id: string) => `/v1/passports/${id}/recovery`;
  const key = { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) };
  const request = {
    recoveryContact: 'probe@example.test',
    reason: 'probe',
    newCredential: { deviceId: 'probe', publicKey: key },
  };
  const requestPath = (id: string) => `${base(id)}/requests/rcv_00000000-0000-4000-8000-000000000000`;
  const guardianPath = (id: string) => `${base(id)}/guardians/rgd_00000000-0000-4000-8000-000000000000`;
  return {
    'GET /v1/passports/{passport_id}/recovery/guardians': sameAsUnknown(
      'GET',
      (id) => `${base(id)}/guardians`,
      passport,
    ),
    'POST /v1/passports/{passport_id}/recovery/guardians': sameAsUnknown(
      'POST',
      (id) => `${base(id)}/guardians`,
      passport,
      {
        guardianId: 'did:web:tenancy.test:people:probe',
        recoveryMethod: 'email',
        contact: 'probe@example.test',
      },
    ),
    'DELETE /v1/passports/{passport_id}/recovery/guardians/{guardian_id}': sameAsUnknown(
      'DELETE',
      guardianPath,
      passport,
    ),
    'POST /v1/passports/{passport_id}/recovery/guardians/{guardian_id}/accept': sameAsUnknown(
      'POST',
      (id) => `${guardianPath(id)}/accept`,
      passport,
    ),
    'POST /v1/passports/{passport_id}/recovery/passkey-options': sameAsUnknown(
      'POST',
      (id) => `${base(id)}/passkey-options`,
      passport,
    ),
    'POST /v1/passports/{passport_id}/recovery/requests': sameAsUnknown(
      'POST',
      (id) => `${base(id)}/requests`,
      passport,
      request,
    ),
    'GET /v1/passports/{passport_id}/recovery/requests/{request_id}': sameAsUnknown('GET', requestPath, passport),
    'POST /v1/passports/{passport_id}/recovery/requests/{request_id}/approvals': sameAsUnknown(
      'POST',
      (id) => `${requestPath(id)}/approvals`,
      passport,
      {
        approvedBy: 'did:web:tenancy.test:people:probe',
        timestamp: new Date().toISOString(),
        nonce: 'n',
        newCredentialHash: 'h',
      },
    ),
    'POST /v1/passports/{passport_id}/recovery/requests/{request_id}/cancel': sameAsUnknown(
      'POST',
      (id) => `${requestPath(id)}/cancel`,
      passport,
    ),
    'POST /v1/passports/{passport_id}/recovery/requests/{request_id}/execute': sameAsUnknown(
      'POST',
      (id) => `${requestPath(id)}/execute`,
      passport,
      { confirmationCode: '12345678' },
    ),
  };
}

/** Operations not yet isolated, each with why; each moves to CROSS_TENANT when done. */
const NOT_YET_ISOLATED: Record<string, string> = {};

function operationsOfDocument(): Array<{ key: string; isPublic: boolean }> {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: `${method.toUpperCase()} ${path}`,
      // An operation without a security requirement needs no credentials: nothing of a tenant behind it.
      isPublic: !operation.security || operation.security.every((requirement) => Object.keys(requirement).length === 0),
    })),
  );
}

describe('tenant isolation, for every operation of the OpenAPI document', () => {
  it('classifies every operation exactly once', () => {
    const operations = operationsOfDocument();
    const classified = operations.map(({ key, isPublic }) => ({
      key,
      classes: [
        isPublic && 'public',
        key in CROSS_TENANT && 'cross-tenant',
        key in NOT_TENANT_SCOPED && 'not tenant-scoped',
        key in NOT_YET_ISOLATED && 'not yet isolated',
      ].filter(Boolean),
    }));
    expect(classified.filter((operation) => operation.classes.length !== 1)).toEqual([]);
    const known = new Set(operations.map((operation) => operation.key));
    expect(
      [...Object.keys(CROSS_TENANT), ...Object.keys(NOT_TENANT_SCOPED), ...Object.keys(NOT_YET_ISOLATED)].filter(
        (key) => !known.has(key),
      ),
    ).toEqual([]);
  });

  it.each(Object.keys(CROSS_TENANT))('%s: organization B never reaches organization A’s resource', async (key) => {
    await CROSS_TENANT[key]!();
  });

  it('leaves organization A’s resources as they were', async () => {
    expect((await asA('GET', `/v1/orch/routing/${a.routing_id}`)).status).toBe(200);
    expect(
      (
        await call(stack.baseUrl, 'GET', `/v1/orch/route/${a.agent_task_id}`, {
          token: tokenA,
          headers: { 'x-agent-id': a.agent_id },
        })
      ).status,
    ).toBe(200);
    expect((await asA('GET', `/v1/orch/agents/${encodeURIComponent(a.agent_id)}`)).body.status).toBe('active');
    expect((await asA('GET', `/v1/orch/escalation/rules/${a.rule_id}`)).body).toMatchObject({ enabled: true });
    expect((await asA('GET', `/v1/orch/webhooks/${a.subscription_id}`)).status).toBe(200);
    const accounts = await asA('GET', '/v1/orch/service-accounts');
    expect(
      accounts.body.data.find((account: { client_id: string }) => account.client_id === a.client_id),
    ).toMatchObject({ revoked_at: null });
    for (const path of [
      `/v1/agents/${a.platform_agent_id}`,
      `/v1/executions/${a.execution_id}`,
      `/v1/workflows/${a.workflow_id}`,
      `/v1/tasks/${a.task_id}`,
      `/v1/provenance/attestations/${a.attestation_id}`,
    ]) {
      expect({ path, status: (await asA('GET', path)).status }).toEqual({ path, status: 200 });
    }
    expect((await asA('GET', `/v1/agents/${a.platform_agent_id}`)).body).toMatchObject({ status: 'active' });
    expect((await asA('GET', `/v1/agents/${a.platform_agent_id}`)).body.deployments).toEqual([
      expect.objectContaining({
        deployment_id: a.deployment_id,
        version: '1.0.0',
        parameters: { tone: 'alpha' },
        deployed_by: 'sub:alice',
      }),
    ]);
    expect((await asA('GET', `/v1/executions/${a.execution_id}`)).body.status).not.toBe('cancelled');
    expect((await asA('GET', '/v1/callback-secrets')).body.data.map((secret: { id: string }) => secret.id)).toContain(
      a.callback_secret_id,
    );
    expect((await asA('GET', `/v1/passports/${a.passport_id}`)).status).toBe(200);
    expect((await asA('GET', `/v1/auth/tokens/${a.pat_id}`)).body).toMatchObject({ status: 'active' });
    expect([200, 202]).toContain((await asA('GET', `/v1/orch/compliance/reports/${a.report_id}`)).status);
    expect((await asA('GET', `/v1/delegations/${a.delegation_id}/revocation`)).body).toMatchObject({
      is_revoked: false,
    });
    expect((await asA('GET', `/v1/delegation-tokens/${a.token_id}`)).status).toBe(200);
    // B's answers, cancels and queue responses were refused: A's request is still waiting for A's approver.
    expect((await asA('GET', `/v1/approvals/${a.approval_id}`)).body).toMatchObject({ status: 'pending' });
    const proof = await asA('GET', `/v1/ledger/records/${a.transaction_id}/proof`);
    expect([200, 202]).toContain(proof.status);
  });
});
