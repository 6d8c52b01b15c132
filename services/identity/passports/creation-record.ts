import type { Knex } from 'knex';
import { appendProvenance } from '../../../db/ledger';
import type { PassportType } from '../../../domain/common/organizations';
import type { ProvenanceActor } from '../../../domain/provenance/records';

/** A Passport just made, and the key it signs with now. */
export interface CreatedPassport {
  passport_id: string;
  did: string;
  type: PassportType;
  organization_id: string;
  kid: string;
  did_key: string;
  key_source: 'server' | 'device';
}

/**
 * The provenance record of a Passport's creation and its passport.created event, in the caller's transaction:
 * the same for a server-held key (agents, organizations) and a device's (people), but who asked and why.
 */
export async function recordPassportCreated(
  trx: Knex.Transaction,
  created: CreatedPassport,
  how: { actor: ProvenanceActor; input_data: Record<string, unknown>; reasoning: string; at: Date },
): Promise<void> {
  const { passport_id, did, type, organization_id, kid } = created;
  await appendProvenance(trx, {
    entry: {
      subject_id: passport_id,
      step_id: 'created',
      timestamp: how.at.toISOString(),
      actor: how.actor,
      action: 'passport_created',
      input_data: how.input_data,
      output_data: { did, organization_id, kid, did_key: created.did_key, key_source: created.key_source },
      reasoning: how.reasoning,
    },
    events: [{ event: 'passport.created', data: { passport_id, did, type, organization_id, kid } }],
  });
}
