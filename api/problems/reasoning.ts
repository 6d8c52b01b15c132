import type { ProblemTable } from './table';

/** Reasoning, the model registry and the prompt registry. */
export const REASONING_PROBLEMS = {
  model_not_found: {
    status: 404,
    title: 'No such model in the registry',
    remediation: ['List models with GET /v1/models and use a model_id from there'],
  },
  model_exists: {
    status: 409,
    title: 'A model with this id is already registered',
    remediation: ['Change it with PATCH /v1/models/{model_id}, or register under another id'],
  },
  reasoning_not_configured: {
    status: 503,
    title: 'No model provider is configured for this model or this deployment',
    remediation: [
      'Ask the operator to set REASONING_PROVIDERS (provider name → OpenAI-compatible base_url and api_key) and restart the API',
      'Meanwhile, leave pinned_model out so that a model of a configured provider is chosen',
    ],
  },
  model_providers_unavailable: {
    status: 503,
    title: 'No model provider answered',
    remediation: [
      'Retry after Retry-After; metadata in detail names each provider tried and why it failed',
      'Raise the budget or leave pinned_model out to allow more alternatives',
    ],
  },
  pinned_model_unknown: {
    status: 422,
    title: 'pinned_model names no model of the registry',
    remediation: ['Pin a model_id listed by GET /v1/models, or leave pinned_model out'],
  },
  pinned_model_deprecated: {
    status: 422,
    title: 'pinned_model names a deprecated model',
    remediation: ['Pin an active model, or leave pinned_model out so that the service chooses'],
  },
  no_model_available: {
    status: 422,
    title: 'No model of the registry can take this request',
    remediation: [
      'Read detail for why each model was left out (context too small, provider not configured)',
      'Lower max_tokens or shorten the messages, or register a suitable model',
    ],
  },
  reasoning_call_not_found: {
    status: 404,
    title: 'No such reasoning call',
    remediation: ['Use metadata.callId from the POST /v1/reason answer'],
  },
  prompt_not_found: {
    status: 404,
    title: 'No such prompt',
    remediation: ['Check the key (or URL-encoded prompt://org/<org>/<key> URI); list prompts with GET /v1/prompts'],
  },
  prompt_version_not_found: {
    status: 404,
    title: 'No such version of the prompt',
    remediation: ['List its versions with GET /v1/prompts/{key}/versions'],
  },
  prompt_version_exists: {
    status: 409,
    title: 'This version of the prompt is already published',
    remediation: ['Publish under a new semver version; published versions never change'],
  },
  prompt_version_deprecated: {
    status: 409,
    title: 'The version is deprecated',
    remediation: ['Roll back to (or name as successor) a version that is not deprecated'],
  },
  prompt_version_active: {
    status: 409,
    title: 'The active version cannot be deprecated without a successor',
    remediation: [
      'Send successor_version: a published, not deprecated version that becomes active in its place',
      'Or publish or roll back to another version first',
    ],
  },
  prompt_extends_invalid: {
    status: 422,
    title: 'extends_uri does not name a published prompt of this organization',
    remediation: [
      'Use prompt://org/<org>/<key> or prompt://org/<org>/<key>@<version> of a published prompt of your organization',
    ],
  },
  prompt_extends_cycle: {
    status: 422,
    title: 'The change would make the prompt extend itself',
    remediation: ['Follow extends_uri from the target: it leads back to this prompt; extend another prompt or version'],
  },
  prompt_variables_invalid: {
    status: 422,
    title: 'prompt_variables do not match the prompt’s input_schema',
    remediation: [
      'Correct each variable listed in errors[] against the version’s input_schema (GET /v1/prompts/{key})',
    ],
  },
} as const satisfies ProblemTable;
