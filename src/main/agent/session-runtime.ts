import { busyStatuses, type ApprovalDecision, type ModelChoice } from '../../shared/domain';
import { NotFoundError, WorkbenchError } from '../../shared/errors';
import type { RuntimeEvent } from '../../shared/events';
import type { AccountingStore } from './accounting';
import type { Clock } from './clock';
import { checkpointHead, conversationFromJournal } from './conversation';
import type { CheckpointStore } from './checkpoints';
import { Gates } from './gates';
import { newId as defaultNewId } from './ids';
import type { ProviderResolver, RuntimeListener } from './ports';
import type { SessionStore } from './stores';
import type { ToolRegistry } from './tools';
import type { TrustStore } from './trust';
import { Turn, type TurnSetup } from './turn';

/** Limits a turn reads when it starts; they are settings. */
export interface RuntimeLimits {
  readonly planThreshold: number;
  readonly maxIterations: number;
  readonly deniedTools: readonly string[];
}

export interface SessionRuntimeOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  readonly tools: ToolRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  readonly clock: Clock;
  readonly listener: RuntimeListener;
  readonly limits: () => RuntimeLimits;
  /** How long streamed pieces are gathered before one journal write and one message out. */
  readonly frameMs?: number;
  readonly newId?: () => string;
  readonly systemPrompt?: string;
}

interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  readonly finished: Promise<void>;
}

const defaultSystemPrompt =
  'You are a careful assistant working with a person on a folder of their own. Use the tools when they help, explain what you do, and answer in Markdown.';

export type SendResult = { readonly turnId: string; readonly queued: false } | { readonly turnId: null; readonly queued: true };

/**
 * Sessions' turns: starts them, queues one message while a turn runs, routes answers to the gates
 * a turn waits at, and stops turns. Every turn ends in a terminal status, whatever happens.
 */
export class SessionRuntime {
  readonly gates = new Gates();
  private readonly active = new Map<string, ActiveTurn>();
  private readonly queue = new Map<string, string>();
  private readonly frameMs: number;
  private readonly newId: () => string;

  constructor(private readonly options: SessionRuntimeOptions) {
    this.frameMs = options.frameMs ?? 16;
    this.newId = options.newId ?? (() => defaultNewId(options.clock.now()));
  }

