import { describe, expect, it } from 'vitest';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import type { ModelProvider } from '../../../../src/main/agent/ports/model-provider';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

describe('the tool loop', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  const toolResults = (requestIndex: number) =>
    ((server.requests[requestIndex]?.body['messages'] as Array<{ role: string; content: string; tool_call_id?: string }>) ?? []).filter(
      (message) => message.role === 'tool',
    );

  it('shows a slow read-only call as running, with the response that asked for it, while a quicker one beside it has finished', async () => {
    server.enqueue({ steps: [toolCall('read_note', { name: 'a' }, 'c1'), toolCall('slow', {}, 'c2')] }, textTurn('Both done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    await harness.until(() => harness.log.includes('slow started') && harness.log.includes('read a'), 'both calls to start');
    // Saved and shown within a frame or so, not only once the slow call ends.
    const view = await harness.until(
      (current) => current.messages[1]?.toolCalls.map((call) => call.state).join() === 'succeeded,running',
      'the quick call done and the slow one running',
    );
    expect(view.status).toBe('executing');
    expect(harness.store.head(harness.sessionId)?.resume).toMatchObject({
      at: 'tools',
      calls: [{ state: 'finished' }, { state: 'running' }],
    });
    harness.releaseSlow();
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
  });

  it('runs a read-only tool at L1 without asking and gives the model its result', async () => {
    server.enqueue(
      { steps: [{ kind: 'text', text: 'Let me look.' }, toolCall('read_note', { name: 'todo' })] },
      textTurn('The note says: contents of todo.'),
    );
    harness.runtime.send(harness.sessionId, 'What is in my todo note?');
    await harness.runtime.whenIdle(harness.sessionId);
    const view = harness.view();
    expect(harness.log).toEqual(['read todo']);
    expect(view.status).toBe('completed');
    expect(view.pendingApproval).toBeNull();
    expect(view.messages[1]?.toolCalls[0]).toMatchObject({
      tool: 'read_note',
      state: 'succeeded',
      output: 'contents of todo',
      risk: 'read_only',
    });
    expect(view.messages.at(-1)?.text).toBe('The note says: contents of todo.');
    expect(toolResults(1)).toEqual([expect.objectContaining({ role: 'tool', content: 'contents of todo' })]);
    // The tools are offered to the model with their JSON schema.
    const tools = server.requests[0]?.body['tools'] as Array<{
      function: { name: string; parameters: { properties: Record<string, unknown> } };
    }>;
    expect(tools.map((tool) => tool.function.name)).toContain('read_note');
    expect(tools.find((tool) => tool.function.name === 'read_note')?.function.parameters.properties).toHaveProperty('name');
  });

  it('sends invalid input back to the model as a failed result and ends completed_with_errors', async () => {
    server.enqueue({ steps: [toolCall('read_note', { title: 'wrong field' })] }, textTurn('Sorry, I used the wrong field.'));
    harness.runtime.send(harness.sessionId, 'Read it');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(toolResults(1)[0]?.content).toMatch(/Invalid input for read_note/);
    expect(harness.view().messages[1]?.toolCalls[0]?.state).toBe('failed');
    expect(harness.view().status).toBe('completed_with_errors');
  });

  it('answers a call to an unknown tool or with broken JSON with a failed result naming the problem', async () => {
    server.enqueue(
      { steps: [toolCall('teleport', {}), { kind: 'tool_call', id: 'c2', name: 'read_note', arguments: '{"name": ' }] },
      textTurn('ok'),
    );
    harness.runtime.send(harness.sessionId, 'Go');
    await harness.runtime.whenIdle(harness.sessionId);
    const results = toolResults(1).map((result) => result.content);
    expect(results[0]).toMatch(/no tool named teleport.*Available tools: read_note/);
    expect(results[1]).toMatch(/not valid JSON/);
  });

  it('keeps partial results: one call fails, the others succeed, the model hears both', async () => {
    server.enqueue({ steps: [toolCall('read_note', { name: 'a' }, 'c1'), toolCall('broken', {}, 'c2')] }, textTurn('One of them failed.'));
    harness.runtime.send(harness.sessionId, 'Do both');
    await harness.runtime.whenIdle(harness.sessionId);
    const results = toolResults(1).map((result) => result.content);
    expect(results).toEqual(['contents of a', 'broken failed: the disk is on fire']);
    expect(harness.view().messages[1]?.toolCalls.map((call) => call.state)).toEqual(['succeeded', 'failed']);
    expect(harness.view().status).toBe('completed_with_errors');
    expect(harness.accounting.totals(harness.sessionId)).toMatchObject({ toolCalls: 2, toolFailures: 1 });
  });

  it('runs the read-only calls of one response in parallel', async () => {
    server.enqueue({ steps: [toolCall('slow', {}, 'c1'), toolCall('slow', {}, 'c2')] }, textTurn('Both done.'));
    harness.runtime.send(harness.sessionId, 'Wait twice');
    await harness.until(() => harness.log.filter((line) => line === 'slow started').length === 2, 'both slow calls to start');
    expect(harness.log).not.toContain('slow finished');
    harness.releaseSlow();
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
  });

  it('waits at a budget gate at the model-call budget instead of failing the turn', async () => {
    harness.settings.set({ ...harness.settings.get(), maxIterations: 2 });
    server.enqueue(
      { steps: [toolCall('read_note', { name: 'a' })] },
      { steps: [toolCall('read_note', { name: 'b' })] },
      { steps: [toolCall('read_note', { name: 'c' })] },
    );
    harness.runtime.send(harness.sessionId, 'Loop');
    const view = await harness.until((current) => current.pendingBudget !== null, 'the budget gate');
    expect(view.status).toBe('waiting_approval');
    expect(view.pendingBudget).toMatchObject({ budget: 'model_calls', figure: 2, limit: 2 });
    expect(harness.log).toEqual(['read a', 'read b']);
    await harness.runtime.cancel(harness.sessionId);
    expect(harness.view().status).toBe('cancelled');
  });

  it('cuts long output for the model with a marker and keeps the whole output', async () => {
    server.enqueue({ steps: [toolCall('big', { bytes: 100_000 }, 'c1')] }, textTurn('That was long.'));
    harness.runtime.send(harness.sessionId, 'Print a lot');
    await harness.runtime.whenIdle(harness.sessionId);
    const sent = toolResults(1)[0]?.content ?? '';
    expect(sent.length).toBeLessThanOrEqual(16_000);
    expect(sent).toContain('characters omitted here; the full output is kept in the tool card');
    const call = harness.view().messages[1]?.toolCalls[0];
    expect(call).toMatchObject({ truncated: true, outputBytes: 100_000 });
    expect(harness.accounting.toolOutput(call?.id ?? '')?.output).toBe('x'.repeat(100_000));
  });

  it('records every model call and tool call, with session totals and zero cost for a local model', async () => {
    server.enqueue(
      { steps: [toolCall('read_note', { name: 'a' })], usage: { inputTokens: 100, outputTokens: 20 } },
      { steps: [{ kind: 'text', text: 'Done.' }], usage: { inputTokens: 150, outputTokens: 5 } },
    );
    harness.runtime.send(harness.sessionId, 'Go');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.accounting.totals(harness.sessionId)).toEqual({
      modelCalls: 2,
      inputTokens: 250,
      outputTokens: 25,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      modelMs: 0,
      largestPromptTokens: 150,
      costUsd: 0,
      pricedCostUsd: 0,
      unpricedCalls: 0,
      toolCalls: 1,
      toolFailures: 0,
      toolMs: 0,
    });
    expect(harness.view().usage).toMatchObject({ inputTokens: 250, outputTokens: 25, costUsd: 0, toolCalls: 1 });
  });
});

