import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { collectFileContents } from '../../../src/main/workspace/file-contents-collection';
import { SqliteFileHistory } from '../../../src/main/workspace/file-history';
import { temporaryFolder } from '../../helpers';

const hashOf = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('collecting saved file contents', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let db: Database;
  let history: SqliteFileHistory;
  let snapshots = 0;
  const workspaces = { A: '', B: '' };

  beforeEach(() => {
    folder = temporaryFolder('workbench-collect-');
    db = openDatabase(join(folder.path, 'workbench.db')).db;
    history = new SqliteFileHistory(db);
    for (const id of ['A', 'B'] as const) {
      workspaces[id] = join(folder.path, `ws-${id}`);
      mkdirSync(workspaces[id]);
      db.prepare("INSERT INTO sessions (id, title, workspace_path, status, created_at, updated_at) VALUES (?, 't', ?, 'idle', 0, 0)").run(
        id,
        workspaces[id],
      );
    }
  });
  afterEach(() => {
    db.close();
    folder.remove();
  });

  const capture = (sessionId: 'A' | 'B') =>
    history.capture({
      sessionId,
      workspacePath: workspaces[sessionId],
      id: `s${String((snapshots += 1)).padStart(6, '0')}`,
      at: snapshots,
      kind: 'step',
    });
  const stored = (): string[] =>
    db
      .prepare<[], { hash: string }>('SELECT hash FROM file_blobs ORDER BY hash')
      .all()
      .map((row) => row.hash);
  const collect = () => collectFileContents(db, () => history.capturing);

  it('keeps what a remaining snapshot refers to and removes what only a purged session did', async () => {
    writeFileSync(join(workspaces.A, 'shared.txt'), 'in both');
    writeFileSync(join(workspaces.B, 'shared.txt'), 'in both');
    writeFileSync(join(workspaces.A, 'only-a.txt'), 'only in A, first');
    await capture('A');
    // A delta snapshot: its content is named in the delta's row only.
    writeFileSync(join(workspaces.A, 'only-a.txt'), 'only in A, second');
    await capture('A');
    writeFileSync(join(workspaces.B, 'only-b.txt'), 'only in B');
    await capture('B');
    expect(collect()).toEqual({ removed: 0, bytes: 0 });
    expect(stored()).toHaveLength(4);

    // Purging session A removes its snapshots with it (the foreign key cascades).
    db.prepare("DELETE FROM sessions WHERE id = 'A'").run();
    const collected = collect();
    expect(collected).toEqual({ removed: 2, bytes: 'only in A, first'.length + 'only in A, second'.length });
    expect(stored()).toEqual([hashOf('in both'), hashOf('only in B')].sort());
    // What remains still restores: B's content is all there.
    expect(history.content(hashOf('only in B'))?.toString()).toBe('only in B');
  });

  it('collects contents a capture saved and never named (the app stopped before its snapshot was written)', () => {
    db.prepare('INSERT INTO file_blobs (hash, size, data) VALUES (?, ?, ?)').run(hashOf('orphan'), 6, Buffer.from('orphan'));
    expect(collect()).toEqual({ removed: 1, bytes: 6 });
    expect(stored()).toEqual([]);
  });

  it('waits while a capture runs, whose contents are saved before the snapshot that names them', async () => {
    for (let index = 0; index < 200; index += 1) writeFileSync(join(workspaces.B, `file-${index}.txt`), `content ${index}`);
    const running = capture('B');
    expect(history.capturing).toBe(true);
    expect(collect()).toBeNull();
    await running;
    expect(history.capturing).toBe(false);
    expect(collect()).toEqual({ removed: 0, bytes: 0 });
    expect(stored()).toHaveLength(200);
  });

  it('removes nothing when a snapshot list is damaged, rather than guess what it referred to', async () => {
    writeFileSync(join(workspaces.A, 'a.txt'), 'kept');
    await capture('A');
    db.prepare('UPDATE file_snapshots SET manifest = \'[["a.txt", {"hash"\' WHERE session_id = \'A\'').run();
    db.prepare('INSERT INTO file_blobs (hash, size, data) VALUES (?, ?, ?)').run(hashOf('orphan'), 6, Buffer.from('orphan'));
    expect(() => collect()).toThrow();
    expect(stored()).toHaveLength(2);
  });
});
