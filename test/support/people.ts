import { client } from './http';
import { signedInPerson, type SignedInPerson } from './identity';
import type { Stack } from './stack';

/**
 * A person signed in as a registered reviewer (the dev reviewers every stack seeds, say): a new Passport,
 * linked to the reviewer the way PUT /v1/orch/reviewers/{did} with passport_id links it.
 */
export async function signedInReviewer(stack: Stack, reviewerDid: string): Promise<SignedInPerson> {
  const person = await signedInPerson(stack, { name: `Reviewer ${reviewerDid}` });
  const linked = await stack.database
    .db('reviewers')
    .where({ did: reviewerDid })
    .update({ passport_id: person.passport_id });
  if (linked !== 1) throw new Error(`No reviewer ${reviewerDid} to sign in as`);
  return person;
}

const reviewerClients = new Map<string, Promise<ReturnType<typeof client>>>();

/** A client signed in as the reviewer: one Passport per reviewer and stack, linked on first use. */
export function asReviewer(stack: Stack, reviewerDid: string): Promise<ReturnType<typeof client>> {
  const key = `${stack.baseUrl} ${reviewerDid}`;
  let signedIn = reviewerClients.get(key);
  if (!signedIn) {
    signedIn = signedInReviewer(stack, reviewerDid).then((person) => client(stack.baseUrl, person.sessionToken));
    reviewerClients.set(key, signedIn);
  }
  return signedIn;
}

/** Resolves a routing as the reviewer does: signed in as them. */
export async function resolveAs(
  stack: Stack,
  routingId: string,
  reviewerDid: string,
  resolution: Record<string, unknown>,
) {
  return (await asReviewer(stack, reviewerDid))('POST', `/v1/orch/routing/${routingId}/resolve`, {
    json: { reviewer_did: reviewerDid, ...resolution },
  });
}

const personClients = new Map<string, Promise<ReturnType<typeof client>>>();

/** A client signed in as the person with this DID (an approver a request names, say): one Passport per DID and stack. */
export function asPerson(stack: Stack, did: string): Promise<ReturnType<typeof client>> {
  const key = `${stack.baseUrl} ${did}`;
  let signedIn = personClients.get(key);
  if (!signedIn) {
    signedIn = signedInPerson(stack, { did, name: did }).then((person) => client(stack.baseUrl, person.sessionToken));
    personClients.set(key, signedIn);
  }
  return signedIn;
}
