import { conditionHolds, parseCondition } from '../../../domain/dags/conditions';

describe('DAG conditions', () => {
  const output = {
    score: 0.86,
    status: 'ok',
    flags: { manual: false, tags: ['a', 'b'] },
    items: [{ kind: 'invoice' }],
    count: 0,
    note: null,
  };

  it.each([
    ['score >= 0.8', true],
    ['score > 0.9', false],
    ['status == "ok"', true],
    ["status != 'ok'", false],
    ['score >= 0.8 && status == "ok"', true],
    ['score >= 0.9 || status == "ok"', true],
    ['!(score >= 0.9) && !flags.manual', true],
    ['flags.manual', false],
    ['flags.tags[1] == "b"', true],
    ['items[0].kind == "invoice"', true],
    ['items[3].kind == null', true],
    ['missing == null', true],
    ['missing', false],
    ['count', false],
    ['note == null', true],
    ['status < 5', false],
    ['status < "p"', true],
    ['score == 0.86', true],
    ['-1 < score', true],
    ['flags == flags', true],
    ['true', true],
    ['false || null', false],
  ])('%s is %s', (condition, expected) => {
    expect(parseCondition(condition).ok).toBe(true);
    expect(conditionHolds(condition, output)).toBe(expected);
  });

  it.each([
    ['', 'is empty'],
    ['score >=', 'expected a value'],
    ['score = 1', 'unexpected'],
    ['(score > 1', 'expected )'],
    ['"unterminated', 'unterminated string'],
    ['items[-1]', 'expected an index'],
    ['a.', 'expected a field name'],
    ['score > 1 2', 'unexpected 2'],
    ['process.exit()', 'unexpected'],
    ['x'.repeat(1001), 'longer than'],
  ])('refuses %j (%s)', (condition, message) => {
    const parsed = parseCondition(condition);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toContain(message);
  });

  it('never holds for a condition that does not parse', () => {
    expect(conditionHolds('score >', output)).toBe(false);
  });

  it('reads only own fields, never the prototype', () => {
    expect(conditionHolds('constructor != null', {})).toBe(false);
    expect(conditionHolds('toString', {})).toBe(false);
  });
});