  isBusy(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /** Whether any session has a turn running. */
  anyBusy(): boolean {
    return this.active.size > 0;
  }

  queued(sessionId: string): string | null {
    return this.queue.get(sessionId) ?? null;
  }

  /** Marks sessions that were busy when the app last stopped as `interrupted`. */
  recoverInterrupted(): string[] {
    const recovered: string[] = [];
    for (const session of this.options.store.list()) {
      if (busyStatuses.has(session.status) && !this.active.has(session.id)) {
        this.record(session.id, [{ type: 'status_changed', status: 'interrupted' }]);
        recovered.push(session.id);
      }
    }
    return recovered;
  }

  /**
   * Starts a turn, or queues the message when one is running (a newer message replaces the queued
   * one). Everything is checked before anything is written, so a refused send changes nothing.
   */
  send(sessionId: string, text: string): SendResult {
    const session = this.options.store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (this.active.has(sessionId)) {
      const replaced = this.queue.has(sessionId);
      this.record(sessionId, [{ type: 'message_queued', text, replaced }]);
      this.queue.set(sessionId, text);
      return { turnId: null, queued: true };
    }
    return { turnId: this.start(sessionId, text), queued: false };
  }

  clearQueue(sessionId: string): boolean {
    if (!this.options.store.get(sessionId)) throw new NotFoundError('Session', sessionId);
    if (!this.queue.has(sessionId)) return false;
    this.record(sessionId, [{ type: 'queue_cleared', reason: 'cleared' }]);
    this.queue.delete(sessionId);
    return true;
  }

  answerApproval(approvalId: string, decision: ApprovalDecision, reason?: string): void {
    this.gates.assertApprovalPending(approvalId);
    this.gates.answerApproval(approvalId, reason === undefined ? { decision } : { decision, reason });
  }

  answerPlan(planId: string, answer: 'approve' | 'reject' | 'refine', text?: string): void {
    if (answer === 'refine' && !text?.trim()) throw new WorkbenchError('invalid_input', 'Say what should change in the plan.');
    this.gates.assertPlanPending(planId);
    this.gates.answerPlan(planId, text === undefined ? { answer } : { answer, text });
  }

  /** Stops the running turn; resolves once it has ended and its state is saved. */
  async cancel(sessionId: string): Promise<boolean> {
    const turn = this.active.get(sessionId);
    if (!turn) return false;
    turn.controller.abort(new WorkbenchError('cancelled', 'Stopped by the user.'));
    await turn.finished;
    return true;
  }

  /** Resolves when the session has no running turn and nothing queued. */
  async whenIdle(sessionId: string): Promise<void> {
    for (let turn = this.active.get(sessionId); turn; turn = this.active.get(sessionId)) await turn.finished;
  }

  async dispose(): Promise<void> {
    this.queue.clear();
    const turns = [...this.active.values()];
    for (const turn of turns) turn.controller.abort(new WorkbenchError('cancelled', 'The app is closing.'));
    await Promise.all(turns.map((turn) => turn.finished));
  }

  private start(sessionId: string, text: string): string {
    const { store, providers } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    const choice: ModelChoice | null = session.model ?? providers.defaultModel();
    if (!choice) throw new WorkbenchError('no_model', 'Choose a model for this session first.');
    const provider = providers.resolve(choice);
    const endpoint = providers.describe(choice);
    const limits = this.options.limits();
    const journal = store.journal(sessionId);
    const turnId = this.newId();
    const setup: TurnSetup = {
      sessionId,
      turnId,
      autonomy: session.autonomy,
      workspacePath: session.workspacePath,
      choice,
      endpoint,
      provider,
      system: this.options.systemPrompt ?? defaultSystemPrompt,
      history: conversationFromJournal(journal),
      checkpointHead: checkpointHead(journal),
      userText: text,
      ...limits,
    };
    this.record(sessionId, [
      { type: 'user_message', turnId, messageId: this.newId(), text },
      { type: 'run_started', turnId, model: choice, providerKind: provider.kind },
      { type: 'status_changed', status: 'planning' },
    ]);
    const controller = new AbortController();
    const turn = new Turn(setup, { ...this.options, gates: this.gates, frameMs: this.frameMs, newId: this.newId, record: (events, writes) => this.record(sessionId, events, writes) }, controller);
    const finished = turn.run().finally(() => {
      this.active.delete(sessionId);
      this.startQueued(sessionId);
    });
    this.active.set(sessionId, { turnId, controller, finished });
    return turnId;
  }

  /** A queued message runs as soon as the turn before it ends. */
  private startQueued(sessionId: string): void {
    const text = this.queue.get(sessionId);
    if (text === undefined) return;
    this.queue.delete(sessionId);
    try {
      this.record(sessionId, [{ type: 'queue_cleared', reason: 'started' }]);
      this.start(sessionId, text);
    } catch (error) {
      console.error('Could not start the queued message:', error instanceof Error ? error.message : String(error));
    }
  }

  /** Journals events (with any other writes, in the same transaction), then announces them. */
  private record(sessionId: string, events: RuntimeEvent[], writes?: () => void): void {
    const { store, listener, clock } = this.options;
    const entries = writes
      ? store.transaction(() => {
          const appended = store.append(sessionId, events, clock.now());
          writes();
          return appended;
        })
      : store.append(sessionId, events, clock.now());
    listener.onEntries(sessionId, entries);
    if (events.some((event) => event.type === 'status_changed')) {
      const session = store.get(sessionId);
      if (session) listener.onSessionChanged({ session });
    }
  }
}
