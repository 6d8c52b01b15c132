import { randomUUID } from 'node:crypto';
import { OPERATION_CAPABILITIES, operationKey } from '../../api/capabilities';
import { tokenIssuer } from '../../app/config';
import {
  CAPABILITIES,
  CAPABILITY_NAMES,
  SIGNED_IN_PERSON_CAPABILITIES,
  type Capability,
  type RiskLevel,
} from '../../domain/identity/capabilities';
import { createKeyRing } from '../../services/identity/issuance/key-ring';
import { signDelegationToken } from '../../services/identity/issuance/delegation-tokens';
import { call, expectProblem } from '../support/http';
import { useStack } from '../support/stack';

interface Operation {
  key: string;
  method: string;
  path: string;
  scope: string | undefined;
  capability: unknown;
  hasBody: boolean;
}
let operations: Operation[];

const stack = useStack();
beforeAll(async () => {
  const document = (await call(stack.baseUrl, 'GET', '/openapi.json')).body as {
    paths: Record<
      string,
      Record<string, { security?: Array<{ bearerAuth?: string[] }>; 'x-capability'?: string; requestBody?: unknown }>
    >;
  };
  operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      key: operationKey(method, path),
      method: method.toUpperCase(),
      path,
      scope: operation.security?.[0]?.bearerAuth?.[0],
      capability: operation['x-capability'],
      hasBody: operation.requestBody !== undefined,
    })),
  );
});

/** A delegation token signed by the deployment, holding exactly the given capabilities. */
async function delegationToken(capabilities: string[], risk_level: RiskLevel = 'high'): Promise<string> {
  const delegation_id = `dlg_${randomUUID()}`;
  return signDelegationToken(
    createKeyRing(stack.database.db),
    { issuer: tokenIssuer(stack.config), audience: stack.config.AUTH_AUDIENCE },
    {
      token_id: `dtk_${randomUUID()}`,
      delegation_id,
      chain: [delegation_id],
      passport_id: 'pp_authorization_test',
      did: 'did:web:localhost:passports:pp_authorization_test',
      organization_id: 'org_default',
      agent_did: null,
      capabilities,
      environment: null,
      risk_level,
      verification_tier: 2,
      identity_tier: 0,
      credential: { type: 'passkey', id: 'cred_authorization_test' },
      issued_at: new Date(),
      expires_at: new Date(Date.now() + 600_000),
    },
  );
}

/**
 * Operations guarded by a scope. A per-key prompt grant (prompt:read:{key}, prompt:read:*) is checked by the handler once it
 * knows the resource (test/api/prompts.test.ts), so it has no row in the table.
 */
const byScope = (operation: Operation) => operation.scope !== undefined && !operation.scope.startsWith('prompt:');

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'authz-probe');
const request = (operation: Operation, token: string) =>
  call(stack.baseUrl, operation.method, concrete(operation.path), {
    token,
    ...(operation.hasBody ? { json: {} } : {}),
  });

describe('the operation → capability table', () => {
  it('names a capability for every authenticated operation, and nothing else', () => {
    const authenticated = operations.filter(byScope).map((operation) => operation.key);
    expect(authenticated.filter((key) => !Object.hasOwn(OPERATION_CAPABILITIES, key))).toEqual([]);
    expect(Object.keys(OPERATION_CAPABILITIES).filter((key) => !authenticated.includes(key))).toEqual([]);
  });

  it('is what the OpenAPI document shows as x-capability', () => {
    for (const operation of operations.filter(byScope))
      expect([operation.key, operation.capability]).toEqual([operation.key, OPERATION_CAPABILITIES[operation.key]]);
  });

  it('gives each capability the scope that guards its operations, so existing scoped tokens keep every operation', () => {
    for (const operation of operations.filter(byScope)) {
      const capability = OPERATION_CAPABILITIES[operation.key]!;
      expect([operation.key, CAPABILITIES[capability].implied_by]).toEqual([operation.key, operation.scope]);
    }
  });

  it('leaves administration and the agent-key operations out of what a signed-in person holds', () => {
    expect(SIGNED_IN_PERSON_CAPABILITIES).toContain('approvals:respond');
    expect(SIGNED_IN_PERSON_CAPABILITIES).toContain('delegation:write');
    expect(SIGNED_IN_PERSON_CAPABILITIES).not.toContain('agents:manage');
    expect(SIGNED_IN_PERSON_CAPABILITIES).not.toContain('agent_operations');
  });
});

describe('every authenticated operation with a delegation token', () => {
  it('answers 403 insufficient_scope without its capability, and passes authorization with it', async () => {
    const authenticated = operations.filter(byScope);
    expect(authenticated.length).toBeGreaterThan(90);
    const tokens = new Map<string, string>();
    const tokenFor = async (capabilities: string[]) => {
      const key = capabilities.join(' ');
      if (!tokens.has(key)) tokens.set(key, await delegationToken(capabilities));
      return tokens.get(key)!;
    };
    const failures: string[] = [];
    for (const operation of authenticated) {
      const capability = OPERATION_CAPABILITIES[operation.key]!;
      const others = CAPABILITY_NAMES.filter((name) => name !== capability);
      const refused = await request(operation, await tokenFor(others));
      if (
        refused.status !== 403 ||
        refused.body?.type !== '/problems/insufficient_scope' ||
        refused.body?.required_capability !== capability
      ) {
        failures.push(`${operation.key} without ${capability}: ${refused.status} ${refused.body?.type}`);
      }
      const allowed = await request(operation, await tokenFor([capability]));
      if (allowed.status === 401 || allowed.body?.type === '/problems/insufficient_scope' || allowed.status >= 500) {
        failures.push(
          `${operation.key} with ${capability}: ${allowed.status} ${allowed.body?.type} ${allowed.body?.detail}`,
        );
      }
    }
    expect(failures).toEqual([]);
  }, 180_000);

  it('refuses an operation above the token’s risk_level, and passes at it', async () => {
    const capability: Capability = 'agents:manage';
    expect(CAPABILITIES[capability].risk).toBe('high');
    const standard = await call(stack.baseUrl, 'PATCH', '/v1/agents/authz-probe', {
      token: await delegationToken([capability], 'standard'),
      json: {},
    });
    expectProblem(standard, 403, 'insufficient_scope');
    expect(standard.body.detail).toMatch(/high risk; the token's risk_level is standard/);
    const high = await call(stack.baseUrl, 'PATCH', '/v1/agents/authz-probe', {
      token: await delegationToken([capability], 'high'),
      json: {},
    });
    expect(high.body?.type).not.toBe('/problems/insufficient_scope');
    const low = await call(stack.baseUrl, 'GET', '/v1/agents', {
      token: await delegationToken(['agents:read'], 'low'),
    });
    expect(low.status).toBe(200);
  });

  it('still lets scoped tokens through by scope, which implies the capability', async () => {
    expect(
      (await call(stack.baseUrl, 'GET', '/v1/agents', { token: await stack.token(['platform:read']) })).status,
    ).toBe(200);
    expect(
      (await call(stack.baseUrl, 'GET', '/v1/delegation-tokens', { token: await stack.token(['platform:admin']) }))
        .status,
    ).toBe(200);
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/agents', { token: await stack.token(['orch:admin']) }),
      403,
      'insufficient_scope',
    );
  });

  it('refuses a delegation token whose claims name an unknown capability', async () => {
    expectProblem(
      await call(stack.baseUrl, 'GET', '/v1/agents', {
        token: await delegationToken(['agents:read', 'platform:admin']),
      }),
      401,
      'unauthorized',
    );
  });
});
