import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { call, client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

/*
 * A person resolves as the reviewers linked to their Passport, and only those of their own organization: a
 * reviewer of the same DID in another organization, whatever it is linked to, makes no one a reviewer here.
 */

const stack = useStack();

const SHARED = 'did:web:alias.test:reviewers:lead';

it('does not take a reviewer of another organization linked to the person as who they are', async () => {
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:alias-beta.example', name: 'Beta' },
  });
  const organizationB = created.body.organization_id as string;
  const adminA = client(stack.baseUrl, await stack.token(['orch:admin']));
  const adminB = client(stack.baseUrl, await stack.token(['orch:admin'], 'bob', organizationB));
  for (const admin of [adminA, adminB])
    expect(
      (
        await admin('PUT', `/v1/orch/reviewers/${SHARED}`, {
          json: { display_name: 'Lead', capabilities: { alias_review: 0.9 } },
        })
      ).status,
    ).toBe(204);
  // A person of A whose Passport B's reviewer row names: the API never links another organization's Passport, a stray row might.
  const person = await signedInPerson(stack, { organization_id: DEFAULT_ORGANIZATION_ID });
  expect(
    await stack.database
      .db('reviewers')
      .where({ organization_id: organizationB, did: SHARED })
      .update({ passport_id: person.passport_id }),
  ).toBe(1);

  const routing = await adminA('POST', '/v1/orch/routing', {
    json: {
      task_type: 'alias_check',
      ai_agent_id: 'urn:alias:agent:1',
      ai_confidence: 0.4,
      required_capabilities: [{ capability_id: 'alias_review', min_weight: 0.8 }],
    },
  });
  expect(routing.body.assigned_to).toMatchObject({ type: 'human', did: SHARED });
  const asPerson = client(stack.baseUrl, person.sessionToken);
  expectProblem(
    await asPerson('POST', `/v1/orch/routing/${routing.body.routing_id}/resolve`, {
      json: { reviewer_did: SHARED, outcome: 'approved' },
    }),
    403,
    'actor_mismatch',
  );
  expectProblem(
    await asPerson('POST', `/v1/orch/routing/${routing.body.routing_id}/resolve`, { json: { outcome: 'approved' } }),
    403,
    'reviewer_not_assigned',
  );
  expect((await adminA('GET', `/v1/orch/routing/${routing.body.routing_id}`)).body).toMatchObject({
    status: 'in_progress',
  });
});
