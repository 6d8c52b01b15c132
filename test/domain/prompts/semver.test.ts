import { compareSemver, isSemver, parseSemver, semverSortKey } from '../../../domain/prompts/semver';

describe('parseSemver', () => {
  it.each([
    '1.0.0',
    '0.0.1',
    '10.20.30',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-0.3.7',
    '1.0.0-x.7.z.92',
    '1.0.0+20130313144700',
    '1.0.0-beta+exp.sha.5114f85',
  ])('takes %s', (text) => {
    expect(isSemver(text)).toBe(true);
  });
  it.each([
    '1',
    '1.0',
    'v1.0.0',
    '01.0.0',
    '1.0.0-01',
    '1.0.0-',
    '1.0.0+',
    '1.0.0-alpha..1',
    ' 1.0.0',
    '99999999999999999.0.0',
  ])('refuses %s', (text) => {
    expect(isSemver(text)).toBe(false);
  });
});

// The order of semver.org's §11 example, shuffled, with build metadata and larger numbers.
const ORDERED = [
  '0.9.9',
  '1.0.0-0',
  '1.0.0-1',
  '1.0.0-2',
  '1.0.0-10',
  '1.0.0-alpha',
  '1.0.0-alpha.1',
  '1.0.0-alpha.beta',
  '1.0.0-alpha-x',
  '1.0.0-beta',
  '1.0.0-beta.2',
  '1.0.0-beta.11',
  '1.0.0-rc.1',
  '1.0.0',
  '1.0.1',
  '1.2.0',
  '1.10.0',
  '2.0.0',
  '10.0.0',
];

describe('semver precedence', () => {
  const shuffled = [...ORDERED].reverse().sort((a, b) => (a.length % 3) - (b.length % 3));

  it('compareSemver orders versions as semver.org says', () => {
    expect([...shuffled].sort((a, b) => compareSemver(parseSemver(a)!, parseSemver(b)!))).toEqual(ORDERED);
  });

  it('the sort key orders them the same way byte by byte', () => {
    const key = (text: string) => semverSortKey(parseSemver(text)!);
    expect([...shuffled].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))).toEqual(ORDERED);
  });

  it('build metadata does not change precedence', () => {
    expect(compareSemver(parseSemver('1.0.0+a')!, parseSemver('1.0.0+b')!)).toBe(0);
    expect(semverSortKey(parseSemver('1.0.0+a')!)).toBe(semverSortKey(parseSemver('1.0.0')!));
  });
});
