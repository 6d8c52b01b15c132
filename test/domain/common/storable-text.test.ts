import { unstorableRefusal, unstorableText } from '../../../domain/common/storable-text';

describe('text Postgres cannot store', () => {
  it.each([
    ['plain text', 'hello', undefined],
    ['a surrogate pair (an emoji)', 'ok \ud83d\ude00', undefined],
    ['non-ASCII text', 'Grüße, 你好', undefined],
    ['a NUL character', 'a\u0000b', '$'],
    ['a lone high surrogate', 'a\ud800b', '$'],
    ['a lone high surrogate at the end', 'a\ud800', '$'],
    ['a lone low surrogate', 'a\udc00b', '$'],
    ['a NUL deep in an object', { a: [{ b: 'x' }, { c: 'y\u0000' }] }, '$.a[1].c'],
    ['a NUL in a key', { 'k\u0000': 1 }, '$ (a key)'],
    ['numbers, booleans and null', { n: 1, b: true, z: null }, undefined],
  ])('%s', (_case, value, path) => {
    expect(unstorableText(value)).toBe(path);
  });

  it('says where the unstorable text is, or nothing', () => {
    expect(unstorableRefusal({ comment: 'a\u0000' }, 'answer')).toBe(
      'The answer holds text that cannot be stored (a NUL character or a lone surrogate) at $.comment',
    );
    expect(unstorableRefusal({ comment: 'fine' }, 'answer')).toBeUndefined();
  });
});
