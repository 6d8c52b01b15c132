import type { Knex } from 'knex';
import type { SecretKeys } from '../../lib/secret-box';
import { provenanceRecordOf, queryProvenance, type ProvenanceRecord } from '../../db/ledger';
import { attestRecord, getAttestation, type Attestation, type AttestOutcome } from '../../services/ledger/attestations';
import { withCursorProblems } from '../middleware/pagination';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { LedgerAnchorSchema, TimestampSchema } from '../schemas/common';
import { ProvenanceStepSchema } from '../schemas/ledger';
import { z } from '../schemas/zod';

const ProvenanceQueryRequestSchema = z
  .object({
    query: z.string().min(1).max(500).openapi({
      description:
        'Words to find in records (full-text search of their canonical JSON), or an exact subject id, transaction id or record hash; `*` matches every record',
      example: 'routing_decided medical_diagnosis',
    }),
    filters: z
      .object({
        subject_id: z.string().min(1).max(200).optional(),
        action: z.string().min(1).max(100).optional(),
        actor_type: z.enum(['ai_agent', 'orch_core', 'human']).optional(),
        actor_id: z.string().min(1).max(300).optional().openapi({ description: 'The actor’s DID or agent id' }),
        from: TimestampSchema.optional(),
        to: TimestampSchema.optional(),
        sealed: z.boolean().optional().openapi({ description: 'Only records whose block is (or is not yet) sealed' }),
      })
      .strict()
      .default({}),
    limit: z.number().int().min(1).max(100).default(20),
    cursor: z
      .string()
      .min(1)
      .optional()
      .openapi({ description: 'next_cursor of the previous page, with the same query and filters' }),
  })
  .strict()
  .openapi('ProvenanceQueryRequest');

const ProvenanceRecordSchema = ProvenanceStepSchema.extend({
  transaction_id: z.string(),
  subject_id: z.string(),
  record_hash: z.string().openapi({
    description: 'Hex of the RFC 6962 leaf hash of the record’s canonical JSON: what an attestation names',
  }),
  ledger_anchor: LedgerAnchorSchema,
  leaf_index: z.number().int().nullable(),
  sealed: z.boolean(),
}).openapi('ProvenanceRecord');

const ProvenanceQueryResponseSchema = z
  .object({
    data: z.array(ProvenanceRecordSchema),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
    total_count: z.number().int(),
  })
  .openapi('ProvenanceQueryResponse', { description: 'Newest first; the platform’s Style A page with total_count' });

const AttestRequestSchema = z
  .object({
    agentId: z.string().min(1).max(300).openapi({
      description:
        'The attesting agent, of the caller’s organization: an agent Passport’s id or DID, a platform agent’s id or URI, or an orchestration agent’s id or DID',
    }),
    organizationId: z
      .string()
      .min(1)
      .max(300)
      .openapi({ description: 'The caller’s organization id; another organization’s is refused' }),
    recordHash: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be the record’s hash: 64 hex digits (record_hash of a provenance record)'),
    timestamp: TimestampSchema.openapi({ description: 'When the agent attests, as it says' }),
  })
  .strict()
  .openapi('AttestProvenanceRequest');

const AttestationSchema = z
  .object({
    attestationId: z.string(),
    agentId: z.string(),
    organizationId: z.string(),
    recordHash: z.string(),
    timestamp: z.string().openapi({ description: 'The time the agent gave' }),
    attestedAt: z.string().openapi({ description: 'When the log signed' }),
    issuer: z.string().openapi({ description: 'The log’s origin; its key is at /v1/ledger/key' }),
    record: z.object({
      transaction_id: z.string(),
      block_number: z.number().int(),
      leaf_index: z.number().int().nullable(),
    }),
    signature: z.string().openapi({
      description:
        'Compact JWS (EdDSA, typ handoff-attestation+jws, kid = the log’s verifier key) whose payload is the canonical JSON statement',
    }),
    statement: z.record(z.string(), z.unknown()),
    ledger_anchor: LedgerAnchorSchema.openapi({ description: 'The attestation’s own record in the log' }),
  })
  .openapi('ProvenanceAttestation');

function renderRecord(record: ProvenanceRecord) {
  const { subject_id, step_id, timestamp, actor, action, input_data, output_data, reasoning, rules_evaluated } =
    record.entry;
  return {
    transaction_id: record.anchor.transaction_id,
    subject_id,
    step_id,
    timestamp,
    actor,
    action,
    input_data,
    output_data,
    reasoning,
    ...(rules_evaluated ? { rules_evaluated } : {}),
    record_hash: record.hash,
    ledger_anchor: record.anchor,
    leaf_index: record.leaf_index,
    sealed: record.leaf_index !== null,
  };
}

function renderAttestation({ statement, jws, ledger_anchor }: Attestation) {
  return {
    attestationId: statement.attestation_id,
    agentId: statement.agent_id,
    organizationId: statement.organization_id,
    recordHash: statement.record_hash,
    timestamp: statement.claimed_at,
    attestedAt: statement.attested_at,
    issuer: statement.origin,
    record: {
      transaction_id: statement.transaction_id,
      block_number: statement.block_number,
      leaf_index: statement.leaf_index,
    },
    signature: jws,
    statement,
    ledger_anchor,
  };
}

