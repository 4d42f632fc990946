/*
 * What a turn has spent of its budgets, the limits raised at their gates, and the session's own figures.
 */
import { turnBudgets, type BudgetKind, type BudgetSettings, type SessionAllowance } from '../../../shared/budgets';
import type { AccountingStore } from '../ports/accounting';
import type { Clock } from '../ports/clock';

/** The budgets a turn checks: the settings' model-call budget (`maxIterations`) with the others; null is off. */
export interface BudgetLimits extends BudgetSettings {
  readonly modelCalls: number | null;
}

/** A budget reached: its figure and the limit it reached, as the gate shows them. */
export interface BudgetReached {
  readonly budget: BudgetKind;
  readonly figure: number;
  readonly limit: number;
  /** The cost budget's figure counts the session's calls with no price as nothing: how many there are, when some. */
  readonly unpriced?: number;
}

/**
 * What one turn has spent of its budgets, and the limits raised at their gates. Working time runs only while the
 * agent works: the loop pauses it at every gate (plan, approval, held result, budget), so a person who takes ten
 * minutes to answer does not use up the turn's time.
 */
export class BudgetTally {
  /** Tool calls started in this turn (a retried call counts once). */
  toolCalls = 0;
  private workedMs = 0;
  private since: number | null;
  /** Per-turn limits raised by "Continue"; they replace the settings' limit for the rest of the turn. */
  private readonly raised = new Map<BudgetKind, number>();
  private session: SessionAllowance;

  constructor(
    private readonly clock: Clock,
    session: SessionAllowance = {},
  ) {
    this.since = clock.now();
    this.session = session;
  }

  /** The session's raised budgets as they stand, carried by every answer (see `budget_answered`). */
  get sessionAllowance(): SessionAllowance {
    return this.session;
  }

  /** Milliseconds the agent has worked in this turn. */
  worked(): number {
    return this.workedMs + (this.since === null ? 0 : this.clock.now() - this.since);
  }

  /** The turn waits for the person: working time stops. */
  pause(): void {
    if (this.since === null) return;
    this.workedMs += this.clock.now() - this.since;
    this.since = null;
  }

  /** The person answered: working time runs again. */
  resume(): void {
    this.since ??= this.clock.now();
  }

  /** Sets a per-turn figure as a gate reopened after a restart says it was (the counts before the stop are not kept otherwise). */
  restore(budget: BudgetKind, figure: number): void {
    if (budget === 'tool_calls') this.toolCalls = Math.max(this.toolCalls, figure);
    if (budget !== 'wall_time') return;
    const running = this.worked() - this.workedMs;
    this.workedMs = Math.max(this.workedMs, figure - running);
  }

  /**
   * The limit that applies now, or null when the budget is off. A per-turn limit raised at its gate replaces the
   * settings' one; a session's raised one counts when it is above the settings' (a limit turned off stays off).
   */
  limitOf(budget: BudgetKind, limits: BudgetLimits): number | null {
    const raised = this.raised.get(budget);
    switch (budget) {
      case 'model_calls':
        return raised ?? limits.modelCalls;
      case 'tool_calls':
        return raised ?? limits.toolCalls;
      case 'wall_time':
        return raised ?? (limits.wallMinutes === null ? null : limits.wallMinutes * 60_000);
      case 'session_tokens':
        return limits.sessionTokens === null ? null : Math.max(limits.sessionTokens, this.session.tokens ?? 0);
      case 'session_cost':
        return limits.sessionCostUsd === null ? null : Math.max(limits.sessionCostUsd, this.session.costUsd ?? 0);
    }
  }

  /**
   * "Continue with +N": the budget's limit becomes the figure reached plus N, counted from now, so the next check
   * does not fire again at once (the figure is at least the one the gate showed). Returns the new limit.
   */
  raise(budget: BudgetKind, figure: number, step: number): number {
    const limit = figure + step;
    if (turnBudgets.has(budget)) this.raised.set(budget, limit);
    else if (budget === 'session_tokens') this.session = { ...this.session, tokens: limit };
    else this.session = { ...this.session, costUsd: limit };
    return limit;
  }
}

/**
 * The session's figure of a session budget: tokens in and out, or the cost of the calls with a price, with how many
 * calls had none (they count as nothing, so the cost is a lower bound, and the budget keeps counting).
 */
export function sessionFigure(
  budget: 'session_tokens' | 'session_cost',
  accounting: AccountingStore,
  sessionId: string,
): { readonly figure: number; readonly unpriced: number } {
  // A session's budgets count the whole tree it belongs to: its sub-agents spend from the same allowance.
  const totals = accounting.totals(sessionId, 'tree');
  return budget === 'session_tokens'
    ? { figure: totals.inputTokens + totals.outputTokens, unpriced: 0 }
    : { figure: totals.pricedCostUsd, unpriced: totals.unpricedCalls };
}
