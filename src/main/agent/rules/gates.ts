/*
 * Where the person's answers meet the turns that wait for them: one gate per approval, plan, budget or held
 * result.
 */
import { BoundedMap } from '../../../shared/bounded-map';
import type { ApprovalDecision } from '../../../shared/domain';
import { BugError, CancelledError, NotFoundError, WorkbenchError } from '../../../shared/errors';
import type { ResultReviewDecision } from '../../../shared/guardrails';
import type { BudgetAnswer } from '../../../shared/budgets';

/**
 * The person's answer at a call's gate. `trustEscalation`: with a timed or session decision at a gate whose call asks
 * for more than the sandbox, the grant covers that escalation too; without it such a gate's call is allowed once.
 */
export type ApprovalAnswer = {
  readonly decision: ApprovalDecision;
  readonly reason?: string;
  readonly trustEscalation?: boolean;
  /** With a timed or session decision: the grant covers the tool on any path in this folder (one the gate offered). */
  readonly folder?: string;
  /** The person's own version of the call's editable field (see `Tool.editableField`), run in place of the model's. */
  readonly content?: string;
  /** No answer came before the gate's deadline: the app gave this one, as the setting said. */
  readonly timedOut?: true;
};
export type PlanAnswer = {
  readonly answer: 'approve' | 'reject' | 'refine';
  readonly text?: string;
  /** No answer came before the plan gate's deadline: the app rejected it, as the setting said. */
  readonly timedOut?: true;
};
/** The person's answer to a flagged result held for review. */
export type ReviewAnswer = { readonly decision: ResultReviewDecision };

/** The person's answer at a budget gate: go on with more, or stop the turn. */
export type BudgetGateAnswer = { readonly answer: BudgetAnswer };

type GateKind = 'approval' | 'plan' | 'review' | 'budget';
type AnswerOf<K extends GateKind> = K extends 'approval'
  ? ApprovalAnswer
  : K extends 'plan'
    ? PlanAnswer
    : K extends 'review'
      ? ReviewAnswer
      : BudgetGateAnswer;
type AnyAnswer = ApprovalAnswer | PlanAnswer | ReviewAnswer | BudgetGateAnswer;
const gateNames: Readonly<Record<GateKind, { name: string; what: string }>> = {
  approval: { name: 'approval', what: 'Approval' },
  plan: { name: 'plan', what: 'Plan' },
  review: { name: 'held result', what: 'Held result' },
  budget: { name: 'budget gate', what: 'Budget gate' },
};

interface OpenGate {
  readonly kind: GateKind;
  readonly sessionId: string;
  /**
   * An approval whose call's content the person may change before approving: why a version of theirs could not run
   * (the tool's own words), or null when it can. Absent for a call whose content cannot be changed.
   */
  editable: ((content: string) => string | null) | null;
  answer: AnyAnswer | null;
  waiter: { resolve: (answer: AnyAnswer) => void; reject: (error: Error) => void } | null;
}

/** How many answered gates are remembered, so a second answer is told it came too late. */
const rememberedAnswers = 500;

/**
 * Where the person's answers meet the turns that wait for them. A turn opens a gate as one of its
 * loop's states and awaits it in the loop; a gate takes its answer from the moment it is open,
 * whether the loop waits already or not, so a gate opened again after a restart takes an answer
 * given before its turn got back there. An answer to an unknown or answered gate is refused with a
 * typed error and changes nothing.
 */
export class Gates {
  private readonly open = new Map<string, OpenGate>();
  private readonly answered = new BoundedMap<string, GateKind>({ max: rememberedAnswers });
  /** Gates whose time ran out, so an answer after that is told so. */
  private readonly timedOut = new BoundedMap<string, true>({ max: rememberedAnswers });

  /**
   * Opens a gate: from now on it takes one answer. Opened again (by its turn, after a restart opened it before the turn
   * was back there), it keeps the answer it took, and its call's content may be changed from then on.
   */
  openGate(id: string, kind: GateKind, sessionId: string, editable: ((content: string) => string | null) | null = null): void {
    const open = this.open.get(id);
    if (!open) this.open.set(id, { kind, sessionId, editable, answer: null, waiter: null });
    else if (editable !== null) open.editable = editable;
  }

  /** The gate's answer, once given. Stop rejects with `CancelledError` and closes the gate. */
  wait<K extends GateKind>(id: string, kind: K, signal: AbortSignal): Promise<AnswerOf<K>> {
    const gate = this.open.get(id);
    if (gate?.kind !== kind) return Promise.reject(new BugError(`No ${kind} gate ${id} is open.`));
    if (gate.answer) {
      this.close(id);
      return Promise.resolve(gate.answer as AnswerOf<K>);
    }
    return new Promise<AnswerOf<K>>((resolve, reject) => {
      if (signal.aborted) {
        this.open.delete(id);
        reject(new CancelledError());
        return;
      }
      const onAbort = (): void => {
        if (this.open.get(id) !== gate) return;
        this.open.delete(id);
        reject(new CancelledError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      gate.waiter = {
        resolve: (answer) => {
          signal.removeEventListener('abort', onAbort);
          resolve(answer as AnswerOf<K>);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
    });
  }

  /** Checks an answer can be taken, without taking it. */
  assertPending(id: string, kind: GateKind): { sessionId: string; editable: ((content: string) => string | null) | null } {
    const gate = this.open.get(id);
    if (!gate || gate.answer) {
      if (this.answered.has(id) || gate?.answer) {
        if (this.timedOut.has(id))
          throw new WorkbenchError(
            'already_answered',
            `This ${gateNames[kind].name} timed out before your answer: it was answered as the setting says.`,
          );
        throw new WorkbenchError('already_answered', `This ${gateNames[kind].name} was already answered.`);
      }
      throw new NotFoundError(gateNames[kind].what, id);
    }
    if (gate.kind !== kind) throw new WorkbenchError('invalid_input', `${id} is a ${gate.kind}, not a ${kind}.`);
    return { sessionId: gate.sessionId, editable: gate.editable };
  }

  answer<K extends GateKind>(id: string, kind: K, answer: AnswerOf<K>): void {
    this.assertPending(id, kind);
    const gate = this.open.get(id) as OpenGate;
    this.remember(id, kind);
    if (gate.waiter) {
      this.close(id);
      gate.waiter.resolve(answer);
    } else {
      gate.answer = answer;
    }
  }

  /**
   * Answers a gate whose time ran out, unless the person answered first: whichever comes first is the answer, and the
   * other is told the gate was answered. Returns whether this answer was taken.
   */
  expire<K extends GateKind>(id: string, kind: K, answer: AnswerOf<K>): boolean {
    const gate = this.open.get(id);
    if (!gate || gate.answer || gate.kind !== kind) return false;
    this.timedOut.set(id, true);
    this.answer(id, kind, answer);
    return true;
  }

  /** A session's turn ended: the gates it left open close. */
  closeSession(sessionId: string): void {
    for (const [id, gate] of this.open) {
      if (gate.sessionId !== sessionId) continue;
      this.open.delete(id);
      gate.waiter?.reject(new CancelledError());
    }
  }

  private close(id: string): void {
    this.open.delete(id);
  }

  private remember(id: string, kind: GateKind): void {
    this.answered.set(id, kind);
  }
}
