import { describe, expect, it } from 'vitest';
import type { ModelCheck, Settings } from '../../../src/shared/domain';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { testTools, toolCall } from '../agent/harness';
import { answer, useScriptedCore } from '../scripted-core';

describe('the tool protocol a model gets, as the app decides it', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let sessionId: string;
  const log: string[] = [];

  const value = <T>(channel: string, payload: unknown): Promise<T> => answer<T>(transport, channel, payload);
  const providerId = (): string => core.core?.providers.list()[0]?.id ?? '';

  useScriptedCore(
    { tools: () => testTools(log).tools, session: 'workspace', server: { textOnly: true } },
    (started) => ({ server, transport, core, sessionId } = started),
  );

  it('checks a new endpoint in the background and announces what it found', async () => {
    let checks: ModelCheck[] = [];
    for (let waited = 0; checks.length === 0 && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      checks = await value<ModelCheck[]>('model:checks', {});
    }
    expect(checks).toEqual([
      expect.objectContaining({
        model: 'scripted-model',
        source: 'doctor',
        protocol: 'text',
        tools: expect.objectContaining({ status: 'refused' }),
      }),
    ]);
    expect(transport.sent.some((sent) => sent.event === 'model:checked')).toBe(true);
    expect(server.requests).toEqual([]);
  });

  it('runs a turn of a text-only model with text tool calls: the tool runs, and its result goes back as a message', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'Reading.' }, toolCall('read_note', { name: 'todo' })] }, textTurn('The note says hi.'));
    await value('run:send', { sessionId, text: 'What does the note say?' });
    await core.runtime?.whenIdle(sessionId);
    expect(server.requests.map((request) => request.body['tools'])).toEqual([undefined, undefined]);
    const second = server.requests[1]?.body['messages'] as { role: string; content: string }[];
    expect(second.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(second[2]?.content).toContain('<tool_call>\n{"name":"read_note","arguments":{"name":"todo"}}\n</tool_call>');
    expect(second[3]?.content).toMatch(/^<tool_result name="read_note">\n/);
    const opened = await value<{ entries: { event: { type: string; tool?: string; status?: string } }[] }>('session:open', { sessionId });
    const types = opened.entries.map((entry) => entry.event);
    expect(types).toContainEqual(expect.objectContaining({ type: 'tool_call_requested', tool: 'read_note' }));
    expect(types).toContainEqual(expect.objectContaining({ type: 'tool_call_finished', status: 'succeeded' }));
    expect(types.findLast((event) => event.type === 'run_finished')).toMatchObject({ status: 'completed' });
  });

  it('follows the person’s choice over what a check found', async () => {
    server.reset();
    await value('settings:update', { modelSettings: [{ providerId: providerId(), model: 'scripted-model', toolProtocol: 'native' }] });
    server.enqueue(textTurn('unused'));
    await value('run:send', { sessionId, text: 'Again' });
    await core.runtime?.whenIdle(sessionId);
    expect(server.requests[0]?.body['tools']).toBeDefined();
    const opened = await value<{ entries: { event: { type: string; status?: string; error?: { message: string } } }[] }>('session:open', {
      sessionId,
    });
    expect(opened.entries.findLast((entry) => entry.event.type === 'run_finished')?.event).toMatchObject({ status: 'failed' });
    await value('settings:update', { modelSettings: [] });
  });

  it('does not check an Anthropic endpoint’s models on its own: its probes are paid requests', async () => {
    const probes = server.probes.length;
    const saved = await value<{ id: string }>('provider:save', {
      kind: 'anthropic',
      name: 'Claude',
      baseUrl: server.anthropicBaseUrl,
      apiKey: 'sk-test',
    });
    // A local endpoint's first probe arrives within milliseconds; give it ten times that.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.probes.length).toBe(probes);
    expect(await value<ModelCheck[]>('model:checks', { providerId: saved.id })).toEqual([]);
    await value('provider:remove', { providerId: saved.id });
  });

  it('runs one check of a model at a time, and keeps nothing found about an address the endpoint no longer has', async () => {
    const before = server.probes.length;
    const [first, second] = await Promise.all([
      value<ModelCheck>('model:check', { providerId: providerId(), model: 'scripted-model' }),
      value<ModelCheck>('model:check', { providerId: providerId(), model: 'scripted-model' }),
    ]);
    expect(second).toEqual(first);
    expect(server.probes.length - before).toBe(2);

    const id = providerId();
    const checking = transport.invoke('model:check', { providerId: id, model: 'scripted-model' });
    await value('provider:save', { id, kind: 'openai-compatible', name: 'Scripted', baseUrl: `${server.openaiBaseUrl}/` });
    expect(await checking).toMatchObject({ ok: false, error: { message: expect.stringMatching(/endpoint changed/) } });
    expect(await value('model:checks', { providerId: id })).toEqual([]);
  });

  it('keeps both of two choices made at once for a model, drops an entry left at the defaults, and keeps other models’ entries', async () => {
    const id = providerId();
    await value('model:configure', { providerId: id, model: 'other-model', toolProtocol: 'text' });
    await Promise.all([
      value('model:configure', { providerId: id, model: 'scripted-model', toolProtocol: 'native' }),
      value('model:configure', { providerId: id, model: 'scripted-model', thinkingBudget: 2048 }),
    ]);
    const both = await value<Settings>('settings:get', {});
    expect(both.modelSettings).toEqual([
      { providerId: id, model: 'other-model', toolProtocol: 'text', thinkingBudget: null },
      { providerId: id, model: 'scripted-model', toolProtocol: 'native', thinkingBudget: 2048 },
    ]);
    await value('model:configure', { providerId: id, model: 'scripted-model', toolProtocol: 'auto', thinkingBudget: null });
    expect((await value<Settings>('settings:get', {})).modelSettings).toEqual([
      { providerId: id, model: 'other-model', toolProtocol: 'text', thinkingBudget: null },
    ]);
  });

  it('re-checks a model on demand, and forgets the checks and prices of an endpoint that is removed', async () => {
    const check = await value<ModelCheck>('model:check', { providerId: providerId(), model: 'scripted-model' });
    expect(check).toMatchObject({ protocol: 'text', reachable: { ok: true } });
    await value('settings:update', { modelPrices: [{ providerId: providerId(), model: 'scripted-model', input: 1, output: 2 }] });
    await value('provider:remove', { providerId: providerId() });
    expect(await value('model:checks', {})).toEqual([]);
    // What was chosen for its models goes with it, their prices too.
    const settings = await value<Settings>('settings:get', {});
    expect(settings.modelSettings).toEqual([]);
    expect(settings.modelPrices).toEqual([]);
  });
});
