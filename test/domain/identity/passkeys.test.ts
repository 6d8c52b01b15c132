import { decideSignatureCounter } from '../../../domain/identity/passkeys';

describe('the signature counter of a passkey', () => {
  it.each([
    ['accepts a counter that grows', 4, 5, { ok: true, counter: 5 }],
    ['accepts a counter that jumps ahead (uses elsewhere, e.g. other sites)', 4, 90, { ok: true, counter: 90 }],
    ['accepts an authenticator that does not count (0 then 0)', 0, 0, { ok: true, counter: 0 }],
    ['accepts the first counted use after registering at 0', 0, 1, { ok: true, counter: 1 }],
    [
      'refuses a counter that repeats (a clone used the same number)',
      5,
      5,
      { ok: false, code: 'counter_regression', stored: 5, presented: 5 },
    ],
    [
      'refuses a counter that goes back (a clone lagging behind)',
      9,
      3,
      { ok: false, code: 'counter_regression', stored: 9, presented: 3 },
    ],
    [
      'refuses a counter that falls back to 0 after counting',
      7,
      0,
      { ok: false, code: 'counter_regression', stored: 7, presented: 0 },
    ],
  ])('%s', (_name, stored, presented, decision) => expect(decideSignatureCounter(stored, presented)).toEqual(decision));
});
