/**
 * `npm run token -- --scopes orch:read,orch:write [--name NAME] [--days N] [--organization ORG_ID]`: mints a
 * personal access token in the organization (the default one unless named), prints it once, and stores only
 * its hash. Uses DATABASE_URL, or the embedded Postgres of `npm start` (running or not). `--help` says so.
 */
import { parseArgs } from 'node:util';
import { migrateToLatest } from '../db/migrate';
import { loadConfig } from '../app/config';
import { openDatabase } from '../app/database';
import { findOrganization } from '../db/organizations';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { isGrantableScope, SCOPES } from '../services/identity/scopes';
import { mintPersonalAccessToken } from '../services/identity/issuance/access-tokens';

const USAGE = `Usage: npm run token -- --scopes <scope,scope,…> [--name <name>] [--days <n>] [--organization <org_id>]

Mints a personal access token (hnd_pat_…), prints it once and stores only its hash.

  --scopes        required: the scopes the token holds, comma-separated, of
                  ${SCOPES.join(', ')},
                  or prompt grants (prompt:read:<key>). Name only what the token needs: there is no default.
  --name          a label to recognize it by (default: cli)
  --days          expires after this many days (default: never; revoke it with DELETE /v1/auth/tokens/{token_id})
  --organization  the organization it belongs to (default: ${DEFAULT_ORGANIZATION_ID})
  --help          this text

Uses DATABASE_URL, or the embedded Postgres of \`npm start\` (running or not).`;

class UsageError extends Error {}

function parseOptions(
  argv: string[],
): { help: true } | { help: false; name: string; organization: string; scopes: string[]; days: number | undefined } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        name: { type: 'string', default: 'cli' },
        organization: { type: 'string', default: DEFAULT_ORGANIZATION_ID },
        scopes: { type: 'string' },
        days: { type: 'string' },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return { help: true };
  // No default: a token that silently held every scope (cloud:admin:global included) would be the easiest one to mint.
  if (values.scopes === undefined)
    throw new UsageError('--scopes is required: name the scopes the token needs, e.g. --scopes orch:read');
  const scopes = values.scopes
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !isGrantableScope(scope));
  if (unknown.length > 0 || scopes.length === 0)
    throw new UsageError(
      `Scopes must be among ${SCOPES.join(', ')}, or prompt grants (prompt:read:<key>); got ${values.scopes}`,
    );
  const days = values.days === undefined ? undefined : Number(values.days);
  if (days !== undefined && !(days > 0)) throw new UsageError('--days must be a positive number');
  return { help: false, name: values.name, organization: values.organization, scopes, days };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const database = await openDatabase(loadConfig(process.env), { serveEmbedded: false });
  try {
    await migrateToLatest(database.db);
    if (!(await findOrganization(database.db, options.organization)))
      throw new Error(`No organization ${options.organization}`);
    const { token, token_id } = await mintPersonalAccessToken(database.db, {
      name: options.name,
      scopes: options.scopes,
      organizationId: options.organization,
      expiresAt: options.days === undefined ? null : new Date(Date.now() + options.days * 86_400_000),
      createdBy: 'npm run token',
    });
    console.log(
      `Personal access token ${token_id} in ${options.organization} (${options.scopes.join(' ')}) — shown once, store it now:\n${token}`,
    );
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  if (error instanceof UsageError) console.error('\nRun `npm run token -- --help` for the options.');
  process.exit(error instanceof UsageError ? 2 : 1);
});
