import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { call, client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { useStack } from '../support/stack';

/*
 * An administrator's enrollment for a reviewer (reviewer_did): the Passport the person's passkey mints is
 * linked to that reviewer when they complete it, so the routings escalated to the reviewer are theirs; an
 * unknown reviewer, another organization's, or one linked already is refused before any link is sent.
 */

const stack = useStack();
let counter = 0;
let admin: ReturnType<typeof client>;
const reviewerDid = (name: string) => `did:web:enroll.test:reviewers:${name}-${String(Date.now())}`;

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['platform:admin', 'orch:admin']));
});

async function putReviewer(did: string, by = admin, body: Record<string, unknown> = {}) {
  const put = await by('PUT', `/v1/orch/reviewers/${did}`, {
    json: { display_name: 'Reviewer', capabilities: { enroll_review: 0.9 }, ...body },
  });
  expect(put.status).toBe(204);
}

const enrollFor = (reviewer_did: string, by = admin) =>
  by('POST', '/v1/webauthn/registration/options', {
    json: {
      userId: `reviewer-${String(++counter)}-${String(Date.now())}@enroll.test`,
      displayName: 'Ada',
      reviewer_did,
    },
  });

async function linkOf(did: string): Promise<string | null> {
  const listed = await admin('GET', '/v1/orch/reviewers?limit=100&capability=enroll_review');
  expect(listed.status).toBe(200);
  const reviewer = (listed.body.data as Array<{ did: string; passport_id: string | null }>).find((r) => r.did === did);
  return reviewer!.passport_id;
}

it('links the Passport the enrollment mints to the reviewer, whose routings the person then resolves', async () => {
  const did = reviewerDid('ada');
  await putReviewer(did);
  const enrollment = await enrollFor(did);
  expect(enrollment.status).toBe(201);
  expect(await linkOf(did)).toBeNull();

  const registered = await client(stack.baseUrl)('POST', '/v1/webauthn/registration', {
    json: {
      response: new SoftwareAuthenticator().register(
        enrollment.body.options as PublicKeyCredentialCreationOptionsJSON,
        stack.baseUrl,
      ),
    },
  });
  expect(registered.status).toBe(201);
  expect(await linkOf(did)).toBe(enrollment.body.passport_id);

  const routing = await admin('POST', '/v1/orch/routing', {
    json: {
      task_type: 'enroll_check',
      ai_agent_id: 'urn:enroll:agent:1',
      ai_confidence: 0.3,
      required_capabilities: [{ capability_id: 'enroll_review', min_weight: 0.8 }],
    },
  });
  expect(routing.body.assigned_to).toMatchObject({ type: 'human', did });
  const asPerson = client(stack.baseUrl, registered.body.session.session_token as string);
  const resolved = await asPerson('POST', `/v1/orch/routing/${routing.body.routing_id as string}/resolve`, {
    json: { outcome: 'approved' },
  });
  expect(resolved.status).toBe(200);
});

it('refuses an unknown reviewer with 422 enrollment_reviewer_not_found', async () => {
  const refused = await enrollFor(reviewerDid('nobody'));
  expectProblem(refused, 422, 'enrollment_reviewer_not_found');
  expect(refused.body.detail).toContain('No reviewer');
});

it('refuses another organization’s reviewer as if it did not exist', async () => {
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: `did:web:enroll-beta-${String(Date.now())}.example`, name: 'Enroll Beta' },
  });
  expect(created.status).toBe(201);
  const organizationB = created.body.organization_id as string;
  const adminB = client(stack.baseUrl, await stack.token(['platform:admin', 'orch:admin'], 'bob', organizationB));
  const theirs = reviewerDid('theirs');
  await putReviewer(theirs, adminB);
  expectProblem(await enrollFor(theirs), 422, 'enrollment_reviewer_not_found');
  // Their own administrator enrolls for it.
  expect((await enrollFor(theirs, adminB)).status).toBe(201);
});

it('refuses a reviewer some Passport signs in as already with 409 reviewer_already_linked', async () => {
  const person = await signedInPerson(stack, { name: 'Bea' });
  const did = reviewerDid('bea');
  await putReviewer(did, admin, { passport_id: person.passport_id });
  const refused = await enrollFor(did);
  expectProblem(refused, 409, 'reviewer_already_linked');
  expect(refused.body.detail).toContain(person.passport_id);
  expect(await linkOf(did)).toBe(person.passport_id);
});

it('is an administrator’s: a person signed in may not enroll anyone for a reviewer', async () => {
  const did = reviewerDid('cal');
  await putReviewer(did);
  const person = await signedInPerson(stack, { name: 'Cal' });
  expectProblem(await enrollFor(did, client(stack.baseUrl, person.sessionToken)), 403, 'insufficient_scope');
  expect(await linkOf(did)).toBeNull();
});

it('refuses a reviewer_did that is not a DID with 400 and the field named', async () => {
  const refused = await enrollFor('not-a-did');
  expectProblem(refused, 400, 'validation_failed');
  expect(JSON.stringify(refused.body.errors)).toContain('reviewer_did');
});
