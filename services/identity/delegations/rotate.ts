import { randomUUID } from 'node:crypto';
import { findToken, rotateToken as recordRotation, type DelegationRow } from '../../../db/delegation';
import { signDelegationToken } from '../issuance/delegation-tokens';
import type { Principal } from '../scopes';
import { delegationScope, epochSeconds, now, type DelegationDeps } from './context';
import { claimsOf } from './grant';
import type { IssuedToken } from './issue';
import { revocationRow } from './revoke';

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
