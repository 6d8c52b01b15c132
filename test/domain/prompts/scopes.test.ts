import { grantsPrompt, isPromptScope, promptCoverage, type PromptAction } from '../../../domain/prompts/scopes';

describe('grantsPrompt', () => {
  it.each<[string, string[], PromptAction, string, boolean]>([
    ['an exact grant covers its key', ['prompt:read:triage'], 'read', 'triage', true],
    ['an exact grant covers no other key', ['prompt:read:triage'], 'read', 'triage-v2', false],
    ['a grant covers only its action', ['prompt:read:triage'], 'publish', 'triage', false],
    ['the * key covers every key', ['prompt:read:*'], 'read', 'anything', true],
    ['a prefix * covers keys that start with it', ['prompt:publish:support-*'], 'publish', 'support-triage', true],
    ['a prefix * covers no other key', ['prompt:publish:support-*'], 'publish', 'sales-triage', false],
    ['the * action covers every action', ['prompt:*:triage'], 'deprecate', 'triage', true],
    ['platform:admin holds every grant', ['platform:admin'], 'rollback', 'triage', true],
    ['platform:write holds none', ['platform:write', 'platform:read'], 'read', 'triage', false],
    ['nothing is granted without scopes', [], 'read', 'triage', false],
    ['a malformed scope grants nothing', ['prompt:read'], 'read', 'triage', false],
  ])('%s', (_name, scopes, action, key, granted) => {
    expect(grantsPrompt(scopes, action, key)).toBe(granted);
  });
});

describe('isPromptScope', () => {
  it.each([
    ['prompt:read:triage', true],
    ['prompt:read:*', true],
    ['prompt:rollback:support-*', true],
    ['prompt:*:*', true],
    ['prompt:write:triage', false],
    ['prompt:read:', false],
    ['prompt:read:tri*age', false],
    ['prompt:read:-triage', false],
    ['platform:read', false],
  ])('%s → %s', (scope, valid) => {
    expect(isPromptScope(scope)).toBe(valid);
  });
});

describe('promptCoverage', () => {
  it.each<[string, string[], ReturnType<typeof promptCoverage>]>([
    ['all keys with the * grant', ['prompt:read:*'], { all: true }],
    ['all keys for platform:admin', ['platform:admin'], { all: true }],
    [
      'exact keys and prefixes of the action only',
      ['prompt:read:a', 'prompt:read:b-*', 'prompt:publish:c', 'prompt:*:d'],
      { all: false, keys: ['a', 'd'], prefixes: ['b-'] },
    ],
    ['nothing without grants', ['platform:read'], { all: false, keys: [], prefixes: [] }],
  ])('%s', (_name, scopes, coverage) => {
    expect(promptCoverage(scopes, 'read')).toEqual(coverage);
  });
});
