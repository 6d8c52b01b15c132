import type { Knex } from 'knex';
import type { LinkChannel, StoredLink } from '../domain/notifications/links';
import type { RiskLevel } from '../domain/routing/risk';

type LinkRow = Omit<StoredLink, 'expires_at' | 'used_at'> & { expires_at: Date; used_at: Date | null };

const LINK_COLUMNS = [
  'link_id',
  'organization_id',
  'item_kind',
  'item_id',
  'action',
  'channel',
  'passport_id',
  'person_did',
  'expires_at',
  'used_at',
];

function linkOf(row: LinkRow): StoredLink {
  return {
    ...row,
    expires_at: row.expires_at.toISOString(),
    used_at: row.used_at ? row.used_at.toISOString() : undefined,
  };
}

/** Stores links by their hashes; a hash stored before (a retried activity's) is kept as it was. */
export async function insertLinks(db: Knex, links: Array<StoredLink & { link_hash: string }>): Promise<void> {
  await db('decision_links')
    .insert(links.map(({ used_at: _used, ...link }) => link))
    .onConflict('link_hash')
    .ignore();
}

export async function findLinkByHash(db: Knex, linkHash: string): Promise<StoredLink | undefined> {
  const row: LinkRow | undefined = await db('decision_links').where({ link_hash: linkHash }).first(LINK_COLUMNS);
  return row && linkOf(row);
}

/** Uses the link once: the conditional write only an unused, unexpired link takes. Undefined: it was not. */
export async function claimLink(db: Knex, linkHash: string, via: LinkChannel): Promise<StoredLink | undefined> {
  const [row] = await db('decision_links')
    .where({ link_hash: linkHash })
    .whereNull('used_at')
    .where('expires_at', '>', db.fn.now())
    .update({ used_at: db.fn.now(), used_via: via })
    .returning<LinkRow[]>(LINK_COLUMNS);
  return row && linkOf(row);
}

/** Gives a claimed link back, when its decision was refused for a reason that may pass (a storage refusal). */
export async function releaseLink(db: Knex, linkHash: string): Promise<void> {
  await db('decision_links').where({ link_hash: linkHash }).update({ used_at: null, used_via: null });
}

/** Every other link of the same item and person: one decision spends them all. */
export async function spendSiblingLinks(db: Knex, link: StoredLink, via: LinkChannel): Promise<void> {
  await db('decision_links')
    .where({ organization_id: link.organization_id, item_id: link.item_id, passport_id: link.passport_id })
    .whereNull('used_at')
    .update({ used_at: db.fn.now(), used_via: via });
}

export interface NotificationPolicyRow {
  organization_id: string;
  slack_webhook_url_sealed: string | null;
  passkey_required_above: RiskLevel | null;
  updated_at: Date;
}

export async function findNotificationPolicy(
  db: Knex,
  organizationId: string,
): Promise<NotificationPolicyRow | undefined> {
  return db<NotificationPolicyRow>('notification_policies').where({ organization_id: organizationId }).first();
}

export async function upsertNotificationPolicy(
  db: Knex,
  policy: Omit<NotificationPolicyRow, 'updated_at'>,
): Promise<NotificationPolicyRow> {
  const [row] = await db('notification_policies')
    .insert({ ...policy, updated_at: db.fn.now() })
    .onConflict('organization_id')
    .merge()
    .returning<NotificationPolicyRow[]>('*');
  return row!;
}

/** Where a person is reached: the reviewer linked to their Passport (or with their DID) that has an address. */
export async function findPersonContact(
  db: Knex,
  organizationId: string,
  person: { passport_id?: string | undefined; did?: string | undefined },
): Promise<{ email: string | null; slack_user_id: string | null; display_name: string } | undefined> {
  if (!person.passport_id && !person.did) return undefined;
  const row: { email: string | null; slack_user_id: string | null; display_name: string } | undefined = await db(
    'reviewers',
  )
    .where({ organization_id: organizationId })
    .where((where) => {
      if (person.passport_id) where.orWhere({ passport_id: person.passport_id });
      if (person.did) where.orWhere({ did: person.did });
    })
    .orderByRaw('email is null, slack_user_id is null')
    .first('email', 'slack_user_id', 'display_name');
  return row;
}

/** A person's Passport in the organization, named by its id or its DID (as requests name their approver). */
export async function findPersonPassport(
  db: Knex,
  organizationId: string,
  identity: string,
): Promise<{ passport_id: string; did: string } | undefined> {
  const row: { passport_id: string; did: string } | undefined = await db('passports')
    .where({ organization_id: organizationId, type: 'individual' })
    .where((where) => where.where({ passport_id: identity }).orWhere({ did: identity }))
    .first('passport_id', 'did');
  return row;
}

/** The Passport a reviewer is linked to, when it is. */
export async function findReviewerPassportId(
  db: Knex,
  organizationId: string,
  did: string,
): Promise<string | undefined> {
  const row: { passport_id: string | null } | undefined = await db('reviewers')
    .where({ organization_id: organizationId, did })
    .first('passport_id');
  return row?.passport_id ?? undefined;
}
