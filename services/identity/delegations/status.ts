import { findDelegation, findFamilyRevocation, type DelegationRow, type RevocationRow } from '../../../db/delegation';
import type { Principal } from '../scopes';
import { delegationScope, now, type DelegationDeps } from './context';

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
