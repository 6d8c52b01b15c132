import type { LoadedReviewer } from '../../../domain/routing/reviewer-assignment';
import type { EscalationLevel, RequiredCapability } from '../../../domain/routing/decision';
import {
  adminAssignment,
  afterAgentWindow,
  candidatesCover,
  describeDuration,
  mayReopenForReview,
  nextQueueLevel,
  queuedFor,
  resolutionRefusal,
  escalationNeeds,
  holderAfterDecision,
  levelForRequest,
  nextOnTimeout,
  requesterActor,
  reviewerForRequest,
  suggestedReviewers,
  supervisorNotifications,
  type RoutingHolder,
} from '../../../domain/routing/escalation';
import type { RiskLevel } from '../../../domain/routing/risk';

const reviewer = (
  did: string,
  chain_level: number,
  capabilities: Record<string, number>,
  open_assignments = 0,
): LoadedReviewer => ({
  did,
  display_name: did,
  capabilities,
  chain_level,
  available: true,
  open_assignments,
  capacity: null,
});

const team = [
  reviewer('did:x:first', 1, { diagnosis: 0.9 }),
  reviewer('did:x:busy', 1, { diagnosis: 0.9, oncology: 0.9 }, 3),
  reviewer('did:x:senior', 2, { diagnosis: 0.95 }),
  reviewer('did:x:chief', 3, { diagnosis: 0.95, oncology: 0.95 }),
];
const diagnosis: RequiredCapability[] = [{ capability_id: 'diagnosis', min_weight: 0.8 }];
const first = {
  did: 'did:x:first',
  chain_level: 1,
  capabilities_matched: [{ capability_id: 'diagnosis', weight: 0.9 }],
};

describe('escalationNeeds', () => {
  it.each<[string, RequiredCapability | undefined, RequiredCapability[]]>([
    ['keeps the routing’s needs without a target', undefined, diagnosis],
    [
      'adds a capability the routing does not need yet',
      { capability_id: 'oncology', min_weight: 0.5 },
      [...diagnosis, { capability_id: 'oncology', min_weight: 0.5 }],
    ],
    [
      'raises a needed capability to the weight asked',
      { capability_id: 'diagnosis', min_weight: 0.95 },
      [{ capability_id: 'diagnosis', min_weight: 0.95 }],
    ],
    ['never lowers a needed capability’s weight', { capability_id: 'diagnosis', min_weight: 0.1 }, diagnosis],
  ])('%s', (_name, target, expected) => {
    expect(escalationNeeds(diagnosis, target)).toEqual(expected);
  });
});

describe('candidatesCover', () => {
  it.each<[string, RequiredCapability[], boolean]>([
    ['covers needs that are the task’s own', diagnosis, true],
    ['does not cover a capability a rule added', [...diagnosis, { capability_id: 'oncology', min_weight: 0.7 }], false],
    ['covers no needs at all', [], true],
  ])('%s', (_name, needs, expected) => {
    expect(candidatesCover(diagnosis, needs)).toBe(expected);
  });
});

describe('reviewerForRequest', () => {
  it.each<[string, RoutingHolder, boolean, RequiredCapability[], typeof first | undefined, string | undefined]>([
    ['leaves the agent for the least-loaded first-line reviewer', 'agent', false, diagnosis, undefined, 'did:x:first'],
    ['moves a human-held routing up the chain without a target', 'human', false, diagnosis, first, 'did:x:senior'],
    [
      'moves a human-held routing to the first-line holder of the target, other than the current reviewer',
      'human',
      true,
      [...diagnosis, { capability_id: 'oncology', min_weight: 0.8 }],
      first,
      'did:x:busy',
    ],
    [
      'excludes the current reviewer when the target is their own capability',
      'human',
      true,
      diagnosis,
      first,
      'did:x:busy',
    ],
    [
      'finds nobody when nobody holds the target',
      'human',
      true,
      [{ capability_id: 'astrophysics', min_weight: 0 }],
      first,
      undefined,
    ],
    [
      'takes a queued routing to the least-loaded qualified reviewer at any level',
      'queue',
      false,
      [{ capability_id: 'oncology', min_weight: 0.92 }],
      undefined,
      'did:x:chief',
    ],
  ])('%s', (_name, holder, targeted, needs, current, expected) => {
    expect(reviewerForRequest(team, needs, holder, { targeted }, current)?.did).toBe(expected);
  });
});

