import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths } from './schema';
export { SIGNATURE_HEADER, verifyWebhook, type WebhookCheck } from './webhooks';

type Schemas = components['schemas'];
type JsonBody<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type RoutingRequest = JsonBody<'/v1/orch/routing', 'post'>;
export type RoutingDecision = Schemas['RoutingDecision'];
export type RoutingStatus = Schemas['RoutingStatus'];
export type ApprovalRequest = JsonBody<'/v1/approvals', 'post'>;
export type Approval = Schemas['ApprovalRequest'];
export type ConfidenceReport = JsonBody<'/v1/orch/confidence', 'post'>;
export type ConfidenceResponse = Schemas['ConfidenceResponse'];
export type Problem = Schemas['Problem'];

/** An answer that was an RFC 9457 problem: its status and body (type, title, detail, errors…). */
export class HandoffError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(problem ? `${problem.title}${problem.detail ? `: ${problem.detail}` : ''} (${status})` : `HTTP ${status}`);
    this.name = 'HandoffError';
  }
}

export interface HandoffOptions {
  /** Where the API is: http://127.0.0.1:3000 */
  baseUrl: string;
  /** The agent's bearer token: an agent API key (hnd_ak_…), an access token, or a delegation token. */
  token: string;
  fetch?: typeof fetch;
}

/** The longest one long-poll may ask for; waitForDecision asks again until its own timeout. */
const LONG_POLL_SECONDS = 60;

const routingDecided = (routing: RoutingStatus) => routing.status === 'completed' || routing.status === 'expired';
const approvalDecided = (approval: Approval) => approval.status !== 'pending';

function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  throw new HandoffError(result.response.status, result.error as Problem | undefined);
}

/**
 * The typed client (client: every operation of the document, checked by path and method) and the helpers an
 * agent's loop needs.
 */
export function createHandoff(options: HandoffOptions) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const idempotency = (key: string | undefined) => (key ? { 'idempotency-key': key } : {});

  /** Reads until decided or timeoutSeconds pass, one long-poll (?wait=) at a time; returns the last read. */
  async function waitFor<T>(
    read: (wait: number) => Promise<T>,
    decided: (value: T) => boolean,
    timeoutSeconds: number,
  ): Promise<T> {
    const endsAt = Date.now() + timeoutSeconds * 1000;
    for (;;) {
      const left = Math.ceil((endsAt - Date.now()) / 1000);
      const value = await read(Math.max(0, Math.min(LONG_POLL_SECONDS, left)));
      if (decided(value) || Date.now() >= endsAt) return value;
    }
  }

  return {
    client,
    /** POST /v1/orch/routing: the decision, at once (below 0.70 confidence a human takes over). */
    async routeTask(task: RoutingRequest, opts: { idempotencyKey?: string } = {}): Promise<RoutingDecision> {
      return unwrap(
        await client.POST('/v1/orch/routing', { body: task, params: { header: idempotency(opts.idempotencyKey) } }),
      );
    },
    /** POST /v1/approvals: the pending request; its id is what waitForDecision takes. */
    async requestApproval(request: ApprovalRequest, opts: { idempotencyKey?: string } = {}): Promise<Approval> {
      return unwrap(
        await client.POST('/v1/approvals', { body: request, params: { header: idempotency(opts.idempotencyKey) } }),
      );
    },
    /** POST /v1/orch/confidence: may the agent go on alone? A refusal (a human must take over) is a HandoffError (422 or 403). */
    async reportConfidence(
      report: ConfidenceReport,
      opts: { agentId?: string; idempotencyKey?: string } = {},
    ): Promise<ConfidenceResponse> {
      const header = { ...(opts.agentId ? { 'x-agent-id': opts.agentId } : {}), ...idempotency(opts.idempotencyKey) };
      return unwrap(await client.POST('/v1/orch/confidence', { body: report, params: { header } }));
    },
    /**
     * Waits for a human's decision on a routing (completed or expired) or an approval (no longer pending) by
     * long-polls, without a polling loop of the caller's; after timeoutSeconds (300) it returns the state as it is.
     * An agent's own task is named by its task_id (GET /v1/orch/route/{task_id}: the agent's API key suffices;
     * agent_id names the agent for an orch:write token); a routing_id needs orch:read, an approval_id platform:read.
     */
    waitForDecision: ((
      target: { task_id: string; agent_id?: string } | { routing_id: string } | { approval_id: string },
      opts: { timeoutSeconds?: number } = {},
    ) => {
      const timeoutSeconds = opts.timeoutSeconds ?? 300;
      if ('task_id' in target) {
        const header = target.agent_id ? { 'x-agent-id': target.agent_id } : {};
        const read = async (wait: number) =>
          unwrap(
            await client.GET('/v1/orch/route/{task_id}', {
              params: { path: { task_id: target.task_id }, query: { wait }, header },
            }),
          );
        return waitFor(read, routingDecided, timeoutSeconds);
      }
      if ('routing_id' in target) {
        const read = async (wait: number) =>
          unwrap(
            await client.GET('/v1/orch/routing/{routing_id}', {
              params: { path: { routing_id: target.routing_id }, query: { wait } },
            }),
          );
        return waitFor(read, routingDecided, timeoutSeconds);
      }
      const read = async (wait: number) =>
        unwrap(
          await client.GET('/v1/approvals/{approval_id}', {
            params: { path: { approval_id: target.approval_id }, query: { wait } },
          }),
        );
      return waitFor(read, approvalDecided, timeoutSeconds);
    }) as {
      (
        target: { task_id: string; agent_id?: string } | { routing_id: string },
        opts?: { timeoutSeconds?: number },
      ): Promise<RoutingStatus>;
      (target: { approval_id: string }, opts?: { timeoutSeconds?: number }): Promise<Approval>;
    },
  };
}

export type Handoff = ReturnType<typeof createHandoff>;
