import { platformSettings } from '../../../app/platform';
import { approvalFromRow, findApprovalById } from '../../../db/approvals';
import type { ApprovalState } from '../../../contracts/approval';
import { answerStep } from '../../../services/approvals/answers';
import type { PlatformServiceDeps } from '../../../services/approvals/approvals';
import { claimStep } from '../../../services/approvals/claim-step';
import { openApprovalFor } from '../../support/approvals';
import { signedInPerson, type SignedInPerson } from '../../support/identity';
import { useStack } from '../../support/stack';

/*
 * An answer is checked on the request it is claimed on: when the request changed between the read and the
 * claim (an escalation moved it to another approver), the claim is built again on the request as it stands,
 * and the person it no longer names is refused.
 */
const stack = useStack();
let ada: SignedInPerson;
let bea: SignedInPerson;
let deps: PlatformServiceDeps;
beforeAll(async () => {
  [ada, bea] = [await signedInPerson(stack, { name: 'Ada' }), await signedInPerson(stack, { name: 'Bea' })];
  deps = {
    db: stack.database.db,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    settings: platformSettings(stack.config),
  };
});

const actorOf = (person: SignedInPerson) => ({
  passport_id: person.passport_id,
  did: person.did,
  credential: { type: 'device_key' as const, id: person.kid },
});

async function requestFor(approver: SignedInPerson): Promise<ApprovalState> {
  const id = await openApprovalFor(stack, approver);
  return approvalFromRow((await findApprovalById(stack.database.db, 'org_default', id))!);
}

/** Ada's approval claimed on the request as she read it. */
function approveAs(person: SignedInPerson, read: ApprovalState) {
  const at = new Date().toISOString();
  const input = {
    decision: 'approved' as const,
    response_kind: 'approved' as const,
    responded_by: person.did,
    principal: `passport:${person.passport_id}`,
    actor: actorOf(person),
  };
  return claimStep(deps, read, input, answerStep({ kind: 'respond', input }, actorOf(person), at), at);
}

describe('an answer claimed on a request that changed since it was read', () => {
  it('refuses the approver an escalation replaced meanwhile, and leaves the request pending', async () => {
    const read = await requestFor(ada);
    // An escalation between the read and the claim: the request names Bea now, one version up.
    await stack.database
      .db('approvals')
      .where({ approval_id: read.approval_id })
      .update({ approver_passport_id: bea.did, version: read.version + 1 });
    expect(await approveAs(ada, read)).toMatchObject({ ok: false, code: 'not_the_approver' });
    const row = await findApprovalById(stack.database.db, 'org_default', read.approval_id);
    expect(row).toMatchObject({ status: 'pending', approver_passport_id: bea.did });
  });

  it('takes the answer of the approver the request still names', async () => {
    const read = await requestFor(ada);
    await stack.database
      .db('approvals')
      .where({ approval_id: read.approval_id })
      .update({ version: read.version + 1 });
    expect(await approveAs(ada, read)).toMatchObject({ ok: true, approval: { status: 'approved' } });
  });
});
