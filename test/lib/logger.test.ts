import winston from 'winston';
import { errorFields } from '../../lib/logger';

// winston keeps the formatted line under this symbol (triple-beam's MESSAGE).
const MESSAGE = Symbol.for('message');

const render = (meta: Record<string, unknown>) => {
  const format = winston.format.combine(errorFields(), winston.format.json());
  const info = format.transform({ level: 'error', message: 'unhandled error', ...meta }) as Record<
    string | symbol,
    unknown
  >;
  return JSON.parse(info[MESSAGE] as string) as Record<string, unknown>;
};

describe('log entries with errors', () => {
  it('write an Error in the metadata out with its name, message, stack and code, not as {}', () => {
    const error = Object.assign(new TypeError('boom'), { code: 'E_BOOM' });
    expect(render({ request_id: 'r1', error })).toMatchObject({
      request_id: 'r1',
      error: { name: 'TypeError', message: 'boom', code: 'E_BOOM', stack: expect.stringContaining('TypeError: boom') },
    });
  });

  it('follow the cause of a wrapped error', () => {
    const error = new Error('routing failed', { cause: new Error('connection refused') });
    expect(render({ error })).toMatchObject({
      error: { message: 'routing failed', cause: { name: 'Error', message: 'connection refused' } },
    });
  });

  it('leave other metadata as it is', () => {
    expect(render({ error: 'a string', count: 3 })).toMatchObject({ error: 'a string', count: 3 });
  });
});
