/*
 * node-llama-cpp inside the runtime's own process: one model loaded at a time, with the window the app asked for, one
 * context sequence per line of requests (sequence-pool.ts), and one generation at a time.
 *
 * Other generations wait their turn. Tool calls go through the chat wrapper's grammar-constrained function calling, and
 * the prompt is measured before it is sent, so a prompt too large for the window is refused with the figures rather
 * than shifted out of the window unseen.
 */

import { availableParallelism, freemem, totalmem } from 'node:os';
import {
  LlamaLogLevel,
  getLlama,
  resolveChatWrapper,
  type ChatModelFunctions,
  type ChatWrapper,
  type Llama,
  type LlamaModel,
} from 'node-llama-cpp';
import type { ErrorInfo } from '../../shared/errors';
import type { MachineInfo } from '../../shared/local-models';
import { ThinkTagSplitters } from '../providers/think-openings';
import type { ContentPiece } from '../providers/think-tags';
import { chatHistory } from './chat-history';
import type { GenerateRequest, RuntimeStreamEvent } from './runtime-protocol';
import { SequencePool } from './sequence-pool';

interface Loaded {
  readonly path: string;
  readonly contextSize: number;
  readonly model: LlamaModel;
  readonly sequences: SequencePool;
  readonly wrapper: ChatWrapper;
}

/** Lines of requests whose prompts are kept at once when the app does not say, memory allowing. */
export const defaultSequences = 4;

/** Room kept for the answer's first tokens: a prompt that leaves less is refused as too large. */
const answerRoom = 64;

export class RuntimeFailure extends Error {
  constructor(readonly info: ErrorInfo) {
    super(info.message);
  }
}

/** What node-llama-cpp said when a file would not load, as the app's error. */
function loadFailure(path: string, error: unknown): ErrorInfo {
  const detail = error instanceof Error ? error.message : String(error);
  if (/ENOENT|no such file/i.test(detail)) return { code: 'not_found', message: `The model file ${path} is not there any more.` };
  if (/memory|VRAM|RAM|too large|alloc/i.test(detail)) {
    return { code: 'model_too_large', message: `This computer has too little free memory for ${path}: ${detail}` };
  }
  return { code: 'model_file_invalid', message: `The built-in runtime could not load ${path}: ${detail}` };
}

export class LlamaRuntime {
  private llama: Llama | null = null;
  private loaded: Loaded | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private threads: number | undefined;
  private maxSequences = defaultSequences;
  /** Reasoning in the text, for chat formats that do not know it as a segment of its own; per model file. */
  private readonly thinkTags = new ThinkTagSplitters();

