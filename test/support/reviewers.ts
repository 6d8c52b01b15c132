import { signedInPerson, type SignedInPerson } from './identity';
import type { Stack } from './stack';

/**
 * A person signed in as a registered reviewer (the dev reviewers every stack seeds, say): a new Passport,
 * linked to the reviewer the way PUT /v1/orch/reviewers/{did} with passport_id links it.
 */
export async function signedInReviewer(stack: Stack, reviewerDid: string): Promise<SignedInPerson> {
  const person = await signedInPerson(stack, { name: `Reviewer ${reviewerDid}` });
  const linked = await stack.database.db('reviewers').where({ did: reviewerDid }).update({ passport_id: person.passport_id });
  if (linked !== 1) throw new Error(`No reviewer ${reviewerDid} to sign in as`);
  return person;
}
