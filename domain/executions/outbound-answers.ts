/**
 * What an HTTP answer means for an outbound call the platform makes: an agent invocation or an execution's
 * callback. Retrying is right when the other side may answer differently later (5xx, 408, 429, no answer),
 * wrong when it told us the request itself is unacceptable (other 4xx) or our policy refused the destination.
 */

export type AnswerVerdict =
  { kind: 'success' } | { kind: 'retry'; reason: string } | { kind: 'give_up'; reason: string };

const RETRYABLE_CLIENT_STATUSES = new Set([408, 409, 425, 429]);

export function judgeAgentAnswer(answer: {
  status?: number | undefined;
  error?: string | undefined;
  refused?: boolean | undefined;
}): AnswerVerdict {
  if (answer.refused) return { kind: 'give_up', reason: 'destination_refused' };
  if (answer.status === undefined) return { kind: 'retry', reason: 'agent_unreachable' };
  if (answer.status >= 200 && answer.status < 300) return { kind: 'success' };
  if (answer.status >= 500 || RETRYABLE_CLIENT_STATUSES.has(answer.status))
    return { kind: 'retry', reason: 'agent_error' };
  return { kind: 'give_up', reason: 'agent_rejected' };
}

/** A callback receiver that answers 410 Gone says it will never take one; anything else but 2xx may change. */
export function judgeCallbackAnswer(answer: {
  status?: number | undefined;
  refused?: boolean | undefined;
}): AnswerVerdict {
  if (answer.refused) return { kind: 'give_up', reason: 'destination_refused' };
  if (answer.status === undefined) return { kind: 'retry', reason: 'receiver_unreachable' };
  if (answer.status >= 200 && answer.status < 300) return { kind: 'success' };
  if (answer.status === 410) return { kind: 'give_up', reason: 'receiver_gone' };
  return { kind: 'retry', reason: 'receiver_error' };
}

/** The agent's answer as the execution's result_json: an object as is, anything else wrapped. */
export function resultObject(body: unknown): Record<string, unknown> {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  return body === undefined ? {} : { result: body };
}
