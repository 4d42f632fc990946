/*
 * The built-in runtime ("This computer") as a model provider: a process started by the first request and ended when
 * idle.
 */

import { defaultContextWindow, type ModelInfo } from '../../shared/domain';
import { WorkbenchError, type ErrorInfo } from '../../shared/errors';
import type { LocalModel, LocalModels, MachineInfo } from '../../shared/local-models';
import type { ModelProvider, ModelRequest, ModelStreamEvent, ModelWindow } from '../agent/ports/model-provider';
import { grammarSchema, withoutOptionalNulls } from './grammar-schema';
import {
  runtimeReplySchema,
  type GenerateRequest,
  type RuntimeChannel,
  type RuntimeLauncher,
  type RuntimeReply,
  type RuntimeRequest,
  type RuntimeStreamEvent,
} from './runtime-protocol';

export interface LocalRuntimeOptions {
  /** Starts the runtime's process; called again after the process ends. */
  readonly launch: RuntimeLauncher;
  readonly models: LocalModels;
  /** The window a model runs with when the request names none: this, or the trained window when smaller. */
  readonly defaultWindow?: number;
  /** The temperature when the request names none (the servers' usual default). */
  readonly defaultTemperature?: number;
  /** The process ends after this long with nothing to do, and gives the model's memory back; 10 minutes by default. */
  readonly idleMs?: number;
}

type Pending = (reply: RuntimeReply) => void;

/** A queue of events fed by one callback and read by one `for await`. */
class EventQueue {
  private readonly items: ModelStreamEvent[] = [];
  private wake: (() => void) | null = null;
  private ended = false;

  push(event: ModelStreamEvent): void {
    if (this.ended) return;
    this.items.push(event);
    if (event.type === 'done' || event.type === 'error') this.ended = true;
    this.wake?.();
  }

  async *drain(): AsyncIterable<ModelStreamEvent> {
    for (;;) {
      const event = this.items.shift();
      if (event) {
        yield event;
        if (event.type === 'done' || event.type === 'error') return;
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }
}

const stopped: ErrorInfo = { code: 'cancelled', message: 'Stopped.' };

/**
 * "This computer": models run by node-llama-cpp in a process of the app's own, behind the same provider interface as
 * the servers. The process starts with the first request, loads the model the request names with the window the app
 * chose, and ends when it has been idle a while. It is the one runtime whose window the app sets exactly. A stop is
 * answered at once; the process stops computing at its next token.
 */
export class LocalRuntimeProvider implements ModelProvider {
  readonly kind = 'local' as const;
  private channel: RuntimeChannel | null = null;
  private machineInfo: Promise<MachineInfo> | null = null;
  private readyMachine: { resolve: (machine: MachineInfo) => void; reject: (error: Error) => void } | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | null = null;
  private disposed = false;

  constructor(private readonly options: LocalRuntimeOptions) {}

  /** The window `model` runs with when a request does not say: the default, or the trained window when smaller. */
  windowOf(model: LocalModel): number {
    const chosen = this.options.defaultWindow ?? defaultContextWindow;
    return model.trainedContext === null ? chosen : Math.min(chosen, model.trainedContext);
  }

  listModels(): Promise<ModelInfo[]> {
    return Promise.resolve(
      this.options.models
        .list()
        .map((model) => ({ id: model.id, ...(model.trainedContext ? { contextLength: model.trainedContext } : {}) })),
    );
  }

  window(model: string): Promise<ModelWindow | null> {
    const found = this.options.models.get(model);
    if (!found) return Promise.resolve(null);
    return Promise.resolve({
      loaded: this.windowOf(found),
      trained: found.trainedContext,
      source: `the built-in runtime loads it with this window${found.trainedContext ? `; the model was trained for ${found.trainedContext}` : ''}`,
    });
  }

  takesImages(): Promise<boolean> {
    return Promise.resolve(false);
  }

  async countTokens(model: string, text: string, signal: AbortSignal): Promise<number> {
    const found = this.model(model);
    const reply = await this.ask({ type: 'count', id: this.nextId++, modelPath: found.path, text }, signal);
    if (reply.type !== 'counted') throw new WorkbenchError('runtime_failed', 'The built-in runtime gave no count.');
    return reply.tokens;
  }

  /** What the runtime found about this machine: its memory, and its GPU if node-llama-cpp can use one. */
  machine(): Promise<MachineInfo> {
    this.ensure();
    const info = this.machineInfo ?? Promise.reject(new WorkbenchError('runtime_failed', 'The built-in runtime did not start.'));
    // Started only to ask: the process ends when idle, as after a request.
    void info.then(
      () => this.idleLater(),
      () => undefined,
    );
    return info;
  }

  /** Frees the loaded model's memory, keeping the process. */
  async unload(signal: AbortSignal): Promise<void> {
    if (!this.channel) return;
    await this.ask({ type: 'unload', id: this.nextId++ }, signal);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    let model: LocalModel;
    try {
      model = this.model(request.model);
    } catch (error) {
      yield { type: 'error', error: error instanceof WorkbenchError ? error.toInfo() : { code: 'internal', message: String(error) } };
      return;
    }
    if (signal.aborted) {
      yield { type: 'error', error: stopped };
      return;
    }
    const generate: GenerateRequest = {
      modelPath: model.path,
      contextSize: request.contextWindow ?? this.windowOf(model),
      ...(request.system === undefined ? {} : { system: request.system }),
      messages: request.messages.map((message) => {
        if (message.role === 'user') return { role: 'user', content: message.content };
        if (message.role === 'tool') return message.isError === undefined ? { ...message } : { ...message, isError: message.isError };
        return {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls ? { toolCalls: message.toolCalls.map((call) => ({ ...call })) } : {}),
        };
      }),
      tools: (request.tools ?? []).map((tool) => ({
        name: tool.name,
        description: tool.description,
        parameters: grammarSchema(tool.inputSchema),
      })),
      ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
      temperature: request.temperature ?? this.options.defaultTemperature ?? 0.7,
      ...(request.cacheKey === undefined || request.cacheKey === '' ? {} : { cacheKey: request.cacheKey }),
    };
    const id = this.nextId++;
    const queue = new EventQueue();
    let channel: RuntimeChannel;
    try {
      channel = this.ensure();
    } catch (error) {
      yield { type: 'error', error: error instanceof WorkbenchError ? error.toInfo() : { code: 'runtime_failed', message: String(error) } };
      return;
    }
    this.pending.set(id, (reply) => {
      if (reply.type === 'events') for (const event of reply.events) queue.push(streamEvent(event, request));
      else if (reply.type === 'failed') queue.push({ type: 'error', error: reply.error });
    });
    const onAbort = (): void => {
      channel.post({ type: 'cancel', id });
      queue.push({ type: 'error', error: stopped });
    };
    signal.addEventListener('abort', onAbort, { once: true });
    channel.post({ type: 'generate', id, request: generate });
    try {
      yield* queue.drain();
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.pending.delete(id);
      this.idleLater();
    }
  }

  /** Ends the process. */
  dispose(): void {
    this.disposed = true;
    this.stop('The built-in runtime was closed.');
  }

  private model(id: string): LocalModel {
    const found = this.options.models.get(id);
    if (!found) {
      throw new WorkbenchError(
        'model_request_rejected',
        `There is no model "${id}" on this computer. Add one in Settings → Models on this computer.`,
      );
    }
    return found;
  }

  private ensure(): RuntimeChannel {
    if (this.disposed) throw new WorkbenchError('runtime_failed', 'The built-in runtime was closed.');
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.channel) return this.channel;
    const channel = this.options.launch();
    this.channel = channel;
    this.machineInfo = new Promise<MachineInfo>((resolve, reject) => (this.readyMachine = { resolve, reject }));
    // Nobody may ask; a process that never starts must not leave an unhandled rejection.
    this.machineInfo.catch(() => undefined);
    channel.onMessage((raw) => this.receive(channel, raw));
    channel.onExit((detail) => {
      if (this.channel !== channel) return;
      this.channel = null;
      this.readyMachine?.reject(new WorkbenchError('runtime_failed', `The built-in runtime stopped (${detail}).`));
      this.failAll({ code: 'runtime_failed', message: `The built-in runtime stopped (${detail}).` });
    });
    return channel;
  }

