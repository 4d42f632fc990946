import { afterEach, describe, expect, it, vi } from 'vitest';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, lastPrompt, toolCall, useHarness, type Harness } from '../harness';

describe('crash recovery', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });
  const start = async (): Promise<Harness> => {
    const harness = await createHarness(server);
    opened.push(harness);
    return harness;
  };
  const restart = async (harness: Harness): Promise<Harness> => {
    harness.crash();
    const next = await harness.reopen();
    opened.push(next);
    return next;
  };

  it('a tool running when the app stopped: the session is interrupted, shows the call, and resumes without running it again', async () => {
    const first = await start();
    server.enqueue({ steps: [{ kind: 'text', text: 'Taking a while.' }, toolCall('slow', {}, 'c1')] });
    first.runtime.send(first.sessionId, 'Do the slow thing');
    await first.until(
      (view) => view.messages.some((message) => message.toolCalls.some((call) => call.state === 'running')),
      'the slow call to run',
    );
    const second = await restart(first);

    const view = second.view();
    expect(view.status).toBe('interrupted');
    expect(view.interrupted?.lastTool).toMatchObject({ tool: 'slow', state: 'running' });
    expect(view.messages[1]?.toolCalls[0]?.state).toBe('interrupted');

    server.enqueue(textTurn('It may have run halfway; I will check.'));
    second.runtime.resume(second.sessionId);
    await second.runtime.whenIdle(second.sessionId);
    expect(second.log).not.toContain('slow started');
    expect(lastPrompt(server).at(-1)).toMatch(/^tool: The app stopped while this call was running/);
    const after = second.view();
    // The cut-off call counts as failed: the person should look at what it left.
    expect(after.status).toBe('completed_with_errors');
    expect(after.interrupted).toBeNull();
    expect(after.messages.at(-1)?.text).toBe('It may have run halfway; I will check.');
    // The resumed turn is the same turn: its messages stay together.
    expect(new Set(after.messages.slice(1).map((message) => message.turnId)).size).toBe(1);
  });

  it("the folders' servers are left be once the database is closed as a crash would: nothing is said of it", async () => {
    const first = await start();
    server.enqueue(textTurn('Hello.'));
    first.runtime.send(first.sessionId, 'Hi');
    await first.runtime.whenIdle(first.sessionId);
    const errors = vi.spyOn(console, 'error');
    try {
      first.crash();
      // Past the next look at the folders' servers (one every 2 s).
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(errors.mock.calls).toEqual([]);
    } finally {
      errors.mockRestore();
    }
  });

  it('a stream cut by the crash: resume asks the model again from the last checkpoint', async () => {
    const first = await start();
    server.enqueue(textTurn('a long answer that streams slowly', { chunkSize: 2, chunkDelayMs: 20 }));
    first.runtime.send(first.sessionId, 'Tell me');
    await first.until((view) => (view.messages[1]?.text.length ?? 0) > 4, 'some text');
    const second = await restart(first);
    expect(second.view().status).toBe('interrupted');
    expect(second.view().messages[1]?.state).toBe('interrupted');
    server.enqueue(textTurn('The whole answer.'));
    second.runtime.resume(second.sessionId);
    await second.runtime.whenIdle(second.sessionId);
    expect(lastPrompt(server)).toEqual(['user: Tell me']);
    expect(second.view().messages.at(-1)?.text).toBe('The whole answer.');
  });

  it('a pending approval is still pending after a restart, at the same gate, and answering it goes on', async () => {
    const first = await start();
    server.enqueue({ steps: [toolCall('publish', { target: 'site' }, 'c1')] });
    first.runtime.send(first.sessionId, 'Publish');
    const waiting = await first.until((view) => view.pendingApproval !== null, 'the gate');
    const second = await restart(first);

    // Straight after the restart, before the turn is back at its gate, the approval is shown.
    expect(second.view().pendingApproval?.approvalId).toBe(waiting.pendingApproval?.approvalId);
    const view = await second.until((current) => current.status === 'waiting_approval', 'the gate again');
    expect(view.pendingApproval?.approvalId).toBe(waiting.pendingApproval?.approvalId);
    expect(second.runtime.isBusy(second.sessionId)).toBe(true);
    server.enqueue(textTurn('Published.'));
    second.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await second.runtime.whenIdle(second.sessionId);
    expect(second.log).toEqual(['publish site']);
    expect(second.view().status).toBe('completed');
    // One request, one answer: the gate was not asked twice.
    expect(second.store.journal(second.sessionId).filter((entry) => entry.event.type === 'approval_requested')).toHaveLength(1);
  });

  it('a call waiting at its gate waits there again after a restart, even when the autonomy now would run it', async () => {
    const first = await start();
    server.enqueue({ steps: [toolCall('write_note', { name: 'todo', text: 'milk' }, 'c1')] });
    first.runtime.send(first.sessionId, 'Write');
    const waiting = await first.until((view) => view.pendingApproval !== null, 'the gate');
    // L2 would run a low-risk write; the running turn asked under L1, and that gate was never answered.
    first.store.update(first.sessionId, { autonomy: 'L2' }, first.clock.now());
    const second = await restart(first);

    const view = await second.until((current) => current.status === 'waiting_approval', 'the gate again');
    expect(view.pendingApproval?.approvalId).toBe(waiting.pendingApproval?.approvalId);
    expect(second.log).toEqual([]);
    server.enqueue(textTurn('Not written.'));
    second.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'deny');
    await second.runtime.whenIdle(second.sessionId);
    expect(second.log).toEqual([]);
  });

  it('a step of an approved plan waiting at its own gate (its grant was revoked) waits there again after a restart', async () => {
    const first = await start();
    const note = { name: 'b', text: 'x' };
    server.enqueue({ steps: [toolCall('write_note', note, 'g1')] }, textTurn('ok'));
    first.runtime.send(first.sessionId, 'Make a grant');
    const gate = await first.until((view) => view.pendingApproval !== null, 'the grant gate');
    first.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_1h');
    await first.runtime.whenIdle(first.sessionId);
    const [grant] = first.trust.listActive(first.clock.now());
    expect(grant).toBeDefined();

    server.enqueue({
      steps: [
        { kind: 'text', text: 'Publish, read, write.' },
        toolCall('publish', { target: 'site' }, 'c1'),
        toolCall('slow', {}, 'c2'),
        toolCall('write_note', note, 'c3'),
      ],
    });
    first.runtime.send(first.sessionId, 'Do it');
    const plan = await first.until((view) => view.plan?.state === 'waiting', 'the plan');
    first.runtime.answerPlan(plan.plan?.planId ?? '', 'approve');
    await first.until(() => first.log.includes('slow started'), 'the slow step');
    first.trust.revoke(grant?.id ?? '', first.clock.now());
    first.releaseSlow();
    const stepGate = await first.until((view) => view.pendingApproval !== null, 'the gate of the third step');
    expect(first.log).toEqual(['write b', 'publish site', 'slow started', 'slow finished']);
    const second = await restart(first);

    const view = await second.until((current) => current.status === 'waiting_approval', 'the step gate again');
    expect(view.pendingApproval?.approvalId).toBe(stepGate.pendingApproval?.approvalId);
    expect(second.log).toEqual([]);
    server.enqueue(textTurn('Done.'));
    second.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await second.runtime.whenIdle(second.sessionId);
    expect(second.log).toEqual(['write b']);
  });

  it('an answer given straight after the restart, before the turn is back at its gate, is kept for it', async () => {
    const first = await start();
    server.enqueue({ steps: [toolCall('publish', { target: 'site' }, 'c1')] });
    first.runtime.send(first.sessionId, 'Publish');
    const waiting = await first.until((view) => view.pendingApproval !== null, 'the gate');
    const second = await restart(first);
    server.enqueue(textTurn('Published.'));
    second.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'allow_once');
    // A second answer to the same gate is refused, as for any gate.
    expect(() => second.runtime.answerApproval(waiting.pendingApproval?.approvalId ?? '', 'deny')).toThrow();
    await second.runtime.whenIdle(second.sessionId);
    expect(second.log).toEqual(['publish site']);
    expect(second.view().status).toBe('completed');
  });

  it('a queued message is shown after the crash, runs after Resume, and comes back to the composer on Discard', async () => {
    const first = await start();
    server.enqueue({ steps: [toolCall('slow', {}, 'c1')] });
    first.runtime.send(first.sessionId, 'Slow');
    await first.until(
      (view) => view.messages.some((message) => message.toolCalls.some((call) => call.state === 'running')),
      'the slow call',
    );
    first.runtime.send(first.sessionId, 'Then this');
    const second = await restart(first);
    expect(second.view().interrupted?.queued).toBe('Then this');
    server.enqueue(textTurn('Slow done.'), textTurn('And this.'));
    second.runtime.resume(second.sessionId);
    await second.until(
      (view) => view.messages.some((message) => message.text === 'And this.') && view.status === 'completed',
      'the queued message to run',
    );
    expect(lastPrompt(server).at(-1)).toBe('user: Then this');

    // The same again, discarded this time.
    server.enqueue({ steps: [toolCall('slow', {}, 'c2')] });
    second.runtime.send(second.sessionId, 'Slow again');
    await second.until(
      (view) => view.messages.some((message) => message.toolCalls.some((call) => call.state === 'running')),
      'the second slow call',
    );
    second.runtime.send(second.sessionId, 'Queued again');
    const third = await restart(second);
    const requests = server.requests.length;
    expect(third.runtime.discard(third.sessionId)).toEqual({ queued: 'Queued again' });
    const view = third.view();
    expect(view.status).toBe('cancelled');
    expect(view.interrupted).toBeNull();
    expect(view.queued).toBeNull();
    expect(server.requests.length).toBe(requests);
    expect(() => third.runtime.resume(third.sessionId)).toThrow(expect.objectContaining({ code: 'invalid_state' }));
  });
});
