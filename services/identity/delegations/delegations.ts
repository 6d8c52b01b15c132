import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import {
  findAgentDid,
  findDelegation,
  findFamilyRevocation,
  findPassportForDelegation,
  findToken,
  insertDelegation,
  revokeDelegation as recordDelegationRevocation,
  revokeToken as recordTokenRevocation,
  rotateToken as recordRotation,
  type DelegationRow,
  type DelegationScope,
  type RevocationRow,
  type TokenWithDelegation,
} from '../../../db/delegation';
import {
  DEFAULT_DELEGATION_CAPABILITIES,
  SIGNED_IN_PERSON_GRANTS,
  verificationTierOf,
  wideningOf,
  type DelegationBounds,
  type RiskLevel,
  type Widening,
} from '../../../domain/identity/capabilities';
import type { KeyRing } from '../issuance/key-ring';
import type { Principal } from '../scopes';
import type { TokenSettings } from '../authentication/actor';
import { authenticateSession } from '../issuance/session-tokens';
import {
  isDelegationTokenHeader,
  signDelegationToken,
  verifyDelegationToken,
  type DelegationClaims,
} from '../issuance/delegation-tokens';
import type { RevocationRegistry } from './revocations';

export const MAX_DELEGATION_SECONDS = 2_592_000;
export const DEFAULT_DELEGATION_SECONDS = 86_400;

export interface DelegationDeps {
  db: Knex;
  keyRing: KeyRing;
  settings: TokenSettings;
  revocations: RevocationRegistry;
  clock?: () => Date;
}

export interface DelegationRequest {
  capabilities: string[];
  duration_seconds: number;
  environment?: string | undefined;
  risk_level: RiskLevel;
}

export interface IssuedToken {
  token: string;
  token_id: string;
  delegation: DelegationRow;
}

type Refusal =
  | { ok: false; code: 'unauthorized'; detail: string }
  | { ok: false; code: 'delegation_widening'; widening: Widening[] }
  | { ok: false; code: 'verification_tier_too_low' | 'identity_tier_too_low'; required: number; actual: number }
  | { ok: false; code: 'passport_required' | 'agent_delegation_refused' | 'agent_not_found'; detail: string };

export type IssueOutcome = { ok: true; issued: IssuedToken } | Refusal;

/** What a delegation hands down: its own bounds, and what it carries into every child. */
interface Parent {
  bounds: DelegationBounds;
  organization_id: string;
  passport_id: string;
  did: string;
  chain: string[];
  parent_delegation_id: string | null;
  credential: { type: 'passkey' | 'device_key'; id: string };
  verification_tier: number;
  identity_tier: number;
  agent_did: string | null;
}

const now = (deps: DelegationDeps) => (deps.clock ?? (() => new Date()))();
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** A session's bounds: what a signed-in person holds, for up to the longest a delegation may last. */
function sessionParent(
  session: {
    passport_id: string;
    did: string;
    organization_id: string;
    credential: { type: 'passkey' | 'device_key'; id: string };
  },
  identityTier: number,
  at: Date,
): Parent {
  return {
    bounds: {
      capabilities: SIGNED_IN_PERSON_GRANTS,
      expires_at: epochSeconds(at) + MAX_DELEGATION_SECONDS,
      environment: null,
      risk_level: 'high',
    },
    organization_id: session.organization_id,
    passport_id: session.passport_id,
    did: session.did,
    chain: [],
    parent_delegation_id: null,
    credential: session.credential,
    verification_tier: verificationTierOf(session.credential.type),
    identity_tier: identityTier,
    agent_did: null,
  };
}

function tokenParent(claims: DelegationClaims): Parent {
  return {
    bounds: {
      capabilities: claims.capabilities,
      expires_at: epochSeconds(claims.expires_at),
      environment: claims.environment,
      risk_level: claims.risk_level,
    },
    organization_id: claims.organization_id,
    passport_id: claims.passport_id,
    did: claims.did,
    chain: claims.chain,
    parent_delegation_id: claims.delegation_id,
    credential: claims.credential,
    verification_tier: claims.verification_tier,
    identity_tier: claims.identity_tier,
    agent_did: claims.agent_did,
  };
}