function attestProblem(
  code: Exclude<AttestOutcome, { ok: true }>['code'],
  body: { agentId: string; organizationId: string; recordHash: string },
): Problem {
  switch (code) {
    case 'attestation_organization_mismatch':
      return new Problem(code, `organizationId ${body.organizationId} is not your organization`);
    case 'attestation_agent_not_found':
      return new Problem(code, `${body.agentId} is no agent of your organization`);
    case 'record_not_found':
      return new Problem('ledger_record_not_found', `No provenance record has the hash ${body.recordHash}`);
    case 'no_key':
      return new Problem('service_unavailable', 'The ledger has no key yet: start the service once');
  }
}

type ProvenanceRouteDeps = { db: Knex; settings: { platform: { secretKeys: SecretKeys } } };

/** Provenance records searched, and attestations of them (made and read); settings.platform.secretKeys open the sealed ledger key that signs attestations. */
export function registerPlatformProvenanceRoutes(api: ApiBuilder, deps: ProvenanceRouteDeps): void {
  const provenance = routeGroup(api, { tags: ['Provenance'], auth: 'platform:read', rateLimit: 'provenance-queries' });
  registerQuery(provenance, deps.db);
  registerAttest(provenance, deps);
  provenance.get({
    path: '/v1/provenance/attestations/{attestation_id}',
    operationId: 'getProvenanceAttestation',
    summary: 'Read an attestation',
    params: z.object({ attestation_id: z.string().regex(/^att_[0-9a-f]{32}$/, 'must be an attestation id (att_…)') }),
    found: { description: 'The attestation', schema: AttestationSchema },
    missing: {
      code: 'attestation_not_found',
      description: 'No such attestation',
      detail: ({ params }) => `No attestation ${params.attestation_id}`,
    },
    find: ({ params, principal }) => getAttestation(deps.db, principal.organization_id, params.attestation_id),
    view: renderAttestation,
  });
}

function registerQuery(provenance: RouteGroup, db: Knex): void {
  provenance.route({
    method: 'post',
    path: '/v1/provenance/query',
    operationId: 'queryProvenance',
    summary: 'Search provenance records by text and filters',
    description:
      'A read: no Idempotency-Key needed (it is ignored). Each record carries its record_hash, ledger anchor and leaf index.',
    idempotency: false,
    request: { body: ProvenanceQueryRequestSchema },
    responses: { 200: { description: 'Matching records', schema: ProvenanceQueryResponseSchema } },
    handler: async ({ body, principal }) => {
      const { filters } = body;
      const page = await withCursorProblems(
        queryProvenance(
          db,
          principal.organization_id,
          {
            text: body.query,
            ...filters,
            from: filters.from ? new Date(filters.from) : undefined,
            to: filters.to ? new Date(filters.to) : undefined,
          },
          { limit: body.limit, cursor: body.cursor, sort: [{ column: 'e.seq', direction: 'desc' }] },
        ),
      );
      return { status: 200, body: { ...page, data: page.data.map((row) => renderRecord(provenanceRecordOf(row))) } };
    },
  });
}

function registerAttest(provenance: RouteGroup, deps: ProvenanceRouteDeps): void {
  provenance.route({
    method: 'post',
    path: '/v1/provenance/attestations',
    operationId: 'attestProvenanceRecord',
    summary: 'Attest a provenance record: the log signs that the agent attested the record’s leaf',
    description:
      'Idempotent by content: the same agent, organization, record hash and timestamp return the first attestation (200 instead of 201). ' +
      'The attestation is recorded in the ledger too. Verify the signature with the log’s key (GET /v1/ledger/key) or `npm run verify`. ' +
      'The log signs only for the caller’s organization and for an agent of it, and only over a record of that organization.',
    auth: 'platform:write',
    rateLimit: 'default',
    request: { body: AttestRequestSchema },
    responses: {
      201: { description: 'The new attestation', schema: AttestationSchema },
      200: { description: 'The attestation made earlier for the same request', schema: AttestationSchema },
      403: { description: 'attestation_organization_mismatch: organizationId is not the caller’s organization' },
      404: { description: 'No record of the caller’s organization has that hash' },
      422: { description: 'attestation_agent_not_found: agentId names no agent of the caller’s organization' },
    },
    handler: async ({ body, principal }) => {
      const outcome = await attestRecord(
        deps.db,
        {
          recordHash: body.recordHash,
          agentId: body.agentId,
          organizationId: body.organizationId,
          claimedAt: body.timestamp,
          attestedBy: principal.id,
          callerOrganizationId: principal.organization_id,
          now: new Date(),
        },
        deps.settings.platform.secretKeys,
      );
      if (!outcome.ok) throw attestProblem(outcome.code, body);
      const attestation = renderAttestation(outcome.attestation);
      return {
        status: outcome.created ? 201 : 200,
        headers: { Location: `/v1/provenance/attestations/${attestation.attestationId}` },
        body: attestation,
      };
    },
  });
}
