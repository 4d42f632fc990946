import { cacheUsageFields, type CacheUsage } from './anthropic-cache';
import { anthropicChunksOf, chunksOf, defaultUsage, type AnthropicChunk, type ScriptedTurn } from './script';
import { signatureOf } from './thinking';

/** The wire format of one protocol: a function from the turn to SSE frames, and its error body. */
export interface ProtocolWriter {
  /** The turn's frames; usage reports `promptTokens` (split as the prompt `cache` read it) unless the turn scripts its own. */
  frames(turn: ScriptedTurn, model: string, includeUsage: boolean, promptTokens: number, cache?: CacheUsage): string[];
  errorBody(status: number, message: string): string;
  /** An error event in the stream, with `body` as its data. */
  errorFrame(body: unknown): string;
  malformedFrame(): string;
}

const sse = (data: unknown, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

export const openAIWriter: ProtocolWriter = {
  frames(turn, model, includeUsage, promptTokens) {
    const id = 'chatcmpl-scripted';
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
      sse({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] });
    const frames = [chunk({ role: 'assistant', content: '' })];
    let usedTools = false;
    for (const item of chunksOf(turn)) {
      switch (item.kind) {
        case 'text':
          frames.push(chunk({ content: item.text }));
          break;
        case 'reasoning':
          frames.push(chunk({ reasoning_content: item.text }));
          break;
        case 'tool_start':
          usedTools = true;
          frames.push(
            chunk({ tool_calls: [{ index: item.index, id: item.id, type: 'function', function: { name: item.name, arguments: '' } }] }),
          );
          break;
        case 'tool_arguments':
          frames.push(chunk({ tool_calls: [{ index: item.index, function: { arguments: item.piece } }] }));
          break;
        case 'tool_end':
          break;
      }
    }
    frames.push(chunk({}, turn.stoppedAtLimit ? 'length' : usedTools ? 'tool_calls' : 'stop'));
    if (includeUsage) {
      const usage = defaultUsage(turn, promptTokens);
      frames.push(
        sse({
          id,
          object: 'chat.completion.chunk',
          created,
          model,
          choices: [],
          usage: {
            prompt_tokens: usage.inputTokens,
            completion_tokens: usage.outputTokens,
            total_tokens: usage.inputTokens + usage.outputTokens,
          },
        }),
      );
    }
    frames.push('data: [DONE]\n\n');
    return frames;
  },
  errorBody: (status, message) =>
    JSON.stringify({ error: { message, type: status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null } }),
  errorFrame: (body) => sse(body),
  malformedFrame: () => 'data: {"id": "chatcmpl-scripted", "choices": [ {not json\n\n',
};

export const anthropicWriter: ProtocolWriter = {
  frames(turn, model, _includeUsage, promptTokens, cache) {
    const usage = defaultUsage(turn, promptTokens);
    // The prompt's figures, split by the cache; the API gives them at the start and again, cumulative, at the end.
    const prompt = cache && !turn.usage ? cacheUsageFields(cache) : { input_tokens: usage.inputTokens };
    const frames = [
      sse(
        {
          type: 'message_start',
          message: {
            id: 'msg_scripted',
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...prompt, output_tokens: 1 },
          },
        },
        'message_start',
      ),
    ];
    // A thinking block's text is gathered to sign it: its signature comes last, just before the block stops.
    const block: { open: { kind: AnthropicChunk['kind']; index: number; thinking: string } | null } = { open: null };
    let blockIndex = -1;
    let usedTools = false;
    const close = (): void => {
      const open = block.open;
      if (open?.kind === 'reasoning')
        frames.push(
          sse(
            { type: 'content_block_delta', index: open.index, delta: { type: 'signature_delta', signature: signatureOf(open.thinking) } },
            'content_block_delta',
          ),
        );
      if (open) frames.push(sse({ type: 'content_block_stop', index: open.index }, 'content_block_stop'));
      block.open = null;
    };
    for (const item of anthropicChunksOf(turn)) {
      if (item.kind === 'redacted_thinking') {
        close();
        blockIndex += 1;
        block.open = { kind: item.kind, index: blockIndex, thinking: '' };
        frames.push(
          sse(
            { type: 'content_block_start', index: blockIndex, content_block: { type: 'redacted_thinking', data: item.data } },
            'content_block_start',
          ),
        );
        close();
      } else if (item.kind === 'text' || item.kind === 'reasoning') {
        if (block.open?.kind !== item.kind) {
          close();
          blockIndex += 1;
          block.open = { kind: item.kind, index: blockIndex, thinking: '' };
          const content = item.kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
          frames.push(sse({ type: 'content_block_start', index: blockIndex, content_block: content }, 'content_block_start'));
        }
        if (item.kind === 'reasoning') block.open.thinking += item.text;
        const delta = item.kind === 'text' ? { type: 'text_delta', text: item.text } : { type: 'thinking_delta', thinking: item.text };
        frames.push(sse({ type: 'content_block_delta', index: blockIndex, delta }, 'content_block_delta'));
      } else if (item.kind === 'tool_start') {
        close();
        usedTools = true;
        blockIndex += 1;
        block.open = { kind: 'tool_start', index: blockIndex, thinking: '' };
        frames.push(
          sse(
            {
              type: 'content_block_start',
              index: blockIndex,
              content_block: { type: 'tool_use', id: item.id, name: item.name, input: {} },
            },
            'content_block_start',
          ),
        );
      } else if (item.kind === 'tool_arguments') {
        frames.push(
          sse(
            { type: 'content_block_delta', index: blockIndex, delta: { type: 'input_json_delta', partial_json: item.piece } },
            'content_block_delta',
          ),
        );
      } else {
        close();
      }
    }
    close();
    frames.push(
      sse(
        {
          type: 'message_delta',
          delta: { stop_reason: turn.stoppedAtLimit ? 'max_tokens' : usedTools ? 'tool_use' : 'end_turn', stop_sequence: null },
          usage: { ...(cache && !turn.usage ? prompt : {}), output_tokens: usage.outputTokens },
        },
        'message_delta',
      ),
      sse({ type: 'message_stop' }, 'message_stop'),
    );
    return frames;
  },
  errorBody: (status, message) =>
    JSON.stringify({
      type: 'error',
      error: { type: status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message },
    }),
  errorFrame: (body) => sse(body, 'error'),
  malformedFrame: () => 'event: content_block_delta\ndata: {"type": "content_block_delta", {not json\n\n',
};
