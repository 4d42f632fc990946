/*
 * One turn's loop: a switch over its states, and the only place that waits for the person.
 */
import { checkAfterTurn } from './after-turn-check';
import { BugError, WorkbenchError, toErrorInfo } from '../../../shared/errors';
import { decideCalls, takeApproval, takePlanAnswer } from './approvals';
import { waitAtGate, waitAtPlan } from './gate-deadline';
import { runCompaction } from './compaction-step';
import { waitAtBudget } from './budget-gate';
import { BudgetTally } from '../rules/budget-tally';
import { prepareModelRequest } from './model-prepare';
import { settleResponse } from './model-settle';
import { streamResponse } from './model-stream';
import { TurnWriter } from './step-writer';
import { takeReview } from './result-review';
import { runNextCalls } from './tool-runner';
import { freshProgress, type Advance, type LoopState, type TurnProgress } from './loop-state';
import type { StepContext, TurnServices, TurnSetup } from './step-context';

/**
 * The turn's first state and progress. A new turn begins at the model with nothing done; a resumed one where it stood
 * when the app stopped, after settling what the stop left open (see `resume-point.ts`).
 */
export type TurnStart = (context: StepContext) => Advance;

const atTheModel: TurnStart = () => ({ next: { kind: 'model' }, progress: freshProgress });

/**
 * One turn: model, tools, model again, until a final answer, a Stop or an error; a budget reached
 * waits at a gate for the person. The loop is one switch over its states; waiting for the person at a plan or a gate is one
 * of them, awaited here and nowhere else. Every step is journalled before it is announced or acted on.
 */
export class Turn {
  private readonly context: StepContext;
  private readonly writer: TurnWriter;
  private readonly budget: BudgetTally;
  /** What the turn has done that decides its next steps: set here only, from what the steps return. */
  private progress: TurnProgress = freshProgress;
  /** Whether the folder's own tools were made ready (see `readyFolder`). */
  private folderReady = false;

  constructor(
    setup: TurnSetup,
    services: TurnServices,
    private readonly controller: AbortController,
    private readonly start: TurnStart = atTheModel,
    /** The tools named by the calls a resumed turn finds open: its start looks them up. */
    private readonly openCallTools: readonly string[] = [],
  ) {
    this.writer = new TurnWriter(setup, services, controller, () => this.progress.iterations);
    this.budget = new BudgetTally(services.clock, setup.sessionAllowance);
    this.context = { setup, services, writer: this.writer, budget: this.budget, progress: () => this.progress };
  }

  async run(): Promise<void> {
    const { context, writer } = this;
    const signal = this.controller.signal;
    let next: LoopState;
    const advance = (step: Advance): LoopState => {
      this.progress = step.progress;
      return step.next;
    };
    try {
      // The person's question is saved before anything else happens.
      if (writer.hasUnsaved) writer.checkpoint('input');
      // A resumed turn may go on at calls to the folder's own tools (a gate it waited at, calls not yet decided): the
      // start looks them up, so when one is not known yet the folder's servers are ready first (the gates take answers
      // meanwhile, see `Recovery`). Stopped meanwhile, it ends as cancelled.
      if (this.mayNeedFolderTools()) await this.readyFolder();
      next = signal.aborted ? { kind: 'finish', status: 'cancelled' } : advance(this.start(context));
    } catch (error) {
      next = { kind: 'finish', status: 'failed', error: toErrorInfo(error) };
    }
    for (;;) {
      try {
        // A response cut short by Stop is still settled: what it cost is accounted and what was shown is kept.
        if (signal.aborted && next.kind !== 'finish' && next.kind !== 'settle') next = { kind: 'finish', status: 'cancelled' };
        switch (next.kind) {
          case 'model':
            if (!this.folderReady) {
              await this.readyFolder();
              // Stopped meanwhile: the turn ends as cancelled, at the top of the loop.
              if (signal.aborted) break;
            }
            next = advance(await prepareModelRequest(context, this.progress));
            break;
          case 'stream':
            next = await streamResponse(context, next);
            break;
          case 'settle':
            next = advance(await settleResponse(context, next, this.progress));
            break;
          case 'compact':
            next = advance(await runCompaction(context, next, this.progress));
            break;
          case 'decide':
            next = decideCalls(context, next.calls, next.purpose);
            break;
          case 'plan': {
            const state = next;
            next = takePlanAnswer(context, state, await this.waiting(() => waitAtPlan(context, state, signal)));
            break;
          }
          case 'execute':
            next = await runNextCalls(context, next);
            break;
          case 'approval': {
            const state = next;
            next = takeApproval(context, state, await this.waiting(() => waitAtGate(context, state, signal)), false);
            break;
          }
          case 'review': {
            const state = next;
            next = await this.waiting(() => takeReview(context, state));
            break;
          }
          case 'budget': {
            const state = next;
            next = await this.waiting(() => waitAtBudget(context, state));
            break;
          }
          case 'finish':
            // A turn that ends as it should, having changed files, is checked first when the person asked for that.
            if (next.status === 'completed' && !signal.aborted) await checkAfterTurn(context, this.writer.changedPaths);
            this.finish(next);
            return;
          default: {
            const unhandled: never = next;
            throw new BugError(`Unknown step ${JSON.stringify(unhandled)}`);
          }
        }
      } catch (error) {
        const cancelled = signal.aborted || (error instanceof WorkbenchError && error.code === 'cancelled');
        next = cancelled ? { kind: 'finish', status: 'cancelled' } : { kind: 'finish', status: 'failed', error: toErrorInfo(error) };
      }
    }
  }

