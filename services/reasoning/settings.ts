import type { ProviderEndpoint } from '../../lib/openai-compatible';

export interface ReasoningSettings {
  /** Providers by the name models give as their provider. */
  providers: Record<string, ProviderEndpoint>;
  /** One provider call may take this long before the next alternative is tried. */
  attemptTimeoutMs: number;
  /** A reasoning request tries no further alternative once this much time has passed. */
  totalTimeoutMs: number;
  /** Providers tried per request, the selected model included. */
  maxAttempts: number;
  /** Organizations whose policy allows keeping prompt text with the call record (else only its hash is kept). */
  promptTextOrganizations: string[];
  /** How long the API reuses the model registry it read before reading it again. */
  registryCacheMs: number;
}
