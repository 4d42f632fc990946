import { describe, expect, it } from 'vitest';
import { journalEntrySchema, type JournalEntry, type RuntimeEvent } from '../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../src/shared/session-view';

/** A journal written at the given times, each event parsed as the journal would read it back. */
function journal(...events: ReadonlyArray<readonly [number, RuntimeEvent]>): JournalEntry[] {
  return events.map(([at, event], seq) => journalEntrySchema.parse({ sessionId: 's1', seq, at, event }));
}

const model = { providerId: 'p1', model: 'scripted-model' };
const started = (turnId: string, resumed?: true): RuntimeEvent => ({
  type: 'run_started',
  turnId,
  model,
  providerKind: 'openai-compatible',
  ...(resumed ? { resumed } : {}),
});
const call = (
  turnId: string,
  messageId: string,
  figures: Partial<Extract<RuntimeEvent, { type: 'model_call_finished' }>>,
): RuntimeEvent => ({
  type: 'model_call_finished',
  turnId,
  messageId,
  inputTokens: 1_000,
  outputTokens: 50,
  latencyMs: 400,
  attempts: 1,
  ...figures,
});
const snapshot = (turnId: string, snapshotId: string, changed: string[], turnStart?: true): RuntimeEvent => ({
  type: 'files_snapshotted',
  turnId,
  snapshotId,
  checkpointId: null,
  files: 10,
  changed,
  skipped: 0,
  ...(turnStart ? { turnStart } : {}),
});
const checkpoint = (turnId: string, checkpointId: string, seq: number): RuntimeEvent => ({
  type: 'checkpoint_saved',
  turnId,
  checkpointId,
  parentId: null,
  seq,
  source: 'model',
});

describe('the figures of each turn in the session view', () => {
  it('sums a turn’s time, tokens, cache, cost and unpriced calls, and the paths the agent changed in it', () => {
    const view = reduceSessionView(
      emptySessionView,
      journal(
        [1_000, { type: 'user_message', turnId: 't1', messageId: 'u1', text: 'Fix it' }],
        [1_000, started('t1')],
        // What changed before the turn began is someone else's.
        [1_010, snapshot('t1', 'f0', ['theirs.txt'], true)],
        [1_500, call('t1', 'm1', { cacheReadTokens: 800, costUsd: 0.01 })],
        [1_600, snapshot('t1', 'f1', ['a.ts', 'b.ts'])],
        [2_000, call('t1', 'm2', { inputTokens: 1_200, outputTokens: 30, costUsd: null })],
        [2_100, snapshot('t1', 'f2', ['a.ts', 'c/'])],
        [4_200, { type: 'run_finished', turnId: 't1', status: 'completed' }],
      ),
    );
    expect(view.turns['t1']).toEqual({
      end: 'completed',
      durationMs: 3_200,
      runningSince: null,
      lastStepAt: null,
      modelCalls: 2,
      inputTokens: 2_200,
      outputTokens: 80,
      cacheReadTokens: 800,
      costUsd: 0.01,
      unpricedCalls: 1,
      changedPaths: ['a.ts', 'b.ts', 'c/'],
    });
    expect(view.usage).toMatchObject({ inputTokens: 2_200, costUsd: 0.01, unpricedCalls: 1 });
  });

  it('says nothing of a turn still running but its figures so far, and keeps each turn apart', () => {
    const view = reduceSessionView(
      emptySessionView,
      journal(
        [0, started('t1')],
        [100, call('t1', 'm1', { costUsd: 0 })],
        [200, { type: 'run_finished', turnId: 't1', status: 'failed', error: { code: 'model_server_error', message: 'down' } }],
        [1_000, started('t2')],
        [1_300, call('t2', 'm2', { inputTokens: 10, outputTokens: 5 })],
      ),
    );
    expect(view.turns['t1']).toMatchObject({ end: 'failed', durationMs: 200, modelCalls: 1, cacheReadTokens: null, unpricedCalls: 0 });
    // A call whose journal did not record a cost is not said to be unpriced: nothing is known of its price.
    expect(view.turns['t2']).toMatchObject({ end: null, durationMs: 0, runningSince: 1_000, modelCalls: 1, unpricedCalls: 0 });
  });

  it('ends an interrupted turn at its last step, and adds the time it ran again once resumed', () => {
    const entries = journal(
      [0, started('t1')],
      [2_000, checkpoint('t1', 'c1', 0)],
      // Found running when the app started again, long after.
      [100_000, { type: 'status_changed', status: 'interrupted' }],
      [200_000, started('t1', true)],
      [203_000, { type: 'run_finished', turnId: 't1', status: 'cancelled' }],
    );
    const interrupted = reduceSessionView(emptySessionView, entries.slice(0, 3));
    expect(interrupted.turns['t1']).toMatchObject({ end: 'interrupted', durationMs: 2_000, runningSince: null });
    const resumed = reduceSessionView(interrupted, entries.slice(3));
    expect(resumed.turns['t1']).toMatchObject({ end: 'cancelled', durationMs: 5_000 });
  });

  it('gives the figures of a turn whose start it did not read, without a time', () => {
    const view = reduceSessionView(
      emptySessionView,
      journal([500, call('t9', 'm1', { costUsd: null })], [900, { type: 'run_finished', turnId: 't9', status: 'cancelled' }]),
    );
    expect(view.turns['t9']).toMatchObject({ end: 'cancelled', durationMs: null, modelCalls: 1, unpricedCalls: 1 });
  });

  it('shows at the cost budget’s gate how many calls its figure left out', () => {
    const view = reduceSessionView(
      emptySessionView,
      journal(
        [0, started('t1')],
        [10, { type: 'budget_reached', turnId: 't1', gateId: 'g1', budget: 'session_cost', figure: 1.5, limit: 1, step: 1, unpriced: 3 }],
      ),
    );
    expect(view.pendingBudget).toMatchObject({ budget: 'session_cost', unpriced: 3 });
  });
});
