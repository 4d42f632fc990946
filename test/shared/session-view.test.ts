import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { journalEntrySchema, type JournalEntry } from '../../src/shared/events';
import { emptySessionView, reduceSessionView } from '../../src/shared/session-view';

const recorded = JSON.parse(readFileSync(new URL('../fixtures/journal/format-1-session.json', import.meta.url), 'utf8')) as {
  format: number;
  entries: unknown[];
};

describe('the session view reducer', () => {
  const entries: JournalEntry[] = recorded.entries.map((entry) => journalEntrySchema.parse(entry));

  it('still reads the journal format 1 sample', () => {
    expect(recorded.format).toBe(1);
    expect(entries.length).toBeGreaterThan(20);
  });

  it('folds a recorded session: an answer with reasoning, a failure after retries, a stopped answer', () => {
    const view = reduceSessionView(emptySessionView, entries);
    expect(view.status).toBe('cancelled');
    expect(view.activeTurnId).toBeNull();
    expect(view.messages.map((message) => [message.role, message.state])).toEqual([
      ['user', 'done'],
      ['assistant', 'done'],
      ['user', 'done'],
      ['assistant', 'failed'],
      ['user', 'done'],
      ['assistant', 'cancelled'],
    ]);
    expect(view.messages[1]).toMatchObject({ text: 'Here it is:\n\n- one\n- two\n', reasoning: 'The user wants a list.' });
    expect(view.messages[3]?.error).toMatchObject({ code: 'model_server_error' });
    expect(view.messages[5]?.text).toMatch(/^(long )+/);
  });

  it('gives the same view whether entries arrive one by one, in batches, or twice', () => {
    const whole = reduceSessionView(emptySessionView, entries);
    const oneByOne = entries.reduce((view, entry) => reduceSessionView(view, [entry]), emptySessionView);
    const halves = reduceSessionView(reduceSessionView(emptySessionView, entries.slice(0, 10)), entries.slice(10));
    const replayed = reduceSessionView(whole, entries);
    expect(oneByOne).toEqual(whole);
    expect(halves).toEqual(whole);
    expect(replayed).toEqual(whole);
  });

  it('shows the files a restore refused, and reads a restore saved before refusals were listed as refusing none', () => {
    const restored = (refused?: string[]) =>
      journalEntrySchema.parse({
        sessionId: 's1',
        seq: 1,
        at: 1,
        event: {
          type: 'files_restored',
          checkpointId: null,
          undoOf: null,
          restoreId: 'r1',
          snapshotId: 'f1',
          safetySnapshotId: 'f2',
          written: ['app.ts'],
          deleted: [],
          kept: [],
          ...(refused ? { refused } : {}),
        },
      });
    expect(reduceSessionView(emptySessionView, [restored(['sub/config.txt'])]).lastRestore?.refused).toEqual(['sub/config.txt']);
    expect(reduceSessionView(emptySessionView, [restored()]).lastRestore?.refused).toEqual([]);
  });
});

describe('a recorded session with tools, a plan, a gate, a grant and a queued message', () => {
  const sample = JSON.parse(readFileSync(new URL('../fixtures/journal/format-1-tools-session.json', import.meta.url), 'utf8')) as {
    entries: unknown[];
  };
  const entries = sample.entries.map((entry) => journalEntrySchema.parse(entry));

  it('folds into the view the person saw', () => {
    const view = reduceSessionView(emptySessionView, entries);
    expect(view.status).toBe('completed');
    expect(view.pendingApproval).toBeNull();
    expect(view.plan).toMatchObject({ state: 'finished', maxRisk: 'write_low' });
    expect(view.queued).toBeNull();
    expect(view.messages.filter((message) => message.role === 'user').map((message) => message.text)).toEqual([
      'Do the work',
      'And then this',
    ]);
    const calls = view.messages.flatMap((message) => message.toolCalls);
    expect(calls.map((call) => [call.tool, call.state])).toEqual([
      ['read_note', 'succeeded'],
      ['write_note', 'succeeded'],
      ['broken', 'failed'],
      ['publish', 'succeeded'],
    ]);
    expect(entries.some((entry) => entry.event.type === 'trust_grant_created')).toBe(true);
  });

  it('folds the same way in any batching', () => {
    const whole = reduceSessionView(emptySessionView, entries);
    const oneByOne = entries.reduce((view, entry) => reduceSessionView(view, [entry]), emptySessionView);
    expect(oneByOne).toEqual(whole);
  });
});
