import { describe, expect, it } from 'vitest';
import type { BudgetSettings } from '../../../../src/shared/budgets';
import type { RuntimeEvent } from '../../../../src/shared/events';
import type { Settings } from '../../../../src/shared/domain';
import type { SessionView } from '../../../../src/shared/session-view';
import { textTurn, type ScriptedModelServer, type ScriptedTurn } from '../../../scripted-model-server';
import { createHarness, toolCall, useHarness, type Harness } from '../harness';

const offBudgets: BudgetSettings = { toolCalls: null, wallMinutes: null, sessionTokens: null, sessionCostUsd: null };
const atGate = (view: SessionView): boolean => view.pendingBudget !== null && view.status === 'waiting_approval';
/** A response that reads one note: the model that never stops calling tools. */
const reads = (name: string): ScriptedTurn => ({ steps: [toolCall('read_note', { name }, `call_${name}`)] });

type Reached = Extract<RuntimeEvent, { type: 'budget_reached' }>;
type Answered = Extract<RuntimeEvent, { type: 'budget_answered' }>;

describe('budgets', () => {
  let server: ScriptedModelServer;
  const opened: Harness[] = [];
  useHarness({ server: (started) => (server = started) });
  const start = async (settings: Partial<Settings>): Promise<Harness> => {
    const harness = await createHarness(server, { settings: { planThreshold: 10, ...settings } });
    opened.push(harness);
    return harness;
  };
  const closeAll = async (): Promise<void> => {
    for (const harness of opened.splice(0)) await harness.close();
  };
  const budgetEvents = (harness: Harness): { reached: Reached[]; answered: Answered[] } => {
    const events = harness.store.journal(harness.sessionId).map((entry) => entry.event);
    return {
      reached: events.filter((event): event is Reached => event.type === 'budget_reached'),
      answered: events.filter((event): event is Answered => event.type === 'budget_answered'),
    };
  };

  it('pauses at a gate when the model-call budget is reached, and Continue gives +10 counted from there without firing again at once', async () => {
    const harness = await start({ maxIterations: 2 });
    server.enqueue(reads('a'), reads('b'), reads('c'), reads('d'), textTurn('Done at last.'));
    harness.runtime.send(harness.sessionId, 'Keep going');
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'model_calls', figure: 2, limit: 2, step: 10 });
    expect(server.requests).toHaveLength(2);
    expect(harness.log).toEqual(['read a', 'read b']);
    expect(harness.store.head(harness.sessionId)?.resume?.budget).toMatchObject({ budget: 'model_calls', figure: 2 });

    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    // The peer bug: a reset that did not count from the figure reached fired the gate again at the very next check.
    const { reached, answered } = budgetEvents(harness);
    expect(reached).toHaveLength(1);
    expect(answered).toEqual([expect.objectContaining({ answer: 'continue', budget: 'model_calls', limit: 12 })]);
    expect(server.requests).toHaveLength(5);
    expect(harness.view().status).toBe('completed');
    expect(harness.view().pendingBudget).toBeNull();
    expect(() => harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue')).toThrow(
      expect.objectContaining({ code: 'already_answered' }),
    );
    await closeAll();
  });

  it('asks again once the raised allowance is used up, and a budget turned off never asks', async () => {
    const harness = await start({ maxIterations: 1 });
    server.enqueue(reads('a'), reads('b'), reads('c'), textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const first = await harness.until(atGate, 'the first gate');
    harness.settings.set({ ...harness.settings.get(), maxIterations: null });
    // Off in Settings, but this turn's raise still counts: it is what the person chose at the gate.
    harness.runtime.answerBudget(first.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(budgetEvents(harness).reached).toHaveLength(1);

    server.enqueue(reads('d'), reads('e'), textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Again, no limit');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(budgetEvents(harness).reached).toHaveLength(1);
    expect(harness.view().status).toBe('completed');
    await closeAll();
  });

  it('ends the turn cancelled when the person answers Stop, and makes no more requests', async () => {
    const harness = await start({ maxIterations: 1 });
    server.enqueue(reads('a'), reads('b'));
    harness.runtime.send(harness.sessionId, 'Go');
    const view = await harness.until(atGate, 'the budget gate');
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'stop');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(server.requests).toHaveLength(1);
    expect(harness.view()).toMatchObject({ status: 'cancelled', pendingBudget: null });
    expect(budgetEvents(harness).answered).toEqual([expect.objectContaining({ answer: 'stop' })]);
    await closeAll();
  });

  it('ends the turn cancelled when Stop is pressed at the gate, journalled as stopped', async () => {
    const harness = await start({ maxIterations: 1 });
    server.enqueue(reads('a'));
    harness.runtime.send(harness.sessionId, 'Go');
    await harness.until(atGate, 'the budget gate');
    await harness.runtime.cancel(harness.sessionId);
    expect(harness.view()).toMatchObject({ status: 'cancelled', pendingBudget: null });
    expect(budgetEvents(harness).answered).toEqual([expect.objectContaining({ answer: 'stop', stopped: true })]);
    await closeAll();
  });

  it('pauses before the tool call over the tool-call budget, even in the middle of a batch, and +25 lets the rest run', async () => {
    const harness = await start({ budgets: { ...offBudgets, toolCalls: 2 } });
    server.enqueue(
      {
        steps: [
          toolCall('read_note', { name: 'a' }, 'c1'),
          toolCall('read_note', { name: 'b' }, 'c2'),
          toolCall('read_note', { name: 'c' }, 'c3'),
        ],
      },
      textTurn('Read all three.'),
    );
    harness.runtime.send(harness.sessionId, 'Read three notes');
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'tool_calls', figure: 2, limit: 2, step: 25 });
    expect(harness.log).toEqual(['read a', 'read b']);
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(harness.log).toEqual(['read a', 'read b', 'read c']);
    expect(budgetEvents(harness).answered).toEqual([expect.objectContaining({ budget: 'tool_calls', limit: 27 })]);
    expect(harness.view().status).toBe('completed');
    await closeAll();
  });

  it('counts working time with the injected clock and not the time spent waiting at a gate', async () => {
    const harness = await start({ budgets: { ...offBudgets, wallMinutes: 1 } });
    server.enqueue({ steps: [toolCall('write_note', { name: 'n', text: 'x' })] }, { steps: [toolCall('slow', {})] }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Write, then wait');
    const approval = await harness.until((view) => view.pendingApproval !== null, 'the approval gate');
    // Ten minutes at the approval gate: the person's time, not the agent's.
    harness.clock.advance(10 * 60_000);
    harness.runtime.answerApproval(approval.pendingApproval?.approvalId ?? '', 'allow_once');
    await harness.until(() => harness.log.includes('slow started'), 'the slow call');
    expect(budgetEvents(harness).reached).toEqual([]);
    // The agent works for a minute and a second: the next step waits at the gate.
    harness.clock.advance(61_000);
    harness.releaseSlow();
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'wall_time', limit: 60_000, step: 600_000 });
    expect(view.pendingBudget?.figure).toBeGreaterThanOrEqual(61_000);
    expect(view.pendingBudget?.figure).toBeLessThan(10 * 60_000);
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(budgetEvents(harness).reached).toHaveLength(1);
    expect(harness.view().status).toBe('completed');
    await closeAll();
  });

  it('pauses before the model request that would go past the session token budget, and the raise outlives the turn', async () => {
    const harness = await start({ budgets: { ...offBudgets, sessionTokens: 100 } });
    server.enqueue({ ...reads('a'), usage: { inputTokens: 80, outputTokens: 30 } }, textTurn('Done.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'session_tokens', figure: 110, limit: 100, step: 100_000 });
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(budgetEvents(harness).answered).toEqual([expect.objectContaining({ limit: 100_110, session: { tokens: 100_110 } })]);

    // A new turn of the same session, and the same after a restart: the session's raise still stands.
    server.enqueue(textTurn('Still fine.'));
    harness.runtime.send(harness.sessionId, 'Another');
    await harness.runtime.whenIdle(harness.sessionId);
    await harness.close();
    const again = await harness.reopen();
    opened.push(again);
    server.enqueue(textTurn('And again.'));
    again.runtime.send(again.sessionId, 'After a restart');
    await again.runtime.whenIdle(again.sessionId);
    expect(budgetEvents(again).reached).toHaveLength(1);
    expect(again.view().status).toBe('completed');
    await closeAll();
  });

  it('pauses at the session cost budget once the session has cost that much, and +$1 counts from the cost reached', async () => {
    const harness = await start({ budgets: { ...offBudgets, sessionCostUsd: 1 } });
    // An earlier call to a priced model (the scripted server is on this machine, so its own calls cost nothing).
    harness.accounting.recordModelCall({
      id: 'priced',
      sessionId: harness.sessionId,
      turnId: 'earlier',
      providerId: 'cloud',
      providerKind: 'anthropic',
      model: 'claude-sonnet',
      inputTokens: 100_000,
      outputTokens: 10_000,
      latencyMs: 1,
      costUsd: 1.25,
      status: 'completed',
      at: harness.clock.now(),
    });
    server.enqueue(textTurn('Answer.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'session_cost', figure: 1.25, limit: 1, step: 1 });
    expect(server.requests).toHaveLength(0);
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'continue');
    await harness.runtime.whenIdle(harness.sessionId);
    expect(budgetEvents(harness).answered).toEqual([expect.objectContaining({ limit: 2.25 })]);
    expect(harness.view().status).toBe('completed');
    await closeAll();
  });

  it('keeps counting the cost budget after a call with no price, and says at its gate how many calls it left out', async () => {
    const harness = await start({ budgets: { ...offBudgets, sessionCostUsd: 1 } });
    const earlier = {
      sessionId: harness.sessionId,
      turnId: 'earlier',
      providerId: 'cloud',
      providerKind: 'openai-compatible' as const,
      model: 'some-model',
      inputTokens: 100_000,
      outputTokens: 10_000,
      latencyMs: 1,
      status: 'completed' as const,
      at: harness.clock.now(),
    };
    // Before, one call with no price made the whole figure unknown, and the budget never fired again.
    harness.accounting.recordModelCall({ ...earlier, id: 'unpriced', costUsd: null });
    harness.accounting.recordModelCall({ ...earlier, id: 'priced', costUsd: 1.25 });
    server.enqueue(textTurn('Answer.'));
    harness.runtime.send(harness.sessionId, 'Go');
    const view = await harness.until(atGate, 'the budget gate');
    expect(view.pendingBudget).toMatchObject({ budget: 'session_cost', figure: 1.25, limit: 1, unpriced: 1 });
    expect(budgetEvents(harness).reached).toEqual([expect.objectContaining({ budget: 'session_cost', unpriced: 1 })]);
    harness.runtime.answerBudget(view.pendingBudget?.gateId ?? '', 'stop');
    await harness.runtime.whenIdle(harness.sessionId);
    await closeAll();
  });

  it('waits again at the same budget gate after the app stopped, and Continue there does not fire again at once', async () => {
    const first = await start({ maxIterations: 2 });
    server.enqueue(reads('a'), reads('b'));
    first.runtime.send(first.sessionId, 'Go');
    const before = await first.until(atGate, 'the budget gate');
    first.crash();
    const second = await first.reopen();
    opened.push(second);
    const again = await second.until(atGate, 'the budget gate again');
    expect(again.pendingBudget).toEqual(before.pendingBudget);
    expect(budgetEvents(second).reached).toHaveLength(1);
    server.enqueue(reads('c'), textTurn('Done.'));
    second.runtime.answerBudget(before.pendingBudget?.gateId ?? '', 'continue');
    await second.runtime.whenIdle(second.sessionId);
    expect(budgetEvents(second).reached).toHaveLength(1);
    expect(budgetEvents(second).answered).toEqual([expect.objectContaining({ limit: 12 })]);
    expect(second.view().status).toBe('completed');
    expect(second.log).toEqual(['read c']);
    await closeAll();
  });
});
