import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, client } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

const SLACK_SECRET = 'slack-signing-secret-for-tests';
const stack = useStack({ SLACK_SIGNING_SECRET: SLACK_SECRET, OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1' });
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token());
});

/** A person who is a reviewer reached at `email` (and, when given, a Slack user). */
async function reviewerPerson(
  name: string,
  contact: { email: string; slack_user_id?: string },
): Promise<SignedInPerson> {
  const person = await signedInPerson(stack, { name });
  const did = `did:web:reviewers.example:${name.toLowerCase()}`;
  const put = await admin('PUT', `/v1/orch/reviewers/${encodeURIComponent(did)}`, {
    json: { display_name: name, passport_id: person.passport_id, chain_level: 9, available: false, ...contact },
  });
  expect(put.status).toBe(204);
  return person;
}

async function openApproval(approver: SignedInPerson, risk: Record<string, unknown> = {}): Promise<string> {
  const created = await admin('POST', '/v1/approvals', {
    json: {
      requester_passport_id: 'did:web:acme.example:agents:payer',
      approver_passport_id: approver.did,
      action_description: 'Pay invoice 42',
      request_data: { amount: 250 },
      ...risk,
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

/** The approve and reject links of a message, as the path and query the page is served at. */
function linksOf(text: string): { approve: string; reject: string } {
  const link = (label: string) => {
    const url = new RegExp(`${label}: (\\S+)`).exec(text)?.[1];
    if (!url) throw new Error(`no ${label} link in:\n${text}`);
    return new URL(url).pathname + new URL(url).search;
  };
  return { approve: link('Approve'), reject: link('Reject') };
}

const tokenOf = (path: string) => new URL(path, 'http://x').searchParams.get('token')!;

function confirm(token: string, action: string, headers: Record<string, string> = {}) {
  return call(stack.baseUrl, 'POST', '/links', {
    raw: new URLSearchParams({ token, action }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

async function respondedActor(approvalId: string): Promise<Record<string, unknown>> {
  const [body] = await stack.database
    .db('ledger_entries')
    .where({ subject_id: approvalId, step_id: 'responded' })
    .pluck('body');
  return JSON.parse(body as string).actor as Record<string, unknown>;
}

describe('e-mailed decision links', () => {
  it('opens a confirmation page that decides nothing; the form decides once, as the person; a replay is refused', async () => {
    const ada = await reviewerPerson('Ada', { email: 'ada@example.test' });
    const id = await openApproval(ada);
    const mail = await stack.mail.next('ada@example.test', (m) => m.text.includes('Pay invoice 42'));
    expect(mail.subject).not.toContain('hdl_');
    const links = linksOf(mail.text);

    // A mail scanner opening both links decides nothing.
    for (const path of [links.approve, links.reject]) {
      const opened = await call(stack.baseUrl, 'GET', path);
      expect(opened.status).toBe(200);
      expect(opened.headers.get('content-type')).toContain('text/html');
      expect(opened.headers.get('referrer-policy')).toBe('no-referrer');
      expect(opened.text).toContain('Pay invoice 42');
    }
    expect((await call(stack.baseUrl, 'GET', links.approve)).text).toContain('Approve this request?');
    expect((await admin('GET', `/v1/approvals/${id}`)).body.status).toBe('pending');

    // Another site's form is refused, and the link stays good.
    const crossSite = await confirm(tokenOf(links.approve), 'approve', { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    // The link is for one action only.
    expect((await confirm(tokenOf(links.approve), 'reject')).status).toBe(404);

    const confirmed = await confirm(tokenOf(links.approve), 'approve', { origin: stack.baseUrl });
    expect(confirmed.status).toBe(200);
    expect(confirmed.text).toContain('Approved');
    const result = await stack.temporal.workflow.getHandle(id).result();
    expect(result).toMatchObject({ status: 'approved', responded_by: ada.did });
    expect(await respondedActor(id)).toMatchObject({
      type: 'human',
      did: ada.did,
      passport_id: ada.passport_id,
      credential: { type: 'email_link' },
    });

    // Replayed: the same link, and the other one of the same message, are spent.
    const replayed = await confirm(tokenOf(links.approve), 'approve');
    expect(replayed.status).toBe(410);
    expect(replayed.text).toContain('already been used');
    expect((await call(stack.baseUrl, 'GET', links.approve)).status).toBe(410);
    expect((await confirm(tokenOf(links.reject), 'reject')).status).toBe(410);
  });

  it('answers an unknown link 404 and an item decided another way 409', async () => {
    expect((await call(stack.baseUrl, 'GET', `/links?token=hdl_${'A'.repeat(43)}`)).status).toBe(404);
    expect((await call(stack.baseUrl, 'GET', '/links?token=nonsense')).status).toBe(404);

    const bea = await reviewerPerson('Bea', { email: 'bea@example.test' });
    const id = await openApproval(bea);
    const links = linksOf((await stack.mail.next('bea@example.test')).text);
    const answered = await client(stack.baseUrl, bea.sessionToken)('POST', `/v1/approvals/${id}/respond`, {
      json: { decision: 'rejected' },
    });
    expect(answered.status).toBe(200);
    const opened = await call(stack.baseUrl, 'GET', links.approve);
    expect(opened.status).toBe(409);
    expect((await confirm(tokenOf(links.approve), 'approve')).status).toBe(409);
    expect((await admin('GET', `/v1/approvals/${id}`)).body.status).toBe('rejected');
  });

  it('sends the inbox instead of links where the policy asks for a passkey above the request’s risk', async () => {
    const policy = await admin('PUT', '/v1/notification-policy', { json: { passkey_required_above: 'medium' } });
    expect(policy.status).toBe(200);
    try {
      const cy = await reviewerPerson('Cy', { email: 'cy@example.test' });
      await openApproval(cy, {
        risk_level: 'critical',
        risk_factors: [{ factor: 'large payment', severity: 'critical' }],
      });
      const mail = await stack.mail.next('cy@example.test');
      expect(mail.text).toContain('/inbox');
      expect(mail.text).not.toContain('/links?token=');
    } finally {
      await admin('PUT', '/v1/notification-policy', { json: { passkey_required_above: null } });
    }
  });
});

/** A local Slack: receives the incoming-webhook posts. */
async function slackReceiver() {
  const posts: Array<Record<string, unknown>> = [];
  const waiting: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      posts.push(JSON.parse(body) as Record<string, unknown>);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      waiting.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T0/B0/secret`,
    async next(): Promise<Record<string, unknown>> {
      while (posts.length === 0) await new Promise<void>((resolve) => waiting.push(resolve));
      return posts.shift()!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function slackCall(payload: unknown, options: { secret?: string; timestamp?: number } = {}) {
  const raw = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = `v0=${createHmac('sha256', options.secret ?? SLACK_SECRET)
    .update(`v0:${timestamp}:${raw}`)
    .digest('hex')}`;
  return call(stack.baseUrl, 'POST', '/v1/slack/actions', {
    raw,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': signature,
    },
  });
}

describe('Slack notifications', () => {
  it('posts buttons to the incoming webhook; only a signed callback from the person’s Slack user decides, once', async () => {
    const slack = await slackReceiver();
    try {
      expect(
        (await admin('PUT', '/v1/notification-policy', { json: { slack_webhook_url: slack.url } })).body,
      ).toMatchObject({
        slack_webhook_configured: true,
      });
      const dee = await reviewerPerson('Dee', { email: 'dee@example.test', slack_user_id: 'U0DEE' });
      const id = await openApproval(dee);
      const posted = await slack.next();
      expect(JSON.stringify(posted)).toContain('Pay invoice 42');
      const actions = (
        posted.blocks as Array<{ type: string; elements?: Array<{ action_id: string; value: string }> }>
      ).find((block) => block.type === 'actions')!.elements!;
      const approve = actions.find((element) => element.action_id === 'approve')!;
      const click = (user: string) => ({ type: 'block_actions', user: { id: user }, actions: [approve] });

      expect((await slackCall(click('U0DEE'), { secret: 'not-the-secret' })).status).toBe(401);
      expect((await slackCall(click('U0DEE'), { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(401);
      const unsigned = await call(stack.baseUrl, 'POST', '/v1/slack/actions', {
        raw: new URLSearchParams({ payload: JSON.stringify(click('U0DEE')) }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(unsigned.status).toBe(401);
      // A Slack button's token opens no page.
      expect((await call(stack.baseUrl, 'GET', `/links?token=${approve.value}`)).status).toBe(404);
      const someoneElse = await slackCall(click('U0EVE'));
      expect(someoneElse.body.text).toContain('not yours');
      expect((await admin('GET', `/v1/approvals/${id}`)).body.status).toBe('pending');

      const decided = await slackCall(click('U0DEE'));
      expect(decided.status).toBe(200);
      expect(decided.body.text).toContain('Approved');
      expect(await stack.temporal.workflow.getHandle(id).result()).toMatchObject({ status: 'approved' });
      expect(await respondedActor(id)).toMatchObject({
        passport_id: dee.passport_id,
        credential: { type: 'slack_action' },
      });
      expect((await slackCall(click('U0DEE'))).body.text).toContain('already been used');
    } finally {
      await admin('PUT', '/v1/notification-policy', { json: { slack_webhook_url: null } });
      await slack.close();
    }
  });
});
