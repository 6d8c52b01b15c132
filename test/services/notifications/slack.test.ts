import { createHmac } from 'node:crypto';
import { slackActionOf, verifySlackSignature } from '../../../services/notifications/slack';

const SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const BODY = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
const NOW = 1_800_000_000;
const sign = (timestamp: number, body = BODY, secret = SECRET) =>
  `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;

describe('verifySlackSignature (Slack’s v0 request signing)', () => {
  it.each([
    ['accepts a request signed now', { timestamp: String(NOW), signature: sign(NOW) }, true],
    ['accepts one signed 299 s ago', { timestamp: String(NOW - 299), signature: sign(NOW - 299) }, true],
    [
      'refuses one signed 301 s ago (replay window)',
      { timestamp: String(NOW - 301), signature: sign(NOW - 301) },
      false,
    ],
    ['refuses one signed with another secret', { timestamp: String(NOW), signature: sign(NOW, BODY, 'other') }, false],
    ['refuses a body changed after signing', { timestamp: String(NOW), signature: sign(NOW, `${BODY}x`) }, false],
    ['refuses a missing signature', { timestamp: String(NOW), signature: undefined }, false],
    ['refuses a timestamp that is no number', { timestamp: 'soon', signature: sign(NOW) }, false],
  ])('%s', (_case, headers, ok) => {
    expect(verifySlackSignature(SECRET, { ...headers, rawBody: BODY }, NOW).ok).toBe(ok);
  });

  it('refuses everything without a signing secret', () => {
    expect(
      verifySlackSignature(undefined, { timestamp: String(NOW), signature: sign(NOW), rawBody: BODY }, NOW).ok,
    ).toBe(false);
  });
});

describe('slackActionOf', () => {
  it('takes the first button of a block_actions payload', () => {
    const payload = JSON.stringify({
      type: 'block_actions',
      user: { id: 'U1' },
      actions: [{ action_id: 'approve', value: 'hdl_x' }],
    });
    expect(slackActionOf(payload)).toEqual({ user_id: 'U1', action: 'approve', value: 'hdl_x' });
  });
  it.each(['not json', '{"type":"view_submission"}', '{"type":"block_actions","user":{"id":"U1"},"actions":[]}'])(
    'finds nothing in %s',
    (payload) => {
      expect(slackActionOf(payload)).toBeUndefined();
    },
  );
});
