import { call, client } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { stepEvents } from '../support/ledger-records';
import { useStack } from '../support/stack';

/*
 * Cover in routing: a routing assigned to Ada while Bea covers for her (a window, optionally limited to
 * capabilities) goes to Bea, and its assignee, chain, records and events say "Bea, covering for Ada"; outside
 * the window, under a cover limited to other capabilities, or with another organization's cover, it goes to Ada.
 */

const stack = useStack();
let admin: ReturnType<typeof client>;
let ada: SignedInPerson;
let bea: SignedInPerson;
let lead: SignedInPerson;

// Reviewers of this file's own capability; Ada and Bea are reviewers linked to their Passports (other DIDs).
const FIRST = 'did:web:covers.test:reviewers:first';
const ADA = 'did:web:covers.test:reviewers:ada';
const BEA = 'did:web:covers.test:reviewers:bea';
const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
  [ada, bea, lead] = await Promise.all([
    signedInPerson(stack, { name: 'Ada' }),
    signedInPerson(stack, { name: 'Bea' }),
    signedInPerson(stack, { name: 'Lead' }),
  ]);
  const reviewers = [
    [FIRST, { display_name: 'First', capabilities: { cover_claims: 0.8 } }],
    [ADA, { display_name: 'Ada', capabilities: { cover_claims: 0.9 }, chain_level: 2, passport_id: ada.passport_id }],
    [BEA, { display_name: 'Bea', capabilities: { cover_other: 0.5 }, passport_id: bea.passport_id }],
  ] as const;
  for (const [did, body] of reviewers)
    expect((await admin('PUT', `/v1/orch/reviewers/${did}`, { json: body })).status).toBe(204);
});

const claim = async () => {
  const routed = await admin('POST', '/v1/orch/routing', {
    json: {
      task_type: 'cover_claim',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'cover_claims', min_weight: 0.7 }],
    },
  });
  expect(routed.status).toBe(200);
  return routed.body as { routing_id: string; assigned_to: { did: string; covering_for?: string } };
};

/** The routing moved up the chain by a supervisor: from First (level 1) to Ada (level 2). */
const escalate = async (routingId: string) => {
  const moved = await client(stack.baseUrl, lead.sessionToken)('POST', '/v1/orch/escalation/manual', {
    json: { routing_id: routingId, escalation_reason: 'second opinion', requested_by: lead.did },
  });
  expect(moved.status).toBe(200);
  return moved.body;
};

async function coverBy(person: SignedInPerson, body: Record<string, unknown>): Promise<string> {
  const cover = await client(stack.baseUrl, person.sessionToken)('POST', '/v1/covers', {
    json: { covering_did: bea.did, ends_at: inHours(24), ...body },
  });
  expect(cover.status).toBe(201);
  return cover.body.cover_id as string;
}
const endCover = async (id: string) => expect((await admin('DELETE', `/v1/covers/${id}`)).status).toBe(200);

const provenanceStep = async (routingId: string, stepId: string) => {
  const history = await admin('GET', `/v1/orch/provenance/${routingId}`);
  expect(history.status).toBe(200);
  return (
    history.body.decision_chain as Array<{ step_id: string; output_data: Record<string, unknown>; reasoning: string }>
  ).find((step) => step.step_id === stepId)!;
};

