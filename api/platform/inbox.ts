import type { Principal } from '../../services/identity/scopes';
import { issueDecisionNonce } from '../../services/identity/passkeys/decision-signatures';
import { decideInboxItem, type DecideDeps, type DecideOutcome } from '../../services/inbox/decide';
import { inboxChanges, type LiveInboxSettings } from '../../services/inbox/live';
import { findInboxItem, listInbox, type InboxPerson } from '../../services/inbox/queue';
import { decisionSignatureBundle } from '../../services/inbox/signature-bundle';
import { Problem, type ProblemCode } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  DecisionNonceSchema,
  DecisionSignatureBundleSchema,
  InboxDecisionRequestSchema,
  InboxDecisionSchema,
  InboxItemDetailSchema,
  InboxItemParamsSchema,
  InboxPageSchema,
} from '../schemas/inbox';
import { sseFrame } from '../sse';

export type InboxRouteDeps = DecideDeps & { live: LiveInboxSettings };

const PERSON_ONLY = { 403: { description: 'person_required: only a person signed in with a passkey has an inbox' } };

/** The signed-in person the inbox is for: a session of a passkey (or device key); no other credential has an inbox. */
function personOf(principal: Principal): InboxPerson {
  if (principal.kind !== 'session' || !principal.actor)
    throw new Problem(
      'person_required',
      'Only a person signed in with a passkey has an inbox: call with the session token',
    );
  return { principal_id: principal.id, organization_id: principal.organization_id, actor: principal.actor };
}

/** The reviewer's queue and their decisions, signed by their passkey (docs/decision-signatures.md). */
export function registerInboxRoutes(api: ApiBuilder, deps: InboxRouteDeps): void {
  const inbox = routeGroup(api, { tags: ['Inbox'], auth: 'platform:read', rateLimit: 'default' });
  registerQueueReads(inbox, deps);
  registerDecisions(inbox, deps);
}