/** The parent a principal delegates from: a delegation token's grant, or a signed-in person's session. */
function principalParent(principal: Principal, identityTier: number, at: Date): Parent | undefined {
  const actor = principal.actor;
  if (!actor) return undefined;
  const grant = actor.delegation;
  if (principal.kind === 'delegation_token' && grant) {
    const credential = actor.credential;
    if (credential.type === 'delegation_token') return undefined;
    return {
      bounds: {
        capabilities: principal.scopes,
        expires_at: epochSeconds(grant.expires_at),
        environment: grant.environment,
        risk_level: grant.risk_level,
      },
      organization_id: principal.organization_id,
      passport_id: actor.passport_id,
      did: actor.did,
      chain: grant.chain,
      parent_delegation_id: grant.delegation_id,
      credential: { type: credential.type, id: credential.id },
      verification_tier: grant.verification_tier,
      identity_tier: grant.identity_tier,
      agent_did: grant.agent_did ?? null,
    };
  }
  if (principal.kind === 'session' && actor.credential.type !== 'delegation_token') {
    const credential = { type: actor.credential.type, id: actor.credential.id };
    return sessionParent(
      { passport_id: actor.passport_id, did: actor.did, organization_id: principal.organization_id, credential },
      identityTier,
      at,
    );
  }
  return undefined;
}

async function issue(
  deps: DelegationDeps,
  parent: Parent,
  request: DelegationRequest,
  agent: { did: string; agent_id: string } | null,
  at: Date,
): Promise<IssueOutcome> {
  const capabilities = [
    ...new Set(request.capabilities.length > 0 ? request.capabilities : DEFAULT_DELEGATION_CAPABILITIES),
  ];
  const expiresAt = new Date((epochSeconds(at) + request.duration_seconds) * 1000);
  const child: DelegationBounds = {
    capabilities,
    expires_at: epochSeconds(expiresAt),
    environment: request.environment ?? parent.bounds.environment,
    risk_level: request.risk_level,
  };
  const widening = wideningOf(parent.bounds, child);
  if (widening.length > 0) return { ok: false, code: 'delegation_widening', widening };

  const delegation_id = `dlg_${randomUUID()}`;
  const token_id = `dtk_${randomUUID()}`;
  const delegation: DelegationRow = {
    delegation_id,
    organization_id: parent.organization_id,
    passport_id: parent.passport_id,
    did: parent.did,
    agent_did: agent?.did ?? parent.agent_did,
    agent_id: agent?.agent_id ?? null,
    parent_delegation_id: parent.parent_delegation_id,
    chain: [...parent.chain, delegation_id],
    capabilities,
    environment: child.environment,
    risk_level: request.risk_level,
    verification_tier: parent.verification_tier,
    identity_tier: parent.identity_tier,
    credential_type: parent.credential.type,
    credential_id: parent.credential.id,
    created_at: new Date(epochSeconds(at) * 1000),
    expires_at: expiresAt,
    revoked_at: null,
  };
  if (
    !(await insertDelegation(deps.db, delegation, {
      token_id,
      delegation_id,
      created_at: delegation.created_at,
      expires_at: expiresAt,
    }))
  ) {
    return {
      ok: false,
      code: 'unauthorized',
      detail: `The ${parent.credential.type === 'passkey' ? 'passkey' : 'device key'} this delegation would act with is no longer active`,
    };
  }
  const token = await signDelegationToken(
    deps.keyRing,
    deps.settings,
    claimsOf(delegation, token_id, delegation.created_at),
  );
  return { ok: true, issued: { token, token_id, delegation } };
}

function claimsOf(delegation: DelegationRow, token_id: string, issuedAt: Date): DelegationClaims {
  return {
    token_id,
    delegation_id: delegation.delegation_id,
    chain: delegation.chain,
    passport_id: delegation.passport_id,
    did: delegation.did,
    organization_id: delegation.organization_id,
    agent_did: delegation.agent_did,
    capabilities: delegation.capabilities,
    environment: delegation.environment,
    risk_level: delegation.risk_level,
    verification_tier: delegation.verification_tier,
    identity_tier: delegation.identity_tier,
    credential: { type: delegation.credential_type, id: delegation.credential_id },
    issued_at: issuedAt,
    expires_at: delegation.expires_at,
  };
}

