import type { AuthorizationFailure, InstallationStatus } from './connectors';

/** What the callback found when it tried to claim the state it was given. */
export type StateClaim =
  | { kind: 'unknown' }
  | { kind: 'already_used' }
  | { kind: 'expired' }
  | { kind: 'claimed'; installation_id: string; attempt: number; expires_at: string };

/** The callback's query as the provider sent it. */
export interface CallbackQuery {
  code?: string | undefined;
  error?: string | undefined;
}

/** What the install workflow is told once the state is claimed: the code to exchange, or why there is none. */
export type AuthorizationResult = { kind: 'code'; code: string } | { kind: 'denied'; reason: AuthorizationFailure };

/** The page a refused callback ends with; it tells the workflow nothing. */
export type RefusedCallback = 'unknown_state' | 'state_used' | 'state_expired';

/**
 * A forged, replayed or expired state is refused and tells nothing: only a state claimed now may tell the
 * install workflow, and it tells it once (the code, the person's refusal, or a provider that sent neither).
 */
export function callbackStep(
  claim: StateClaim,
  query: CallbackQuery,
): { refused: RefusedCallback } | { result: AuthorizationResult } {
  if (claim.kind === 'unknown') return { refused: 'unknown_state' };
  if (claim.kind === 'already_used') return { refused: 'state_used' };
  if (claim.kind === 'expired') return { refused: 'state_expired' };
  if (query.error) return { result: { kind: 'denied', reason: 'access_denied' } };
  if (!query.code) return { result: { kind: 'denied', reason: 'exchange_failed' } };
  return { result: { kind: 'code', code: query.code } };
}

/** The page after a claimed callback: by what the installation became, or still finishing when the wait ran out. */
export type SettledPage = 'connected' | 'denied' | 'failed' | 'finishing';

export function settledPage(status: InstallationStatus | undefined, reason: string | null | undefined): SettledPage {
  if (status === 'active') return 'connected';
  if (status === 'authorization_failed') return reason === 'access_denied' ? 'denied' : 'failed';
  if (status === 'pending_oauth' || status === undefined) return 'finishing';
  return 'failed';
}
