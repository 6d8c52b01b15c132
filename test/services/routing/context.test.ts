import { DEFAULT_ORGANIZATION_ID } from '../../../domain/common/organizations';
import type { RoutingTask } from '../../../domain/routing/decision';
import { loadRoutingContext } from '../../../services/routing/context';
import { createTestDatabase, type TestDatabase } from '../../support/database';

const OTHER_ORG = 'org_other';
const AGENT = 'agt_context';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const { db } = database;
  const now = new Date();
  await db('organizations').insert({
    organization_id: OTHER_ORG,
    org_did: 'did:web:other.example',
    name: 'Other',
    deployment_mode: 'cloud',
    autonomy_profile: 'conservative',
    data_residency_tier: 'global',
    created_at: now,
    updated_at: now,
  });
  await db('agents').insert({
    agent_id: AGENT,
    did: 'did:web:agents.example:context',
    agent_name: 'Context',
    agent_type: 'assistant',
    status: 'active',
    api_key_hash: 'hash-context',
    registered_by: 'test',
    organization_id: DEFAULT_ORGANIZATION_ID,
  });
  const domain = (organization_id: string, name: string, task_types: string[]) => ({
    organization_id,
    domain: name,
    boundaries: JSON.stringify([]),
    risk_thresholds: JSON.stringify({ low: 0.7, medium: 0.85, high: 0.95 }),
    task_types,
    updated_by: 'test',
  });
  // The migrations seed domains of their own; this file's are the only ones it reads.
  await db('safety_domains').delete();
  await db('safety_domains').insert([
    domain(DEFAULT_ORGANIZATION_ID, 'general', []),
    domain(DEFAULT_ORGANIZATION_ID, 'logistics', ['shipment']),
    domain(OTHER_ORG, 'logistics', ['shipment']),
  ]);
  const rule = (
    rule_id: string,
    scope: { task_types?: string[]; domains?: string[] },
    extra: { enabled?: boolean; organization_id?: string } = {},
  ) => ({
    rule_id,
    rule_name: rule_id,
    conditions: JSON.stringify([{ condition_type: 'amount', operator: '>=', value: 1 }]),
    actions: JSON.stringify([{ action: 'notify_supervisor', notification_threshold: 'urgent' }]),
    priority: 'medium',
    enabled: extra.enabled ?? true,
    scope_task_types: scope.task_types ?? null,
    scope_domains: scope.domains ?? null,
    trigger_rate: JSON.stringify({}),
    created_by: 'test',
    organization_id: extra.organization_id ?? DEFAULT_ORGANIZATION_ID,
  });
  await db('escalation_rules').insert([
    rule('r1_everywhere', {}),
    rule('r2_logistics_shipments', { task_types: ['shipment'], domains: ['logistics'] }),
    rule('r3_healthcare', { domains: ['healthcare'] }),
    rule('r4_other_task_type', { task_types: ['diagnosis'] }),
    rule('r5_disabled', {}, { enabled: false }),
    rule('r6_other_org', {}, { organization_id: OTHER_ORG }),
  ]);
  const reviewer = (
    organization_id: string,
    did: string,
    capabilities: Record<string, number>,
    extra: { chain_level?: number; available?: boolean; capacity?: number } = {},
  ) => ({
    organization_id,
    did,
    display_name: did,
    capabilities: JSON.stringify(capabilities),
    chain_level: extra.chain_level ?? 1,
    available: extra.available ?? true,
    capacity: extra.capacity ?? null,
  });
  await db('reviewers').insert([
    reviewer(
      DEFAULT_ORGANIZATION_ID,
      'did:rev:b',
      { general_review: 0.9, financial_approval: 0.8 },
      { chain_level: 2 },
    ),
    reviewer(DEFAULT_ORGANIZATION_ID, 'did:rev:a', { general_review: 0.7 }, { capacity: 3 }),
    reviewer(DEFAULT_ORGANIZATION_ID, 'did:rev:away', { general_review: 0.9 }, { available: false }),
    reviewer(DEFAULT_ORGANIZATION_ID, 'did:rev:legal', { legal_review: 0.9 }),
    reviewer(OTHER_ORG, 'did:rev:other', { general_review: 0.9 }),
    // The same DID in another organization is another reviewer, with a load of its own.
    reviewer(OTHER_ORG, 'did:rev:a', { general_review: 0.8 }, { capacity: 2 }),
  ]);
  await db('reviewer_assignments').insert([
    {
      routing_id: 'rt_open',
      organization_id: DEFAULT_ORGANIZATION_ID,
      chain_level: 1,
      reviewer_did: 'did:rev:a',
      assigned_at: now,
    },
    {
      routing_id: 'rt_released',
      organization_id: DEFAULT_ORGANIZATION_ID,
      chain_level: 1,
      reviewer_did: 'did:rev:b',
      assigned_at: now,
      released_at: now,
    },
    {
      routing_id: 'rt_other_1',
      organization_id: OTHER_ORG,
      chain_level: 1,
      reviewer_did: 'did:rev:a',
      assigned_at: now,
    },
    {
      routing_id: 'rt_other_2',
      organization_id: OTHER_ORG,
      chain_level: 1,
      reviewer_did: 'did:rev:a',
      assigned_at: now,
    },
  ]);
});
afterAll(() => database?.destroy());

