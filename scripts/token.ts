/**
 * `npm run token -- [--name NAME] [--scopes orch:read,orch:write] [--days N] [--organization ORG_ID]`: mints a
 * personal access token in the organization (the default one unless named), prints it once, and stores only
 * its hash. Uses DATABASE_URL, or the embedded Postgres of `npm start` (running or not).
 */
import { parseArgs } from 'node:util';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';
import { findOrganization } from '../db/organizations';
import { DEFAULT_ORGANIZATION_ID } from '../domain/organizations';
import { isGrantableScope, mintPersonalAccessToken, SCOPES } from '../services/auth/tokens';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      name: { type: 'string', default: 'cli' },
      organization: { type: 'string', default: DEFAULT_ORGANIZATION_ID },
      scopes: { type: 'string', default: SCOPES.join(',') },
      days: { type: 'string' },
    },
  });
  const scopes = values.scopes.split(',').map((scope) => scope.trim()).filter(Boolean);
  const unknown = scopes.filter((scope) => !isGrantableScope(scope));
  if (unknown.length > 0 || scopes.length === 0) throw new Error(`Scopes must be among ${SCOPES.join(', ')}, or prompt grants (prompt:read:<key>); got ${values.scopes}`);
  const days = values.days === undefined ? undefined : Number(values.days);
  if (days !== undefined && !(days > 0)) throw new Error('--days must be a positive number');

  const database = await openDatabase(loadConfig(process.env), { serveEmbedded: false });
  try {
    await migrateToLatest(database.db);
    if (!(await findOrganization(database.db, values.organization))) throw new Error(`No organization ${values.organization}`);
    const { token, token_id } = await mintPersonalAccessToken(database.db, {
      name: values.name,
      scopes,
      organizationId: values.organization,
      expiresAt: days === undefined ? null : new Date(Date.now() + days * 86_400_000),
      createdBy: 'npm run token',
    });
    console.log(`Personal access token ${token_id} in ${values.organization} (${scopes.join(' ')}) — shown once, store it now:\n${token}`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