describe('a routing escalated to a reviewer who is away', () => {
  it('goes to the colleague covering for them, and its assignee, chain, provenance and events say so', async () => {
    const cover = await coverBy(ada, { reason: 'leave' });
    const routed = await claim();
    expect(routed.assigned_to.did).toBe(FIRST);
    expect(routed.assigned_to.covering_for).toBeUndefined();

    const moved = await escalate(routed.routing_id);
    expect(moved).toMatchObject({ status: 'assigned', assigned_to: { type: 'human', did: BEA, covering_for: ADA } });
    expect(moved.escalation_chain[1]).toMatchObject({ level: 2, did: BEA, covering_for: ADA });

    const status = await admin('GET', `/v1/orch/routing/${routed.routing_id}`);
    expect(status.body).toMatchObject({
      status: 'in_progress',
      assigned_to: { type: 'human', did: BEA, covering_for: ADA },
      escalation_chain: [{ did: FIRST }, { did: BEA, covering_for: ADA }],
    });
    expect(status.body.escalation_chain[0]).not.toHaveProperty('covering_for');

    const step = await provenanceStep(routed.routing_id, 'escalation:2');
    expect(step.output_data).toMatchObject({ to_did: BEA, covering_for: ADA });
    expect(step.reasoning).toContain(`${BEA}, covering for ${ADA}`);
    expect(await stepEvents(stack.database.db, routed.routing_id, 'escalation:2')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          event: 'escalation.triggered',
          data: expect.objectContaining({ assigned_human: BEA, covering_for: ADA }),
        }),
      ]),
    );
    // Bea's inbox shows whom she holds it for.
    const inbox = await client(stack.baseUrl, bea.sessionToken)('GET', '/v1/inbox/items');
    const item = inbox.body.data.find((entry: { item_id: string }) => entry.item_id === routed.routing_id);
    expect(item.escalation_chain.at(-1)).toMatchObject({
      did: BEA,
      current: true,
      covering_for: ADA,
      covering_for_name: 'Ada',
    });
    // Bea, who holds it, resolves it as herself.
    const resolved = await client(stack.baseUrl, bea.sessionToken)(
      'POST',
      `/v1/orch/routing/${routed.routing_id}/resolve`,
      { json: { outcome: 'approved' } },
    );
    expect(resolved.status).toBe(200);
    await endCover(cover);
  });

  it('applies a cover at the decision too, for a cover an administrator set on a reviewer DID', async () => {
    const cover = await admin('POST', '/v1/covers', {
      json: { covered_did: FIRST, covering_did: BEA, ends_at: inHours(2) },
    });
    expect(cover.status).toBe(201);
    const routed = await claim();
    expect(routed.assigned_to).toMatchObject({ did: BEA, covering_for: FIRST });
    const decided = await provenanceStep(routed.routing_id, 'routing_decision');
    expect(decided.output_data.assigned_to).toMatchObject({ did: BEA, covering_for: FIRST });
    expect(decided.reasoning).toContain(`${BEA}, covering for ${FIRST}`);
    expect(await stepEvents(stack.database.db, routed.routing_id, 'routing_decision')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          event: 'routing.escalated',
          data: expect.objectContaining({ assigned_human: BEA, covering_for: FIRST }),
        }),
      ]),
    );
    await endCover(cover.body.cover_id as string);
  });

  it('stays with the reviewer outside the window: a cover not begun yet, or ended early', async () => {
    const later = await coverBy(ada, { starts_at: inHours(1), ends_at: inHours(3) });
    expect((await escalate((await claim()).routing_id)).assigned_to).toEqual(
      expect.not.objectContaining({ covering_for: expect.anything() }),
    );
    const ended = await coverBy(ada, {});
    await endCover(ended);
    const moved = await escalate((await claim()).routing_id);
    expect(moved.assigned_to.did).toBe(ADA);
    expect(moved.assigned_to).not.toHaveProperty('covering_for');
    await endCover(later);
  });

  it('hands on under a cover limited to capabilities only the routings whose needs are all among them', async () => {
    const elsewhere = await coverBy(ada, { capabilities: ['cover_other'] });
    expect((await escalate((await claim()).routing_id)).assigned_to.did).toBe(ADA);
    await endCover(elsewhere);
    const these = await coverBy(ada, { capabilities: ['COVER_CLAIMS', 'cover_other'] });
    expect((await admin('GET', `/v1/covers/${these}`)).body.capabilities).toEqual(['COVER_CLAIMS', 'cover_other']);
    expect((await escalate((await claim()).routing_id)).assigned_to).toMatchObject({ did: BEA, covering_for: ADA });
    // A cover limited to capabilities leaves Ada's approvals, which name none, with her.
    const request = await admin('POST', '/v1/approvals', {
      json: { requester_passport_id: lead.did, approver_passport_id: ada.did, action_description: 'Refund 90 EUR' },
    });
    expect(request.status).toBe(201);
    expect(request.body).toMatchObject({ approver_passport_id: ada.did, covering_for: null });
    await endCover(these);
  });

  it('never applies another organization’s cover, even for the same DIDs', async () => {
    const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
      token: await stack.token(['cloud:admin:global'], 'operator'),
      json: { org_did: `did:web:covers-beta-${String(Date.now())}.example`, name: 'Covers Beta' },
    });
    expect(created.status).toBe(201);
    const adminB = client(stack.baseUrl, await stack.token(undefined, 'bob', created.body.organization_id as string));
    for (const did of [ADA, BEA])
      expect(
        (
          await adminB('PUT', `/v1/orch/reviewers/${did}`, {
            json: { display_name: 'B', capabilities: { cover_claims: 0.9 } },
          })
        ).status,
      ).toBe(204);
    const theirs = await adminB('POST', '/v1/covers', {
      json: { covered_did: ADA, covering_did: BEA, ends_at: inHours(2) },
    });
    expect(theirs.status).toBe(201);
    const moved = await escalate((await claim()).routing_id);
    expect(moved.assigned_to.did).toBe(ADA);
    expect(moved.assigned_to).not.toHaveProperty('covering_for');
    // Nor does our administrator see or end it.
    expect((await admin('DELETE', `/v1/covers/${theirs.body.cover_id as string}`)).status).toBe(404);
  });
});
