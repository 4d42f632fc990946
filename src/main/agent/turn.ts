import type { Autonomy, ModelChoice, ProviderKind, SessionStatus } from '../../shared/domain';
import { WorkbenchError, toErrorInfo, type ErrorInfo } from '../../shared/errors';
import type { RuntimeEvent } from '../../shared/events';
import type { AccountingStore } from './accounting';
import { costOf } from './accounting';
import type { Clock } from './clock';
import { DeltaCoalescer, type StreamedEvent } from './delta-coalescer';
import type { Gates } from './gates';
import type { ChatMessage, ModelProvider, ModelRequest, ToolCallRequest } from './model-provider';
import type { CheckpointStore } from './checkpoints';
import type { FileHistory } from './ports';
import type { ToolRegistry } from './tools';
import type { TrustStore } from './trust';
import { prepareCall, ToolStep, type PreparedCall, type PriorCall } from './tool-step';

/** Where an interrupted turn picks up: the calls of its last response that have no result yet, and what is known of each. */
export interface ResumePoint {
  readonly calls: readonly ToolCallRequest[];
  readonly prior: ReadonlyMap<string, PriorCall>;
  readonly purpose: string;
  /** The last response was a final answer: there is nothing left to do. */
  readonly answered: boolean;
}

/** Everything fixed for one turn. */
export interface TurnSetup {
  readonly sessionId: string;
  readonly turnId: string;
  readonly autonomy: Autonomy;
  readonly workspacePath: string | null;
  readonly choice: ModelChoice;
  readonly endpoint: { readonly kind: ProviderKind; readonly baseUrl: string };
  readonly provider: ModelProvider;
  readonly system: string;
  readonly history: readonly ChatMessage[];
  /** The person's message; null when the turn answers the last one again (a retry) or resumes. */
  readonly userText: string | null;
  /** Set when the turn continues one the app stopped in the middle of. */
  readonly resume?: ResumePoint;
  /** Messages of `history` not yet in any checkpoint (a session journalled before checkpoints existed). */
  readonly unsavedHistory?: readonly ChatMessage[];
  readonly planThreshold: number;
  readonly maxIterations: number;
  readonly deniedTools: readonly string[];
  /** The session's newest checkpoint: this turn's checkpoints continue its chain. */
  readonly checkpointHead: { readonly checkpointId: string; readonly seq: number } | null;
}

/** What a turn uses from the runtime. */
export interface TurnServices {
  readonly tools: ToolRegistry;
  readonly trust: TrustStore;
  readonly accounting: AccountingStore;
  readonly checkpoints: CheckpointStore;
  /** Saves the workspace's files around every call that may change them, for time travel. */
  readonly files?: FileHistory;
  readonly gates: Gates;
  readonly clock: Clock;
  readonly frameMs: number;
  newId(): string;
  /** Journals events in order (with `writes` in the same transaction), then announces them. */
  record(events: RuntimeEvent[], writes?: () => void): void;
}

/** What happens next: the loop's whole state machine is this union and one switch over it. */
type Next =
  | { readonly kind: 'model' }
  | { readonly kind: 'tools'; readonly calls: readonly PreparedCall[]; readonly purpose: string }
  | { readonly kind: 'finish'; readonly status: 'completed' | 'failed' | 'cancelled'; readonly error?: ErrorInfo };

/**
 * One turn: model, tools, model again, until a final answer, a Stop, an error or the iteration
 * limit. Every step is journalled before it is announced or acted on.
 */
export class Turn {
  private readonly coalescer = new DeltaCoalescer();
  private pending: RuntimeEvent[] = [];
  private pendingWrites: Array<() => void> = [];
  private readonly messages: ChatMessage[];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private storeFailure: ErrorInfo | null = null;
  private status: SessionStatus = 'planning';
  private iterations = 0;
  private toolFailures = 0;
  /** Messages added since the last checkpoint. */
  private unsaved: ChatMessage[] = [];
  private head: { checkpointId: string; seq: number } | null;
  /** Text of a response cut short by Stop or an error: saved with the turn's end. */
  private partialText = '';

