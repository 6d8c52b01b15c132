import type { Exclusion } from '../../domain/models/selection';
import type { ReasonFailure } from '../../services/reasoning/results';
import type { PlanRefusal } from '../../services/reasoning/plan';
import { Problem } from '../problem';

/** How long a client should wait before retrying when no provider answered. */
const PROVIDER_RETRY_AFTER_SECONDS = 30;
/** A deployment without providers needs an operator, not a quick retry. */
const NOT_CONFIGURED_RETRY_AFTER_SECONDS = 300;

export const REASONING_PROBLEMS = {
  422: {
    description:
      'pinned_model_unknown, pinned_model_deprecated, no_model_available (detail says why each model was left out), prompt_variables_invalid',
  },
  404: { description: 'prompt_not_found: prompt_key names no prompt of the organization' },
  403: { description: 'insufficient_scope: prompt_key names a prompt the caller may not read (prompt:read:{key})' },
  503: {
    description:
      'reasoning_not_configured: no provider is configured (detail says how: REASONING_PROVIDERS), or not the pinned model’s; ' +
      'model_providers_unavailable: every provider tried failed or timed out (detail names each). With Retry-After.',
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying' } },
  },
};

const HOW_TO_CONFIGURE =
  'Set REASONING_PROVIDERS to a JSON object from provider name to its OpenAI-compatible endpoint, e.g. ' +
  '{"ollama":{"base_url":"http://127.0.0.1:11434/v1"},"openai":{"base_url":"https://api.openai.com/v1","api_key":"…"}}, and restart the API; ' +
  'models of the registry (GET /v1/models) whose provider is configured become routable.';

const EXCLUSION_WORDS: Record<Exclusion['reason'], string> = {
  status: 'not active',
  provider_not_configured: 'provider not configured',
  context_too_small: 'context too small for the prompt and max_tokens',
};

function refusalDetail(refusal: PlanRefusal): string {
  switch (refusal.code) {
    case 'reasoning_not_configured':
      if (refusal.unconfigured === null) return `No model provider is configured. ${HOW_TO_CONFIGURE}`;
      return `${refusal.unconfigured.model_id} is served by ${refusal.unconfigured.provider}, which is not configured. ${HOW_TO_CONFIGURE}`;
    case 'pinned_model_unknown':
      return `No model ${refusal.model_id} in the registry; list them with GET /v1/models`;
    case 'pinned_model_deprecated':
      return `${refusal.model_id} is deprecated; pin an active model or let the service choose`;
    case 'no_model_available': {
      const providers = refusal.providers.join(', ');
      if (refusal.registryEmpty)
        return `The registry has no model of the configured providers (${providers}); register one with POST /v1/models`;
      const why = refusal.excluded
        .slice(0, 10)
        .map((exclusion) => `${exclusion.model_id}: ${EXCLUSION_WORDS[exclusion.reason]}`);
      return `No model can take this request (${why.join('; ')})`;
    }
  }
}

/** Why no model can take the request, with how long to wait when only an operator can fix it. */
export function refusalProblem(refusal: PlanRefusal): Problem {
  const retryAfter =
    refusal.code === 'reasoning_not_configured'
      ? { headers: { 'Retry-After': String(NOT_CONFIGURED_RETRY_AFTER_SECONDS) } }
      : {};
  return new Problem(refusal.code, refusalDetail(refusal), retryAfter);
}

/** No provider answered: each attempt and its error, the call on record, and when to retry. */
export function unavailableProblem(failure: ReasonFailure): Problem {
  const tried = failure.attempts
    .map((attempt) => `${attempt.model} (${attempt.provider}): ${attempt.error ?? 'failed'}`)
    .join('; ');
  return new Problem(failure.code, `No provider answered: ${tried || 'the time budget was spent before any attempt'}`, {
    headers: { 'Retry-After': String(PROVIDER_RETRY_AFTER_SECONDS) },
    extensions: { call_id: failure.callId, attempts: failure.attempts },
  });
}
