/*
 * The budget gate: a turn paused at a budget it reached, with the figure and the limit, Continue for one more step,
 * and Stop.
 */

import { budgetName, formatBudgetFigure } from '../../../shared/budgets';
import type { ViewBudgetGate } from '../../../shared/session-view';
import { unpricedWords } from '../chrome/figures';
import { useAltKeys } from './alt-keys';
import type { AppStore } from '../store';

/**
 * A budget the turn reached, docked where approvals are: which budget, the figure and the limit, and the two answers.
 * Alt+C goes on with the gate's step more (counted from the figure reached), Alt+X stops the turn.
 */
export function BudgetGatePanel({ store, gate }: { store: AppStore; gate: ViewBudgetGate }) {
  const answer = (choice: 'continue' | 'stop'): void => {
    void store.attempt(() => store.call('budget:answer', { gateId: gate.gateId, answer: choice }));
  };
  useAltKeys({ c: () => answer('continue'), x: () => answer('stop') }, gate.gateId);
  // Counts say what they count; time, tokens and dollars say it themselves.
  const unit = gate.budget === 'model_calls' ? ' model calls' : gate.budget === 'tool_calls' ? ' tool calls' : '';
  const step = `${formatBudgetFigure(gate.budget, gate.step)}${unit}`;
  return (
    <section className="gate gate-budget" role="region" aria-label="Budget reached" data-region="gate">
      <header className="row">
        <strong>Budget reached: {budgetName(gate.budget)}</strong>
        <span className="muted small">The agent is paused; nothing runs until you answer.</span>
      </header>
      <p className="gate-summary" aria-label="Budget figures">
        {formatBudgetFigure(gate.budget, gate.figure)} of {formatBudgetFigure(gate.budget, gate.limit)} used.
        {gate.unpriced > 0 && ` ${unpricedWords(gate.unpriced)} not counted: the session cost at least this.`}
      </p>
      <div className="row">
        <button type="button" className="primary" aria-keyshortcuts="Alt+C" title="Continue (Alt+C)" onClick={() => answer('continue')}>
          Continue with +{step}
        </button>
        <button type="button" aria-keyshortcuts="Alt+X" title="Stop the turn (Alt+X)" onClick={() => answer('stop')}>
          Stop
        </button>
        <span className="muted small">Continue allows {step} more from here; Settings sets the budget itself.</span>
      </div>
    </section>
  );
}
