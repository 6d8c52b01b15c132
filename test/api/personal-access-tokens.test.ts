import { call, client, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

let admin: ReturnType<typeof client>;
let otherAdmin: ReturnType<typeof client>;

const stack = useStack();
beforeAll(async () => {
  admin = client(stack.baseUrl, await stack.token(['orch:admin', 'audit:read'], 'alice'));
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: await stack.token(['cloud:admin:global'], 'operator'),
    json: { org_did: 'did:web:pat.example', name: 'Other' },
  });
  expect(created.status).toBe(201);
  otherAdmin = client(
    stack.baseUrl,
    await stack.token(['orch:admin', 'audit:read'], 'bob', created.body.organization_id),
  );
});

async function createToken(json: Record<string, unknown>) {
  const reply = await admin('POST', '/v1/auth/tokens', { json });
  expect(reply.status).toBe(201);
  return reply.body as { token_id: string; token: string; scopes: string[]; status: string };
}

describe('personal access tokens through the API', () => {
  it('creates one with some of the creator’s scopes, shown once, that authenticates', async () => {
    const created = await createToken({ name: 'ci reader', scopes: ['orch:read'], expires_in_days: 30 });
    expect(created).toMatchObject({
      token: expect.stringMatching(/^hnd_pat_/),
      scopes: ['orch:read'],
      status: 'active',
      created_by: 'sub:alice',
    });
    expect((await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { token: created.token })).status).toBe(200);
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/orch/service-accounts', { token: created.token }),
      403,
      'insufficient_scope',
    );
    const read = await admin('GET', `/v1/auth/tokens/${created.token_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      token_id: created.token_id,
      name: 'ci reader',
      status: 'active',
      expires_at: expect.any(String),
      revoked_at: null,
    });
    expect(JSON.stringify(read.body)).not.toContain(created.token);
    expect(read.body).not.toHaveProperty('token_hash');
  });

  it('grants no scope the creator does not hold', async () => {
    const reply = await admin('POST', '/v1/auth/tokens', {
      json: { name: 'escalate', scopes: ['orch:read', 'cloud:admin:global'] },
    });
    expectProblem(reply, 403, 'insufficient_scope');
    expect(reply.body.scopes_not_held).toEqual(['cloud:admin:global']);
    expectProblem(
      await admin('POST', '/v1/auth/tokens', { json: { name: 'nothing', scopes: [] } }),
      400,
      'validation_failed',
    );
  });

  it('lists the organization’s tokens, keyset-paginated, without secrets or hashes', async () => {
    const made = [
      await createToken({ name: 'page-1', scopes: ['audit:read'] }),
      await createToken({ name: 'page-2', scopes: ['audit:read'] }),
    ];
    const seen: Array<Record<string, unknown>> = [];
    let cursor: string | null = null;
    do {
      const page = await admin('GET', `/v1/auth/tokens?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.map((token) => token.token_id)).toEqual(expect.arrayContaining(made.map((token) => token.token_id)));
    expect(new Set(seen.map((token) => token.token_id)).size).toBe(seen.length);
    for (const token of made) expect(JSON.stringify(seen)).not.toContain(token.token);
    expect(seen.every((token) => !('token_hash' in token) && !('token' in token))).toBe(true);
  });

  it('revokes one: it stops authenticating at once, and shows as revoked', async () => {
    const created = await createToken({ name: 'leaked', scopes: ['orch:read'] });
    expect((await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { token: created.token })).status).toBe(200);
    expect((await admin('DELETE', `/v1/auth/tokens/${created.token_id}`)).status).toBe(204);
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { token: created.token }),
      401,
      'unauthorized',
    );
    const first = (await admin('GET', `/v1/auth/tokens/${created.token_id}`)).body;
    expect(first).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    expect((await admin('DELETE', `/v1/auth/tokens/${created.token_id}`)).status).toBe(204);
    expect((await admin('GET', `/v1/auth/tokens/${created.token_id}`)).body.revoked_at).toBe(first.revoked_at);
    const revoked = await admin('GET', '/v1/auth/tokens?status=revoked');
    expect(revoked.body.data.map((token: { token_id: string }) => token.token_id)).toContain(created.token_id);
    const active = await admin('GET', '/v1/auth/tokens?status=active');
    expect(active.body.data.map((token: { token_id: string }) => token.token_id)).not.toContain(created.token_id);
  });

  it('shows another organization’s admin nothing of them: 404 as for an unknown id, and not in its list', async () => {
    const created = await createToken({ name: 'alpha only', scopes: ['orch:read'] });
    expectProblem(
      await otherAdmin('GET', `/v1/auth/tokens/${created.token_id}`),
      404,
      'personal_access_token_not_found',
    );
    expectProblem(
      await otherAdmin('DELETE', `/v1/auth/tokens/${created.token_id}`),
      404,
      'personal_access_token_not_found',
    );
    expectProblem(await otherAdmin('GET', '/v1/auth/tokens/pat_unknown'), 404, 'personal_access_token_not_found');
    const list = await otherAdmin('GET', '/v1/auth/tokens');
    expect(list.body.data.map((token: { token_id: string }) => token.token_id)).not.toContain(created.token_id);
    expect((await call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { token: created.token })).status).toBe(200);
  });

  it('refuses a caller without orch:admin', async () => {
    const reader = await stack.token(['orch:read', 'orch:write', 'platform:admin']);
    for (const [method, path, json] of [
      ['GET', '/v1/auth/tokens', undefined],
      ['POST', '/v1/auth/tokens', { name: 'x', scopes: ['orch:read'] }],
      ['GET', '/v1/auth/tokens/pat_x', undefined],
      ['DELETE', '/v1/auth/tokens/pat_x', undefined],
    ] as const) {
      const reply = await call(stack.baseUrl, method, path, { token: reader, ...(json ? { json } : {}) });
      expectProblem(reply, 403, 'insufficient_scope');
      expect(reply.body.required_scope).toBe('orch:admin');
    }
    expectProblem(await call(stack.baseUrl, 'GET', '/v1/auth/tokens'), 401, 'unauthorized');
  });
});
