import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderEndpoint } from '../../../../src/shared/domain';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

describe('a session on Anthropic, with the prompt cache', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  it('accounts each step’s prompt read from the cache and written to it, the whole prompt still its input', async () => {
    const endpoint: ProviderEndpoint = { id: 'claude', kind: 'anthropic', name: 'Claude', baseUrl: server.anthropicBaseUrl };
    harness = await createHarness(server, { anthropicKey: 'test-key', settings: { providers: [endpoint] } });
    server.enqueue({ steps: [toolCall('read_note', { name: 'todo' })] }, textTurn('The note says: contents of todo.'));
    harness.runtime.send(harness.sessionId, 'What is in my todo note?');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
    const [first, second] = server.requests.map((request) => request.promptTokens);
    if (first === undefined || second === undefined) throw new Error('two requests were expected');

    const totals = harness.accounting.totals(harness.sessionId);
    // The second step read the first step's whole prompt from the cache and wrote only what the step added.
    expect(totals).toMatchObject({ modelCalls: 2, inputTokens: first + second, cacheReadTokens: first, cacheWriteTokens: second });
    // The server is on this machine: its calls cost nothing, cached or not.
    expect(totals.costUsd).toBe(0);
  });
});
