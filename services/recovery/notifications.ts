import type { Knex } from 'knex';
import type { RecoveryRequestState } from '../../contracts/aggregates/recovery-request';
import { guardianContacts } from '../../db/recovery-guardians';
import type { Mailer, MailMessage } from '../../lib/mail/transport';

export interface RecoveryMailDeps {
  db: Knex;
  mailer: Mailer;
  publicBaseUrl: string;
}

/** The owner's e-mail address of record: the Passport's metadata.email, when it has one. */
async function ownerAddress(db: Knex, passportId: string): Promise<string | undefined> {
  const row: { email: string | null } | undefined = await db('passports')
    .where({ passport_id: passportId })
    .first(db.raw(`metadata->>'email' as email`));
  return row?.email ?? undefined;
}

function requestPath(state: RecoveryRequestState): string {
  return `/v1/passports/${state.passport_id}/recovery/requests/${state.request_id}`;
}

function guardianMessage(state: RecoveryRequestState, base: string): string {
  return [
    `Someone asks to recover the Passport ${state.passport_did}, of which you are a recovery guardian.`,
    `Reason given: ${state.reason}`,
    '',
    'Approve only after speaking with its owner yourself. To approve, sign in with your own Passport and send',
    `POST ${base}${requestPath(state)}/approvals`,
    `with approvedBy (your DID), timestamp (now), nonce ${state.approval_nonce}`,
    `and newCredentialHash ${state.new_credential.hash}.`,
  ].join('\n');
}

function ownerMessage(state: RecoveryRequestState, moment: string, base: string): string | undefined {
  const cancel = `If this is not you, sign in with any credential you still hold and send POST ${base}${requestPath(state)}/cancel.`;
  switch (moment) {
    case 'requested':
      return `A recovery of your Passport ${state.passport_did} was asked for (${state.reason}).\n${cancel}`;
    case 'time_locked':
      return `Your guardians approved a recovery of your Passport ${state.passport_did}. It completes after ${state.unlocks_at ?? ''} unless you cancel it.\n${cancel}`;
    case 'completed':
      return `Your Passport ${state.passport_did} was recovered: its old passkeys and device keys are revoked, with every session and delegation they signed.`;
    case 'cancelled':
      return `The recovery ${state.request_id} of your Passport ${state.passport_did} was cancelled.`;
    case 'expired':
      return `The recovery ${state.request_id} of your Passport ${state.passport_did} ended unfinished (${state.ended_reason ?? 'unfinished'}).`;
    default:
      return undefined;
  }
}

/**
 * Tells the owner (their address of record) at every moment of a request, and the e-mail guardians when it is
 * asked. SMS guardians are told nothing: the service has no SMS transport yet.
 */
export async function notifyRecovery(
  deps: RecoveryMailDeps,
  state: RecoveryRequestState,
  moment: string,
): Promise<void> {
  const base = deps.publicBaseUrl;
  const messages: MailMessage[] = [];
  const owner = await ownerAddress(deps.db, state.passport_id);
  const toOwner = ownerMessage(state, moment, base);
  if (owner && toOwner) messages.push({ to: owner, subject: 'Recovery of your Passport', text: toOwner });
  if (moment === 'requested') {
    const contacts = await guardianContacts(
      deps.db,
      state.guardians.map((g) => g.guardian_id),
    );
    for (const contact of contacts.filter((c) => c.recovery_method === 'email'))
      messages.push({
        to: contact.contact,
        subject: 'A recovery asks for your approval',
        text: guardianMessage(state, base),
      });
  }
  for (const message of messages) await deps.mailer.send(message);
}

/** The invitation to a new guardian. */
export async function inviteGuardian(
  deps: RecoveryMailDeps,
  invitation: { to: string; owner_did: string; passport_id: string; guardian_id: string; accept_by: string },
): Promise<void> {
  await deps.mailer.send({
    to: invitation.to,
    subject: 'You are asked to be a recovery guardian',
    text: [
      `${invitation.owner_did} asks you to be a guardian of their Passport's recovery.`,
      `To accept, by ${invitation.accept_by}, sign in with your own Passport and send`,
      `POST ${deps.publicBaseUrl}/v1/passports/${invitation.passport_id}/recovery/guardians/${invitation.guardian_id}/accept`,
    ].join('\n'),
  });
}

/** The confirmation code, to the request's recovery contact. */
export async function sendCodeMail(
  deps: RecoveryMailDeps,
  state: RecoveryRequestState,
  code: string,
  expiresAt: string,
): Promise<void> {
  await deps.mailer.send({
    to: state.recovery_contact,
    subject: 'Your recovery confirmation code',
    text: [
      `The recovery of ${state.passport_did} can now be completed. Your confirmation code: ${code}`,
      `It is valid until ${expiresAt}, for at most five attempts, once.`,
      `Send it as confirmationCode in POST ${deps.publicBaseUrl}${requestPath(state)}/execute`,
    ].join('\n'),
  });
}
