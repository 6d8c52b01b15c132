import type { Knex } from 'knex';
import { upsertTokenSubject } from '../../../db/credentials';

/**
 * An access token with no service account behind it (no client_id) is trusted for the org and scope it
 * claims only when its subject is registered in that organization with at least those scopes
 * (authenticateBearer): the signing key alone would otherwise make any claim, cloud:admin:global included,
 * as good as a grant. Whoever mints such tokens (the dev admin's of `npm start`, the test stack) registers
 * their subjects first; registering again widens the registration to the new scopes too.
 */
export async function registerTokenSubject(
  db: Knex,
  subject: { subject: string; organizationId: string; scopes: readonly string[] },
): Promise<void> {
  await upsertTokenSubject(db, {
    subject: subject.subject,
    organization_id: subject.organizationId,
    scopes: [...subject.scopes],
  });
}
