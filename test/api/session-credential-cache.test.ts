import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../db/connection';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { openApprovalFor } from '../support/approvals';
import { eventually } from '../support/eventually';
import { call, expectProblem, type CallResult } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

/*
 * A signed-in person's request reads the key (or passkey) the session is bound to and whether they administer
 * their organization: from memory while every change to those tables is heard of (lib/notified-cache.ts), and
 * still refused at once when the key is revoked by this instance, within the notification when by another.
 */
const stack = useStack();
/** Another API instance's connection: its writes reach this one only by notification. */
let otherInstance: Db;
beforeAll(() => {
  otherInstance = createDb({ connectionString: stack.database.url, poolMax: 1 });
});
afterAll(() => otherInstance?.destroy());

/** Past the window in which this instance's own writes to a table keep it read through (lib/notified-cache.ts). */
const pastOwnWrites = () => new Promise((resolve) => setTimeout(resolve, 2_500));

const answer = (person: SignedInPerson, approvalId: string): Promise<CallResult> =>
  call(stack.baseUrl, 'POST', `/v1/approvals/${approvalId}/respond`, {
    token: person.sessionToken,
    json: { decision: 'approved' },
  });

/** The statements the stack's connection made while `act` ran. */
async function statementsDuring(act: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const seen = (query: { sql: string }) => statements.push(query.sql);
  stack.database.db.on('query', seen);
  try {
    await act();
  } finally {
    stack.database.db.off('query', seen);
  }
  return statements;
}

describe('a signed-in person answering', () => {
  it('reads neither their key nor their role while those tables are quiet', async () => {
    const person = await signedInPerson(stack);
    const [first, second] = [await openApprovalFor(stack, person), await openApprovalFor(stack, person)];
    await pastOwnWrites();
    expect((await answer(person, first)).status).toBe(200);
    let reply: CallResult | undefined;
    const statements = await statementsDuring(async () => {
      reply = await answer(person, second);
    });
    expect(reply?.status).toBe(200);
    expect(statements.filter((sql) => /passport_keys|webauthn_credentials|employees/.test(sql))).toEqual([]);
  });

  it('is refused at once once this instance revokes the key the session was signed in with', async () => {
    const person = await signedInPerson(stack);
    const [first, second] = [await openApprovalFor(stack, person), await openApprovalFor(stack, person)];
    await pastOwnWrites();
    expect((await answer(person, first)).status).toBe(200);
    const revoked = await call(stack.baseUrl, 'POST', `/v1/passports/${person.passport_id}/keys/${person.kid}/revoke`, {
      token: await stack.token(['platform:write', 'people:enroll']),
      json: { reason: 'device lost' },
    });
    expect(revoked.status).toBe(200);
    expectProblem(await answer(person, second), 401, 'unauthorized');
  });

  it('is refused once another instance’s revocation of the key is heard of', async () => {
    const person = await signedInPerson(stack);
    const [first, second] = [await openApprovalFor(stack, person), await openApprovalFor(stack, person)];
    await pastOwnWrites();
    expect((await answer(person, first)).status).toBe(200);
    await otherInstance('passport_keys')
      .where({ kid: person.kid })
      .update({ status: 'revoked', revoked_at: new Date() });
    const read = () => call(stack.baseUrl, 'GET', `/v1/approvals/${second}`, { token: person.sessionToken });
    const refused = await eventually(read, (reply) => reply.status !== 200, { timeoutMs: 2_000, everyMs: 10 });
    expectProblem(refused, 401, 'unauthorized');
    expectProblem(await answer(person, second), 401, 'unauthorized');
  });
});

describe('a signed-in administrator', () => {
  it('stops administering once another instance takes the role away', async () => {
    const person = await signedInPerson(stack);
    const employeeId = `emp_${randomUUID()}`;
    await otherInstance('employees').insert({
      employee_id: employeeId,
      organization_id: DEFAULT_ORGANIZATION_ID,
      email: `admin-${employeeId}@acme.example`,
      role: 'administrator',
      status: 'active',
      passport_id: person.passport_id,
      linking_code_hash: randomUUID(),
      hmac_key_id: 'test',
      invited_by: 'test',
      created_at: new Date(),
      linking_code_expires_at: new Date(),
      linked_at: new Date(),
    });
    const employees = () => call(stack.baseUrl, 'GET', '/v1/employees', { token: person.sessionToken });
    await eventually(employees, (reply) => reply.status === 200, { timeoutMs: 2_000, everyMs: 10 });
    await otherInstance('employees').where({ employee_id: employeeId }).update({ role: 'member' });
    const refused = await eventually(employees, (reply) => reply.status !== 200, { timeoutMs: 2_000, everyMs: 10 });
    expectProblem(refused, 403, 'insufficient_scope');
  });
});
