import { randomUUID } from 'node:crypto';
import { call, client, expectProblem } from '../support/http';
import { signedInPerson, type SignedInPerson } from '../support/identity';
import { useStack } from '../support/stack';

let person: SignedInPerson;

const exchange = (json: Record<string, unknown>) =>
  call(stack.baseUrl, 'POST', '/v1/delegation-tokens/exchange', { json });
const as = (token: string) => client(stack.baseUrl, token);

const stack = useStack();
beforeAll(async () => {
  const admin = as(await stack.token(['platform:admin']));
  for (const key of ['support-billing', 'support-refunds', 'sales-pitch']) {
    expect(
      (
        await admin('POST', `/v1/prompts/${key}/versions`, {
          json: { version: '1.0.0', content: `${key} 1.0.0`, meta: { namespace: 'support', scope: 'team' } },
        })
      ).status,
    ).toBe(201);
  }
  person = await signedInPerson(stack);
});

describe('prompt grants in delegation tokens', () => {
  it('reads the prompts its grant covers, is refused the others, and lists only the covered ones', async () => {
    const exchanged = await exchange({
      subject_token: person.sessionToken,
      capabilities: ['prompt:read:support-*'],
      risk_level: 'low',
    });
    expect(exchanged.status).toBe(201);
    expect(exchanged.body.capabilities).toEqual(['prompt:read:support-*']);
    const holder = as(exchanged.body.token as string);

    expect(await holder('GET', '/v1/prompts/support-billing')).toMatchObject({
      status: 200,
      body: { prompt_key: 'support-billing', content: 'support-billing 1.0.0' },
    });
    const other = await holder('GET', '/v1/prompts/sales-pitch');
    expectProblem(other, 403, 'insufficient_scope');
    expect(other.body.required_scope).toBe('prompt:read:sales-pitch');
    expectProblem(
      await holder('POST', '/v1/prompts/support-billing/versions', {
        json: { version: '1.1.0', content: 'changed', meta: {} },
      }),
      403,
      'insufficient_scope',
    );

    const listed = await holder('GET', '/v1/prompts');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((prompt: { prompt_key: string }) => prompt.prompt_key)).toEqual([
      'support-billing',
      'support-refunds',
    ]);
  });

  it('narrows a prompt grant to one it covers, and refuses one it does not cover as delegation_widening', async () => {
    const parent = await exchange({
      subject_token: person.sessionToken,
      capabilities: ['prompt:read:support-*', 'reasoning'],
      duration_seconds: 600,
    });
    expect(parent.status).toBe(201);
    const narrowed = await exchange({
      subject_token: parent.body.token,
      capabilities: ['prompt:read:support-billing'],
      duration_seconds: 60,
    });
    expect(narrowed.status).toBe(201);
    const holder = as(narrowed.body.token as string);
    expect((await holder('GET', '/v1/prompts/support-billing')).status).toBe(200);
    expectProblem(await holder('GET', '/v1/prompts/support-refunds'), 403, 'insufficient_scope');

    for (const wider of [
      'prompt:read:*',
      'prompt:read:sales-pitch',
      'prompt:*:support-billing',
      'prompt:publish:support-billing',
      'prompt:read:support*',
    ]) {
      const reply = await exchange({ subject_token: parent.body.token, capabilities: [wider], duration_seconds: 60 });
      expectProblem(reply, 403, 'delegation_widening');
      expect(reply.body.widening).toEqual([{ field: 'capabilities', not_held: [wider] }]);
    }
    // The narrower token cannot widen back to its parent's pattern.
    expectProblem(
      await exchange({
        subject_token: narrowed.body.token,
        capabilities: ['prompt:read:support-*'],
        duration_seconds: 30,
      }),
      403,
      'delegation_widening',
    );
  });

  it('hands a prompt grant on to an agent only within the person’s token', async () => {
    const parent = await exchange({
      subject_token: person.sessionToken,
      capabilities: ['prompt:read:support-*', 'delegation:write'],
      duration_seconds: 600,
    });
    const passport_id = `pp_agent_${randomUUID()}`;
    const now = new Date();
    await stack.database.db('passports').insert({
      passport_id,
      did: `did:web:agents.example:${passport_id}`,
      type: 'agent',
      name: 'Prompt reader',
      organization_id: 'org_default',
      metadata: JSON.stringify({}),
      capabilities: [],
      status: 'active',
      created_at: now,
      updated_at: now,
    });
    const delegate = (capabilities: string[]) =>
      call(stack.baseUrl, 'POST', '/v1/delegation-tokens', {
        token: parent.body.token,
        json: { agentId: passport_id, capabilities, duration_seconds: 60 },
      });
    const agent = await delegate(['prompt:read:support-refunds']);
    expect(agent.status).toBe(201);
    expect((await as(agent.body.token as string)('GET', '/v1/prompts/support-refunds')).status).toBe(200);
    expectProblem(await delegate(['prompt:read:sales-*']), 403, 'delegation_widening');
  });

  it('uses publish, rollback and deprecate grants only at risk_level standard or above', async () => {
    const low = await exchange({
      subject_token: person.sessionToken,
      capabilities: ['prompt:publish:support-*'],
      risk_level: 'low',
    });
    expect(low.status).toBe(201);
    expectProblem(
      await as(low.body.token as string)('POST', '/v1/prompts/support-billing/versions', {
        json: { version: '1.1.0', content: 'support-billing 1.1.0', meta: {} },
      }),
      403,
      'insufficient_scope',
    );
    const standard = await exchange({
      subject_token: person.sessionToken,
      capabilities: ['prompt:publish:support-*'],
      risk_level: 'standard',
    });
    expect(
      (
        await as(standard.body.token as string)('POST', '/v1/prompts/support-billing/versions', {
          json: { version: '1.1.0', content: 'support-billing 1.1.0', meta: {} },
        })
      ).status,
    ).toBe(201);
  });

  it('refuses a malformed prompt grant as a validation problem', async () => {
    for (const grant of ['prompt:write:support-billing', 'prompt:read:', 'prompt:read:bad key', 'prompt:read']) {
      expectProblem(
        await exchange({ subject_token: person.sessionToken, capabilities: [grant] }),
        400,
        'validation_failed',
      );
    }
  });
});
