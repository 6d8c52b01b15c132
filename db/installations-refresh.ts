import type { Knex } from 'knex';

/** Active installations holding a refresh token whose access token expires within `aheadSeconds`, soonest first. */
export async function installationsDueForRefresh(
  db: Knex,
  aheadSeconds: number,
  limit: number,
): Promise<Array<{ installation_id: string; organization_id: string }>> {
  return db('connector_tokens as t')
    .join('connector_installations as i', 'i.installation_id', 't.installation_id')
    .where('i.status', 'active')
    .whereNotNull('t.refresh_token_sealed')
    .whereNotNull('t.expires_at')
    .where('t.expires_at', '<', db.raw(`now() + make_interval(secs => ?)`, [aheadSeconds]))
    .orderBy('t.expires_at')
    .limit(limit)
    .select('i.installation_id', 'i.organization_id');
}
