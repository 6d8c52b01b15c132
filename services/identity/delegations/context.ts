import type { Knex } from 'knex';
import type { DelegationScope } from '../../../db/delegation';
import type { TokenSettings } from '../authentication/actor';
import type { KeyRing } from '../issuance/key-ring';
import type { Principal } from '../scopes';
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

export const now = (deps: DelegationDeps) => (deps.clock ?? (() => new Date()))();
export const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Whose delegations a principal sees: its organization's, and only its own when it is a Passport. */
export function delegationScope(principal: Principal): DelegationScope {
  return { organization_id: principal.organization_id, passport_id: principal.actor?.passport_id };
}
