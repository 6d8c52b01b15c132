import { findDelegation, findToken, listTokens } from '../../db/delegation';
import { HUMAN_ACT_CAPABILITY_NAMES } from '../../domain/identity/capabilities';
import { delegateToAgent, exchangeForDelegationToken } from '../../services/identity/delegations/exchange';
import { type DelegationDeps, delegationScope } from '../../services/identity/delegations/context';
import { revokeDelegationToken } from '../../services/identity/delegations/revoke';
import { rotateDelegationToken } from '../../services/identity/delegations/rotate';
import type { IssueOutcome } from '../../services/identity/delegations/issue';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import {
  DelegateRequestSchema,
  DelegationIdParamsSchema,
  DelegationTokenSchema,
  ExchangeRequestSchema,
  IssuedTokenSchema,
  issuedView,
  ListTokensQuerySchema,
  ReasonSchema,
  TOKEN_SORTABLE,
  TokenIdParamsSchema,
  tokenView,
} from '../schemas/delegation';
import { registerDelegationRevocationRoutes } from './delegation-revocations';

/** What the issuing operations say of human acts: each takes its own capability (domain/identity/capabilities.ts HUMAN_ACT_CAPABILITIES). */
const HUMAN_ACT_CAPABILITIES_TEXT =
  `A human act done for the person takes its own capability, which no other implies: ${HUMAN_ACT_CAPABILITY_NAMES.join(', ')} ` +
  '(answering an approval or an escalation-queue item, cancelling an approval, resolving, escalating by hand, giving feedback on a routing); ' +
  'routing:write only starts routings and approvals:request only asks for approvals. An unknown capability name is 400. ';

function issued(outcome: IssueOutcome, now: Date) {
  if (outcome.ok) return { status: 201, body: issuedView(outcome.issued, now) };
  switch (outcome.code) {
    case 'delegation_widening':
      throw new Problem(
        'delegation_widening',
        `Refused: ${outcome.widening.map((w) => w.field).join(', ')} would widen the parent`,
        { extensions: { widening: outcome.widening } },
      );
    case 'verification_tier_too_low':
    case 'identity_tier_too_low':
      throw new Problem(outcome.code, `Required tier ${outcome.required}, reached ${outcome.actual}`, {
        extensions: { required_tier: outcome.required, actual_tier: outcome.actual },
      });
    case 'unauthorized':
      throw new Problem('unauthorized', outcome.detail, {
        headers: { 'WWW-Authenticate': 'Bearer realm="handoff", error="invalid_token"' },
      });
    default:
      throw new Problem(outcome.code, outcome.detail);
  }
}

/** Delegation tokens (issued, listed, rotated, revoked), then delegations as a whole; a Passport sees its own only. */
export function registerDelegationRoutes(api: ApiBuilder, deps: DelegationDeps): void {
  const delegation = routeGroup(api, { tags: ['Delegation'], auth: 'platform:read', rateLimit: 'default' });
  registerExchange(api, deps);
  registerDelegateToAgent(delegation, deps);
  registerTokenReads(delegation, deps);
  registerTokenChanges(delegation, deps);
  registerDelegationRevocationRoutes(delegation, deps);
}

function registerExchange(api: ApiBuilder, deps: DelegationDeps): void {
  api.route({
    method: 'post',
    path: '/v1/delegation-tokens/exchange',
    operationId: 'exchangeDelegationToken',
    summary: 'Exchange a session token for a delegation token',
    description:
      'RFC 8693-style token exchange: subject_token is the session token from a passkey or device-key sign-in (or, in the Authorization header, ' +
      'the bearer token); a delegation token as subject is narrowed. The new token holds at most what the subject holds: a signed-in person’s ' +
      'capabilities and prompt grants (prompt:*:*), or the subject token’s capabilities, prompt grants, expiry, environment and risk_level; a prompt grant ' +
      'is held when one of the subject’s covers it (prompt:read:support-* covers prompt:read:support-billing), else 403 delegation_widening. ' +
      HUMAN_ACT_CAPABILITIES_TEXT +
      'The response holds the token: it is not stored for replay.',
    tags: ['Delegation'],
    auth: 'public',
    rateLimit: 'default',
    idempotency: false,
    request: { body: ExchangeRequestSchema },
    responses: {
      201: { description: 'The delegation token', schema: IssuedTokenSchema },
      401: {
        description:
          'unauthorized: no subject token, or one that is not valid, expired, or whose credential or Passport is no longer active',
      },
      403: { description: 'delegation_widening, verification_tier_too_low or identity_tier_too_low' },
    },
    handler: async ({ req, body }) => {
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
      const subject_token = body.subject_token ?? bearer;
      if (!subject_token)
        throw new Problem('unauthorized', 'Send the session token as subject_token (or as the bearer token)', {
          headers: { 'WWW-Authenticate': 'Bearer realm="handoff"' },
        });
      const capabilities = [...new Set([...(body.capabilities ?? []), ...(body.scopes ?? [])])];
      return issued(await exchangeForDelegationToken(deps, { ...body, subject_token, capabilities }), new Date());
    },
  });
}

