import type { ApprovalDecision } from '../../shared/domain';
import { CancelledError, NotFoundError, WorkbenchError } from '../../shared/errors';

export type ApprovalAnswer = { readonly decision: ApprovalDecision; readonly reason?: string };
export type PlanAnswer = { readonly answer: 'approve' | 'reject' | 'refine'; readonly text?: string };

type Pending =
  | {
      readonly kind: 'approval';
      readonly sessionId: string;
      readonly resolve: (answer: ApprovalAnswer) => void;
      readonly reject: (error: Error) => void;
    }
  | {
      readonly kind: 'plan';
      readonly sessionId: string;
      readonly resolve: (answer: PlanAnswer) => void;
      readonly reject: (error: Error) => void;
    };

/**
 * Where a turn waits for the person. Waiting is a state of the turn, not an exception: the turn
 * awaits the promise, and Stop rejects it. An answer to an unknown or already answered gate is
 * refused with a typed error and changes nothing.
 */
export class Gates {
  private readonly pending = new Map<string, Pending>();
  private readonly answered = new Set<string>();
  /** Gates a resumed turn will open again (id to session), and answers given before it got there. */
  private readonly expected = new Map<string, string>();
  private readonly early = new Map<string, ApprovalAnswer>();

  /**
   * A gate that was open when the app stopped opens again once its resumed turn gets there; an
   * answer given meanwhile is kept for it.
   */
  expectApproval(id: string, sessionId: string): void {
    this.expected.set(id, sessionId);
  }

  /** A session's turn ended: gates it was expected to open again will not open. */
  forgetSession(sessionId: string): void {
    for (const [id, owner] of this.expected) {
      if (owner !== sessionId) continue;
      this.expected.delete(id);
      this.early.delete(id);
    }
  }

  waitForApproval(id: string, sessionId: string, signal: AbortSignal): Promise<ApprovalAnswer> {
    const early = this.early.get(id);
    this.expected.delete(id);
    if (early) {
      this.early.delete(id);
      this.answered.add(id);
      return Promise.resolve(early);
    }
    return this.wait(id, signal, (resolve, reject) => ({ kind: 'approval', sessionId, resolve, reject }));
  }

  waitForPlan(id: string, sessionId: string, signal: AbortSignal): Promise<PlanAnswer> {
    return this.wait(id, signal, (resolve, reject) => ({ kind: 'plan', sessionId, resolve, reject }));
  }

  /** Checks an approval answer can be taken, without taking it. */
  assertApprovalPending(id: string): { sessionId: string } {
    const sessionId = this.expected.get(id);
    if (sessionId !== undefined && !this.early.has(id)) return { sessionId };
    return this.find(id, 'approval');
  }

  assertPlanPending(id: string): { sessionId: string } {
    return this.find(id, 'plan');
  }

  answerApproval(id: string, answer: ApprovalAnswer): void {
    if (!this.pending.has(id) && this.expected.has(id) && !this.early.has(id)) {
      this.early.set(id, answer);
      return;
    }
    const pending = this.find(id, 'approval');
    this.settle(id);
    (pending as Extract<Pending, { kind: 'approval' }>).resolve(answer);
  }

  answerPlan(id: string, answer: PlanAnswer): void {
    const pending = this.find(id, 'plan');
    this.settle(id);
    (pending as Extract<Pending, { kind: 'plan' }>).resolve(answer);
  }

  isPending(id: string): boolean {
    return this.pending.has(id);
  }

  private wait<T>(
    id: string,
    signal: AbortSignal,
    make: (resolve: (answer: T) => void, reject: (error: Error) => void) => Pending,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (signal.aborted) {
        reject(new CancelledError());
        return;
      }
      const onAbort = (): void => {
        if (this.pending.delete(id)) reject(new CancelledError());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(
        id,
        make(
          (answer) => {
            signal.removeEventListener('abort', onAbort);
            resolve(answer);
          },
          (error) => {
            signal.removeEventListener('abort', onAbort);
            reject(error);
          },
        ),
      );
    });
  }

  private find(id: string, kind: Pending['kind']): Pending {
    const pending = this.pending.get(id);
    if (!pending) {
      if (this.answered.has(id))
        throw new WorkbenchError('already_answered', `This ${kind === 'plan' ? 'plan' : 'approval'} was already answered.`);
      throw new NotFoundError(kind === 'plan' ? 'Plan' : 'Approval', id);
    }
    if (pending.kind !== kind) throw new WorkbenchError('invalid_input', `${id} is a ${pending.kind}, not a ${kind}.`);
    return pending;
  }

  private settle(id: string): void {
    this.pending.delete(id);
    this.answered.add(id);
  }
}
