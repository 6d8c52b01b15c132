import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { lockDelegationsOfCredential, recordDelegationRevocations, type RevocationRow } from '../../../db/delegation';
import type { RevocationRegistry } from './revocations';

export interface RevokedCredential {
  type: 'passkey' | 'device_key';
  id: string;
}

/**
 * Inside the transaction that revokes a passkey or device key: every live delegation exchanged from a session
 * of it (and so, through their chains, every delegation below them) is revoked with it, or neither is.
 */
export async function revokeDelegationsOfCredential(
  trx: Knex.Transaction,
  credential: RevokedCredential,
  cause: { revoked_by: string; reason: string; at: Date },
): Promise<RevocationRow[]> {
  const delegations = await lockDelegationsOfCredential(trx, credential, cause.at);
  const revocations: RevocationRow[] = delegations.map((delegation) => ({
    id: `rev_${randomUUID()}`,
    organization_id: delegation.organization_id,
    delegation_id: delegation.delegation_id,
    token_id: null,
    revoked_by: cause.revoked_by,
    revoked_at: cause.at,
    reason: cause.reason,
    metadata: { credential_type: credential.type, credential_id: credential.id },
    expires_at: delegation.expires_at,
  }));
  await recordDelegationRevocations(trx, revocations);
  return revocations;
}

/** After the commit: this instance refuses the tokens at once; the others hear the notification. */
export function applyCredentialRevocations(registry: RevocationRegistry, revocations: readonly RevocationRow[]): void {
  for (const revocation of revocations) registry.applyLocal(revocation);
}
