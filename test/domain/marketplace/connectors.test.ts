import { installRefusal, needsAuthorization, tokenNeedsRefresh } from '../../../domain/marketplace/connectors';
import { callbackStep, settledPage } from '../../../domain/marketplace/oauth-callback';

const connector = {
  deployment_modes: ['cloud', 'hybrid'],
  oauth: { required: true, scopes: ['messages:read', 'files:read'] },
};

describe('installRefusal', () => {
  it.each([
    [
      'accepts permissions among the scopes',
      { deployment_mode: 'cloud', granted_permissions: ['messages:read'] },
      undefined,
    ],
    ['accepts no permissions', { deployment_mode: 'hybrid', granted_permissions: [] }, undefined],
    [
      'refuses a mode the connector does not offer',
      { deployment_mode: 'self-hosted', granted_permissions: [] },
      'deployment_mode_not_offered',
    ],
    [
      'refuses a permission beyond the scopes',
      { deployment_mode: 'cloud', granted_permissions: ['messages:read', 'admin'] },
      'permissions_not_offered',
    ],
  ] as const)('%s', (_name, request, code) => {
    expect(installRefusal(connector, request)?.code).toBe(code);
  });

  it('lets a connector without OAuth be granted nothing', () => {
    expect(
      installRefusal(
        { deployment_modes: ['cloud'], oauth: null },
        { deployment_mode: 'cloud', granted_permissions: ['x'] },
      )?.code,
    ).toBe('permissions_not_offered');
    expect(needsAuthorization({ deployment_modes: ['cloud'], oauth: null })).toBe(false);
    expect(needsAuthorization(connector)).toBe(true);
  });
});

describe('tokenNeedsRefresh', () => {
  it.each([
    ['a token without expiry never', null, 0, false],
    ['a token expiring after the window not yet', 20 * 60_000, 0, false],
    ['a token expiring within the window now', 10 * 60_000, 0, true],
    ['an expired token now', -1, 0, true],
  ] as const)('refreshes %s', (_name, expiresAt, now, expected) => {
    expect(tokenNeedsRefresh(expiresAt, now, 15 * 60_000)).toBe(expected);
  });
});

describe('callbackStep', () => {
  const claimed = {
    kind: 'claimed',
    installation_id: 'ins_1',
    attempt: 1,
    expires_at: '2026-01-01T00:00:00Z',
  } as const;
  it.each([
    ['refuses a forged state', { kind: 'unknown' } as const, { code: 'c' }, { refused: 'unknown_state' }],
    ['refuses a replayed state', { kind: 'already_used' } as const, { code: 'c' }, { refused: 'state_used' }],
    ['refuses an expired state', { kind: 'expired' } as const, { code: 'c' }, { refused: 'state_expired' }],
    ['tells the code of a claimed state', claimed, { code: 'c' }, { result: { kind: 'code', code: 'c' } }],
    [
      'tells the person’s refusal',
      claimed,
      { error: 'access_denied' },
      { result: { kind: 'denied', reason: 'access_denied' } },
    ],
    [
      'ends an answer with neither code nor error',
      claimed,
      {},
      { result: { kind: 'denied', reason: 'exchange_failed' } },
    ],
  ] as const)('%s', (_name, claim, query, expected) => {
    expect(callbackStep(claim, query)).toEqual(expected);
  });

  it.each([
    ['active', null, 'connected'],
    ['authorization_failed', 'access_denied', 'denied'],
    ['authorization_failed', 'exchange_failed', 'failed'],
    ['pending_oauth', null, 'finishing'],
  ] as const)('shows %s (%s) as %s', (status, reason, page) => {
    expect(settledPage(status, reason)).toBe(page);
  });
});
