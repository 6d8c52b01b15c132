import {
  approvalRequired,
  assessCallRisk,
  checkAgentCall,
  offeredGrantName,
  matchCapability,
  parseAgentUri,
  parseCapabilityUri,
} from '../../../domain/executions/agent-calls';
import { agentForCapabilities, taskStatus, workforceRequirements } from '../../../domain/tasks/status';

describe('agent and capability URIs', () => {
  it.each([
    ['agent://acme/summarizer@1.2.3', { org: 'acme', name: 'summarizer', version: '1.2.3' }],
    ['agent://acme/sum-2.x@0.1.0-beta.1', { org: 'acme', name: 'sum-2.x', version: '0.1.0-beta.1' }],
    ['agent://Acme/summarizer@1.2.3', undefined],
    ['agent://acme/summarizer', undefined],
    ['agent://acme/summarizer@1.2', undefined],
    ['agents://acme/summarizer@1.2.3', undefined],
  ])('parses %s', (uri, parts) => expect(parseAgentUri(uri)).toEqual(parts));

  it.each([
    ['capability://acme/summarize', { org: 'acme', name: 'summarize' }],
    ['capability://summarize', { name: 'summarize' }],
    ['capability://acme/sum/extra', undefined],
    ['summarize', undefined],
  ])('parses %s', (uri, parts) => expect(parseCapabilityUri(uri)).toEqual(parts));

  it.each([
    ['the same URI', 'capability://acme/summarize', 'capability://acme/summarize'],
    ['a URI that leaves the organization open', 'capability://summarize', 'capability://acme/summarize'],
    ['another organization’s capability', 'capability://globex/summarize', undefined],
    ['a capability it does not offer', 'capability://translate', undefined],
  ])('matches %s', (_name, requested, matched) =>
    expect(matchCapability(['capability://acme/summarize', 'capability://acme/classify'], requested)).toBe(matched),
  );
});

describe('call policy', () => {
  it.each([
    ['never', 'critical', false],
    ['low', 'low', true],
    ['high', 'medium', false],
    ['high', 'high', true],
    ['high', 'critical', true],
    ['critical', 'high', false],
  ] as const)('with require_approval_at %s, a %s-risk call needs approval: %s', (threshold, risk, expected) => {
    expect(approvalRequired({ require_approval_at: threshold }, risk)).toBe(expected);
  });

  it.each([
    [{}, 'low', []],
    [{ amount: 2_000 }, 'medium', [{ factor: 'amount_at_least:1000', severity: 'medium' }]],
    [
      { amount: 150_000, irreversible: true },
      'critical',
      [
        { factor: 'amount_at_least:100000', severity: 'critical' },
        { factor: 'irreversible_action', severity: 'high' },
      ],
    ],
    [
      { risk_level: 'high', contains_personal_data: true },
      'high',
      [
        { factor: 'declared_risk_level:high', severity: 'high' },
        { factor: 'personal_data', severity: 'medium' },
      ],
    ],
    [{ life_safety_flag: true }, 'critical', [{ factor: 'life_safety_flag', severity: 'critical' }]],
  ])('assesses %j as %s with each factor’s severity', (parameters, level, factors) => {
    expect(assessCallRisk(parameters)).toEqual({ level, factors });
  });

  const agent = {
    agent_uri: 'agent://acme/payer@1.0.0',
    status: 'active',
    capabilities: ['capability://acme/pay'],
    approval_policy: { require_approval_at: 'high' as const },
  };

  it('accepts a matching call and says whether it needs approval', () => {
    expect(
      checkAgentCall(agent, { capability_uri: 'capability://pay', parameters: { amount: 50 } }, true),
    ).toMatchObject({
      ok: true,
      capability_uri: 'capability://acme/pay',
      approval_required: false,
    });
    expect(
      checkAgentCall(agent, { capability_uri: 'capability://acme/pay', parameters: { amount: 50_000 } }, true),
    ).toMatchObject({ ok: true, approval_required: true, risk: { level: 'high' } });
    expect(checkAgentCall(agent, { capability_uri: 'capability://acme/refund', parameters: {} }, true)).toMatchObject({
      ok: true,
      capability_uri: 'capability://acme/refund',
    });
  });

  it.each([
    ['an inactive agent', { ...agent, status: 'inactive' }, 'capability://acme/pay', 'agent_inactive'],
    ['a capability it does not offer', agent, 'capability://acme/refund', 'capability_not_matched'],
    ['an offered capability whose grant is not live', agent, 'capability://acme/pay', 'capability_not_matched'],
  ])('refuses %s without a live grant', (_name, target, capability_uri, code) => {
    expect(checkAgentCall(target, { capability_uri, parameters: {} }, false)).toMatchObject({ ok: false, code });
  });

  it('names the grant a registration offers as the grant-sync trigger keys it', () => {
    expect(offeredGrantName('capability://acme/Pay')).toBe('pay');
    expect(offeredGrantName('capability://pay')).toBe('pay');
  });
});

describe('tasks', () => {
  it.each([
    [undefined, 'routing'],
    [{ status: 'pending' }, 'routing'],
    [{ status: 'in_progress', decision: 'escalate_to_human' }, 'assigned'],
    [{ status: 'completed', decision: 'ai_autonomous' }, 'assigned'],
    [{ status: 'completed', decision: 'escalate_to_human' }, 'resolved'],
    [{ status: 'expired', decision: 'escalate_to_human' }, 'expired'],
    [{ status: 'queued', decision: 'escalate_to_human' }, 'unassigned'],
  ] as const)('a task whose routing is %j is %s', (routing, status) => expect(taskStatus(routing)).toBe(status));

  const workforce = [
    { id: 'a', passport_id: 'did:web:acme.example:agents:a' },
    { id: 'b', passport_id: 'did:web:acme.example:agents:b' },
  ];

  it.each([
    [['summarize'], ['did:web:acme.example:agents:a', 'did:web:acme.example:agents:b'], 'a'],
    [['summarize', 'translate'], ['did:web:acme.example:agents:b'], 'b'],
    [['paint'], [], undefined],
    [['paint'], ['did:web:acme.example:people:ada'], undefined],
    [[], [], 'a'],
  ])('picks the agent for %j qualified %j: %s', (required, qualified, id) =>
    expect(
      agentForCapabilities(
        workforce,
        required,
        qualified.map((did) => ({ did })),
      )?.id,
    ).toBe(id),
  );

  it.each([
    [[{ capability_id: 'Summarize', min_weight: 0.5 }], [{ capability: 'summarize', min_weight: 0.5 }]],
    [[{ capability_id: 'capability://acme/translate', min_weight: 0 }], [{ capability: 'translate', min_weight: 0 }]],
    [[{ capability_id: 'capability://globex/translate', min_weight: 0 }], undefined],
    [[], []],
  ])('names the workforce’s needs %j as requirements %j', (required, requirements) =>
    expect(workforceRequirements(required, ['acme', 'org_1'])).toEqual(requirements),
  );
});
