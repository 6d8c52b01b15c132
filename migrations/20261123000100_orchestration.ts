import type { Knex } from 'knex';

/**
 * The orchestration layer: registered agents, escalation rules, safety configuration per domain, safety
 * checks, feedback on routing outcomes, and reviewer load. The three safety domains are seeded here as
 * literal rows (not imported), so that this migration keeps meaning what it meant when it first ran.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agents', (t) => {
    t.text('agent_id').primary();
    t.text('did').notNullable().unique();
    t.text('agent_name').notNullable();
    t.text('agent_type').notNullable();
    t.jsonb('capabilities').notNullable().defaultTo('[]');
    t.jsonb('safety_constraints').notNullable().defaultTo('{}');
    t.jsonb('model_info').notNullable().defaultTo('{}');
    t.text('status').notNullable();
    // SHA-256 of the agent's API key, which is shown once at registration.
    t.text('api_key_hash').notNullable().unique();
    t.text('registered_by').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('registered_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    `alter table agents add constraint agents_status check (status in ('active', 'suspended', 'retired'))`,
  );

  await knex.schema.createTable('escalation_rules', (t) => {
    t.text('rule_id').primary();
    t.text('rule_name').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.jsonb('conditions').notNullable();
    t.jsonb('actions').notNullable();
    t.text('priority').notNullable();
    t.boolean('enabled').notNullable();
    // Derived from the conditions: the task types and domains the rule can match (null: any), so that a
    // routing loads only the rules in its scope.
    t.specificType('scope_task_types', 'text[]');
    t.specificType('scope_domains', 'text[]');
    t.jsonb('applies_to').notNullable().defaultTo('[]');
    t.jsonb('trigger_rate').notNullable();
    t.text('created_by').notNullable();
    t.integer('version').notNullable().defaultTo(1);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['created_at', 'rule_id']);
  });
  await knex.raw(
    `alter table escalation_rules add constraint escalation_rules_priority check (priority in ('low', 'medium', 'high', 'critical'))`,
  );
  await knex.raw(
    'create index escalation_rules_enabled_task_types on escalation_rules using gin (scope_task_types) where enabled',
  );
  // Bumped in the transaction of every rule change, with the count of enabled rules; a routing records
  // both as the rule set it was decided under, without counting the rules itself.
  await knex.schema.createTable('escalation_rule_set', (t) => {
    t.integer('id').primary();
    t.bigInteger('version').notNullable();
    t.integer('enabled_rules').notNullable();
  });
  await knex.raw('alter table escalation_rule_set add constraint escalation_rule_set_single_row check (id = 1)');
  await knex('escalation_rule_set').insert({ id: 1, version: 0, enabled_rules: 0 });

  await knex.schema.createTable('safety_domains', (t) => {
    t.text('domain').primary();
    t.jsonb('boundaries').notNullable();
    t.jsonb('risk_thresholds').notNullable();
    t.specificType('task_types', 'text[]').notNullable().defaultTo('{}');
    t.integer('version').notNullable().defaultTo(1);
    t.text('updated_by').notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex('safety_domains').insert(
    SEEDED_DOMAINS.map((domain) => ({
      ...domain,
      boundaries: JSON.stringify(domain.boundaries),
      risk_thresholds: JSON.stringify(domain.risk_thresholds),
      updated_by: 'migration:20261123000100_orchestration',
    })),
  );

  await knex.schema.createTable('safety_checks', (t) => {
    t.text('boundary_check_id').primary();
    t.text('agent_id');
    t.text('actor_type').notNullable();
    t.text('action').notNullable();
    t.text('domain').notNullable();
    t.boolean('allowed').notNullable();
    t.integer('violation_count').notNullable();
    t.jsonb('result').notNullable();
    t.text('requested_by').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['agent_id', 'created_at']);
  });

  await knex.schema.createTable('routing_feedback', (t) => {
    t.text('feedback_id').primary();
    t.text('routing_id').notNullable().references('routing_id').inTable('routings');
    t.text('verdict').notNullable();
    t.text('reason').notNullable();
    t.text('submitted_by').notNullable();
    t.text('principal').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.index(['routing_id']);
  });
  await knex.raw(
    `alter table routing_feedback add constraint routing_feedback_verdict check (verdict in ('confirmed', 'overturned', 'flagged'))`,
  );

  // Open assignments are a reviewer's load: one row per level of a routing's chain, released when the
  // routing moves on (escalated, resolved, expired), so the count stays right under retries.
  await knex.schema.createTable('reviewer_assignments', (t) => {
    t.text('routing_id').notNullable();
    t.integer('chain_level').notNullable();
    t.text('reviewer_did').notNullable();
    t.timestamp('assigned_at', { useTz: true }).notNullable();
    t.timestamp('released_at', { useTz: true });
    t.primary(['routing_id', 'chain_level']);
  });
  await knex.raw(
    'create index reviewer_assignments_open on reviewer_assignments (reviewer_did) where released_at is null',
  );
  await knex.schema.alterTable('reviewers', (t) => {
    // Most open assignments the reviewer takes; null: no limit.
    t.integer('capacity');
  });
  await knex.raw(
    'alter table reviewers add constraint reviewers_capacity_positive check (capacity is null or capacity >= 1)',
  );

  await knex.schema.alterTable('routings', (t) => {
    t.text('domain');
    t.text('routing_mode');
    t.boolean('fourth_law_triggered');
    t.integer('safety_violation_count').notNullable().defaultTo(0);
    t.jsonb('rules_triggered').notNullable().defaultTo('[]');
    // When a human first took the routing (at the decision, or by a later escalation).
    t.timestamp('escalated_at', { useTz: true });
    t.index(['ai_agent_id', 'created_at']);
    t.index(['task_type']);
    t.index(['decision']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('routings', (t) => {
    t.dropIndex(['ai_agent_id', 'created_at']);
    t.dropIndex(['task_type']);
    t.dropIndex(['decision']);
    t.dropColumns(
      'domain',
      'routing_mode',
      'fourth_law_triggered',
      'safety_violation_count',
      'rules_triggered',
      'escalated_at',
    );
  });
  await knex.raw('alter table reviewers drop constraint reviewers_capacity_positive');
  await knex.schema.alterTable('reviewers', (t) => t.dropColumn('capacity'));
  for (const table of [
    'reviewer_assignments',
    'routing_feedback',
    'safety_checks',
    'safety_domains',
    'escalation_rule_set',
    'escalation_rules',
    'agents',
  ]) {
    await knex.schema.dropTableIfExists(table);
  }
}

const SEEDED_DOMAINS = [
  {
    domain: 'general',
    task_types: [],
    risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 },
    boundaries: [
      {
        boundary_id: 'general-irreversible-actions',
        type: 'safety_boundary',
        description: 'An AI agent does not take irreversible actions on its own',
        enforcement: 'strict',
        severity: 'high',
        exceptions: null,
        escalation_required: true,
        actions: [],
        conditions: [{ condition_type: 'context.irreversible', operator: '==', value: true }],
      },
    ],
  },
  {
    domain: 'healthcare',
    task_types: ['medical_diagnosis', 'treatment_recommendation', 'prescription'],
    risk_thresholds: { low: 0.1, medium: 0.3, high: 0.6, critical: 0.85 },
    boundaries: [
      {
        boundary_id: 'healthcare-diagnosis-capability',
        type: 'capability_boundary',
        description: 'Diagnosis and treatment need a proven medical_diagnosis capability',
        enforcement: 'strict',
        severity: 'high',
        exceptions: null,
        escalation_required: true,
        actions: ['medical_diagnosis', 'treatment_recommendation', 'diagnose'],
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.8 }],
      },
      {
        boundary_id: 'healthcare-no-ai-prescribing',
        type: 'safety_boundary',
        description: 'Prescribing medication is reserved to licensed humans',
        enforcement: 'strict',
        severity: 'critical',
        exceptions: 'emergency_override',
        escalation_required: true,
        actions: ['prescription', 'prescribe', 'prescribe_medication'],
        conditions: [],
      },
      {
        boundary_id: 'healthcare-risk-ceiling',
        type: 'risk_boundary',
        description: 'An AI agent acts alone only on low and medium clinical risk',
        enforcement: 'strict',
        severity: 'high',
        exceptions: null,
        escalation_required: true,
        actions: [],
        max_risk_level: 'medium',
      },
      {
        boundary_id: 'healthcare-patient-consent',
        type: 'context_boundary',
        description: 'Patient consent must be on record before acting on patient data',
        enforcement: 'advisory',
        severity: 'medium',
        exceptions: null,
        escalation_required: false,
        actions: ['medical_diagnosis', 'treatment_recommendation'],
        required_context: ['patient_consent'],
      },
    ],
  },
  {
    domain: 'finance',
    task_types: ['invoice_approval', 'payment', 'financial_approval', 'refund'],
    risk_thresholds: { low: 0.2, medium: 0.4, high: 0.7, critical: 0.9 },
    boundaries: [
      {
        boundary_id: 'finance-ai-authority',
        type: 'risk_boundary',
        description: 'Amounts of high risk (10,000 and above) exceed an AI agent’s authority',
        enforcement: 'strict',
        severity: 'high',
        exceptions: null,
        escalation_required: true,
        actions: [],
        max_risk_level: 'medium',
      },
      {
        boundary_id: 'finance-approval-capability',
        type: 'capability_boundary',
        description: 'Approving payments needs a financial_approval capability',
        enforcement: 'strict',
        severity: 'high',
        exceptions: null,
        escalation_required: true,
        actions: ['approve_payment', 'payment', 'invoice_approval'],
        required_capabilities: [{ capability_id: 'financial_approval', min_weight: 0.7 }],
      },
    ],
  },
];
