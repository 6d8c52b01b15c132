import { MAX_DECISION_WAIT_SECONDS } from '../../services/decisions/waits';
import { z } from './zod';

export const DecisionWaitQuerySchema = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_DECISION_WAIT_SECONDS)
    .optional()
    .openapi({
      description:
        `Seconds to wait for the decision (0–${MAX_DECISION_WAIT_SECONDS}), instead of polling: the answer comes as soon as the state is decided, ` +
        'or when the wait ends with the state still undecided. Without it the state is read at once.',
      example: 30,
      // Tells clients and tools that a valid wait holds the answer back on purpose, up to the value given.
      param: { 'x-long-poll': true },
    }),
});
