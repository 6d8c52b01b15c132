import type { z } from 'zod';
import { ApprovalState } from '../../contracts/aggregates/approval';
import { DagState } from '../../contracts/aggregates/dag';
import { Connector } from '../../contracts/aggregates/connector';
import { Delegation } from '../../contracts/aggregates/delegation';
import { Installation } from '../../contracts/aggregates/installation';
import { ConnectorDetailSchema } from '../../api/schemas/connectors';
import { InstallationSchema } from '../../api/schemas/installations';
import { Attestation } from '../../contracts/aggregates/attestation';
import { Consent } from '../../contracts/aggregates/consent';
import { Employee } from '../../contracts/aggregates/employee';
import { DeliveryState } from '../../contracts/aggregates/delivery';
import { ExecutionState } from '../../contracts/aggregates/execution';
import { Passport } from '../../contracts/aggregates/passport';
import { RecoveryGuardian } from '../../contracts/aggregates/recovery-guardian';
import { RecoveryRequestState } from '../../contracts/aggregates/recovery-request';
import { Prompt, PromptVersion } from '../../contracts/aggregates/prompt';
import { ReasoningAttempt, ReasoningCall } from '../../contracts/aggregates/reasoning-call';
import { RoutingState } from '../../contracts/aggregates/routing';
import { CapabilityDefinition, CapabilityGrant, Course } from '../../contracts/aggregates/capability';
import { CapabilityDefinitionSchema } from '../../api/schemas/capabilities';
import { CapabilityGrantSchema } from '../../api/schemas/capability-grants';
import { CourseSchema } from '../../api/schemas/courses';
import { Task } from '../../contracts/aggregates/task';
import { ApprovalSchema } from '../../api/schemas/approvals';
import { ExecutionSchema } from '../../api/schemas/executions';
import { PassportSchema } from '../../api/schemas/passports';
import { RecoveryGuardianSchema, RecoveryRequestSchema } from '../../api/schemas/recovery';
import { PromptSchema, PromptVersionSchema, promptView, versionView } from '../../api/schemas/prompts';
import { RoutingStatusSchema } from '../../api/schemas/routing';
import { TaskSchema } from '../../api/schemas/tasks';
import { PassportAttestationSchema } from '../../api/schemas/attestations';
import { ConsentSchema } from '../../api/schemas/consents';
import { EmployeeSchema } from '../../api/schemas/employees';
import { WebhookDeliverySchema } from '../../api/schemas/webhooks';
import { WorkflowSummarySchema } from '../../api/schemas/workflows';
import { Cover } from '../../contracts/aggregates/cover';
import { CoverSchema } from '../../api/schemas/covers';
import { servedDocument } from '../../scripts/served-document';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * Each aggregate's fields are written once, in its schema (contracts/aggregates/). What is derived from it
 * must cover every field: its table has a column for it, the API view shows it (or hides it on purpose), in
 * the schema's order, and the served OpenAPI component documents exactly the view. A field added to a schema
 * and missed anywhere fails here. A new aggregate adds one entry.
 */
interface Aggregate {
  schema: z.ZodObject;
  table: string;
  /** Fields that are not columns (held only by the workflow). */
  unstored?: readonly string[];
  /** An aggregate shown only inside another's answer (a delegation, a reasoning call) has no view of its own. */
  view?: View;
}

interface View {
  schema: z.ZodObject;
  component: string;
  /** Aggregate field → view key, for fields the view renames. */
  renamed?: Record<string, string>;
  hidden?: readonly string[];
  /**
   * What the view adds to the aggregate's fields. Absent: nothing (the view is derived with viewOf). A list:
   * the fields it computes, shown first. 'joined': fields it joins or computes may stand anywhere among the
   * aggregate's, which keep their order.
   */
  added?: readonly string[] | 'joined';
  /** The view of a sample value, for a mapper written beside the schema: its answer must fit the view. */
  sample?: () => unknown;
}

const created = new Date('2026-01-02T03:04:05.000Z');