export interface ExchangeRequest extends DelegationRequest {
  subject_token: string;
  required_verification_tier?: number | undefined;
  required_identity_tier?: number | undefined;
}

/**
 * RFC 8693-style exchange: a session token (or a delegation token, to narrow it) for a delegation token the
 * person holds. The tiers are those of the sign-in the chain started from and of the Passport.
 */
export async function exchangeForDelegationToken(
  deps: DelegationDeps,
  request: ExchangeRequest,
): Promise<IssueOutcome> {
  const at = now(deps);
  let parent: Parent;
  if (isDelegationTokenHeader(request.subject_token)) {
    const verified = await verifyAndCheck(deps, request.subject_token);
    if (!verified.ok) return { ok: false, code: 'unauthorized', detail: verified.reason };
    parent = tokenParent(verified.claims);
  } else {
    const session = await authenticateSession(deps, request.subject_token);
    if (!session.ok) return { ok: false, code: 'unauthorized', detail: session.reason };
    const passport = await findPassportForDelegation(deps.db, session.session.passport_id);
    if (passport?.status !== 'active')
      return { ok: false, code: 'unauthorized', detail: 'The Passport of this session is not active' };
    parent = sessionParent(session.session, passport.identity_tier, at);
  }
  if (
    request.required_verification_tier !== undefined &&
    parent.verification_tier < request.required_verification_tier
  ) {
    return {
      ok: false,
      code: 'verification_tier_too_low',
      required: request.required_verification_tier,
      actual: parent.verification_tier,
    };
  }
  if (request.required_identity_tier !== undefined && parent.identity_tier < request.required_identity_tier) {
    return {
      ok: false,
      code: 'identity_tier_too_low',
      required: request.required_identity_tier,
      actual: parent.identity_tier,
    };
  }
  return issue(deps, parent, request, null, at);
}

/** A person's token (or session) delegates to an agent: the agent's token names it in act.sub and holds no more than the parent. */
export async function delegateToAgent(
  deps: DelegationDeps,
  principal: Principal,
  request: DelegationRequest & { agent_id: string },
): Promise<IssueOutcome> {
  const at = now(deps);
  const passport = principal.actor ? await findPassportForDelegation(deps.db, principal.actor.passport_id) : undefined;
  const parent = principalParent(principal, passport?.identity_tier ?? 0, at);
  if (!parent)
    return {
      ok: false,
      code: 'passport_required',
      detail: 'Only a person’s session or delegation token can delegate to an agent',
    };
  if (parent.agent_did !== null)
    return { ok: false, code: 'agent_delegation_refused', detail: `This token is held by ${parent.agent_did}` };
  const agent = await findAgentDid(deps.db, parent.organization_id, request.agent_id);
  if (!agent)
    return { ok: false, code: 'agent_not_found', detail: `No agent ${request.agent_id} in this organization` };
  return issue(deps, parent, request, agent, at);
}

async function verifyAndCheck(
  deps: DelegationDeps,
  token: string,
): Promise<{ ok: true; claims: DelegationClaims } | { ok: false; reason: string }> {
  const verified = await verifyDelegationToken(deps, token);
  if (!verified.ok) return verified;
  const revocation = await deps.revocations.check(verified.claims.token_id, verified.claims.chain);
  if (revocation.state === 'revoked')
    return {
      ok: false,
      reason:
        revocation.which === 'token' ? 'The delegation token has been revoked' : 'The delegation has been revoked',
    };
  // Fail closed: a token whose revocation this instance cannot confirm is not accepted.
  if (revocation.state === 'unknown')
    return {
      ok: false,
      reason: 'Whether the delegation token is revoked cannot be confirmed right now; retry shortly',
    };
  return verified;
}

