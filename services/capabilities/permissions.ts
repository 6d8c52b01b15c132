import type { Knex } from 'knex';
import { CAPABILITIES, CAPABILITY_NAMES, SIGNED_IN_PERSON_CAPABILITIES } from '../../domain/identity/capabilities';
import { grants, type Principal } from '../identity/scopes';
import { heldCapabilities } from './grants';

export interface Permission {
  capability: string;
  source: 'role' | 'delegation' | 'grant';
  /** What gives it: the scope (role), the delegation id, or the grant id. */
  via: string;
  weight: number | null;
  expires_at: string | null;
}

/**
 * The caller's effective capabilities and where each comes from: a role (the scopes its credential holds, or
 * being a signed-in person), a delegation (the capabilities its delegation token carries), and the capability
 * grants of its Passport's DID.
 */
export async function effectivePermissions(db: Knex, principal: Principal): Promise<Permission[]> {
  const permissions: Permission[] = [];
  const delegation = principal.actor?.delegation;
  if (delegation) {
    for (const capability of principal.scopes)
      permissions.push({
        capability,
        source: 'delegation',
        via: delegation.delegation_id,
        weight: null,
        expires_at: delegation.expires_at.toISOString(),
      });
  } else if (principal.kind === 'session') {
    for (const capability of SIGNED_IN_PERSON_CAPABILITIES)
      permissions.push({ capability, source: 'role', via: 'signed_in_person', weight: null, expires_at: null });
  } else {
    for (const capability of CAPABILITY_NAMES) {
      const scope = CAPABILITIES[capability].implied_by;
      if (grants(principal.scopes, scope))
        permissions.push({ capability, source: 'role', via: scope, weight: null, expires_at: null });
    }
  }
  if (principal.actor)
    for (const held of await heldCapabilities(db, principal.organization_id, principal.actor.did))
      permissions.push({
        capability: held.capability_id,
        source: 'grant',
        via: held.grant_id,
        weight: held.weight,
        expires_at: held.expires_at,
      });
  return permissions;
}
