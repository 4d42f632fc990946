import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Autonomy, RiskLevel } from '../../../../src/shared/domain';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

const toolFor: Record<RiskLevel, { name: string; args: unknown; log: string }> = {
  read_only: { name: 'read_note', args: { name: 'n' }, log: 'read n' },
  write_low: { name: 'write_note', args: { name: 'n', text: 't' }, log: 'write n' },
  write_high: { name: 'publish', args: { target: 'site' }, log: 'publish site' },
  destructive: { name: 'wipe', args: {}, log: 'wipe' },
};

/** The design's matrix, written out cell by cell. */
const expected: Record<Autonomy, Record<RiskLevel, 'run' | 'ask'>> = {
  L0: { read_only: 'ask', write_low: 'ask', write_high: 'ask', destructive: 'ask' },
  L1: { read_only: 'run', write_low: 'ask', write_high: 'ask', destructive: 'ask' },
  L2: { read_only: 'run', write_low: 'run', write_high: 'ask', destructive: 'ask' },
  L3: { read_only: 'run', write_low: 'run', write_high: 'run', destructive: 'ask' },
};

const cells = (Object.keys(expected) as Autonomy[]).flatMap((autonomy) =>
  (Object.keys(toolFor) as RiskLevel[]).map((risk) => ({ autonomy, risk, outcome: expected[autonomy][risk] })),
);

describe('approvals', () => {
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

  it.each(cells)('$autonomy with a $risk call: $outcome', async ({ autonomy, risk, outcome }) => {
    harness = await createHarness(server, { autonomy });
    const tool = toolFor[risk];
    server.enqueue({ steps: [toolCall(tool.name, tool.args)] }, textTurn('Finished.'));
    harness.runtime.send(harness.sessionId, 'Do it');
    if (outcome === 'run') {
      await harness.runtime.whenIdle(harness.sessionId);
      expect(harness.log).toEqual([tool.log]);
      expect(harness.store.journal(harness.sessionId).some((entry) => entry.event.type === 'approval_requested')).toBe(false);
      return;
    }
    const view = await harness.until((current) => current.pendingApproval !== null, 'the gate');
    expect(view.status).toBe('waiting_approval');
    expect(view.pendingApproval).toMatchObject({ tool: tool.name, risk, input: tool.args });
    expect(harness.log).toEqual([]);
    harness.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([tool.log]);
  });

  it('tells the model the reason when the person denies a call', async () => {
    harness = await createHarness(server);
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Understood, I will not write it.'));
    harness.runtime.send(harness.sessionId, 'Write');
    const view = await harness.until((current) => current.pendingApproval !== null);
    harness.runtime.answerApproval(view.pendingApproval?.approvalId ?? '', 'deny', 'not in that folder');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    const messages = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.find((message) => message.role === 'tool')?.content).toBe('Not run: the user denied this call: not in that folder');
    expect(harness.view().messages[1]?.toolCalls[0]?.state).toBe('denied');
    expect(harness.view().status).toBe('completed');
  });

  it('refuses a second answer and an unknown id with typed errors, changing nothing', async () => {
    harness = await createHarness(server);
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('ok'));
    harness.runtime.send(harness.sessionId, 'Write');
    const view = await harness.until((current) => current.pendingApproval !== null);
    const approvalId = view.pendingApproval?.approvalId ?? '';
    expect(() => harness?.runtime.answerApproval('nope', 'allow_once')).toThrow(expect.objectContaining({ code: 'not_found' }));
    harness.runtime.answerApproval(approvalId, 'allow_once');
    const journalLength = harness.store.journal(harness.sessionId).length;
    expect(() => harness?.runtime.answerApproval(approvalId, 'deny')).toThrow(expect.objectContaining({ code: 'already_answered' }));
    expect(() => harness?.runtime.answerPlan(approvalId, 'approve')).toThrow(expect.objectContaining({ code: 'already_answered' }));
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['write n']);
    expect(harness.store.journal(harness.sessionId).filter((entry) => entry.event.type === 'approval_answered')).toHaveLength(1);
    expect(harness.store.journal(harness.sessionId).length).toBeGreaterThanOrEqual(journalLength);
  });

  it('refuses a call the person denied in settings before any grant or autonomy, even at L3', async () => {
    harness = await createHarness(server, { autonomy: 'L3', settings: { deniedTools: ['publish'] } });
    server.enqueue({ steps: [toolCall('publish', { target: 'site' })] }, textTurn('It is denied.'));
    harness.runtime.send(harness.sessionId, 'Publish');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(harness.view().messages[1]?.toolCalls[0]).toMatchObject({
      state: 'denied',
      output: expect.stringContaining('denied publish in Settings'),
    });
  });
});

