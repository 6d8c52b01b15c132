import type { Knex } from 'knex';
import { Installation } from '../contracts/aggregates/installation';
import type { AuthorizationFailure, InstallationStatus } from '../domain/marketplace/connectors';
import { HEALTH_WINDOW_HOURS, type RecordedCalls } from '../domain/marketplace/health';
import type { StateClaim } from '../domain/marketplace/oauth-callback';
import { paginate, type Page, type PageRequest } from './pagination';

const COLUMNS = Object.keys(Installation.shape).map((column) => `i.${column}`);
/** The view's columns: last_invocation_at is read from the recorded invocations, not from the stored column. */
const LISTED_COLUMNS = COLUMNS.filter((column) => column !== 'i.last_invocation_at');

/** An installation with what its view shows beside it: its connector's names and its recorded calls. */
export interface InstallationListed extends Installation {
  connector: { connector_id: string; name: string; provider: string };
  invocation_count_30d: number;
  /** Its calls in the health window (domain/marketplace/health.ts), which its health_status is read from. */
  recorded_calls: RecordedCalls;
}

function listedQuery(db: Knex) {
  return db('connector_installations as i')
    .join('marketplace_connectors as c', 'c.connector_id', 'i.connector_id')
    .select(
      ...LISTED_COLUMNS,
      db.raw(`json_build_object('connector_id', c.connector_id, 'name', c.name, 'provider', c.provider) as connector`),
      db.raw(
        `(select count(*)::int from connector_invocations v where v.installation_id = i.installation_id
            and v.invoked_at > now() - interval '30 days') as invocation_count_30d`,
      ),
      db.raw(
        `(select max(v.invoked_at) from connector_invocations v where v.installation_id = i.installation_id)
            as last_invocation_at`,
      ),
      db.raw(
        `(select json_build_object('calls', count(*), 'failed', count(*) filter (where not v.succeeded))
            from connector_invocations v where v.installation_id = i.installation_id
             and v.invoked_at > now() - interval '${HEALTH_WINDOW_HOURS} hours') as recorded_calls`,
      ),
    );
}

export async function findInstallation(
  db: Knex,
  organizationId: string,
  installationId: string,
): Promise<InstallationListed | undefined> {
  return listedQuery(db)
    .where({ 'i.installation_id': installationId, 'i.organization_id': organizationId })
    .first<InstallationListed | undefined>();
}

export async function findInstallationOfConnector(
  db: Knex,
  organizationId: string,
  connectorId: string,
): Promise<InstallationListed | undefined> {
  return listedQuery(db)
    .where({ 'i.connector_id': connectorId, 'i.organization_id': organizationId })
    .first<InstallationListed | undefined>();
}

export async function listInstallations(
  db: Knex,
  organizationId: string,
  page: PageRequest,
  filters: { status?: InstallationStatus | undefined },
): Promise<Page<InstallationListed>> {
  const query = db.from(listedQuery(db).where('i.organization_id', organizationId).as('l')).select('l.*');
  if (filters.status) query.where('l.status', filters.status);
  return paginate<InstallationListed>(query, page);
}

/** What an install asks for; the attempt, version and timestamps are the table's to set. */
export type InstallAttempt = Pick<
  Installation,
  | 'installation_id'
  | 'organization_id'
  | 'connector_id'
  | 'status'
  | 'deployment_mode'
  | 'config'
  | 'granted_permissions'
  | 'installed_by'
  | 'oauth_expires_at'
>;

/**
 * The organization's installation of the connector, new (attempt 1) or installed again under the same id
 * (the next attempt, which any state or workflow of an older attempt no longer matches).
 */
export async function beginInstallAttempt(trx: Knex.Transaction, attempt: InstallAttempt): Promise<Installation> {
  const row = {
    ...attempt,
    config: JSON.stringify(attempt.config),
    granted_permissions: JSON.stringify(attempt.granted_permissions),
    version: 1,
    attempt: 1,
    status_reason: null,
    installed_at: trx.fn.now(),
    updated_at: trx.fn.now(),
  };
  const [stored] = await trx
    .raw<{ rows: Installation[] }>(
      `insert into connector_installations as i (${Object.keys(row).join(', ')})
     values (${Object.keys(row)
       .map(() => '?')
       .join(', ')})
     on conflict (organization_id, connector_id) do update set
       attempt = i.attempt + 1, version = i.version + 1, status = excluded.status,
       status_reason = case when i.status = 'needs_reauth' and excluded.status = 'pending_oauth' then 'reconnecting' end,
       deployment_mode = excluded.deployment_mode, config = excluded.config,
       granted_permissions = excluded.granted_permissions, installed_by = excluded.installed_by,
       installed_at = excluded.installed_at, updated_at = excluded.updated_at,
       oauth_expires_at = excluded.oauth_expires_at, uninstalled_at = null
     returning ${Object.keys(Installation.shape).join(', ')}`,
      Object.values(row),
    )
    .then((result) => result.rows);
  return stored!;
}

/** An installation whose tokens the provider no longer takes; undefined unless it was active. */
export async function markNeedsReauth(
  trx: Knex.Transaction,
  installationId: string,
): Promise<Installation | undefined> {
  const [row] = await trx('connector_installations')
    .where({ installation_id: installationId, status: 'active' })
    .update({
      status: 'needs_reauth',
      status_reason: 'invalid_grant',
      version: trx.raw('version + 1'),
      updated_at: trx.fn.now(),
    })
    .returning<Installation[]>(Object.keys(Installation.shape));
  return row;
}