/** The principal of a delegation token: the delegator's Passport and organization, the token's capabilities. */
export async function authenticateDelegationToken(
  deps: DelegationDeps,
  token: string,
): Promise<{ ok: true; principal: Principal } | { ok: false; reason: string }> {
  const verified = await verifyAndCheck(deps, token);
  if (!verified.ok) return verified;
  const { claims } = verified;
  return {
    ok: true,
    principal: {
      id: `dlg:${claims.delegation_id}`,
      kind: 'delegation_token',
      subject: claims.agent_did ?? claims.did,
      scopes: claims.capabilities,
      organization_id: claims.organization_id,
      actor: {
        passport_id: claims.passport_id,
        did: claims.did,
        credential: claims.credential,
        ...(claims.agent_did !== null ? { agent_id: claims.agent_did } : {}),
        delegation: {
          delegation_id: claims.delegation_id,
          token_id: claims.token_id,
          chain: claims.chain,
          ...(claims.agent_did !== null ? { agent_did: claims.agent_did } : {}),
          risk_level: claims.risk_level,
          environment: claims.environment,
          verification_tier: claims.verification_tier,
          identity_tier: claims.identity_tier,
          expires_at: claims.expires_at,
        },
      },
    },
  };
}

/** Whose delegations a principal sees: its organization's, and only its own when it is a Passport. */
export function delegationScope(principal: Principal): DelegationScope {
  return { organization_id: principal.organization_id, passport_id: principal.actor?.passport_id };
}

/** The DID a revocation names as its author: the caller's Passport, or the principal id of a scoped (non-Passport) caller. */
function revokerOf(principal: Principal): string {
  return principal.actor?.did ?? principal.id;
}

export type RotateOutcome =
  | { ok: true; issued: IssuedToken }
  | { ok: false; code: 'delegation_token_not_found' | 'delegation_token_not_active' }
  | { ok: false; code: 'passport_required' | 'delegation_outside_chain'; detail: string };

/**
 * Whether the caller proves the credential a token of this delegation acts with: a session of the same
 * Passport, or a delegation token whose own delegation is on the target's chain (itself or one above it).
 */
function mayReceiveTokenOf(principal: Principal, delegation: DelegationRow): boolean {
  const actor = principal.actor;
  if (!actor || actor.passport_id !== delegation.passport_id) return false;
  if (principal.kind === 'session') return true;
  return (
    principal.kind === 'delegation_token' &&
    actor.delegation !== undefined &&
    delegation.chain.includes(actor.delegation.delegation_id)
  );
}

/**
 * A new token (new jti) in the same delegation, same claims and expiry; the old one is revoked everywhere.
 * The new token acts as the delegator, so only a caller that proves the delegator's credential receives it.
 */
export async function rotateDelegationToken(
  deps: DelegationDeps,
  principal: Principal,
  tokenId: string,
  reason: string,
): Promise<RotateOutcome> {
  if (!principal.actor)
    return {
      ok: false,
      code: 'passport_required',
      detail:
        'A rotated token acts as its delegator: rotate with the person’s session or one of their delegation tokens',
    };
  const at = now(deps);
  const current = await findToken(deps.db, delegationScope(principal), tokenId);
  if (!current) return { ok: false, code: 'delegation_token_not_found' };
  if (!mayReceiveTokenOf(principal, current.delegation)) {
    return {
      ok: false,
      code: 'delegation_outside_chain',
      detail: `The caller’s delegation is not ${tokenId}’s or one above it: a token may rotate only its own delegation’s tokens or those below it`,
    };
  }
  if (current.status !== 'active' || current.delegation.revoked_at !== null)
    return { ok: false, code: 'delegation_token_not_active' };
  const token_id = `dtk_${randomUUID()}`;
  const revocation = revocationRow(principal, current.delegation, {
    token_id: tokenId,
    reason,
    metadata: { rotated_to: token_id },
    at,
  });
  const createdAt = new Date(epochSeconds(at) * 1000);
  const rotated = await recordRotation(
    deps.db,
    { token_id: tokenId, reason, at },
    { token_id, delegation_id: current.delegation_id, created_at: createdAt, expires_at: current.expires_at },
    revocation,
  );
  if (!rotated) return { ok: false, code: 'delegation_token_not_active' };
  deps.revocations.applyLocal(revocation);
  const token = await signDelegationToken(
    deps.keyRing,
    deps.settings,
    claimsOf(current.delegation, token_id, createdAt),
  );
  return { ok: true, issued: { token, token_id, delegation: current.delegation } };
}