describe('plans', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  const readPlan = {
    steps: [
      { kind: 'text' as const, text: 'I will read three notes.' },
      toolCall('read_note', { name: 'a' }, 'c1'),
      toolCall('read_note', { name: 'b' }, 'c2'),
      toolCall('read_note', { name: 'c' }, 'c3'),
    ],
  };
  const writePlan = {
    steps: [
      { kind: 'text' as const, text: 'Read, then write twice.' },
      toolCall('read_note', { name: 'a' }, 'c1'),
      toolCall('write_note', { name: 'b', text: '1' }, 'c2'),
      toolCall('write_note', { name: 'c', text: '2' }, 'c3'),
    ],
  };

  it('shows three read-only calls as a plan and runs it at once', async () => {
    server.enqueue(readPlan, textTurn('Read them all.'));
    harness.runtime.send(harness.sessionId, 'Read my notes');
    await harness.runtime.whenIdle(harness.sessionId);
    const plan = harness.store.journal(harness.sessionId).find((entry) => entry.event.type === 'plan_proposed')?.event;
    expect(plan).toMatchObject({
      purpose: 'I will read three notes.',
      maxRisk: 'read_only',
      needsApproval: false,
      steps: [{ tool: 'read_note', decision: 'run' }, { decision: 'run' }, { decision: 'run' }],
    });
    expect(harness.log).toEqual(['read a', 'read b', 'read c']);
    expect(harness.view().plan?.state).toBe('finished');
  });

  it('waits with a plan that has a write, and runs exactly its steps once approved', async () => {
    server.enqueue(writePlan, { steps: [toolCall('write_note', { name: 'd', text: '3' }, 'c4')] }, textTurn('All written.'));
    harness.runtime.send(harness.sessionId, 'Update notes');
    const waiting = await harness.until((view) => view.plan?.state === 'waiting', 'the plan');
    expect(waiting.status).toBe('waiting_approval');
    expect(waiting.plan).toMatchObject({ maxRisk: 'write_low', steps: [{ decision: 'run' }, { decision: 'ask' }, { decision: 'ask' }] });
    expect(harness.log).toEqual([]);
    harness.runtime.answerPlan(waiting.plan?.planId ?? '', 'approve');
    // The next write was not in the plan: it asks at its own gate.
    const gate = await harness.until((view) => view.pendingApproval !== null, 'the gate for the unlisted write');
    expect(harness.log).toEqual(['read a', 'write b', 'write c']);
    expect(gate.pendingApproval?.input).toEqual({ name: 'd', text: '3' });
    harness.runtime.answerApproval(gate.pendingApproval?.approvalId ?? '', 'deny');
    await harness.runtime.whenIdle(harness.sessionId);
  });

  it('rejects a plan with a reason the model hears, running none of it', async () => {
    server.enqueue(writePlan, textTurn('I will leave the notes alone.'));
    harness.runtime.send(harness.sessionId, 'Update notes');
    const waiting = await harness.until((view) => view.plan?.state === 'waiting');
    harness.runtime.answerPlan(waiting.plan?.planId ?? '', 'reject', 'those notes are archived');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    const results = (server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>).filter(
      (message) => message.role === 'tool',
    );
    expect(results.map((result) => result.content)).toEqual(Array(3).fill('Not run: the user rejected the plan: those notes are archived'));
    expect(harness.view().plan?.state).toBe('rejected');
    expect(harness.view().status).toBe('completed');
  });

  it('refines a plan: the feedback goes to the model, which proposes again', async () => {
    const revised = {
      steps: [
        { kind: 'text' as const, text: 'Revised plan.' },
        toolCall('read_note', { name: 'a' }, 'r1'),
        toolCall('read_note', { name: 'x' }, 'r2'),
        toolCall('write_note', { name: 'x', text: 'new' }, 'r3'),
      ],
    };
    server.enqueue(writePlan, revised, textTurn('Done as you asked.'));
    harness.runtime.send(harness.sessionId, 'Update notes');
    const first = await harness.until((view) => view.plan?.state === 'waiting');
    expect(() => harness.runtime.answerPlan(first.plan?.planId ?? '', 'refine')).toThrow(/Say what should change/);
    harness.runtime.answerPlan(first.plan?.planId ?? '', 'refine', 'write to x instead of b and c');
    const second = await harness.until(
      (view) => view.plan?.state === 'waiting' && view.plan.planId !== first.plan?.planId,
      'the revised plan',
    );
    const toolMessages = (server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>).filter(
      (message) => message.role === 'tool',
    );
    expect(toolMessages[0]?.content).toContain('write to x instead of b and c');
    expect(harness.log).toEqual([]);
    harness.runtime.answerPlan(second.plan?.planId ?? '', 'approve');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['read a', 'read x', 'write x']);
  });
});