/** The attempt's ending while it still waits for consent; undefined when it no longer does (ended, or superseded). */
export async function endPendingAttempt(
  db: Knex | Knex.Transaction,
  installationId: string,
  attempt: number,
  ending: { status: 'active' } | { status: 'authorization_failed'; reason: AuthorizationFailure },
): Promise<Installation | undefined> {
  const [row] = await db('connector_installations')
    .where({ installation_id: installationId, attempt, status: 'pending_oauth' })
    .update({
      status: ending.status,
      // An installation that needed re-authorization and is active again says so until its next change.
      status_reason:
        'reason' in ending ? ending.reason : db.raw(`case when status_reason = 'reconnecting' then 'reconnected' end`),
      oauth_expires_at: null,
      version: db.raw('version + 1'),
      updated_at: db.fn.now(),
    })
    .returning<Installation[]>(Object.keys(Installation.shape));
  return row;
}

export async function findConnectorIdOfInstallation(db: Knex, installationId: string): Promise<string | undefined> {
  const row = await db('connector_installations')
    .select('connector_id')
    .where({ installation_id: installationId })
    .first<{ connector_id: string } | undefined>();
  return row?.connector_id;
}

export async function findInstallationAttempt(
  db: Knex,
  installationId: string,
): Promise<Pick<Installation, 'attempt' | 'status' | 'status_reason'> | undefined> {
  return db('connector_installations')
    .select('attempt', 'status', 'status_reason')
    .where({ installation_id: installationId })
    .first<Pick<Installation, 'attempt' | 'status' | 'status_reason'> | undefined>();
}

export async function insertOAuthState(
  trx: Knex.Transaction,
  state: {
    state_hash: string;
    installation_id: string;
    attempt: number;
    code_verifier_sealed: string;
    redirect_uri: string;
    expires_at: Date;
  },
): Promise<void> {
  await trx('connector_oauth_states').insert(state);
}

/**
 * Claims a state for its callback in one statement: only a state that exists, was never claimed, has not
 * expired and belongs to the attempt its installation still waits on is taken. Two callbacks with the same
 * state at once: the row lock makes the second re-check and find it claimed.
 */
export async function claimOAuthState(db: Knex, stateHash: string): Promise<StateClaim> {
  const { rows } = await db.raw<{
    rows: Array<{
      claimed: { installation_id: string; attempt: number; expires_at: string } | null;
      found: { used: boolean; expired: boolean } | null;
    }>;
  }>(
    `with claimed as (
       update connector_oauth_states s set claimed_at = now()
       from connector_installations i
       where s.state_hash = ? and s.claimed_at is null and s.expires_at > now()
         and i.installation_id = s.installation_id and i.attempt = s.attempt and i.status = 'pending_oauth'
       returning s.installation_id, s.attempt, s.expires_at)
     select (select row_to_json(c) from claimed c) as claimed,
            (select json_build_object('used', s.claimed_at is not null, 'expired',
                 s.expires_at <= now() or i.attempt <> s.attempt or i.status <> 'pending_oauth')
               from connector_oauth_states s join connector_installations i using (installation_id)
              where s.state_hash = ?) as found`,
    [stateHash, stateHash],
  );
  const { claimed, found } = rows[0]!;
  if (claimed) return { kind: 'claimed', ...claimed, expires_at: new Date(claimed.expires_at).toISOString() };
  if (!found) return { kind: 'unknown' };
  // A state read unclaimed by this statement's snapshot but not taken was claimed at the same moment by another.
  if (found.used || !found.expired) return { kind: 'already_used' };
  return { kind: 'expired' };
}

/** The PKCE verifier and redirect URI of the attempt's claimed state: what the code exchange must send. */
export async function findClaimedState(
  db: Knex,
  installationId: string,
  attempt: number,
): Promise<{ code_verifier_sealed: string; redirect_uri: string } | undefined> {
  return db('connector_oauth_states')
    .select('code_verifier_sealed', 'redirect_uri')
    .where({ installation_id: installationId, attempt })
    .whereNotNull('claimed_at')
    .first<{ code_verifier_sealed: string; redirect_uri: string } | undefined>();
}

/** Locks the organization's installation of the connector for a change. */
export async function lockInstallation(
  trx: Knex.Transaction,
  organizationId: string,
  where: { installation_id: string } | { connector_id: string },
): Promise<Installation | undefined> {
  return trx('connector_installations')
    .select(Object.keys(Installation.shape))
    .where({ organization_id: organizationId, ...where })
    .forUpdate()
    .first<Installation | undefined>();
}

export async function changeInstallation(
  trx: Knex.Transaction,
  installationId: string,
  changes: Partial<Pick<Installation, 'status' | 'status_reason' | 'config' | 'uninstalled_at' | 'oauth_expires_at'>>,
): Promise<Installation> {
  const [row] = await trx('connector_installations')
    .where({ installation_id: installationId })
    .update({
      ...changes,
      ...(changes.config ? { config: JSON.stringify(changes.config) } : {}),
      version: trx.raw('version + 1'),
      updated_at: trx.fn.now(),
    })
    .returning<Installation[]>(Object.keys(Installation.shape));
  return row!;
}

/** An installation whatever its organization: only for rules that compare its organization with the caller's. */
export async function findInstallationAnywhere(
  db: Knex,
  installationId: string,
): Promise<Pick<Installation, 'organization_id' | 'connector_id' | 'status'> | undefined> {
  return db('connector_installations')
    .select('organization_id', 'connector_id', 'status')
    .where({ installation_id: installationId })
    .first<Pick<Installation, 'organization_id' | 'connector_id' | 'status'> | undefined>();
}