function revocationRow(
  principal: Principal,
  delegation: DelegationRow,
  options: {
    token_id: string | null;
    reason: string | null;
    metadata: Record<string, unknown>;
    at: Date;
    revoked_by?: string;
  },
): RevocationRow {
  return {
    id: `rev_${randomUUID()}`,
    organization_id: delegation.organization_id,
    delegation_id: delegation.delegation_id,
    token_id: options.token_id,
    revoked_by: options.revoked_by ?? revokerOf(principal),
    revoked_at: options.at,
    reason: options.reason,
    metadata: options.metadata,
    expires_at: delegation.expires_at,
  };
}

export type RevokeTokenOutcome =
  | { ok: true; token: TokenWithDelegation }
  | { ok: false; code: 'delegation_token_not_found' | 'delegation_token_not_active' };

export async function revokeDelegationToken(
  deps: DelegationDeps,
  principal: Principal,
  tokenId: string,
  reason: string,
): Promise<RevokeTokenOutcome> {
  const at = now(deps);
  const scope = delegationScope(principal);
  const current = await findToken(deps.db, scope, tokenId);
  if (!current) return { ok: false, code: 'delegation_token_not_found' };
  const revocation = revocationRow(principal, current.delegation, { token_id: tokenId, reason, metadata: {}, at });
  if (!(await recordTokenRevocation(deps.db, { ...revocation, token_id: tokenId })))
    return { ok: false, code: 'delegation_token_not_active' };
  deps.revocations.applyLocal(revocation);
  return { ok: true, token: (await findToken(deps.db, scope, tokenId))! };
}

export type RevokeDelegationOutcome =
  | { ok: true; revocation: RevocationRow; created: boolean }
  | { ok: false; code: 'delegation_not_found' }
  | { ok: false; code: 'revoked_by_mismatch'; detail: string };

/** Revokes a delegation for good: every token of it, and every delegation made from it. Revoking again returns the first revocation. */
export async function revokeDelegation(
  deps: DelegationDeps,
  principal: Principal,
  delegationId: string,
  request: {
    revoked_by?: string | undefined;
    reason?: string | undefined;
    metadata?: Record<string, unknown> | undefined;
  },
): Promise<RevokeDelegationOutcome> {
  const revoker = revokerOf(principal);
  if (request.revoked_by !== undefined && request.revoked_by !== revoker) {
    return {
      ok: false,
      code: 'revoked_by_mismatch',
      detail: `revoked_by is ${request.revoked_by}, the caller is ${revoker}`,
    };
  }
  const delegation = await findDelegation(deps.db, delegationScope(principal), delegationId);
  if (!delegation) return { ok: false, code: 'delegation_not_found' };
  const revocation = revocationRow(principal, delegation, {
    token_id: null,
    reason: request.reason ?? null,
    metadata: request.metadata ?? {},
    at: now(deps),
    revoked_by: revoker,
  });
  const result = await recordDelegationRevocation(deps.db, revocation);
  deps.revocations.applyLocal(result.revocation);
  return { ok: true, ...result };
}

export type DelegationStatus = 'active' | 'revoked' | 'expired';

/** A delegation and whether it (or one above it) is revoked or expired. */
export async function delegationStatus(
  deps: DelegationDeps,
  principal: Principal,
  delegationId: string,
): Promise<{ delegation: DelegationRow; status: DelegationStatus; revocation: RevocationRow | undefined } | undefined> {
  const delegation = await findDelegation(deps.db, delegationScope(principal), delegationId);
  if (!delegation) return undefined;
  let revocation: RevocationRow | undefined;
  for (const id of delegation.chain) {
    revocation = await findFamilyRevocation(deps.db, id);
    if (revocation) break;
  }
  const status: DelegationStatus = revocation
    ? 'revoked'
    : delegation.expires_at.getTime() <= now(deps).getTime()
      ? 'expired'
      : 'active';
  return { delegation, status, revocation };
}
