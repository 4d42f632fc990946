import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3-multiple-ciphers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/main/store/database';
import { applyKey } from '../../../src/main/store/database-key';
import { newestRestorableBackup, restoreBackup } from '../../../src/main/store/database-restore';
import { latestSchemaVersion } from '../../../src/main/store/migrations';
import { CipherKeptDatabaseKey } from '../../../src/main/secrets/cipher-kept-database-key';
import { memoryKeyCipher } from '../../host/test-cipher';
import { temporaryFolder } from '../../helpers';

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/* A database that cannot be opened, and a backup that does put back in its place: offered only when it opens, the file it replaces kept. */
describe('putting a backup of the database back', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let path: string;
  const keychain = memoryKeyCipher();
  let keys: CipherKeptDatabaseKey;

  beforeEach(() => {
    folder = temporaryFolder();
    path = join(folder.path, 'workbench.sqlite');
    keys = new CipherKeptDatabaseKey(join(folder.path, 'database.key'), keychain);
  });
  afterEach(() => folder.remove());

  const key = (): Buffer => {
    const kept = keys.read();
    if (!kept) throw new Error('no key kept');
    return kept;
  };

  /** An encrypted database holding one session of the given title, closed. */
  function databaseWith(title: string, at = path): void {
    const { db } = openDatabase(at, { keys });
    db.prepare("INSERT OR REPLACE INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', ?, 'idle', 1, 1)").run(title);
    db.close();
  }

  /** The titles of the sessions in the database at `path`, opened as the app opens it. */
  function titlesAt(at = path): unknown[] {
    const { db } = openDatabase(at, { keys });
    try {
      return db.prepare('SELECT title FROM sessions ORDER BY id').pluck().all();
    } finally {
      db.close();
    }
  }

  /** Overwrites the file's first page, as a damaged disk or a bad copy would. */
  const damage = (at: string): void => {
    const bytes = readFileSync(at);
    bytes.fill(7, 0, 4096);
    writeFileSync(at, bytes);
  };

  it('names a backup that opens when the database is damaged, and putting it back keeps the damaged file aside', () => {
    databaseWith('Yesterday');
    const backup = `${path}.backup-v${latestSchemaVersion}-1700000000000`;
    writeFileSync(backup, readFileSync(path));
    databaseWith('Today');
    damage(path);
    const damaged = digest(path);
    // Encrypted, a damaged first page reads as another key: the message says both, and names the backup.
    expect(() => openDatabase(path, { keys })).toThrow(
      expect.objectContaining({
        code: 'store_key_wrong',
        backupPath: backup,
        message: expect.stringContaining('A backup taken 2023-11-14T22:13:20.000Z opens: it can be put back in its place'),
      }),
    );
    expect(digest(path)).toBe(damaged);

    // Its write-ahead log, or a rollback journal left by a crash, go aside with it: the copy is read without them.
    writeFileSync(`${path}-wal`, 'the log of the damaged file');
    writeFileSync(`${path}-journal`, 'a journal of the damaged file');
    const aside = restoreBackup(path, backup, key(), latestSchemaVersion, 1_800_000_000_000);
    expect(aside).toBe(`${path}.unopened-1800000000000`);
    expect(digest(aside)).toBe(damaged);
    expect(readFileSync(`${aside}-wal`, 'utf8')).toBe('the log of the damaged file');
    expect(readFileSync(`${aside}-journal`, 'utf8')).toBe('a journal of the damaged file');
    expect(existsSync(`${path}-journal`)).toBe(false);
    expect(existsSync(backup)).toBe(true);
    expect(readdirSync(folder.path).filter((name) => name.endsWith('.restoring'))).toEqual([]);
    expect(titlesAt()).toEqual(['Yesterday']);
    // The file set aside is not taken for a backup later.
    expect(newestRestorableBackup(path, key(), latestSchemaVersion)?.path).toBe(backup);
  });

  it('offers the newest backup that opens now: not a damaged one, one of a newer app, one needing another key, or a folder', () => {
    databaseWith('Kept');
    const older = `${path}.backup-v${latestSchemaVersion}-100`;
    const newer = `${path}.backup-v${latestSchemaVersion}-200`;
    writeFileSync(older, readFileSync(path));
    writeFileSync(newer, readFileSync(path));
    const damagedCopy = `${path}.backup-v${latestSchemaVersion}-300`;
    writeFileSync(damagedCopy, readFileSync(path));
    damage(damagedCopy);
    const newerApp = new BetterSqlite3(`${path}.backup-v${latestSchemaVersion + 1}-400`);
    newerApp.pragma(`user_version = ${latestSchemaVersion + 1}`);
    newerApp.close();
    const other = new BetterSqlite3(`${path}.backup-v${latestSchemaVersion}-500`);
    applyKey(other, Buffer.alloc(32, 9));
    other.exec('CREATE TABLE t (a)');
    other.close();
    mkdirSync(`${path}.backup-v${latestSchemaVersion}-600`);
    const plain = `${path}.backup-v2-50`;
    new BetterSqlite3(plain).exec('CREATE TABLE sessions (title TEXT)');

    expect(newestRestorableBackup(path, key(), latestSchemaVersion)).toEqual({
      path: newer,
      takenAt: 200,
      schemaVersion: latestSchemaVersion,
    });
    // Without a key only the plain copy opens.
    expect(newestRestorableBackup(path, null, latestSchemaVersion)?.path).toBe(plain);
    // A folder named as a backup never takes the place of the reason the database cannot be opened.
    damage(path);
    expect(() => openDatabase(path, { keys })).toThrow(expect.objectContaining({ code: 'store_key_wrong', backupPath: newer }));
  });

  it('puts back what the backup holds in its write-ahead log too', () => {
    const plainPath = join(folder.path, 'plain.sqlite');
    openDatabase(plainPath).db.close();
    const backup = `${plainPath}.backup-v${latestSchemaVersion}-20`;
    // A backup whose session is only in its -wal, as a copy taken while the app had it open would be.
    const { db } = openDatabase(plainPath);
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 'In the log', 'idle', 1, 1)").run();
    writeFileSync(backup, readFileSync(plainPath));
    writeFileSync(`${backup}-wal`, readFileSync(`${plainPath}-wal`));
    db.close();
    writeFileSync(plainPath, 'not a database at all, and long enough to be read as one'.repeat(100));
    restoreBackup(plainPath, backup, null, latestSchemaVersion, 30);
    const reopened = openDatabase(plainPath);
    expect(reopened.db.prepare('SELECT title FROM sessions').pluck().all()).toEqual(['In the log']);
    reopened.db.close();
  });

  it('refuses to put back what is not a backup that opens, and changes nothing', () => {
    databaseWith('Current');
    const before = digest(path);
    const stranger = join(folder.path, 'elsewhere.sqlite');
    writeFileSync(stranger, readFileSync(path));
    const needsAnotherKey = `${path}.backup-v${latestSchemaVersion}-9`;
    writeFileSync(needsAnotherKey, readFileSync(path));
    for (const candidate of [stranger, path, needsAnotherKey]) {
      const keyUsed = candidate === needsAnotherKey ? Buffer.alloc(32, 1) : key();
      expect(() => restoreBackup(path, candidate, keyUsed, latestSchemaVersion, 5)).toThrow(
        /is not a backup of .* that opens now; nothing was changed/,
      );
    }
    expect(digest(path)).toBe(before);
    expect(readdirSync(folder.path).filter((name) => name.includes('unopened'))).toEqual([]);
  });

  it('names a plain backup for a damaged plain database, and never reuses the name of a file set aside before', () => {
    const plainPath = join(folder.path, 'plain.sqlite');
    const { db } = openDatabase(plainPath);
    db.prepare("INSERT INTO sessions (id, title, status, created_at, updated_at) VALUES ('s1', 'Plain days', 'idle', 1, 1)").run();
    db.prepare('VACUUM INTO ?').run(`${plainPath}.backup-v${latestSchemaVersion}-10`);
    db.close();
    writeFileSync(plainPath, 'not a database at all, and long enough to be read as one'.repeat(100));
    expect(() => openDatabase(plainPath)).toThrow(
      expect.objectContaining({ code: 'store_corrupt', backupPath: `${plainPath}.backup-v${latestSchemaVersion}-10` }),
    );
    writeFileSync(`${plainPath}.unopened-7`, 'set aside before');
    const aside = restoreBackup(plainPath, `${plainPath}.backup-v${latestSchemaVersion}-10`, null, latestSchemaVersion, 7);
    expect(aside).toBe(`${plainPath}.unopened-7-2`);
    expect(readFileSync(`${plainPath}.unopened-7`, 'utf8')).toBe('set aside before');
    const reopened = openDatabase(plainPath);
    expect(reopened.db.prepare('SELECT title FROM sessions').pluck().all()).toEqual(['Plain days']);
    reopened.db.close();
  });

  it('changes nothing when the copy of the backup cannot be made', () => {
    databaseWith('Only copy');
    const backup = `${path}.backup-v${latestSchemaVersion}-1`;
    writeFileSync(backup, readFileSync(path));
    writeFileSync(`${path}-wal`, '');
    const before = digest(path);
    // The copy is made under this name first: a folder there makes it fail.
    mkdirSync(`${path}.restoring`);
    expect(() => restoreBackup(path, backup, key(), latestSchemaVersion, 3)).toThrow(
      expect.objectContaining({ code: 'store_unavailable', message: expect.stringContaining('could not be copied') }),
    );
    expect(digest(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(readdirSync(folder.path).filter((name) => name.includes('unopened'))).toEqual([]);
    expect(titlesAt()).toEqual(['Only copy']);
  });
});
