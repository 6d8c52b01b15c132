import { randomUUID } from 'node:crypto';
import { findReasoningCall, insertSignal } from '../../db/reasoning-calls';
import { grantsPrompt } from '../../domain/prompts/scopes';
import type { Principal } from '../../services/identity/scopes';
import { promptMessages } from '../../services/prompts/render';
import { planReasoning, type ReasonPlan } from '../../services/reasoning/plan';
import { reason, reasonStreaming, type ReasonDeps } from '../../services/reasoning/reason';
import { Problem } from '../problem';
import type { ApiBuilder } from '../route';
import { routeGroup, type RouteGroup } from '../route-group';
import { ReasonRequestSchema, ReasonResponseSchema, SignalRequestSchema, SignalSchema } from '../schemas/models';
import { z } from '../schemas/zod';
import { REASONING_PROBLEMS, refusalProblem, unavailableProblem } from './reasoning-problems';
import { answerOf, reasoningEventStream } from './reasoning-replies';

type ReasonBody = z.infer<typeof ReasonRequestSchema>;

/** The messages to send: the named prompt's text, when there is one the caller may read, before the caller's own. */
async function withPrompt(deps: ReasonDeps, body: ReasonBody, principal: Principal) {
  if (body.prompt_key === undefined) return { messages: body.messages, prompt: undefined };
  const rendered = await promptMessages(
    deps.db,
    principal.organization_id,
    body.prompt_key,
    body.prompt_variables ?? {},
    (key) => grantsPrompt(principal.scopes, 'read', key),
  );
  if (!rendered.ok) {
    if (rendered.code === 'forbidden') {
      throw new Problem('insufficient_scope', `Reading the prompt ${rendered.key} needs prompt:read:${rendered.key}`, {
        extensions: { required_scope: `prompt:read:${rendered.key}` },
      });
    }
    throw new Problem(rendered.code, rendered.detail, rendered.errors ? { errors: rendered.errors } : {});
  }
  return {
    messages: [{ role: 'system' as const, content: rendered.content }, ...body.messages],
    prompt: { key: rendered.key, version: rendered.version },
  };
}

async function plan(deps: ReasonDeps, body: ReasonBody, principal: Principal): Promise<ReasonPlan> {
  const outcome = await planReasoning(deps, { ...body, ...(await withPrompt(deps, body, principal)) });
  if (!outcome.ok) throw refusalProblem(outcome);
  return outcome.plan;
}

/** Reasoning: an answer (whole or streamed) from the model the registry selects, and signals on how it was received. */
export function registerReasoningRoutes(api: ApiBuilder, deps: ReasonDeps): void {
  const reasoning = routeGroup(api, { tags: ['Reasoning'], auth: 'platform:write', rateLimit: 'default' });
  registerReason(reasoning, deps);
  registerSignals(reasoning, deps);
}

function registerReason(reasoning: RouteGroup, deps: ReasonDeps): void {
  reasoning.route({
    method: 'post',
    path: '/v1/reason',
    operationId: 'reason',
    summary: 'Answer messages with the model the registry’s score selects for the task, complexity and budget',
    description:
      'The selected model is tried first, then each ranked alternative on a provider failure or timeout, within REASONING_MAX_ATTEMPTS and ' +
      'REASONING_TOTAL_TIMEOUT_MS. Usage, cost (from the registry’s prices), duration and the routing decision are recorded with a provenance ' +
      'record (the prompt’s SHA-256, and its text only where the organization’s policy allows). The call is on record (open) before the answer is ' +
      'returned and is completed as the answer is sent, so a record read at once may still be open for a few milliseconds. POST /v1/reason/stream streams the answer.',
    request: { body: ReasonRequestSchema },
    responses: { 200: { description: 'The answer', schema: ReasonResponseSchema }, ...REASONING_PROBLEMS },
    handler: async ({ body, principal }) => {
      const outcome = await reason(deps, await plan(deps, body, principal), principal);
      if (!outcome.ok) throw unavailableProblem(outcome);
      return { status: 200, body: answerOf(outcome.result) };
    },
  });

  reasoning.route({
    method: 'post',
    path: '/v1/reason/stream',
    operationId: 'reasonStreaming',
    summary: 'The same as POST /v1/reason, answered as server-sent events while the model writes',
    description:
      'Events: routing {model, provider, routingDecision, callId}; delta {text} for each piece; then done {success, data {model, provider, usage}, metadata} ' +
      'once the call is recorded, or error {detail, callId} when the provider fails mid-stream. Fallback to the next alternative happens until the first ' +
      'piece arrives; a refusal before that is an ordinary problem response. No Idempotency-Key: a stream cannot be replayed.',
    idempotency: false,
    request: { body: ReasonRequestSchema },
    responses: {
      200: { description: 'A stream of server-sent events', contentType: 'text/event-stream', schema: z.string() },
      ...REASONING_PROBLEMS,
    },
    handler: async ({ body, principal, res }) => {
      const outcome = await reasonStreaming(deps, await plan(deps, body, principal), principal);
      if (!outcome.ok) throw unavailableProblem(outcome);
      res.set({ 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
      return {
        status: 200,
        stream: { contentType: 'text/event-stream', chunks: reasoningEventStream(outcome.events) },
      };
    },
  });
}

function registerSignals(reasoning: RouteGroup, deps: ReasonDeps): void {
  reasoning.route({
    method: 'post',
    path: '/v1/reasoning-calls/{call_id}/signals',
    operationId: 'recordReasoningSignal',
    summary: 'Record how a reasoning call’s answer was received: positive, negative, rephrase or correction',
    description:
      'Signals feed the statistics of the prompt the call used; a negative or correction signal makes the call count as unsuccessful.',
    request: {
      params: z.object({ call_id: z.string().regex(/^rsn_[0-9a-f-]{36}$/, 'must be a reasoning call id (rsn_…)') }),
      body: SignalRequestSchema,
    },
    responses: {
      201: { description: 'The signal', schema: SignalSchema },
      404: { description: 'reasoning_call_not_found' },
    },
    handler: async ({ params, body, principal }) => {
      const call = await findReasoningCall(deps.db, principal.organization_id, params.call_id);
      if (!call) throw new Problem('reasoning_call_not_found', `No reasoning call ${params.call_id}`);
      const recorded = await insertSignal(deps.db, {
        signal_id: `sig_${randomUUID()}`,
        call_id: call.call_id,
        organization_id: principal.organization_id,
        signal: body.signal,
        note: body.note ?? null,
        recorded_by: principal.id,
      });
      return {
        status: 201,
        body: {
          call_id: call.call_id,
          signal: body.signal,
          note: body.note ?? null,
          recorded_at: recorded.created_at.toISOString(),
        },
      };
    },
  });
}
