/* The budgets' part of the session view's fold: the gate a turn waits at when one of its budgets is reached. */

import { BugError } from '../errors';
import type { RuntimeEvent } from '../events';
import type { SessionView } from './types';

export type BudgetEvent = Extract<RuntimeEvent, { type: 'budget_reached' | 'budget_answered' }>;

/** The view after a budget is reached, or its gate answered. */
export function applyBudgetEvent(view: SessionView, event: BudgetEvent): SessionView {
  switch (event.type) {
    case 'budget_reached': {
      const { gateId, turnId, budget, figure, limit, step } = event;
      return { ...view, pendingBudget: { gateId, turnId, budget, figure, limit, step, unpriced: event.unpriced ?? 0 } };
    }
    case 'budget_answered':
      return view.pendingBudget?.gateId === event.gateId ? { ...view, pendingBudget: null } : view;
    default: {
      const unhandled: never = event;
      throw new BugError(`The budgets' fold has no case for ${JSON.stringify(unhandled)}.`);
    }
  }
}
