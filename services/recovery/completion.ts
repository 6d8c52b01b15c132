import type { Knex } from 'knex';
import type { RecoveryRequestState } from '../../contracts/aggregates/recovery-request';
import { appendProvenance } from '../../db/ledger';
import { lockPassport } from '../../db/passports';
import { upsertRecoveryProjection } from '../../db/recovery-requests';
import { recoveryRecord } from '../../domain/recovery/steps';
import { revokeDelegationsOfCredential, type RevokedCredential } from '../identity/delegations/credential-revocations';

/** What a recovery's revocations say, so a retry finds the credentials the first attempt revoked. */
const reasonOf = (requestId: string) => `recovered by ${requestId}`;

/** The new credential's id once installed: a device key's kid, a passkey's credential id. */
const installedId = (credential: RecoveryRequestState['new_credential']) =>
  credential.type === 'passkey' ? credential.credential_id : credential.hash;

/** The recovery's passkey was registered to another Passport meanwhile: nothing is revoked, and no retry mends it. */
export class RecoveryCredentialTaken extends Error {}

/** Installs the new credential; repeatable, as a retry finds it installed. */
async function install(trx: Knex.Transaction, state: RecoveryRequestState, at: Date): Promise<void> {
  const { passport_id, new_credential } = state;
  if (new_credential.type === 'passkey') {
    const { credential_id, public_key, counter, transports } = new_credential;
    await trx('webauthn_credentials')
      .insert({ credential_id, passport_id, public_key, counter, transports, status: 'active', created_at: at })
      .onConflict('credential_id')
      .ignore();
    // Checked at the request, but another ceremony may have registered the same credential id since.
    const holder: { passport_id: string } | undefined = await trx('webauthn_credentials')
      .where({ credential_id })
      .first('passport_id');
    if (holder?.passport_id !== passport_id)
      throw new RecoveryCredentialTaken(
        `The new passkey ${credential_id} was registered to another Passport after the request was made; no credential was replaced`,
      );
    return;
  }
  const kid = new_credential.hash;
  await trx('passport_keys')
    .insert({
      kid,
      passport_id,
      public_jwk: JSON.stringify({ ...new_credential.public_jwk, kid, alg: 'EdDSA', use: 'sig' }),
      sealed_private_key: null,
      source: 'device',
      device_id: new_credential.device_id,
      status: 'active',
      created_at: at,
    })
    .onConflict('kid')
    .ignore();
}

/** Installs the new passkey or device key and revokes every other passkey and device key of the Passport. */
async function replaceCredentials(
  trx: Knex.Transaction,
  state: RecoveryRequestState,
  at: Date,
): Promise<RevokedCredential[]> {
  const { passport_id, request_id } = state;
  const installed = installedId(state.new_credential);
  await install(trx, state, at);
  await trx('passport_keys')
    .where({ passport_id })
    .whereNot({ kid: installed })
    .whereNot({ status: 'revoked' })
    .update({ status: 'revoked', revoked_at: at, revoke_reason: reasonOf(request_id) });
  await trx('webauthn_credentials')
    .where({ passport_id, status: 'active' })
    .whereNot({ credential_id: installed })
    .update({ status: 'revoked', revoked_at: at, revoke_reason: 'recovered', replaced_by: installed });
  const keys: { kid: string }[] = await trx('passport_keys')
    .where({ passport_id, revoke_reason: reasonOf(request_id) })
    .select('kid');
  const passkeys: { credential_id: string }[] = await trx('webauthn_credentials')
    .where({ passport_id, revoke_reason: 'recovered', replaced_by: installed })
    .select('credential_id');
  return [
    ...passkeys.map((p) => ({ type: 'passkey' as const, id: p.credential_id })),
    ...keys.map((k) => ({ type: 'device_key' as const, id: k.kid })),
  ];
}

/**
 * The recovery's last step, in one transaction: the new passkey or device key replaces the Passport's other passkeys and
 * device keys, which are revoked with every session they signed in (a session's credential is checked on each
 * call) and every delegation exchanged from those sessions; the completed record and the read model with it.
 * Repeatable: a retry revokes nothing more and finds the same record.
 */
export async function completeRecovery(
  db: Knex,
  state: RecoveryRequestState,
  at: string,
): Promise<{ provenance_id: string; revoked: RevokedCredential[] }> {
  return db.transaction(async (trx) => {
    await lockPassport(trx, state.passport_id);
    const instant = new Date(at);
    const revoked = await replaceCredentials(trx, state, instant);
    for (const credential of revoked)
      await revokeDelegationsOfCredential(trx, credential, {
        revoked_by: state.passport_did,
        reason: `credential replaced by recovery ${state.request_id}`,
        at: instant,
      });
    const completed = { ...state, revoked_credentials: revoked };
    const anchor = await appendProvenance(trx, {
      ...recoveryRecord(completed, { kind: 'completed' }, at),
      organization_id: state.organization_id,
    });
    await upsertRecoveryProjection(trx, { ...completed, provenance_id: anchor.transaction_id });
    return { provenance_id: anchor.transaction_id, revoked };
  });
}
