import { describe, expect, it } from 'vitest';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { lastPrompt, toolCall, useHarness, type Harness } from '../harness';

const texts = (harness: Harness): string[] => harness.view().messages.map((message) => `${message.role}: ${message.text}`);

describe('branches', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  async function twoTurns(): Promise<void> {
    server.enqueue(textTurn('A1'), textTurn('A2'));
    harness.runtime.send(harness.sessionId, 'Q1');
    await harness.runtime.whenIdle(harness.sessionId);
    harness.runtime.send(harness.sessionId, 'Q2');
    await harness.runtime.whenIdle(harness.sessionId);
  }

  it('editing a past message re-runs from before it on a new branch, and the old branch can be shown again', async () => {
    await twoTurns();
    const first = harness.view().messages[0];
    server.enqueue(textTurn('A1 edited'));
    const { branchId } = harness.runtime.editMessage(harness.sessionId, first?.id ?? '', 'Q1 edited');
    await harness.runtime.whenIdle(harness.sessionId);

    // The model saw only the edited message: nothing after the fork point.
    expect(lastPrompt(server)).toEqual(['user: Q1 edited']);
    expect(texts(harness)).toEqual(['user: Q1 edited', 'assistant: A1 edited']);
    expect(harness.store.activeBranch(harness.sessionId)).toBe(branchId);

    const [point] = harness.runtime.branchPoints(harness.sessionId);
    expect(point?.versions.map((version) => [version.reason, version.shown])).toEqual([
      ['original', false],
      ['edit', true],
    ]);
    // The versions differ from the first message on: the switcher sits on it.
    expect(harness.view().messages.find((message) => message.seq > (point?.forkSeq ?? 0))?.text).toBe('Q1 edited');

    harness.runtime.switchBranch(harness.sessionId, point?.versions[0]?.branchId ?? '');
    expect(texts(harness)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2']);
    harness.runtime.switchBranch(harness.sessionId, branchId);
    expect(texts(harness)).toEqual(['user: Q1 edited', 'assistant: A1 edited']);

    const tree = harness.runtime.tree(harness.sessionId);
    expect(tree?.children.map((child) => [child.title, child.active, child.branch.reason])).toEqual([['Q1 edited', true, 'edit']]);
    expect(tree?.messages).toBe(4);
  });

  it('retrying an answer keeps the question and every answer: "3 / 3", then back to the first', async () => {
    await twoTurns();
    const secondTurn = harness.view().messages[3]?.turnId ?? '';
    server.enqueue(textTurn('A2 again'));
    harness.runtime.retryTurn(harness.sessionId, secondTurn);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(lastPrompt(server)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2']);
    expect(texts(harness)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2 again']);

    // A retry of the retried answer is a third version of the same answer, not a branch of a branch.
    server.enqueue(textTurn('A2 third'));
    harness.runtime.retryTurn(harness.sessionId, harness.view().messages[3]?.turnId ?? '');
    await harness.runtime.whenIdle(harness.sessionId);
    const points = harness.runtime.branchPoints(harness.sessionId);
    expect(points).toHaveLength(1);
    expect(points[0]?.versions.map((version) => version.shown)).toEqual([false, false, true]);
    const answer = harness.view().messages[3];
    expect(answer?.text).toBe('A2 third');
    expect(answer?.seq).toBeGreaterThan(points[0]?.forkSeq ?? Infinity);

    harness.runtime.switchBranch(harness.sessionId, points[0]?.versions[0]?.branchId ?? '');
    expect(texts(harness)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2']);
    // Going on from the original continues the original line.
    server.enqueue(textTurn('A3'));
    harness.runtime.send(harness.sessionId, 'Q3');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(lastPrompt(server)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2', 'assistant: A2', 'user: Q3']);
  });

  it('switching back to a version shows it as it was last seen, branches under it included', async () => {
    await twoTurns();
    const q1 = harness.view().messages[0]?.id ?? '';
    server.enqueue(textTurn('B1'), textTurn('B2'));
    harness.runtime.editMessage(harness.sessionId, q1, 'Q1 b');
    await harness.runtime.whenIdle(harness.sessionId);
    harness.runtime.send(harness.sessionId, 'Q2 b');
    await harness.runtime.whenIdle(harness.sessionId);
    // Back on the original line, then edit Q2 there: the original now has a branch of its own.
    const [point] = harness.runtime.branchPoints(harness.sessionId);
    harness.runtime.switchBranch(harness.sessionId, point?.versions[0]?.branchId ?? '');
    server.enqueue(textTurn('C2'));
    harness.runtime.editMessage(harness.sessionId, harness.view().messages[2]?.id ?? '', 'Q2 c');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(texts(harness)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2 c', 'assistant: C2']);

    // To the "b" version and back to the original: the original comes back with its newest branch.
    const top = harness.runtime.branchPoints(harness.sessionId).find((candidate) => candidate.forkSeq === point?.forkSeq);
    harness.runtime.switchBranch(harness.sessionId, top?.versions[1]?.branchId ?? '');
    expect(texts(harness)).toEqual(['user: Q1 b', 'assistant: B1', 'user: Q2 b', 'assistant: B2']);
    const again = harness.runtime.branchPoints(harness.sessionId).find((candidate) => candidate.forkSeq === point?.forkSeq);
    harness.runtime.switchBranch(harness.sessionId, again?.versions[0]?.branchId ?? '');
    expect(texts(harness)).toEqual(['user: Q1', 'assistant: A1', 'user: Q2 c', 'assistant: C2']);
    expect(harness.runtime.tree(harness.sessionId)?.children).toHaveLength(2);
  });

  it('restoring a checkpoint brings the conversation back to it as a new branch, and the next message goes on from there', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'Reading.' }, toolCall('read_note', { name: 'a' }, 'c1')] }, textTurn('Read it.'));
    harness.runtime.send(harness.sessionId, 'Read a');
    await harness.runtime.whenIdle(harness.sessionId);
    const afterModel = harness.view().checkpoints.find((checkpoint) => checkpoint.source === 'model');
    const before = harness.store.journal(harness.sessionId).length;
    const { recovered } = harness.runtime.restoreCheckpoint(harness.sessionId, afterModel?.id ?? '');
    expect(recovered).toBe(false);
    const view = harness.view();
    expect(view.status).toBe('idle');
    expect(view.messages.map((message) => message.text)).toEqual(['Read a', 'Reading.']);
    // The call the restored point had not run yet is shown as not run.
    expect(view.messages[1]?.toolCalls.map((call) => call.state)).toEqual(['cancelled']);
    // The original line is untouched.
    const original = harness.store.journal(harness.sessionId, { branchId: 'main' });
    expect(original).toHaveLength(before);

    server.enqueue(textTurn('Going on.'));
    harness.runtime.send(harness.sessionId, 'Go on');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(lastPrompt(server)).toEqual(['user: Read a', 'assistant: Reading.', expect.stringMatching(/^tool: No result/), 'user: Go on']);
  });

  it('a checkpoint that fails its integrity check gives way to its parent, with a warning', async () => {
    server.enqueue({ steps: [{ kind: 'text', text: 'Reading.' }, toolCall('read_note', { name: 'a' }, 'c1')] }, textTurn('Read it.'));
    harness.runtime.send(harness.sessionId, 'Read a');
    await harness.runtime.whenIdle(harness.sessionId);
    const checkpoints = harness.view().checkpoints;
    const tool = checkpoints.find((checkpoint) => checkpoint.source === 'tool');
    const model = checkpoints.find((checkpoint) => checkpoint.source === 'model');
    // Damage the row: its content no longer matches its hash.
    harness.db
      .prepare("UPDATE checkpoints SET appended = replace(appended, 'contents of a', 'contents of b') WHERE id = ?")
      .run(tool?.id ?? '');

    const { recovered } = harness.runtime.restoreCheckpoint(harness.sessionId, tool?.id ?? '');
    expect(recovered).toBe(true);
    const view = harness.view();
    expect(view.warnings).toEqual([expect.stringContaining('failed its integrity check')]);
    const started = harness.store.journal(harness.sessionId).find((entry) => entry.event.type === 'branch_started');
    expect(started?.event).toMatchObject({ checkpointId: model?.id });
    // The branch leaves where the intact checkpoint was saved: the damaged step is not part of it.
    expect(view.messages[1]?.toolCalls[0]?.state).toBe('cancelled');
  });

  it('refuses to branch while a turn runs, or from a message that does not exist, and changes nothing', async () => {
    await twoTurns();
    const before = JSON.stringify(harness.store.journal(harness.sessionId));
    expect(() => harness.runtime.editMessage(harness.sessionId, 'nope', 'x')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => harness.runtime.retryTurn(harness.sessionId, 'nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => harness.runtime.restoreCheckpoint(harness.sessionId, 'nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(() => harness.runtime.switchBranch(harness.sessionId, 'nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
    expect(JSON.stringify(harness.store.journal(harness.sessionId))).toBe(before);

    server.enqueue(textTurn('slow', { chunkDelayMs: 50, chunkSize: 1 }));
    harness.runtime.send(harness.sessionId, 'Q3');
    expect(() => harness.runtime.editMessage(harness.sessionId, harness.view().messages[0]?.id ?? '', 'x')).toThrow(
      expect.objectContaining({ code: 'session_busy' }),
    );
    expect(harness.store.branches(harness.sessionId)).toHaveLength(1);
    await harness.runtime.cancel(harness.sessionId);
  });

  it('branches survive a restart, with the shown one still shown', async () => {
    await twoTurns();
    server.enqueue(textTurn('A1 edited'));
    harness.runtime.editMessage(harness.sessionId, harness.view().messages[0]?.id ?? '', 'Q1 edited');
    await harness.runtime.whenIdle(harness.sessionId);
    await harness.close();
    const reopened = await harness.reopen();
    try {
      expect(texts(reopened)).toEqual(['user: Q1 edited', 'assistant: A1 edited']);
      expect(reopened.runtime.branchPoints(reopened.sessionId)[0]?.versions).toHaveLength(2);
    } finally {
      await reopened.close();
    }
  });

  it('finds where the last turns of the shown line begin, across the branches it is made of', async () => {
    await twoTurns();
    server.enqueue(textTurn('A2 edited'), textTurn('A3'));
    harness.runtime.editMessage(harness.sessionId, harness.view().messages[2]?.id ?? '', 'Q2 edited');
    await harness.runtime.whenIdle(harness.sessionId);
    harness.runtime.send(harness.sessionId, 'Q3');
    await harness.runtime.whenIdle(harness.sessionId);
    const lastTurns = (turns: number): string[] => {
      const from = harness.store.recentTurnsStart(harness.sessionId, turns);
      const entries = harness.store.journal(harness.sessionId, { afterSeq: from - 1 });
      return entries.flatMap((entry) => (entry.event.type === 'user_message' ? [entry.event.text] : []));
    };
    expect(lastTurns(1)).toEqual(['Q3']);
    expect(lastTurns(2)).toEqual(['Q2 edited', 'Q3']);
    // The first turn is on the parent branch: the line is followed into it.
    expect(lastTurns(3)).toEqual(['Q1', 'Q2 edited', 'Q3']);
    expect(harness.store.recentTurnsStart(harness.sessionId, 4)).toBe(-1);
  });
});
