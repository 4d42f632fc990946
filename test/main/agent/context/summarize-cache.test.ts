import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextWindow } from '../../../../src/shared/domain';
import { planCompaction, summarize, type SummarizeInput } from '../../../../src/main/agent/context/compaction';
import type { ChatMessage } from '../../../../src/main/agent/ports/model-provider';
import { ContextBudget, defaultContextSettings } from '../../../../src/main/agent/context/prompt-builder';
import { AnthropicProvider } from '../../../../src/main/providers/anthropic-provider';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';

const choice = { providerId: 'claude', model: 'scripted-model' };
const window: ContextWindow = { tokens: 8192, source: 'server', detail: 'test', trained: null };

/** A request and `steps` reads of a note each. */
function reads(steps: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Read the notes.' }];
  for (let step = 0; step < steps; step += 1)
    messages.push(
      { role: 'assistant', content: '', toolCalls: [{ id: `c${step}`, name: 'read_file', arguments: `{"path":"n${step}.md"}` }] },
      { role: 'tool', toolCallId: `c${step}`, content: `note ${step} `.padEnd(800, 'x') },
    );
  return messages;
}

describe('the summary of a compaction on Anthropic', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());

  it('hands on the call’s cache figures with its tokens, for the session’s accounting', async () => {
    server.enqueue(textTurn('The notes, in short.'));
    const calls: Array<Parameters<SummarizeInput['onCall']>[0]> = [];
    const budget = new ContextBudget({ window: async () => window, settings: () => defaultContextSettings });
    const plan = planCompaction(reads(12), (messages) => budget.count(choice, messages), window);
    if (!plan) throw new Error('expected something to summarize');
    const result = await summarize({
      plan,
      choice,
      provider: new AnthropicProvider({ baseUrl: server.anthropicBaseUrl, apiKey: 'test-key' }),
      budget,
      window,
      instructions: null,
      signal: new AbortController().signal,
      onCall: (usage) => calls.push(usage),
      now: () => Date.now(),
    });
    expect(result).toMatchObject({ kind: 'summary' });
    const prompt = server.requests[0]?.promptTokens;
    expect(calls).toEqual([expect.objectContaining({ inputTokens: prompt, cacheReadTokens: 0, cacheWriteTokens: expect.any(Number) })]);
    expect(calls[0]?.cacheWriteTokens).toBeGreaterThan(0);
  });
});
