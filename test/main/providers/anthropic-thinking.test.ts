import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatMessage, ModelRequest, ModelStreamEvent, ThinkingBlock } from '../../../src/main/agent/ports/model-provider';
import { RetryingModelProvider } from '../../../src/main/agent/rules/retry';
import { AnthropicProvider, outputLimitIn } from '../../../src/main/providers/anthropic-provider';
import { ScriptedModelServer, signatureOf, textTurn } from '../../scripted-model-server';

async function collect(stream: AsyncIterable<ModelStreamEvent>): Promise<ModelStreamEvent[]> {
  const events: ModelStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

const blocksOf = (events: readonly ModelStreamEvent[]): ThinkingBlock[] =>
  events.flatMap((event) => (event.type === 'reasoning_block' ? [event.block] : []));

interface SentMessage {
  readonly role: string;
  readonly content: Array<Record<string, unknown>>;
}

describe('Anthropic extended thinking, through the SDK against the scripted server', () => {
  let server: ScriptedModelServer;
  let provider: AnthropicProvider;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
    provider = new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' });
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());

  const stream = (request: ModelRequest): Promise<ModelStreamEvent[]> => collect(provider.stream(request, new AbortController().signal));
  const sent = (index: number): Record<string, unknown> => server.requests[index]?.body ?? {};
  const sentMessages = (index: number): SentMessage[] => sent(index)['messages'] as SentMessage[];
  const thinkingOn = { budgetTokens: 2048 };

  /** A first request whose answer thinks, then calls a tool: its assistant message and the tool's result, as the runtime keeps them. */
  async function firstStep(steps: ScriptedStep[]): Promise<ChatMessage[]> {
    server.enqueue({ steps });
    const events = await stream({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'Read the note' }],
      maxTokens: 6144,
      thinking: thinkingOn,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' });
    const call = events.find((event) => event.type === 'tool_call_ready');
    if (call?.type !== 'tool_call_ready') throw new Error('no call');
    return [
      { role: 'user', content: 'Read the note' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: call.id, name: call.name, arguments: call.arguments }],
        thinking: { providerId: 'claude', model: 'scripted-model', blocks: blocksOf(events) },
      },
      { role: 'tool', toolCallId: call.id, content: 'contents of todo' },
    ];
  }
  type ScriptedStep = Parameters<ScriptedModelServer['enqueue']>[0]['steps'][number];
  const readNote: ScriptedStep = { kind: 'tool_call', id: 'toolu_1', name: 'read_note', arguments: '{"name":"todo"}' };

  it('asks for thinking with its budget, within a max_tokens larger than it', async () => {
    server.enqueue(textTurn('ok'));
    const events = await stream({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'hello' }],
      maxTokens: 6144,
      thinking: thinkingOn,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(sent(0)['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sent(0)['max_tokens']).toBe(6144);
  });

  it('gives a request whose room is no larger than the budget the budget on top, as the API wants max_tokens above it', async () => {
    server.enqueue(textTurn('ok'));
    const events = await stream({
      model: 'scripted-model',
      messages: [{ role: 'user', content: 'hello' }],
      maxTokens: 1024,
      thinking: { budgetTokens: 4096 },
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(sent(0)['max_tokens']).toBe(5120);
    expect(sent(0)['thinking']).toEqual({ type: 'enabled', budget_tokens: 4096 });
  });

  it('keeps a thinking block whole with its signature, and sends it back first when the tool loop goes on', async () => {
    const thought = 'The note is called todo; read it first.';
    const history = await firstStep([{ kind: 'reasoning', text: thought, chunkSize: 5 }, readNote]);
    expect(history[1]).toMatchObject({ thinking: { blocks: [{ type: 'thinking', thinking: thought, signature: signatureOf(thought) }] } });

    server.enqueue(textTurn('The note says: contents of todo.'));
    const events = await stream({ model: 'scripted-model', messages: history, maxTokens: 6144, thinking: thinkingOn });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    const assistant = sentMessages(1)[1];
    expect(assistant?.role).toBe('assistant');
    expect(assistant?.content[0]).toEqual({ type: 'thinking', thinking: thought, signature: signatureOf(thought) });
    expect(assistant?.content[1]).toMatchObject({ type: 'tool_use', id: 'toolu_1', name: 'read_note' });
  });

  it('keeps a redacted block and sends its data back as it came', async () => {
    const history = await firstStep([{ kind: 'redacted_thinking', data: 'EncryptedOpaqueData==' }, readNote]);
    expect(history[1]).toMatchObject({ thinking: { blocks: [{ type: 'redacted_thinking', data: 'EncryptedOpaqueData==' }] } });

    server.enqueue(textTurn('Done.'));
    const events = await stream({ model: 'scripted-model', messages: history, maxTokens: 6144, thinking: thinkingOn });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(sentMessages(1)[1]?.content[0]).toEqual({ type: 'redacted_thinking', data: 'EncryptedOpaqueData==' });
  });

  it('is refused, as by the API, when the tool loop goes on without the response’s thinking', async () => {
    const history = await firstStep([{ kind: 'reasoning', text: 'Read it.' }, readNote]);
    const [question, response, result] = history as [ChatMessage, ChatMessage & { role: 'assistant' }, ChatMessage];
    const withoutThinking: ChatMessage = { role: 'assistant', content: response.content, toolCalls: response.toolCalls ?? [] };
    server.enqueue(textTurn('never sent'));
    const events = await stream({
      model: 'scripted-model',
      messages: [question, withoutThinking, result],
      maxTokens: 6144,
      thinking: thinkingOn,
    });
    const error = events.at(-1);
    expect(error?.type).toBe('error');
    expect(error?.type === 'error' && error.error.message).toMatch(
      /messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
    );
  });

  it('is refused when a thinking block comes back changed', async () => {
    const history = await firstStep([{ kind: 'reasoning', text: 'Read it.' }, readNote]);
    const response = history[1] as ChatMessage & { role: 'assistant' };
    const changed: ChatMessage = {
      ...response,
      thinking: {
        providerId: 'claude',
        model: 'scripted-model',
        blocks: [{ type: 'thinking', thinking: 'Read it!', signature: signatureOf('Read it.') }],
      },
    };
    server.enqueue(textTurn('never sent'));
    const events = await stream({
      model: 'scripted-model',
      messages: [history[0] as ChatMessage, changed, history[2] as ChatMessage],
      maxTokens: 6144,
      thinking: thinkingOn,
    });
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      error: { message: expect.stringMatching(/Invalid `signature` in `thinking` block/) },
    });
  });

  it('sends neither thinking nor thinking blocks when thinking is off', async () => {
    server.enqueue(textTurn('ok'));
    const blocks: ThinkingBlock[] = [{ type: 'thinking', thinking: 'Earlier.', signature: signatureOf('Earlier.') }];
    const events = await stream({
      model: 'scripted-model',
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two', thinking: { providerId: 'claude', model: 'scripted-model', blocks } },
        { role: 'user', content: 'three' },
      ],
      maxTokens: 4096,
    });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(sent(0)).not.toHaveProperty('thinking');
    expect(sent(0)['max_tokens']).toBe(4096);
    expect(sentMessages(0)[1]?.content).toEqual([{ type: 'text', text: 'two' }]);
  });

  it('leaves out thinking another model wrote', async () => {
    server.enqueue(textTurn('ok'));
    const blocks: ThinkingBlock[] = [{ type: 'thinking', thinking: 'Elsewhere.', signature: signatureOf('Elsewhere.') }];
    await stream({
      model: 'scripted-model',
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'two', thinking: { providerId: 'claude', model: 'other-model', blocks } },
        { role: 'user', content: 'three' },
      ],
      maxTokens: 6144,
      thinking: thinkingOn,
    });
    expect(sentMessages(0)[1]?.content).toEqual([{ type: 'text', text: 'two' }]);
  });

  it('does not retry a stream cut after a redacted block: the block would be kept twice', async () => {
    // Frames: message_start, the redacted block's start and stop; the connection drops at the fourth.
    server.enqueue({
      steps: [
        { kind: 'redacted_thinking', data: 'Opaque==' },
        { kind: 'text', text: 'cut' },
      ],
      fault: { kind: 'drop', afterChunks: 3 },
    });
    server.enqueue(textTurn('never asked'));
    const clock = { now: () => Date.now(), sleep: async () => undefined };
    const events = await collect(
      new RetryingModelProvider(provider, clock).stream(
        { model: 'scripted-model', messages: [{ role: 'user', content: 'hello' }], maxTokens: 6144, thinking: thinkingOn },
        new AbortController().signal,
      ),
    );
    expect(blocksOf(events)).toEqual([{ type: 'redacted_thinking', data: 'Opaque==' }]);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'model_stream_interrupted' } });
    expect(server.requests).toHaveLength(1);
  });

  it('makes a request the model’s output limit refuses again within it, once, and keeps the limit for the next', async () => {
    server.enqueue(textTurn('Thought it through.'), textTurn('Again.'));
    const large = { model: 'scripted-model', messages: [{ role: 'user' as const, content: 'Think hard' }], maxTokens: 68_096 };
    const events = await stream({ ...large, thinking: { budgetTokens: 64_000 } });
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' });
    expect(
      server.requests.map((request) => [
        request.body['max_tokens'],
        (request.body['thinking'] as { budget_tokens?: number })?.budget_tokens,
      ]),
    ).toEqual([
      [68_096, 64_000],
      [64_000, 62_976],
    ]);
    await stream({ ...large, thinking: { budgetTokens: 64_000 } });
    expect(server.requests[2]?.body['max_tokens']).toBe(64_000);
    expect(outputLimitIn('max_tokens: 8000 > 4096, which is the maximum allowed number of output tokens for claude-3-haiku-20240307')).toBe(
      4096,
    );
    expect(outputLimitIn('prompt is too long: 210000 tokens > 200000 maximum')).toBeNull();
  });
});