  private receive(channel: RuntimeChannel, raw: unknown): void {
    if (channel !== this.channel) return;
    const parsed = runtimeReplySchema.safeParse(raw);
    if (!parsed.success) {
      // A process that says what it may not is not trusted with the next request either.
      this.stop(`The built-in runtime sent a message it may not: ${parsed.error.message}`);
      return;
    }
    const reply = parsed.data;
    if (reply.type === 'ready') {
      this.readyMachine?.resolve(reply.machine);
      return;
    }
    this.pending.get(reply.id)?.(reply);
  }

  private ask(request: RuntimeRequest, signal: AbortSignal): Promise<RuntimeReply> {
    const channel = this.ensure();
    return new Promise<RuntimeReply>((resolve, reject) => {
      const end = (): void => {
        this.pending.delete(request.id);
        signal.removeEventListener('abort', onAbort);
        this.idleLater();
      };
      const onAbort = (): void => {
        end();
        reject(new WorkbenchError('cancelled', 'Stopped.'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(request.id, (reply) => {
        end();
        if (reply.type === 'failed') reject(new WorkbenchError(reply.error.code, reply.error.message));
        else resolve(reply);
      });
      channel.post(request);
    });
  }

  private idleLater(): void {
    if (this.pending.size > 0 || !this.channel || this.disposed) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) this.stop('idle');
    }, this.options.idleMs ?? 600_000);
    this.idleTimer.unref();
  }

  private stop(why: string): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    const channel = this.channel;
    this.channel = null;
    channel?.kill();
    this.readyMachine?.reject(new WorkbenchError('runtime_failed', why));
    this.failAll({ code: 'runtime_failed', message: why });
  }

  private failAll(error: ErrorInfo): void {
    for (const [id, pending] of [...this.pending]) pending({ type: 'failed', id, error });
    this.pending.clear();
  }
}

/** A runtime event as the provider streams it: usage in the port's terms, a call's arguments fitted to its schema. */
function streamEvent(event: RuntimeStreamEvent, request: ModelRequest): ModelStreamEvent {
  if (event.type === 'tool_call_ready') return withSchemaArguments(event, request);
  if (event.type !== 'usage') return event;
  // The meter's figure stays between the app and its runtime; the port's usage says what the cache saved as cacheReadTokens.
  return { type: 'usage', inputTokens: event.inputTokens, outputTokens: event.outputTokens, cacheReadTokens: event.cacheReadTokens };
}

/** A call's arguments without the nulls the grammar let the model write for optional properties (see grammar-schema.ts). */
function withSchemaArguments<T extends { name: string; arguments: string }>(event: T, request: ModelRequest): T {
  const tool = request.tools?.find((candidate) => candidate.name === event.name);
  if (!tool) return event;
  try {
    return { ...event, arguments: JSON.stringify(withoutOptionalNulls(JSON.parse(event.arguments), tool.inputSchema)) };
  } catch {
    return event;
  }
}
