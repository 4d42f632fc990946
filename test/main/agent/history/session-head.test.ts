import { afterEach, describe, expect, it } from 'vitest';
import type { JournalEntry, RuntimeEvent } from '../../../../src/shared/events';
import { advanceHead, replayHead } from '../../../../src/main/agent/history/head-fold';
import { callStandingSchema } from '../../../../src/main/agent/ports/session-head';
import { SessionJournal } from '../../../../src/main/agent/history/session-journal';
import { systemClock } from '../../../../src/main/agent/ports/clock';
import { SqliteSessionStore } from '../../../../src/main/store/sqlite-session-store';
import { headMismatches, readHead } from '../../../head-check';
import { textTurn, type ScriptedModelServer } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

const model = { providerId: 'p', model: 'm' };
const entries = (events: RuntimeEvent[]): JournalEntry[] => events.map((event, seq) => ({ sessionId: 's', seq, at: 0, event }));

describe('the head of a line', () => {
  it('follows a turn from its question through a gate to its end', () => {
    const events: RuntimeEvent[] = [
      { type: 'user_message', turnId: 't1', messageId: 'm1', text: 'hi' },
      { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
      { type: 'checkpoint_saved', turnId: 't1', checkpointId: 'c0', parentId: null, seq: 0, source: 'input' },
      { type: 'assistant_message_started', turnId: 't1', messageId: 'a1' },
      ...(['x', 'y'].map((id) => ({
        type: 'tool_call_requested',
        turnId: 't1',
        toolCallId: id,
        messageId: 'a1',
        tool: 'write_note',
        input: {},
        summary: id,
        risk: 'write_low',
        riskReason: 'writes',
      })) as RuntimeEvent[]),
      { type: 'checkpoint_saved', turnId: 't1', checkpointId: 'c1', parentId: 'c0', seq: 1, source: 'model' },
      {
        type: 'approval_requested',
        turnId: 't1',
        toolCallId: 'x',
        approvalId: 'g1',
        tool: 'write_note',
        summary: 'x',
        input: {},
        risk: 'write_low',
        reason: 'r',
      },
    ];
    const atGate = replayHead(entries(events));
    expect(atGate).toEqual({
      checkpointId: 'c1',
      openTurn: 't1',
      queued: null,
      lastSeq: 7,
      resume: {
        at: 'tools',
        messageId: 'a1',
        firstSeq: 4,
        plan: null,
        calls: [
          { toolCallId: 'x', state: 'gate', approvalId: 'g1' },
          { toolCallId: 'y', state: 'requested' },
        ],
      },
    });
    const finished = replayHead(
      entries([
        ...events,
        { type: 'approval_answered', turnId: 't1', toolCallId: 'x', approvalId: 'g1', decision: 'deny', reason: 'no' },
        {
          type: 'tool_call_finished',
          turnId: 't1',
          toolCallId: 'x',
          status: 'denied',
          output: 'no',
          outputBytes: 2,
          truncated: false,
          latencyMs: 0,
        },
        { type: 'message_queued', text: 'next', replaced: false },
        { type: 'run_finished', turnId: 't1', status: 'completed' },
      ]),
    );
    expect(finished).toEqual({ checkpointId: 'c1', openTurn: null, queued: 'next', resume: null, lastSeq: 11 });
  });

  it('keeps the person’s own version of a call’s content answered at its gate, as the store reads it back', () => {
    const head = replayHead(
      entries([
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
        {
          type: 'tool_call_requested',
          turnId: 't1',
          toolCallId: 'x',
          messageId: 'a1',
          tool: 'write_file',
          input: { path: 'a.txt', content: 'model' },
          summary: 'a.txt',
          risk: 'write_low',
          riskReason: 'writes',
        },
        {
          type: 'approval_requested',
          turnId: 't1',
          toolCallId: 'x',
          approvalId: 'g1',
          tool: 'write_file',
          summary: 'a.txt',
          input: {},
          risk: 'write_low',
          reason: 'r',
          editableField: 'content',
        },
        { type: 'approval_answered', turnId: 't1', toolCallId: 'x', approvalId: 'g1', decision: 'allow_once', content: 'mine' },
      ]),
    );
    const call = head.resume?.at === 'tools' ? head.resume.calls[0] : undefined;
    expect(call?.answer).toEqual({ decision: 'allow_once', content: 'mine' });
    // What the store keeps is read back through its schema: the version must survive it, or a resumed turn runs the model's.
    expect(callStandingSchema.parse(call).answer?.content).toBe('mine');
  });

  it('starts a branch from its own first event: its checkpoint, nothing running, nothing queued', () => {
    const running = replayHead(
      entries([
        { type: 'message_queued', text: 'later', replaced: false },
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
      ]),
    );
    expect(running.openTurn).toBe('t1');
    const branched = advanceHead(running, 2, {
      type: 'branch_started',
      branchId: 'b',
      parentId: 'main',
      forkSeq: 1,
      checkpointId: 'c9',
      reason: 'restore',
    });
    expect(branched).toEqual({ checkpointId: 'c9', openTurn: null, queued: null, resume: null, lastSeq: 2 });
  });

  it('keeps where a resumed turn stood, and a new response starts at the model', () => {
    const head = replayHead(
      entries([
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
        {
          type: 'tool_call_requested',
          turnId: 't1',
          toolCallId: 'x',
          messageId: 'a1',
          tool: 'n',
          input: {},
          summary: '',
          risk: 'read_only',
          riskReason: '',
        },
        { type: 'tool_call_started', turnId: 't1', toolCallId: 'x', rule: 'matrix' },
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible', resumed: true },
      ]),
    );
    expect(head.resume).toEqual({
      at: 'tools',
      messageId: 'a1',
      firstSeq: 1,
      plan: null,
      calls: [{ toolCallId: 'x', state: 'running' }],
    });
    expect(advanceHead(head, 4, { type: 'assistant_message_started', turnId: 't1', messageId: 'a2' }).resume).toEqual({ at: 'model' });
  });

  it('reads the same as the journal read without the fold', () => {
    const events: RuntimeEvent[] = [
      { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
      {
        type: 'tool_call_requested',
        turnId: 't1',
        toolCallId: 'x',
        messageId: 'a1',
        tool: 'n',
        input: {},
        summary: '',
        risk: 'read_only',
        riskReason: '',
      },
      { type: 'plan_proposed', turnId: 't1', planId: 'p1', purpose: '', steps: [], maxRisk: 'read_only', needsApproval: true },
      { type: 'plan_answered', turnId: 't1', planId: 'p1', answer: 'refine', text: 'smaller' },
    ];
    expect(replayHead(entries(events))).toEqual(readHead(entries(events)));
    expect(replayHead(entries(events)).resume).toMatchObject({ plan: { planId: 'p1', state: 'refined', text: 'smaller' } });
  });
});

describe('the stored head', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  afterEach(async () => {
    for (const harness of opened.splice(0)) await harness.close();
  });
  const start = async (options: Parameters<typeof createHarness>[1] = {}): Promise<Harness> => {
    const harness = await createHarness(server, options);
    opened.push(harness);
    return harness;
  };
  /** After every step: each branch's row equals the replay of its line and the journal read without the fold. */
  const expectHeadsTrue = (harness: Harness, step: string): void => {
    expect(headMismatches(harness.db), step).toEqual([]);
    const active = harness.store.activeBranch(harness.sessionId);
    expect(harness.store.head(harness.sessionId), step).toEqual(replayHead(harness.store.journal(harness.sessionId, { branchId: active })));
  };
  const idle = async (harness: Harness): Promise<void> => harness.runtime.whenIdle(harness.sessionId);

  it('equals what a replay of the journal says after every kind of step', async () => {
    const harness = await start();
    const { runtime, sessionId } = harness;
    expectHeadsTrue(harness, 'a new session');

    server.enqueue(textTurn('Hello.'));
    runtime.send(sessionId, 'Hi');
    await idle(harness);
    expectHeadsTrue(harness, 'a plain answer');

    server.enqueue({ steps: [toolCall('read_note', { name: 'a' })] }, textTurn('Read it.'));
    runtime.send(sessionId, 'Read a');
    await idle(harness);
    expectHeadsTrue(harness, 'a read-only call');

    server.enqueue({ steps: [toolCall('write_note', { name: 'b', text: 't' })] }, textTurn('Wrote it.'));
    runtime.send(sessionId, 'Write b');
    let view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    expectHeadsTrue(harness, 'waiting at a gate');
    runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_5m');
    await idle(harness);
    expectHeadsTrue(harness, 'a grant');

    server.enqueue({ steps: [toolCall('publish', { target: 'x' })] }, textTurn('Not published.'));
    runtime.send(sessionId, 'Publish');
    view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'deny', 'not today');
    await idle(harness);
    expectHeadsTrue(harness, 'a denial');

    const plan = {
      steps: [
        toolCall('publish', { target: '1' }, 'p1'),
        toolCall('publish', { target: '2' }, 'p2'),
        toolCall('read_note', { name: 'c' }, 'p3'),
      ],
    };
    server.enqueue(plan, textTurn('Done the plan.'), plan, textTurn('Rejected.'));
    runtime.send(sessionId, 'Plan');
    view = await harness.until((current) => current.plan?.state === 'waiting', 'the plan');
    expectHeadsTrue(harness, 'a plan waiting');
    runtime.answerPlan(view.plan?.planId ?? '', 'approve');
    await idle(harness);
    expectHeadsTrue(harness, 'an approved plan');
    runtime.send(sessionId, 'Plan again');
    view = await harness.until((current) => current.plan?.state === 'waiting', 'the second plan');
    runtime.answerPlan(view.plan?.planId ?? '', 'reject', 'no');
    await idle(harness);
    expectHeadsTrue(harness, 'a rejected plan');

    server.enqueue(textTurn('a slow answer that streams for a while', { chunkSize: 2, chunkDelayMs: 15 }), textTurn('Queued answer.'));
    runtime.send(sessionId, 'Slow');
    await harness.until(
      (current) => current.messages.at(-1)?.role === 'assistant' && (current.messages.at(-1)?.text.length ?? 0) > 2,
      'some text',
    );
    runtime.send(sessionId, 'Queued');
    expectHeadsTrue(harness, 'a queued message');
    runtime.clearQueue(sessionId);
    runtime.send(sessionId, 'Queued again');
    await runtime.cancel(sessionId);
    await idle(harness);
    expectHeadsTrue(harness, 'a stop, then the queued message');

    server.enqueue(textTurn('Edited answer.'));
    const question = harness.view().messages.find((message) => message.role === 'user');
    runtime.editMessage(sessionId, question?.id ?? '', 'Hi again');
    await idle(harness);
    expectHeadsTrue(harness, 'an edit');
    const turnId = harness.view().messages.at(-1)?.turnId ?? '';
    server.enqueue(textTurn('Retried answer.'));
    runtime.retryTurn(sessionId, turnId);
    await idle(harness);
    expectHeadsTrue(harness, 'a retry');
    runtime.switchBranch(sessionId, 'main');
    expectHeadsTrue(harness, 'a switch back');
    const checkpoint = harness.store.nearest(sessionId, 'after', 0, ['checkpoint_saved']);
    runtime.restoreCheckpoint(sessionId, checkpoint?.event.type === 'checkpoint_saved' ? checkpoint.event.checkpointId : '');
    expectHeadsTrue(harness, 'a restore');

    server.enqueue({ steps: [], fault: { kind: 'status', status: 400, message: 'no' } });
    runtime.send(sessionId, 'Fail');
    await idle(harness);
    expect(harness.view().status).toBe('failed');
    expectHeadsTrue(harness, 'a failed turn');
  });

  it('equals the replay after a crash at a gate, a crash in a running call, a resume and a discard', async () => {
    const first = await start();
    server.enqueue({ steps: [toolCall('write_note', { name: 'a', text: 't' })] });
    first.runtime.send(first.sessionId, 'Write');
    await first.until((view) => view.pendingApproval !== null, 'the gate');
    first.crash();
    const second = await first.reopen();
    opened.push(second);
    expectHeadsTrue(second, 'reopened at the gate');
    const gate = await second.until((view) => view.pendingApproval !== null, 'the gate again');
    server.enqueue({ steps: [toolCall('slow', {}, 's1')] });
    second.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'allow_once');
    await second.until(
      (view) => view.messages.some((message) => message.toolCalls.some((call) => call.state === 'running' && call.tool === 'slow')),
      'the slow call',
    );
    expectHeadsTrue(second, 'a call running');
    second.crash();
    const third = await second.reopen();
    opened.push(third);
    expectHeadsTrue(third, 'interrupted');
    server.enqueue(textTurn('Resumed.'));
    third.runtime.resume(third.sessionId);
    await third.runtime.whenIdle(third.sessionId);
    expect(third.view().status).toBe('completed_with_errors');
    expectHeadsTrue(third, 'resumed to its end');

    server.enqueue({ steps: [toolCall('slow', {}, 's2')] });
    third.runtime.send(third.sessionId, 'Slow again');
    await third.until(
      (view) => view.messages.filter((message) => message.toolCalls.some((call) => call.state === 'running')).length > 0,
      'the call',
    );
    third.crash();
    const fourth = await third.reopen();
    opened.push(fourth);
    fourth.runtime.discard(fourth.sessionId);
    expectHeadsTrue(fourth, 'discarded');
  });

  it('of a database from before heads, or of an import, is replayed once from the journal', async () => {
    const harness = await start();
    server.enqueue({ steps: [toolCall('write_note', { name: 'a', text: 't' })] });
    harness.runtime.send(harness.sessionId, 'Write');
    const view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    const before = harness.store.head(harness.sessionId);
    // As a database migrated from before heads has it: no head computed yet.
    harness.db.prepare('UPDATE sessions SET head_format = 0, open_turn = NULL, resume = NULL').run();
    harness.db.prepare('UPDATE branches SET head_format = 0, open_turn = NULL, resume = NULL').run();
    // The store never folds: a head it does not have reads as none, and the journal replays it once and keeps it.
    const bare = new SqliteSessionStore(harness.db);
    expect(bare.head(harness.sessionId)).toBeNull();
    const silent = { onEntries: () => undefined, onSessionChanged: () => undefined };
    expect(new SessionJournal(bare, silent, systemClock).head(harness.sessionId)).toEqual(before);
    expect(bare.head(harness.sessionId)).toEqual(before);
    expectHeadsTrue(harness, 'replayed');
    // The app stops (one process writes a database at a time), and starts again on it.
    harness.crash();
    const reopened = await harness.reopen();
    opened.push(reopened);
    expectHeadsTrue(reopened, 'reopened at the gate');
    reopened.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'deny');
    await reopened.runtime.whenIdle(reopened.sessionId);
    expectHeadsTrue(reopened, 'after the replayed head moved on');
  });
});
