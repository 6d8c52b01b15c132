import type { DelegationRow } from '../../../db/delegation';
import type { Grant, SignInCredential } from '../../../contracts/aggregates/delegation';
import { SIGNED_IN_PERSON_GRANTS } from '../../../domain/identity/capabilities';
import type { DelegationBounds } from '../../../domain/identity/delegation-bounds';
import { verificationTierOf } from '../../../domain/identity/verification-tiers';
import type { DelegationGrant } from '../authentication/actor';
import type { DelegationClaims } from '../issuance/delegation-tokens';
import type { Principal } from '../scopes';
import { epochSeconds, MAX_DELEGATION_SECONDS } from './context';

export type { Grant };

/** A signed-in session: who signed in, where, and with which passkey or device key. */
interface Session {
  passport_id: string;
  did: string;
  organization_id: string;
  credential: SignInCredential;
}

/**
 * Where a grant comes from: a stored delegation (what its tokens carry), a signed-in session (a root: what a
 * signed-in person holds, for up to the longest a delegation may last), or whatever a caller holds (its
 * delegation token's grant, or its session). A delegation token's verified claims are a grant already.
 */
export type GrantSource =
  | { delegation: DelegationRow }
  | { session: Session; identity_tier: number; at: Date }
  | { principal: Principal; identity_tier: number; at: Date };

/** The grant of a source; undefined when a principal holds none (not a person's session or delegation token). */
export function grantOf(
  source: { delegation: DelegationRow } | { session: Session; identity_tier: number; at: Date },
): Grant;
export function grantOf(source: GrantSource): Grant | undefined;
export function grantOf(source: GrantSource): Grant | undefined {
  if ('delegation' in source) {
    const { delegation } = source;
    return {
      ...pickGrant(delegation),
      delegation_id: delegation.delegation_id,
      credential: { type: delegation.credential_type, id: delegation.credential_id },
    };
  }
  if ('session' in source) {
    const { session } = source;
    return {
      organization_id: session.organization_id,
      passport_id: session.passport_id,
      did: session.did,
      agent_did: null,
      chain: [],
      capabilities: [...SIGNED_IN_PERSON_GRANTS],
      environment: null,
      risk_level: 'high',
      verification_tier: verificationTierOf(session.credential.type),
      identity_tier: source.identity_tier,
      expires_at: new Date((epochSeconds(source.at) + MAX_DELEGATION_SECONDS) * 1000),
      delegation_id: null,
      credential: session.credential,
    };
  }
  return principalGrant(source.principal, source.identity_tier, source.at);
}

function pickGrant(held: Omit<Grant, 'delegation_id' | 'credential'>): Omit<Grant, 'delegation_id' | 'credential'> {
  return {
    organization_id: held.organization_id,
    passport_id: held.passport_id,
    did: held.did,
    agent_did: held.agent_did,
    chain: held.chain,
    capabilities: held.capabilities,
    environment: held.environment,
    risk_level: held.risk_level,
    verification_tier: held.verification_tier,
    identity_tier: held.identity_tier,
    expires_at: held.expires_at,
  };
}

/** What a caller holds: its delegation token's grant (its scopes are the token's capabilities), or its session's. */
function principalGrant(principal: Principal, identityTier: number, at: Date): Grant | undefined {
  const actor = principal.actor;
  if (!actor || actor.credential.type === 'delegation_token') return undefined;
  const credential = { type: actor.credential.type, id: actor.credential.id };
  const held = actor.delegation;
  if (principal.kind === 'delegation_token' && held) {
    return {
      ...pickGrant({
        ...held,
        organization_id: principal.organization_id,
        passport_id: actor.passport_id,
        did: actor.did,
        agent_did: held.agent_did ?? null,
        capabilities: principal.scopes,
      }),
      delegation_id: held.delegation_id,
      credential,
    };
  }
  if (principal.kind !== 'session') return undefined;
  const session = {
    passport_id: actor.passport_id,
    did: actor.did,
    organization_id: principal.organization_id,
    credential,
  };
  return grantOf({ session, identity_tier: identityTier, at });
}

/** A grant's bounds, which a delegation made from it may narrow and never widen. */
export function boundsOf(grant: Grant): DelegationBounds {
  return {
    capabilities: grant.capabilities,
    expires_at: epochSeconds(grant.expires_at),
    environment: grant.environment,
    risk_level: grant.risk_level,
  };
}

/** The claims of a token of a delegation. */
export function claimsOf(delegation: DelegationRow, token_id: string, issuedAt: Date): DelegationClaims {
  const grant = grantOf({ delegation });
  return { ...grant, delegation_id: delegation.delegation_id, token_id, issued_at: issuedAt };
}

/** The delegation a verified token belongs to, as the authenticated actor names it. */
export function delegationGrantOf(claims: DelegationClaims): DelegationGrant {
  return {
    delegation_id: claims.delegation_id,
    token_id: claims.token_id,
    chain: claims.chain,
    ...(claims.agent_did !== null ? { agent_did: claims.agent_did } : {}),
    risk_level: claims.risk_level,
    environment: claims.environment,
    verification_tier: claims.verification_tier,
    identity_tier: claims.identity_tier,
    expires_at: claims.expires_at,
  };
}
