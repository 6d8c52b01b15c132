import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import pg from 'pg';
import { client } from '../support/http';
import { signedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

/**
 * The statements one answer sends to Postgres, told apart from the in-process worker's by the request they are
 * made within (an async context entered when the server takes the request), with when each was sent and answered.
 */
interface Statement {
  text: string;
  sentAt: bigint;
  answeredAt?: bigint;
}
const within = new AsyncLocalStorage<Statement[]>();
let requests: Statement[][] = [];
diagnostics.subscribe('http.server.request.start', () => {
  const statements: Statement[] = [];
  requests.push(statements);
  within.enterWith(statements);
});

// Patched before the stack connects; node-postgres's callback form is the one knex and db/prepared.ts use.
const query = Reflect.get(pg.Client.prototype, 'query') as (this: pg.Client, ...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const statements = within.getStore();
  const callback = args.at(-1);
  if (statements && typeof callback === 'function') {
    const config = args[0] as string | { text: string };
    const statement: Statement = {
      text: typeof config === 'string' ? config : config.text,
      sentAt: process.hrtime.bigint(),
    };
    statements.push(statement);
    args[args.length - 1] = (...result: unknown[]) => {
      statement.answeredAt = process.hrtime.bigint();
      return (callback as (...a: unknown[]) => unknown)(...result);
    };
  }
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

const stack = useStack();
const APPROVER = 'did:web:acme.example:people:approver';

async function openApprovals(count: number): Promise<string[]> {
  const api = client(stack.baseUrl, await stack.token());
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const reply = await api('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:acme.example:agents:payer',
        approver_passport_id: APPROVER,
        action_description: `Pay invoice ${i}`,
        request_data: { amount: 100 + i },
      },
    });
    expect(reply.status).toBe(201);
    ids.push(reply.body.id);
  }
  return ids;
}

describe('an answer to an approval', () => {
  it('reads the request while its call is counted, and claims it in the round trip after', async () => {
    const approver = await signedInPerson(stack, { did: APPROVER });
    const asApprover = client(stack.baseUrl, approver.sessionToken);
    const ids = await openApprovals(3);
    for (const id of ids) await stack.startedWorkflow(id);

    const answers: Statement[][] = [];
    for (const id of ids) {
      requests = [];
      const reply = await asApprover('POST', `/v1/approvals/${id}/respond`, {
        json: { decision: 'approved', responded_by: APPROVER },
      });
      expect(reply.status).toBe(200);
      answers.push(requests[0]!);
    }

    const kinds = /insert into rate_limit_counters|from "approvals"|update "approvals"/;
    // The credential checks are left out: the cache answers them once the writes of this test's setup are heard of.
    const made = answers.map((statements) => statements.filter((s) => kinds.test(s.text)));
    for (const statements of made) {
      // The request's read and the rate limit's count (in either order), then the claim: its record, event and signal
      // in one statement.
      const kindsSent = statements.map((s) => kinds.exec(s.text)?.[0]);
      expect(kindsSent.slice(0, 2).sort()).toEqual(['from "approvals"', 'insert into rate_limit_counters']);
      expect(kindsSent.slice(2)).toEqual(['update "approvals"']);
    }
    // With one connection (the embedded database) the read waits for the count's.
    if (stack.database.embedded) return;
    // Sent at once: each goes out before the other comes back (on a loaded machine, at least once in three).
    const overlapped = ([first, second]: Statement[]) => second!.sentAt < first!.answeredAt!;
    expect(made.some(overlapped)).toBe(true);
  });
});
