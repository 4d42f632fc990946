import { afterEach, describe, expect, it } from 'vitest';
import type { ModelSetting, ProviderEndpoint } from '../../../../src/shared/domain';
import { newId } from '../../../../src/main/agent/ports/ids';
import { SessionTransfer } from '../../../../src/main/agent/history/session-transfer';
import { FolderInspector } from '../../../../src/main/workspace/folder-inspector';
import { signatureOf, textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

interface SentMessage {
  readonly role: string;
  readonly content: Array<Record<string, unknown>>;
}

describe('a tool loop with extended thinking', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });

  const endpoint = (id: string): ProviderEndpoint => ({ id, kind: 'anthropic', name: id, baseUrl: server.anthropicBaseUrl });
  const thinking = (providerId: string, thinkingBudget: number | null): ModelSetting => ({
    providerId,
    model: 'scripted-model',
    toolProtocol: 'auto',
    thinkingBudget,
  });
  /** A session on the server's Anthropic route, thinking with a budget of 2,048 tokens. */
  const start = async (): Promise<Harness> => {
    const harness = await createHarness(server, {
      anthropicKey: 'test-key',
      settings: { providers: [endpoint('claude'), endpoint('claude-2')], modelSettings: [thinking('claude', 2048)] },
    });
    opened.push(harness);
    return harness;
  };
  const restart = async (harness: Harness): Promise<Harness> => {
    harness.crash();
    const next = await harness.reopen();
    opened.push(next);
    return next;
  };
  const sent = (index: number): Record<string, unknown> => server.requests.at(index)?.body ?? {};
  const assistantContent = (index: number, position: number): Array<Record<string, unknown>> =>
    (sent(index)['messages'] as SentMessage[]).filter((message) => message.role === 'assistant')[position]?.content ?? [];

  const firstThought = 'The person wants the todo note: read it.';
  const readsTheNote = { steps: [{ kind: 'reasoning' as const, text: firstThought }, toolCall('read_note', { name: 'todo' })] };
  const answers = (text: string) => ({
    steps: [
      { kind: 'reasoning' as const, text: 'It has been read.' },
      { kind: 'text' as const, text },
    ],
  });

  it('asks for thinking, then sends the response’s thinking back with its signature when the loop goes on', async () => {
    const harness = await start();
    server.enqueue(readsTheNote, answers('The note says: contents of todo.'));
    harness.runtime.send(harness.sessionId, 'What is in my todo note?');
    await harness.runtime.whenIdle(harness.sessionId);

    const view = harness.view();
    expect(view.status).toBe('completed');
    expect(harness.log).toEqual(['read todo']);
    expect(view.messages[1]?.reasoning).toBe(firstThought);
    expect(view.messages.at(-1)?.text).toBe('The note says: contents of todo.');
    // The first request: thinking with its budget, and the answer's room (4,096 tokens) on top of it.
    expect(sent(0)['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(sent(0)['max_tokens']).toBe(4096 + 2048);
    // The second: the first response opens with its thinking, exactly as it came.
    expect(assistantContent(1, 0)[0]).toEqual({ type: 'thinking', thinking: firstThought, signature: signatureOf(firstThought) });
    expect(assistantContent(1, 0)[1]).toMatchObject({ type: 'tool_use', name: 'read_note' });
  });

  it('goes on after a restart at an approval gate, with the thinking read back from the checkpoint', async () => {
    const first = await start();
    const thought = 'Publishing needs the person’s consent.';
    server.enqueue({ steps: [{ kind: 'reasoning', text: thought }, toolCall('publish', { target: 'site' }, 'c1')] });
    first.runtime.send(first.sessionId, 'Publish');
    await first.until((view) => view.pendingApproval !== null, 'the gate');
    const second = await restart(first);

    const view = await second.until((current) => current.status === 'waiting_approval', 'the gate again');
    server.enqueue(answers('Published.'));
    second.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await second.runtime.whenIdle(second.sessionId);
    expect(second.view().status).toBe('completed');
    expect(second.log).toEqual(['publish site']);
    expect(assistantContent(-1, 0)[0]).toEqual({ type: 'thinking', thinking: thought, signature: signatureOf(thought) });
  });

  it('sends earlier thinking to the model that wrote it only, and none once thinking is off', async () => {
    const harness = await start();
    server.enqueue(readsTheNote, answers('Read.'), textTurn('Again.'), textTurn('Once more.'));
    harness.runtime.send(harness.sessionId, 'Read the todo note');
    await harness.runtime.whenIdle(harness.sessionId);

    // The same model on another endpoint, thinking too: the blocks were not made for it.
    harness.settings.set({ ...harness.settings.get(), modelSettings: [thinking('claude', 2048), thinking('claude-2', 2048)] });
    harness.store.update(harness.sessionId, { model: { providerId: 'claude-2', model: 'scripted-model' } }, harness.clock.now());
    harness.runtime.send(harness.sessionId, 'Read it again');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
    expect(sent(-1)['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(assistantContent(-1, 0).map((block) => block['type'])).toEqual(['tool_use']);

    // Back on the endpoint that wrote them, with thinking turned off: no thinking asked for, no blocks sent.
    harness.settings.set({ ...harness.settings.get(), modelSettings: [thinking('claude', null)] });
    harness.store.update(harness.sessionId, { model: { providerId: 'claude', model: 'scripted-model' } }, harness.clock.now());
    harness.runtime.send(harness.sessionId, 'And once more');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
    expect(sent(-1)).not.toHaveProperty('thinking');
    expect(sent(-1)['max_tokens']).toBe(4096);
    expect(assistantContent(-1, 0).map((block) => block['type'])).toEqual(['tool_use']);
  });

  it('keeps its thinking through an export and an import: the copy goes on sending it back', async () => {
    const harness = await start();
    server.enqueue(readsTheNote, answers('Read.'), textTurn('Still there.'));
    harness.runtime.send(harness.sessionId, 'Read the todo note');
    await harness.runtime.whenIdle(harness.sessionId);
    const transfer = new SessionTransfer({
      store: harness.store,
      checkpoints: harness.checkpoints,
      clock: harness.clock,
      newId: () => newId(harness.clock.now()),
      appVersion: '0.1.0',
      providerExists: (id) => id === 'claude',
      defaultAutonomy: () => 'L1',
      workspaces: new FolderInspector(),
    });
    const copy = await transfer.importSession(transfer.exportSession(harness.sessionId).document);
    harness.runtime.send(copy.id, 'Is it still there?');
    await harness.runtime.whenIdle(copy.id);
    expect(harness.view(copy.id).status).toBe('completed');
    expect(assistantContent(-1, 0)[0]).toEqual({ type: 'thinking', thinking: firstThought, signature: signatureOf(firstThought) });
  });

  it('goes on without thinking with a tool loop begun without it, when thinking is turned on at the gate', async () => {
    const harness = await start();
    harness.settings.set({ ...harness.settings.get(), modelSettings: [] });
    server.enqueue({ steps: [toolCall('publish', { target: 'site' }, 'c1')] }, textTurn('Published.'), answers('Next.'));
    harness.runtime.send(harness.sessionId, 'Publish');
    const view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    harness.settings.set({ ...harness.settings.get(), modelSettings: [thinking('claude', 2048)] });
    harness.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().status).toBe('completed');
    expect(sent(-1)).not.toHaveProperty('thinking');
    // The next turn thinks again.
    harness.runtime.send(harness.sessionId, 'And now?');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(sent(-1)['thinking']).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});
