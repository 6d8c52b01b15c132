import type { Principal } from '../identity/scopes';
import { CallRecorder, type CallDeps } from './calls';
import type { ReasonFailure, ReasonResult } from './results';
import { answerWithFallback, openStreamWithFallback } from './fallback';
import type { InterruptedCallSweeper } from './interrupted';
import type { PlanDeps, ReasonPlan } from './plan';
import { streamedAnswer, type ReasoningStreamEvent } from './stream';

export type ReasonDeps = PlanDeps & CallDeps & { sweeper: InterruptedCallSweeper };

/** Answers a planned request with the first model that answers, its call on record. */
export async function reason(
  deps: ReasonDeps,
  plan: ReasonPlan,
  principal: Principal,
): Promise<{ ok: true; result: ReasonResult } | ReasonFailure> {
  deps.sweeper.due();
  const call = new CallRecorder(deps, plan, principal, false);
  void call.open();
  return answerWithFallback(deps, call);
}

/** Streams the answer of the first model that starts one; a refusal before its first piece is an ordinary failure. */
export async function reasonStreaming(
  deps: ReasonDeps,
  plan: ReasonPlan,
  principal: Principal,
): Promise<{ ok: true; events: AsyncGenerator<ReasoningStreamEvent> } | ReasonFailure> {
  deps.sweeper.due();
  const call = new CallRecorder(deps, plan, principal, true);
  void call.open();
  const opened = await openStreamWithFallback(deps, call);
  if (!opened.ok) return opened;
  return { ok: true, events: streamedAnswer(deps, call, opened.opened) };
}
