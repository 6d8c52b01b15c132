import knex, { type Knex } from 'knex';
import { chromium, type Browser, type Page } from 'playwright-core';
import { connectorSettings } from '../../app/deps';
import { refreshDueInstallations } from '../../services/connectors/refresh-ahead';
import { accessTokenFor } from '../../services/connectors/tokens';
import { createOAuthClient } from '../../services/connectors/oauth-client';
import { createSecretBox } from '../../lib/secret-box';
import { chromiumForTest } from '../support/chromium';
import { oauthConnector } from '../support/connectors';
import { client, type CallResult } from '../support/http';
import { startOAuthProvider, type OAuthProvider } from '../support/oauth-provider';
import { useStack } from '../support/stack';

const { executable, describeWithChromium } = chromiumForTest('connector OAuth test');
// The background refresher makes one pass at start and none after: the refresh tests below race nothing.
const stack = useStack({ OUTBOUND_PRIVATE_ALLOWLIST: '127.0.0.1', CONNECTOR_REFRESH_INTERVAL_SECONDS: '86400' });
let provider: OAuthProvider;
let browser: Browser;
let member: ReturnType<typeof client>;

beforeAll(async () => {
  if (!('path' in executable)) return;
  provider = await startOAuthProvider(`${stack.baseUrl}/v1/oauth/callback`);
  browser = await chromium.launch({
    executablePath: executable.path,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
  const admin = client(stack.baseUrl, await stack.token(['cloud:admin:global'], 'operator'));
  expect((await admin('PUT', '/v1/marketplace/connectors/chat', { json: oauthConnector(provider) })).status).toBe(200);
  member = client(stack.baseUrl, await stack.token(['platform:read', 'platform:write'], 'member'));
});
afterAll(async () => {
  await browser?.close();
  await provider?.stop();
});

const install = () =>
  member('POST', '/v1/marketplace/connectors/chat/install', {
    json: { deployment_mode: 'cloud', config: {}, granted_permissions: ['messages:read', 'files:read'] },
  });

/** Opens the authorization URL as the person would, signs in at the provider and answers its consent page. */
async function consent(
  page: Page,
  url: string,
  answer: 'allow' | 'cancel',
): Promise<{ status: number; outcome: string; url: string; setCookie: string | null }> {
  await page.goto(url);
  await page.fill('input[name=login]', 'ada');
  await page.fill('input[name=password]', 'any');
  await page.click('button[type=submit]');
  await page.waitForSelector('button:has-text("Continue")');
  const landing = page.waitForResponse((response) => response.url().includes('/v1/oauth/callback'));
  if (answer === 'allow') await page.click('button:has-text("Continue")');
  else await page.click('a:has-text("Cancel")');
  const response = await landing;
  const outcome = await page.getAttribute('main', 'data-outcome');
  const setCookie = (await response.allHeaders())['set-cookie'] ?? null;
  return { status: response.status(), outcome: outcome ?? '', url: response.url(), setCookie };
}

async function installation(id: string): Promise<CallResult> {
  return member('GET', `/v1/marketplace/installations/${id}`);
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    const value = await read();
    if (done(value) || tries > 200) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeWithChromium('connector installs through a real OAuth provider', () => {
  let installationId: string;
  let callbackUrl: string;

  it('goes pending_oauth with a PKCE authorization URL, then active after consent in the browser', async () => {
    const started = await install();
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'pending_oauth', oauth_state: expect.any(String) });
    installationId = started.body.installation_id;
    const url = new URL(started.body.authorization_url);
    // Everything the consent needs is in the link, and nothing of the caller's credential: it works sent by mail or chat.
    expect([...url.searchParams.keys()].sort()).toEqual([
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ]);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'handoff',
      redirect_uri: `${stack.baseUrl}/v1/oauth/callback`,
      scope: 'messages:read files:read',
      state: started.body.oauth_state,
      code_challenge_method: 'S256',
    });
    expect(Buffer.from(started.body.oauth_state, 'base64url')).toHaveLength(32);
    expect((await installation(installationId)).body.status).toBe('pending_oauth');

    // A fresh browser context, as when the person opens the link from an e-mail or a chat on another device:
    // no cookie or token of this service; and the callback signs nobody in (it sets no cookie).
    const page = await browser.newPage();
    expect(await page.context().cookies(stack.baseUrl)).toEqual([]);
    const landed = await consent(page, started.body.authorization_url, 'allow');
    callbackUrl = landed.url;
    expect({ status: landed.status, outcome: landed.outcome }).toEqual({ status: 200, outcome: 'connected' });
    // (The provider's own session cookie is there after consent: cookies ignore ports, and both are on 127.0.0.1.)
    expect(landed.setCookie).toBeNull();
    const active = await installation(installationId);
    expect(active.body).toMatchObject({ status: 'active', granted_permissions: ['messages:read', 'files:read'] });

    // The tokens are sealed at rest and never shown.
    const stored = await stack.database.db('connector_tokens').where({ installation_id: installationId }).first();
    const deps = tokenDeps();
    const token = await accessTokenFor(deps, 'org_default', installationId);
    expect(token).toMatchObject({ ok: true, refreshed: false });
    const plain = (token as { access_token: string }).access_token;
    expect(JSON.stringify(stored)).not.toContain(plain);
    expect(active.text).not.toContain(plain);
    await page.close();
  });

  it('refuses a replayed callback and a forged state with a page, and changes nothing', async () => {
    const page = await browser.newPage();
    const replay = await page.goto(callbackUrl);
    expect(replay!.status()).toBe(400);
    expect(await page.getAttribute('main', 'data-outcome')).toBe('state_used');
    const forged = await page.goto(`${stack.baseUrl}/v1/oauth/callback?code=abc&state=${'A'.repeat(43)}`);
    expect(forged!.status()).toBe(400);
    expect(await page.getAttribute('main', 'data-outcome')).toBe('unknown_state');
    expect((await installation(installationId)).body.status).toBe('active');
    await page.close();
  });

  it('refreshes once for 20 concurrent callers: the rotated refresh token is spent exactly once', async () => {
    await stack.database
      .db('connector_tokens')
      .where({ installation_id: installationId })
      .update({ expires_at: new Date(Date.now() + 60_000) });
    const before = await provider.stats();
    // Four pools stand for four processes: the single flight must hold across them, not only within one.
    const pools = Array.from({ length: 4 }, () =>
      knex({ client: 'pg', connection: stack.database.url, pool: { min: 0, max: 5 } }),
    );
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          accessTokenFor(tokenDeps(pools[index % 4]), 'org_default', installationId),
        ),
      );
      expect(results.every((result) => result.ok)).toBe(true);
      const tokens = new Set(results.map((result) => (result as { access_token: string }).access_token));
      expect(tokens.size).toBe(1);
      expect(results.filter((result) => result.ok && result.refreshed)).toHaveLength(1);
    } finally {
      await Promise.all(pools.map((pool) => pool.destroy()));
    }
    const after = await provider.stats();
    expect(after.refreshed - before.refreshed).toBe(1);
    expect(after.refused).toBe(before.refused);
    expect((await installation(installationId)).body.status).toBe('active');
  });

  it('refreshes in the background a token that expires within 15 minutes, once, and leaves a fresh one alone', async () => {
    await stack.database
      .db('connector_tokens')
      .where({ installation_id: installationId })
      .update({ expires_at: new Date(Date.now() + 10 * 60_000) });
    const before = await provider.stats();
    const [first, second] = await Promise.all([
      refreshDueInstallations(tokenDeps(), 15 * 60),
      refreshDueInstallations(tokenDeps(), 15 * 60),
    ]);
    // Both passes saw it due; under the row lock only one spent the refresh token.
    expect(first.refreshed + second.refreshed).toBe(1);
    expect((await provider.stats()).refreshed - before.refreshed).toBe(1);
    expect(await refreshDueInstallations(tokenDeps(), 15 * 60)).toMatchObject({ due: 0, refreshed: 0 });
    const reconnect = await member('GET', `/v1/marketplace/installations/${installationId}/reconnect-link`);
    expect(reconnect.body).toMatchObject({ status: 'active', needs_reconnect: false });
  });

  it('moves to needs_reauth with a reconnect link when the provider refuses the refresh token, and back when reconnected', async () => {
    const spent = await stack.database.db('connector_tokens').where({ installation_id: installationId }).first();
    // A refresh token the provider has seen rotated is refused (and its grant revoked), as a revoked grant would be.
    await stack.database
      .db('connector_tokens')
      .where({ installation_id: installationId })
      .update({ expires_at: new Date(Date.now() + 60_000) });
    const first = await accessTokenFor(tokenDeps(), 'org_default', installationId);
    expect(first.ok).toBe(true);
    await stack.database
      .db('connector_tokens')
      .where({ installation_id: installationId })
      .update({
        refresh_token_sealed: spent.refresh_token_sealed,
        expires_at: new Date(Date.now() + 60_000),
      });
    const refused = await accessTokenFor(tokenDeps(), 'org_default', installationId);
    expect(refused).toEqual({ ok: false, code: 'needs_reauth' });
    expect((await installation(installationId)).body).toMatchObject({
      status: 'needs_reauth',
      status_reason: 'invalid_grant',
    });
    const event = await stack.database.db('outbox_events').where({ event: 'installation.needs_reauth' }).first();
    expect(event.data).toMatchObject({
      installation_id: installationId,
      reconnect: { method: 'POST', url: `${stack.baseUrl}/v1/marketplace/connectors/chat/install` },
    });

    const link = await member('GET', `/v1/marketplace/installations/${installationId}/reconnect-link`);
    expect(link.body).toMatchObject({
      needs_reconnect: true,
      reconnect: { method: 'POST', url: event.data.reconnect.url, body: { deployment_mode: 'cloud' } },
    });
    const again = await install();
    expect(again.status).toBe(200);
    expect(again.body.installation_id).toBe(installationId);
    const page = await browser.newPage();
    expect((await consent(page, again.body.authorization_url, 'allow')).outcome).toBe('connected');
    expect((await installation(installationId)).body).toMatchObject({ status: 'active', status_reason: 'reconnected' });
    expect(await stack.database.db('outbox_events').where({ event: 'installation.reconnected' }).first()).toBeDefined();
    await page.close();
  });

  it('moves to needs_reauth when the person revokes the grant at the provider, and back; no event carries a token', async () => {
    const held = await accessTokenFor(tokenDeps(), 'org_default', installationId);
    expect(held.ok).toBe(true);
    const accessToken = (held as { access_token: string }).access_token;
    const sealed = await stack.database.db('connector_tokens').where({ installation_id: installationId }).first();
    const settings = connectorSettings(stack.config);
    const refreshToken = createSecretBox(settings.secretKeys).open(
      sealed.refresh_token_sealed,
      `${installationId}:refresh`,
    );
    // The person disconnects the app at the provider: revoking its access token revokes the whole grant there.
    const revoked = await fetch(provider.endpoints.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: accessToken,
        client_id: provider.clientId,
        client_secret: provider.clientSecret,
      }),
    });
    expect(revoked.status).toBe(200);
    await stack.database
      .db('connector_tokens')
      .where({ installation_id: installationId })
      .update({ expires_at: new Date(Date.now() + 60_000) });
    const before = await provider.stats();
    expect(await accessTokenFor(tokenDeps(), 'org_default', installationId)).toEqual({
      ok: false,
      code: 'needs_reauth',
    });
    expect((await provider.stats()).refused - before.refused).toBe(1);
    expect((await installation(installationId)).body).toMatchObject({
      status: 'needs_reauth',
      status_reason: 'invalid_grant',
      health_status: 'disconnected',
    });
    const eventsOf = (kind: string) =>
      stack.database
        .db('outbox_events')
        .where({ event: kind })
        .whereRaw(`data->>'installation_id' = ?`, [installationId]);
    const failures = await eventsOf('installation.needs_reauth');
    expect(failures).toHaveLength(2);
    expect(failures[1].data).toMatchObject({ status: 'needs_reauth', reconnect: { method: 'POST' } });

    const again = await install();
    expect(again.body.installation_id).toBe(installationId);
    const page = await browser.newPage();
    expect((await consent(page, again.body.authorization_url, 'allow')).outcome).toBe('connected');
    await page.close();
    expect((await installation(installationId)).body).toMatchObject({ status: 'active', status_reason: 'reconnected' });
    expect(await eventsOf('installation.reconnected')).toHaveLength(2);
    const fresh = await accessTokenFor(tokenDeps(), 'org_default', installationId);
    const everyEvent = JSON.stringify(
      await stack.database.db('outbox_events').whereRaw(`data->>'installation_id' = ?`, [installationId]),
    );
    for (const secret of [accessToken, refreshToken, (fresh as { access_token: string }).access_token])
      expect(everyEvent).not.toContain(secret);
  });

  it('ends with a denied page and authorization_failed when the person cancels at the provider', async () => {
    const again = await install();
    const page = await browser.newPage();
    const landed = await consent(page, again.body.authorization_url, 'cancel');
    expect({ status: landed.status, outcome: landed.outcome }).toEqual({ status: 403, outcome: 'denied' });
    expect((await installation(installationId)).body).toMatchObject({
      status: 'authorization_failed',
      status_reason: 'access_denied',
    });
    await page.close();
  });

  it('refuses an expired state with a page', async () => {
    const again = await install();
    await stack.database
      .db('connector_oauth_states')
      .where({ installation_id: installationId })
      .whereNull('claimed_at')
      .update({ expires_at: new Date(Date.now() - 1000) });
    const page = await browser.newPage();
    const landed = await consent(page, again.body.authorization_url, 'allow');
    expect({ status: landed.status, outcome: landed.outcome }).toEqual({ status: 400, outcome: 'state_expired' });
    await page.close();
  });

  it('finishes an install whose worker was killed while it waited for the callback, once a worker is back', async () => {
    const again = await install();
    await stack.stopWorker();
    const page = await browser.newPage();
    let landed;
    try {
      landed = await consent(page, again.body.authorization_url, 'allow');
    } finally {
      await stack.startWorker();
    }
    expect({ status: landed.status, outcome: landed.outcome }).toEqual({ status: 202, outcome: 'finishing' });
    const settled = await eventually(
      () => installation(installationId),
      (reply) => reply.body.status !== 'pending_oauth',
    );
    expect(settled.body.status).toBe('active');
    await page.close();
  });

  it('revokes the provider token (RFC 7009) and deletes it when uninstalled', async () => {
    const before = await provider.stats();
    const removed = await member('DELETE', '/v1/marketplace/connectors/chat/install');
    expect(removed.body).toMatchObject({ status: 'uninstalled' });
    expect((await provider.stats()).revoked - before.revoked).toBe(1);
    expect(
      await stack.database.db('connector_tokens').where({ installation_id: installationId }).first(),
    ).toBeUndefined();
    expect(await accessTokenFor(tokenDeps(), 'org_default', installationId)).toEqual({
      ok: false,
      code: 'installation_not_active',
    });
  });
});

function tokenDeps(db: Knex = stack.database.db) {
  const settings = connectorSettings(stack.config);
  return { db, settings, oauth: createOAuthClient(settings) };
}
