import { SignJWT } from 'jose';
import { createDb } from '../../db/connection';
import { registerTokenSubject } from '../../services/identity/issuance/subjects';
import { DEFAULT_ORGANIZATION_ID } from '../../domain/common/organizations';
import { eventually } from '../support/eventually';
import { call, expectProblem } from '../support/http';
import { deploymentSigning } from '../support/jwt';
import { useStack } from '../support/stack';

/*
 * A JWT signed with the deployment key but naming no service account (no client_id) is trusted for the org and
 * scope it claims only as far as its subject is registered: its organization, and scopes covering the claimed ones.
 */
let otherOrganization: string;

const stack = useStack();
beforeAll(async () => {
  const operator = await stack.token(['cloud:admin:global'], 'operator');
  const created = await call(stack.baseUrl, 'POST', '/v1/organizations', {
    token: operator,
    json: { org_did: 'did:web:subjects.example', name: 'Other' },
  });
  expect(created.status).toBe(201);
  otherOrganization = created.body.organization_id;
  await registerTokenSubject(stack.database.db, {
    subject: 'ops-reader',
    organizationId: DEFAULT_ORGANIZATION_ID,
    scopes: ['orch:read', 'platform:admin'],
  });
});

/** A correctly signed access token (the deployment's key, typ, issuer, audience, expiry) with the claims given. */
async function signed(claims: { sub: string; scope: string; org?: string }): Promise<string> {
  const own = await deploymentSigning(stack);
  return new SignJWT({ scope: claims.scope, ...(claims.org ? { org: claims.org } : {}) })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: own.kid })
    .setIssuer(own.issuer)
    .setAudience(own.audience)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(own.key);
}

const reviewers = (token: string) => call(stack.baseUrl, 'GET', '/v1/orch/reviewers', { token });
const organizations = (token: string) => call(stack.baseUrl, 'GET', '/v1/organizations', { token });

describe('an access token without a service account', () => {
  it('is refused when its subject is not registered, however well it is signed', async () => {
    const reply = await reviewers(
      await signed({ sub: 'nobody-registered', scope: 'orch:read', org: DEFAULT_ORGANIZATION_ID }),
    );
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe("The token's subject is not registered in the organization it claims");
  });

  it('is refused when it claims cloud:admin:global beyond its registration', async () => {
    const reply = await organizations(
      await signed({ sub: 'ops-reader', scope: 'orch:read cloud:admin:global', org: DEFAULT_ORGANIZATION_ID }),
    );
    expectProblem(reply, 401, 'unauthorized');
    expect(reply.body.detail).toBe('The token claims scopes its subject is not registered for: cloud:admin:global');
  });

  it('is refused when it claims another organization than its registration’s', async () => {
    expectProblem(
      await reviewers(await signed({ sub: 'ops-reader', scope: 'orch:read', org: otherOrganization })),
      401,
      'unauthorized',
    );
  });

  it('holds what it claims within its registration, implied scopes included', async () => {
    expect(
      (await reviewers(await signed({ sub: 'ops-reader', scope: 'orch:read', org: DEFAULT_ORGANIZATION_ID }))).status,
    ).toBe(200);
    const platformRead = await call(stack.baseUrl, 'GET', '/v1/agents', {
      token: await signed({ sub: 'ops-reader', scope: 'platform:read', org: DEFAULT_ORGANIZATION_ID }),
    });
    expect(platformRead.status).toBe(200);
  });

  it('stops at once when its registration is withdrawn', async () => {
    await registerTokenSubject(stack.database.db, {
      subject: 'temp-operator',
      organizationId: DEFAULT_ORGANIZATION_ID,
      scopes: ['orch:read'],
    });
    const token = await signed({ sub: 'temp-operator', scope: 'orch:read', org: DEFAULT_ORGANIZATION_ID });
    expect((await reviewers(token)).status).toBe(200);
    await stack.database.db('token_subjects').where({ subject: 'temp-operator' }).delete();
    expectProblem(await reviewers(token), 401, 'unauthorized');
  });

  it('is read from memory while the registrations are quiet, and stops once another instance withdraws it', async () => {
    await registerTokenSubject(stack.database.db, {
      subject: 'cached-operator',
      organizationId: DEFAULT_ORGANIZATION_ID,
      scopes: ['orch:read'],
    });
    const token = await signed({ sub: 'cached-operator', scope: 'orch:read', org: DEFAULT_ORGANIZATION_ID });
    // Past the write's own window (lib/notified-cache.ts), the registration is read once, then held.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await reviewers(token)).status).toBe(200);
    const reads: string[] = [];
    const count = (query: { sql: string }) => {
      if (query.sql.includes('token_subjects')) reads.push(query.sql);
    };
    stack.database.db.on('query', count);
    try {
      expect((await reviewers(token)).status).toBe(200);
      expect((await reviewers(token)).status).toBe(200);
    } finally {
      stack.database.db.off('query', count);
    }
    expect(reads).toEqual([]);

    const otherInstance = createDb({ connectionString: stack.database.url, poolMax: 1 });
    try {
      await otherInstance('token_subjects').where({ subject: 'cached-operator' }).delete();
    } finally {
      await otherInstance.destroy();
    }
    const refused = await eventually(
      () => reviewers(token),
      (reply) => reply.status !== 200,
      { timeoutMs: 2_000, everyMs: 10 },
    );
    expectProblem(refused, 401, 'unauthorized');
  });
});
