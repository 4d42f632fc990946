/*
 * Gives each model its tools by its protocol: native definitions, or text tool calls, which `auto` switches to when the
 * server refuses tools.
 */

import type { ErrorInfo } from '../../shared/errors';
import type { ModelProvider, ModelRequest, ModelStreamEvent, StopReason } from '../agent/ports/model-provider';
import { readBlock, repairMessage, textToolRequest } from './text-tool-protocol';
import { ToolBlockParser, type BlockEvent } from './tool-blocks';

/** How a model's requests carry tools: see `ToolProtocol`; `auto` here means "native until the server refuses". */
export type ProtocolChoice = 'native' | 'text' | 'auto';

export interface ToolProtocolOptions {
  /** The protocol for a model's next request. */
  readonly protocolOf: (model: string) => ProtocolChoice;
  /** A model on `auto` was refused tool definitions by its server: it gets text tool calls from now on. */
  readonly onToolsRefused?: (model: string, reason: string) => void;
  /** Requests to write unreadable blocks again, per response; then the response fails. */
  readonly maxRepairs?: number;
}

/**
 * The server's words that mean "this model or server does not take tool definitions". Only explicit messages count:
 * a bare 400 is as often a malformed or too-large request, and answering it with text tools would hide the real error.
 */
const refusals: readonly RegExp[] = [
  // Ollama: "registry.ollama.ai/library/gemma2:2b does not support tools".
  /does not support tools/i,
  // llama.cpp server started without --jinja (a 500).
  /tools param requires --jinja/i,
  // vLLM started without --enable-auto-tool-choice.
  /tool choice requires --enable-auto-tool-choice/i,
  // Others, in the words most servers use.
  /\btools? (?:use |calling |calls )?(?:is |are )?not supported\b/i,
  /does not support (?:tool|function) call/i,
];

/** Why the server refused tool definitions, or null when the error says something else. */
export function toolsRefused(error: ErrorInfo): string | null {
  if (error.code === 'cancelled' || error.code === 'model_context_overflow') return null;
  return refusals.some((pattern) => pattern.test(error.message)) ? error.message : null;
}

/**
 * A call block being read from the stream. Only its start is kept, until the arguments begin; from there each piece goes
 * out as it comes, so a long block costs no more than its pieces (a growing string read again per piece would be
 * copied whole each time).
 */
interface Draft {
  readonly index: number;
  readonly id: string;
  /** The block so far, until its arguments begin. */
  head: string;
  name: string | null;
  /** The arguments have begun: pieces go out as deltas. */
  streaming: boolean;
  /** Closing braces and space held back, since they may end the block rather than the arguments. */
  withheld: string;
}

/** One response's reading of its blocks. */
interface Reading {
  draft: Draft | null;
  blocks: number;
  calls: number;
  readonly problems: string[];
}

/** Past this, a block whose name has not appeared is not searched again until it closes. */
const nameSearchLimit = 4096;
const namePattern = /"name"\s*:\s*"((?:[^"\\]|\\.){1,200})"/;
const argumentsPattern = /"(?:arguments|parameters)"\s*:\s*/;

/** Where `text` ends without the closing braces and space it ends with, which may close the block rather than the arguments. */
function argumentsEnd(text: string): number {
  let end = text.length;
  for (; end > 0; end -= 1) {
    const code = text.charCodeAt(end - 1);
    // `}`, space, tab, line feed, carriage return.
    if (code !== 125 && code !== 32 && code !== 9 && code !== 10 && code !== 13) break;
  }
  return end;
}

/**
 * Gives a model its tools by the protocol chosen for it. Native: the request passes as it is. Text: the tools go into
 * the system prompt and the calls are read out of the streamed answer (`text-tool-protocol.ts`), so the runtime above
 * sees the same events as for native calls; a block that cannot be read is sent back for repair, at most `maxRepairs`
 * times, then the response fails with a clear error. Auto: native, and on a server's refusal of tool definitions, text.
 */
export class ToolProtocolProvider implements ModelProvider {
  readonly kind: ModelProvider['kind'];
  private readonly maxRepairs: number;

  constructor(
    private readonly inner: ModelProvider,
    private readonly options: ToolProtocolOptions,
  ) {
    this.kind = inner.kind;
    this.maxRepairs = options.maxRepairs ?? 2;
  }

  get window(): ModelProvider['window'] {
    return this.inner.window?.bind(this.inner);
  }

  get countTokens(): ModelProvider['countTokens'] {
    return this.inner.countTokens?.bind(this.inner);
  }

  get concurrency(): ModelProvider['concurrency'] {
    return this.inner.concurrency?.bind(this.inner);
  }

