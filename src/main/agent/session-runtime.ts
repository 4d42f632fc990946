import { busyStatuses, type ModelChoice } from '../../shared/domain';
import { NotFoundError, WorkbenchError, toErrorInfo, type ErrorInfo } from '../../shared/errors';
import type { RuntimeEvent } from '../../shared/events';
import { emptySessionView, reduceSessionView, type SessionView } from '../../shared/session-view';
import type { Clock } from './clock';
import { DeltaCoalescer } from './delta-coalescer';
import { newId as defaultNewId } from './ids';
import type { ChatMessage, ModelProvider, ModelRequest } from './model-provider';
import type { ProviderResolver, RuntimeListener } from './ports';
import type { SessionStore } from './stores';

export interface SessionRuntimeOptions {
  readonly store: SessionStore;
  readonly providers: ProviderResolver;
  readonly clock: Clock;
  readonly listener: RuntimeListener;
  /** How long streamed deltas are gathered before one journal write and one message out. */
  readonly frameMs?: number;
  readonly newId?: () => string;
  readonly systemPrompt?: string;
}

interface ActiveTurn {
  readonly turnId: string;
  readonly controller: AbortController;
  readonly finished: Promise<void>;
}

type Outcome = { status: 'completed' } | { status: 'failed'; error: ErrorInfo } | { status: 'cancelled' };

const defaultSystemPrompt = 'You are a careful assistant working with a person on a folder of their own. Answer in Markdown.';

/** Builds the conversation to send from what the person saw: finished messages, and partial text that was cut short. */
export function conversationFromView(view: SessionView): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of view.messages) {
    if (message.role === 'user') messages.push({ role: 'user', content: message.text });
    else if (message.text.length > 0) messages.push({ role: 'assistant', content: message.text });
  }
  return messages;
}

/**
 * Runs turns: journals each step before announcing it, streams the model's answer in per-frame
 * batches, and ends every turn in a terminal status, whatever the model or the person does.
 */
export class SessionRuntime {
  private readonly active = new Map<string, ActiveTurn>();
  private readonly frameMs: number;
  private readonly newId: () => string;

  constructor(private readonly options: SessionRuntimeOptions) {
    this.frameMs = options.frameMs ?? 16;
    this.newId = options.newId ?? (() => defaultNewId(options.clock.now()));
  }

