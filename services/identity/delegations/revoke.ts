import { randomUUID } from 'node:crypto';
import {
  findDelegation,
  findToken,
  revokeDelegation as recordDelegationRevocation,
  revokeToken as recordTokenRevocation,
  type DelegationRow,
  type RevocationRow,
  type TokenWithDelegation,
} from '../../../db/delegation';
import type { Principal } from '../scopes';
import { delegationScope, now, type DelegationDeps } from './context';

/** The DID a revocation names as its author: the caller's Passport, or the principal id of a scoped (non-Passport) caller. */
function revokerOf(principal: Principal): string {
  return principal.actor?.did ?? principal.id;
}

export function revocationRow(
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

/** A revoke refused because the caller's delegation token is neither the target's delegation nor above it on its chain. */
export type OutsideChainRefusal = { ok: false; code: 'delegation_outside_chain'; detail: string };

/**
 * Whether the caller may revoke the delegation (or a token of it): a delegation token only its own delegation or one
 * made from it (the target's chain holds the caller's), so a narrowed or an agent's token cannot end its delegator's.
 * A session (the scope shows it only its Passport's delegations) and an organization-level caller: any it sees.
 */
function outsideChainRefusal(principal: Principal, delegation: DelegationRow): OutsideChainRefusal | undefined {
  if (principal.kind !== 'delegation_token') return undefined;
  const own = principal.actor?.delegation?.delegation_id;
  if (own !== undefined && delegation.chain.includes(own)) return undefined;
  return {
    ok: false,
    code: 'delegation_outside_chain',
    detail: `The caller’s delegation is not ${delegation.delegation_id} or one above it: a delegation token may revoke only its own delegation or those made from it`,
  };
}

export type RevokeTokenOutcome =
  | { ok: true; token: TokenWithDelegation }
  | { ok: false; code: 'delegation_token_not_found' | 'delegation_token_not_active' }
  | OutsideChainRefusal;

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
  const refusal = outsideChainRefusal(principal, current.delegation);
  if (refusal) return refusal;
  const revocation = revocationRow(principal, current.delegation, { token_id: tokenId, reason, metadata: {}, at });
  if (!(await recordTokenRevocation(deps.db, { ...revocation, token_id: tokenId })))
    return { ok: false, code: 'delegation_token_not_active' };
  deps.revocations.applyLocal(revocation);
  return { ok: true, token: (await findToken(deps.db, scope, tokenId))! };
}

export type RevokeDelegationOutcome =
  | { ok: true; revocation: RevocationRow; created: boolean }
  | { ok: false; code: 'delegation_not_found' }
  | { ok: false; code: 'revoked_by_mismatch'; detail: string }
  | OutsideChainRefusal;

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
  const refusal = outsideChainRefusal(principal, delegation);
  if (refusal) return refusal;
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