  constructor(
    private readonly setup: TurnSetup,
    private readonly services: TurnServices,
    private readonly controller: AbortController,
  ) {
    const question: ChatMessage[] = setup.userText === null ? [] : [{ role: 'user', content: setup.userText }];
    this.messages = [...setup.history, ...question];
    this.unsaved = [...(setup.unsavedHistory ?? []), ...question];
    this.head = setup.checkpointHead;
  }

  /**
   * Saves a checkpoint of the step just taken: the messages it added and where the turn stands.
   * Its event and its row land in the same transaction as the step's other events.
   */
  checkpoint(source: 'input' | 'model' | 'tool' | 'approval'): void {
    const { setup, services } = this;
    const checkpointId = services.newId();
    const parent = this.head;
    const seq = parent ? parent.seq + 1 : 0;
    const appended = this.unsaved;
    this.unsaved = [];
    this.head = { checkpointId, seq };
    this.record([{ type: 'checkpoint_saved', turnId: setup.turnId, checkpointId, parentId: parent?.checkpointId ?? null, seq, source }]);
    const state = { status: this.status, turnId: setup.turnId, iteration: this.iterations };
    this.write(() =>
      services.checkpoints.put(
        parent ? { threadId: setup.sessionId, checkpointId: parent.checkpointId } : null,
        setup.sessionId,
        { appended, state },
        { source, step: seq },
        checkpointId,
      ),
    );
  }

