import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditOf, policyRow } from '../../../../src/main/agent/history/audit';
import type { AuditRow } from '../../../../src/shared/audit';
import type { RuntimeEvent } from '../../../../src/shared/events';
import { ScriptedModelServer, textTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, type Harness } from '../harness';

/** The columns a person reads first, one row per decision. */
const brief = (row: AuditRow) => ({
  kind: row.kind,
  tool: row.tool,
  answer: row.answer,
  by: row.decidedBy.label,
  policy: row.policy,
});

describe('the audit of a session', () => {
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

  it('lists every decision of a recorded session in order: gates, grants, the matrix, a rule, a plan, autonomy, a revocation', async () => {
    const current = await createHarness(server, { settings: { deniedTools: ['publish'] } });
    harness = current;
    const { runtime, clock, sessionId } = current;
    const gate = async () => (await current.until((view) => view.pendingApproval !== null, 'a gate')).pendingApproval?.approvalId ?? '';
    const idle = () => runtime.whenIdle(sessionId);

    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 't' })] }, textTurn('Written.'));
    runtime.send(sessionId, 'Write n');
    runtime.answerApproval(await gate(), 'allow_5m');
    await idle();
    clock.advance(1_000);
    server.enqueue(
      { steps: [toolCall('write_note', { name: 'n', text: 't' }, 'w2'), toolCall('read_note', { name: 'n' }, 'r1')] },
      textTurn('Again.'),
    );
    runtime.send(sessionId, 'Write n again and read it');
    await idle();
    server.enqueue({ steps: [toolCall('publish', { target: 'site' })] }, textTurn('Not published.'));
    runtime.send(sessionId, 'Publish');
    await idle();

    // What the autonomy picker's channel does: the row and the journal change together.
    current.runtime.sessions.setAutonomy(sessionId, 'L0');
    server.enqueue({ steps: ['a', 'b', 'c'].map((name) => toolCall('read_note', { name }, `p-${name}`)) }, textTurn('Read all three.'));
    runtime.send(sessionId, 'Read a, b and c');
    const planId = (await current.until((view) => view.plan?.state === 'waiting', 'the plan')).plan?.planId ?? '';
    runtime.answerPlan(planId, 'approve');
    await idle();

    clock.advance(1_000);
    const grantId = current.trust.listActive(clock.now())[0]?.id ?? '';
    current.trust.revoke(grantId, clock.now());
    clock.advance(1_000);
    server.enqueue({ steps: [toolCall('write_note', { name: 'm', text: 'x' }, 'w3')] }, textTurn('Fine.'));
    runtime.send(sessionId, 'Write m');
    runtime.answerApproval(await gate(), 'deny', 'not now');
    await idle();

    const rows = auditOf(current.store.allRows(sessionId), { grant: (id) => current.trust.find(id) });
    const grantLabel = `Trust grant ${grantId}: ${current.trust.find(grantId)?.description ?? ''}`;
    expect(rows.map(brief)).toEqual([
      { kind: 'gate', tool: 'write_note', answer: 'allow_5m', by: 'You', policy: 'L1 recommend · write_low → ask' },
      { kind: 'grant_created', tool: 'write_note', answer: 'created', by: 'You', policy: 'trust grant · write_note up to write_low → run' },
      { kind: 'automatic', tool: 'write_note', answer: 'run', by: grantLabel, policy: 'L1 recommend · write_low → ask; trust grant → run' },
      { kind: 'automatic', tool: 'read_note', answer: 'run', by: 'Autonomy matrix', policy: 'L1 recommend · read_only → run' },
      { kind: 'rule', tool: 'publish', answer: 'denied', by: 'Your denial in Settings', policy: 'denied tools (Settings) → deny' },
      { kind: 'autonomy_changed', tool: null, answer: 'changed', by: 'You', policy: 'L0 observe · nothing → run; the rest → ask' },
      { kind: 'plan', tool: null, answer: 'approve', by: 'You', policy: 'plan · L0 observe · read_only → ask' },
      ...['a', 'b', 'c'].map(() => ({
        kind: 'automatic',
        tool: 'read_note',
        answer: 'run',
        by: `Plan approval ${planId}`,
        policy: 'L0 observe · read_only → ask; approved plan → run',
      })),
      { kind: 'grant_revoked', tool: 'write_note', answer: 'revoked', by: 'You', policy: 'trust grant · write_note → no longer runs' },
      { kind: 'gate', tool: 'write_note', answer: 'deny', by: 'You', policy: 'L0 observe · write_low → ask' },
    ]);
    expect(rows[0]).toMatchObject({ grantId, risk: 'write_low', decidedAt: expect.any(Number), reason: 'write_note is write-low' });
    expect(rows.at(-1)).toMatchObject({ answerReason: 'not now', summary: expect.stringContaining('m') });
    expect(rows.at(-2)?.at).toBeLessThan(rows.at(-1)?.at ?? 0);
  });
});

