import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultGateTimeout, type GateTimeout } from '../../../../src/shared/domain';
import { WorkbenchError } from '../../../../src/shared/errors';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, type Harness } from '../harness';

const second = 1_000;
const timeout = (seconds: number, action: GateTimeout['action'] = 'deny'): GateTimeout => ({
  ...defaultGateTimeout,
  seconds: { ...defaultGateTimeout.seconds, L1: seconds },
  action,
});

describe('gate time limits', () => {
  let server: ScriptedModelServer;
  let harness: Harness | null = null;
  beforeAll(async () => {
    server = await ScriptedModelServer.start();
  });
  afterAll(async () => server.close());
  beforeEach(() => server.reset());
  afterEach(async () => {
    await harness?.close();
    harness = null;
  });

  const gateOf = (target: Harness) =>
    target.store
      .journal(target.sessionId)
      .map((entry) => entry.event)
      .filter((event) => event.type === 'approval_requested' || event.type === 'approval_answered');

  it('a gate with no answer within its limit is denied, the model is told, and the turn goes on', async () => {
    harness = await createHarness(server, { settings: { gateTimeout: timeout(60) } });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Understood: no answer came.'));
    harness.runtime.send(harness.sessionId, 'Write the note');
    const waiting = await harness.until((view) => view.pendingApproval !== null, 'the gate');
    expect(waiting.pendingApproval?.deadline).toEqual({ wallAt: harness.clock.now() + 60 * second, seconds: 60, action: 'deny' });
    harness.clock.advance(59 * second);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(harness.view().pendingApproval).not.toBeNull();
    harness.clock.advance(2 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    const answered = gateOf(harness).find((event) => event.type === 'approval_answered');
    expect(answered).toMatchObject({ decision: 'deny', timedOut: true, reason: 'no answer came within 1 minute' });
    const toolMessage = (server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>).find(
      (message) => message.role === 'tool',
    );
    expect(toolMessage?.content).toBe('Not run: no answer came within 1 minute, so it was denied.');
    expect(harness.view().status).toBe('completed');
  });

  it('set to stop, the turn ends there and the calls after it do not run', async () => {
    harness = await createHarness(server, { settings: { gateTimeout: timeout(30, 'stop') } });
    server.enqueue({ steps: [toolCall('write_note', { name: 'a', text: 't' }, 'c1'), toolCall('read_note', { name: 'b' }, 'c2')] });
    harness.runtime.send(harness.sessionId, 'Two things');
    await harness.until((view) => view.pendingApproval !== null, 'the gate');
    harness.clock.advance(31 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(gateOf(harness).at(-1)).toMatchObject({ type: 'approval_answered', decision: 'deny', timedOut: true });
    expect(harness.view().status).toBe('cancelled');
  });

  it('an answer at the moment the gate times out: the first one counts, the other is told', async () => {
    harness = await createHarness(server, { settings: { gateTimeout: timeout(10) } });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Write it');
    const view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    const approvalId = view.pendingApproval?.approvalId ?? '';
    harness.clock.advance(11 * second);
    await harness.until((current) => current.pendingApproval === null, 'the time-out');
    let refused: unknown = null;
    try {
      harness.runtime.answerApproval(approvalId, 'allow_once');
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WorkbenchError);
    expect((refused as WorkbenchError).code).toBe('already_answered');
    expect((refused as WorkbenchError).message).toContain('timed out');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);

    // Answered first, the gate's own time-out later changes nothing.
    server.enqueue({ steps: [toolCall('write_note', { name: 'm', text: 't' })] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Again');
    const next = await harness.until((current) => current.pendingApproval !== null, 'the second gate');
    harness.runtime.answerApproval(next.pendingApproval?.approvalId ?? '', 'allow_once');
    harness.clock.advance(11 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['write m']);
    expect(gateOf(harness).filter((event) => event.type === 'approval_answered' && event.timedOut)).toHaveLength(1);
  });

  it('a gate open when the app stopped keeps its deadline: neither the restart nor a clock set back extends it', async () => {
    const first = await createHarness(server, { settings: { gateTimeout: timeout(120) } });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Noted.'));
    first.runtime.send(first.sessionId, 'Write it');
    await first.until((view) => view.pendingApproval !== null, 'the gate');
    first.clock.advance(100 * second);
    // Steady time is kept as the gate waits.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    first.crash();
    // Set back an hour while the app was down.
    first.clock.advance(-60 * 60 * second);
    harness = await first.reopen();
    // A turn that waited at a gate goes back to it when the app starts again.
    if (!harness.runtime.isBusy(harness.sessionId)) harness.runtime.resume(harness.sessionId);
    const reopened = await harness.until((view) => view.pendingApproval !== null, 'the gate again');
    expect(reopened.pendingApproval?.deadline?.seconds).toBe(120);
    harness.clock.advance(15 * second);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(harness.view().pendingApproval).not.toBeNull();
    harness.clock.advance(6 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(gateOf(harness).at(-1)).toMatchObject({ type: 'approval_answered', timedOut: true });
  });

  it("a plan's gate has the same limit: unanswered, the plan is rejected and the model told why", async () => {
    harness = await createHarness(server, { settings: { gateTimeout: timeout(60) } });
    server.enqueue(
      {
        steps: [
          toolCall('write_note', { name: 'a', text: 't' }, 'p1'),
          toolCall('write_note', { name: 'b', text: 't' }, 'p2'),
          toolCall('write_note', { name: 'c', text: 't' }, 'p3'),
        ],
      },
      textTurn('The plan was not approved in time.'),
    );
    harness.runtime.send(harness.sessionId, 'Write three notes');
    const waiting = await harness.until((view) => view.plan?.state === 'waiting', 'the plan');
    expect(waiting.plan?.deadline).toMatchObject({ seconds: 60, action: 'deny' });
    harness.clock.advance(61 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    const answered = harness.store
      .journal(harness.sessionId)
      .map((entry) => entry.event)
      .find((event) => event.type === 'plan_answered');
    expect(answered).toMatchObject({ answer: 'reject', timedOut: true, text: 'no answer came within 1 minute' });
    const toolMessages = (server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>).filter(
      (message) => message.role === 'tool',
    );
    expect(toolMessages.map((message) => message.content)).toEqual(
      Array(3).fill('Not run: no answer came within 1 minute, so the plan was rejected.'),
    );
  });

  it('a plan unanswered with the limit set to stop ends the turn', async () => {
    harness = await createHarness(server, { settings: { gateTimeout: timeout(60, 'stop') } });
    server.enqueue({
      steps: [
        toolCall('write_note', { name: 'a', text: 't' }, 'q1'),
        toolCall('write_note', { name: 'b', text: 't' }, 'q2'),
        toolCall('write_note', { name: 'c', text: 't' }, 'q3'),
      ],
    });
    harness.runtime.send(harness.sessionId, 'Write three notes');
    await harness.until((view) => view.plan?.state === 'waiting', 'the plan');
    harness.clock.advance(61 * second);
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(harness.view().status).toBe('cancelled');
  });

  it('off (the default), a gate waits however long it takes', async () => {
    harness = await createHarness(server);
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Write it');
    const view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    expect(view.pendingApproval?.deadline).toBeNull();
    harness.clock.advance(48 * 60 * 60 * second);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(harness.view().pendingApproval).not.toBeNull();
    harness.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['write n']);
  });
});