describe('levelForRequest', () => {
  it.each<[string, RoutingHolder, EscalationLevel | undefined, EscalationLevel, RiskLevel, EscalationLevel]>([
    ['leaves the agent at the urgency asked', 'agent', 'low', 'none', 'critical', 'low'],
    [
      'leaves the agent at the level of its risk when no urgency is asked',
      'agent',
      undefined,
      'none',
      'critical',
      'urgent',
    ],
    ['moves a human-held routing one level up when no urgency is asked', 'human', undefined, 'medium', 'low', 'high'],
    ['moves a human-held routing to a higher urgency asked', 'human', 'urgent', 'medium', 'low', 'urgent'],
    ['never lowers the urgency of a human-held routing', 'human', 'low', 'high', 'low', 'high'],
    ['keeps urgent at the top of the ladder', 'human', undefined, 'urgent', 'low', 'urgent'],
    [
      'keeps a queued routing at its level when no urgency is asked',
      'queue',
      undefined,
      'medium',
      'critical',
      'medium',
    ],
    ['raises a queued routing to a higher urgency asked', 'queue', 'urgent', 'medium', 'low', 'urgent'],
    ['never lowers the urgency of a queued routing', 'queue', 'low', 'high', 'low', 'high'],
  ])('%s', (_name, holder, urgency, current, risk, expected) => {
    expect(levelForRequest(holder, { targeted: false, urgency }, current, risk)).toBe(expected);
  });
});

describe('nextOnTimeout', () => {
  it.each<[string, number, EscalationLevel, { did: string; level: EscalationLevel } | undefined]>([
    [
      'moves from the first line to the next level of the chain, one escalation level up',
      1,
      'low',
      { did: 'did:x:senior', level: 'medium' },
    ],
    ['moves from the second level to the third', 2, 'medium', { did: 'did:x:chief', level: 'high' }],
    ['finds nobody above the top of the chain', 3, 'high', undefined],
  ])('%s', (_name, chainLevel, level, expected) => {
    const moved = nextOnTimeout(team, diagnosis, { ...first, chain_level: chainLevel }, level);
    expect(moved && { did: moved.next.did, level: moved.level }).toEqual(expected);
  });
});

describe('nextQueueLevel', () => {
  it.each<[string, EscalationLevel, EscalationLevel | undefined]>([
    ['raises a queued routing from low to medium', 'low', 'medium'],
    ['raises a queued routing from high to urgent', 'high', 'urgent'],
    ['expires a queued routing whose urgent level timed out', 'urgent', undefined],
  ])('%s', (_name, level, expected) => {
    expect(nextQueueLevel(level)).toBe(expected);
  });
});

describe('adminAssignment', () => {
  const needs = [
    { capability_id: 'cardiology', min_weight: 0.8 },
    { capability_id: 'diagnosis', min_weight: 0.5 },
  ];
  it.each<[string, Record<string, number>, string[], boolean]>([
    [
      'records a fully qualified reviewer as qualified',
      { cardiology: 0.9, diagnosis: 0.6 },
      ['cardiology', 'diagnosis'],
      true,
    ],
    ['lists only the capabilities held at their weight', { cardiology: 0.7, diagnosis: 0.6 }, ['diagnosis'], false],
    ['accepts a reviewer holding none of them, as the admin chose', { general_review: 1 }, [], false],
  ])('%s', (_name, capabilities, held, qualified) => {
    const result = adminAssignment({ did: 'did:x:lead', capabilities, chain_level: 2 }, needs);
    expect(result.assignment.capabilities_matched.map((match) => match.capability_id)).toEqual(held);
    expect(result).toMatchObject({ assignment: { did: 'did:x:lead', chain_level: 2 }, qualified });
  });
});

describe('queuedFor', () => {
  it('tells the agent which capability is missing and that a human takes over when one is available', () => {
    const queued = queuedFor([{ capability_id: 'cardiology', min_weight: 0.8 }]);
    expect(queued).toMatchObject({
      reason: 'no_qualified_reviewer',
      required_capabilities: [{ capability_id: 'cardiology', min_weight: 0.8 }],
    });
    expect(queued.message).toContain('cardiology ≥ 0.8');
    expect(queued.message).toContain('a human takes over as soon as one is available');
  });
});

describe('suggestedReviewers', () => {
  it.each<[string, string | undefined, string[]]>([
    ['lists the qualified reviewers by load', undefined, ['did:x:first', 'did:x:senior', 'did:x:chief']],
    ['puts the reviewer holding the task first, once', 'did:x:senior', ['did:x:senior', 'did:x:first', 'did:x:chief']],
  ])('%s', (_name, holder, expected) => {
    expect(suggestedReviewers(holder, team, diagnosis)).toEqual(expected);
  });
});

describe('holderAfterDecision', () => {
  const decision = (
    changes: Partial<Parameters<typeof holderAfterDecision>[0]>,
  ): Parameters<typeof holderAfterDecision>[0] => ({
    human: false,
    assigned: true,
    routing_mode: 'ai_first',
    response_seconds: 0,
    window_seconds: 3600,
    review_seconds: 0,
    ...changes,
  });
  it.each<[string, Parameters<typeof holderAfterDecision>[0], ReturnType<typeof holderAfterDecision>]>([
    [
      'gives a human decision to the reviewer for their level’s timeout',
      decision({ human: true, routing_mode: 'escalation', response_seconds: 900, review_seconds: 604_800 }),
      { holder: 'human', seconds: 900 },
    ],
    [
      'queues a human decision nobody qualifies for, for the level’s timeout',
      decision({ human: true, assigned: false, response_seconds: 900 }),
      { holder: 'queue', seconds: 900 },
    ],
    [
      'keeps an autonomous escalation-mode routing open to the agent for its window',
      decision({ routing_mode: 'escalation', review_seconds: 604_800 }),
      { holder: 'agent', seconds: 3600 },
    ],
    [
      'keeps an autonomous ai_first routing open to a supervisor’s review for the review window',
      decision({ review_seconds: 604_800 }),
      { holder: 'review', seconds: 604_800 },
    ],
    [
      'closes an autonomous ai_first routing at once without a review window',
      decision({}),
      { holder: 'none', seconds: 3600 },
    ],
    [
      'closes an autonomous escalation-mode routing at once without either window',
      decision({ routing_mode: 'escalation', window_seconds: 0 }),
      { holder: 'none', seconds: 0 },
    ],
  ])('%s', (_name, facts, expected) => {
    expect(holderAfterDecision(facts)).toEqual(expected);
  });
});

