import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import {
  approveRecoveryUpdate,
  cancelRecoveryUpdate,
  confirmRecoveryUpdate,
  type ConfirmRecoveryOutcome,
  type RecoveryRequestState,
} from '../../contracts/recover-passport';
import type { ApprovalRefusalCode } from '../../domain/recovery/requests';
import { FAILURE_TYPES } from '../../contracts/failures';
import { appendProvenance } from '../../db/ledger';
import { findPassport, lockPassport } from '../../db/passports';
import { findPersonByDid, guardiansOf } from '../../db/recovery-guardians';
import { findRecoveryRequest, hasOpenRecovery, insertOpenedRecovery } from '../../db/recovery-requests';
import { countsForRecovery } from '../../domain/recovery/guardians';
import { snapshotRefusal, staleApproval } from '../../domain/recovery/requests';
import { recoveryRecord } from '../../domain/recovery/steps';
import type { Mailer } from '../../lib/mail/transport';
import { isClosedOrMissing, updateRejection } from '../../lib/temporal-client';
import type { WebAuthnSettings } from '../identity/passkeys/settings';
import type { Principal } from '../identity/scopes';
import type { PendingStart } from '../workflow-starts/starts';
import { startCommitted } from '../workflow-starts/starts';
import { signedInOwner, signedInPerson, type PersonRefusal } from './access';
import { recoveryCodeHmac } from './codes';
import { newRequest, recoveryStart } from './new-request';
import {
  deviceKeyCredential,
  recoveryPasskeyCredential,
  type NewCredentialInput,
  type NewCredentialRefusal,
} from './new-credential';
import type { RecoverySettings } from './settings';

export interface RecoveryServiceDeps {
  db: Knex;
  temporal: Client;
  taskQueue: string;
  mailer: Mailer;
  settings: RecoverySettings;
  /** Where a recovery's new passkey is valid (the deployment's relying party). */
  webauthn: WebAuthnSettings;
}

type Refused<C extends string> = { ok: false; code: C; detail?: string };

export type OpenRecoveryOutcome =
  | { ok: true; request: RecoveryRequestState }
  | Refused<'passport_not_found' | 'recovery_person_only' | 'recovery_request_open'>
  | Refused<'recovery_guardians_insufficient' | 'mail_unavailable' | 'secrets_unavailable'>
  | NewCredentialRefusal;

export interface NewRecovery {
  passport: { passport_id: string } | { did: string };
  recoveryContact: string;
  reason: string;
  newCredential: NewCredentialInput;
}

async function passportOf(db: Knex, organizationId: string, named: NewRecovery['passport']) {
  const passportId =
    'passport_id' in named ? named.passport_id : (await findPersonByDid(db, organizationId, named.did))?.passport_id;
  return passportId ? findPassport(db, passportId, organizationId) : undefined;
}

/**
 * Opens a recovery of a person's Passport, in one transaction holding the Passport's lock: the guardians in
 * effect snapshot (3 to 5), the request, its provenance record and event, its workflow's pending start. The
 * index recovery_requests_one_open holds "one open request per Passport" beside the check.
 */
export async function openRecovery(
  deps: RecoveryServiceDeps,
  principal: Principal,
  body: NewRecovery,
): Promise<OpenRecoveryOutcome> {
  const passport = await passportOf(deps.db, principal.organization_id, body.passport);
  if (!passport) return { ok: false, code: 'passport_not_found' };
  if (passport.type !== 'individual') return { ok: false, code: 'recovery_person_only' };
  const { newCredential } = body;
  const device = newCredential.type === 'passkey' ? undefined : await deviceKeyCredential(deps.db, newCredential);
  if (device && !device.ok) return device;
  if (!deps.mailer.configured) return { ok: false, code: 'mail_unavailable' };
  if (!deps.settings.secretKeys.current) return { ok: false, code: 'secrets_unavailable' };
  const now = new Date();
  const opened = await deps.db.transaction(async (trx): Promise<OpenRecoveryOutcome & { start?: PendingStart }> => {
    await lockPassport(trx, passport.passport_id);
    if (await hasOpenRecovery(trx, passport.passport_id)) return { ok: false, code: 'recovery_request_open' };
    const guardians = (await guardiansOf(trx, passport.passport_id)).filter((g) =>
      countsForRecovery(g, now.toISOString()),
    );
    const refusal = snapshotRefusal(guardians.length);
    if (refusal) return { ok: false, ...refusal };
    // A passkey's challenge is taken last: a request refused above leaves it for another try.
    const credential =
      newCredential.type === 'passkey'
        ? await recoveryPasskeyCredential(trx, deps.webauthn, passport.passport_id, newCredential.registration)
        : device!;
    if (!credential.ok) return credential;
    const state = newRequest(deps.settings, principal, body, {
      passport,
      guardians,
      credential: credential.credential,
      now,
    });
    const anchor = await appendProvenance(trx, {
      ...recoveryRecord(
        state,
        { kind: 'requested', principal: { kind: principal.kind, id: principal.id } },
        state.created_at,
      ),
      organization_id: state.organization_id,
    });
    const request = { ...state, provenance_id: anchor.transaction_id };
    const start = recoveryStart(deps.taskQueue, request);
    await insertOpenedRecovery(trx, request, start);
    return { ok: true, request, start };
  });
  if (opened.ok && opened.start) await startCommitted(deps, opened.start);
  if (!opened.ok) return opened;
  return { ok: true, request: opened.request };
}

