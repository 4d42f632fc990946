import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalDecision } from '../../../../src/shared/domain';
import type { RuntimeEvent } from '../../../../src/shared/events';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

type Started = Extract<RuntimeEvent, { type: 'tool_call_started' }>;

describe('a grant answered at a gate, for the calls after it in the same response', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) {
      harness.releaseSlow();
      await harness.close();
    }
  });

  const open = async (): Promise<Harness> => {
    const harness = await createHarness(server);
    opened.push(harness);
    return harness;
  };
  const events = <T extends RuntimeEvent['type']>(harness: Harness, type: T): Array<Extract<RuntimeEvent, { type: T }>> =>
    harness.store
      .journal(harness.sessionId)
      .map((entry) => entry.event)
      .filter((event): event is Extract<RuntimeEvent, { type: T }> => event.type === type);
  /** How the response's n-th call started (the runtime gives calls ids of its own). */
  const startOf = (harness: Harness, index: number): Started | undefined => {
    const id = events(harness, 'tool_call_requested')[index]?.toolCallId;
    return events(harness, 'tool_call_started').find((event) => event.toolCallId === id);
  };

  /** Answers every gate of the turn with `answer` until it ends; resolves how many gates opened. */
  async function answerEvery(harness: Harness, answer: ApprovalDecision): Promise<number> {
    let gates = 0;
    while (harness.runtime.isBusy(harness.sessionId)) {
      const pending = harness.view().pendingApproval;
      if (pending) {
        gates += 1;
        harness.runtime.answerApproval(pending.approvalId, answer);
        await harness.until((view) => view.pendingApproval?.approvalId !== pending.approvalId, 'the answer taken');
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    return gates;
  }

  it('covers the identical call after it: it runs without asking, on the grant', async () => {
    const harness = await open();
    const call = { name: 'todo', text: 'milk' };
    server.enqueue({ steps: [toolCall('write_note', call, 'c1'), toolCall('write_note', call, 'c2')] }, textTurn('Both written.'));
    harness.runtime.send(harness.sessionId, 'Write it twice');
    expect(await answerEvery(harness, 'allow_5m')).toBe(1);
    expect(harness.log).toEqual(['write todo', 'write todo']);
    const [grant] = harness.trust.listActive(harness.clock.now());
    expect(events(harness, 'approval_requested')).toHaveLength(1);
    expect(startOf(harness, 0)?.rule).toBe('approval');
    expect(startOf(harness, 1)).toMatchObject({ rule: 'grant', grantId: grant?.id });
  });

  it('covers a later call its pattern matches, and not one outside it', async () => {
    const harness = await open();
    server.enqueue(
      {
        steps: [
          toolCall('shell', { command: 'git show HEAD' }, 'c1'),
          toolCall('shell', { command: 'git show HEAD~1' }, 'c2'),
          toolCall('shell', { command: 'git status' }, 'c3'),
        ],
      },
      textTurn('Shown.'),
    );
    harness.settings.set({ ...harness.settings.get(), planThreshold: 10 });
    harness.runtime.send(harness.sessionId, 'Show me');
    const first = await harness.until((view) => view.pendingApproval !== null, 'the first gate');
    harness.runtime.answerApproval(first.pendingApproval?.approvalId ?? '', 'allow_session');
    const second = await harness.until(
      (view) => view.pendingApproval !== null && view.pendingApproval.approvalId !== first.pendingApproval?.approvalId,
    );
    expect(second.pendingApproval?.summary).toBe('git status');
    harness.runtime.answerApproval(second.pendingApproval?.approvalId ?? '', 'deny');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['shell git show HEAD', 'shell git show HEAD~1']);
    expect(startOf(harness, 1)?.rule).toBe('grant');
  });

  it('Allow once covers only its own call: the identical call after it asks again', async () => {
    const harness = await open();
    const call = { name: 'todo', text: 'milk' };
    server.enqueue({ steps: [toolCall('write_note', call, 'c1'), toolCall('write_note', call, 'c2')] }, textTurn('Both written.'));
    harness.runtime.send(harness.sessionId, 'Write it twice');
    expect(await answerEvery(harness, 'allow_once')).toBe(2);
    expect(harness.trust.listActive(harness.clock.now())).toEqual([]);
    expect(startOf(harness, 1)).toMatchObject({ rule: 'approval' });
    expect(startOf(harness, 1)?.grantId).toBeUndefined();
  });

  it('a turn resumed after a crash decides the calls after the grant the same way', async () => {
    const first = await open();
    first.settings.set({ ...first.settings.get(), planThreshold: 10 });
    const call = { name: 'todo', text: 'milk' };
    server.enqueue({ steps: [toolCall('write_note', call, 'c1'), toolCall('slow', {}, 'c2'), toolCall('write_note', call, 'c3')] });
    first.runtime.send(first.sessionId, 'Write, wait, write');
    const gate = await first.until((view) => view.pendingApproval !== null, 'the gate');
    first.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_1h');
    await first.until(
      (view) => view.messages.some((message) => message.toolCalls.some((item) => item.tool === 'slow' && item.state === 'running')),
      'the slow call',
    );
    first.crash();

    const reopened = await first.reopen();
    opened.push(reopened);
    server.enqueue(textTurn('Written twice.'));
    reopened.runtime.resume(reopened.sessionId);
    await reopened.runtime.whenIdle(reopened.sessionId);
    expect(events(reopened, 'approval_requested')).toHaveLength(1);
    const [grant] = reopened.trust.listActive(reopened.clock.now());
    expect(startOf(reopened, 2)).toMatchObject({ rule: 'grant', grantId: grant?.id });
    expect(reopened.log).toEqual(['write todo']);
  });
});
