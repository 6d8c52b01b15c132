import type { Knex } from 'knex';
import { insertReviewersIfAbsent } from '../db/reviewers';
import type { Reviewer } from '../domain/routing/reviewer-assignment';
import { DEFAULT_ORGANIZATION_ID } from '../domain/common/organizations';

/** A few people so that a fresh dev start can route to humans and climb an escalation chain. */
export const DEV_REVIEWERS: Reviewer[] = [
  {
    did: 'did:web:handoff.local:reviewers:ada',
    display_name: 'Ada (clinical reviewer)',
    capabilities: { medical_diagnosis: 0.9, general_review: 0.8 },
    chain_level: 1,
    available: true,
  },
  {
    did: 'did:web:handoff.local:reviewers:grace',
    display_name: 'Grace (finance reviewer)',
    capabilities: { financial_approval: 0.85, general_review: 0.8 },
    chain_level: 1,
    available: true,
  },
  {
    did: 'did:web:handoff.local:reviewers:alan',
    display_name: 'Alan (senior reviewer)',
    capabilities: { medical_diagnosis: 0.95, financial_approval: 0.9, general_review: 0.9 },
    chain_level: 2,
    available: true,
  },
  {
    did: 'did:web:handoff.local:reviewers:barbara',
    display_name: 'Barbara (on-call supervisor)',
    capabilities: { medical_diagnosis: 0.8, financial_approval: 0.8, general_review: 1 },
    chain_level: 3,
    available: true,
  },
];

/** Adds the dev reviewers that are missing; edits made to them since are kept. */
export async function seedDevReviewers(db: Knex): Promise<void> {
  await insertReviewersIfAbsent(db, DEFAULT_ORGANIZATION_ID, DEV_REVIEWERS);
}
