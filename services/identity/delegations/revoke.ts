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
