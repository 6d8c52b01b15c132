import { z } from 'zod';
import { commaList, jsonSetting } from './fields';

/** Reasoning and the model registry. */
export const reasoningSettings = {
  /**
   * The OpenAI-compatible providers models are routed to, as a JSON object from provider name (a model's
   * provider) to {"base_url": "…/v1", "api_key": "…"} (api_key optional, e.g. for Ollama or vLLM). Empty: POST
   * /v1/reason answers 503 reasoning_not_configured. Holds secrets: set it from a secret store, never commit it.
   */
  REASONING_PROVIDERS: jsonSetting(
    '{}',
    'a JSON object',
    z.record(
      z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
      z.object({ base_url: z.url({ protocol: /^https?$/ }), api_key: z.string().min(1).optional() }).strict(),
    ),
  ),
  /** One provider call may take this long before the next alternative model is tried. */
  REASONING_ATTEMPT_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /** No further alternative is tried once a reasoning request has taken this long. */
  REASONING_TOTAL_TIMEOUT_MS: z.coerce.number().int().positive().default(90_000),
  /** Providers tried per reasoning request, the selected model included. */
  REASONING_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
  /** Organizations (ids, comma-separated) whose policy allows keeping prompt text with each call record; others keep only its SHA-256. */
  REASONING_PROMPT_TEXT_ORGANIZATIONS: commaList.default([]),
  /** How long an API instance reuses the model registry it read; its own changes apply at once. */
  REASONING_REGISTRY_CACHE_MS: z.coerce.number().int().min(0).default(5000),
};
