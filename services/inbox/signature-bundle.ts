import type { Knex } from 'knex';
import { passportIdOfDid } from '../../db/inbox';
import { findProvenanceRecord, transactionIdFor } from '../../db/ledger';
import { didDocument } from '../../domain/identity/did';
import {
  DecisionSignatureShape,
  DECISION_BUNDLE_FORMAT,
  type DecisionBundle,
} from '../identity/passkeys/decision-verification';
import { publishedPasskeys } from '../identity/passkeys/passkey-jwk';
import { readPublishedKeys } from '../identity/passports/passports';

/** The ledger steps that record a person's decision on an item: a request's response, a routing's resolution. */
const DECISION_STEPS = ['responded', 'resolution'];

/**
 * What a third party needs to check a decision signed in the inbox, offline (`npm run verify`): the signature
 * from the decision's ledger record, the record itself (its body and leaf hash, to check against the log), the
 * comment it hashes, and the signer's DID document as it is served now. Undefined when the item has no signed
 * decision in the caller's organization.
 */
export async function decisionSignatureBundle(
  db: Knex,
  organizationId: string,
  itemId: string,
): Promise<DecisionBundle | undefined> {
  for (const step of DECISION_STEPS) {
    const record = await findProvenanceRecord(db, transactionIdFor(itemId, step), organizationId);
    const signature = DecisionSignatureShape.safeParse(record?.entry.actor.decision_signature);
    if (!record || !signature.success) continue;
    const passportId = await passportIdOfDid(db, organizationId, signature.data.signer.did);
    const published = passportId ? await readPublishedKeys(db, passportId, new Date(), organizationId) : undefined;
    if (!published) return undefined;
    const { passport, keys } = published;
    const passkeys = await publishedPasskeys(db, passport);
    return {
      format: DECISION_BUNDLE_FORMAT,
      signature: signature.data,
      did_document: didDocument(passport.did, keys, passport.did, passkeys),
      comment: signature.data.decision.comment_sha256 === null ? null : record.entry.reasoning,
      ledger_record: { transaction_id: record.anchor.transaction_id, leaf_hash: record.hash, body: record.body },
    };
  }
  return undefined;
}
