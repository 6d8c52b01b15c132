import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import type { Knex } from 'knex';
import { type Config, tokenIssuer } from '../app/config';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';
import { createKeyRing } from '../services/identity/issuance/key-ring';
import { secretKeysFrom } from '../lib/secret-box';
import { issueSessionToken } from '../services/identity/issuance/session-tokens';

/**
 * A person with the given DID, signed in, for `npm start`, the benchmarks and the drills, which answer as
 * people do: the individual Passport of that DID (made the first time) with a new device key (whose private half is dropped: nothing signs with it again) and
 * a session token bound to that key, valid for hours.
 */
export async function signInPerson(
  db: Knex,
  config: Config,
  did: string,
  organizationId = DEFAULT_ORGANIZATION_ID,
): Promise<string> {
  const made = `pp_${randomUUID()}`;
  const { publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const now = new Date();
  await db('passports')
    .insert({
      passport_id: made,
      did,
      type: 'individual',
      name: did,
      organization_id: organizationId,
      metadata: JSON.stringify({}),
      capabilities: [],
      status: 'active',
      created_at: now,
      updated_at: now,
    })
    .onConflict('did')
    .ignore();
  const row: { passport_id: string } | undefined = await db('passports').where({ did }).first('passport_id');
  if (!row) throw new Error(`No Passport ${did}`);
  const { passport_id } = row;
  await db('passport_keys').insert({
    kid,
    passport_id,
    public_jwk: JSON.stringify({ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }),
    sealed_private_key: null,
    source: 'device',
    device_id: 'script',
    status: 'active',
    created_at: now,
  });
  const { token } = await issueSessionToken(
    createKeyRing(db, {
      secretKeys: secretKeysFrom(config.SECRETS_ENCRYPTION_KEY, config.SECRETS_ENCRYPTION_PREVIOUS_KEYS),
    }),
    { issuer: tokenIssuer(config), audience: config.AUTH_AUDIENCE },
    {
      passport_id,
      did,
      organization_id: organizationId,
      credential: { type: 'device_key', id: kid },
      ttlSeconds: 4 * 3600,
    },
  );
  return token;
}