describe('a response of calls alone from a provider that shows nothing before them', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  useHarness({ server: (started) => (server = started) });

  it('still starts its message and accounts its model call', async () => {
    // A provider that gives only whole calls (no pieces while they are written) and no usage.
    const wholeCallsOnly = (provider: ModelProvider): ModelProvider => ({
      kind: provider.kind,
      listModels: (signal) => provider.listModels(signal),
      async *stream(request, signal) {
        for await (const event of provider.stream(request, signal)) {
          if (event.type === 'tool_call_started' || event.type === 'tool_call_arguments_delta' || event.type === 'usage') continue;
          yield event;
        }
      },
    });
    harness = await createHarness(server, { instrumentProvider: wholeCallsOnly });
    server.enqueue({ steps: [toolCall('read_note', { name: 'todo' })] }, textTurn('Read it.'));
    harness.runtime.send(harness.sessionId, 'Read my todo note');
    await harness.runtime.whenIdle(harness.sessionId);
    const types = harness.store.journal(harness.sessionId).map((entry) => entry.event.type);
    const requested = types.indexOf('tool_call_requested');
    expect(types.lastIndexOf('assistant_message_started', requested)).toBeGreaterThan(0);
    expect(types.indexOf('model_call_finished', requested)).toBeGreaterThan(requested);
    expect(harness.accounting.totals(harness.sessionId).modelCalls).toBe(2);
    expect(harness.view().status).toBe('completed');
    await harness.close();
  });
});