const AGGREGATES: Record<string, Aggregate> = {
  approval: {
    schema: ApprovalState,
    table: 'approvals',
    view: {
      schema: ApprovalSchema,
      component: 'ApprovalRequest',
      renamed: { approval_id: 'id' },
      hidden: ['organization_id', 'version', 'requested_by'],
    },
  },
  execution: {
    schema: ExecutionState,
    table: 'executions',
    view: {
      schema: ExecutionSchema,
      component: 'Execution',
      renamed: { execution_id: 'id' },
      hidden: ['version', 'requested_by'],
    },
  },
  DAG: {
    schema: DagState,
    table: 'platform_workflows',
    view: {
      schema: WorkflowSummarySchema,
      component: 'WorkflowSummary',
      // The summary shows the run, not its graph (GET /v1/workflows/{id} adds nodes and edges).
      hidden: ['nodes', 'edges', 'version', 'requested_by', 'agent_ids', 'updated_at'],
      added: 'joined',
    },
  },
  delivery: {
    schema: DeliveryState,
    table: 'webhook_deliveries',
    view: { schema: WebhookDeliverySchema, component: 'WebhookDelivery', hidden: ['version'] },
  },
  routing: {
    schema: RoutingState,
    table: 'routings',
    view: {
      schema: RoutingStatusSchema,
      component: 'RoutingStatus',
      // The status view shows where the routing stands; the decision's details are in its record and its history.
      hidden: [
        ...['version', 'task_type', 'ai_agent_id', 'ai_confidence', 'risk_level', 'estimated_response_time'],
        ...['decision_result', 'domain', 'routing_mode', 'fourth_law_triggered', 'safety_violation_count'],
        ...['rules_triggered', 'escalated_at', 'updated_at'],
      ],
      added: 'joined',
    },
  },
  task: {
    schema: Task,
    table: 'platform_tasks',
    view: { schema: TaskSchema, component: 'Task', hidden: ['organization_id', 'request'], added: 'joined' },
  },
  passport: {
    schema: Passport,
    table: 'passports',
    view: {
      schema: PassportSchema,
      component: 'Passport',
      renamed: { passport_id: 'id', created_at: 'createdAt', organization_id: 'organizationId' },
      hidden: ['updated_at'],
      added: 'joined',
    },
  },
  delegation: { schema: Delegation, table: 'delegations' },
  recovery_guardian: {
    schema: RecoveryGuardian,
    table: 'recovery_guardians',
    view: {
      schema: RecoveryGuardianSchema,
      component: 'RecoveryGuardian',
      renamed: { guardian_id: 'id' },
      hidden: ['organization_id'],
    },
  },
  recovery_request: {
    schema: RecoveryRequestState,
    table: 'recovery_requests',
    view: {
      schema: RecoveryRequestSchema,
      component: 'RecoveryRequest',
      renamed: { request_id: 'id' },
      hidden: ['organization_id', 'version', 'requested_by'],
    },
  },
  employee: {
    schema: Employee,
    table: 'employees',
    view: {
      schema: EmployeeSchema,
      component: 'Employee',
      hidden: ['enrollment_passport_id', 'linking_code_hash', 'hmac_key_id'],
    },
  },
  attestation: {
    schema: Attestation,
    table: 'passport_attestations',
    view: {
      schema: PassportAttestationSchema,
      component: 'PassportAttestation',
      renamed: {
        ...{ attestation_id: 'attestationId', issuer_did: 'issuer', passport_id: 'passportId', subject_did: 'subject' },
        ...{ organization_id: 'organizationId', identity_tier: 'identityTier', expires_at: 'expiresAt' },
      },
      hidden: ['issued_by'],
    },
  },
  consent: {
    schema: Consent,
    table: 'passport_consents',
    view: {
      schema: ConsentSchema,
      component: 'Consent',
      renamed: {
        ...{ consent_id: 'consentId', passport_id: 'passportId', consent_timestamp: 'consentTimestamp' },
        ...{
          capability_evidence: 'capabilityEvidence',
          recorded_with: 'recordedWith',
          transaction_id: 'transactionId',
        },
        recorded_at: 'recordedAt',
      },
      hidden: ['organization_id'],
    },
  },
  cover: {
    schema: Cover,
    table: 'covers',
    view: { schema: CoverSchema, component: 'Cover', hidden: ['organization_id'] },
  },
  prompt: {
    schema: Prompt,
    table: 'prompts',
    view: {
      schema: PromptSchema,
      component: 'Prompt',
      added: ['prompt_uri'],
      renamed: { organization_id: 'org_id' },
      sample: () =>
        promptView({
          prompt_key: 'support.triage',
          organization_id: 'org_1',
          scope: null,
          namespace: 'support',
          active_version: '1.0.0',
          created_at: created,
          updated_at: created,
        }),
    },
  },
  'prompt version': {
    schema: PromptVersion,
    table: 'prompt_versions',
    view: {
      schema: PromptVersionSchema,
      component: 'PromptVersion',
      added: ['prompt_uri'],
      renamed: { organization_id: 'org_id' },
      hidden: ['version_sort', 'deprecated_by'],
      sample: () =>
        versionView({
          prompt_key: 'support.triage',
          organization_id: 'org_1',
          version: '1.0.0',
          version_sort: '0000000001.0000000000.0000000000',
          content: 'Triage {{ticket}}',
          meta: { namespace: 'support' },
          input_schema: null,
          extends_uri: null,
          published_by: 'usr_1',
          published_at: created,
          status: 'deprecated',
          deprecated_at: created,
          deprecated_by: 'usr_1',
        }),
    },
  },
  connector: {
    schema: Connector,
    table: 'marketplace_connectors',
    view: {
      schema: ConnectorDetailSchema,
      component: 'MarketplaceConnectorDetail',
      // The publisher's name and verification are shown as publisher {…}; how to reach the provider never is.
      hidden: ['publisher_name', 'publisher_verified', 'oauth_client'],
      added: 'joined',
    },
  },
  installation: {
    schema: Installation,
    table: 'connector_installations',
    view: {
      schema: InstallationSchema,
      component: 'Installation',
      // The connector is shown as connector {connector_id, name, provider}.
      hidden: ['organization_id', 'connector_id', 'version', 'attempt'],
      added: 'joined',
    },
  },
  'reasoning call': { schema: ReasoningCall, table: 'reasoning_calls' },
  'reasoning attempt': { schema: ReasoningAttempt, table: 'reasoning_attempts' },
  'capability definition': {
    schema: CapabilityDefinition,
    table: 'capability_definitions',
    view: {
      schema: CapabilityDefinitionSchema,
      component: 'CapabilityDefinition',
      renamed: {
        capability_id: 'capabilityId',
        promoted_at: 'promotedAt',
        promote_reason: 'promoteReason',
        created_at: 'createdAt',
        updated_at: 'updatedAt',
      },
      hidden: ['organization_id', 'capability_name', 'promoted_by', 'created_by'],
    },
  },
  'capability grant': {
    schema: CapabilityGrant,
    table: 'capability_grants',
    view: {
      schema: CapabilityGrantSchema,
      component: 'CapabilityGrant',
      renamed: {
        grant_id: 'grantId',
        capability_id: 'capabilityId',
        subject_type: 'subjectType',
        subject_did: 'subjectDid',
        issuer_did: 'issuer',
        issuer_passport_id: 'issuerPassportId',
        created_at: 'createdAt',
        expires_at: 'expiresAt',
        revoked_at: 'revokedAt',
        revoked_by: 'revokedBy',
        revoke_reason: 'revokeReason',
      },
      hidden: ['organization_id', 'capability_name', 'created_by'],
    },
  },
  course: {
    schema: Course,
    table: 'courses',
    view: {
      schema: CourseSchema,
      component: 'Course',
      renamed: { course_id: 'courseId', created_at: 'createdAt' },
      hidden: ['organization_id', 'created_by'],
    },
  },
};