const REFUSALS = [
  FAILURE_TYPES.recoveryNotCollecting,
  FAILURE_TYPES.recoveryNotGuardian,
  FAILURE_TYPES.recoveryApprovalReplayed,
  FAILURE_TYPES.recoveryApprovalOtherRequest,
  FAILURE_TYPES.recoveryCredentialMismatch,
  FAILURE_TYPES.recoveryNotCancellable,
  FAILURE_TYPES.recoveryNotAwaitingConfirmation,
  // The completion could not install the new credential: the request failed, and nothing was revoked.
  FAILURE_TYPES.invalidData,
] as const;
type UpdateRefusal = (typeof REFUSALS)[number];

/** An Update to the request's workflow: its reply, or the refusal its validator or handler gave. */
async function updateRequest<T>(
  send: () => Promise<T>,
  closed: UpdateRefusal,
): Promise<{ ok: true; value: T } | Refused<UpdateRefusal>> {
  try {
    return { ok: true, value: await send() };
  } catch (error) {
    const refusal = updateRejection(error, REFUSALS);
    if (refusal) return { ok: false, code: refusal.type, detail: refusal.message };
    if (isClosedOrMissing(error)) return { ok: false, code: closed, detail: 'The request has ended' };
    throw error;
  }
}

type FoundRequest = { ok: true; request: RecoveryRequestState } | Refused<'recovery_request_not_found'>;

export async function findRequest(
  deps: { db: Knex },
  principal: Principal,
  passportId: string,
  requestId: string,
): Promise<FoundRequest> {
  const request = await findRecoveryRequest(deps.db, principal.organization_id, passportId, requestId);
  return request ? { ok: true, request } : { ok: false, code: 'recovery_request_not_found' };
}

export type ActOutcome =
  | { ok: true; request: RecoveryRequestState }
  | Refused<
      'recovery_request_not_found' | 'actor_mismatch' | 'recovery_approval_stale' | UpdateRefusal | ApprovalRefusalCode
    >
  | PersonRefusal;

/** A guardian approves, signed in as themself; the approval is bound to the request's nonce and new credential. */
export async function approveRecovery(
  deps: RecoveryServiceDeps,
  principal: Principal,
  ids: { passport_id: string; request_id: string },
  body: { approvedBy: string; timestamp: string; nonce: string; newCredentialHash: string },
): Promise<ActOutcome> {
  const person = signedInPerson(principal);
  if (!person.ok) return person;
  if (body.approvedBy !== person.actor.did)
    return {
      ok: false,
      code: 'actor_mismatch',
      detail: `The approval names ${body.approvedBy}, but ${person.actor.did} is signed in`,
    };
  const found = await findRequest(deps, principal, ids.passport_id, ids.request_id);
  if (!found.ok) return found;
  const stamped = { timestamp: body.timestamp, at_ms: Date.parse(body.timestamp) };
  const stale = staleApproval(stamped, Date.now(), deps.settings.approvalMaxSkewSeconds);
  if (stale) return { ok: false, ...stale };
  const input = {
    guardian: person.actor,
    timestamp: body.timestamp,
    nonce: body.nonce,
    new_credential_hash: body.newCredentialHash,
  };
  const handle = deps.temporal.workflow.getHandle(ids.request_id);
  const updated = await updateRequest(
    () => handle.executeUpdate(approveRecoveryUpdate, { args: [input] }),
    FAILURE_TYPES.recoveryNotCollecting,
  );
  return updated.ok ? { ok: true, request: updated.value } : updated;
}

/** The owner cancels, signed in with a credential still valid. */
export async function cancelRecovery(
  deps: RecoveryServiceDeps,
  principal: Principal,
  ids: { passport_id: string; request_id: string },
): Promise<ActOutcome> {
  const owner = signedInOwner(principal, ids.passport_id);
  if (!owner.ok) return owner;
  const found = await findRequest(deps, principal, ids.passport_id, ids.request_id);
  if (!found.ok) return found;
  const handle = deps.temporal.workflow.getHandle(ids.request_id);
  const updated = await updateRequest(
    () => handle.executeUpdate(cancelRecoveryUpdate, { args: [{ owner: owner.actor }] }),
    FAILURE_TYPES.recoveryNotCancellable,
  );
  return updated.ok ? { ok: true, request: updated.value } : updated;
}

export type ExecuteOutcome =
  | { ok: true; request: RecoveryRequestState }
  | Refused<'recovery_request_not_found' | UpdateRefusal>
  | (Extract<ConfirmRecoveryOutcome, { ok: false }> & { detail?: string });

/** The confirmation code, compared as its HMAC by the workflow, which counts the attempts. */
export async function executeRecovery(
  deps: RecoveryServiceDeps,
  principal: Principal,
  ids: { passport_id: string; request_id: string },
  code: string,
): Promise<ExecuteOutcome> {
  const found = await findRequest(deps, principal, ids.passport_id, ids.request_id);
  if (!found.ok) return found;
  const code_hmac = recoveryCodeHmac(deps.settings.secretKeys, ids.request_id, code);
  const handle = deps.temporal.workflow.getHandle(ids.request_id);
  const updated = await updateRequest(
    () => handle.executeUpdate(confirmRecoveryUpdate, { args: [{ code_hmac, principal: principal.id }] }),
    FAILURE_TYPES.recoveryNotAwaitingConfirmation,
  );
  if (!updated.ok) return updated;
  return updated.value.ok ? { ok: true, request: updated.value.state } : updated.value;
}