  /**
   * Saves the workspace's files as they are now, as the state at the newest checkpoint. Runs
   * before and after every call that may change files (edit tools, commands, MCP tools alike); a
   * failure to save is reported and does not stop the turn.
   */
  async captureFiles(): Promise<void> {
    const { files, clock } = this.services;
    const { workspacePath, sessionId, turnId } = this.setup;
    if (!files || !workspacePath) return;
    this.commit();
    try {
      const info = await files.capture({ sessionId, workspacePath, id: this.services.newId(), at: clock.now(), kind: 'step' });
      if (info.reused) return;
      this.record([
        {
          type: 'files_snapshotted',
          turnId,
          snapshotId: info.snapshotId,
          checkpointId: this.head?.checkpointId ?? null,
          files: info.files,
          changed: info.changed.slice(0, 500),
          skipped: info.skipped,
        },
      ]);
      this.commit();
    } catch (error) {
      console.error('Could not save the workspace files:', toErrorInfo(error).message);
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  async run(): Promise<void> {
    let next: Next = await this.firstStep();
    for (;;) {
      try {
        if (this.signal.aborted && next.kind !== 'finish') next = { kind: 'finish', status: 'cancelled' };
        switch (next.kind) {
          case 'model':
            next = await this.modelStep();
            break;
          case 'tools':
            next = await new ToolStep(this.setup, this.services, this).run(next.calls, next.purpose);
            break;
          case 'finish':
            this.finish(next);
            return;
          default: {
            const unhandled: never = next;
            throw new WorkbenchError('internal', `Unknown step ${JSON.stringify(unhandled)}`);
          }
        }
      } catch (error) {
        next =
          this.signal.aborted || (error instanceof WorkbenchError && error.code === 'cancelled')
            ? { kind: 'finish', status: 'cancelled' }
            : { kind: 'finish', status: 'failed', error: toErrorInfo(error) };
      }
    }
  }

  private async firstStep(): Promise<Next> {
    const { resume } = this.setup;
    if (!resume) {
      if (this.unsaved.length > 0) this.checkpoint('input');
      return { kind: 'model' };
    }
    if (resume.answered && resume.calls.length === 0) return { kind: 'finish', status: 'completed' };
    if (resume.calls.length === 0) return { kind: 'model' };
    const prepared = resume.calls.map((call) => prepareCall(call, this.services.tools, this.setup.workspacePath));
    await this.addPreviews(prepared);
    return { kind: 'tools', calls: prepared, purpose: resume.purpose };
  }

  private async addPreviews(prepared: readonly PreparedCall[]): Promise<void> {
    const { workspacePath } = this.setup;
    await Promise.all(
      prepared.map(async (call) => {
        if (call.tool && call.invalid === null) call.preview = await call.tool.preview(call.input, { workspacePath });
      }),
    );
  }

  /**
   * Adds events to the turn's write buffer, after any streamed pieces still waiting for their
   * frame. The buffer is journalled in one transaction by `commit`, which runs before every side
   * effect (a model request, a tool, a gate, a grant) and at the end of the turn: each event is
   * still written before what it announces happens, at a fraction of the commits.
   */
  record(events: RuntimeEvent[]): void {
    this.takeStreamed();
    this.pending.push(...events);
  }

  /** Adds a write (accounting) that lands in the same transaction as the next commit. */
  write(work: () => void): void {
    this.pendingWrites.push(work);
  }

  /** Journals and announces everything recorded so far. */
  commit(): void {
    this.takeStreamed();
    if (this.pending.length === 0 && this.pendingWrites.length === 0) return;
    const events = this.pending;
    const writes = this.pendingWrites;
    this.pending = [];
    this.pendingWrites = [];
    this.services.record(events, writes.length === 0 ? undefined : () => writes.forEach((work) => work()));
  }

  setStatus(status: SessionStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.record([{ type: 'status_changed', status }]);
  }

  /** Streams a piece (text, reasoning, tool output): it is journalled and sent with the others of its frame. */
  stream(event: StreamedEvent): void {
    this.coalescer.add(event);
    this.timer ??= setTimeout(() => {
      try {
        this.commit();
      } catch (error) {
        // A journal write failed: stop the turn rather than show what was not saved.
        this.storeFailure = toErrorInfo(error);
        this.controller.abort(this.storeFailure);
      }
    }, this.services.frameMs);
  }

  addToolResult(call: ToolCallRequest, content: string, isError: boolean): void {
    this.pushMessage({ role: 'tool', toolCallId: call.id, content, isError });
  }

  private pushMessage(message: ChatMessage): void {
    this.messages.push(message);
    this.unsaved.push(message);
  }

  noteToolFailure(): void {
    this.toolFailures += 1;
  }

  private takeStreamed(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.coalescer.isEmpty) this.pending.push(...this.coalescer.take());
  }

  private async modelStep(): Promise<Next> {
    const { setup, services } = this;
    if (this.iterations >= setup.maxIterations) {
      return {
        kind: 'finish',
        status: 'failed',
        error: { code: 'iteration_limit', message: `The turn stopped after ${setup.maxIterations} model calls without a final answer.` },
      };
    }
    this.iterations += 1;
    this.setStatus('planning');
    this.commit();
    const messageId = services.newId();
    const startedAt = services.clock.now();
    let started = false;
    const startMessage = (): void => {
      if (started) return;
      started = true;
      this.record([{ type: 'assistant_message_started', turnId: setup.turnId, messageId }]);
    };
    let text = '';
    let attempts = 1;
    let usage = { inputTokens: 0, outputTokens: 0 };
    let outcome: { kind: 'done' } | { kind: 'error'; error: ErrorInfo } = {
      kind: 'error',
      error: { code: 'model_bad_response', message: 'The model stream ended without finishing.' },
    };
    const calls: ToolCallRequest[] = [];
    const request: ModelRequest = {
      model: setup.choice.model,
      system: setup.system,
      messages: this.messages,
      ...(services.tools.list().length > 0 ? { tools: services.tools.specs() } : {}),
    };

    for await (const event of setup.provider.stream(request, this.signal)) {
      switch (event.type) {
        case 'text_delta':
        case 'reasoning_delta':
          if (event.text.length === 0) break;
          startMessage();
          if (event.type === 'text_delta') text += event.text;
          this.stream({ type: event.type, turnId: setup.turnId, messageId, text: event.text });
          break;
        case 'usage':
          usage = { inputTokens: event.inputTokens, outputTokens: event.outputTokens };
          break;
        case 'retry_scheduled':
          attempts = event.attempt + 1;
          this.record([
            { type: 'model_retry_scheduled', turnId: setup.turnId, attempt: event.attempt, delayMs: event.delayMs, error: event.error },
          ]);
          this.commit();
          break;
        case 'tool_call_ready':
          // Servers reuse ids such as call_0 across responses; the runtime gives each call its own.
          calls.push({ id: `call_${services.newId()}`, name: event.name, arguments: event.arguments });
          break;
        case 'tool_call_started':
        case 'tool_call_arguments_delta':
          break;
        case 'done':
          outcome = { kind: 'done' };
          break;
        case 'error':
          outcome = { kind: 'error', error: event.error };
          break;
        default: {
          const unhandled: never = event;
          throw new WorkbenchError('internal', `Unhandled model event ${JSON.stringify(unhandled)}`);
        }
      }
    }
    if (this.storeFailure) return { kind: 'finish', status: 'failed', error: this.storeFailure };
    const cancelled = this.signal.aborted || (outcome.kind === 'error' && outcome.error.code === 'cancelled');
    if (calls.length > 0 && !cancelled && outcome.kind === 'done') startMessage();
    const prepared =
      cancelled || outcome.kind === 'error' ? [] : calls.map((call) => prepareCall(call, services.tools, setup.workspacePath));
    await this.addPreviews(prepared);
    const events: RuntimeEvent[] = prepared.map((call) => ({
      type: 'tool_call_requested',
      turnId: setup.turnId,
      toolCallId: call.request.id,
      messageId,
      tool: call.request.name,
      input: call.rawInput,
      summary: call.summary,
      risk: call.assessment.level,
      riskReason: call.assessment.reason,
      ...(call.preview === null ? {} : { preview: call.preview }),
    }));
    if (started || usage.inputTokens > 0 || usage.outputTokens > 0) {
      const latencyMs = services.clock.now() - startedAt;
      const costUsd = costOf(setup.endpoint.kind, setup.endpoint.baseUrl, setup.choice.model, usage.inputTokens, usage.outputTokens);
      events.push({ type: 'model_call_finished', turnId: setup.turnId, messageId, ...usage, latencyMs, attempts, costUsd });
      this.record(events);
      this.write(() =>
        services.accounting.recordModelCall({
          id: messageId,
          sessionId: setup.sessionId,
          turnId: setup.turnId,
          providerId: setup.choice.providerId,
          providerKind: setup.endpoint.kind,
          model: setup.choice.model,
          ...usage,
          latencyMs,
          costUsd,
          status: cancelled ? 'cancelled' : outcome.kind === 'done' ? 'completed' : 'failed',
          at: services.clock.now(),
        }),
      );
    } else if (events.length > 0) {
      this.record(events);
    }
    if (cancelled || outcome.kind === 'error') this.partialText = text;
    if (cancelled) return { kind: 'finish', status: 'cancelled' };
    if (outcome.kind === 'error') return { kind: 'finish', status: 'failed', error: outcome.error };
    this.pushMessage(calls.length > 0 ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
    this.checkpoint('model');
    if (calls.length === 0) return { kind: 'finish', status: 'completed' };
    return { kind: 'tools', calls: prepared, purpose: text.trim().split('\n')[0]?.slice(0, 300) ?? '' };
  }

  private finish(next: Extract<Next, { kind: 'finish' }>): void {
    const { turnId } = this.setup;
    let status: 'completed' | 'completed_with_errors' | 'failed' | 'cancelled' = next.status;
    if (status === 'completed' && this.toolFailures > 0) status = 'completed_with_errors';
    const error = this.storeFailure ?? next.error;
    if (this.storeFailure) status = 'failed';
    try {
      // What the person saw streaming stays part of the conversation, as the journal has it.
      if (this.partialText.length > 0) {
        this.pushMessage({ role: 'assistant', content: this.partialText });
        this.partialText = '';
        this.checkpoint('model');
      }
      this.record([
        status === 'failed' && error ? { type: 'run_finished', turnId, status, error } : { type: 'run_finished', turnId, status },
        { type: 'status_changed', status },
      ]);
      this.commit();
    } catch (failure) {
      // The journal could not be written (disk full, database closed). The session row keeps its busy
      // status, so the next start marks it interrupted; nothing committed is lost.
      console.error('Could not record the end of a turn:', toErrorInfo(failure).message);
    } finally {
      if (this.timer !== null) clearTimeout(this.timer);
    }
  }
}