  /**
   * Before the turn first asks the model, or a resumed turn first looks at its open calls, the folder's own MCP servers,
   * when it may have them, are started (or found running as its files say), so their tools are in the request and its
   * calls find them.
   */
  private async readyFolder(): Promise<void> {
    this.folderReady = true;
    const { services, setup } = this.context;
    if (services.workspaceTools && setup.workspacePath !== null)
      await services.workspaceTools.prepare(setup.workspacePath, this.controller.signal);
  }

  /** Whether a call the turn finds open names a tool not known yet, which the folder's own servers may bring. */
  private mayNeedFolderTools(): boolean {
    const { services, setup } = this.context;
    if (services.workspaceTools === undefined || setup.workspacePath === null) return false;
    return this.openCallTools.some((name) => services.tools.get(name, setup.workspacePath) === undefined);
  }

  /** Waits for the person at a gate: the turn's working time does not run meanwhile. */
  private async waiting<T>(answer: () => Promise<T>): Promise<T> {
    this.budget.pause();
    try {
      return await answer();
    } finally {
      this.budget.resume();
    }
  }

  /** The conversation the turn ended with, as saved at its last checkpoint (null when something was not saved). */
  saved(): ReturnType<TurnWriter['saved']> {
    return this.writer.saved();
  }

  private finish(next: Extract<LoopState, { kind: 'finish' }>): void {
    const { writer } = this;
    const { turnId } = this.context.setup;
    let status: 'completed' | 'completed_with_errors' | 'failed' | 'cancelled' = next.status;
    if (status === 'completed' && writer.failures > 0) status = 'completed_with_errors';
    const error = writer.failure ?? next.error;
    if (writer.failure) status = 'failed';
    try {
      // What the person saw streaming stays part of the conversation, as the journal has it.
      if (next.cutShort) {
        writer.addMessage({ role: 'assistant', content: next.cutShort });
        writer.checkpoint('model');
      }
      const finished =
        status === 'failed' && error
          ? { type: 'run_finished' as const, turnId, status, error }
          : { type: 'run_finished' as const, turnId, status };
      writer.journal([finished, { type: 'status_changed', status }]);
      writer.flush();
    } catch (failure) {
      // What was waiting could not be written (an event that cannot be saved, a full disk): it is dropped and the
      // end is written on its own, so the turn does not stay open. When even that fails (the database is closed),
      // the session row keeps its busy status, the next start marks it interrupted, and nothing committed is lost.
      const message = toErrorInfo(failure).message;
      try {
        writer.dropPending();
        const error = { code: 'internal' as const, message: `Part of this turn could not be saved: ${message}` };
        this.context.services.journal.append(this.context.setup.sessionId, [
          { type: 'run_finished', turnId, status: 'failed', error },
          { type: 'status_changed', status: 'failed' },
        ]);
      } catch {
        console.error('Could not record the end of a turn:', message);
      }
    } finally {
      writer.close();
    }
  }
}