describe('afterAgentWindow', () => {
  it.each<[string, number, number, ReturnType<typeof afterAgentWindow>]>([
    [
      'opens the rest of a longer review window to a supervisor',
      86_400,
      604_800,
      { holder: 'review', seconds: 604_800 },
    ],
    ['closes when the review window is no longer than the agent’s', 86_400, 86_400, { holder: 'none' }],
    ['closes without a review window', 86_400, 0, { holder: 'none' }],
  ])('%s', (_name, window, review, expected) => {
    expect(afterAgentWindow(window, review)).toEqual(expected);
  });
});

describe('mayReopenForReview', () => {
  it.each([
    ['lets a supervisor reopen a routing under review', 'human' as const, true],
    ['refuses the agent once its own window has ended', 'ai_agent' as const, false],
  ])('%s', (_name, type, expected) => {
    expect(mayReopenForReview({ type })).toBe(expected);
  });
});

describe('describeDuration', () => {
  it.each([
    [604_800, '7 days'],
    [86_400, '1 day'],
    [7200, '2 hours'],
    [5400, '90 minutes'],
    [1, '1 second'],
    [61, '61 seconds'],
    [0, '0 seconds'],
  ])('says %i seconds as %s', (seconds, text) => {
    expect(describeDuration(seconds)).toBe(text);
  });
});

describe('supervisorNotifications', () => {
  const pending = [
    { rule_id: 'r-medium', notification_threshold: 'medium' as const },
    { rule_id: 'r-urgent', notification_threshold: 'urgent' as const },
  ];
  it.each<[string, EscalationLevel, string[], string[], string[]]>([
    ['tells nobody below every threshold', 'low', [], [], []],
    ['tells a rule’s supervisor when the level reaches its threshold', 'high', [], ['r-medium'], ['r-medium']],
    ['tells each rule’s supervisor once', 'urgent', ['r-medium'], ['r-urgent'], ['r-medium', 'r-urgent']],
    ['tells nobody while no human is involved', 'none', [], [], []],
  ])('%s', (_name, level, notified, told, after) => {
    const result = supervisorNotifications('rt_1', pending, level, notified);
    expect(result.events.map((event) => event.data.rule_id)).toEqual(told);
    expect(
      result.events.every(
        (event) => event.event === 'escalation.supervisor_notified' && event.data.escalation_level === level,
      ),
    ).toBe(true);
    expect(result.notified).toEqual(after);
  });
});

describe('requesterActor', () => {
  it.each([
    [
      'records an agent with its id',
      { type: 'ai_agent' as const, did: 'did:a', agent_id: 'urn:a' },
      { type: 'ai_agent', did: 'did:a', agent_id: 'urn:a' },
    ],
    ['records a human by DID alone', { type: 'human' as const, did: 'did:h' }, { type: 'human', did: 'did:h' }],
  ])('%s', (_name, requestedBy, expected) => {
    expect(requesterActor(requestedBy)).toEqual(expected);
  });
});

describe('resolutionRefusal', () => {
  const held = {
    routing_id: 'rt_1',
    status: 'in_progress',
    assigned_to: { type: 'human' },
    escalation_chain: [{ did: 'did:x:first' }, { did: 'did:x:second' }],
  };

  it('lets any reviewer on the chain resolve a routing a human holds', () => {
    expect(resolutionRefusal(held, 'did:x:first')).toBeUndefined();
    expect(resolutionRefusal(held, 'did:x:second')).toBeUndefined();
  });

  it('refuses a reviewer who is not on the chain', () => {
    expect(resolutionRefusal(held, 'did:x:stranger')).toMatchObject({ code: 'reviewer_not_assigned' });
  });

  it('refuses while no human holds it: resolved, queued, or with the agent', () => {
    expect(resolutionRefusal({ ...held, status: 'completed' }, 'did:x:first')).toMatchObject({
      code: 'routing_not_awaiting_review',
    });
    expect(resolutionRefusal({ ...held, status: 'queued', assigned_to: null }, 'did:x:first')).toMatchObject({
      code: 'routing_not_awaiting_review',
    });
    expect(resolutionRefusal({ ...held, assigned_to: { type: 'ai_agent' } }, 'did:x:first')).toMatchObject({
      code: 'routing_not_awaiting_review',
    });
  });
});
