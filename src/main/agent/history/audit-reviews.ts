/* The audit's rows of the gates that are not approvals: a result held for review, and a budget reached. */
import type { AuditDecider, AuditRow } from '../../../shared/audit';
import { budgetName, formatBudgetFigure } from '../../../shared/budgets';
import type { RuntimeEvent } from '../../../shared/events';

type Held = Extract<RuntimeEvent, { type: 'tool_result_held' }>;
type Reviewed = Extract<RuntimeEvent, { type: 'tool_result_reviewed' }>;
type Reached = Extract<RuntimeEvent, { type: 'budget_reached' }>;
type BudgetAnswered = Extract<RuntimeEvent, { type: 'budget_answered' }>;

const waiting: AuditDecider = { kind: 'person', id: null, label: 'Waiting for you' };
const person: AuditDecider = { kind: 'person', id: null, label: 'You' };

/** A result held for the person's review: its gate, waiting until `reviewed` answers it. */
export function heldRow(seq: number, at: number, event: Held, summary: string | null): AuditRow {
  return {
    seq,
    at,
    kind: 'result_review',
    turnId: event.turnId,
    toolCallId: event.toolCallId,
    tool: event.tool,
    summary: summary ?? event.tool,
    risk: null,
    reason: 'Its result has signs of a prompt injection, and results of its group are held for review.',
    answer: 'pending',
    answerReason: null,
    decidedBy: waiting,
    decidedAt: null,
    policy: 'flagged result · held group → review',
    grantId: null,
  };
}

/** The person's answer to a held result (or none: the turn was stopped, and it was withheld). */
export function reviewed(row: AuditRow, event: Reviewed, at: number): void {
  Object.assign(row, {
    answer: event.decision,
    answerReason: event.stopped ? 'The turn was stopped while it was held.' : null,
    decidedBy: event.stopped ? { kind: 'person', id: null, label: 'Nobody: withheld when stopped' } : person,
    decidedAt: at,
  });
}

/** A budget reached: the turn waits for Continue or Stop. */
export function budgetRow(seq: number, at: number, event: Reached): AuditRow {
  const name = budgetName(event.budget);
  return {
    seq,
    at,
    kind: 'budget',
    turnId: event.turnId,
    toolCallId: null,
    tool: null,
    summary: `${formatBudgetFigure(event.budget, event.figure)} of ${formatBudgetFigure(event.budget, event.limit)} ${name}`,
    risk: null,
    reason: `The budget of ${name} was reached.`,
    answer: 'pending',
    answerReason: null,
    decidedBy: waiting,
    decidedAt: null,
    policy: `budget · ${name} reached → ask`,
    grantId: null,
  };
}

/** The answer at a budget gate: continue (with the new limit) or stop. */
export function budgetAnswered(row: AuditRow, event: BudgetAnswered, at: number): void {
  Object.assign(row, {
    answer: event.answer,
    answerReason:
      event.answer === 'continue' && event.limit !== undefined ? `New limit ${formatBudgetFigure(event.budget, event.limit)}.` : null,
    decidedBy: event.stopped ? { kind: 'person', id: null, label: 'Nobody: the turn was stopped' } : person,
    decidedAt: at,
  });
}