  listModels(signal: AbortSignal): ReturnType<ModelProvider['listModels']> {
    return this.inner.listModels(signal);
  }

  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    if (!request.tools || request.tools.length === 0) return this.inner.stream(request, signal);
    const protocol = this.options.protocolOf(request.model);
    if (protocol === 'text') return this.textStream(request, signal);
    if (protocol === 'auto') return this.autoStream(request, signal);
    return this.inner.stream(request, signal);
  }

  private async *autoStream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    let content = false;
    for await (const event of this.inner.stream(request, signal)) {
      if (event.type === 'error' && !content) {
        const reason = toolsRefused(event.error);
        if (reason !== null) {
          this.options.onToolsRefused?.(request.model, reason);
          yield* this.textStream(request, signal);
          return;
        }
      }
      if (event.type !== 'usage' && event.type !== 'retry_scheduled') content = true;
      yield event;
    }
  }

  private async *textStream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelStreamEvent> {
    let sent = textToolRequest(request);
    let inputTokens = 0;
    let outputTokens = 0;
    /** What the server said of its prompt cache for the first response's prompt, the one the app measured. */
    let cache: { cacheReadTokens?: number; cacheWriteTokens?: number } = {};
    let nextIndex = 0;
    for (let round = 0; ; round += 1) {
      const parser = new ToolBlockParser();
      const reading: Reading = { draft: null, blocks: 0, calls: 0, problems: [] };
      let answer = '';
      let stop: StopReason = 'other';
      let failure: Extract<ModelStreamEvent, { type: 'error' }> | null = null;
      for await (const event of this.inner.stream(sent, signal)) {
        if (event.type === 'text_delta') {
          answer += event.text;
          // Gathered into an array and yielded one by one: a generator delegated to here would cost an await per event.
          for (const found of this.eventsOf(parser.push(event.text), reading, () => nextIndex++)) yield found;
        } else if (event.type === 'usage') {
          // The first response's prompt is the one the app measured; the repairs' answers add to the output.
          if (round === 0) {
            inputTokens = event.inputTokens;
            cache = {
              ...(event.cacheReadTokens === undefined ? {} : { cacheReadTokens: event.cacheReadTokens }),
              ...(event.cacheWriteTokens === undefined ? {} : { cacheWriteTokens: event.cacheWriteTokens }),
            };
          }
          outputTokens += event.outputTokens;
        } else if (event.type === 'done') stop = event.stopReason;
        else if (event.type === 'error') failure = event;
        else yield event;
      }
      const usage: ModelStreamEvent = { type: 'usage', inputTokens, outputTokens, ...cache };
      if (failure) {
        if (inputTokens > 0 || outputTokens > 0) yield usage;
        yield failure;
        return;
      }
      const ended = parser.end();
      for (const found of this.eventsOf(ended, reading, () => nextIndex++)) yield found;
      if (ended.some((event) => event.kind === 'unclosed'))
        reading.problems.push(
          `block ${reading.blocks} was never closed with </tool_call>${stop === 'max_tokens' ? ' (the answer reached its length limit)' : ''}`,
        );
      if (reading.problems.length === 0) {
        yield usage;
        yield { type: 'done', stopReason: reading.calls > 0 && stop !== 'max_tokens' ? 'tool_use' : stop };
        return;
      }
      if (round >= this.maxRepairs) {
        yield usage;
        yield { type: 'error', error: unreadable(reading.problems, round) };
        return;
      }
      yield {
        type: 'retry_scheduled',
        attempt: round + 1,
        delayMs: 0,
        error: {
          code: 'model_bad_response',
          message: `The model wrote a tool call that could not be read (${reading.problems[0]}); it is asked to write it again.`,
          retryable: true,
        },
      };
      sent = {
        ...sent,
        messages: [...sent.messages, { role: 'assistant', content: answer }, { role: 'user', content: repairMessage(reading.problems) }],
      };
    }
  }

  /** The normalized events of what the parser found: answer text, and calls as they are written. */
  private eventsOf(found: readonly BlockEvent[], reading: Reading, nextIndex: () => number): ModelStreamEvent[] {
    const out: ModelStreamEvent[] = [];
    for (const event of found) {
      switch (event.kind) {
        case 'text':
          out.push({ type: 'text_delta', text: event.text });
          break;
        case 'open': {
          reading.blocks += 1;
          const index = nextIndex();
          reading.draft = { index, id: `call_text_${index}`, head: '', name: null, streaming: false, withheld: '' };
          break;
        }
        case 'body':
          if (reading.draft) this.drafted(reading.draft, event.text, out);
          break;
        case 'close': {
          const draft = reading.draft;
          reading.draft = null;
          if (draft) this.closed(draft, event.body, reading, out);
          break;
        }
        case 'unclosed':
        case 'invented':
          reading.draft = null;
          break;
      }
    }
    return out;
  }

  /** More of a block: once its tool's name shows, the call starts, and its arguments go out as they grow. */
  private drafted(draft: Draft, text: string, out: ModelStreamEvent[]): void {
    let piece = text;
    if (!draft.streaming) {
      // A block whose name and arguments have not shown by now is read when it closes.
      if (draft.head.length > nameSearchLimit) return;
      draft.head += text;
      if (draft.name === null) {
        const name = namePattern.exec(draft.head)?.[1];
        if (name === undefined) return;
        draft.name = name;
        out.push({ type: 'tool_call_started', index: draft.index, id: draft.id, name });
      }
      const found = argumentsPattern.exec(draft.head);
      if (!found) return;
      draft.streaming = true;
      piece = draft.head.slice(found.index + found[0].length);
      draft.head = '';
    }
    const combined = draft.withheld + piece;
    const end = argumentsEnd(combined);
    if (end > 0) out.push({ type: 'tool_call_arguments_delta', index: draft.index, id: draft.id, delta: combined.slice(0, end) });
    draft.withheld = combined.slice(end);
  }

  private closed(draft: Draft, body: string, reading: Reading, out: ModelStreamEvent[]): void {
    const read = readBlock(body);
    if (!read.ok) {
      reading.problems.push(`block ${reading.blocks}: ${read.problem}`);
      return;
    }
    reading.calls += 1;
    if (draft.name === null) out.push({ type: 'tool_call_started', index: draft.index, id: draft.id, name: read.name });
    out.push({ type: 'tool_call_ready', index: draft.index, id: draft.id, name: read.name, arguments: read.arguments });
  }
}

function unreadable(problems: readonly string[], repairs: number): ErrorInfo {
  return {
    code: 'model_bad_response',
    message: `The model wrote tool calls that could not be read, ${repairs === 0 ? 'and no repair was allowed' : `also after ${repairs} ${repairs === 1 ? 'request' : 'requests'} to write them again`}: ${problems.join('; ')}. A model with native tool calls, or a larger one, may do better.`,
    retryable: false,
  };
}
