import type { Knex } from 'knex';
import type { RecoveryRequestState } from '../../contracts/aggregates/recovery-request';
import { guardianContacts } from '../../db/recovery-guardians';
import type { Mailer, MailMessage } from '../../lib/mail/transport';
import { SmsUnavailable, type SmsMessage, type SmsSender } from '../../lib/sms/sender';

export interface RecoveryMailDeps {
  db: Knex;
  mailer: Mailer;
  /** Texts to sms guardians and to the owner's phone of record; unconfigured, no text is sent. */
  sms: SmsSender;
  publicBaseUrl: string;
}

/** A text that was not sent, and why (never its body: it may hold a link). */
export interface UntoldParty {
  /** `owner`, or the guardian's id. */
  to: string;
  reason: string;
}

/** The owner's channels of record: the Passport's metadata.email and metadata.phone, when it has them. */
async function ownerChannels(db: Knex, passportId: string): Promise<{ email?: string; phone?: string }> {
  const row: { email: string | null; phone: string | null } | undefined = await db('passports')
    .where({ passport_id: passportId })
    .first(db.raw(`metadata->>'email' as email`), db.raw(`metadata->>'phone' as phone`));
  return { ...(row?.email ? { email: row.email } : {}), ...(row?.phone ? { phone: row.phone } : {}) };
}

/**
 * Sends each text; a provider that may take it later fails the call (the activity retries), one that never
 * will (no provider, a number it refuses) leaves the party untold, said by the result.
 */
async function sendTexts(sms: SmsSender, texts: (SmsMessage & { party: string })[]): Promise<UntoldParty[]> {
  const untold: UntoldParty[] = [];
  for (const { party, ...text } of texts) {
    try {
      await sms.send(text);
    } catch (error) {
      if (!(error instanceof SmsUnavailable) || error.retryable) throw error;
      untold.push({ to: party, reason: error.message });
    }
  }
  return untold;
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

function guardianText(state: RecoveryRequestState, base: string): string {
  return `Someone asks to recover ${state.passport_did}, of which you are a recovery guardian. Approve only after speaking with its owner yourself, signed in with your own Passport: ${base}${requestPath(state)}`;
}

/**
 * Tells the owner at every moment of a request on every channel of record (e-mail and phone), and each
 * guardian when it is asked, by their recovery method (e-mail or SMS). Answers the parties no text reached.
 */
export async function notifyRecovery(
  deps: RecoveryMailDeps,
  state: RecoveryRequestState,
  moment: string,
): Promise<UntoldParty[]> {
  const base = deps.publicBaseUrl;
  const messages: MailMessage[] = [];
  const texts: (SmsMessage & { party: string })[] = [];
  const owner = await ownerChannels(deps.db, state.passport_id);
  const toOwner = ownerMessage(state, moment, base);
  if (owner.email && toOwner) messages.push({ to: owner.email, subject: 'Recovery of your Passport', text: toOwner });
  if (owner.phone && toOwner) texts.push({ party: 'owner', to: owner.phone, body: toOwner });
  if (moment === 'requested') {
    const contacts = await guardianContacts(
      deps.db,
      state.guardians.map((g) => g.guardian_id),
    );
    for (const contact of contacts)
      if (contact.recovery_method === 'email')
        messages.push({
          to: contact.contact,
          subject: 'A recovery asks for your approval',
          text: guardianMessage(state, base),
        });
      else texts.push({ party: contact.guardian_id, to: contact.contact, body: guardianText(state, base) });
  }
  for (const message of messages) await deps.mailer.send(message);
  return sendTexts(deps.sms, texts);
}

/** The invitation to a new guardian, by their recovery method. */
export async function inviteGuardian(
  deps: Omit<RecoveryMailDeps, 'db'>,
  invitation: {
    to: string;
    method: 'email' | 'sms';
    owner_did: string;
    passport_id: string;
    guardian_id: string;
    accept_by: string;
  },
): Promise<void> {
  const accept = `${deps.publicBaseUrl}/v1/passports/${invitation.passport_id}/recovery/guardians/${invitation.guardian_id}/accept`;
  const asked = `${invitation.owner_did} asks you to be a guardian of their Passport's recovery.`;
  if (invitation.method === 'sms') {
    await deps.sms.send({
      to: invitation.to,
      body: `${asked} To accept by ${invitation.accept_by}, sign in with your own Passport: POST ${accept}`,
    });
    return;
  }
  await deps.mailer.send({
    to: invitation.to,
    subject: 'You are asked to be a recovery guardian',
    text: [
      asked,
      `To accept, by ${invitation.accept_by}, sign in with your own Passport and send`,
      `POST ${accept}`,
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
