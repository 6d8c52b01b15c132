import {
  approverRefusal,
  HUMAN_ACT_CAPABILITIES,
  humanActorOf,
  humanProvenanceActor,
  type HumanActCaller,
  type HumanActor,
} from '../../../domain/identity/human-acts';

const ADA: HumanActor = {
  passport_id: 'pp_ada',
  did: 'did:web:acme.example:passports:pp_ada',
  credential: { type: 'device_key', id: 'kid_ada' },
};
const session: HumanActCaller = { kind: 'session', scopes: ['platform:write'], actor: ADA };
const delegation = (scopes: string[], from: HumanActor = ADA): HumanActCaller => ({
  kind: 'delegation_token',
  scopes,
  actor: { ...from, credential: { type: 'delegation_token', id: 'dlg_1' }, agent_id: 'agent://acme/payer@1.0.0' },
});

describe('who does a human act', () => {
  it.each([
    ['a personal access token', { kind: 'personal_access_token', scopes: ['platform:write'] }],
    ['a service account', { kind: 'service_account', scopes: ['orch:write'] }],
    ['an agent key', { kind: 'agent', scopes: ['orch:agent'] }],
    ['an OAuth access token', { kind: 'jwt', scopes: ['orch:admin'] }],
  ])('refuses %s: a person must sign in', (_name, caller) => {
    expect(humanActorOf(caller, 'respond_approval')).toEqual({
      ok: false,
      code: 'person_required',
      detail: expect.stringContaining('passkey or a device key'),
    });
  });

  it.each([
    ['no DID named', undefined, { ok: true, actor: ADA }],
    ['their own DID named', ADA.did, { ok: true, actor: ADA }],
    ['a reviewer DID linked to their Passport', 'did:web:handoff.local:reviewers:ada', { ok: true, actor: ADA }],
    [
      'someone else’s DID',
      'did:web:acme.example:people:cfo',
      { ok: false, code: 'actor_mismatch', detail: expect.stringContaining('did:web:acme.example:people:cfo') },
    ],
  ])('takes a signed-in person with %s', (_name, claimed, expected) => {
    expect(humanActorOf(session, 'resolve_routing', claimed, ['did:web:handoff.local:reviewers:ada'])).toEqual(
      expected,
    );
  });

  it('takes an agent with a delegation holding the act’s capability, and refuses one without it', () => {
    expect(humanActorOf(delegation([HUMAN_ACT_CAPABILITIES.respond_approval]), 'respond_approval')).toMatchObject({
      ok: true,
      actor: { did: ADA.did, agent_id: 'agent://acme/payer@1.0.0' },
    });
    expect(humanActorOf(delegation([HUMAN_ACT_CAPABILITIES.respond_approval]), 'cancel_approval')).toMatchObject({
      ok: false,
      code: 'delegation_not_covering',
    });
    expect(humanActorOf(delegation(['platform:write']), 'respond_approval')).toMatchObject({
      ok: false,
      code: 'delegation_not_covering',
    });
  });
});

describe('who may answer an approval request', () => {
  const addressed = {
    approval_id: 'apr_1',
    approver_passport_id: ADA.did,
    requester_passport_id: 'did:web:acme.example:agents:payer',
  };
  const grace: HumanActor = {
    passport_id: 'pp_grace',
    did: 'did:web:acme.example:passports:pp_grace',
    credential: { type: 'passkey', id: 'cred_grace' },
  };

  it.each([
    ['the approver, by DID', addressed, ADA, 'answer', undefined],
    ['the approver, named by Passport id', { ...addressed, approver_passport_id: 'pp_ada' }, ADA, 'answer', undefined],
    [
      'anyone signed in, when no approver is named',
      { ...addressed, approver_passport_id: null },
      grace,
      'answer',
      undefined,
    ],
    [
      'the approver’s delegate',
      addressed,
      delegation([HUMAN_ACT_CAPABILITIES.respond_approval]).actor!,
      'answer',
      undefined,
    ],
    ['the requester, cancelling', { ...addressed, requester_passport_id: grace.did }, grace, 'cancel', undefined],
    ['someone else', addressed, grace, 'answer', 'not_the_approver'],
    [
      'someone else’s delegate',
      addressed,
      delegation([HUMAN_ACT_CAPABILITIES.respond_approval], grace).actor!,
      'answer',
      'not_the_approver',
    ],
    ['someone else, cancelling', addressed, grace, 'cancel', 'not_the_approver'],
  ] as const)('%s', (_name, approval, actor, act, code) => {
    const refusal = approverRefusal(approval, actor, act);
    expect(refusal?.code).toBe(code);
  });
});

describe('the provenance actor of a human act', () => {
  it('names the DID, the Passport and the credential, and the agent when a delegate acted', () => {
    expect(humanProvenanceActor(ADA)).toEqual({
      type: 'human',
      did: ADA.did,
      passport_id: 'pp_ada',
      credential: { type: 'device_key', id: 'kid_ada' },
    });
    expect(humanProvenanceActor(delegation([]).actor!)).toEqual({
      type: 'human',
      did: ADA.did,
      passport_id: 'pp_ada',
      credential: { type: 'delegation_token', id: 'dlg_1' },
      agent_id: 'agent://acme/payer@1.0.0',
    });
  });
});
