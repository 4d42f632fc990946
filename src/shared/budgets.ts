/*
 * Budgets: how much a turn or a session may spend before it pauses at a gate and asks the person whether to go on. Per
 * turn: model calls (the settings' `maxIterations`), tool calls and minutes of work; per session: tokens (input and
 * output) and cost. Every one can be off (null). A budget of 0 is refused: it would stop every turn before its first
 * step.
 */

import { z } from 'zod';

export const budgetKinds = ['model_calls', 'tool_calls', 'wall_time', 'session_tokens', 'session_cost'] as const;
export const budgetKindSchema = z.enum(budgetKinds);
export type BudgetKind = z.infer<typeof budgetKindSchema>;

/** The budgets that count within one turn; the others count over the whole session. */
export const turnBudgets: ReadonlySet<BudgetKind> = new Set(['model_calls', 'tool_calls', 'wall_time']);

/** Why 0 is refused, naming the budget: it would stop every turn (or every turn of the session) before its first step. */
const zeroRefused = (name: string, least: string): string =>
  `${name} cannot be 0: it would stop the agent before its first step. Turn it off instead, or set at least ${least}.`;

/** A whole-number budget: off (null) or at least 1. */
const countBudget = (name: string, maximum: number) =>
  z.number().int(`${name} is a whole number.`).min(1, zeroRefused(name, '1')).max(maximum, `${name} is at most ${maximum}.`).nullable();

export const budgetSettingsSchema = z.object({
  /** Tool calls per turn. */
  toolCalls: countBudget('The tool-call budget', 10_000),
  /** Minutes the agent works in one turn; time waiting at a gate is not counted. */
  wallMinutes: countBudget('The working-time budget', 24 * 60),
  /** Input and output tokens of every model call of the session. */
  sessionTokens: countBudget('The token budget', 1_000_000_000),
  /** US dollars spent on model calls in the session: only priced (cloud) models count. */
  sessionCostUsd: z
    .number()
    .min(0.01, zeroRefused('The cost budget', '$0.01'))
    .max(100_000, 'The cost budget is at most $100,000.')
    .nullable(),
});
export type BudgetSettings = z.infer<typeof budgetSettingsSchema>;

/** Off by default: the model-call budget (25 a turn) is the one every turn has unless the person changes it. */
export const defaultBudgetSettings: BudgetSettings = { toolCalls: null, wallMinutes: null, sessionTokens: null, sessionCostUsd: null };

/** A change of some budgets, as `settings:update` takes it; what is left out stays as it is. */
export const budgetSettingsChangeSchema = budgetSettingsSchema.partial().strict();

/** The model-call budget as `settings:update` takes it, with the same message for 0 as the others. */
export const modelCallsBudgetSchema = countBudget('The model-call budget', 1000);

/** What "Continue" adds to a budget, from the figure reached: enough to get on, small enough to be asked again soon. */
export const budgetSteps: Readonly<Record<BudgetKind, number>> = {
  model_calls: 10,
  tool_calls: 25,
  wall_time: 10 * 60_000,
  session_tokens: 100_000,
  session_cost: 1,
};

/** Figures as the journal and the gate carry them: counts, milliseconds of work, tokens, or US dollars. */
export const budgetFigureSchema = z.number().nonnegative().max(1e15);

/** The person's answer at a budget gate. */
export const budgetAnswerSchema = z.enum(['continue', 'stop']);
export type BudgetAnswer = z.infer<typeof budgetAnswerSchema>;

/** The session budgets raised at their gates: what the session may spend now, above the settings' limit. */
export const sessionAllowanceSchema = z.object({ tokens: budgetFigureSchema.optional(), costUsd: budgetFigureSchema.optional() });
export type SessionAllowance = z.infer<typeof sessionAllowanceSchema>;

const budgetNames: Readonly<Record<BudgetKind, string>> = {
  model_calls: 'model calls in this turn',
  tool_calls: 'tool calls in this turn',
  wall_time: 'working time in this turn',
  session_tokens: 'tokens in this session',
  session_cost: 'cost of this session',
};

/** The budget named for the person. */
export const budgetName = (budget: BudgetKind): string => budgetNames[budget];

/** A figure of a budget written for the person: 12, 4 min 30 s, 120,000 tokens, $1.25. */
export function formatBudgetFigure(budget: BudgetKind, figure: number): string {
  switch (budget) {
    case 'model_calls':
    case 'tool_calls':
      return String(Math.round(figure));
    case 'wall_time': {
      const seconds = Math.round(figure / 1000);
      const minutes = Math.floor(seconds / 60);
      return minutes === 0 ? `${seconds} s` : seconds % 60 === 0 ? `${minutes} min` : `${minutes} min ${seconds % 60} s`;
    }
    case 'session_tokens':
      return `${Math.round(figure).toLocaleString('en-US')} tokens`;
    case 'session_cost':
      return `$${figure.toFixed(2)}`;
  }
}