type Document = { components: { schemas: Record<string, { properties?: Record<string, unknown> }> } };

let database: TestDatabase;
let document: Document;
beforeAll(async () => {
  database = await createTestDatabase();
  document = (await servedDocument()) as Document;
});
afterAll(() => database?.destroy());

describe.each(Object.entries(AGGREGATES))('the %s aggregate', (_name, aggregate) => {
  const fields = Object.keys(aggregate.schema.shape);

  it('has a column for every field it stores', async () => {
    const columns = Object.keys(await database.db(aggregate.table).columnInfo());
    const stored = fields.filter((field) => !aggregate.unstored?.includes(field));
    expect(columns).toEqual(expect.arrayContaining(stored));
  });

  const view = aggregate.view;
  if (view) describeView(fields, view);
});

function describeView(fields: string[], view: View): void {
  const hidden = view.hidden ?? [];
  const renamed = view.renamed ?? {};
  const shown = fields.filter((field) => !hidden.includes(field)).map((field) => renamed[field] ?? field);
  const viewKeys = Object.keys(view.schema.shape);

  it('hides and renames only fields it has', () => {
    expect(fields).toEqual(expect.arrayContaining([...hidden, ...Object.keys(renamed)]));
  });

  it('has a view that shows every field it does not hide, in its order', () => {
    if (view.added === 'joined') expect(viewKeys.filter((key) => shown.includes(key))).toEqual(shown);
    else expect(viewKeys).toEqual([...(view.added ?? []), ...shown]);
  });

  it('is documented by an OpenAPI component with exactly the view’s properties', () => {
    expect(Object.keys(document.components.schemas[view.component]?.properties ?? {})).toEqual(viewKeys);
  });

  if (view.sample) {
    const sample = view.sample;
    it('has a mapper whose answer fits the view', () => {
      expect(view.schema.strict().parse(sample())).toEqual(sample());
    });
  }
}
