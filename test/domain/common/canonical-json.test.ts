import fc from 'fast-check';
import { canonicalJson, CanonicalJsonError } from '../../../domain/common/canonical-json';

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

describe('the examples of RFC 8785', () => {
  it('3.2.2: serializes literals, numbers and strings', () => {
    const input = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    );
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('3.2.3: sorts properties by their UTF-16 code units, surrogate pairs included', () => {
    const input = JSON.parse(
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",' +
        ' "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    );
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",' +
        '"\uD83D\uDE00":"Emoji: Grinning Face","\uFB33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  const fromBits = (hex: string) => Buffer.from(hex, 'hex').readDoubleBE(0);

  it.each([
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ])('Appendix B: the IEEE 754 double %s is written %s', (bits, expected) => {
    expect(canonicalJson(fromBits(bits))).toBe(expected);
  });

  it.each([['7fffffffffffffff'], ['7ff0000000000000'], ['fff0000000000000']])(
    'Appendix B: the IEEE 754 double %s (NaN or an infinity) is refused',
    (bits) => {
      expect(() => canonicalJson([fromBits(bits)])).toThrow(CanonicalJsonError);
    },
  );
});

describe('values with toJSON, as JSON.stringify sees them', () => {
  const at = new Date('2026-11-23T21:04:41.123Z');

  it.each<[string, unknown, string]>([
    ['a Date at the root', at, '"2026-11-23T21:04:41.123Z"'],
    ['a Date as a member', { decided_at: at, b: 1 }, '{"b":1,"decided_at":"2026-11-23T21:04:41.123Z"}'],
    ['a Date in an array', [at, null], '["2026-11-23T21:04:41.123Z",null]'],
    ['an invalid Date, which toJSON writes as null', { at: new Date(Number.NaN) }, '{"at":null}'],
    [
      'a toJSON whose result has unsorted keys and a Date of its own',
      { v: { toJSON: () => ({ z: 1, a: at }) } },
      '{"v":{"a":"2026-11-23T21:04:41.123Z","z":1}}',
    ],
    [
      'toJSON called with the member name, the array index, or "" at the root',
      { m: { toJSON: (key: string) => key }, l: [{ toJSON: (key: string) => key }] },
      '{"l":["0"],"m":"m"}',
    ],
    [
      'a toJSON that returns undefined: the member is left out, an array slot is null',
      { gone: { toJSON: () => undefined }, list: [{ toJSON: () => undefined }] },
      '{"list":[null]}',
    ],
    [
      'boxed primitives, unboxed',
      { s: Object('text'), n: Object(2), b: Object(false) },
      '{"b":false,"n":2,"s":"text"}',
    ],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(expected);
  });

  it('gives the root toJSON the key ""', () => {
    expect(canonicalJson({ toJSON: (key: string) => `root:${key}` })).toBe('"root:"');
  });

  it('matches JSON.stringify followed by canonicalization for any JSON with Dates inside', () => {
    const withDates = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        fc.date({ noInvalidDate: true }),
        fc.array(tie('value')),
        fc.dictionary(fc.string(), tie('value')),
      ),
    })).value;
    fc.assert(
      fc.property(withDates, (value) => canonicalJson(value) === canonicalJson(JSON.parse(JSON.stringify(value)))),
    );
  });

  it('refuses a structure that contains itself', () => {
    const loop: Record<string, unknown> = { a: 1 };
    loop.self = { again: loop };
    expect(() => canonicalJson(loop)).toThrow(CanonicalJsonError);
  });

  it.each([
    ['a function', { f: () => 1 }],
    ['a symbol', { s: Symbol('s') }],
    ['a bigint', { n: 1n }],
    ['undefined at the root', undefined],
    [
      'a toJSON that returns a Date (JSON.stringify would not call its toJSON, and write {})',
      { v: { toJSON: () => at } },
    ],
    ['a Map (JSON.stringify would write {})', { m: new Map([['k', 1]]) }],
    ['a Set (JSON.stringify would write {})', [new Set([1])]],
  ])('refuses %s rather than dropping or emptying it', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(CanonicalJsonError);
  });
});

describe('strings must be well-formed UTF-16 (I-JSON, RFC 7493 2.1)', () => {
  it.each<[string, unknown, string]>([
    ['a lone high surrogate in a value', { note: 'a\uD800b' }, '$.note'],
    ['a lone low surrogate in a value', { note: '\uDC00' }, '$.note'],
    ['a pair in the wrong order', { note: '\uDE00\uD83D' }, '$.note'],
    ['a high surrogate at the end of a value', ['ok', 'cut \uD83D'], '$[1]'],
    ['a lone high surrogate in a key', { ['k\uD83D']: 1 }, '$["k\\ud83d"]'],
    ['a lone low surrogate in a nested key', { outer: { ['\uDE00']: true } }, '$.outer["\\ude00"]'],
    ['a lone surrogate a toJSON returns', { v: { toJSON: () => '\uD800' } }, '$.v'],
    ['a lone surrogate at the root', '\uDFFF', '$'],
  ])('refuses %s, naming where it is', (_name, value, path) => {
    let thrown: unknown;
    try {
      canonicalJson(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CanonicalJsonError);
    expect(thrown).toMatchObject({ path, message: expect.stringContaining('lone surrogate') });
  });

  it('writes a valid surrogate pair as the character it encodes, in keys and values', () => {
    expect(canonicalJson({ '\uD83D\uDE00': '\uD83D\uDE00 x', plain: 'é' })).toBe('{"plain":"é","😀":"😀 x"}');
  });
});