describe('the order of the rules', () => {
  let server: ScriptedModelServer;
  let harness: Harness;
  useHarness({ server: (started) => (server = started), harness: (created) => (harness = created) });

  function grant(tool: string, args: unknown): void {
    const now = harness.clock.now();
    harness.trust.create({
      id: `g${tool}`,
      tool,
      pattern: { kind: 'exact', arguments: JSON.stringify(args) },
      workspacePath: harness.store.get(harness.sessionId)?.workspacePath ?? null,
      maxRisk: 'write_high',
      sessionId: null,
      createdAt: now,
      expiresAt: now + 60_000,
      revokedAt: null,
      description: tool,
    });
  }

  it('a built-in denial wins over a grant and over L3', async () => {
    harness.store.update(harness.sessionId, { autonomy: 'L3' }, harness.clock.now());
    grant('guarded_write', { path: '/etc/passwd' });
    server.enqueue({ steps: [toolCall('guarded_write', { path: '/etc/passwd' })] }, textTurn('Refused.'));
    harness.runtime.send(harness.sessionId, 'Write there');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
    expect(harness.view().messages[1]?.toolCalls[0]).toMatchObject({
      state: 'denied',
      output: 'Not run: /etc/passwd is outside the workspace.',
    });
  });

  it('the person’s denial wins over a grant', async () => {
    harness.settings.set({ ...harness.settings.get(), deniedTools: ['write_note'] });
    grant('write_note', { name: 'n', text: 't' });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Denied.'));
    harness.runtime.send(harness.sessionId, 'Write');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual([]);
  });

  it('a grant wins over the matrix, but only in its own workspace', async () => {
    grant('write_note', { name: 'n', text: 't' });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Written.'));
    harness.runtime.send(harness.sessionId, 'Write');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['write n']);
    harness.store.update(harness.sessionId, { workspacePath: '/somewhere/else' }, harness.clock.now());
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Asked.'));
    harness.runtime.send(harness.sessionId, 'Write elsewhere');
    await harness.until((view) => view.pendingApproval !== null, 'a gate in the other workspace');
    await harness.runtime.cancel(harness.sessionId);
  });
});
