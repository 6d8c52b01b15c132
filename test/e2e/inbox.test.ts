import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { AppDeps } from '../../api/app';
import { ledgerOrigin, tokenIssuer, type Config } from '../../app/config';
import { createAppDeps } from '../../app/deps';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { closeServer, listen, reservePort } from '../../lib/http-server';
import { createLogger } from '../../lib/logger';
import { firstEnrollment, withBrowserPasskeys } from '../../scripts/dev-browser';
import { buildStackApp } from '../support/app';
import { chromiumForTest } from '../support/chromium';
import { client, expectProblem } from '../support/http';
import { signedInPerson } from '../support/identity';
import { launchPasskeyBrowser, withVirtualAuthenticator, type AuthenticatorProfile } from '../support/passkey-browser';
import { startStack, type Stack } from '../support/stack';

const { executable, describeWithChromium } = chromiumForTest('inbox e2e test');

jest.setTimeout(180_000);

let stack: Stack;
let server: Server;
let config: Config;
let browser: Browser;
let deps: AppDeps;

beforeAll(async () => {
  if (!('path' in executable)) return;
  stack = await startStack();
  // `npm start`'s defaults: no PUBLIC_BASE_URL, the API on 127.0.0.1, passkeys bound to localhost.
  const { PUBLIC_BASE_URL: stackBase, ...unset } = stack.config;
  const { server: reserved, port } = await reservePort('127.0.0.1');
  config = withBrowserPasskeys({
    ...unset,
    PORT: port,
    AUTH_ISSUER: tokenIssuer(stack.config),
    LEDGER_ORIGIN: ledgerOrigin({ ...stack.config, PUBLIC_BASE_URL: stackBase }),
  });
  server = await listen(buildStackApp(stack, { config }), { host: '127.0.0.1', port, reserved });
  deps = createAppDeps(config, {
    db: stack.database.db,
    temporal: stack.temporal,
    logger: createLogger({ level: 'error', silent: true }),
    listenUrl: undefined,
  });
  browser = await launchPasskeyBrowser(executable.path);
});

afterAll(async () => {
  await browser?.close();
  await deps?.revocations.close();
  await deps?.decisions.close();
  if (server) await closeServer(server);
  await stack?.stop();
});

/** The first enrollment link `npm start` prints for a person, made with this server's settings. */
async function enrollmentLink(person: { user_name: string; display_name: string }): Promise<string> {
  const made = await firstEnrollment(deps, DEFAULT_ORGANIZATION_ID, person);
  if (made.state !== 'link') throw new Error(`${person.user_name} is enrolled already`);
  return made.url;
}

async function enrollFrom(page: Page, link: string): Promise<string> {
  await page.goto(link);
  await page.click('#enroll');
  const status = page.locator('#status[data-state="enrolled"], #status[data-state="error"]');
  await status.waitFor({ timeout: 30_000 });
  expect(await status.getAttribute('data-state')).toBe('enrolled');
  return (await status.getAttribute('data-did'))!;
}

describeWithChromium('the reviewer inbox on npm start’s defaults', () => {
  // One phone-sized browser profile for the whole story: its authenticator keeps the passkey enrolled first.
  let profile: AuthenticatorProfile;
  let ada: { did: string; passport_id: string };
  const baseUrl = () => `http://localhost:${String(config.PORT)}`;
  beforeAll(async () => {
    profile = await withVirtualAuthenticator(browser, { width: 390, height: 844 });
  });
  afterAll(() => profile?.context.close());

  it('enrolls the seeded reviewer from the printed link, with a passkey bound to localhost', async () => {
    const link = await enrollmentLink({ user_name: 'ada', display_name: 'Ada (clinical reviewer)' });
    expect(link).toMatch(new RegExp(`^${baseUrl()}/passkeys#enrollment=`));
    const { page, cdp, authenticatorId } = profile;
    const did = await enrollFrom(page, link);
    const passport = await stack.database.db('passports').where({ did }).first();
    expect(passport).toMatchObject({ type: 'individual', name: 'Ada (clinical reviewer)', status: 'active' });
    ada = { did, passport_id: passport.passport_id };
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toEqual([expect.objectContaining({ rpId: 'localhost' })]);
    // Enrolled, the next start has no link to print.
    await expect(
      firstEnrollment(deps, DEFAULT_ORGANIZATION_ID, { user_name: 'ada', display_name: 'Ada' }),
    ).resolves.toEqual({ state: 'enrolled', passport_id: passport.passport_id });
  });

  it('signs in at /inbox, shows the approval addressed to the reviewer, and approves it with a comment', async () => {
    const admin = client(baseUrl(), await stack.token(['platform:admin']));
    const created = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Refund 1,200 EUR to order 4471',
        risk_level: 'high',
        request_data: { order: 4471, amount: 1200 },
        expires_in_seconds: 1800,
      },
    });
    expect(created.status).toBe(201);
    const approvalId = created.body.id as string;

    const { page } = profile;
    await page.goto(`${baseUrl()}/inbox`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    const item = page.locator(`#queue button[data-approval-id="${approvalId}"]`);
    await item.waitFor({ timeout: 30_000 });
    expect(await item.textContent()).toMatch(/Refund 1,200 EUR.*Risk: high.*Urgency: urgent.*min left/);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);

    // By keyboard: open the item, write the comment, approve.
    await item.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Request' }).waitFor();
    await page.getByLabel('Comment').fill('Checked against the order; refund is due.');
    await page.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#answer-status', { hasText: 'Request approved.' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('#queue button').count()).toBe(0);

    const read = await admin('GET', `/v1/approvals/${approvalId}`);
    expect(read.body).toMatchObject({
      status: 'approved',
      responded_by: ada.did,
      response_comment: 'Checked against the order; refund is due.',
    });
  });

  it('shows an answer that is refused as text by the comment, and keeps another person out', async () => {
    const admin = client(baseUrl(), await stack.token(['platform:admin']));
    const created = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Close account 88',
        expires_in_seconds: 3600,
      },
    });
    const approvalId = created.body.id as string;
    const other = await signedInPerson(stack, { name: 'Bea' });
    const asOther = client(baseUrl(), other.sessionToken);
    // The inbox's read for another person does not list it, and their answer is refused.
    const theirs = await asOther('GET', `/v1/approvals?status=pending&approver=${encodeURIComponent(other.did)}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expectProblem(
      await asOther('POST', `/v1/approvals/${approvalId}/respond`, { json: { decision: 'approved' } }),
      403,
      'not_the_approver',
    );

    const { page } = profile;
    await page.getByRole('button', { name: 'Refresh' }).click();
    const item = page.locator(`#queue button[data-approval-id="${approvalId}"]`);
    await item.click();
    // A comment the API refuses: the reason is shown by the field, and nothing is decided.
    await page.getByLabel('Comment').fill('x'.repeat(10_001));
    await page.getByRole('button', { name: 'Reject' }).click();
    const refused = page.locator('#answer-error', { hasText: 'The answer was not recorded' });
    await refused.waitFor({ timeout: 30_000 });
    expect(await refused.textContent()).toMatch(/comment/);
    expect((await admin('GET', `/v1/approvals/${approvalId}`)).body.status).toBe('pending');
    await page.getByLabel('Comment').fill('Not without the customer’s consent.');
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.locator('#answer-status', { hasText: 'Request rejected.' }).waitFor({ timeout: 30_000 });
    expect((await admin('GET', `/v1/approvals/${approvalId}`)).body).toMatchObject({
      status: 'rejected',
      responded_by: ada.did,
    });
  });
});