  isBusy(sessionId: string): boolean {
    return this.active.has(sessionId);
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

  /** Starts a turn. Everything is checked before anything is written, so a refused send changes nothing. */
  send(sessionId: string, text: string): { turnId: string } {
    const { store, providers } = this.options;
    const session = store.get(sessionId);
    if (!session) throw new NotFoundError('Session', sessionId);
    if (this.active.has(sessionId)) throw new WorkbenchError('session_busy', 'This session is still working. Stop it or wait for it to finish.');
    const choice: ModelChoice | null = session.model ?? providers.defaultModel();
    if (!choice) throw new WorkbenchError('no_model', 'Choose a model for this session first.');
    const provider = providers.resolve(choice);

    const history = conversationFromView(reduceSessionView(emptySessionView, store.journal(sessionId)));
    const turnId = this.newId();
    const request: ModelRequest = {
      model: choice.model,
      system: this.options.systemPrompt ?? defaultSystemPrompt,
      messages: [...history, { role: 'user', content: text }],
    };
    this.record(sessionId, [
      { type: 'user_message', turnId, messageId: this.newId(), text },
      { type: 'run_started', turnId, model: choice, providerKind: provider.kind },
      { type: 'status_changed', status: 'planning' },
    ]);
    const controller = new AbortController();
    const finished = this.runTurn(sessionId, turnId, provider, request, controller).finally(() => {
      this.active.delete(sessionId);
    });
    this.active.set(sessionId, { turnId, controller, finished });
    return { turnId };
  }

  /** Stops the running turn; resolves once it has ended and its state is saved. */
  async cancel(sessionId: string): Promise<boolean> {
    const turn = this.active.get(sessionId);
    if (!turn) return false;
    turn.controller.abort(new WorkbenchError('cancelled', 'Stopped by the user.'));
    await turn.finished;
    return true;
  }

  /** Resolves when the session has no running turn. */
  async whenIdle(sessionId: string): Promise<void> {
    await this.active.get(sessionId)?.finished;
  }

  async dispose(): Promise<void> {
    const turns = [...this.active.values()];
    for (const turn of turns) turn.controller.abort(new WorkbenchError('cancelled', 'The app is closing.'));
    await Promise.all(turns.map((turn) => turn.finished));
  }

  private async runTurn(sessionId: string, turnId: string, provider: ModelProvider, request: ModelRequest, controller: AbortController): Promise<void> {
    const { clock } = this.options;
    const signal = controller.signal;
    let storeFailure: ErrorInfo | null = null;
    const coalescer = new DeltaCoalescer();
    const messageId = this.newId();
    const startedAt = clock.now();
    let messageStarted = false;
    let attempts = 1;
    let usage = { inputTokens: 0, outputTokens: 0 };
    let outcome: Outcome = { status: 'failed', error: { code: 'model_bad_response', message: 'The model stream ended without finishing.' } };
    let timer: ReturnType<typeof setTimeout> | null = null;

    const flush = (): void => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (!coalescer.isEmpty) this.record(sessionId, coalescer.take());
    };
    const addDelta = (type: 'text_delta' | 'reasoning_delta', text: string): void => {
      if (!messageStarted) {
        messageStarted = true;
        this.record(sessionId, [{ type: 'assistant_message_started', turnId, messageId }]);
      }
      coalescer.add({ type, turnId, messageId, text });
      timer ??= setTimeout(() => {
        try {
          flush();
        } catch (error) {
          // A journal write failed: stop the turn rather than show what was not saved.
          storeFailure = toErrorInfo(error);
          controller.abort(storeFailure);
        }
      }, this.frameMs);
    };

    try {
      for await (const event of provider.stream(request, signal)) {
        switch (event.type) {
          case 'text_delta':
          case 'reasoning_delta':
            if (event.text.length > 0) addDelta(event.type, event.text);
            break;
          case 'usage':
            usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
            break;
          case 'retry_scheduled':
            flush();
            attempts = event.attempt + 1;
            this.record(sessionId, [{ type: 'model_retry_scheduled', turnId, attempt: event.attempt, delayMs: event.delayMs, error: event.error }]);
            break;
          case 'done':
            outcome = { status: 'completed' };
            break;
          case 'error':
            outcome = event.error.code === 'cancelled' ? { status: 'cancelled' } : { status: 'failed', error: event.error };
            break;
          case 'tool_call_started':
          case 'tool_call_arguments_delta':
          case 'tool_call_ready':
            // No tools are offered to the model yet, so a tool call is not acted on.
            break;
          default: {
            const unhandled: never = event;
            throw new WorkbenchError('internal', `Unhandled model event ${JSON.stringify(unhandled)}`);
          }
        }
      }
    } catch (error) {
      outcome = { status: 'failed', error: toErrorInfo(error) };
    }
    if (storeFailure !== null) outcome = { status: 'failed', error: storeFailure };
    else if (signal.aborted) outcome = { status: 'cancelled' };

    try {
      flush();
      const closing: RuntimeEvent[] = [];
      if (messageStarted || usage.inputTokens > 0 || usage.outputTokens > 0) {
        closing.push({ type: 'model_call_finished', turnId, messageId, ...usage, latencyMs: clock.now() - startedAt, attempts });
      }
      closing.push(
        outcome.status === 'failed'
          ? { type: 'run_finished', turnId, status: 'failed', error: outcome.error }
          : { type: 'run_finished', turnId, status: outcome.status },
        { type: 'status_changed', status: outcome.status },
      );
      this.record(sessionId, closing);
    } catch (error) {
      // The journal could not be written (disk full, database closed). The session row keeps its busy
      // status, so the next start marks it interrupted; nothing committed is lost.
      console.error('Could not record the end of a turn:', toErrorInfo(error).message);
    }
  }

  private record(sessionId: string, events: RuntimeEvent[]): void {
    const { store, listener, clock } = this.options;
    const entries = store.append(sessionId, events, clock.now());
    listener.onEntries(sessionId, entries);
    if (events.some((event) => event.type === 'status_changed')) {
      const session = store.get(sessionId);
      if (session) listener.onSessionChanged({ session });
    }
  }
}
