/*
 * Budgets in the loop, and the gate a turn waits at when one is reached. Before each model request the model-call,
 * session token and cost budgets are checked, before each tool call the tool-call budget, and before both the turn's
 * working time. A budget reached never ends the turn by
 * itself: the turn waits at a gate, journalled, until the person goes on with more or stops.
 */
import { budgetName, budgetSteps, defaultBudgetSettings, type BudgetKind, type SessionAllowance } from '../../../shared/budgets';
import { WorkbenchError } from '../../../shared/errors';
import { sessionFigure, type BudgetLimits, type BudgetReached } from '../rules/budget-tally';
import type { BudgetStanding, SessionHead } from '../ports/session-head';
import type { SessionStore } from '../ports/stores';
import type { LoopState } from './loop-state';
import type { StepContext } from './step-context';

/**
 * The session's budgets as raised at their gates: the newest `budget_answered` of the shown line carries them all. One
 * indexed lookup when a turn starts, so a session's raise outlives the turn and the app without a table of its own.
 */
export function sessionAllowanceOf(store: Pick<SessionStore, 'nearest'>, sessionId: string, head: SessionHead): SessionAllowance {
  const newest = store.nearest(sessionId, 'before', head.lastSeq + 1, ['budget_answered']);
  return newest?.event.type === 'budget_answered' ? (newest.event.session ?? {}) : {};
}

/** The budgets checked before a model request, and before a tool call. */
export const beforeModel: readonly BudgetKind[] = ['wall_time', 'model_calls', 'session_tokens', 'session_cost'];
export const beforeTool: readonly BudgetKind[] = ['wall_time', 'tool_calls'];

type BudgetState = Extract<LoopState, { kind: 'budget' }>;

function limitsOf(context: StepContext): BudgetLimits {
  const settings = context.setup.budgets?.() ?? defaultBudgetSettings;
  return { ...settings, modelCalls: context.setup.maxIterations };
}

/** Where a budget stands now, and for the cost, how many of the session's calls it could not count (they had no price). */
function standingOf(context: StepContext, budget: BudgetKind): { readonly figure: number; readonly unpriced: number } {
  const { setup, services, budget: tally } = context;
  switch (budget) {
    case 'model_calls':
      return { figure: context.progress().iterations, unpriced: 0 };
    case 'tool_calls':
      return { figure: tally.toolCalls, unpriced: 0 };
    case 'wall_time':
      return { figure: tally.worked(), unpriced: 0 };
    case 'session_tokens':
    case 'session_cost':
      return sessionFigure(budget, services.accounting, setup.sessionId);
  }
}

/** Whether checking `budgets` reads figures from the store (the session's totals), which must then hold what was spent. */
export function readsStoredFigures(context: StepContext, budgets: readonly BudgetKind[]): boolean {
  const limits = limitsOf(context);
  return budgets.some(
    (budget) => (budget === 'session_tokens' || budget === 'session_cost') && context.budget.limitOf(budget, limits) !== null,
  );
}

/** The first of `budgets` that is reached, if any. */
export function reachedBudget(context: StepContext, budgets: readonly BudgetKind[]): BudgetReached | null {
  const limits = limitsOf(context);
  for (const budget of budgets) {
    const limit = context.budget.limitOf(budget, limits);
    if (limit === null) continue;
    const { figure, unpriced } = standingOf(context, budget);
    if (figure >= limit) return { budget, figure, limit, ...(unpriced > 0 ? { unpriced } : {}) };
  }
  return null;
}

/** How many more tool calls the turn may start before its gate (the budget is not reached when this is asked). */
export function toolCallsLeft(context: StepContext): number {
  const limit = context.budget.limitOf('tool_calls', limitsOf(context));
  return limit === null ? Number.POSITIVE_INFINITY : Math.max(1, limit - context.budget.toolCalls);
}

/**
 * Opens a budget gate: journalled, shown, and the loop waits there; `then` is where it goes on after "Continue". A gate
 * that was open when the app stopped opens again as it was, with the same id, and the turn's figure as it showed it.
 */
export function openBudgetGate(context: StepContext, reached: BudgetReached, then: LoopState, earlier?: BudgetStanding): LoopState {
  const { setup, services, writer } = context;
  const gateId = earlier?.gateId ?? services.newId();
  const step = earlier?.step ?? budgetSteps[reached.budget];
  // The model calls of a turn resumed at its gate are its progress, rebuilt by the resume (`resumeFrom`).
  if (earlier) {
    if (reached.budget !== 'model_calls') context.budget.restore(reached.budget, reached.figure);
  } else {
    writer.journal([{ type: 'budget_reached', turnId: setup.turnId, gateId, ...reached, step }]);
  }
  if (setup.subAgent && !earlier) {
    // Nobody waits at a sub-agent's budget: it ends there, and its parent is told why.
    const message = `The sub-agent reached its budget (${budgetName(reached.budget)}: ${reached.figure} of ${reached.limit}) and stopped.`;
    writer.flush();
    return { kind: 'finish', status: 'failed', error: { code: 'invalid_state', message } };
  }
  services.gates.openGate(gateId, 'budget', setup.sessionId);
  writer.setStatus('waiting_approval');
  writer.flush();
  return { kind: 'budget', gateId, ...reached, step, then };
}

/** Opens again the budget gate the turn waited at when the app stopped; the loop goes on to `then` after it. */
export function reopenBudgetGate(context: StepContext, standing: BudgetStanding, then: LoopState): LoopState {
  const { budget, figure, limit } = standing;
  return openBudgetGate(context, { budget, figure, limit }, then, standing);
}

/**
 * Waits for the person's answer at a budget gate. "Continue" raises the budget to the figure it stands at now plus the
 * gate's step, and the loop goes on where it stood. "Stop" ends the turn `cancelled`, as the Stop button does: the work
 * was cut short by the person, not finished, and a turn that ended so can be sent on again; `completed_with_errors`
 * would say an answer was given. Stop pressed while waiting does the same, journalled as `stopped`.
 */
export async function waitAtBudget(context: StepContext, state: BudgetState): Promise<LoopState> {
  const { setup, services, writer, budget: tally } = context;
  const base = { type: 'budget_answered' as const, turnId: setup.turnId, gateId: state.gateId, budget: state.budget };
  let answer: 'continue' | 'stop';
  try {
    answer = (await services.gates.wait(state.gateId, 'budget', writer.signal)).answer;
  } catch (error) {
    const cancelled = writer.signal.aborted || (error instanceof WorkbenchError && error.code === 'cancelled');
    if (cancelled) writer.journal([{ ...base, answer: 'stop', stopped: true, session: tally.sessionAllowance }]);
    throw error;
  }
  if (answer === 'stop') {
    writer.journal([{ ...base, answer: 'stop', session: tally.sessionAllowance }]);
    writer.flush();
    return { kind: 'finish', status: 'cancelled' };
  }
  const now = standingOf(context, state.budget).figure;
  const limit = tally.raise(state.budget, Math.max(now, state.figure), state.step);
  writer.journal([{ ...base, answer: 'continue', limit, session: tally.sessionAllowance }]);
  writer.setStatus(state.then.kind === 'model' ? 'planning' : 'executing');
  writer.flush();
  return state.then;
}