describe('the audit fold on older and unfinished journals', () => {
  const model = { providerId: 'p', model: 'm' };
  const rows = (events: RuntimeEvent[]) => events.map((event, seq) => ({ seq, at: 1_000 + seq, event }));
  const gateEvents = (turnId: string, reason: string): RuntimeEvent[] => [
    {
      type: 'tool_call_requested',
      turnId,
      toolCallId: 'c1',
      messageId: 'm1',
      tool: 'write_note',
      input: {},
      summary: 'write n',
      risk: 'write_low',
      riskReason: 'writes',
    },
    {
      type: 'approval_requested',
      turnId,
      toolCallId: 'c1',
      approvalId: `a-${turnId}`,
      tool: 'write_note',
      summary: 'write n',
      input: {},
      risk: 'write_low',
      reason,
    },
  ];

  it('takes the autonomy from the gate’s reason when the turn did not record it', () => {
    const audit = auditOf(
      rows([
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' },
        ...gateEvents('t1', 'writes; autonomy L2 asks first.'),
      ]),
      { grant: () => null },
    );
    expect(audit[0]?.policy).toBe('L2 assisted · write_low → run');
  });

  it('a gate still open is pending, and one whose turn ended first was never answered', () => {
    const audit = auditOf(
      rows([
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible', autonomy: 'L1' },
        ...gateEvents('t1', 'writes'),
        { type: 'run_finished', turnId: 't1', status: 'cancelled' },
        { type: 'run_started', turnId: 't2', model, providerKind: 'openai-compatible', autonomy: 'L1' },
        ...gateEvents('t2', 'writes'),
      ]),
      { grant: () => null },
    );
    expect(audit.map((row) => [row.answer, row.answerReason])).toEqual([
      ['unanswered', 'The turn ended (cancelled) first.'],
      ['pending', null],
    ]);
  });

  it('lists a result held for review and a budget reached, with their answers', () => {
    const audit = auditOf(
      rows([
        { type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible', autonomy: 'L1' },
        {
          type: 'tool_call_requested',
          turnId: 't1',
          toolCallId: 'c1',
          messageId: 'm1',
          tool: 'web__fetch',
          input: {},
          summary: 'fetch a page',
          risk: 'read_only',
          riskReason: 'reads',
        },
        { type: 'tool_result_held', turnId: 't1', toolCallId: 'c1', reviewId: 'r1', tool: 'web__fetch' },
        { type: 'tool_result_reviewed', turnId: 't1', toolCallId: 'c1', reviewId: 'r1', decision: 'withhold' },
        { type: 'budget_reached', turnId: 't1', gateId: 'b1', budget: 'model_calls', figure: 2, limit: 2, step: 10 },
        { type: 'budget_answered', turnId: 't1', gateId: 'b1', budget: 'model_calls', answer: 'continue', limit: 12 },
        { type: 'budget_reached', turnId: 't1', gateId: 'b2', budget: 'model_calls', figure: 12, limit: 12, step: 10 },
        { type: 'run_finished', turnId: 't1', status: 'cancelled' },
      ]),
      { grant: () => null },
    );
    expect(audit.map((row) => [row.kind, row.summary, row.answer, row.decidedBy.label, row.answerReason])).toEqual([
      ['result_review', 'fetch a page', 'withhold', 'You', null],
      ['budget', '2 of 2 model calls in this turn', 'continue', 'You', 'New limit 12.'],
      ['budget', '12 of 12 model calls in this turn', 'unanswered', 'Nobody', 'The turn ended (cancelled) first.'],
    ]);
  });

  it('names the policy row of an escalation and of a destructive call, which always ask', () => {
    expect(policyRow('L3', 'write_low', { kind: 'network', reason: 'asks for the network' })).toBe(
      'L3 supervised · write_low + network → ask (more than the sandbox always asks)',
    );
    expect(policyRow('L3', 'destructive')).toBe('L3 supervised · destructive → ask (always)');
  });
});
