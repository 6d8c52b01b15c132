import type { Knex } from 'knex';

/** What the deployment's own tables say about its people's keys: each figure a query, never a constant. */
export interface KeyCustodyFacts {
  passport_count: number;
  human_passport_count: number;
  /** Attestations issued to Passports after a verification (an e-mail link, an attested skill). */
  verification_count: number;
  /** Keys of people's Passports the service made (source other than a device). */
  human_server_keys: number;
  /** Keys of people's Passports whose private half the service holds, sealed or not. */
  human_private_keys_held: number;
  /** Active people's Passports with no passkey (WebAuthn credential) at all. */
  humans_without_passkey: number;
  /** Columns of this schema whose name says they hold biometric data or a hash of it. */
  biometric_columns: string[];
}

const count = async (query: Knex.QueryBuilder): Promise<number> =>
  Number(((await query.count({ n: '*' }).first()) as { n: string | number } | undefined)?.n ?? 0);

function humanKeys(db: Knex) {
  return db('passport_keys as k')
    .join('passports as p', 'p.passport_id', 'k.passport_id')
    .where('p.type', 'individual');
}

export async function keyCustodyFacts(db: Knex): Promise<KeyCustodyFacts> {
  const [passports, humans, verifications, serverKeys, privateKeys, withoutPasskey, biometric] = await Promise.all([
    count(db('passports')),
    count(db('passports').where({ type: 'individual' })),
    count(db('passport_attestations')),
    count(humanKeys(db).whereNot('k.source', 'device')),
    count(humanKeys(db).whereNotNull('k.sealed_private_key')),
    count(
      db('passports as p')
        .where({ 'p.type': 'individual', 'p.status': 'active' })
        .whereNotExists(db('webauthn_credentials as w').whereRaw('w.passport_id = p.passport_id').select(db.raw('1'))),
    ),
    db('information_schema.columns')
      .where('table_schema', db.raw('current_schema()'))
      .where('column_name', 'ilike', '%biometric%')
      .select('table_name', 'column_name') as Promise<Array<{ table_name: string; column_name: string }>>,
  ]);
  return {
    passport_count: passports,
    human_passport_count: humans,
    verification_count: verifications,
    human_server_keys: serverKeys,
    human_private_keys_held: privateKeys,
    humans_without_passkey: withoutPasskey,
    biometric_columns: biometric.map((c) => `${c.table_name}.${c.column_name}`),
  };
}