function registerQueueReads(inbox: RouteGroup, deps: InboxRouteDeps): void {
  inbox.route({
    method: 'get',
    path: '/v1/inbox/items',
    operationId: 'listInboxItems',
    summary: 'My queue: routings escalated to me, requests addressed to me, escalation-queue requests I may answer',
    description:
      'Only the signed-in person’s own items, most urgent first (overdue, urgent: within the hour or critical risk, due today, later), each with its risk, time left and escalation chain.',
    responses: { 200: { description: 'The queue', schema: InboxPageSchema }, ...PERSON_ONLY },
    handler: async ({ principal }) => ({
      status: 200,
      body: { data: await listInbox(deps.inbox, personOf(principal)) },
    }),
  });
  inbox.route({
    method: 'get',
    path: '/v1/inbox/events',
    operationId: 'streamInbox',
    summary: 'My queue, live (server-sent events)',
    description:
      `text/event-stream: a queue event ({data: items}) at once and whenever an item arrives, leaves or moves on; comments as heartbeats. ` +
      `The stream ends after ${String(deps.live.maxStreamMs / 1000)} s (reconnect with the session token), so it never outlives a revoked session by long.`,
    responses: {
      200: { description: 'Server-sent events', contentType: 'text/event-stream', schema: InboxPageSchema },
      ...PERSON_ONLY,
    },
    handler: ({ principal, req }) => {
      const person = personOf(principal);
      const left = new AbortController();
      req.on('close', () => left.abort());
      async function* frames() {
        for await (const change of inboxChanges(deps.inbox, person, deps.live, left.signal))
          yield change.kind === 'queue' ? sseFrame('queue', { data: change.items }) : ': heartbeat\n\n';
      }
      return {
        status: 200,
        headers: { 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' },
        stream: { contentType: 'text/event-stream', chunks: frames() },
      };
    },
  });
  inbox.get({
    path: '/v1/inbox/items/{item_id}',
    operationId: 'getInboxItem',
    summary:
      'An item of my queue: task, context, agent, recommendation, risk, safety analysis, chain and provenance so far',
    params: InboxItemParamsSchema,
    found: { description: 'The item', schema: InboxItemDetailSchema },
    missing: { code: 'inbox_item_not_found', detail: ({ params }) => `${params.item_id} is not in your inbox` },
    responses: PERSON_ONLY,
    find: ({ params, principal }) => findInboxItem(deps.inbox, personOf(principal), params.item_id),
    view: (item) => item,
  });
  inbox.get({
    path: '/v1/inbox/items/{item_id}/signature',
    operationId: 'getDecisionSignature',
    summary: 'The passkey signature of a decision made in the inbox, with what verifies it offline',
    description:
      'A handoff.decision-signature-bundle/v1: the signature from the decision’s ledger record, the record, the comment and the signer’s DID document. `npm run verify -- <file>` checks it.',
    params: InboxItemParamsSchema,
    found: { description: 'The bundle', schema: DecisionSignatureBundleSchema },
    missing: { code: 'inbox_item_not_found', detail: ({ params }) => `No signed decision on ${params.item_id}` },
    find: ({ params, principal }) => decisionSignatureBundle(deps.inbox.db, principal.organization_id, params.item_id),
    view: (bundle) => bundle,
  });
}

const PASSED_ON: readonly ProblemCode[] = [
  'person_required',
  'actor_mismatch',
  'delegation_not_covering',
  'not_the_approver',
  'requester_may_not_answer',
  'inbox_item_not_found',
  'decision_signature_invalid',
  'decision_nonce_invalid',
  'approval_not_found',
  'approval_not_pending',
  'routing_not_found',
  'reviewer_not_assigned',
  'invalid_data',
  'storage_failed',
];

function decided(outcome: DecideOutcome) {
  if (outcome.ok) return { item_id: outcome.item_id, status: outcome.status, signature: outcome.signature };
  if (outcome.errors)
    throw new Problem('validation_failed', 'The decision does not fit the item', { errors: outcome.errors });
  const code = PASSED_ON.find((known) => known === outcome.code) ?? 'routing_not_awaiting_review';
  throw new Problem(code, outcome.detail);
}

function registerDecisions(inbox: RouteGroup, deps: InboxRouteDeps): void {
  inbox.route({
    method: 'post',
    path: '/v1/inbox/decision-nonces',
    operationId: 'issueDecisionNonce',
    summary: 'A single-use nonce for my next signed decision',
    auth: 'platform:write',
    responses: { 201: { description: 'The nonce', schema: DecisionNonceSchema }, ...PERSON_ONLY },
    handler: async ({ principal }) => {
      const person = personOf(principal);
      const issued = await issueDecisionNonce(deps.signatures, {
        passport_id: person.actor.passport_id,
        organization_id: person.organization_id,
      });
      return { status: 201, body: { ...issued, expires_at: issued.expires_at.toISOString() } };
    },
  });
  inbox.route({
    method: 'post',
    path: '/v1/inbox/items/{item_id}/decision',
    operationId: 'decideInboxItem',
    summary: 'Decide an item of my queue, signed by my passkey',
    description:
      'The passkey signs the challenge base64url(SHA-256(canonical decision)): {format, item_id, decision, modified_parameters, comment_sha256, nonce} ' +
      '(docs/decision-signatures.md). A signature that does not verify over exactly this decision, by an active passkey of the signed-in person, ' +
      'is 403; a nonce used before 409. The decision is then answered as POST /v1/approvals/{id}/respond or /v1/orch/routing/{id}/resolve would, ' +
      'and its ledger record carries the signature.',
    auth: 'platform:write',
    request: { params: InboxItemParamsSchema, body: InboxDecisionRequestSchema },
    responses: {
      200: { description: 'Decided', schema: InboxDecisionSchema },
      400: { description: 'validation_failed: the decision does not fit the item (errors by field)' },
      403: { description: 'person_required, decision_signature_invalid, not_the_approver, requester_may_not_answer' },
      404: { description: 'inbox_item_not_found' },
      409: { description: 'decision_nonce_invalid, approval_not_pending, routing_not_awaiting_review' },
    },
    handler: async ({ params, body, principal }) => {
      personOf(principal);
      return { status: 200, body: decided(await decideInboxItem(deps, principal, params.item_id, body)) };
    },
  });
}
