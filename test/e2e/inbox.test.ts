import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import type { AppDeps } from '../../api/app';
import { ledgerOrigin, tokenIssuer, type Config } from '../../app/config';
import { closeAppDeps } from '../../app/deps';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { closeServer, listen, reservePort } from '../../lib/http-server';
import { firstEnrollment, withBrowserPasskeys } from '../../scripts/dev-browser';
import { DEV_REVIEWERS } from '../../scripts/dev-seed';
import { stackApp } from '../support/app';
import { chromiumForTest } from '../support/chromium';
import { client } from '../support/http';
import { axeViolations, docsScreenshot, verifyBundle } from '../support/inbox-browser';
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
  // One app and its deps: the enrollment links are made with the same settings the server answers with.
  const built = stackApp(stack, { config });
  deps = built.deps;
  server = await listen(built.app, { host: '127.0.0.1', port, reserved });
  browser = await launchPasskeyBrowser(executable.path);
});

afterAll(async () => {
  await browser?.close();
  if (deps) await closeAppDeps(deps);
  if (server) await closeServer(server);
  await stack?.stop();
});

/** The first enrollment link `npm start` prints for a person, made with this server's settings. */
async function enrollmentLink(person: {
  user_name: string;
  display_name: string;
  reviewer_did?: string;
}): Promise<string> {
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

const ADA = DEV_REVIEWERS[0]!;

describeWithChromium('the reviewer inbox on npm start’s defaults', () => {
  // One phone-sized browser profile for the whole story: its authenticator keeps the passkey enrolled first.
  let profile: AuthenticatorProfile;
  let ada: { did: string; passport_id: string };
  const baseUrl = () => `http://localhost:${String(config.PORT)}`;
  beforeAll(async () => {
    profile = await withVirtualAuthenticator(browser, { width: 390, height: 844 });
  });
  afterAll(() => profile?.context.close());

  /** The session the page keeps for this tab, as the person's bearer token. */
  const sessionOfPage = async () =>
    JSON.parse(await profile.page.evaluate<string>(`sessionStorage.getItem('handoff.inbox.session')`)) as {
      token: string;
    };

  it('enrolls the seeded reviewer from the printed link, as the reviewer routings escalate to', async () => {
    const link = await enrollmentLink({ user_name: 'ada', display_name: ADA.display_name, reviewer_did: ADA.did });
    expect(link).toMatch(new RegExp(`^${baseUrl()}/passkeys#enrollment=`));
    const { page, cdp, authenticatorId } = profile;
    const did = await enrollFrom(page, link);
    const passport = await stack.database.db('passports').where({ did }).first();
    expect(passport).toMatchObject({ type: 'individual', name: ADA.display_name, status: 'active' });
    ada = { did, passport_id: passport.passport_id };
    // The seeded reviewer is now this person: what is escalated to them reaches her inbox.
    const reviewer = await stack.database.db('reviewers').where({ did: ADA.did }).first();
    expect(reviewer.passport_id).toBe(passport.passport_id);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toEqual([expect.objectContaining({ rpId: 'localhost' })]);
    // Enrolled, the next start has no link to print.
    await expect(
      firstEnrollment(deps, DEFAULT_ORGANIZATION_ID, { user_name: 'ada', display_name: 'Ada', reviewer_did: ADA.did }),
    ).resolves.toEqual({ state: 'enrolled', passport_id: passport.passport_id });
  });

  it('shows an escalated routing live, refuses an empty change by its field, and resolves it signed by the passkey', async () => {
    const { page } = profile;
    await page.goto(`${baseUrl()}/inbox`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.locator('#live', { hasText: 'Live' }).waitFor({ timeout: 30_000 });
    await page.evaluate(`window.notReloaded = true`);

    const orch = client(baseUrl(), await stack.token(['orch:admin']));
    const routed = await orch('POST', '/v1/orch/routing', {
      json: {
        task_type: 'medical_diagnosis',
        ai_agent_id: 'urn:acme:agent:diagnosis:7',
        ai_confidence: 0.42,
        ai_recommendation: 'Order an MRI of the lumbar spine',
        context: { patient: 'P-1042', symptom: 'lower back pain, 6 weeks' },
        required_capabilities: [{ capability_id: 'medical_diagnosis', min_weight: 0.85 }],
      },
    });
    expect(routed.status).toBe(200);
    expect(routed.body.assigned_to).toMatchObject({ type: 'human', did: ADA.did });
    const routingId = routed.body.routing_id as string;

    // It arrives without a reload, with its urgency, risk and when it moves on.
    const entry = page.locator(`#queue button[data-item-id="${routingId}"]`);
    await entry.waitFor({ timeout: 30_000 });
    expect(await page.evaluate(`window.notReloaded`)).toBe(true);
    expect(await entry.textContent()).toMatch(/medical_diagnosis.*Escalated to you.*Urgency: .*Risk: .*moves on in/);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
    await docsScreenshot(page, 'inbox-queue');

    // By keyboard: open the item.
    await entry.focus();
    await page.keyboard.press('Enter');
    await page.locator('#item-section:not([hidden])').waitFor();
    const details = await page.locator('#details').textContent();
    expect(details).toMatch(/urn:acme:agent:diagnosis:7/);
    expect(details).toMatch(/Order an MRI of the lumbar spine/);
    expect(details).toMatch(/42 %/);
    expect(details).toMatch(/Fourth Law/);
    expect(details).toMatch(/P-1042/);
    expect(await page.locator('#chain').textContent()).toMatch(/Level 1 · Ada \(clinical reviewer\).*holds it now/);
    expect(await page.locator('#provenance li').count()).toBeGreaterThan(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await axeViolations(page)).toEqual([]);
    await docsScreenshot(page, 'inbox-item');

    // An empty recommendation is refused by its field before any passkey signs.
    const recommendation = page.getByLabel('Recommendation (required)');
    await recommendation.fill('');
    await page.getByRole('button', { name: 'Approve with changed recommendation' }).click();
    await page.locator('#param-0-error', { hasText: 'Enter a value' }).waitFor();
    expect(await recommendation.getAttribute('aria-invalid')).toBe('true');
    expect(await recommendation.getAttribute('aria-describedby')).toBe('param-0-error');
    expect(await page.evaluate('document.activeElement.id')).toBe('param-0');
    expect((await orch('GET', `/v1/orch/routing/${routingId}`)).body.status).not.toBe('completed');

    await recommendation.fill('Physiotherapy first; MRI only if it persists');
    await page.getByLabel('Comment').fill('No red flags in the history.');
    await page.getByRole('button', { name: 'Approve with changed recommendation' }).click();
    await page.locator('#answer-status', { hasText: 'completed, signed by your passkey' }).waitFor({ timeout: 30_000 });
    expect(await page.locator(`#queue button[data-item-id="${routingId}"]`).count()).toBe(0);

    // The workflow completes with the change.
    const done = await orch('GET', `/v1/orch/routing/${routingId}?wait=30`);
    expect(done.body).toMatchObject({ status: 'completed', resolution: { outcome: 'modified' } });

    // The signature bundle verifies as `npm run verify` checks it, offline.
    const asAda = client(baseUrl(), (await sessionOfPage()).token);
    const bundle = await asAda('GET', `/v1/inbox/items/${routingId}/signature`);
    expect(bundle.status).toBe(200);
    expect(bundle.body.signature).toMatchObject({
      decision: {
        item_id: routingId,
        decision: 'modified',
        modified_parameters: { recommendation: 'Physiotherapy first; MRI only if it persists' },
      },
      signer: { did: ada.did },
      rp_id: 'localhost',
    });
    const verified = verifyBundle(bundle.body);
    expect(verified.stdout).toMatch(/VERIFIED/);
    expect(verified.status).toBe(0);
  });

  it('approves a request with changed parameters checked against its params_schema, field by field', async () => {
    const admin = client(baseUrl(), await stack.token(['platform:admin']));
    const created = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Refund order 4471',
        risk_level: 'high',
        request_data: { order: 4471, amount: 1200 },
        params_schema: {
          type: 'object',
          properties: { order: { type: 'integer' }, amount: { type: 'number', minimum: 0, maximum: 1000 } },
          required: ['order', 'amount'],
        },
        expires_in_seconds: 1800,
      },
    });
    expect(created.status).toBe(201);
    const approvalId = created.body.id as string;
    const { page } = profile;
    const entry = page.locator(`#queue button[data-item-id="${approvalId}"]`);
    await entry.waitFor({ timeout: 30_000 });
    expect(await entry.textContent()).toMatch(/Refund order 4471.*Addressed to you.*Risk: high.*expires in/);
    await entry.click();
    const amount = page.getByLabel('amount (required)');
    await amount.waitFor();
    expect(await amount.inputValue()).toBe('1200');
    await page.getByRole('button', { name: 'Approve with changed parameters' }).click();
    await page.locator('#param-1-error', { hasText: 'at most 1000' }).waitFor();
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    await amount.fill('800');
    await page.getByLabel('Comment').fill('Refund capped at 800 EUR.');
    await page.getByRole('button', { name: 'Approve with changed parameters' }).click();
    await page.locator('#answer-status', { hasText: 'Refund order 4471: approved' }).waitFor({ timeout: 30_000 });
    const read = await admin('GET', `/v1/approvals/${approvalId}`);
    expect(read.body).toMatchObject({ status: 'approved', responded_by: ada.did });
    expect(JSON.stringify(read.body)).toContain('"amount":800');
  });

  it('opens a decision link from a real e-mail, confirms it, and refuses the same link replayed', async () => {
    const admin = client(baseUrl(), await stack.token());
    const email = 'ada@inbox-e2e.test';
    const reviewerDid = 'did:web:inbox-e2e.test:reviewers:ada-by-mail';
    const put = await admin('PUT', `/v1/orch/reviewers/${encodeURIComponent(reviewerDid)}`, {
      json: { display_name: 'Ada (by mail)', passport_id: ada.passport_id, chain_level: 9, available: false, email },
    });
    expect(put.status).toBe(204);
    const created = await admin('POST', '/v1/approvals', {
      json: {
        requester_passport_id: 'did:web:agents.example:billing-bot',
        approver_passport_id: ada.did,
        action_description: 'Pay invoice 77',
        request_data: { invoice: 77 },
      },
    });
    expect(created.status).toBe(201);
    const approvalId = created.body.id as string;
    const mail = await stack.mail.next(email, (message) => message.text.includes('Pay invoice 77'));
    const link = /Approve: (\S+)/.exec(mail.text)?.[1];
    expect(link).toBeDefined();

    const { page } = profile;
    const opened = await page.goto(link!);
    expect(opened?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Approve this request?' }).waitFor();
    expect((await admin('GET', `/v1/approvals/${approvalId}`)).body.status).toBe('pending');
    await page.getByRole('button', { name: 'Yes, approve' }).click();
    await page.getByRole('heading', { name: 'Approved' }).waitFor({ timeout: 30_000 });
    expect((await admin('GET', `/v1/approvals/${approvalId}`)).body).toMatchObject({
      status: 'approved',
      responded_by: ada.did,
    });

    const replayed = await page.goto(link!);
    expect(replayed?.status()).toBe(410);
    await page.getByRole('heading', { name: 'This link has been used' }).waitFor();
  });
});