function registerDelegateToAgent(delegation: RouteGroup, deps: DelegationDeps): void {
  delegation.route({
    method: 'post',
    path: '/v1/delegation-tokens',
    operationId: 'generateDelegationToken',
    summary: 'Delegate to an agent',
    description:
      'A person’s delegation token (or session) delegates some of what it holds to an agent: the new token’s sub is the person, act.sub the agent. ' +
      'It can only narrow: capabilities, prompt grants (covered by one of the caller’s), expiry, environment and risk_level no wider than the caller’s token. ' +
      HUMAN_ACT_CAPABILITIES_TEXT +
      'Revoking the caller’s delegation revokes it too.',
    auth: 'platform:write',
    idempotency: false,
    request: { body: DelegateRequestSchema },
    responses: {
      201: { description: 'The agent’s delegation token', schema: IssuedTokenSchema },
      403: { description: 'passport_required, agent_delegation_refused or delegation_widening' },
      404: {
        description:
          'agent_not_found: no such agent in the caller’s organization (another organization’s agent answers the same)',
      },
    },
    handler: async ({ body, principal }) =>
      issued(await delegateToAgent(deps, principal, { ...body, agent_id: body.agentId }), new Date()),
  });
}

const TOKEN_SORT = { allowed: TOKEN_SORTABLE, fallback: '-created_at', uniqueKey: 'delegation_tokens.token_id' };
const TOKEN_PAGE = { description: 'A page of tokens', item: DelegationTokenSchema, name: 'DelegationTokenPage' };

function registerTokenReads(delegation: RouteGroup, deps: DelegationDeps): void {
  delegation.list({
    path: '/v1/delegation-tokens',
    operationId: 'listDelegationTokens',
    summary: 'List delegation tokens',
    description:
      'A Passport sees the tokens of its own delegations; a scoped administrator those of its organization. Newest first by default.',
    query: ListTokensQuerySchema,
    page: TOKEN_PAGE,
    sort: TOKEN_SORT,
    list: ({ query, principal, page }) => listTokens(deps.db, delegationScope(principal), page, query),
    view: tokenView,
  });

  delegation.list({
    path: '/v1/delegation-tokens/by-delegation/{delegation_id}',
    operationId: 'listDelegationTokensByDelegation',
    summary: 'Fetch the tokens of a delegation',
    description: 'The token and its rotations, newest first.',
    params: DelegationIdParamsSchema,
    query: ListTokensQuerySchema.omit({ delegation_id: true }),
    page: TOKEN_PAGE,
    responses: { 404: { description: 'delegation_not_found' } },
    parent: {
      find: ({ params, principal }) => findDelegation(deps.db, delegationScope(principal), params.delegation_id),
      missing: 'delegation_not_found',
    },
    sort: TOKEN_SORT,
    list: ({ params, query, principal, page }) =>
      listTokens(deps.db, delegationScope(principal), page, { ...query, delegation_id: params.delegation_id }),
    view: tokenView,
  });

  delegation.get({
    path: '/v1/delegation-tokens/{token_id}',
    operationId: 'getDelegationToken',
    summary: 'Read a delegation token',
    params: TokenIdParamsSchema,
    found: { description: 'The token (never its value)', schema: DelegationTokenSchema },
    missing: { code: 'delegation_token_not_found' },
    find: ({ params, principal }) => findToken(deps.db, delegationScope(principal), params.token_id),
    view: tokenView,
  });
}

function registerTokenChanges(delegation: RouteGroup, deps: DelegationDeps): void {
  delegation.route({
    method: 'post',
    path: '/v1/delegation-tokens/{token_id}/rotate',
    operationId: 'rotateDelegationToken',
    summary: 'Rotate a delegation token',
    description:
      'A new token (new jti) in the same delegation, with the same claims and expiry; the old one is revoked on every instance within a second. ' +
      'The new token acts as the delegator, so it is issued only to a caller that proves the delegator’s credential: a session of the same ' +
      'Passport, or a delegation token of the target’s delegation or of one above it on its chain. A caller without a Passport (an access token, ' +
      'a service account, a personal access token) may list and revoke tokens but not rotate them.',
    auth: 'platform:write',
    idempotency: false,
    request: { params: TokenIdParamsSchema, body: ReasonSchema },
    responses: {
      201: { description: 'The new token', schema: IssuedTokenSchema },
      403: {
        description:
          'passport_required: the caller is not a Passport’s session or delegation token; delegation_outside_chain: the caller’s delegation is ' +
          'neither the token’s nor one above it (a narrowed token aiming at its parent’s token, say)',
      },
      404: { description: 'delegation_token_not_found: no such token among the caller’s own' },
      409: { description: 'delegation_token_not_active' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await rotateDelegationToken(deps, principal, params.token_id, body.reason);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: 201, body: issuedView(outcome.issued, new Date()) };
    },
  });

  delegation.route({
    method: 'post',
    path: '/v1/delegation-tokens/{token_id}/revoke',
    operationId: 'revokeDelegationToken',
    summary: 'Revoke a delegation token',
    description:
      'Refused by every API instance within a second. Other tokens of the delegation stay valid; revoke the delegation to end them all. ' +
      'A delegation token revokes only tokens of its own delegation or of one made from it; a session those of its Passport.',
    auth: 'platform:write',
    request: { params: TokenIdParamsSchema, body: ReasonSchema },
    responses: {
      200: { description: 'The revoked token', schema: DelegationTokenSchema },
      403: {
        description:
          'delegation_outside_chain: the caller’s delegation token is neither the token’s delegation nor one above it (a narrowed token aiming at its parent’s token, say)',
      },
      404: { description: 'delegation_token_not_found' },
      409: { description: 'delegation_token_not_active' },
    },
    handler: async ({ params, body, principal }) => {
      const outcome = await revokeDelegationToken(deps, principal, params.token_id, body.reason);
      if (!outcome.ok) throw new Problem(outcome.code, 'detail' in outcome ? outcome.detail : undefined);
      return { status: 200, body: tokenView(outcome.token) };
    },
  });
}
