import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError } from '../../../src/shared/errors';
import { openDatabase } from '../../../src/main/store/database';
import { latestSchemaVersion, migrations, type Migration } from '../../../src/main/store/migrations';
import { temporaryFolder } from '../../helpers';
import { testDatabaseKeys } from '../../host/test-keychain';

describe('openDatabase', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
  });
  afterEach(() => folder.remove());

  it('creates a new database in WAL mode at the latest schema version', () => {
    const { db, schemaVersion, backupPath } = openDatabase(path);
    expect(schemaVersion).toBe(latestSchemaVersion);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(backupPath).toBeNull();
    db.close();
  });

  it('backs the file up before migrating an existing database, and keeps its data', () => {
    openDatabase(path).db.close();
    const seeded = new BetterSqlite3(path);
    seeded.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 'Kept', 'idle', 1, 1)").run();
    seeded.close();
    const next: Migration = {
      version: latestSchemaVersion + 1,
      description: 'adds a column',
      up: (db) => db.exec('ALTER TABLE sessions ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0'),
    };
    const { db, backupPath } = openDatabase(path, { migrations: [...migrations, next], now: () => 42 });
    expect(backupPath).toBe(`${path}.backup-v${latestSchemaVersion}-42`);
    expect(existsSync(backupPath ?? '')).toBe(true);
    expect(db.prepare('SELECT title, pinned FROM sessions').get()).toEqual({ title: 'Kept', pinned: 0 });
    const backup = new BetterSqlite3(backupPath ?? '', { readonly: true });
    expect(backup.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(backup.prepare('SELECT title FROM sessions').get()).toEqual({ title: 'Kept' });
    backup.close();
    db.close();
  });

  it('takes the next free name for its backup when a backup of that moment is there already', () => {
    openDatabase(path).db.close();
    const next: Migration = {
      version: latestSchemaVersion + 1,
      description: 'adds a table',
      up: (db) => db.exec('CREATE TABLE later (x)'),
    };
    // A backup kept at the same moment (a conversion's, taken just before at this start).
    const taken = `${path}.backup-v${latestSchemaVersion}-42`;
    writeFileSync(taken, 'kept as it is');
    const { db, backupPath } = openDatabase(path, { migrations: [...migrations, next], now: () => 42 });
    db.close();
    expect(backupPath).toBe(`${path}.backup-v${latestSchemaVersion}-43`);
    expect(readFileSync(taken, 'utf8')).toBe('kept as it is');
  });

  it('rolls a failing migration back and leaves the schema version as it was', () => {
    openDatabase(path).db.close();
    const broken: Migration = {
      version: latestSchemaVersion + 1,
      description: 'fails',
      up: (db) => db.exec('CREATE TABLE half (x); SELECT * FROM missing_table'),
    };
    expect(() => openDatabase(path, { migrations: [...migrations, broken] })).toThrow(StoreError);
    const check = new BetterSqlite3(path);
    expect(check.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get()).toBeUndefined();
    check.close();
  });

  it('refuses a database written by a newer version and leaves it untouched', () => {
    openDatabase(path).db.close();
    const newer = new BetterSqlite3(path);
    newer.pragma(`user_version = ${latestSchemaVersion + 5}`);
    newer.close();
    const before = readFileSync(path);
    let caught: unknown;
    try {
      openDatabase(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(StoreError);
    expect((caught as StoreError).code).toBe('store_newer_version');
    expect((caught as StoreError).message).toContain('newer version');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a file that is not a SQLite database without changing it', () => {
    writeFileSync(path, 'these are not the bytes of a database'.repeat(100));
    const before = readFileSync(path);
    expect(() => openDatabase(path)).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('says an encrypted database opened without its key is encrypted, not damaged, and leaves it as it is', () => {
    // As the app leaves a data folder: the database encrypted, its key sealed in database.key beside it.
    const keys = testDatabaseKeys(dirname(path));
    openDatabase(path, { keys }).db.close();
    const before = readFileSync(path);
    let caught: unknown;
    try {
      openDatabase(path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'store_key_missing', message: expect.stringContaining('it is encrypted at rest') });
    expect((caught as Error).message).toContain('open this data folder in the app');
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('refuses a database whose pages are damaged', () => {
    const { db } = openDatabase(path);
    db.pragma('journal_mode = DELETE');
    db.close();
    const bytes = readFileSync(path);
    // Keep the header, scribble over the schema page.
    bytes.fill(0xa5, 100, bytes.length);
    writeFileSync(path, bytes);
    expect(() => openDatabase(path)).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
  });
});

describe('a database written by schema 1', () => {
  it('migrates to the latest schema with a backup, keeping sessions and their journal', async () => {
    const { copyFileSync } = await import('node:fs');
    const { SqliteSessionStore } = await import('../../../src/main/store/sqlite-session-store');
    const folder = temporaryFolder();
    const path = join(folder.path, 'workbench.sqlite');
    copyFileSync(new URL('../../fixtures/db/schema-v1.sqlite', import.meta.url), path);
    const { db, backupPath } = openDatabase(path);
    expect(backupPath).toMatch(/backup-v1-/);
    const store = new SqliteSessionStore(db);
    expect(store.list()).toEqual([
      expect.objectContaining({
        title: 'Written by schema 1',
        autonomy: 'L1',
        status: 'completed',
        model: { providerId: 'p1', model: 'llama3.2' },
      }),
    ]);
    expect(store.journal('00mwqold000000session01').map((entry) => entry.event.type)).toContain('text_delta');
    db.close();
    folder.remove();
  });
});

describe('a database written by schema 6', () => {
  it('opens with a damaged journal row, which its session still reports as damaged, and finds its rows by id', async () => {
    const { SqliteSessionStore } = await import('../../../src/main/store/sqlite-session-store');
    const folder = temporaryFolder();
    const path = join(folder.path, 'workbench.sqlite');
    const old = new BetterSqlite3(path);
    for (const step of migrations.filter((migration) => migration.version <= 6)) {
      step.up(old);
      old.pragma(`user_version = ${step.version}`);
    }
    const insertSession = old.prepare(
      "INSERT INTO sessions (id, title, workspace_path, model_provider_id, model_name, autonomy, status, created_at, updated_at) VALUES (?, 't', NULL, NULL, NULL, 'L1', 'completed', 1, 1)",
    );
    const insertRow = old.prepare(
      "INSERT INTO journal (session_id, seq, at, format, type, payload, branch) VALUES (?, ?, 1, 1, ?, ?, 'main')",
    );
    const insertBranch = old.prepare(
      "INSERT INTO branches (session_id, id, parent_id, fork_seq, checkpoint_id, reason, created_at, active_at) VALUES (?, 'main', NULL, -1, NULL, 'start', 1, 1)",
    );
    insertSession.run('good');
    insertBranch.run('good');
    insertRow.run('good', 0, 'user_message', JSON.stringify({ type: 'user_message', turnId: 't1', messageId: 'm1', text: 'hi' }));
    insertSession.run('bad');
    insertBranch.run('bad');
    insertRow.run('bad', 0, 'user_message', '{damaged');
    old.close();

    const { db } = openDatabase(path);
    const store = new SqliteSessionStore(db);
    expect(store.findById('good', 'user_message', 'm1')?.event).toMatchObject({ text: 'hi' });
    expect(() => store.journal('bad')).toThrow(expect.objectContaining({ code: 'store_corrupt' }));
    db.close();
    folder.remove();
  });
});
