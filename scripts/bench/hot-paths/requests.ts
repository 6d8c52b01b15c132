import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { BENCH_FLOOR_WORKFLOW, type BenchFloorWorkflow } from '../floor/contract';
import type { Send } from '../load';

export const APPROVER = 'did:web:bench.example:people:approver';

/** Half the routings go to a human (a reviewer holds general_review), half stay with the agent. */
const ROUTING_CASES = [
  {
    expected: 'escalate_to_human',
    body: JSON.stringify({
      task_type: 'bench_review',
      ai_agent_id: 'urn:bench:agent:1',
      ai_confidence: 0.5,
      required_capabilities: [{ capability_id: 'general_review', min_weight: 0.5 }],
    }),
  },
  {
    expected: 'ai_autonomous',
    body: JSON.stringify({ task_type: 'bench_summarize', ai_agent_id: 'urn:bench:agent:1', ai_confidence: 0.95 }),
  },
] as const;

type Post = ReturnType<typeof http>;

function http(baseUrl: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (
    pathName: string,
    body: string,
    expected: number,
  ): Promise<{ ok: true; body: Record<string, unknown>; location: string | null } | { ok: false; error: string }> => {
    const response = await fetch(`${baseUrl}${pathName}`, { method: 'POST', headers, body });
    const text = await response.text();
    if (response.status !== expected)
      return { ok: false, error: `${pathName}: HTTP ${response.status}: ${text.slice(0, 300)}` };
    return { ok: true, body: JSON.parse(text) as Record<string, unknown>, location: response.headers.get('location') };
  };
}

export function floorStart(client: Client, taskQueue: string): Send {
  const prefix = `floor-${randomBytes(4).toString('hex')}`;
  return async (index) => {
    // It ends a moment after its start, as an autonomous routing does, so the worker holds none of them.
    await client.workflow.start<BenchFloorWorkflow>(BENCH_FLOOR_WORKFLOW, {
      workflowId: `${prefix}-${index}`,
      taskQueue,
      args: [{ answerWithinMs: 1 }],
    });
    return { ok: true };
  };
}

/** The API's three hot paths as load-generator sends, counting what succeeded for the final tally. */
export function hotPathRequests(baseUrl: string, operatorToken: string, approverToken: string) {
  const post: Post = http(baseUrl, operatorToken);
  // Only a signed-in person answers; the approvals are addressed to this one.
  const postAsApprover: Post = http(baseUrl, approverToken);
  const tally = { routed: 0, answeredOk: 0 };
  /** When each answer came, by the workflow id it starts, to read the starts' lag (./start-lag.ts) against. */
  const answeredAt = { routing: new Map<string, number>(), open: new Map<string, number>() };
  const openApproval =
    (expiresInSeconds: number, ids: string[]): Send =>
    async (index) => {
      const body = JSON.stringify({
        requester_passport_id: 'did:web:bench.example:agents:requester',
        approver_passport_id: APPROVER,
        action_description: `bench approval ${index}`,
        request_data: { amount: 500 + index },
        expires_in_seconds: expiresInSeconds,
      });
      const reply = await post('/v1/approvals', body, 201);
      if (!reply.ok) return reply;
      ids[index] = reply.body.id as string;
      answeredAt.open.set(ids[index], Date.now());
      return { ok: true };
    };
  const answerApproval =
    (ids: string[]): Send =>
    async (index) => {
      const reply = await postAsApprover(
        `/v1/approvals/${ids[index]!}/respond`,
        JSON.stringify({ decision: 'approved', responded_by: APPROVER }),
        200,
      );
      if (!reply.ok) return reply;
      if (reply.body.status !== 'approved') return { ok: false, error: `answered ${String(reply.body.status)}` };
      tally.answeredOk += 1;
      return { ok: true };
    };
  const route: Send = async (index) => {
    const { expected, body } = ROUTING_CASES[index % ROUTING_CASES.length]!;
    const reply = await post('/v1/orch/routing', body, 200);
    if (!reply.ok) return reply;
    tally.routed += 1;
    answeredAt.routing.set(reply.location!.split('/').pop()!, Date.now());
    return reply.body.decision === expected
      ? { ok: true }
      : { ok: false, error: `decision ${String(reply.body.decision)}, expected ${expected}` };
  };
  return { tally, answeredAt, openApproval, answerApproval, route };
}
