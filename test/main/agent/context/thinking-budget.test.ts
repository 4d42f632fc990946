import { describe, expect, it } from 'vitest';
import type { ContextWindow, ModelChoice } from '../../../../src/shared/domain';
import type { ChatMessage, ModelProvider, ThinkingBlock } from '../../../../src/main/agent/ports/model-provider';
import { ContextBudget, defaultContextSettings, type Prepared } from '../../../../src/main/agent/context/prompt-builder';

const choice: ModelChoice = { providerId: 'p1', model: 'm1' };
const windowOf = (tokens: number): ContextWindow => ({ tokens, source: 'server', detail: 'test', trained: null });
const provider: ModelProvider = {
  kind: 'anthropic',
  stream: () => {
    throw new Error('not streamed in these tests');
  },
  listModels: async () => [],
};
const blocks: ThinkingBlock[] = [{ type: 'thinking', thinking: 'Think.', signature: 'signed' }];

async function prepare(
  messages: readonly ChatMessage[],
  options: { window: number; thinking: number | null; mayCompact?: boolean },
): Promise<Prepared | null> {
  const budget = new ContextBudget({
    window: async () => windowOf(options.window),
    settings: () => defaultContextSettings,
    thinkingBudget: () => options.thinking,
  });
  const preparation = await budget.prepare({
    choice,
    provider,
    system: 'You are an agent.',
    tools: undefined,
    entries: messages,
    signal: new AbortController().signal,
    mayCompact: options.mayCompact ?? true,
  });
  return preparation.kind === 'send' ? preparation.prepared : null;
}

const question: ChatMessage[] = [{ role: 'user', content: 'Hello' }];

describe('the context budget with extended thinking', () => {
  it('asks for the budget, with max_tokens the answer’s room plus the budget, and keeps the prompt within what is left', async () => {
    const prepared = await prepare(question, { window: 32_768, thinking: 2048 });
    expect(prepared?.request.thinking).toEqual({ budgetTokens: 2048 });
    expect(prepared?.request.maxTokens).toBe(4096 + 2048);
    expect(prepared?.measure.reserve).toBe(4096 + 2048);
    expect(prepared?.measure.limit).toBe(32_768 - 4096 - 2048);
  });

  it('asks for no thinking when none is set', async () => {
    const prepared = await prepare(question, { window: 32_768, thinking: null });
    expect(prepared?.request).not.toHaveProperty('thinking');
    expect(prepared?.request.maxTokens).toBe(4096);
  });

  it('lowers a budget the window has no room for to half the window less the answer, and sends none under the minimum', async () => {
    // 16,384 tokens: the answer keeps 4,096, so thinking may take 8,192 - 4,096.
    expect((await prepare(question, { window: 16_384, thinking: 64_000 }))?.request.thinking).toEqual({ budgetTokens: 4096 });
    // 2,048 tokens, a small window: the answer keeps a sixth (341), and 1,024 - 341 is under the API's minimum of 1,024.
    const small = await prepare(question, { window: 2048, thinking: 4096 });
    expect(small?.request).not.toHaveProperty('thinking');
    expect(small?.request.maxTokens).toBe(341);
  });

  it('makes a conversation that fits without thinking smaller, so that with it the request still fits the window', async () => {
    const conversation: ChatMessage[] = [{ role: 'user', content: 'Read the notes.' }];
    for (let step = 0; step < 10; step += 1)
      conversation.push(
        { role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'read_file', arguments: `{"path":"n${step}.md"}` }] },
        { role: 'tool', toolCallId: `c${step}`, content: `note ${step} `.padEnd(5_000, 'x') },
      );
    conversation.push({ role: 'user', content: 'Sum them up.' });
    const without = await prepare(conversation, { window: 32_768, thinking: null, mayCompact: false });
    expect(without?.measure.shortened).toBe(0);
    const withThinking = await prepare(conversation, { window: 32_768, thinking: 12_000, mayCompact: false });
    expect(withThinking?.measure.shortened).toBeGreaterThan(0);
    expect((withThinking?.measure.tokens ?? Infinity) + (withThinking?.request.maxTokens ?? 0)).toBeLessThanOrEqual(32_768);
  });

  it('sends a response’s thinking back to the endpoint and model that wrote it only, and none with thinking off', async () => {
    const conversation: ChatMessage[] = [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'mine', thinking: { ...choice, blocks } },
      { role: 'user', content: 'two' },
      { role: 'assistant', content: 'another endpoint', thinking: { providerId: 'p2', model: 'm1', blocks } },
      { role: 'user', content: 'three' },
      { role: 'assistant', content: 'another model', thinking: { providerId: 'p1', model: 'm2', blocks } },
      { role: 'user', content: 'four' },
    ];
    const thinkingOf = (prepared: Prepared | null): unknown[] =>
      (prepared?.request.messages ?? []).flatMap((message) => (message.role === 'assistant' ? [message.thinking ?? null] : []));
    expect(thinkingOf(await prepare(conversation, { window: 32_768, thinking: 2048 }))).toEqual([{ ...choice, blocks }, null, null]);
    expect(thinkingOf(await prepare(conversation, { window: 32_768, thinking: null }))).toEqual([null, null, null]);
  });
});
