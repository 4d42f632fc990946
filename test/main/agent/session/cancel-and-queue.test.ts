import { describe, expect, it } from 'vitest';
import { emptySessionView, reduceSessionView } from '../../../../src/shared/session-view';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

describe('Stop', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  async function stopWithin500ms(): Promise<void> {
    const started = Date.now();
    expect(await harness.runtime.cancel(harness.sessionId)).toBe(true);
    expect(Date.now() - started).toBeLessThan(500);
    const view = harness.view();
    expect(view.status).toBe('cancelled');
    expect(view.activeTurnId).toBeNull();
    expect(harness.runtime.isBusy(harness.sessionId)).toBe(false);
  }

  it('ends the turn cancelled mid-stream, keeping what streamed', async () => {
    server.enqueue(textTurn('word '.repeat(500), { chunkSize: 5, chunkDelayMs: 10 }));
    harness.runtime.send(harness.sessionId, 'Talk');
    await harness.until((view) => (view.messages[1]?.text.length ?? 0) > 10, 'text');
    await stopWithin500ms();
    expect(harness.view().messages[1]).toMatchObject({ state: 'cancelled', text: expect.stringMatching(/^(word )+/) });
  });

  it('ends the turn cancelled mid-tool, even when the tool ignores the signal', async () => {
    server.enqueue({ steps: [toolCall('slow', {})] });
    harness.runtime.send(harness.sessionId, 'Be slow');
    await harness.until(() => harness.log.includes('slow started'), 'the tool to start');
    await stopWithin500ms();
    expect(harness.view().messages[1]?.toolCalls[0]?.state).toBe('cancelled');
    harness.releaseSlow();
  });

  it('ends the turn cancelled while waiting for approval; the gate is gone', async () => {
    server.enqueue({ steps: [toolCall('publish', { target: 'x' })] });
    harness.runtime.send(harness.sessionId, 'Publish');
    const waiting = await harness.until((view) => view.pendingApproval !== null, 'the gate');
    await stopWithin500ms();
    expect(harness.view().pendingApproval).toBeNull();
    expect(() => harness.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'allow_once')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    expect(harness.log).toEqual([]);
  });

  it('answers every call the model made, so the next turn can go on after a stop', async () => {
    server.enqueue({ steps: [toolCall('publish', { target: 'x' })] }, textTurn('Fine, something else then.'));
    harness.runtime.send(harness.sessionId, 'Publish');
    await harness.until((view) => view.pendingApproval !== null);
    await harness.runtime.cancel(harness.sessionId);
    harness.runtime.send(harness.sessionId, 'Never mind');
    await harness.runtime.whenIdle(harness.sessionId);
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string; tool_calls?: unknown[] }>;
    const assistant = messages.find((message) => message.tool_calls);
    expect(assistant).toBeDefined();
    expect(messages.find((message) => message.role === 'tool')?.content).toMatch(/No result/);
    expect(harness.view().status).toBe('completed');
  });
});

describe('the message queue', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  it('keeps one message while busy, a newer one replaces it, and it runs when the turn ends', async () => {
    server.enqueue(textTurn('first answer', { chunkDelayMs: 20 }), textTurn('answer to the third'));
    harness.runtime.send(harness.sessionId, 'first');
    expect(harness.runtime.send(harness.sessionId, 'second')).toEqual({ turnId: null, queued: true });
    expect(harness.view().queued).toBe('second');
    harness.runtime.send(harness.sessionId, 'third');
    const queuedEvents = harness.store
      .journal(harness.sessionId)
      .flatMap((entry) => (entry.event.type === 'message_queued' ? [entry.event] : []));
    expect(queuedEvents).toEqual([
      { type: 'message_queued', text: 'second', replaced: false },
      { type: 'message_queued', text: 'third', replaced: true },
    ]);
    await harness.runtime.whenIdle(harness.sessionId);
    const view = harness.view();
    expect(view.queued).toBeNull();
    expect(view.messages.filter((message) => message.role === 'user').map((message) => message.text)).toEqual(['first', 'third']);
    expect(view.messages.at(-1)?.text).toBe('answer to the third');
  });

  it('keeps a queued message that cannot start queued, as the journal says, until it is cleared', async () => {
    server.enqueue(textTurn('first answer', { chunkDelayMs: 20 }));
    harness.runtime.send(harness.sessionId, 'first');
    harness.runtime.send(harness.sessionId, 'second');
    // The endpoint goes away while the first turn runs: the queued message cannot start after it.
    harness.settings.set({ ...harness.settings.get(), providers: [], defaultModel: null });
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.store.head(harness.sessionId)?.queued).toBe('second');
    expect(harness.view().queued).toBe('second');
    expect(harness.view().messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(harness.runtime.clearQueue(harness.sessionId)).toBe(true);
    expect(harness.store.head(harness.sessionId)?.queued).toBeNull();
  });

  it('can be cleared, and then nothing more runs', async () => {
    server.enqueue(textTurn('first answer', { chunkDelayMs: 20 }), textTurn('should not be used'));
    harness.runtime.send(harness.sessionId, 'first');
    harness.runtime.send(harness.sessionId, 'second');
    expect(harness.runtime.clearQueue(harness.sessionId)).toBe(true);
    expect(harness.runtime.clearQueue(harness.sessionId)).toBe(false);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.view().messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(server.pending).toBe(1);
  });
});

describe('the journal', () => {
  it('replays into the same view the renderer built live, with tools, gates, plans and a queue', async () => {
    const server = await ScriptedModelServer.start();
    const harness = await createHarness(server);
    server.enqueue(
      {
        steps: [
          { kind: 'reasoning', text: 'Plan it.' },
          { kind: 'text', text: 'Three steps.' },
          toolCall('read_note', { name: 'a' }, 'c1'),
          toolCall('write_note', { name: 'b', text: 'x' }, 'c2'),
          toolCall('broken', {}, 'c3'),
        ],
        chunkDelayMs: 5,
      },
      { steps: [toolCall('publish', { target: 'site' })] },
      textTurn('All done, with one failure.'),
      textTurn('Queued one answered.'),
    );
    harness.runtime.send(harness.sessionId, 'Do the work');
    const plan = await harness.until((view) => view.plan?.state === 'waiting');
    harness.runtime.send(harness.sessionId, 'And then this');
    harness.runtime.answerPlan(plan.plan?.planId ?? '', 'approve');
    const gate = await harness.until((view) => view.pendingApproval !== null);
    harness.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_30m');
    await harness.runtime.whenIdle(harness.sessionId);
    const live = reduceSessionView(emptySessionView, harness.live);
    const replayed = harness.view();
    expect(live).toEqual(replayed);
    expect(replayed.status).toBe('completed');
    expect(replayed.messages.filter((message) => message.role === 'user').map((message) => message.text)).toEqual([
      'Do the work',
      'And then this',
    ]);
    expect(replayed.messages.flatMap((message) => message.toolCalls.map((call) => call.state))).toEqual([
      'succeeded',
      'succeeded',
      'failed',
      'succeeded',
    ]);
    await harness.close();
    await server.close();
  });
});