const task = (fields: Partial<RoutingTask>): RoutingTask => ({
  task_type: 'shipment',
  context: {},
  ai_agent_id: AGENT,
  ai_confidence: 0.5,
  required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
  safety_requirements: {},
  escalation_conditions: {},
  ...fields,
});

describe('the context of a routing decision, read in one statement', () => {
  it('holds the agent, the domain the task type maps to, the rules in scope of both, the rule set, and the reviewers who hold the capabilities, with their load', async () => {
    const context = await loadRoutingContext(database.db, DEFAULT_ORGANIZATION_ID, task({}));
    expect(context.agent).toMatchObject({ agent_id: AGENT, status: 'active' });
    expect(context.domain).toBe('logistics');
    expect(context.safety.domain).toBe('logistics');
    expect(context.autonomy_profile).toBe('balanced');
    expect(context.rules.map((rule) => rule.rule_id)).toEqual(['r1_everywhere', 'r2_logistics_shipments']);
    expect(context.rules[0]).toEqual({
      rule_id: 'r1_everywhere',
      rule_name: 'r1_everywhere',
      priority: 'medium',
      conditions: [{ condition_type: 'amount', operator: '>=', value: 1 }],
      actions: [{ action: 'notify_supervisor', notification_threshold: 'urgent' }],
    });
    expect(context.rule_set).toEqual({ version: expect.any(Number), enabled: 4 });
    expect(context.reviewers).toEqual([
      {
        did: 'did:rev:a',
        display_name: 'did:rev:a',
        capabilities: { general_review: 0.7 },
        chain_level: 1,
        available: true,
        capacity: 3,
        open_assignments: 1,
      },
      {
        did: 'did:rev:b',
        display_name: 'did:rev:b',
        // Credited with what the task requires only: the matcher needs no other grant.
        capabilities: { general_review: 0.9 },
        chain_level: 2,
        available: true,
        capacity: null,
        open_assignments: 0,
      },
    ]);
  });

  it('scopes the rules to the domain the task names, and takes every available reviewer when no capability is required', async () => {
    const context = await loadRoutingContext(
      database.db,
      DEFAULT_ORGANIZATION_ID,
      task({ task_type: 'triage', context: { domain: 'healthcare' }, required_capabilities: [] }),
    );
    expect(context.domain).toBe('healthcare');
    expect(context.safety.domain).toBe('general');
    expect(context.rules.map((rule) => rule.rule_id)).toEqual(['r1_everywhere', 'r3_healthcare']);
    expect(context.reviewers.map((reviewer) => reviewer.did)).toEqual(['did:rev:a', 'did:rev:legal', 'did:rev:b']);
  });

  it('reads nothing of another organization', async () => {
    const context = await loadRoutingContext(database.db, OTHER_ORG, task({}));
    expect(context.agent).toBeNull();
    expect(context.autonomy_profile).toBe('conservative');
    expect(context.rules.map((rule) => rule.rule_id)).toEqual(['r6_other_org']);
    expect(context.rule_set.enabled).toBe(1);
    expect(context.reviewers.map((reviewer) => [reviewer.did, reviewer.open_assignments])).toEqual([
      ['did:rev:a', 2],
      ['did:rev:other', 0],
    ]);
  });
});
