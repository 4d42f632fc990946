import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { advanceHead, replayHead } from '../../../src/main/agent/history/head-fold';
import { emptyHead, type SessionHead } from '../../../src/main/agent/ports/session-head';
import type { RuntimeEvent } from '../../../src/shared/events';
import { SqliteSessionStore } from '../../../src/main/store/sqlite-session-store';
import { temporaryFolder } from '../../helpers';

/** Appends as the session journal does: with where the line stands after the events, folded from where it stood. */
function append(store: SqliteSessionStore, sessionId: string, events: readonly RuntimeEvent[], at: number) {
  let head: SessionHead = store.head(sessionId) ?? emptyHead;
  let seq = store.nextSeq(sessionId);
  for (const event of events) head = advanceHead(head, seq++, event);
  return store.append(sessionId, events, at, { head });
}

describe('SqliteSessionStore', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let store: SqliteSessionStore;
  const newSession = (id: string, createdAt = 1) => ({
    id,
    title: `Session ${id}`,
    workspacePath: null,
    model: null,
    autonomy: 'L1' as const,
    createdAt,
  });

  beforeEach(() => {
    folder = temporaryFolder();
    db = openDatabase(join(folder.path, 'workbench.sqlite')).db;
    store = new SqliteSessionStore(db);
  });
  afterEach(() => {
    db.close();
    folder.remove();
  });

  it('creates, renames and lists sessions, newest activity first', () => {
    store.create(newSession('a', 1));
    store.create(newSession('b', 2));
    store.update('a', { title: 'Renamed' }, 3);
    expect(store.list().map((session) => [session.id, session.title])).toEqual([
      ['a', 'Renamed'],
      ['b', 'Session b'],
    ]);
  });

  it('says a folder is worked in while a session there, or a sub-agent of one, is not archived', () => {
    const link = { toolCallId: 'c1', depth: 1, tools: 'read_write' as const, modelCalls: 15, answerChars: 4_000 };
    store.create({ ...newSession('a'), workspacePath: '/code/app' });
    store.create({ ...newSession('a1'), workspacePath: '/worktrees/app-1', subAgent: { ...link, parentSessionId: 'a' } });
    store.create({ ...newSession('a2'), workspacePath: '/worktrees/app-2', subAgent: { ...link, parentSessionId: 'a1', depth: 2 } });
    store.create({ ...newSession('b'), workspacePath: '/code/app' });
    expect(['/code/app', '/worktrees/app-1', '/worktrees/app-2', '/code'].map((path) => store.worksIn(path))).toEqual([
      true,
      true,
      true,
      false,
    ]);
    store.setArchived('a', 5);
    // The sub-agents' rows are not archived themselves: their parent's archive takes them out all the same.
    expect(['/code/app', '/worktrees/app-1', '/worktrees/app-2'].map((path) => store.worksIn(path))).toEqual([true, false, false]);
    store.setArchived('b', 6);
    expect(store.worksIn('/code/app')).toBe(false);
    store.setArchived('a', null);
    expect(['/code/app', '/worktrees/app-2'].map((path) => store.worksIn(path))).toEqual([true, true]);
  });

  it('appends events in order with consecutive sequence numbers and reads them back', () => {
    store.create(newSession('a'));
    append(store, 'a', [{ type: 'user_message', turnId: 't1', messageId: 'm1', text: 'hi' }], 10);
    const entries = append(
      store,
      'a',
      [
        { type: 'status_changed', status: 'planning' },
        { type: 'text_delta', turnId: 't1', messageId: 'm2', text: 'yo' },
      ],
      11,
    );
    expect(entries.map((entry) => entry.seq)).toEqual([1, 2]);
    expect(store.journal('a').map((entry) => entry.event.type)).toEqual(['user_message', 'status_changed', 'text_delta']);
    expect(store.journal('a', { afterSeq: 1 }).map((entry) => entry.seq)).toEqual([2]);
    expect(store.get('a')?.status).toBe('planning');
  });

  it('refuses to append to a session that does not exist, writing nothing', () => {
    expect(() => append(store, 'ghost', [{ type: 'status_changed', status: 'planning' }], 1)).toThrow(/does not exist/);
    expect(db.prepare('SELECT COUNT(*) AS n FROM journal').get()).toEqual({ n: 0 });
  });

  it('deletes a session together with its journal', () => {
    store.create(newSession('a'));
    append(store, 'a', [{ type: 'user_message', turnId: 't', messageId: 'm', text: 'x' }], 1);
    expect(store.delete('a')).toBe(true);
    expect(store.get('a')).toBeNull();
    expect(db.prepare('SELECT COUNT(*) AS n FROM journal').get()).toEqual({ n: 0 });
    expect(store.delete('a')).toBe(false);
  });

  it('keeps its data across a reopen of the file', () => {
    store.create(newSession('a'));
    append(store, 'a', [{ type: 'user_message', turnId: 't', messageId: 'm', text: 'persisted' }], 1);
    db.close();
    db = openDatabase(join(folder.path, 'workbench.sqlite')).db;
    store = new SqliteSessionStore(db);
    expect(store.journal('a')[0]?.event).toEqual({ type: 'user_message', turnId: 't', messageId: 'm', text: 'persisted' });
  });

  it('reports a damaged journal row instead of dropping it silently', () => {
    store.create(newSession('a'));
    db.prepare(
      "INSERT INTO journal (session_id, seq, at, format, type, payload) VALUES ('a', 0, 1, 1, 'text_delta', '{\"type\":\"text_delta\"}')",
    ).run();
    expect(() => store.journal('a')).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
  });

  it('leaves no gap and no stale head when a transaction it appended in is rolled back', () => {
    store.create(newSession('a'));
    append(store, 'a', [{ type: 'user_message', turnId: 't1', messageId: 'm1', text: 'hi' }], 2);
    const model = { providerId: 'p', model: 'm' };
    expect(() =>
      store.transaction(() => {
        append(store, 'a', [{ type: 'run_started', turnId: 't1', model, providerKind: 'openai-compatible' }], 3);
        throw new Error('The disk is full.');
      }),
    ).toThrow('The disk is full.');
    expect(store.head('a')?.openTurn).toBeNull();
    append(store, 'a', [{ type: 'message_queued', text: 'later', replaced: false }], 4);
    expect(store.journal('a').map((entry) => [entry.seq, entry.event.type])).toEqual([
      [0, 'user_message'],
      [1, 'message_queued'],
    ]);
    expect(store.head('a')).toEqual(replayHead(store.journal('a')));
    expect(store.head('a')?.queued).toBe('later');
  });

  it('keeps the head it is handed with the rows, folding nothing itself', () => {
    store.create(newSession('a'));
    const handed: SessionHead = { checkpointId: 'c9', openTurn: 't9', queued: 'as handed', resume: { at: 'model' }, lastSeq: 0 };
    store.append('a', [{ type: 'user_message', turnId: 't1', messageId: 'm1', text: 'hi' }], 2, { head: handed });
    expect(store.head('a')).toEqual(handed);
    expect(new SqliteSessionStore(db).head('a')).toEqual(handed);
    expect(store.nextSeq('a')).toBe(1);
  });
});
