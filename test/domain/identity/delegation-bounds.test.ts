import { wideningOf, type DelegationBounds } from '../../../domain/identity/delegation-bounds';

const bounds = (capabilities: string[]): DelegationBounds => ({
  capabilities,
  expires_at: 1000,
  environment: null,
  risk_level: 'standard',
});

describe('narrowing a delegation’s prompt grants', () => {
  it.each([
    ['a key its parent’s prefix covers', ['prompt:read:support-*'], 'prompt:read:support-billing'],
    ['a longer prefix of its parent’s', ['prompt:read:support-*'], 'prompt:read:support-eu-*'],
    ['the same grant', ['prompt:read:support-*'], 'prompt:read:support-*'],
    ['one action of a parent holding every action', ['prompt:*:support-*'], 'prompt:publish:support-billing'],
    ['any grant under prompt:*:*', ['prompt:*:*'], 'prompt:deprecate:sales-*'],
  ])('narrows to %s', (_name, parent, child) => {
    expect(wideningOf(bounds(parent), bounds([child]))).toEqual([]);
  });

  it.each([
    ['a key its parent’s pattern does not cover', ['prompt:read:support-*'], 'prompt:read:sales-pitch'],
    ['a wider pattern than its parent’s', ['prompt:read:support-billing'], 'prompt:read:support-*'],
    ['a pattern without the parent’s separator', ['prompt:read:support-*'], 'prompt:read:support*'],
    ['every key', ['prompt:read:support-*'], 'prompt:read:*'],
    ['another action', ['prompt:read:support-*'], 'prompt:publish:support-billing'],
    ['every action', ['prompt:read:support-*'], 'prompt:*:support-billing'],
    ['a prompt grant from capabilities alone', ['reasoning', 'models:read'], 'prompt:read:support-billing'],
  ])('widens with %s', (_name, parent, child) => {
    expect(wideningOf(bounds(parent), bounds([child]))).toEqual([{ field: 'capabilities', not_held: [child] }]);
  });
});