  /**
   * Loads the binding (the prebuilt one for this machine; never a build from source) and says what the machine has.
   * `sequences`: how many lines of requests keep their evaluated prompt at once, memory allowing.
   */
  async start(options: { readonly gpu?: boolean; readonly threads?: number; readonly sequences?: number } = {}): Promise<MachineInfo> {
    this.threads = options.threads;
    this.maxSequences = Math.max(1, options.sequences ?? defaultSequences);
    this.llama ??= await getLlama({
      gpu: options.gpu === false ? false : 'auto',
      build: 'never',
      progressLogs: false,
      logLevel: LlamaLogLevel.error,
      logger: (level, message) => {
        if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) console.error(`[runtime] ${message.trim()}`);
      },
    });
    return this.machine();
  }

  async machine(): Promise<MachineInfo> {
    const llama = this.binding();
    const gpu = llama.gpu === false ? null : llama.gpu;
    const vram = gpu === null ? null : await llama.getVramState().catch(() => null);
    return {
      totalMemoryBytes: totalmem(),
      freeMemoryBytes: freemem(),
      gpu,
      gpuMemoryBytes: vram ? vram.total : null,
      cpuCores: Math.max(1, availableParallelism()),
    };
  }

  /** Runs one generation after those before it; `emit` hears its events, the last of which is `done` or `error`. */
  generate(request: GenerateRequest, signal: AbortSignal, emit: (event: RuntimeStreamEvent) => void): Promise<void> {
    return this.serial(async () => {
      if (signal.aborted) return emit({ type: 'error', error: { code: 'cancelled', message: 'Stopped.' } });
      try {
        await this.answer(request, signal, emit);
      } catch (error) {
        if (error instanceof RuntimeFailure) return emit({ type: 'error', error: error.info });
        if (signal.aborted) return emit({ type: 'error', error: { code: 'cancelled', message: 'Stopped.' } });
        emit({
          type: 'error',
          error: {
            code: 'runtime_failed',
            message: `The built-in runtime failed: ${error instanceof Error ? error.message : String(error)}`,
          },
        });
      }
    });
  }

  /** The tokens of `text` with the model's own tokenizer. */
  count(modelPath: string, text: string): Promise<number> {
    return this.serial(async () => {
      const model = this.loaded?.path === modelPath ? this.loaded.model : await this.loadModel(modelPath, true);
      try {
        return model.tokenize(text).length;
      } finally {
        if (model !== this.loaded?.model) await model.dispose();
      }
    });
  }

  unload(): Promise<void> {
    return this.serial(() => this.release());
  }

  async close(): Promise<void> {
    await this.unload();
    await this.llama?.dispose();
    this.llama = null;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private binding(): Llama {
    if (!this.llama) throw new RuntimeFailure({ code: 'runtime_failed', message: 'The built-in runtime has not started.' });
    return this.llama;
  }

  private async release(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = null;
    if (!loaded) return;
    await loaded.sequences.dispose();
    await loaded.model.dispose();
  }

  private async loadModel(path: string, vocabOnly = false, signal?: AbortSignal): Promise<LlamaModel> {
    try {
      return await this.binding().loadModel({
        modelPath: path,
        vocabOnly,
        ...(vocabOnly ? {} : { defaultContextFlashAttention: true }),
        ...(signal ? { loadSignal: signal } : {}),
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new RuntimeFailure(loadFailure(path, error));
    }
  }

  private async prepare(path: string, contextSize: number, signal: AbortSignal): Promise<Loaded> {
    if (this.loaded?.path === path && this.loaded.contextSize === contextSize) return this.loaded;
    const keep = this.loaded?.path === path ? this.loaded.model : null;
    if (this.loaded) {
      await this.loaded.sequences.dispose();
      if (!keep) await this.loaded.model.dispose();
      this.loaded = null;
    }
    const model = keep ?? (await this.loadModel(path, false, signal));
    const wrapper = resolveChatWrapper(model);
    let sequences: SequencePool;
    try {
      sequences = await SequencePool.open(
        {
          model,
          contextSize,
          wrapper,
          maxSequences: this.maxSequences,
          ...(this.threads === undefined ? {} : { threads: this.threads }),
        },
        signal,
      );
    } catch (error) {
      await model.dispose();
      if (signal.aborted) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new RuntimeFailure({
        code: 'model_too_large',
        message: `This computer has too little free memory to run ${path} with a window of ${contextSize} tokens: ${detail}`,
      });
    }
    this.loaded = { path, contextSize, model, sequences, wrapper };
    return this.loaded;
  }

  private async answer(request: GenerateRequest, signal: AbortSignal, emit: (event: RuntimeStreamEvent) => void): Promise<void> {
    // A Stop while the model loads stops the loading too.
    const loaded = await this.prepare(request.modelPath, request.contextSize, signal);
    if (signal.aborted) return emit({ type: 'error', error: { code: 'cancelled', message: 'Stopped.' } });
    const history = chatHistory(request.system, request.messages);
    const functions: ChatModelFunctions | undefined =
      request.tools.length === 0
        ? undefined
        : Object.fromEntries(
            // The parameters were made into the grammar's subset of JSON Schema by the app (grammar-schema.ts).
            request.tools.map((tool) => [tool.name, { description: tool.description, params: tool.parameters as never }]),
          );
    const state = loaded.wrapper.generateContextState({
      chatHistory: history,
      ...(functions ? { availableFunctions: functions, documentFunctionParams: true } : {}),
    });
    const prompt = state.contextText.tokenize(loaded.model.tokenizer);
    const promptTokens = prompt.length;
    if (promptTokens + answerRoom > loaded.contextSize) {
      return emit({
        type: 'error',
        error: {
          code: 'model_context_overflow',
          message: `The request is ${promptTokens} tokens and the model runs with a window of ${loaded.contextSize}, with room kept for the answer.`,
        },
        window: loaded.contextSize,
        promptTokens,
      });
    }
    // llama.cpp shifts the context (drops the oldest tokens) when the window's last token is reached: stop short of it.
    const room = loaded.contextSize - promptTokens - 8;
    const maxTokens = Math.min(request.maxTokens ?? room, room);
    const chat = await loaded.sequences.chatFor(request.cacheKey, signal);
    // The beginning of the prompt the sequence holds already, which the chat keeps rather than reads again; at least the
    // last token is read, for the logits of the answer's first.
    const cacheReadTokens = Math.min(chat.sequence.compareContextTokens(prompt).firstDifferentIndex, promptTokens - 1);
    const meter = chat.sequence.tokenMeter.getState();
    const calls = new CallStream(emit);
    // Reasoning that the chat wrapper does not know as a segment of its own stays in the text: it is told apart as the
    // providers tell it. (node-llama-cpp's Jinja wrapper leaves out a `<think>` the template opens the answer with, so
    // whether a model's answers begin inside reasoning is learnt from its answers.)
    const content = this.thinkTags.splitterFor(request.modelPath);
    const said = (pieces: readonly ContentPiece[]): void => {
      for (const piece of pieces) emit({ type: piece.kind === 'text' ? 'text_delta' : 'reasoning_delta', text: piece.text });
    };
    const result = await chat.generateResponse(history, {
      ...(functions ? { functions, documentFunctionParams: true } : {}),
      maxTokens,
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      signal,
      stopOnAbortSignal: true,
      onResponseChunk: (chunk) => {
        if (chunk.text === '') return;
        if (chunk.type === undefined) said(content.push(chunk.text));
        else if (chunk.segmentType === 'thought') emit({ type: 'reasoning_delta', text: chunk.text });
      },
      onFunctionCallParamsChunk: (chunk) => calls.piece(chunk.callIndex, chunk.functionName, chunk.paramsChunk),
    });
    said(content.end());
    const metered = chat.sequence.tokenMeter.diff(meter);
    emit({
      type: 'usage',
      inputTokens: promptTokens,
      outputTokens: Math.max(0, metered.usedOutputTokens),
      cacheReadTokens: Math.max(0, cacheReadTokens),
      meteredInputTokens: metered.usedInputTokens,
    });
    if (result.metadata.stopReason === 'abort') return emit({ type: 'error', error: { code: 'cancelled', message: 'Stopped.' } });
    const made = result.functionCalls ?? [];
    made.forEach((call, index) => calls.ready(index, call.functionName, call.params));
    const stopReason = result.metadata.stopReason;
    emit({
      type: 'done',
      stopReason: made.length > 0 ? 'tool_use' : stopReason === 'maxTokens' ? 'max_tokens' : 'end_turn',
    });
  }
}

/**
 * A tool call's events as its arguments are generated: started at its first piece, the pieces as deltas (whitespace
 * the grammar allows after the object is held back, so the deltas join to the arguments), and ready with the whole.
 */
class CallStream {
  private readonly calls = new Map<number, { id: string; text: string; held: string }>();
  private static next = 0;

  constructor(private readonly emit: (event: RuntimeStreamEvent) => void) {}

  private started(index: number, name: string): { id: string; text: string; held: string } {
    let call = this.calls.get(index);
    if (!call) {
      call = { id: `call_${Date.now().toString(36)}_${(CallStream.next++).toString(36)}`, text: '', held: '' };
      this.calls.set(index, call);
      this.emit({ type: 'tool_call_started', index, id: call.id, name });
    }
    return call;
  }

  piece(index: number, name: string, text: string): void {
    const call = this.started(index, name);
    if (text.trim() === '') {
      if (call.text !== '') call.held += text;
      return;
    }
    const delta = call.held + text;
    call.held = '';
    call.text += delta;
    this.emit({ type: 'tool_call_arguments_delta', index, id: call.id, delta });
  }

  ready(index: number, name: string, params: unknown): void {
    const call = this.started(index, name);
    let text = call.text;
    try {
      JSON.parse(text);
    } catch {
      // Pieces that do not make the arguments (none came, or the grammar's text differs): the parsed value, written out.
      text = JSON.stringify(params ?? {});
    }
    this.emit({ type: 'tool_call_ready', index, id: call.id, name, arguments: text });
  }
}
