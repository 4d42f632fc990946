import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextWindow } from '../../../../src/shared/domain';
import { planCompaction, summarize } from '../../../../src/main/agent/context/compaction';
import type { ChatMessage } from '../../../../src/main/agent/ports/model-provider';
import { ContextBudget, defaultContextSettings } from '../../../../src/main/agent/context/prompt-builder';
import { OpenAICompatibleProvider } from '../../../../src/main/providers/openai-compatible-provider';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';

const choice = { providerId: 'p1', model: 'scripted-model' };
const window: ContextWindow = { tokens: 8192, source: 'server', detail: 'test', trained: null };

/** A request and `steps` reads of `size` characters each. */
function reads(steps: number, size: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', content: 'Read the notes.' }];
  for (let step = 0; step < steps; step += 1)
    messages.push(
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: `c${step}`, name: 'read_file', arguments: JSON.stringify({ path: `n${step}.md` }) }],
      },
      { role: 'tool', toolCallId: `c${step}`, content: `note ${step} `.padEnd(size, 'x') },
    );
  return messages;
}

describe('the summary of a compaction, over real HTTP', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await ScriptedModelServer.start({ personality: 'llama.cpp', contextWindow: 8192 });
  });
  afterAll(async () => {
    await server.close();
  });

  const run = (entries: ChatMessage[]) => {
    const budget = new ContextBudget({ window: async () => window, settings: () => defaultContextSettings });
    const plan = planCompaction(entries, (messages) => budget.count(choice, messages), window);
    if (!plan) throw new Error('expected something to summarize');
    return summarize({
      plan,
      choice,
      provider: new OpenAICompatibleProvider({ baseUrl: server.openaiBaseUrl }),
      budget,
      window,
      instructions: 'Keep the note numbers.',
      signal: new AbortController().signal,
      onCall: () => undefined,
      now: () => Date.now(),
    });
  };

  it('asks in pieces that each fit the window when there is more to summarize than one request holds', async () => {
    server.reset();
    for (let piece = 0; piece < 10; piece += 1) server.enqueue(textTurn(`Notes after piece ${piece}.`));
    const result = await run(reads(40, 3_000));
    expect(result).toEqual({ kind: 'summary', text: expect.stringMatching(/^Notes after piece \d\.$/) });
    expect(server.requests.length).toBeGreaterThan(1);
    for (const request of server.requests) expect(request.promptTokens + Number(request.body['max_tokens'])).toBeLessThanOrEqual(8192);
    // Each piece after the first carries the notes so far, and every request the person's instructions.
    expect(JSON.stringify(server.requests[1]?.body)).toContain('NOTES SO FAR:\\nNotes after piece 0.');
    expect(server.requests.every((request) => JSON.stringify(request.body).includes('Keep the note numbers.'))).toBe(true);
  });

  it('refuses a summary no shorter than what it replaces, and an error, saying why', async () => {
    server.reset();
    server.enqueue(textTurn('word '.repeat(6_000)));
    expect(await run(reads(8, 800))).toMatchObject({ kind: 'failed', reason: expect.stringContaining('no shorter than what it replaces') });
    server.reset();
    server.enqueue({ steps: [], fault: { kind: 'status', status: 500, message: 'out of memory' } });
    expect(await run(reads(8, 800))).toMatchObject({ kind: 'failed', reason: expect.stringContaining('out of memory') });
  });
});
