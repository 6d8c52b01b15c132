import { canonicalJson } from '../../domain/canonical-json';

describe('canonicalJson (RFC 8785)', () => {
  it.each<[string, unknown, string]>([
    ['sorts keys', { b: 1, a: 2 }, '{"a":2,"b":1}'],
    ['sorts nested keys and keeps array order', { z: [{ y: 1, x: 2 }], a: null }, '{"a":null,"z":[{"x":2,"y":1}]}'],
    ['drops undefined members', { a: undefined, b: true }, '{"b":true}'],
    ['writes numbers as ECMAScript does', { n: 1e21, m: 0.1, k: -0 }, '{"k":0,"m":0.1,"n":1e+21}'],
    ['escapes strings as JSON', { s: 'é"\n' }, '{"s":"é\\"\\n"}'],
    ['sorts by UTF-16 code units', { '\u00e9': 1, z: 2, Z: 3 }, '{"Z":3,"z":2,"é":1}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it('refuses values JSON cannot carry', () => {
    expect(() => canonicalJson({ n: Number.NaN })).toThrow(TypeError);
  });
});
