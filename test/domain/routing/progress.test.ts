import { routingProgress } from '../../../domain/routing/progress';

describe('routingProgress', () => {
  it.each([
    ['pending', undefined, { steps_completed: 0, steps_total: 4, current_step: 'capability_assessment' }],
    ['completed', 'ai_autonomous', { steps_completed: 4, steps_total: 4, current_step: 'completed' }],
    ['in_progress', 'escalate_to_human', { steps_completed: 5, steps_total: 6, current_step: 'human_review' }],
    ['completed', 'hybrid_collaboration', { steps_completed: 6, steps_total: 6, current_step: 'completed' }],
    ['expired', 'escalate_to_human', { steps_completed: 5, steps_total: 6, current_step: 'expired' }],
    ['queued', 'escalate_to_human', { steps_completed: 4, steps_total: 6, current_step: 'assignment' }],
  ] as const)('%s after %s', (status, decision, expected) => {
    expect(routingProgress(status, decision)).toEqual(expected);
  });
});
