/*
 * The IPC channel that answers a budget gate, spread into the contract.
 */

import { z } from 'zod';
import { budgetAnswerSchema } from '../budgets';
import { idSchema } from '../domain';

/** The channel of budget gates, spread into the contract (`channels`). */
export const budgetChannels = {
  /** Answers a budget gate: `continue` gives the budget its step more, counted from the figure reached; `stop` ends the turn. */
  'budget:answer': {
    input: z.object({ gateId: idSchema, answer: budgetAnswerSchema }).strict(),
    output: z.object({ accepted: z.literal(true) }),
  },
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
